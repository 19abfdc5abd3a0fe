"""The clip message between a camera node and the memory hub: one finished clip, versioned JSON with its
vectors as base64 little-endian float32 and its pictures as base64 JPEG (the issue's "JSON + base64 JPEG":
readable with any MQTT tool, and the JPEGs are most of the bytes either way). A message is bounded in size:
a larger clip has its pictures made smaller until it fits. Decoding checks every field and names the first bad
one; a picture the clip's records do not name, or a path leaving the media folder, is refused."""

from __future__ import annotations

import base64
import json
import math
import re
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


MAX_DEPTH = 12  #: the deepest a message may nest (a clip's own is 6: message, observations, one, boxes, a box)
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)  # a JSON string, escapes included (unrolled: linear)
_LARGEST = 2**63 - 1  #: an integer in a message fits SQLite's (track ids, times in milliseconds)


def _depth(payload: bytes) -> int:
    """How deep the JSON in ``payload`` nests, counted on its brackets outside strings, before it is parsed (the
    parser's recursion is what a deep message would exhaust)."""
    marks = np.frombuffer(_STRING.sub(b'""', payload), np.uint8)
    steps = np.isin(marks, (0x5B, 0x7B)).astype(np.int32) - np.isin(marks, (0x5D, 0x7D)).astype(np.int32)
    return int(np.cumsum(steps).max(initial=0))


def _no_constant(name: str) -> float:
    raise WireError(f"a clip message holds {name}: every number must be finite")


def _sound(value: object, where: str = "clip message") -> None:
    """Every string without NUL, every number finite and within 64 bits, throughout (the depth is bounded)."""
    if isinstance(value, str):
        if "\x00" in value:
            raise WireError(f"{where}: a text holds a NUL character")
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise WireError(f"{where}: a number is not finite ({value})")
    elif isinstance(value, int) and not isinstance(value, bool):
        if not -_LARGEST <= value <= _LARGEST:
            raise WireError(f"{where}: a number is out of range ({value})")
    elif isinstance(value, dict):
        for key, item in value.items():
            _sound(key, where)
            _sound(item, f"{where}: {key}" if where == "clip message" else where)
    elif isinstance(value, list):
        for item in value:
            _sound(item, where)


def _field(data: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if key not in data:
        raise WireError(f"{where}: {key} is missing")
    value = data[key]
    if not isinstance(value, kind) or isinstance(value, bool):  # JSON's true is not a number
        raise WireError(f"{where}: {key} has the wrong type ({type(value).__name__})")
    return value


def _text(data: dict[str, Any], key: str, where: str, default: str = "") -> str:
    value = data.get(key, default)
    if not isinstance(value, str):
        raise WireError(f"{where}: {key} must be text")
    return value


def _description(data: object, where: str) -> Description:
    where = f"{where}: description"
    if not isinstance(data, dict):
        raise WireError(f"{where} must be an object")
    colours, rgb, company = data.get("colours", []), data.get("rgb"), data.get("company", [])
    if not (isinstance(colours, list) and len(colours) <= 8 and all(isinstance(c, str) for c in colours)):
        raise WireError(f"{where}: colours must be a list of at most 8 names")
    if rgb is not None and not (
        isinstance(rgb, list) and len(rgb) == 3 and all(type(v) is int and 0 <= v <= 255 for v in rgb)
    ):
        raise WireError(f"{where}: rgb must be three whole numbers 0-255")
    if not (
        isinstance(company, list)
        and len(company) <= 100
        and all(
            isinstance(c, list) and len(c) == 2 and isinstance(c[0], str) and type(c[1]) is int and c[1] >= 0
            for c in company
        )
    ):
        raise WireError(f"{where}: company must be [category, count] pairs")
    return Description(
        text=_text(data, "text", where),
        colours=tuple(colours),
        rgb=None if rgb is None else (rgb[0], rgb[1], rgb[2]),
        pattern=_text(data, "pattern", where),
        size=_text(data, "size", where),
        zone=_text(data, "zone", where),
        region=_text(data, "region", where),
        motion=_text(data, "motion", where),
        company=tuple((c, n) for c, n in company),
    )


def _picture(text: object, path: str, where: str) -> bytes:
    """The bytes of a picture the message carries: base64 of a JPEG that decodes (checked at an eighth of its
    size: cheap, and a picture that decodes so decodes whole)."""
    if not isinstance(text, str):
        raise WireError(f"{where}: picture {path!r} is not base64")
    try:
        data = base64.b64decode(text, validate=True)
    except ValueError:
        raise WireError(f"{where}: picture {path!r} is not base64") from None
    image = None
    if data[:3] == b"\xff\xd8\xff":
        image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_REDUCED_GRAYSCALE_8)
    if image is None:
        raise WireError(f"{where}: picture {path!r} is not a JPEG image")
    return data


_LATEST = 1e11  #: seconds since 1970 a message's times stay below (the year 5138)


def _time(value: object, what: str, where: str) -> float:
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not 0 <= value <= _LATEST:
        raise WireError(f"{where}: {what} must be a time in seconds since 1970, got {_shown(value)}")
    return float(value)


def _times(values: list[Any], where: str) -> np.ndarray:
    times = np.asarray(values, np.float64)
    if times.ndim != 1 or not np.all((times >= 0) & (times <= _LATEST)):
        raise WireError(f"{where}: frame_times must be times in seconds since 1970")
    return times


