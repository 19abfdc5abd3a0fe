"""How ingest is going: per camera what was recorded and whether a writer is at work, and the size of memory."""

from __future__ import annotations

import time
from collections import defaultdict

from fastapi import APIRouter, Request

from edge_agent import __version__
from edge_agent.api.models import CameraStatus, StatusOut
from edge_agent.api.state import ApiState
from edge_agent.memory import Store, queries, retention, rulebook

__all__ = ["router"]

router = APIRouter(tags=["status"])


def _status(store: Store, clip_seconds: float) -> StatusOut:
    now = time.time()
    spans: dict[str, list[tuple[float, float, float]]] = defaultdict(list)
    # The ingest log keeps what was recorded in spans: clips of an unchanging view are folded into the span before them.
    for camera, t0, t1, committed in queries.ingest_log(store):
        spans[camera].append((float(t0), float(t1), float(committed)))
    stored = queries.clips_per_camera(store)
    cameras = []
    for camera in sorted(set(spans) | set(stored)):
        rows = spans.get(camera, [])
        last_commit = max((c for *_, c in rows), default=None)
        cameras.append(
            CameraStatus(
                camera=camera,
                clips_recorded=sum(max(1, round((t1 - t0) / clip_seconds)) for t0, t1, _ in rows),
                recorded_seconds=sum(t1 - t0 for t0, t1, _ in rows),
                clips_stored=int(stored.get(camera, 0)),
                last_clip_end=max((t1 for _, t1, _ in rows), default=None),
                last_commit=last_commit,
                writer_active=last_commit is not None and now - last_commit <= 2 * clip_seconds,
            )
        )
    return StatusOut(
        version=__version__,
        schema_version=store.schema_version,
        now=now,
        cameras=cameras,
        entities=queries.entity_count(store),
        rules=rulebook.count_rules_in_force(store),
        pending_notifications=rulebook.count_pending_notifications(store),
        memory_bytes=retention.usage(store),
    )


@router.get("/status", response_model=StatusOut, summary="Ingest per camera, counts and the size of memory")
async def status(request: Request) -> StatusOut:
    api: ApiState = request.app.state.api
    return await api.db(_status, api.config.capture.clip_seconds)
