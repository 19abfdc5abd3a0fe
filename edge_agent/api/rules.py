"""Rules and the alerts they raise. A rule is read (the phrase reader, or a predicate given as JSON: the
server loads no LLM), shown back in words (``/rules/preview``; ``/rules/read`` answers the reader's refusal
too, for the dashboard), then stored. Alerts are raised by the ``watch`` / ``ingest`` process;
``/alerts/stream`` passes them on as server-sent events."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Header, HTTPException, Path, Query, Request
from fastapi.responses import StreamingResponse

from edge_agent.api.models import (
    MAX_ID,
    AlertOut,
    RuleOut,
    RulePreviewOut,
    RulePreviewRequest,
    RuleReadingOut,
    RuleRequest,
    errors,
)
from edge_agent.api.state import ApiState, api_state
from edge_agent.api.views import crop_url, keyframe_url, with_crops, with_keyframes
from edge_agent.memory import Store
from edge_agent.rules import book
from edge_agent.rules.parse import RuleParseError, parse_rule
from edge_agent.rules.predicate import Predicate, describe

__all__ = ["router"]

router = APIRouter(tags=["rules and alerts"])
POLL_S = 1.0  #: how often the stream looks for new alerts
KEEPALIVE_S = 15.0  #: a comment line this often keeps proxies and browsers from closing an idle stream
STREAM_BATCH = 100


def _read(store: Store, api: ApiState, body: RulePreviewRequest) -> tuple[str, Predicate]:
    """(the rule's text, its predicate) from the JSON predicate or the phrase reader; RuleParseError says why not."""
    known = book.vocabulary(store, api.config.zones)

    def parse(text: str, mode: Literal["json", "phrases"]) -> Predicate:
        return parse_rule(
            text, places=known.places, names=known.names, categories=known.categories, cameras=known.cameras, mode=mode
        )

    if body.predicate is not None:
        predicate = parse(json.dumps(body.predicate), "json")
        return body.text or describe(predicate), predicate
    if body.text is None:
        raise RuleParseError("give the rule as `text` (words) or `predicate` (a JSON object)")
    if body.text.lstrip().startswith("{"):
        return body.text, parse(body.text, "json")
    return body.text, parse(body.text, "phrases")  # the reader's reason and three rules that read, when it cannot


def _rule_out(rule: book.Rule) -> RuleOut:
    return RuleOut(**rule.as_dict(), description=describe(rule.predicate))


@router.post(
    "/rules/preview",
    response_model=RulePreviewOut,
    responses=errors(413, 422),
    summary="Read a rule and show it back in words, without storing it",
)
async def preview(body: RulePreviewRequest, request: Request) -> RulePreviewOut:
    api = api_state(request)

    def run(store: Store) -> RulePreviewOut:
        text, predicate = _read(store, api, body)
        return RulePreviewOut(
            text=text, predicate=predicate.model_dump(exclude_defaults=True), description=describe(predicate)
        )

    return await api.db(run)


@router.post(
    "/rules/read",
    response_model=RuleReadingOut,
    responses=errors(413, 422),
    summary="Read a rule as the dashboard does while it is written: its reading, or the reader's refusal (200)",
)
async def read(body: RulePreviewRequest, request: Request) -> RuleReadingOut:
    """As ``/rules/preview``, but a rule the reader cannot read is an answer, not a 422: ``readable`` false and
    ``reason`` in the reader's words. A body that is not a rule request at all is still a 422."""
    api = api_state(request)

    def run(store: Store) -> RuleReadingOut:
        try:
            text, predicate = _read(store, api, body)
        except RuleParseError as exc:
            return RuleReadingOut(text=body.text or "", readable=False, reason=str(exc))
        return RuleReadingOut(
            text=text,
            readable=True,
            predicate=predicate.model_dump(exclude_defaults=True),
            description=describe(predicate),
        )

    return await api.db(run)


@router.post(
    "/rules",
    response_model=RuleOut,
    status_code=201,
    responses=errors(413, 422),
    summary="Store a rule (it applies to clips committed from now on)",
)
async def add(body: RuleRequest, request: Request) -> RuleOut:
    api = api_state(request)

    def run(store: Store) -> RuleOut:
        text, predicate = _read(store, api, body)
        cooldown = body.cooldown_s if body.cooldown_s is not None else api.config.rules.cooldown_s
        return _rule_out(book.add_rule(store, text, predicate, cooldown_s=cooldown))

    return await api.db(run)


@router.get(
    "/rules",
    response_model=list[RuleOut],
    responses=errors(422),
    summary="The rules in force (with `all`: the removed ones too)",
)
async def list_rules(
    request: Request, removed: bool = Query(False, alias="all", description="also the removed rules")
) -> list[RuleOut]:
    return await api_state(request).db(lambda store: [_rule_out(r) for r in book.rules(store, removed=removed)])


@router.delete(
    "/rules/{rule_id:int}",
    response_model=RuleOut,
    responses=errors(404, 409, 422),
    summary="Stop a rule (its alerts stay listed)",
)
async def remove(request: Request, rule_id: Annotated[int, Path(ge=1, le=MAX_ID)]) -> RuleOut:
    api = api_state(request)
    caller = api.caller(request)

    def run(store: Store) -> RuleOut:
        try:
            rule = book.get_rule(store, rule_id)
        except LookupError as exc:
            raise HTTPException(404, str(exc)) from None
        if rule.removed_at is not None:
            raise HTTPException(409, f"rule {rule_id} was already removed")
        return _rule_out(book.remove_rule(store, rule_id, caller=caller))

    return await api.db(run)


def _alerts_out(store: Store, alerts: list[book.Alert]) -> list[AlertOut]:
    keyframed = with_keyframes(store, (a.clip_id for a in alerts if a.clip_id is not None))
    cropped = with_crops(store, (a.evidence[0] for a in alerts if a.evidence))
    return [
        AlertOut(
            id=int(a.id or 0),
            rule_id=a.rule_id,
            rule=a.rule,
            entity_id=a.entity_id,
            t=a.t,
            camera=a.camera,
            message=a.message,
            evidence=[int(e) for e in a.evidence],
            clip_id=a.clip_id,
            detected_at=a.detected_at,
            keyframe_url=keyframe_url(a.clip_id) if a.clip_id in keyframed else None,
            crop_url=crop_url(a.evidence[0]) if a.evidence and a.evidence[0] in cropped else None,
            deliveries=a.deliveries,
        )
        for a in alerts
    ]


@router.get(
    "/alerts",
    response_model=list[AlertOut],
    responses=errors(422),
    summary="Alerts raised, newest first, with their deliveries",
)
async def alerts(
    request: Request,
    rule: int | None = Query(None, ge=1, le=MAX_ID, description="only this rule's"),
    limit: int = Query(50, ge=1, le=1000),
) -> list[AlertOut]:
    return await api_state(request).db(lambda store: _alerts_out(store, book.alerts(store, rule_id=rule, limit=limit)))


def _last_alert_id(store: Store) -> int:
    return book.last_alert_id(store)


def _alerts_after(store: Store, last_id: int) -> list[AlertOut]:
    """Alerts with an id above ``last_id``, oldest first (at most a batch)."""
    return _alerts_out(store, book.alerts_after(store, last_id, STREAM_BATCH))


def _event(kind: str, data: Any, event_id: int | None = None) -> str:
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {kind}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


@router.get(
    "/alerts/stream",
    response_class=StreamingResponse,
    responses={
        200: {
            "content": {"text/event-stream": {}},
            "description": "server-sent events: `ready` once, then `alert` (data: an alert as in /alerts, "
            "its id as the event id); `: keepalive` comments every 15 s",
        },
        **errors(422),
    },
    summary="New alerts as server-sent events, as the watch process raises them",
)
async def stream(
    request: Request,
    since_id: int | None = Query(
        None, ge=0, le=MAX_ID, description="send the alerts after this id first (default: from now)"
    ),
    last_event_id: str | None = Header(None, max_length=20, description="set by EventSource when it reconnects"),
    token: str | None = Query(
        None, max_length=200, description="the API token, for EventSource (which cannot set headers)"
    ),
) -> StreamingResponse:
    del token  # checked by the authentication middleware
    api = api_state(request)
    start = since_id
    if start is None and last_event_id is not None and last_event_id.strip().isdigit():
        start = min(int(last_event_id), MAX_ID)
    if start is None:
        start = await api.db(_last_alert_id)

    async def events() -> AsyncIterator[str]:
        last = int(start)
        yield "retry: 3000\n" + _event("ready", {"last_id": last})
        quiet_since = time.monotonic()
        while not await request.is_disconnected():
            found = await api.db(_alerts_after, last)
            for alert in found:
                last = alert.id
                yield _event("alert", alert.model_dump(), alert.id)
            if found:
                quiet_since = time.monotonic()
                if len(found) == STREAM_BATCH:
                    continue
            elif time.monotonic() - quiet_since >= KEEPALIVE_S:
                quiet_since = time.monotonic()
                yield ": keepalive\n\n"
            await asyncio.sleep(POLL_S)

    return StreamingResponse(
        events(), media_type="text/event-stream", headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
    )
