"""The model manifest (``models/manifest.toml``): every model edge-agent knows, with what it is for, where
it comes from and the checksum of the file it was tested with. Read once, validated strictly (a bad
entry names its field), so the rest of ``edge_agent.modelfiles`` can trust it.

Where it is read from: wheels carry a copy as ``edge_agent/manifest.toml`` (scikit-build-core's
``wheel.force-include``); a source checkout or an editable install made before that setting reads
``models/manifest.toml`` beside the package. One canonical file, no symlink, no second copy in git."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, fields
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from edge_agent.errors import EdgeAgentError

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

__all__ = [
    "BACKENDS",
    "FORMATS",
    "SOURCES",
    "TASKS",
    "Manifest",
    "ManifestError",
    "ModelEntry",
    "load_manifest",
    "manifest_path",
]

TASKS = frozenset({"detect", "face-detect", "reid", "image-embed", "text-embed", "vlm", "llm", "stt"})
FORMATS = frozenset({"onnx", "engine", "gguf", "safetensors", "ctranslate2", "tflite", "builtin"})
BACKENDS = frozenset({"onnxruntime", "tensorrt", "opencv", "numpy", "llama-cpp", "faster-whisper", "tflite"})
SOURCES = frozenset({"url", "package", "builtin", "export"})
_SHA256 = re.compile(r"[0-9a-f]{64}")
_REQUIRED = {
    "url": ("file", "size", "sha256"),
    "package": ("package", "version", "module", "file", "size", "sha256"),
    "builtin": (),
    "export": ("file", "note"),
}


class ManifestError(EdgeAgentError, ValueError):
    """The manifest is unreadable or an entry breaks the schema; the message names the entry and field."""


@dataclass(frozen=True)
class ModelEntry:
    """One model. ``file`` is a name in the models folder (source "url", or "export": a file users make from the
    model's published weights, whose bytes no checksum can fix) or a path relative to the installed ``module``'s
    folder (source "package"); builtins have none."""

    name: str
    task: str
    format: str
    backend: str
    source: str
    licence: str
    input: str
    file: str | None = None
    size: int | None = None
    sha256: str | None = None
    url: str | None = None
    homepage: str | None = None
    package: str | None = None
    version: str | None = None
    module: str | None = None
    output: str | None = None
    note: str | None = None

    def matches(self, name: str) -> bool:
        """Named by its manifest name (any case) or its file name."""
        return name.lower() == self.name.lower() or (self.file is not None and name == Path(self.file).name)


@dataclass(frozen=True)
class Manifest:
    models: tuple[ModelEntry, ...]
    path: str  #: where it was read from, for messages

    def find(self, name: str) -> ModelEntry:
        for entry in self.models:
            if entry.matches(name):
                return entry
        raise KeyError(f"no model {name!r} in the manifest; known: {', '.join(e.name for e in self.models)}")

    def for_task(self, task: str) -> list[ModelEntry]:
        return [e for e in self.models if e.task == task]


def _entry(raw: dict[str, Any], index: int) -> ModelEntry:
    where = f"models[{index}] ({raw.get('name', '?')})"
    known = {f.name for f in fields(ModelEntry)}
    unknown = sorted(set(raw) - known)
    if unknown:
        raise ManifestError(f"{where}: unknown field(s) {', '.join(unknown)}")
    for key in ("name", "task", "format", "backend", "source", "licence", "input"):
        if not isinstance(raw.get(key), str) or not raw[key].strip():
            raise ManifestError(f"{where}: '{key}' is required (a non-empty string)")
    for key, allowed in (("task", TASKS), ("format", FORMATS), ("backend", BACKENDS), ("source", SOURCES)):
        if raw[key] not in allowed:
            raise ManifestError(f"{where}: {key} {raw[key]!r} is not one of {', '.join(sorted(allowed))}")
    source = raw["source"]
    for key in _REQUIRED[source]:
        if raw.get(key) in (None, ""):
            raise ManifestError(f"{where}: source {source!r} needs '{key}'")
    if source == "builtin" and (raw.get("file") or raw.get("sha256")):
        raise ManifestError(f"{where}: a builtin has no file or sha256")
    if (source == "builtin") != (raw["format"] == "builtin"):
        raise ManifestError(f"{where}: format 'builtin' goes with source 'builtin' and only with it")
    if source == "export" and any(raw.get(k) for k in ("size", "sha256", "url")):
        raise ManifestError(f"{where}: an export of the user's own has no size, sha256 or url (exports differ)")
    if source == "url" and not raw.get("url") and not raw.get("note"):
        raise ManifestError(f"{where}: without a url, a note must say where the file comes from")
    if "sha256" in raw and not (isinstance(raw["sha256"], str) and _SHA256.fullmatch(raw["sha256"])):
        raise ManifestError(f"{where}: sha256 must be 64 lowercase hex digits, got {raw['sha256']!r}")
    if "size" in raw and not (isinstance(raw["size"], int) and raw["size"] > 0):
        raise ManifestError(f"{where}: size must be a positive number of bytes, got {raw['size']!r}")
    if source in ("url", "export") and "/" in str(raw["file"]):
        raise ManifestError(f"{where}: file must be a bare name in the models folder, got {raw['file']!r}")
    if raw.get("url") and not str(raw["url"]).startswith("https://"):
        raise ManifestError(f"{where}: url must be https://, got {raw['url']!r}")
    return ModelEntry(**raw)


def parse_manifest(text: str, path: str = "<manifest>") -> Manifest:
    """A manifest from TOML text, validated."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ManifestError(f"{path}: not valid TOML: {exc}") from None
    if data.get("schema") != 1:
        raise ManifestError(f"{path}: expected schema = 1, got {data.get('schema')!r}")
    raw = data.get("models")
    if not isinstance(raw, list) or not raw:
        raise ManifestError(f"{path}: no [[models]] entries")
    entries = tuple(_entry(r, i) for i, r in enumerate(raw))
    for attr in ("name", "file"):
        values = [getattr(e, attr).lower() for e in entries if getattr(e, attr)]
        repeated = sorted({v for v in values if values.count(v) > 1})
        if repeated:
            raise ManifestError(f"{path}: {attr}s repeat: {', '.join(repeated)}")
    return Manifest(entries, path)


def _located() -> Traversable:
    packaged = resources.files("edge_agent").joinpath("manifest.toml")
    if packaged.is_file():
        return packaged
    checkout = Path(__file__).resolve().parents[2] / "models" / "manifest.toml"
    if checkout.is_file():
        return checkout
    raise ManifestError(
        "the model manifest is missing: neither edge_agent/manifest.toml (installed) nor models/manifest.toml "
        "(source checkout) exists; reinstall edge-agent"
    )


def manifest_path() -> str:
    """Where this installation's manifest is read from (for messages)."""
    return str(_located())


def load_manifest(path: str | Path | None = None) -> Manifest:
    """The manifest at ``path``, else this installation's: the packaged copy, else the source checkout's."""
    where: Traversable = Path(path) if path is not None else _located()
    try:
        text = where.read_text(encoding="utf-8")
    except OSError as exc:
        raise ManifestError(f"cannot read the model manifest {where}: {exc.strerror}") from None
    return parse_manifest(text, str(where))
