"""What the cameras recorded: the cameras, a timeline of clips and coarser episodes, and the media
(keyframes, crops) served by the id of the record that names them, never by a path the client gives."""

from __future__ import annotations

import json
import time
from pathlib import Path as FilePath
from typing import Annotated

from fastapi import APIRouter, HTTPException, Path, Query, Request
from fastapi.responses import FileResponse

from edge_agent.api.models import MAX_ID, CameraMoments, CameraOut, ClipOut, EpisodeOut, MomentsOut, errors
from edge_agent.api.state import api_state
from edge_agent.api.views import keyframe_url, parse_time
from edge_agent.memory import Store, queries

__all__ = ["router"]

router = APIRouter(tags=["moments"])
DAY = 86400.0


def _cameras(store: Store) -> list[CameraOut]:
    stored = queries.stored_span_per_camera(store)
    logged = queries.logged_span_per_camera(store)
    out = []
    for camera in sorted(set(stored) | set(logged)):
        n, a, b = stored.get(camera, (0, None, None))
        la, lb = logged.get(camera, (None, None))
        starts = [t for t in (a, la) if t is not None]
        ends = [t for t in (b, lb) if t is not None]
        out.append(
            CameraOut(name=camera, clips=n, first=min(starts) if starts else None, last=max(ends) if ends else None)
        )
    return out


@router.get("/cameras", response_model=list[CameraOut], summary="The cameras memory has clips of")
async def cameras(request: Request) -> list[CameraOut]:
    return await api_state(request).db(_cameras)


def _moments(store: Store, camera: str | None, start: float | None, end: float | None, limit: int) -> MomentsOut:
    if end is None:
        latest = queries.last_clip_end(store, camera)
        end = latest if latest is not None else time.time()
    if start is None:
        start = end - DAY
    if start > end:
        raise HTTPException(422, "start is after end")
    names = [camera] if camera is not None else queries.cameras_between(store, start, end)
    out = []
    for name in names:
        rows = queries.clip_timeline(store, name, start, end, limit + 1)
        clips = [
            ClipOut(
                id=c.id,
                camera=name,
                t_start=c.t_start,
                t_end=c.t_end,
                observations=c.observations,
                caption=c.caption,
                keyframe_url=keyframe_url(c.id) if json.loads(c.keyframes) else None,
            )
            for c in rows[:limit]
        ]
        episodes = [
            EpisodeOut(id=e.id, scale=e.scale, camera=e.camera, t_start=e.t_start, t_end=e.t_end, text=e.text)
            for e in queries.window_episodes(store, name, start, end, limit)
        ]
        out.append(CameraMoments(camera=name, clips=clips, truncated=len(rows) > limit, episodes=episodes))
    return MomentsOut(start=start, end=end, cameras=out)


@router.get(
    "/moments",
    response_model=MomentsOut,
    responses=errors(422),
    summary="A timeline per camera: clips (with caption and keyframe) and coarser episodes overlapping [start, end]",
)
async def moments(
    request: Request,
    camera: str | None = Query(None, min_length=1, max_length=200, description="only this camera"),
    start: str | None = Query(
        None, min_length=1, max_length=64, description="ISO 8601 or Unix seconds (default: a day before `end`)"
    ),
    end: str | None = Query(
        None, min_length=1, max_length=64, description="ISO 8601 or Unix seconds (default: the end of the last clip)"
    ),
    limit: int = Query(500, ge=1, le=5000, description="at most this many clips per camera, from `start` on"),
) -> MomentsOut:
    return await api_state(request).db(_moments, camera, parse_time(start, "start"), parse_time(end, "end"), limit)


def _media(store: Store, relative: str | None, what: str) -> FilePath:
    """The file a record names, if it lies inside the media folder and exists; else 404."""
    if relative:
        root = store.media_dir.resolve()
        path = (root / relative).resolve()
        if path.is_relative_to(root) and path != root and path.is_file():
            return path
    raise HTTPException(404, f"{what} is not in memory (any more)")


def _keyframe(store: Store, clip_id: int, index: int) -> FilePath:
    keyframes = queries.clip_keyframes(store, clip_id)
    frames = json.loads(keyframes) if keyframes is not None else []
    return _media(store, frames[index] if index < len(frames) else None, f"keyframe {index} of clip {clip_id}")


def _crop(store: Store, observation_id: int) -> FilePath:
    return _media(store, queries.observation_crop(store, observation_id), f"the crop of observation {observation_id}")


_IMAGE = {200: {"content": {"image/jpeg": {}}, "description": "the JPEG"}, **errors(404, 422)}


def _file(path: FilePath) -> FileResponse:
    media_type = "image/jpeg" if path.suffix.lower() in (".jpg", ".jpeg") else None
    return FileResponse(path, media_type=media_type, headers={"Cache-Control": "private, max-age=300"})


@router.get("/keyframes/{clip_id:int}", response_class=FileResponse, responses=_IMAGE, summary="A clip's keyframe")
async def keyframe(
    request: Request,
    clip_id: Annotated[int, Path(ge=1, le=MAX_ID)],
    index: int = Query(0, ge=0, le=100, description="which keyframe, when a clip has several"),
) -> FileResponse:
    return _file(await api_state(request).db(_keyframe, clip_id, index))


@router.get(
    "/crops/{observation_id:int}", response_class=FileResponse, responses=_IMAGE, summary="An observation's crop"
)
async def crop(request: Request, observation_id: Annotated[int, Path(ge=1, le=MAX_ID)]) -> FileResponse:
    return _file(await api_state(request).db(_crop, observation_id))
