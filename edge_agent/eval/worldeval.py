"""``edge-agent eval world``: a synthetic world (:mod:`edge_agent.eval.world`) through the real pipeline
and scored (EVAL.md section 2). Ground-truth boxes are replayed with the scenario's noise (``detector="gt"``), or
the rendered frames go through the product's default detector stack (``"auto"``: YOLOX when its file is in the models
folder, else OpenCV, plus the change finder on a fixed camera); tracking, embeddings, descriptions, association,
memory, retrieval and the controller are the product's own either way. Observations are matched to the true instances
by IoU with the true boxes, whatever category the detector gave them (keys found as an "object").

Reported per seed and averaged: identity (entities against instances), evidence recall (questions
whose evidence windows are all covered by observations of the right instance in the final context:
what retrieval returned plus what the controller's tools opened and cited), answer accuracy (the
controller's open answer mapped to the nearest choice), latency,
and the ablations on the same recorded perception: ``no-veto``, ``single-threshold`` (only the best
reference must reach tau_high: the every-reference condition dropped), ``text-only`` (observations
grouped into entities by their description's subject words, the MAGIC-Video-style baseline),
``no-identity-edges``, ``no-episode-edges`` and ``no-biography-text``. The identity ablations replay the
same clips and observations into a fresh memory with the changed association; the retrieval ablations
change retrieval on the full memory.

Rules (the scenario's optional ``rules``): added to the full method's fresh memory before ingest, the
product's resolver run over every clip after it, and its alerts scored against the script's true alerts
(:mod:`edge_agent.eval.alerts`: precision, recall, delay); ``alerts`` is None when the scenario has no
rules, and for every ablation (rules are not run on them)."""

from __future__ import annotations

import functools
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from edge_agent import __version__
from edge_agent.capture import MOTSequenceSource
from edge_agent.config import Config
from edge_agent.errors import InvalidInputError
from edge_agent.eval import texture
from edge_agent.eval.alerts import (
    RaisedAlert,
    entity_labels,
    group_absence_rules,
    recorded_clock,
    score_alerts,
    summarize_alerts,
    tolerances,
    true_alerts,
)
from edge_agent.eval.calibrate import Recording, RecordingStore, labelled
from edge_agent.eval.draw import draw_thing
from edge_agent.eval.faces import DrawnFaces, portrait
from edge_agent.eval.groundtruth import GroundTruth
from edge_agent.eval.metrics import IDENTITY_KEYS, evidence_covered, identity_scores
from edge_agent.eval.moves import box_recall, score_moves
from edge_agent.eval.scene import size_of
from edge_agent.eval.world import ANIMALS, Scenario, World, place_in, rule_predicates, simulate
from edge_agent.ingest import Pipeline
from edge_agent.memory import Store, people, places, queries, things
from edge_agent.memory.associate import AssociationConfig, Associator, Thresholds
from edge_agent.memory.consolidate import traces
from edge_agent.memory.description import label
from edge_agent.memory.records import AssociationDecision, ObservationRecord
from edge_agent.perception.backends import Backends, build_backends
from edge_agent.perception.embed import observation_embedding
from edge_agent.retrieval import RetrievalConfig
from edge_agent.rules import book
from edge_agent.rules.alerting import settings_of
from edge_agent.rules.resolver import Resolver

__all__ = [
    "ABLATIONS",
    "DETECTORS",
    "evaluate_world",
    "format_people",
    "format_table",
    "ingest_world",
    "record_world",
    "world_config",
]

DETECTORS = ("gt", "auto")  #: how a world's frames become boxes: replayed ground truth, or the default detector stack
IDENTITY_ABLATIONS = ("no-veto", "single-threshold", "text-only", "no-faces")
RETRIEVAL_ABLATIONS = ("no-identity-edges", "no-episode-edges", "no-biography-text")
ABLATIONS = IDENTITY_ABLATIONS + RETRIEVAL_ABLATIONS


