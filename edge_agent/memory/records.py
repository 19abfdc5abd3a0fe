"""Typed records going into and out of the memory store (dataclasses in, dataclasses out). Input
records validate themselves: a bad field raises ``InvalidRecordError`` naming it, before anything is
written."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal, NamedTuple, get_args

import numpy as np
import numpy.typing as npt

from edge_agent.config.places import SURROUNDINGS
from edge_agent.errors import EdgeAgentError
from edge_agent.memory.description import MOTIONS, REGIONS, SIZES, Description, Placed, label

__all__ = [
    "Caption",
    "PossiblySame",
    "SpaceTable",
    "Utterance",
    "AssociationDecision",
    "Biography",
    "CandidateScore",
    "Clip",
    "Description",
    "ClipRecord",
    "Entity",
    "EntityOverview",
    "Episode",
    "IngestResult",
    "InvalidRecordError",
    "Kind",
    "KINDS",
    "NotFoundError",
    "Observation",
    "ObservationRecord",
]

Kind = Literal["person", "animal", "object"]
KINDS: tuple[str, ...] = get_args(Kind)
MAX_TEXT = 4000


class InvalidRecordError(EdgeAgentError, ValueError):
    """An input record has a field the memory cannot store."""


class NotFoundError(EdgeAgentError, LookupError):
    """No entity, observation or clip with that id."""


def _finite_time(name: str, value: float) -> float:
    try:
        value = float(value)
    except (TypeError, ValueError) as exc:
        raise InvalidRecordError(f"{name} must be a number of seconds, got {value!r}") from exc
    if not math.isfinite(value):
        raise InvalidRecordError(f"{name} must be finite, got {value}")
    return value


def _relative_path(name: str, value: str | None) -> str | None:
    if value is None:
        return None
    if (
        not isinstance(value, str)
        or not 0 < len(value) <= 1000
        or "\x00" in value
        or any(part in ("", ".", "..") for part in value.split("/"))
    ):
        shown = repr(value) if len(repr(value)) <= 80 else repr(value)[:77] + "..."
        raise InvalidRecordError(f"{name} must be a path relative to the media folder, naming a file, got {shown}")
    return value


@dataclass(frozen=True)
class ClipRecord:
    """A clip to ingest: one short span of one camera. ``keyframes`` are paths relative to the media
    folder (written there by perception before ingest)."""

    camera: str
    t_start: float
    t_end: float
    keyframes: tuple[str, ...] = ()
    #: the camera's view moved while it recorded (worn, handheld, panning): where a thing is in its frames is not
    #: where it is in the room
    moving: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.camera, str) or not self.camera.strip() or len(self.camera) > 200:
            raise InvalidRecordError(f"camera must be a non-empty name of at most 200 characters, got {self.camera!r}")
        object.__setattr__(self, "t_start", _finite_time("t_start", self.t_start))
        object.__setattr__(self, "t_end", _finite_time("t_end", self.t_end))
        if self.t_end < self.t_start:
            raise InvalidRecordError(f"clip t_end ({self.t_end}) is before t_start ({self.t_start})")
        object.__setattr__(self, "keyframes", tuple(_relative_path("keyframes", k) for k in self.keyframes))


@dataclass(frozen=True, eq=False)
class ObservationRecord:
    """One tracked subject in one clip, as perception produces it.

    ``frame_times`` (K,) are the wall-clock seconds of the sampled frames with a box; ``boxes`` (K, 4)
    float32 x1, y1, x2, y2 pixels; ``scores`` (K,). ``embedding`` (D,) is the appearance vector in
    ``embedding_space`` (the embedder's name: vectors of different spaces are never compared).
    ``description``: what the describer said, as typed fields and a sentence (a string given is taken as a
    sentence with no fields). ``surroundings``: for a camera without zones, the descriptor of what is around the
    thing (:mod:`edge_agent.perception.places`) in ``surroundings_space``, which memory groups into places the
    user can name. ``faces`` (F, D): for a person, the vectors of its best faces (best first) in ``face_space``;
    None where no face good enough was seen or face processing is off.
    """

    track_id: int
    kind: Kind
    category: str
    frame_times: npt.NDArray[np.float64]
    boxes: npt.NDArray[np.float32]
    scores: npt.NDArray[np.float32]
    embedding: npt.NDArray[np.float32]
    embedding_space: str
    description: Description = Description()
    crop_path: str | None = None
    surroundings: npt.NDArray[np.float32] | None = None
    surroundings_space: str = SURROUNDINGS
    faces: npt.NDArray[np.float32] | None = None
    face_space: str = ""
    t_start: float = field(init=False)
    t_end: float = field(init=False)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise InvalidRecordError(f"kind must be one of {', '.join(KINDS)}, got {self.kind!r}")
        if not isinstance(self.category, str) or not self.category.strip() or len(self.category) > 100:
            raise InvalidRecordError(f"category must be a non-empty class name, got {self.category!r}")
        if not isinstance(self.embedding_space, str) or not self.embedding_space.strip():
            raise InvalidRecordError("embedding_space must name the embedder")
        object.__setattr__(self, "description", _description(self.description))
        try:
            object.__setattr__(self, "track_id", int(self.track_id))
        except (TypeError, ValueError) as exc:
            raise InvalidRecordError(f"track_id must be an integer, got {self.track_id!r}") from exc
        object.__setattr__(self, "crop_path", _relative_path("crop_path", self.crop_path))
        if self.surroundings is not None:
            around = np.ascontiguousarray(self.surroundings, dtype=np.float32).reshape(-1)
            if around.size == 0 or not np.all(np.isfinite(around)):
                raise InvalidRecordError("surroundings must be a non-empty finite vector")
            object.__setattr__(self, "surroundings", around)
            if not isinstance(self.surroundings_space, str) or not self.surroundings_space.strip():
                raise InvalidRecordError("surroundings_space must name the descriptor")
        if self.faces is not None:
            faces = np.asarray(self.faces, dtype=np.float32)
            faces = faces.reshape(1, -1) if faces.ndim == 1 else faces
            if faces.ndim != 2 or faces.size == 0 or not np.all(np.isfinite(faces)):
                raise InvalidRecordError("faces must be a non-empty finite (F, D) array of face vectors")
            if self.kind != "person":
                raise InvalidRecordError(f"faces belong to a person's observation, not a {self.kind}'s")
            if not isinstance(self.face_space, str) or not self.face_space.strip():
                raise InvalidRecordError("face_space must name the face embedder")
            norms = np.linalg.norm(faces, axis=1, keepdims=True)
            if np.any(norms == 0):
                raise InvalidRecordError("a face vector has zero norm")
            object.__setattr__(self, "faces", np.ascontiguousarray(faces / norms, dtype=np.float32))

        times = np.asarray(self.frame_times, dtype=np.float64).reshape(-1)
        boxes = np.ascontiguousarray(self.boxes, dtype=np.float32)
        scores = np.ascontiguousarray(self.scores, dtype=np.float32).reshape(-1)
        if times.size == 0:
            raise InvalidRecordError("an observation needs at least one frame with a box")
        if boxes.shape != (times.size, 4):
            raise InvalidRecordError(f"boxes must have shape ({times.size}, 4) matching frame_times, got {boxes.shape}")
        if scores.shape != (times.size,):
            raise InvalidRecordError(f"scores must have shape ({times.size},) matching frame_times, got {scores.shape}")
        for name, arr in (("frame_times", times), ("boxes", boxes), ("scores", scores)):
            if not np.all(np.isfinite(arr)):
                raise InvalidRecordError(f"{name} contains NaN or inf")
        frame_ms = np.round(times * 1000.0).astype(np.int64)
        if np.any(np.diff(frame_ms) <= 0):
            raise InvalidRecordError(
                "frame_times must be strictly increasing (one box per frame, millisecond resolution)"
            )
        if np.any(boxes[:, 2] < boxes[:, 0]) or np.any(boxes[:, 3] < boxes[:, 1]):
            raise InvalidRecordError("boxes must have x2 >= x1 and y2 >= y1")

        embedding = np.asarray(self.embedding, dtype=np.float32).reshape(-1)
        if embedding.size == 0 or not np.all(np.isfinite(embedding)):
            raise InvalidRecordError("embedding must be a non-empty finite vector")
        norm = float(np.linalg.norm(embedding))
        if norm == 0.0:
            raise InvalidRecordError("embedding has zero norm")
        object.__setattr__(self, "frame_times", times)
        object.__setattr__(self, "boxes", boxes)
        object.__setattr__(self, "scores", scores)
        object.__setattr__(self, "embedding", (embedding / norm).astype(np.float32))
        object.__setattr__(self, "t_start", float(times[0]))
        object.__setattr__(self, "t_end", float(times[-1]))

    @property
    def frame_ms(self) -> npt.NDArray[np.int64]:
        return np.round(self.frame_times * 1000.0).astype(np.int64)


def _word(name: str, value: object, allowed: tuple[str, ...] | None = None) -> str:
    if not isinstance(value, str) or len(value) > 100 or value != value.strip().lower():
        raise InvalidRecordError(
            f"description {name} must be a lower-case word of at most 100 characters, got {value!r}"
        )
    if value and allowed is not None and value not in allowed:
        raise InvalidRecordError(f"description {name} must be one of {', '.join(allowed)}, got {value!r}")
    return value


def _description(value: object) -> Description:
    """A checked Description (a string becomes the sentence of one with no fields)."""
    if isinstance(value, str):
        value = Description(text=value)
    if not isinstance(value, Description):
        raise InvalidRecordError(f"description must be a Description or text, got {type(value).__name__}")
    if not isinstance(value.text, str) or len(value.text) > MAX_TEXT:
        raise InvalidRecordError(f"description text must be at most {MAX_TEXT} characters")
    if len(value.colours) > 2:
        raise InvalidRecordError(f"description colours are at most two names, got {value.colours!r}")
    for colour in value.colours:
        _word("colour", colour)
    if value.rgb is not None and (
        len(value.rgb) != 3 or not all(isinstance(c, int) and 0 <= c <= 255 for c in value.rgb)
    ):
        raise InvalidRecordError(f"description rgb must be three integers 0-255, got {value.rgb!r}")
    _word("pattern", value.pattern)
    _word("size", value.size, SIZES)
    _word("zone", value.zone)
    _word("region", value.region, REGIONS)
    _word("motion", value.motion, MOTIONS)
    for category, n in value.company:
        _word("company category", category)
        if not isinstance(n, int) or n < 1:
            raise InvalidRecordError(f"description company counts must be positive integers, got {n!r}")
    return value


@dataclass(frozen=True)
class Clip:
    id: int
    camera: str
    t_start: float
    t_end: float
    keyframes: tuple[str, ...]


@dataclass(frozen=True)
class Recording:
    """What one camera recorded in a window: from its first clip's start to its last clip's end, and the seconds
    recorded (overlapping clips counted once, time the camera was off not counted)."""

    camera: str
    start: float
    end: float
    seconds: float
    clips: int


class PossiblySame(NamedTuple):
    """Two entities recorded as possibly one thing, and how alike they were."""

    a: int
    b: int
    similarity: float


class SpaceTable(NamedTuple):
    """An embedding space's id (its vector table) and the dimensions of its vectors."""

    space_id: int
    dims: int


class Caption(NamedTuple):
    """A clip's caption (its clip-scale episode)."""

    clip_id: int
    t_start: float
    text: str


class Utterance(NamedTuple):
    """Speech transcribed in a clip, wall-clock seconds."""

    t_start: float
    t_end: float
    text: str


@dataclass(frozen=True)
class Entity:
    """One inferred physical instance."""

    id: int
    kind: str
    category: str
    name: str | None
    first_seen: float
    last_seen: float
    observations: int


@dataclass(frozen=True)
class EntityOverview(Entity):
    """An entity as a listing shows it: what it looks like (the colours and pattern most of its observations were
    described with, and :func:`~edge_agent.memory.description.label`'s words for them), the cameras it was seen on
    (most recently first) and where it was last: that camera, its named zone or place (``last_zone``), else the
    learned place's id (``last_place_id``, a camera without zones) and the image region."""

    label: str = ""
    colours: tuple[str, ...] = ()
    pattern: str = ""
    cameras: tuple[str, ...] = ()
    last_camera: str = ""
    last_zone: str = ""
    last_place_id: int | None = None
    last_region: str = ""


@dataclass(frozen=True)
class Observation(Placed):
    id: int
    clip_id: int
    entity_id: int | None
    track_id: int
    camera: str
    kind: str
    category: str
    t_start: float
    t_end: float
    description: str
    crop_path: str | None
    colour: str = ""
    colour_second: str = ""
    rgb: int | None = None
    pattern: str = ""
    size: str = ""
    zone: str = ""
    region: str = ""
    motion: str = ""
    place_id: int | None = None  #: the place it was seen at, for a camera without zones (memory.places)
    place_score: float | None = None  #: how alike its surroundings were to that place's (cosine; 1: it began it)

    @property
    def colours(self) -> tuple[str, ...]:
        return tuple(c for c in (self.colour, self.colour_second) if c)

    @property
    def label(self) -> str:
        """What it is called from its fields: 'striped red cup', 'person in blue plain clothes'."""
        return label(self.category, self.colours, self.pattern)


@dataclass(frozen=True)
class Episode:
    """A caption at one temporal scale: a clip's, or a 10-minute / hour / day summary rolled up from them."""

    id: int
    scale: str
    camera: str | None
    t_start: float
    t_end: float
    clip_id: int | None
    text: str


@dataclass(frozen=True)
class CandidateScore:
    """How one candidate entity fared in an association decision."""

    entity_id: int
    min_sim: float
    max_sim: float
    mean_sim: float
    qualifies: bool  #: passed both thresholds
    vetoed_by: int | None = None  #: reference observation with separation evidence, if any
    separation_fraction: float | None = None
    #: the candidate's category when it is not compatible with the observation's (the category veto,
    #: edge_agent.memory.categories); None when compatible
    incompatible_category: str | None = None
    face: float | None = None  #: how like the candidate's faces the observation's are, when both have faces
    #: what the faces say: "same" (a match: that person whatever the clothes), "different" (another person: vetoed),
    #: None (no faces, or in between, or as like another person: body appearance decides)
    face_verdict: str | None = None
    #: where the observation was first seen overlapped where this candidate was last seen (the boxes' IoU), when
    #: that let it in (an object still in place: AssociationConfig.still_iou)
    in_place: float | None = None


@dataclass(frozen=True)
class AssociationDecision:
    observation_id: int
    entity_id: int
    created_entity: bool
    candidates: tuple[CandidateScore, ...]
    tau_low: float
    tau_high: float


@dataclass(frozen=True)
class IngestResult:
    clip_id: int
    created: bool  #: False when the clip was already in memory (nothing written)
    decisions: tuple[AssociationDecision, ...]


@dataclass(frozen=True)
class Biography:
    entity: Entity
    observations: tuple[Observation, ...]
