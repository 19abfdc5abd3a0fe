"""Models as verified files: the manifest (``models/manifest.toml``), checking what is on this machine,
fetching on request (never at run time), TensorRT engine builds and per-profile model choice. The
``edge-agent models`` command is a thin layer over these modules."""

from __future__ import annotations

from edge_agent.modelfiles.engine import EngineBuildError, EngineResult, build_engine, engine_file, find_engines
from edge_agent.modelfiles.fetch import FetchError, FetchResult, fetch
from edge_agent.modelfiles.manifest import Manifest, ManifestError, ModelEntry, load_manifest, manifest_path
from edge_agent.modelfiles.profiles import PROFILES, TaskChoice, resolve
from edge_agent.modelfiles.verify import Check, check, locate, sha256_file

__all__ = [
    "PROFILES",
    "Check",
    "EngineBuildError",
    "EngineResult",
    "FetchError",
    "FetchResult",
    "Manifest",
    "ManifestError",
    "ModelEntry",
    "TaskChoice",
    "build_engine",
    "check",
    "engine_file",
    "fetch",
    "find_engines",
    "load_manifest",
    "locate",
    "manifest_path",
    "resolve",
    "sha256_file",
]