class _TextGrouping(Associator):
    """The text-only baseline: an observation joins the entity of every earlier observation whose
    description names the same subject (its category, colour and pattern: "striped red cup", "person in blue
    plain clothes"), whatever else it looked like."""

    def __init__(self, store: Store, config: AssociationConfig) -> None:
        super().__init__(store, config)
        self.groups: dict[tuple[str, str], int] = {}

    def associate(
        self, observation_id: int, record: ObservationRecord, camera: str, space_id: int, *, moving: bool = False
    ) -> AssociationDecision:
        d = record.description
        key = (record.category, label(record.category, d.colours, d.pattern))
        entity_id = self.groups.get(key)
        created = entity_id is None
        if entity_id is None:
            entity_id = self.new_entity(record, time.time())
            self.groups[key] = entity_id
        else:
            self.extend_entity(entity_id, last_seen=record.t_end)
        self.assign_entity(observation_id, entity_id)
        return AssociationDecision(observation_id, entity_id, created, (), 0.0, 0.0)


def _association(base: AssociationConfig, name: str | None) -> AssociationConfig:
    if name == "no-veto":
        return base.model_copy(update={"use_separation": False})
    if name == "single-threshold":  # every space's and every kind's tau_low dropped
        relaxed = {
            "spaces": {k: Thresholds(-1.0, t.tau_high) for k, t in base.spaces.items()},
            "thresholds": {k: Thresholds(-1.0, t.tau_high) for k, t in base.thresholds.items()},
        }
        return base.model_copy(update=relaxed)
    return base


def _retrieval(base: RetrievalConfig, name: str | None) -> RetrievalConfig:
    if name == "no-identity-edges":
        return base.model_copy(update={"weights": base.weights.model_copy(update={"membership": 0.0})})
    if name == "no-episode-edges":
        return base.model_copy(update={"weights": base.weights.model_copy(update={"context": 0.0, "containment": 0.0})})
    if name == "no-biography-text":
        return base.model_copy(update={"biography_text": False})
    return base


def _score_memory(
    world: World,
    store: Store,
    gt: GroundTruth,
    retrieval: RetrievalConfig,
    embedder: Any,
    controller_factory: Callable[[Store, Any, RetrievalConfig], Any],
) -> dict[str, Any]:
    labels = gt.label_observations(store)
    entities = queries.observation_entities(store)
    controller = controller_factory(store, embedder, retrieval)
    retriever = controller.retriever
    retriever.index.update()  # the text vectors of the whole memory, before any question is timed
    retriever.retrieve("warm up")  # and the graph
    covered, correct, latency = [], [], []
    missed: list[dict[str, Any]] = []  #: the questions answered wrong or without their evidence, for the JSON
    by_kind: dict[str, list[tuple[bool, bool]]] = defaultdict(list)
    for q in world.questions:
        t = time.perf_counter()
        answer = controller.ask(q.question, as_of=q.as_of, choices=q.choices)
        latency.append((time.perf_counter() - t) * 1000)
        # The final context: what retrieval put in front of the controller and what its tools opened and cited.
        # An observation that opens or closes a trace is shown with the trace's span ("stayed so from .. to ..").
        spans = {
            o: (tr.t_start, tr.t_end if q.as_of is None else min(tr.t_end, q.as_of))
            for tr in traces(store, observation_ids=answer.seen)
            for o in (tr.first_observation_id, tr.last_observation_id)
        }
        records = [
            (labels[o.id], *spans.get(o.id, (o.t_start, o.t_end)))
            for o in store.observations_by_id(answer.seen)
            if o.id in labels
        ]
        hit = evidence_covered(q.evidence, records)
        right = answer.choice_index == q.answer_index
        covered.append(hit)
        correct.append(right)
        by_kind[q.kind].append((hit, right))
        if not right or not hit:
            missed.append(
                {
                    "kind": q.kind,
                    "question": q.question,
                    "expected": q.choices[q.answer_index],
                    "got": None if answer.choice_index is None else q.choices[answer.choice_index],
                    "evidence_covered": hit,
                    "answer": answer.text,
                }
            )
    n = max(1, len(world.questions))
    persons = {e.id for e in world.scenario.people}
    person_labels = {o: i for o, i in labels.items() if i in persons}
    return {
        "identity": identity_scores(entities, labels),
        "people_identity": identity_scores(entities, person_labels),
        "people": _per_person(entities, person_labels),
        "evidence_recall": sum(covered) / n,
        "accuracy": sum(correct) / n,
        "by_kind": {
            k: {
                "questions": len(v),
                "evidence_recall": sum(h for h, _ in v) / len(v),
                "accuracy": sum(r for _, r in v) / len(v),
            }
            for k, v in sorted(by_kind.items())
        },
        "missed": missed,
        "ask_ms_p50": float(np.percentile(latency, 50)) if latency else 0.0,
        "ask_ms_p95": float(np.percentile(latency, 95)) if latency else 0.0,
        "observations": len(entities),
        "entities": len(set(entities.values())),
    }


