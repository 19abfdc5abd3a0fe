"""Places of cameras without zones (:mod:`edge_agent.memory.places`): listed with an example observation, and
the user naming one once ("this is the sofa": every observation of it, before and after, is then at the sofa),
merging two that are one, forgetting one; audited with the caller. An unknown id is 404; a name or merge that
cannot be applied is 409."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from typing import Annotated

from fastapi import APIRouter, Path, Query, Request

from edge_agent.api.models import MAX_ID, PlaceMergeRequest, PlaceNameRequest, PlaceOut, errors
from edge_agent.api.state import api_state
from edge_agent.errors import InvalidInputError
from edge_agent.memory import Store, corrections, places

__all__ = ["router"]

router = APIRouter(tags=["places"])
PlaceId = Annotated[int, Path(ge=1, le=MAX_ID, description="the place's id")]
_CHANGE = errors(404, 409, 413, 422)


def _out(store: Store, place_id: int) -> PlaceOut:
    found = next((p for p in places.places(store) if p.id == place_id), None)
    if found is None:  # merged or forgotten meanwhile
        raise corrections.CorrectionError(f"place {place_id} is gone")
    return PlaceOut(**asdict(found))


def _change(store: Store, action: str, caller: str, run: Callable[[], int], **details: object) -> int:
    """Runs one change of places in a transaction, audited; returns the observations it changed."""
    with store.write():
        try:
            changed = run()
        except InvalidInputError as exc:
            raise corrections.CorrectionError(str(exc)) from None
        corrections.audit(store, action, caller, **details, observations=changed)
    return changed


@router.get("/places", response_model=list[PlaceOut], responses=errors(422), summary="Places, most observed first")
async def list_places(request: Request, camera: str | None = Query(None, max_length=200)) -> list[PlaceOut]:
    return await api_state(request).db(lambda store: [PlaceOut(**asdict(p)) for p in places.places(store, camera)])


@router.post(
    "/places/{place_id:int}/name", response_model=PlaceOut, responses=_CHANGE, summary="Name a place, before and after"
)
async def name(body: PlaceNameRequest, request: Request, place_id: PlaceId) -> PlaceOut:
    api = api_state(request)
    caller = api.caller(request)

    def apply(store: Store) -> PlaceOut:
        run = lambda: places.name(store, place_id, body.name)  # noqa: E731
        _change(store, "place name", caller, run, place=place_id, name=body.name)
        return _out(store, place_id)

    return await api.db(apply)


@router.post("/places/merge", response_model=PlaceOut, responses=_CHANGE, summary="One place seen two ways")
async def merge(body: PlaceMergeRequest, request: Request) -> PlaceOut:
    api = api_state(request)
    caller = api.caller(request)

    def apply(store: Store) -> PlaceOut:
        run = lambda: places.merge(store, body.keep, body.absorb)  # noqa: E731
        _change(store, "place merge", caller, run, keep=body.keep, absorb=body.absorb)
        return _out(store, body.keep)

    return await api.db(apply)


@router.delete("/places/{place_id:int}", responses=_CHANGE, summary="Forget a place; its observations keep no place")
async def forget(request: Request, place_id: PlaceId) -> dict[str, int]:
    api = api_state(request)
    caller = api.caller(request)

    def apply(store: Store) -> dict[str, int]:
        run = lambda: places.forget(store, place_id)  # noqa: E731
        return {"place": place_id, "observations": _change(store, "place forget", caller, run, place=place_id)}

    return await api.db(apply)
