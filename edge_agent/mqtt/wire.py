"""The clip message between a camera node and the memory hub: one finished clip, versioned JSON with its
vectors as base64 little-endian float32 and its pictures as base64 JPEG (the issue's "JSON + base64 JPEG":
readable with any MQTT tool, and the JPEGs are most of the bytes either way). A message is bounded in size:
a larger clip has its pictures made smaller until it fits. Decoding checks every field and names the first bad
one; a picture the clip's records do not name, or a path leaving the media folder, is refused."""

from __future__ import annotations

import base64
import json
from dataclasses import asdict
from typing import Any

import cv2
import numpy as np

from edge_agent.errors import EdgeAgentError
from edge_agent.ingest import PerceivedClip
from edge_agent.memory import ClipRecord, ObservationRecord
from edge_agent.memory.description import Description

__all__ = ["SCHEMA", "VERSION", "WireError", "decode", "encode", "key_of"]

SCHEMA = "edge-agent.clip"
VERSION = 1


class WireError(EdgeAgentError, ValueError):
    """A clip message that cannot be made or read; the message says which field."""


def _vector(v: np.ndarray | None) -> str | None:
    return None if v is None else base64.b64encode(np.ascontiguousarray(v, "<f4").tobytes()).decode("ascii")


def _unvector(text: object, name: str) -> np.ndarray:
    if not isinstance(text, str):
        raise WireError(f"{name} must be base64 float32, got {type(text).__name__}")
    try:
        raw = base64.b64decode(text, validate=True)
    except ValueError as exc:
        raise WireError(f"{name} is not base64: {exc}") from None
    if len(raw) % 4:
        raise WireError(f"{name} is {len(raw)} bytes, not a whole number of float32")
    return np.frombuffer(raw, "<f4").astype(np.float32)


def _body(p: PerceivedClip, node: str, media: dict[str, bytes]) -> dict[str, Any]:
    c = p.clip
    return {
        "schema": SCHEMA,
        "version": VERSION,
        "node": node,
        "camera": c.camera,
        "t_start": c.t_start,
        "t_end": c.t_end,
        "keyframes": list(c.keyframes),
        "moving": c.moving,
        "caption": p.caption,
        "speech": [list(s) for s in p.speech],
        "observations": [
            {
                "track_id": o.track_id,
                "kind": o.kind,
                "category": o.category,
                "frame_times": o.frame_times.tolist(),
                "boxes": o.boxes.tolist(),
                "scores": o.scores.tolist(),
                "embedding": _vector(o.embedding),
                "embedding_space": o.embedding_space,
                "description": asdict(o.description),
                "crop_path": o.crop_path,
                "surroundings": _vector(o.surroundings),
                "surroundings_space": o.surroundings_space,
            }
            for o in p.observations
        ],
        "media": {path: base64.b64encode(data).decode("ascii") for path, data in media.items()},
    }