def _per_person(entities: dict[int, int], labels: dict[int, str]) -> dict[str, dict[str, float]]:
    """Per person: their observations, the entities those went to, the share of the largest, and how many of the
    others' observations share an entity with theirs (merged with them)."""
    mine: dict[str, Counter[int]] = defaultdict(Counter)
    for o, person in labels.items():
        if o in entities:
            mine[person][entities[o]] += 1
    out = {}
    for person, spread in sorted(mine.items()):
        n = sum(spread.values())
        merged = sum(c for other, theirs in mine.items() if other != person for e, c in theirs.items() if e in spread)
        out[person] = {
            "observations": n,
            "entities": len(spread),
            "largest_share": max(spread.values()) / n,
            "others_merged": merged,
        }
    return out


def _score_rules(world: World, store: Store, gt: GroundTruth, rule_ids: list[int], config: Config) -> dict[str, Any]:
    """The resolver over the whole ingest (as after every clip: it keeps its state), scored against the truth."""
    settings = settings_of(config)
    raised = Resolver(
        store, zones=config.zones, settings=settings
    ).process()  # the world's places, as the describer has them
    entities = queries.observation_entities(store)
    labels = entity_labels(entities, gt.label_observations(store))
    index = {rule_id: k for k, rule_id in enumerate(rule_ids)}
    alerts = [
        RaisedAlert(
            index[a.rule_id],
            labels.get(a.entity_id) if a.entity_id is not None else None,
            a.t,
            a.detected_at if a.detected_at is not None else a.t,
        )
        for a in raised
    ]
    events = true_alerts(world, settings)
    # Absences count recorded time: their alerts and events are compared on the recorded clock.
    absent = {k for k, p in enumerate(rule_predicates(world.scenario)) if p.relation == "absent"}
    grouped = group_absence_rules(world)  # "no keys at all": which set of keys memory saw last is not scored
    alerts = [replace(a, label=None) if a.rule in grouped else a for a in alerts]
    clock = recorded_clock([(s.t_start, s.t_end) for s in world.sessions])
    alerts = [replace(a, t=clock(a.t), detected_at=clock(a.detected_at)) if a.rule in absent else a for a in alerts]
    events = [replace(e, t_start=clock(e.t_start), t_end=clock(e.t_end)) if e.rule in absent else e for e in events]
    return score_alerts(
        [r.text for r in world.scenario.rules], alerts, events, tolerances(world, settings, config.capture.clip_seconds)
    )


