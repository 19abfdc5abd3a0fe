"""Rendering retrieved evidence for a reader (GEB section 3.4): per entity a biography excerpt (id,
name, the selected observations in time order with times, camera and description, and a summary of the
appearances not shown, as targets for another search round); a note where retrieved entities share a
name, saying which pairs memory has proved different and which are unresolved, and a note where two retrieved
entities are recorded as possibly the same; episode excerpts;
keyframe references. The reading instructions say episode text wins over an observation's."""

from __future__ import annotations

import itertools
import re
from collections import defaultdict

from edge_agent.clock import format_utc as _t
from edge_agent.memory import Observation, Store
from edge_agent.memory.consolidate import facts, traces
from edge_agent.memory.textindex import STOPWORDS
from edge_agent.retrieval.retrieve import Evidence

__all__ = ["READING_INSTRUCTIONS", "render"]

READING_INSTRUCTIONS = (
    "Memory excerpts follow, times in UTC. Each entity is one physical instance decided from visual evidence; "
    "its excerpt lists some of its appearances and summarises the rest. Where an episode's text conflicts with "
    "an observation's description, trust the episode. Different entity ids are not proof of different objects "
    "unless a note says so. Cite the observation and episode ids you rely on."
)


FLAT_INSTRUCTIONS = (
    "Memory excerpts follow, times in UTC: observations in time order, then episodes. Where an episode's text "
    "conflicts with an observation's description, trust the episode. Cite the ids you rely on."
)


def render(store: Store, evidence: Evidence, *, biographies: bool = True) -> str:
    """``biographies=False`` lists the observations flat, in time order, without entity excerpts,
    unseen-appearance summaries or same-name notes (the no-biography-text ablation)."""
    lines = [READING_INSTRUCTIONS if biographies else FLAT_INSTRUCTIONS]
    if evidence.as_of is not None:
        lines.append(f"As of {_t(evidence.as_of)}: nothing later is known.")
    observations = store.observations_by_id(evidence.observation_ids)
    if not biographies:
        lines += [
            f"  - obs {o.id}, {_t(o.t_start)} to {_t(o.t_end)[11:]}, "
            f"camera {o.camera}: {o.description or '(no description)'}"
            for o in observations
        ]
        _episodes(store, evidence, lines)
        return "\n".join(lines)
    by_entity: dict[int, list[Observation]] = defaultdict(list)
    for o in observations:
        by_entity[o.entity_id if o.entity_id is not None else -1].append(o)
    order = sorted(by_entity, key=lambda e: -max(evidence.scores.get(("observation", o.id), 0.0) for o in by_entity[e]))
    entities = {e: store.entity(e) for e in order if e >= 0}
    spans = _spans(store, [o.id for o in observations], evidence.as_of)
    learnt = defaultdict(list)
    asked = set(re.findall(r"[a-z0-9]+", evidence.question.lower())) - STOPWORDS
    # Per entity the facts the question touches first, then by importance (ranking boosted by w).
    for f in sorted(
        facts(store, [e for e in order if e >= 0], before=evidence.as_of),
        key=lambda f: -(len(asked & set(re.findall(r"[a-z0-9]+", f.value.lower()))) + f.importance),
    ):
        learnt[f.entity_id].append(f)
    for entity_id in order:
        entity = entities.get(entity_id)
        shown = by_entity[entity_id]
        if entity is None:
            lines.append("\nObservations without an entity:")
        else:
            name = f" '{entity.name}'" if entity.name else ""
            lines.append(f"\nEntity #{entity.id}{name} ({entity.kind}, {entity.category}):")
        for o in shown:
            clip = store.clip(o.clip_id)
            keyframe = f" [keyframe {clip.keyframes[0]}]" if clip.keyframes else ""
            lines.append(
                f"  - obs {o.id}, {_t(o.t_start)} to {_t(o.t_end)[11:]}, camera {o.camera}: "
                f"{o.description or '(no description)'}{keyframe}{spans.get(o.id, '')}"
            )
        if entity is not None:
            for f in learnt.get(entity.id, [])[:3]:
                lines.append(f"  - learnt: {f.line()}")
            count, first, last, cameras = store.appearances(
                entity.id, before=evidence.as_of, excluding=[o.id for o in shown]
            )
            if count:
                lines.append(
                    f"  - not shown: {count} more appearances, {_t(first)} to {_t(last)}, cameras {', '.join(cameras)}"
                )
    named = defaultdict(list)
    for e in entities.values():
        if e.name:
            named[e.name.lower()].append(e.id)
    for name, ids in named.items():
        for a, b in itertools.combinations(sorted(ids), 2):
            verdict = (
                "memory has proof they are different instances"
                if store.separation_evidence(a, b)
                else "unresolved: they may be the same object"
            )
            lines.append(f"\nNote: #{a} and #{b} are both called '{name}'; {verdict}.")
    shown_ids = set(entities)
    for a, b, score in store.possibly_same(list(shown_ids)):
        if a in shown_ids and b in shown_ids:
            lines.append(
                f"\nNote: #{a} and #{b} may be the same thing: similar across their references ({score:.2f}) and "
                "never seen apart; memory keeps them apart until an observation matches both."
            )
    _episodes(store, evidence, lines)
    return "\n".join(lines)


def _episodes(store: Store, evidence: Evidence, lines: list[str]) -> None:
    episodes = store.episodes_by_id(evidence.episode_ids)
    if episodes:
        lines.append("\nEpisodes:")
        for ep in episodes:
            lines.append(
                f"  - episode {ep.id} ({ep.scale}, {ep.camera}, {_t(ep.t_start)} to {_t(ep.t_end)[11:]}): {ep.text}"
            )


def _spans(store: Store, observation_ids: list[int], as_of: float | None) -> dict[int, str]:
    """For observations that open or close a trace: how long the thing stayed that way."""
    out: dict[int, str] = {}
    for tr in traces(store, observation_ids=observation_ids):
        end = tr.t_end if as_of is None else min(tr.t_end, as_of)
        if tr.sightings > 1 and end > tr.t_start:
            for o in (tr.first_observation_id, tr.last_observation_id):
                if o is not None:
                    out[o] = f" (stayed so from {_t(tr.t_start)} to {_t(end)}, {tr.sightings} sightings)"
    return out
