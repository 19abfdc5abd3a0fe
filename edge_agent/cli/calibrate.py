"""``edge-agent calibrate identity``: association thresholds (and the weight of the description's words) for
an embedding space, proposed from labelled observations at a chosen false-merge rate."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from edge_agent.cli.common import emit, examples, fail, random_seed, runtime

if TYPE_CHECKING:
    from edge_agent.config.embedders import KindName

__all__ = ["register"]


def _fraction(text: str) -> float:
    value = float(text)
    if not 0.0 <= value < 1.0:
        raise argparse.ArgumentTypeError(f"must be at least 0 and below 1, got {text}")
    return value


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    calibrate = commands.add_parser("calibrate", help="propose association thresholds from labelled observations")
    targets = calibrate.add_subparsers(dest="target", metavar="TARGET", required=True)
    identity = targets.add_parser(
        "identity",
        parents=[common],
        help="tau_low / tau_high (and the description's weight) at a false-merge rate, from MOT sequences or a world",
        epilog=examples(
            "edge-agent calibrate identity --mot mot17-mini/MOT17-02-FRCNN mot17-mini/MOT17-04-FRCNN",
            "# objects of a synthetic world, trying three description weights",
            "edge-agent calibrate identity --world kitchen-lookalikes --seed 0 --weights 0 0.25 0.5 --json",
        ),
    )
    data = identity.add_mutually_exclusive_group(required=True)
    data.add_argument("--mot", type=Path, nargs="+", metavar="DIR", help="MOT-format sequences (ground-truth boxes)")
    data.add_argument(
        "--world", metavar="SCENARIO", help="a synthetic world: a scenario file or a shipped one (kitchen-lookalikes)"
    )
    identity.add_argument("--seed", type=random_seed, nargs="+", default=[0, 1, 2], help="the world's seeds (0 1 2)")
    identity.add_argument(
        "--kind",
        choices=["person", "animal", "object"],
        help="the kind whose space is calibrated (default: person for --mot, object for --world)",
    )
    identity.add_argument(
        "--weights",
        type=_fraction,
        nargs="+",
        metavar="W",
        help="description weights to try (default: the configured one; 0 is appearance alone)",
    )
    identity.add_argument(
        "--false-merges", type=_fraction, default=0.01, help="the highest false-merge rate allowed (0.01)"
    )
    identity.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    identity.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    try:
        return _run(args)
    except FileNotFoundError as exc:  # a sequence or scenario that is not there
        return fail(str(exc))


def _run(args: argparse.Namespace) -> int:
    from edge_agent.eval import calibrate

    kind: KindName = args.kind or ("person" if args.mot else "object")
    detector = {"type": "gt", "min_visibility": 0.25} if args.mot else {}
    rt = runtime(args, **({"detector": detector} if detector else {}))
    weights = args.weights or [rt.config.embedders.described.get(kind, 0.0)]
    # perceived with appearance alone: each weight joins the words to the same vectors
    appearance = rt.config.model_copy(update={"embedders": rt.config.embedders.model_copy(update={"described": {}})})
    print(f"calibrate: perceiving {'the sequences' if args.mot else 'the world'} once ...", file=sys.stderr)
    if args.mot:
        from edge_agent.eval.identity import record_mot

        recordings = [record_mot(s, appearance, rt.models) for s in args.mot]
    else:
        from edge_agent.eval.world import load_scenario
        from edge_agent.eval.worldeval import record_world

        scenario = load_scenario(args.world)
        recordings = [record_world(scenario, seed, appearance, rt.models) for seed in args.seed]
    result = calibrate.calibrate(
        recordings, kind, rt.config, text=rt.text_embedder(), weights=weights, max_false_merges=args.false_merges
    )
    return emit(args, result, calibrate.format_table(result))