def _run_seed(
    scenario: Scenario,
    seed: int,
    config: Config,
    models: Path,
    ablations: Sequence[str],
    embedder: Any,
    controller_factory: Callable[..., Any],
    keep: Path | None,
    detector: str = "gt",
) -> dict[str, Any]:
    timings: dict[str, float] = {}
    t = time.perf_counter()
    world = simulate(scenario, seed)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        paths = world.write((keep / f"seed{seed}") if keep is not None else root / "world")
        timings["render_s"] = time.perf_counter() - t
        run_config = world_config(world, scenario, seed, config, detector)
        ask = functools.partial(controller_factory, moving=tuple(run_config.tracker.moving_cameras))  # worn cameras
        t = time.perf_counter()
        with RecordingStore(
            root / "memory", config=config.association, consolidation=config.consolidation, faces=config.faces
        ) as store:
            enroll_household(scenario, store)
            rule_ids = [
                book.add_rule(store, r.text, p, cooldown_s=r.cooldown_s).id
                for r, p in zip(scenario.rules, rule_predicates(scenario))
            ]
            gt, backends_used, named = _ingest_naming_places(world, scenario, paths, run_config, models, store)
            timings["ingest_s"] = time.perf_counter() - t
            t = time.perf_counter()
            alerts = _score_rules(world, store, gt, rule_ids, run_config) if scenario.rules else None
            timings["rules_s"] = time.perf_counter() - t
            t = time.perf_counter()
            result = _score_memory(world, store, gt, _retrieval(config.retrieval, None), embedder, ask)
            result["alerts"] = alerts
            labels = gt.label_observations(store)
            result["moves"] = score_moves(world, store, labels)  # the script's puts and takes against memory
            result["perception"] = box_recall(world, store, labels)
            timings["score_s"] = time.perf_counter() - t
            result["ablations"] = {}
            for name in ablations:
                if name in RETRIEVAL_ABLATIONS:
                    result["ablations"][name] = _score_memory(
                        world, store, gt, _retrieval(config.retrieval, name), embedder, ask
                    )
            recorded = store.recorded
        for name in ablations:
            if name not in IDENTITY_ABLATIONS:
                continue
            faceless = name == "no-faces"
            with Store(
                root / f"memory-{name}",
                config=_association(config.association, name),
                consolidation=config.consolidation,
                faces=config.faces.model_copy(update={"enabled": False}) if faceless else config.faces,
            ) as replay:
                if name == "text-only":
                    replay.associator = _TextGrouping(replay, replay.config)
                if not faceless:
                    enroll_household(scenario, replay)
                for clip, observations, kwargs in recorded:
                    if faceless:
                        observations = [replace(o, faces=None, face_space="") for o in observations]
                    replay.ingest_clip(clip, observations, **kwargs)
                name_places(world, replay, gt)
                result["ablations"][name] = _score_memory(
                    world, replay, gt, _retrieval(config.retrieval, None), embedder, ask
                )
    result.update(
        places_named=named,
        seed=seed,
        sessions=len(world.sessions),
        frames=sum(s.frames for s in world.sessions),
        video_s=sum(s.frames / s.fps for s in world.sessions),
        questions=len(world.questions),
        events=len(world.events),
        backends=backends_used,
        timings=timings,
    )
    return result


def _ingest_naming_places(
    world: World, scenario: Scenario, paths: Sequence[Path], config: Config, models: Path, store: Store
) -> tuple[GroundTruth, dict[str, str], int]:
    """:func:`ingest_world`, the wearer naming each place once, after the session in which it became clear
    (:func:`name_places`); with how many places were named."""
    named: set[int] = set()
    gt, backends = ingest_world(
        world, scenario, paths, config, models, store, lambda gt: name_places(world, store, gt, named)
    )
    return gt, backends, len(named)


def enroll_household(scenario: Scenario, store: Store) -> list[int]:
    """The household enrolling its members by name before the recording, each from one picture of their drawn face
    (``people enroll``); returns their entities. Nothing where the world draws no faces or faces are off."""
    if scenario.faces <= 0 or store.associator.faces is None:
        return []
    reader = DrawnFaces()
    out = []
    for k, person in enumerate(scenario.people):
        if person.named:
            faces = np.stack([f.vector for f in reader.best([portrait(k)])])
            out.append(people.enroll(store, person.id, reader.space, faces, caller="world").entity.id)
    return out