def _pixels(values: list[Any], what: str, where: str) -> np.ndarray:
    """Boxes or scores: numbers within a million (a frame's pixels), as float32."""
    numbers = np.asarray(values, np.float64)
    if not np.all(np.abs(numbers) <= 1e6):
        raise WireError(f"{where}: {what} must be numbers within a million")
    return numbers.astype(np.float32)


def decode(payload: bytes, max_bytes: int = 256 << 20) -> tuple[str, PerceivedClip]:
    """(node, clip) of a message; :class:`WireError` (or the records' own InvalidRecordError) names what is wrong.
    Total: whatever the bytes, one of those two, never another error. Its size and nesting are bounded before it
    is parsed; every string is without NUL and every number finite and within 64 bits; each picture is a JPEG."""
    if len(payload) > max_bytes:
        raise WireError(f"a clip message of {len(payload)} bytes is larger than the {max_bytes} allowed")
    if _depth(payload) > MAX_DEPTH:
        raise WireError(f"a clip message nests deeper than {MAX_DEPTH} levels")
    try:
        data = json.loads(payload, parse_constant=_no_constant)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise WireError(f"a clip message is not JSON: {exc}") from None
    except RecursionError:  # nesting the count above could not see (it never should)
        raise WireError(f"a clip message nests deeper than {MAX_DEPTH} levels") from None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise WireError(f"not a clip message (schema must be {SCHEMA!r})")
    if data.get("version") != VERSION:
        raise WireError(f"clip message version {_shown(data.get('version'))} is not {VERSION}: update edge-agent")
    _sound(data)
    try:
        return _decoded(data)
    except EdgeAgentError:
        raise
    except (TypeError, ValueError, OverflowError) as exc:  # a shape the checks above let through: still named
        raise WireError(f"clip message: {exc}") from None


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _decoded(data: dict[str, Any]) -> tuple[str, PerceivedClip]:
    where = "clip message"
    node = _field(data, "node", str, where)
    keyframes = _field(data, "keyframes", list, where)
    if not all(isinstance(k, str) for k in keyframes):
        raise WireError(f"{where}: keyframes must be paths")
    clip = ClipRecord(
        _field(data, "camera", str, where),
        _time(_field(data, "t_start", (int, float), where), "t_start", where),
        _time(_field(data, "t_end", (int, float), where), "t_end", where),
        tuple(keyframes),
        moving=data.get("moving", False) is True,
    )
    where = f"the {clip.camera} clip at {clip.t_start:.3f}"
    records = []
    for k, o in enumerate(_field(data, "observations", list, where)):
        at = f"{where}, observation {k}"
        if not isinstance(o, dict):
            raise WireError(f"{at}: must be an object")
        around = o.get("surroundings")
        crop = o.get("crop_path")
        if crop is not None and not isinstance(crop, str):
            raise WireError(f"{at}: crop_path must be a path")
        try:
            records.append(
                ObservationRecord(
                    track_id=_field(o, "track_id", int, at),
                    kind=_field(o, "kind", str, at),
                    category=_field(o, "category", str, at),
                    frame_times=_times(_field(o, "frame_times", list, at), at),
                    boxes=_pixels(_field(o, "boxes", list, at), "boxes", at).reshape(-1, 4),
                    scores=_pixels(_field(o, "scores", list, at), "scores", at),
                    embedding=_unvector(_field(o, "embedding", str, at), f"{at}: embedding"),
                    embedding_space=_field(o, "embedding_space", str, at),
                    description=_description(o.get("description", {}), at),
                    crop_path=crop,
                    surroundings=None if around is None else _unvector(around, f"{at}: surroundings"),
                    surroundings_space=_text(o, "surroundings_space", at) or "surroundings",
                )
            )
        except (TypeError, ValueError, OverflowError) as exc:
            if isinstance(exc, EdgeAgentError):
                raise
            raise WireError(f"{at}: {exc}") from None
    named = set(clip.keyframes) | {r.crop_path for r in records if r.crop_path}
    media: dict[str, bytes] = {}
    for path, text in _field(data, "media", dict, where).items():
        if path not in named:
            raise WireError(f"{where}: picture {_shown(path)} is not named by the clip's records")
        media[path] = _picture(text, path, where)
    unsent = named - set(media)
    if unsent:
        raise WireError(f"{where}: its records name a picture it does not carry ({_shown(min(unsent))})")
    caption = data.get("caption")
    if caption is not None and not isinstance(caption, str):
        raise WireError(f"{where}: caption must be text")
    speech = []
    for s in _field(data, "speech", list, where):
        if not (isinstance(s, list) and len(s) == 3 and isinstance(s[2], str)):
            raise WireError(f"{where}: speech must be [start, end, text] triples")
        speech.append((_time(s[0], "a speech start", where), _time(s[1], "a speech end", where), s[2]))
    return node, PerceivedClip(clip, tuple(records), caption, tuple(speech), media)


def key_of(payload: bytes) -> tuple[str, int] | None:
    """(camera, start in milliseconds) of a message, where it can be read, however bad the rest is."""
    try:
        if len(payload) > 256 << 20 or _depth(payload) > MAX_DEPTH:
            return None
        data = json.loads(payload)
        camera, start = data["camera"], data["t_start"]
    except (ValueError, KeyError, TypeError, RecursionError):
        return None
    if not (isinstance(camera, str) and 0 < len(camera) <= 200 and "\x00" not in camera):
        return None
    if not isinstance(start, (int, float)) or isinstance(start, bool) or not math.isfinite(start) or abs(start) > 1e15:
        return None
    return camera, int(round(start * 1000))
