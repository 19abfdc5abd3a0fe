"""The model manifest: its schema, its entries against the files edge-agent was tested with (../shared),
and where an installation reads it from."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from helpers.shared import model

from edge_agent.modelfiles import manifest as manifest_module
from edge_agent.modelfiles.manifest import (
    FORMATS,
    SOURCES,
    TASKS,
    ManifestError,
    load_manifest,
    manifest_path,
    parse_manifest,
)
from edge_agent.modelfiles.verify import check

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = load_manifest()
REQUIRED = ("name", "task", "format", "backend", "source", "licence", "input")


@pytest.mark.parametrize("entry", MANIFEST.models, ids=lambda e: e.name)
def test_every_entry_follows_the_schema(entry):
    for field in REQUIRED:
        assert isinstance(getattr(entry, field), str) and getattr(entry, field).strip(), field
    assert entry.task in TASKS and entry.format in FORMATS and entry.source in SOURCES
    if entry.source == "builtin":
        assert entry.file is None and entry.sha256 is None and entry.format == "builtin"
        return
    if entry.source == "export":  # made by the user: no checksum, a note saying how
        assert entry.file and "/" not in entry.file and entry.note
        assert entry.size is None and entry.sha256 is None and entry.url is None
        return
    assert re.fullmatch(r"[0-9a-f]{64}", entry.sha256 or "")
    assert isinstance(entry.size, int) and entry.size > 0
    if entry.source == "url":
        assert "/" not in entry.file
        assert entry.url or entry.note, "an entry without a confirmed URL says so in its note"
    else:
        assert entry.package and entry.version and entry.module


def test_names_and_files_are_unique_and_every_task_the_pipeline_needs_is_covered():
    names = [e.name.lower() for e in MANIFEST.models]
    files = [e.file for e in MANIFEST.models if e.file]
    assert len(names) == len(set(names)) and len(files) == len(set(files))
    assert {"detect", "reid", "text-embed", "llm", "stt"} <= {e.task for e in MANIFEST.models}
    assert MANIFEST.find("YOLOX_NANO") is MANIFEST.find("yolox_nano.onnx")


def test_the_manifest_is_read_from_the_package_or_the_checkout(tmp_path, monkeypatch):
    path = manifest_path()
    assert path.endswith("manifest.toml")
    assert load_manifest(path).models == MANIFEST.models
    # An installed wheel: the packaged copy (edge_agent/manifest.toml) wins over any checkout.
    packaged = tmp_path / "edge_agent"
    packaged.mkdir()
    (packaged / "manifest.toml").write_text(GOOD.replace("{sha}", "0" * 64))
    monkeypatch.setattr(manifest_module.resources, "files", lambda package: packaged)
    assert manifest_path() == str(packaged / "manifest.toml") and [e.name for e in load_manifest().models] == ["m"]


def test_wheels_carry_the_canonical_file_under_the_name_the_loader_reads():
    pyproject = ROOT / "pyproject.toml"
    if not pyproject.is_file():
        pytest.skip(f"{pyproject} is absent (tests run outside the source checkout)")
    build = tomllib.loads(pyproject.read_text())["tool"]["scikit-build"]
    assert build["wheel"]["force-include"] == {"models/manifest.toml": "edge_agent/manifest.toml"}
    assert (ROOT / "models" / "manifest.toml").is_file()


@pytest.mark.shared
@pytest.mark.parametrize("entry", [e for e in MANIFEST.models if e.source == "url"], ids=lambda e: e.name)
def test_entries_match_the_tested_files(entry):
    path = model(entry.file)
    result = check(entry, path.parent)
    assert result.status == "ok", result.detail


GOOD = """schema = 1
[[models]]
name = "m"
task = "detect"
format = "onnx"
backend = "onnxruntime"
source = "url"
licence = "MIT"
input = "1x3x8x8"
file = "m.onnx"
size = 10
sha256 = "{sha}"
url = "https://example.org/m.onnx"
"""


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (('task = "detect"', 'task = "segment"'), "task 'segment' is not one of"),
        (('format = "onnx"', 'format = "pt"'), "format 'pt' is not one of"),
        (('sha256 = "{sha}"', 'sha256 = "abc"'), "sha256 must be 64 lowercase hex"),
        (("size = 10", "size = 0"), "size must be a positive"),
        (('licence = "MIT"\n', ""), "'licence' is required"),
        (('url = "https://example.org/m.onnx"', 'url = "http://example.org/m.onnx"'), "url must be https://"),
        (('url = "https://example.org/m.onnx"', ""), "a note must say where the file comes from"),
        (('file = "m.onnx"', 'file = "sub/m.onnx"'), "bare name"),
        (('input = "1x3x8x8"', 'input = "1x3x8x8"\nmystery = 1'), "unknown field(s) mystery"),
    ],
)
def test_schema_errors_name_the_field(change, message):
    text = GOOD.replace(*change).replace("{sha}", "0" * 64)
    with pytest.raises(ManifestError, match=re.escape(message)):
        parse_manifest(text)


def test_repeated_names_are_refused():
    one = GOOD.replace("{sha}", "0" * 64)
    with pytest.raises(ManifestError, match="names repeat: m"):
        parse_manifest(one + one.split("\n", 1)[1].replace('file = "m.onnx"', 'file = "n.onnx"'))


EXPORT = """schema = 1
[[models]]
name = "x"
task = "detect"
format = "onnx"
backend = "onnxruntime"
source = "export"
licence = "MIT"
input = "1x3x8x8"
file = "x.onnx"
note = "export it yourself"
"""


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (('note = "export it yourself"', ""), "source 'export' needs 'note'"),
        (('file = "x.onnx"', ""), "source 'export' needs 'file'"),
        (('file = "x.onnx"', 'file = "x.onnx"\nsize = 10'), "an export of the user's own has no size, sha256 or url"),
        (('file = "x.onnx"', 'file = "x.onnx"\nurl = "https://example.org/x.onnx"'), "has no size, sha256 or url"),
        (('file = "x.onnx"', 'file = "sub/x.onnx"'), "bare name"),
    ],
)
def test_an_export_has_a_file_and_a_note_and_no_checksum(change, message):
    assert parse_manifest(EXPORT).models[0].source == "export"
    with pytest.raises(ManifestError, match=re.escape(message)):
        parse_manifest(EXPORT.replace(*change))


def test_an_export_is_found_in_the_models_folder_but_never_verified(tmp_path):
    entry = parse_manifest(EXPORT).models[0]
    assert check(entry, tmp_path).status == "absent" and "see the manifest's note" in check(entry, tmp_path).detail
    (tmp_path / "x.onnx").write_bytes(b"anything")
    found = check(entry, tmp_path)
    assert found.status == "unverified" and found.usable and found.path == tmp_path / "x.onnx"
    assert found.actual_size == 8 and found.expected_sha256 is None