def _smaller(data: bytes) -> bytes:
    """A JPEG at two thirds of its size, quality 75 (a picture too small to shrink stays as it is)."""
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if image is None or min(image.shape[:2]) < 16:
        return data
    h, w = image.shape[:2]
    image = cv2.resize(image, (max(1, w * 2 // 3), max(1, h * 2 // 3)), interpolation=cv2.INTER_AREA)
    ok, encoded = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 75])
    return encoded.tobytes() if ok else data


def encode(perceived: PerceivedClip, node: str, max_bytes: int) -> bytes:
    """The message of one clip, at most ``max_bytes``: its pictures are made smaller (up to six times) until it
    fits. :class:`WireError` where even so it does not (its records alone are too large)."""
    media = dict(perceived.media)
    for _ in range(7):
        data = json.dumps(_body(perceived, node, media), separators=(",", ":"), allow_nan=False).encode()
        if len(data) <= max_bytes:
            return data
        media = {path: _smaller(jpeg) for path, jpeg in media.items()}
    raise WireError(
        f"the {perceived.clip.camera} clip at {perceived.clip.t_start:.3f} is {len(data)} bytes even with small "
        f"pictures, more than the {max_bytes} allowed ([mqtt] max_message_kb)"
    )


def _field(data: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if key not in data:
        raise WireError(f"{where}: {key} is missing")
    value = data[key]
    if not isinstance(value, kind) or isinstance(value, bool):  # JSON's true is not a number
        raise WireError(f"{where}: {key} has the wrong type ({type(value).__name__})")
    return value


def _description(data: object, where: str) -> Description:
    if not isinstance(data, dict):
        raise WireError(f"{where}: description must be an object")
    try:
        return Description(
            text=str(data.get("text", "")),
            colours=tuple(data.get("colours", ())),
            rgb=None if data.get("rgb") is None else tuple(data["rgb"]),
            pattern=data.get("pattern", ""),
            size=data.get("size", ""),
            zone=data.get("zone", ""),
            region=data.get("region", ""),
            motion=data.get("motion", ""),
            company=tuple((str(c), n) for c, n in data.get("company", ())),
        )
    except (TypeError, ValueError) as exc:
        raise WireError(f"{where}: description: {exc}") from None


def decode(payload: bytes) -> tuple[str, PerceivedClip]:
    """(node, clip) of a message; :class:`WireError` (or the records' own InvalidRecordError) names what is wrong."""
    try:
        data = json.loads(payload)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise WireError(f"a clip message is not JSON: {exc}") from None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise WireError(f"not a clip message (schema must be {SCHEMA!r})")
    if data.get("version") != VERSION:
        raise WireError(f"clip message version {data.get('version')!r} is not {VERSION}: update edge-agent")
    where = "clip message"
    node = _field(data, "node", str, where)
    clip = ClipRecord(
        _field(data, "camera", str, where),
        _field(data, "t_start", (int, float), where),
        _field(data, "t_end", (int, float), where),
        tuple(_field(data, "keyframes", list, where)),
        moving=data.get("moving", False) is True,
    )
    where = f"the {clip.camera} clip at {clip.t_start:.3f}"
    records = []
    for k, o in enumerate(_field(data, "observations", list, where)):
        at = f"{where}, observation {k}"
        if not isinstance(o, dict):
            raise WireError(f"{at}: must be an object")
        around = o.get("surroundings")
        try:
            records.append(
                ObservationRecord(
                    track_id=_field(o, "track_id", int, at),
                    kind=_field(o, "kind", str, at),
                    category=_field(o, "category", str, at),
                    frame_times=np.asarray(_field(o, "frame_times", list, at), np.float64),
                    boxes=np.asarray(_field(o, "boxes", list, at), np.float32).reshape(-1, 4),
                    scores=np.asarray(_field(o, "scores", list, at), np.float32),
                    embedding=_unvector(_field(o, "embedding", str, at), f"{at}: embedding"),
                    embedding_space=_field(o, "embedding_space", str, at),
                    description=_description(o.get("description", {}), at),
                    crop_path=o.get("crop_path"),
                    surroundings=None if around is None else _unvector(around, f"{at}: surroundings"),
                    surroundings_space=o.get("surroundings_space") or "surroundings",
                )
            )
        except (TypeError, ValueError) as exc:
            if isinstance(exc, EdgeAgentError):
                raise
            raise WireError(f"{at}: {exc}") from None
    named = set(clip.keyframes) | {r.crop_path for r in records if r.crop_path}
    media: dict[str, bytes] = {}
    for path, text in _field(data, "media", dict, where).items():
        if path not in named:
            raise WireError(f"{where}: picture {path!r} is not named by the clip's records")
        try:
            media[path] = base64.b64decode(text, validate=True)
        except (TypeError, ValueError):
            raise WireError(f"{where}: picture {path!r} is not base64") from None
    caption = data.get("caption")
    if caption is not None and not isinstance(caption, str):
        raise WireError(f"{where}: caption must be text")
    speech = []
    for s in _field(data, "speech", list, where):
        if not (isinstance(s, list) and len(s) == 3 and isinstance(s[2], str)):
            raise WireError(f"{where}: speech must be [start, end, text] triples")
        speech.append((float(s[0]), float(s[1]), s[2]))
    return node, PerceivedClip(clip, tuple(records), caption, tuple(speech), media)


def key_of(payload: bytes) -> tuple[str, int] | None:
    """(camera, start in milliseconds) of a message, where it can be read, however bad the rest is."""
    try:
        data = json.loads(payload)
        camera, start = data["camera"], float(data["t_start"])
    except (ValueError, KeyError, TypeError):
        return None
    return (camera, int(round(start * 1000))) if isinstance(camera, str) else None