def enroll_things(scenario: Scenario, store: Store, backends: Backends) -> list[int]:
    """The household naming the things the detector has no class for (``things enroll NAME --image``), each from
    one picture of it filling most of the frame (drawn as the world draws it), embedded by the object embedder;
    returns their entities. Nothing where objects are compared in a joined space (as ``things enroll`` refuses)."""
    embedder = backends.embedders["object"]
    classes = set(getattr(backends.detector, "class_names", ()))
    if backends.space("object") != embedder.space:
        return []
    out = []
    for spec in scenario.things:
        if spec.category in classes or spec.category in ANIMALS:
            continue
        w, h = size_of(spec.category)
        picture = np.full((h + h // 2, w + w // 2, 3), 128, np.uint8)
        draw_thing(picture, spec, (w // 4, h // 4, w // 4 + w, h // 4 + h))
        vector = observation_embedding(embedder, [picture])[None]
        out.append(things.enroll(store, spec.id, embedder.space, vector, caller="world").entity.id)
    return out


def name_places(world: World, store: Store, gt: GroundTruth, named: set[int] | None = None, least: int = 5) -> int:
    """The user naming places, as a wearer would on the dashboard: every place memory found (a camera without
    zones) holding at least ``least`` observations of things is named once, for where most of those things truly
    stood; smaller ones stay unnamed. ``named``: the places named already (kept as they are; those named now are
    added). Returns how many were named now."""
    named = set() if named is None else named
    labels = gt.label_observations(store)
    truth: dict[int, Counter[str]] = defaultdict(Counter)
    for observation_id, place_id, t0, t1 in places.placed_observations(store):
        instance = labels.get(observation_id)
        t = (t0 + t1) / 2
        session = next((s for s in world.sessions if s.t_start <= t <= s.t_end), None)
        where = place_in(world, session, instance, t) if instance is not None and session is not None else None
        if where is not None:
            truth[place_id][where] += 1
    count = 0
    with store.write():
        for place_id, seen in truth.items():
            if place_id not in named and sum(seen.values()) >= least:
                places.name(store, place_id, seen.most_common(1)[0][0])
                named.add(place_id)
                count += 1
    return count


def world_config(world: World, scenario: Scenario, seed: int, config: Config, detector: str = "gt") -> Config:
    """The configuration a world is perceived with: its frame rate, its camera's zones, and its boxes: ``gt``, the
    ground-truth boxes with the scenario's noise (seeded), no change finder; ``auto``, the default detector (YOLOX
    when its file is in the models folder, else OpenCV) and, on a fixed camera only, the change finder for the
    things the detector has no class for (the scenario's noise is then the detector's own)."""
    if detector not in DETECTORS:
        raise InvalidInputError(f"unknown detector {detector!r}; known: {', '.join(DETECTORS)}")
    noise = scenario.noise
    boxes = (
        {
            "type": "gt",
            "miss_rate": noise.miss_rate,
            "jitter_px": noise.jitter_px,
            "false_positive_rate": noise.false_positive_rate,
            "seed": seed,
        }
        if detector == "gt"
        else {"type": "auto"}
    )
    fixed = scenario.camera.kind == "fixed"
    return config.model_copy(
        update={
            "capture": config.capture.model_copy(
                update={"sample_fps": world.sessions[0].fps, "clip_seconds": config.capture.clip_seconds}
            ),
            "detector": Config.model_validate({"detector": boxes}).detector,
            "changes": config.changes.model_copy(
                update={"enabled": True, "cameras": [world.camera]}
                if detector == "auto" and fixed
                else {"enabled": False}
            ),
            "zones": {world.camera: world.zones} if world.zones else {},
            # a worn camera moves: its wearer says so (the tracker follows the camera's motion)
            "tracker": config.tracker.model_copy(
                update={"moving_cameras": [*config.tracker.moving_cameras, world.camera]}
            )
            if scenario.camera.kind == "wearable"
            else config.tracker,
        }
    )


def ingest_world(
    world: World,
    scenario: Scenario,
    paths: Sequence[Path],
    config: Config,
    models: Path,
    store: Store,
    after_session: Callable[[GroundTruth], object] | None = None,
) -> tuple[GroundTruth, dict[str, str]]:
    """Every session of a written world through the pipeline into ``store``; (its ground truth, the backends).
    A real detector and its pipeline are kept across the sessions, as a camera watched all day keeps them: the
    change finder's background at a session's start is the scene as the last one left it. ``after_session``: what
    the household does after each (names the places that became clear), given the truth so far."""
    ids = {k: e.id for k, e in enumerate(scenario.entities, start=1)}
    gt = GroundTruth()
    backends_used: dict[str, str] = {}
    pipeline: Pipeline | None = None
    for path, session in zip(paths, world.sessions):
        source = MOTSequenceSource(path, sample_fps=session.fps, start=session.t_start)
        if pipeline is None or config.detector.type == "gt":  # the ground truth is replayed per sequence
            backends = build_backends(config, models, source)
            if pipeline is None and config.detector.type != "gt":  # what the detector has no class for is named
                enroll_things(scenario, store, backends)
            # the world's people have drawn faces, read by their stand-in (no face model reads a drawing)
            backends.faces = DrawnFaces() if scenario.faces > 0 and config.faces.enabled is not False else None
            backends_used = backends.summary()
            pipeline = Pipeline(store, backends, config)
        pipeline.run(source, camera=world.camera)
        gt.add_mot(path, world.camera, session.t_start, names=ids, fps=session.fps)
        if after_session is not None:
            after_session(gt)
    return gt, backends_used


def record_world(scenario: Scenario, seed: int, config: Config, models: Path) -> Recording:
    """One seed of a world perceived once, its clips kept with each observation's true instance (calibration)."""
    world = simulate(scenario, seed)
    with tempfile.TemporaryDirectory() as tmp:
        paths = world.write(Path(tmp) / "world")
        with RecordingStore(
            Path(tmp) / "memory", config=config.association, consolidation=config.consolidation, faces=config.faces
        ) as s:
            enroll_household(scenario, s)
            gt, _ = ingest_world(world, scenario, paths, world_config(world, scenario, seed, config), models, s)
            return labelled(f"{scenario.name}:{seed}", s.recorded, gt)


def _mean(values: list[float]) -> float:
    return float(np.mean(values)) if values else 0.0


def _summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "identity": {k: _mean([r["identity"][k] for r in runs]) for k in IDENTITY_KEYS},
        "people_identity": {k: _mean([r["people_identity"][k] for r in runs]) for k in IDENTITY_KEYS},
        "evidence_recall": _mean([r["evidence_recall"] for r in runs]),
        "accuracy": _mean([r["accuracy"] for r in runs]),
        "evidence_recall_by_seed": [round(r["evidence_recall"], 4) for r in runs],
        "accuracy_by_seed": [round(r["accuracy"], 4) for r in runs],
    }


def evaluate_world(
    scenario: Scenario,
    config: Config,
    models: Path,
    *,
    seeds: Sequence[int] = (0, 1, 2),
    ablations: Sequence[str] = (),
    controller: str = "deterministic",
    llm: Any = None,
    keep: Path | None = None,
    detector: str = "gt",
) -> dict[str, Any]:
    """Runs every seed; ``controller`` is ``deterministic`` or ``llm`` (then ``llm`` is a llama_cpp.Llama);
    ``detector`` is ``gt`` (the true boxes replayed with the scenario's noise) or ``auto`` (:func:`world_config`)."""
    from edge_agent.perception.text import MiniLMTextEmbedder
    from edge_agent.qa import DeterministicController, LLMController

    unknown = [a for a in ablations if a not in ABLATIONS]
    if unknown:
        raise InvalidInputError(f"unknown ablation(s) {', '.join(unknown)}; known: {', '.join(ABLATIONS)}")
    if detector not in DETECTORS:
        raise InvalidInputError(f"unknown detector {detector!r}; known: {', '.join(DETECTORS)}")
    started = time.perf_counter()
    embedder = MiniLMTextEmbedder()

    def factory(store: Store, text: Any, retrieval: RetrievalConfig, *, moving: Sequence[str] = ()) -> Any:
        if controller == "llm":
            return LLMController(store, text, llm, config=retrieval, moving_cameras=moving)
        return DeterministicController(store, text, retrieval, moving_cameras=moving)

    runs = [_run_seed(scenario, seed, config, models, ablations, embedder, factory, keep, detector) for seed in seeds]
    out: dict[str, Any] = {
        "evaluation": "world",
        "version": __version__,
        "scenario": scenario.name,
        "seeds": list(seeds),
        "controller": controller,
        "detector": detector,
        "models": {"text": embedder.space, **runs[0]["backends"], "llm": getattr(llm, "model_path", None)},
        "textures": texture.source() if scenario.imaging.texture == "photo" else "flat",
        "config": {
            "association": {
                k: [t.tau_low, t.tau_high]
                for k, t in {**config.association.thresholds, **config.association.spaces}.items()
            },
            "retrieval": {"budget": config.retrieval.budget, "per_entity_cap": config.retrieval.per_entity_cap},
            "clip_seconds": config.capture.clip_seconds,
            "rules": config.rules.model_dump(
                include={"persist_frames", "release_s", "appearance_gap_s", "overlap", "timezone"}
            ),
        },
        **_summary(runs),
        "alerts": summarize_alerts([r["alerts"] for r in runs]),
        "ablations": {name: _summary([r["ablations"][name] for r in runs]) | {"alerts": None} for name in ablations},
        "per_seed": runs,
        "duration_s": time.perf_counter() - started,
    }
    return out


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def format_table(result: dict[str, Any]) -> str:
    def row(name: str, r: dict[str, Any]) -> str:
        i, p = r["identity"], r["people_identity"]
        return (
            f"{name:<20} {i['bcubed_f1']:>7.3f} {i['false_merge_rate']:>8.3f} {i['pairwise_f1']:>7.3f} "
            f"{p['bcubed_f1']:>9.3f} {p['false_merge_rate']:>9.3f} {r['evidence_recall']:>9.3f} {r['accuracy']:>8.3f}"
        )

    lines = [
        f"edge-agent {result['version']} world '{result['scenario']}', "
        f"seeds {result['seeds']}, controller {result['controller']}, detector {result.get('detector', 'gt')}"
        + (f", textures: {result['textures']}" if result.get("textures", "flat") != "flat" else ""),
        "",
        f"{'memory':<20} {'B3 F1':>7} {'f-merge':>8} {'pw F1':>7} {'people B3':>9} {'p f-merge':>9} "
        f"{'ev.recall':>9} {'accuracy':>8}",
        row("full method", result),
    ]
    lines += [row(name, r) for name, r in result["ablations"].items()]
    kinds: dict[str, list[tuple[float, float, int]]] = defaultdict(list)
    for run in result["per_seed"]:
        for kind, k in run["by_kind"].items():
            kinds[kind].append((k["evidence_recall"], k["accuracy"], k["questions"]))
    lines.append("")
    lines.append(
        "by question kind (full method, mean over seeds): "
        + "; ".join(
            f"{kind} n={sum(v[2] for v in vals)} recall {_mean([v[0] for v in vals]):.2f} "
            f"acc {_mean([v[1] for v in vals]):.2f}"
            for kind, vals in sorted(kinds.items())
        )
    )
    per = result["per_seed"][0]
    if per.get("people"):
        lines.append(
            f"people (seed {per['seed']}; observations, entities, share of the largest, others' merged with them): "
            + "; ".join(
                f"{name} {p['observations']}/{p['entities']}/{p['largest_share']:.2f}/{p['others_merged']}"
                for name, p in per["people"].items()
            )
        )
    alerts = result.get("alerts")
    if alerts:
        lines += [
            "",
            f"{'alerts (full method, mean over seeds)':<56} {'alerts':>6} {'events':>6} "
            f"{'match':>6} {'prec':>5} {'recall':>6} {'delay p50/max s':>16}",
        ]
        for r in alerts["rules"] + [alerts["overall"] | {"rule": "all rules"}]:
            delay = f"{r['delay_s']['median']:.0f}/{r['delay_s']['max']:.0f}" if r["delay_s"] else "-"
            lines.append(
                f"{r['rule'][:56]:<56} {r['alerts']:>6.1f} {r['events']:>6.1f} {r['matched']:>6.1f} "
                f"{_fmt(r['precision']):>5} {_fmt(r['recall']):>6} {delay:>16}"
            )
    moves = per.get("moves")
    if moves and (moves["puts"] or moves["takes"]):
        lines.append(
            f"moves (seed {per['seed']}): puts recalled within {moves['window_s']:.0f} s "
            f"{moves['puts_recalled']}/{moves['puts']} (seen later {moves['puts_seen_later']}); takes "
            f"{moves['takes']}: in hands {moves['takes_in_hands']}, the region left seen {moves['takes_left_region']}"
        )
    found = per.get("perception", {}).get("by_category", {})
    if found:
        lines.append(
            f"observations by category (seed {per['seed']}; observations / of a true instance / entities): "
            + "; ".join(f"{c} {v['observations']}/{v['labelled']}/{v['entities']}" for c, v in found.items())
        )
    lines.append(
        f"per seed: {per['sessions']} sessions, {per['frames']} frames ({per['video_s'] / 60:.0f} min of video), "
        f"{per['observations']} observations, {per['questions']} questions; ask p50 {per['ask_ms_p50']:.0f} ms; "
        f"render {per['timings']['render_s']:.0f} s, ingest {per['timings']['ingest_s']:.0f} s"
        + (f"; {per['places_named']} places named by the user" if per.get("places_named") else "")
    )
    lines.append(f"total {result['duration_s']:.0f} s")
    return "\n".join(lines)


def format_people(result: dict[str, Any]) -> str:
    """People's identity in a world run with the ``no-faces`` ablation: overall and per person, with faces and with
    body appearance alone (``eval identity --world``)."""
    with_faces, alone = result["people_identity"], result["ablations"]["no-faces"]["people_identity"]
    lines = [
        f"edge-agent {result['version']} people's identity in world '{result['scenario']}', seeds {result['seeds']} "
        f"(faces: {result['models'].get('faces', '?')})",
        "",
        f"{'memory':<12} {'B3 F1':>7} {'B3 prec':>8} {'B3 rec':>7} {'f-merge':>8}",
    ]
    for name, r in (("with faces", with_faces), ("body alone", alone)):
        lines.append(
            f"{name:<12} {r['bcubed_f1']:>7.3f} {r['bcubed_precision']:>8.3f} {r['bcubed_recall']:>7.3f} "
            f"{r['false_merge_rate']:>8.3f}"
        )
    lines += ["", "per person (observations / entities / the largest's share / others' observations merged in):"]
    for run in result["per_seed"]:
        for how, persons in (("faces", run["people"]), ("body", run["ablations"]["no-faces"]["people"])):
            lines.append(
                f"  seed {run['seed']} {how:<5} "
                + "; ".join(
                    f"{name} {p['observations']}/{p['entities']}/{p['largest_share']:.2f}/{p['others_merged']}"
                    for name, p in persons.items()
                )
            )
    return "\n".join(lines)
