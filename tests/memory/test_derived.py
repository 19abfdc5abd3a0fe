"""The files under index/ (memory/derived.py): the checksum sees any change within a block and blocks moved, a
manifest's records name what is missing, shorter or changed, and a damaged file is set aside where a person can
look at it."""

from __future__ import annotations

import logging
import os
import time

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from edge_agent.memory import derived


@settings(max_examples=200, deadline=None)
@given(data=st.binary(min_size=1, max_size=20_000), where=st.integers(min_value=0), change=st.integers(1, 255))
def test_a_changed_byte_changes_the_checksum(data, where, change):
    original = np.frombuffer(data, np.uint8)
    changed = original.copy()
    changed[where % len(changed)] ^= change
    assert derived.checksum(changed) != derived.checksum(original)


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), blocks=st.integers(2, 12), first=st.integers(0), second=st.integers(0))
def test_blocks_in_other_places_change_the_checksum(seed, blocks, first, second):
    data = np.random.default_rng(seed).integers(0, 256, blocks * 4096, np.uint8).reshape(blocks, 4096)
    a, b = first % blocks, second % blocks
    moved = data.copy()
    moved[[a, b]] = moved[[b, a]]
    assert (derived.checksum(moved) == derived.checksum(data)) == np.array_equal(moved, data)


def test_an_array_and_the_file_of_its_bytes_have_one_checksum(tmp_path):
    array = np.random.default_rng(1).normal(size=(1000, 7)).astype(np.float16)
    path = tmp_path / "rows.f16"
    array.tofile(path)
    assert derived.file_record(path) == derived.array_record(array)
    assert derived.file_checksum(path, 7 * 2 * 10) == derived.checksum(array[:10])  # a prefix: the rows recorded


def test_damage_names_what_is_missing_short_or_changed(tmp_path):
    for name in ("a.bin", "b.bin"):
        (tmp_path / name).write_bytes(bytes(range(256)) * 40)
    files = {name: derived.file_record(tmp_path / name) for name in ("a.bin", "b.bin")}
    assert derived.damage(tmp_path, files) is None
    with open(tmp_path / "b.bin", "ab") as f:
        f.write(b"appended")  # past what was written: not looked at
    assert derived.damage(tmp_path, files) is None
    with open(tmp_path / "b.bin", "r+b") as f:
        f.seek(5000)
        f.write(b"\x00")
    assert derived.damage(tmp_path, files) == f"{tmp_path / 'b.bin'} is not what was written (its checksum differs)"
    assert derived.damage(tmp_path, files, whole=["a.bin"]) is None  # sizes only for the others
    (tmp_path / "a.bin").write_bytes(b"short")
    assert derived.damage(tmp_path, files) == f"{tmp_path / 'a.bin'} is shorter than written (5 of 10240 bytes)"
    (tmp_path / "a.bin").unlink()
    assert derived.damage(tmp_path, files) == f"{tmp_path / 'a.bin'} is missing"
    assert derived.damage(tmp_path, {"a.bin": {"bytes": "many"}}) == f"the record of {tmp_path / 'a.bin'} is unreadable"


def test_a_file_found_whole_is_sealed_and_not_summed_again_until_it_changes(tmp_path, monkeypatch):
    settled = tmp_path / "old.bin"
    settled.write_bytes(bytes(range(256)) * 40)
    files = {"old.bin": derived.file_record(settled)}
    summed = []
    checksum = derived.file_checksum
    monkeypatch.setattr(derived, "file_checksum", lambda p, size=None: summed.append(p.name) or checksum(p, size))
    assert derived.damage(tmp_path, files) is None
    assert summed == ["old.bin"] and not (tmp_path / derived.VERIFIED).exists()  # changed just now: not sealed
    monkeypatch.setattr(derived, "_SETTLED_NS", 0)
    assert derived.damage(tmp_path, files) is None
    assert derived.damage(tmp_path, files) is None and derived.damage(tmp_path, files) is None
    assert summed == ["old.bin"] * 2  # sealed by the second look, not summed by the next two
    assert derived.damage(tmp_path, files, sealed=False) is None and summed == ["old.bin"] * 3  # memory check
    time.sleep(0.05)  # file times are coarser than writes
    written = settled.stat()
    with open(settled, "r+b") as f:
        f.seek(5000)
        f.write(b"\x00")
    os.utime(settled, ns=(written.st_atime_ns, written.st_mtime_ns))  # its time set back: its ctime still moved
    assert derived.damage(tmp_path, files) == f"{settled} is not what was written (its checksum differs)"
    (tmp_path / derived.VERIFIED).write_text("not json")  # unreadable seals: every file summed
    settled.write_bytes(bytes(range(256)) * 40)
    assert derived.damage(tmp_path, files) is None and summed[-1] == "old.bin" and len(summed) == 5


def test_damaged_files_are_set_aside_where_they_were_with_one_warning(tmp_path, caplog):
    index = tmp_path / "index"
    (index / "graph" / "r1").mkdir(parents=True)
    (index / "graph" / "r1" / "indices.npy").write_bytes(b"x")
    (index / "vec").mkdir()
    (index / "vec" / "tail-0-0.f16").write_bytes(b"y")
    with caplog.at_level(logging.WARNING):
        aside = derived.set_aside(
            index, [index / "graph" / "r1", index / "vec" / "tail-0-0.f16", index / "gone"], "two files are damaged"
        )
    assert aside is not None and aside.parent == index and aside.name.startswith(derived.DAMAGED)
    assert (aside / "graph" / "r1" / "indices.npy").read_bytes() == b"x"
    assert (aside / "vec" / "tail-0-0.f16").read_bytes() == b"y"
    assert not (index / "graph" / "r1").exists() and not (index / "vec" / "tail-0-0.f16").exists()
    assert [r.getMessage() for r in caplog.records] == [
        f"two files are damaged: set aside in {aside}, made again from memory"
    ]
