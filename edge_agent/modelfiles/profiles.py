"""Which model each task uses under a profile, and what is missing for a better one. A profile is an
ordered list of candidates per task, best first; the first one present here is the one in use.

- ``default``: what the default configuration (``type = "auto"``) picks: YOLOX / OSNet when their ONNX
  files are in the models folder, else the built-ins; text, language and speech models come from
  Python packages. This mirrors the ``auto`` builders (``edge_agent.perception.detectors.auto`` and the
  embedders' in ``edge_agent.perception.embed``).
- ``jetson``: TensorRT engines where they have been built (``edge-agent models build-engine``), else the
  ONNX files, else the built-ins; what ``deploy/config/home-camera.toml`` is written for."""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path

from edge_agent.modelfiles.engine import engine_file, find_engines
from edge_agent.modelfiles.manifest import Manifest
from edge_agent.modelfiles.verify import Check, check

__all__ = ["PROFILES", "Candidate", "TaskChoice", "resolve"]

# task -> candidate manifest names, best first; "engine:NAME" is a TensorRT engine built from NAME's ONNX.
PROFILES: dict[str, dict[str, tuple[str, ...]]] = {
    "default": {
        "detect": ("yolox_nano", "opencv-hog-people"),
        "reid": ("osnet_x0_25_msmt17", "color-texture"),
        "image-embed": ("color-texture",),
        "text-embed": ("all-MiniLM-L6-v2",),
        "llm": ("SmolLM2-135M-Instruct-Q4_1",),
        "stt": ("whisper-tiny.en",),
    },
    "jetson": {
        "detect": ("engine:yolox_nano", "yolox_nano", "opencv-hog-people"),
        "reid": ("engine:osnet_x0_25_msmt17", "osnet_x0_25_msmt17", "color-texture"),
        "image-embed": ("color-texture",),
        "text-embed": ("all-MiniLM-L6-v2",),
        "llm": ("SmolLM2-135M-Instruct-Q4_1",),
        "stt": ("whisper-tiny.en",),
    },
}


@dataclass(frozen=True)
class Candidate:
    label: str  #: the model's name, or its engine's file name
    available: bool
    how: str  #: where it is, or what to do to get it
    check: Check | None = None


@dataclass(frozen=True)
class TaskChoice:
    task: str
    chosen: Candidate | None
    missing_better: list[Candidate]  #: candidates ranked above the chosen one that are not here

    def line(self) -> str:
        if self.chosen is None:
            used = "nothing available"
        else:
            used = f"{self.chosen.label} in use ({self.chosen.how})"
        hints = "; ".join(c.how for c in self.missing_better)
        return f"{self.task}: {used}" + (f"; {hints}" if hints else "")


def _engine_candidate(manifest: Manifest, name: str, models: Path) -> Candidate:
    entry = manifest.find(name)
    assert entry.file is not None
    engines = find_engines(entry.file, models)
    runtime = importlib.util.find_spec("tensorrt") is not None and importlib.util.find_spec("pycuda") is not None
    if engines and runtime:
        return Candidate(engines[0].name, True, f"TensorRT engine {engines[0]}")
    if engines:
        return Candidate(
            engines[0].name, False, f"{engines[0].name} is built but tensorrt and pycuda are not importable here"
        )
    return Candidate(
        engine_file(entry.file, "fp16"), False, f"run `edge-agent models build-engine {entry.name} --fp16` for TensorRT"
    )


def _candidate(manifest: Manifest, name: str, models: Path, hash_files: bool, checks: dict[str, Check]) -> Candidate:
    if name.startswith("engine:"):
        return _engine_candidate(manifest, name.removeprefix("engine:"), models)
    entry = manifest.find(name)
    result = checks.get(entry.name) or check(entry, models, hash_files=hash_files)
    if result.status == "builtin":
        return Candidate(entry.name, True, "built-in, no file", result)
    if result.status == "ok":
        return Candidate(entry.name, True, f"{result.path}, verified" if hash_files else f"{result.path}", result)
    if result.status == "unverified":
        return Candidate(entry.name, True, f"{result.path}, an export of your own (no checksum)", result)
    if result.status == "corrupt":  # the pipeline still loads it; say so rather than hide it
        return Candidate(entry.name, True, f"{result.path}, NOT verified: {result.detail}", result)
    if entry.source == "package":
        return Candidate(entry.name, False, f"{result.detail} for {entry.name}", result)
    return Candidate(
        entry.name,
        False,
        f"put {entry.file} in {models} for {entry.name}"
        + (f" (edge-agent models fetch {entry.name})" if entry.url else ""),
        result,
    )


def resolve(
    manifest: Manifest,
    models: Path,
    profile: str = "default",
    *,
    hash_files: bool = True,
    checks: dict[str, Check] | None = None,
) -> list[TaskChoice]:
    """Per task of the profile: the candidate in use and the better ones that are missing. ``checks``:
    results already computed by name (so a listing hashes each file once)."""
    if profile not in PROFILES:
        raise KeyError(f"unknown profile {profile!r}; known: {', '.join(PROFILES)}")
    choices = []
    for task, names in PROFILES[profile].items():
        chosen, missing = None, []
        for name in names:
            candidate = _candidate(manifest, name, models, hash_files, checks or {})
            if candidate.available:
                chosen = candidate
                break
            missing.append(candidate)
        choices.append(TaskChoice(task, chosen, missing))
    return choices
