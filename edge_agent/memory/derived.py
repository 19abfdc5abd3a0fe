"""The files under ``<home>/index/`` are made from memory.db and can be made again from it (GEB section 3.4's
indexes: the graph's arrays, the vector index's segments and tails, the kind words' vectors). Each is written with its
size and a checksum in the manifest that names it, checked before it is used and in full by ``memory check``; one that
is not what was written is set aside under ``index/damaged-<time>/`` for a person to look at, with a one-line warning,
and made again from memory: a damaged index never stops a question from being answered.

A file found whole is sealed in its folder's ``.verified.json`` with its size, times and inode; a later process finds it
as it was sealed and does not sum it again (a million observations: 1.7 GB of index files, 0.1 to 0.6 s of every
question's process). Any write to a file moves its ctime, which no program sets back, and a copy is another inode, so a
file changed since is summed again; a file changed less than :data:`_SETTLED_NS` before it was sealed is not sealed
(times are coarser than writes: git's "racily clean" entries). ``memory check`` sums every file whatever was sealed."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from edge_agent.errors import EdgeAgentError

__all__ = [
    "DAMAGED",
    "VERIFIED",
    "DamagedIndexError",
    "array_record",
    "checksum",
    "damage",
    "file_checksum",
    "file_record",
    "set_aside",
]

log = logging.getLogger(__name__)

#: Damaged files are moved into a folder of ``index/`` named this, then the time (UTC).
DAMAGED = "damaged-"

_BLOCK = 4096  #: bytes summed together: a page of the medium

#: The file in a folder of the index sealing the files found whole there (name -> size, times, inode, checksum).
VERIFIED = ".verified.json"

#: How long before it is sealed a file must have last changed (ns): file times are coarser than a write.
_SETTLED_NS = 2_000_000_000


class DamagedIndexError(EdgeAgentError, ValueError):
    """A file under ``<home>/index/`` is not what was written there; it is set aside and made again from memory."""


def checksum(data: npt.NDArray[Any]) -> str:
    """A checksum of an array's bytes (C order): the 64-bit words of each 4 KiB block summed, the blocks' sums
    weighted by odd numbers in the order of the blocks and summed again (mod 2**64), as 16 hex digits. One pass at the
    speed of memory (measured here from the page cache: ~10 GB/s, where zlib's crc32 made 2.8 GB/s and sha256 1.4),
    so the files a question maps can be checked each time a process opens them. A change within a
    block changes it (the weights are odd: invertible mod 2**64), and so does a block written at another's place;
    two changes in one block that cancel would not, which is not what a failing medium or a torn write does: it
    guards against damage, not against someone forging a file."""
    raw = np.ascontiguousarray(data).reshape(-1).view(np.uint8)
    whole = len(raw) - len(raw) % _BLOCK
    last = np.zeros(_BLOCK, np.uint8)
    last[: len(raw) - whole] = raw[whole:]
    sums = np.add.reduce(raw[:whole].view(np.uint64).reshape(-1, _BLOCK // 8), axis=1, dtype=np.uint64)
    sums = np.append(sums, np.add.reduce(last.view(np.uint64), dtype=np.uint64))
    weights = np.arange(1, 2 * len(sums), 2, dtype=np.uint64)
    return f"{int(np.add.reduce(sums * weights, dtype=np.uint64)):016x}"


def file_checksum(path: Path, size: int | None = None) -> str:
    """The :func:`checksum` of a file's first ``size`` bytes (all of it by default), read through a mapping."""
    size = path.stat().st_size if size is None else size
    if size == 0:
        return checksum(np.empty(0, np.uint8))
    return checksum(np.memmap(path, np.uint8, mode="r", shape=(size,)))


def file_record(path: Path) -> dict[str, Any]:
    """What a manifest keeps of a file it names: its size and checksum."""
    size = path.stat().st_size
    return {"bytes": size, "checksum": file_checksum(path, size)}


def array_record(array: npt.NDArray[Any]) -> dict[str, Any]:
    """What a manifest keeps of a file holding ``array``'s bytes (C order), from the array in memory."""
    return {"bytes": int(np.asarray(array).nbytes), "checksum": checksum(array)}


def damage(
    folder: Path, files: Mapping[str, Any], *, whole: Iterable[str] | None = None, sealed: bool = True
) -> str | None:
    """What is wrong with files a manifest names (paths relative to ``folder``: their records, from
    :func:`file_record` or :func:`array_record`): the first one missing, shorter than written or, among those in
    ``whole`` (all by default), whose first bytes as written have another checksum; None when all are as written. A
    file may be longer than its record (a tail appended to since): the bytes after are not checked. ``sealed``: a file
    as it was when found whole before is not summed again, and those found whole now are sealed (module docstring);
    False sums every one."""
    summed = set(files) if whole is None else set(whole)
    seals = _seals(folder) if sealed else {}
    found_whole: dict[str, list[Any]] = {}
    for name, written in files.items():
        path = folder / name
        try:
            size, expected = int(written["bytes"]), str(written["checksum"])
        except (KeyError, TypeError, ValueError):
            return f"the record of {path} is unreadable"
        try:
            st = path.stat()
            if st.st_size < size:
                return f"{path} is shorter than written ({st.st_size} of {size} bytes)"
            if name not in summed:
                continue
            seal = [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, size, expected]
            if seals.get(name) == seal:
                continue
            if file_checksum(path, size) != expected:
                return f"{path} is not what was written (its checksum differs)"
            if time.time_ns() - st.st_ctime_ns > _SETTLED_NS:
                found_whole[name] = seal
        except FileNotFoundError:
            return f"{path} is missing"
        except (OSError, ValueError) as exc:
            return f"{path} cannot be read ({exc})"
    if sealed and found_whole:
        _seal(folder, {**seals, **found_whole})
    return None


def _seals(folder: Path) -> dict[str, list[Any]]:
    """The files of ``folder`` sealed as found whole (none where the seals are missing or unreadable)."""
    try:
        seals = json.loads((folder / VERIFIED).read_text())
    except (OSError, ValueError):
        return {}
    return {str(k): v for k, v in seals.items() if isinstance(v, list)} if isinstance(seals, dict) else {}


def _seal(folder: Path, seals: Mapping[str, list[Any]]) -> None:
    """Writes the seals of the files of ``folder`` still there (atomically; where it cannot, the next process sums
    them again)."""
    kept = {name: seal for name, seal in seals.items() if (folder / name).exists()}
    tmp = folder / f"{VERIFIED}.{os.getpid()}.tmp"
    try:
        tmp.write_text(json.dumps(kept))
        os.replace(tmp, folder / VERIFIED)
    except OSError as exc:
        log.debug("cannot seal the index files found whole in %s: %s", folder, exc)
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)


def set_aside(index: Path, paths: Iterable[Path], why: str) -> Path | None:
    """Moves damaged files or folders under ``index`` (the memory's ``index/``) into ``index/damaged-<UTC time>/``,
    their places below ``index`` kept, and says so in one warning (``why``: what was damaged). Where one cannot be
    moved it is deleted: it is made again from memory either way. The folder they went to; None where none went."""
    aside = index / f"{DAMAGED}{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}"
    moved, deleted, kept = False, False, ""
    for path in paths:
        if not os.path.lexists(path):
            continue
        try:
            target = aside / path.relative_to(index)
            target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            os.replace(path, target)
            moved = True
            continue
        except OSError:
            pass
        try:
            if path.is_dir():
                shutil.rmtree(path)
            else:
                path.unlink()
            deleted = True
        except OSError as exc:  # a read-only medium: the caller leaves it unused
            kept = str(exc)
    done = ", ".join(
        [f"set aside in {aside}"] * moved
        + ["deleted (it could not be moved)"] * deleted
        + [f"left in place ({kept})"] * bool(kept)
    )
    log.warning("%s: %s", why, f"{done}, made again from memory" if done else "made again from memory")
    return aside if moved else None
