"""From memory's records to the API's response models: media as URLs by id, times read from requests."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from fastapi import HTTPException

from edge_agent.api.models import EntityOut, ObservationOut
from edge_agent.memory import Entity, Observation, Store, queries

__all__ = [
    "crop_url",
    "entities_out",
    "keyframe_url",
    "latest_crops",
    "observations_out",
    "parse_time",
    "with_keyframes",
]


def crop_url(observation_id: int) -> str:
    return f"/api/crops/{int(observation_id)}"


def keyframe_url(clip_id: int) -> str:
    return f"/api/keyframes/{int(clip_id)}"


def with_keyframes(store: Store, clip_ids: Iterable[int]) -> set[int]:
    """The clips among these that still have a keyframe."""
    return queries.clips_with_keyframes(store, clip_ids)


def with_crops(store: Store, observation_ids: Iterable[int]) -> set[int]:
    """The observations among these that still have a crop."""
    return queries.observations_with_crops(store, observation_ids)


def observations_out(store: Store, observations: Sequence[Observation]) -> list[ObservationOut]:
    keyframed = with_keyframes(store, (o.clip_id for o in observations))
    return [
        ObservationOut(
            id=o.id,
            clip_id=o.clip_id,
            entity_id=o.entity_id,
            track_id=o.track_id,
            camera=o.camera,
            kind=o.kind,
            category=o.category,
            t_start=o.t_start,
            t_end=o.t_end,
            description=o.description,
            colours=list(o.colours),
            rgb=None if o.rgb is None else f"#{o.rgb:06x}",
            pattern=o.pattern,
            size=o.size,
            zone=o.zone,
            region=o.region,
            motion=o.motion,
            place_id=o.place_id,
            place_score=o.place_score,
            crop_url=crop_url(o.id) if o.crop_path else None,
            keyframe_url=keyframe_url(o.clip_id) if o.clip_id in keyframed else None,
        )
        for o in observations
    ]


def latest_crops(store: Store, entity_ids: Iterable[int]) -> dict[int, int]:
    """Per entity, its latest observation that has a crop (its thumbnail)."""
    return queries.latest_crops(store, entity_ids)


def entities_out(store: Store, entities: Sequence[Entity]) -> list[EntityOut]:
    crops = latest_crops(store, [e.id for e in entities])
    return [
        EntityOut(
            id=e.id,
            kind=e.kind,
            category=e.category,
            name=e.name,
            first_seen=e.first_seen,
            last_seen=e.last_seen,
            observations=e.observations,
            crop_url=crop_url(crops[e.id]) if e.id in crops else None,
        )
        for e in entities
    ]


def parse_time(text: str | None, name: str) -> float | None:
    """ISO 8601 (a time without a zone is UTC; 'Z' accepted) or Unix seconds; 422 otherwise."""
    if text is None:
        return None
    from edge_agent.clock import parse_iso

    try:
        value = float(text)
    except ValueError:
        try:
            value = parse_iso(text, naive="utc")
        except ValueError:
            raise HTTPException(
                422, f"{name} must be an ISO 8601 time such as 2026-03-02T08:00:00Z, or Unix seconds"
            ) from None
    if not math.isfinite(value):
        raise HTTPException(422, f"{name} must be a finite time")
    return value
