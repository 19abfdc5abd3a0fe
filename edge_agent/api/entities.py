"""The remembered entities: listed, each one's biography, and the user's corrections (rename, merge,
split, forget) through :mod:`edge_agent.memory.corrections`, audited with their caller. An unknown id is
404; a correction that cannot be applied as asked is 409 with the reason."""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated, Literal

from fastapi import APIRouter, Path, Query, Request

from edge_agent.api.models import (
    MAX_ID,
    BiographyOut,
    EntityOut,
    FactOut,
    ForgetOut,
    ForgetRequest,
    MergeRequest,
    RenameRequest,
    SplitOut,
    SplitRequest,
    TakenOut,
    TraceOut,
    errors,
)
from edge_agent.api.state import api_state
from edge_agent.api.views import entities_out, observations_out
from edge_agent.memory import Store, consolidate, corrections

__all__ = ["router"]

router = APIRouter(tags=["entities"])
_CORRECTION = errors(404, 409, 413, 422)
EntityId = Annotated[int, Path(ge=1, le=MAX_ID, description="the entity's id")]
RECENT = 10


@router.get(
    "/entities", response_model=list[EntityOut], responses=errors(422), summary="Every entity, most recently seen first"
)
async def list_entities(
    request: Request, kind: Literal["person", "animal", "object"] | None = Query(None)
) -> list[EntityOut]:
    return await api_state(request).db(lambda store: entities_out(store, store.entities(kind)))


def _biography(store: Store, entity_id: int, limit: int) -> BiographyOut:
    bio = store.biography(entity_id)
    taken = store.taken(entity_id)
    observations = list(bio.observations)
    shown = observations[-limit:]
    return BiographyOut(
        entity=entities_out(store, [bio.entity])[0],
        observations=observations_out(store, shown),
        observations_total=len(observations),
        facts=[
            FactOut(**{k: v for k, v in asdict(f).items() if k != "entity_id"})
            for f in consolidate.facts(store, [entity_id])
        ],
        traces=[
            TraceOut(**{k: v for k, v in asdict(t).items() if k != "entity_id"})
            for t in consolidate.traces(store, entity_id)
        ],
        recent=observations_out(store, observations[::-1][:RECENT]),
        taken=None if taken is None else TakenOut(**{k: v for k, v in asdict(taken).items() if k != "entity_id"}),
    )


# ":int" in the paths: /entities/merge is not an entity id (a GET of it is 405, not a biography refused with 422).
@router.get(
    "/entities/{entity_id:int}",
    response_model=BiographyOut,
    responses=errors(404, 422),
    summary="An entity's biography: observations, learnt facts, traces and recent activity",
)
async def entity(
    request: Request,
    entity_id: EntityId,
    limit: int = Query(1000, ge=1, le=10_000, description="at most this many observations (the latest)"),
) -> BiographyOut:
    return await api_state(request).db(_biography, entity_id, limit)


@router.post(
    "/entities/{entity_id:int}/rename",
    response_model=EntityOut,
    responses=_CORRECTION,
    summary="Name an entity, or remove its name (null)",
)
async def rename(body: RenameRequest, request: Request, entity_id: EntityId) -> EntityOut:
    api = api_state(request)
    caller = api.caller(request)
    return await api.db(
        lambda store: entities_out(store, [corrections.rename(store, entity_id, body.name, caller=caller)])[0]
    )


@router.post(
    "/entities/merge",
    response_model=EntityOut,
    responses=_CORRECTION,
    summary="Move every observation of `absorb` into `keep` (refused across kinds, or after a split unless forced)",
)
async def merge(body: MergeRequest, request: Request) -> EntityOut:
    api = api_state(request)
    caller = api.caller(request)

    def run(store: Store) -> EntityOut:
        return entities_out(store, [corrections.merge(store, body.keep, body.absorb, force=body.force, caller=caller)])[
            0
        ]

    return await api.db(run)


@router.post(
    "/entities/{entity_id:int}/split",
    response_model=SplitOut,
    responses=_CORRECTION,
    summary="Move the observations from `observation` on to a new entity (the two are then marked as not the same)",
)
async def split(body: SplitRequest, request: Request, entity_id: EntityId) -> SplitOut:
    api = api_state(request)
    caller = api.caller(request)

    def run(store: Store) -> SplitOut:
        a, b = corrections.split(store, entity_id, body.observation, caller=caller)
        first, second = entities_out(store, [a, b])
        return SplitOut(entity=first, new_entity=second)

    return await api.db(run)


@router.post(
    "/entities/{entity_id:int}/forget",
    response_model=ForgetOut,
    responses=_CORRECTION,
    summary=(
        "Erase an entity and every trace of it (its media, the captions and keyframes of its clips); "
        "needs confirm: true"
    ),
)
async def forget(body: ForgetRequest, request: Request, entity_id: EntityId) -> ForgetOut:
    api = api_state(request)
    caller = api.caller(request)
    return await api.db(lambda store: ForgetOut(**asdict(corrections.forget(store, entity_id, caller=caller))))
