"""Request and response bodies of the HTTP API (pydantic: validated on the way in, documented in the
OpenAPI schema). Times are Unix seconds (UTC) on the way out; on the way in, ISO 8601 text (a time
without a zone is UTC) or Unix seconds. Media is referred to by URL (``/api/crops/{observation}``,
``/api/keyframes/{clip}``), never by file path."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from edge_agent.config.qa import QUESTION_CHARS_CEILING

__all__ = [
    "AlertOut",
    "AskRequest",
    "AskResponse",
    "BiographyOut",
    "CameraOut",
    "CameraStatus",
    "ClipOut",
    "EntityOut",
    "EpisodeOut",
    "ErrorOut",
    "EvidenceOut",
    "FactOut",
    "ForgetOut",
    "ForgetRequest",
    "MergeRequest",
    "PlaceMergeRequest",
    "PlaceNameRequest",
    "PlaceOut",
    "MomentsOut",
    "ObservationOut",
    "RenameRequest",
    "RuleOut",
    "RulePreviewOut",
    "RulePreviewRequest",
    "RuleReadingOut",
    "RuleRequest",
    "SplitOut",
    "SplitRequest",
    "StatusOut",
    "TraceOut",
    "errors",
]

MAX_ID = 2**62  #: ids stay within SQLite's 64-bit integers
Id = Annotated[int, Field(ge=1, le=MAX_ID)]
MAX_QUESTION = QUESTION_CHARS_CEILING  #: what a body may hold; [qa] max_question_chars (500) is the bound applied
MAX_CHOICES = 10


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ErrorOut(BaseModel):
    error: str = Field(..., description="what was wrong (never a stack trace)")


_ERRORS = {
    400: "the Host header does not name this machine (a server bound to loopback without a token)",
    401: "missing or wrong API token",
    404: "no such id in memory",
    409: "the correction or change cannot be applied as asked (the error says why)",
    413: "request body too large (64 KiB of JSON, 25 MiB of audio)",
    415: "the body is not an audio recording",
    422: "invalid input: each bad field named with what was wrong",
    503: "a model this endpoint needs is not installed, or the memory cannot serve the request: damaged, or unwritable "
    "(a full disk, a read-only medium) for a change (the error says which and the cure)",
}


def errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    """The ``responses`` of a route that can answer these error statuses, each with the ``{"error": ...}`` body."""
    return {code: {"model": ErrorOut, "description": _ERRORS[code]} for code in codes}


# -- asking -------------------------------------------------------------------------------------------


class AskRequest(_In):
    # The schema states what the validators enforce (json_schema_extra), the validators keep their clearer messages.
    question: str = Field(
        ...,
        min_length=1,
        max_length=MAX_QUESTION,
        json_schema_extra={"pattern": r"\S"},
        description="the question, in words: at most [qa] max_question_chars characters (500 unless configured)",
        examples=["Where was the red cup last seen?"],
    )
    as_of: str | None = Field(
        None,
        min_length=1,
        max_length=64,
        description="answer as of this time (ISO 8601 or Unix seconds): nothing later is used",
    )
    choices: list[Annotated[str, Field(min_length=1, max_length=200)]] | None = Field(
        None, max_length=MAX_CHOICES, description="multiple-choice options: the open answer is mapped to the nearest"
    )

    @field_validator("question")
    @classmethod
    def _words(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("the question is empty")
        return value


class EvidenceOut(BaseModel):
    entity: int | None = Field(None, description="the entity the observation belongs to")
    observation: int = Field(..., description="the cited observation")
    clip: int = Field(..., description="the clip it was seen in")
    camera: str
    t_start: float = Field(..., description="Unix seconds")
    t_end: float = Field(..., description="Unix seconds")
    description: str | None = Field(None, description="what was seen (the observation's description)")
    crop_url: str | None = Field(None, description="thumbnail of the observation (a JPEG), if memory keeps one")
    keyframe_url: str | None = Field(None, description="keyframe of its clip (a JPEG), if memory keeps one")


class AskResponse(BaseModel):
    question: str = Field(..., description="the question answered (for a spoken one: the transcript)")
    text: str = Field(..., description="the answer")
    choice: str | None = Field(None, description="the choice the answer maps to (multiple choice)")
    choice_index: int | None = None
    tool: str = Field(
        ..., description="which handler answered: the intent (where, count, with, ...), or unreadable, or llm"
    )
    reading: dict[str, Any] = Field(
        default_factory=dict,
        description="the typed query the question was read as: intent, subject, place, time, order, ...",
    )
    evidence: list[EvidenceOut] = Field(..., description="the observations the answer cites")
    seen: list[int] = Field(..., description="every observation id put in front of the reader")
    timings_ms: dict[str, float] = Field(..., description="milliseconds per stage")
    context: str = Field(..., description="the evidence as the reader saw it (rendered text)")
    transcript: str | None = Field(None, description="what was heard (spoken questions only)")


# -- entities -----------------------------------------------------------------------------------------


class EntityOut(BaseModel):
    id: int
    kind: str = Field(..., description="person, animal or object")
    category: str = Field(..., description="detector category (cup, dog, person...)")
    name: str | None = Field(None, description="the name the user gave it")
    first_seen: float = Field(..., description="Unix seconds")
    last_seen: float = Field(..., description="Unix seconds")
    observations: int = Field(..., description="observations in memory")
    crop_url: str | None = Field(None, description="thumbnail: the crop of its latest observation that has one")


class ObservationOut(BaseModel):
    id: int
    clip_id: int
    entity_id: int | None
    track_id: int
    camera: str
    kind: str
    category: str
    t_start: float = Field(..., description="Unix seconds")
    t_end: float = Field(..., description="Unix seconds")
    description: str = Field(..., description="the describer's sentence")
    colours: list[str] = Field([], description="colour names, the main one first")
    rgb: str | None = Field(None, description="the measured colour, #rrggbb")
    pattern: str = Field("", description="plain, striped, checked, patterned ('' when unknown)")
    size: str = Field("", description="small, medium or large: its share of the frame")
    zone: str = Field("", description="the camera's named zone it was in ('' when none)")
    region: str = Field("", description="where in the image, when no named zone holds it: 'top left', 'centre', ...")
    motion: str = Field("", description="brief, still, moving left / right / up / down")
    place_id: int | None = Field(None, description="the place memory found it at (a camera without zones)")
    place_score: float | None = Field(
        None, description="how sure: the likeness (cosine) of its surroundings to that place's when it was placed"
    )
    crop_url: str | None = Field(None, description="the observation's crop (a JPEG)")
    keyframe_url: str | None = Field(None, description="the keyframe of its clip (a JPEG)")


class FactOut(BaseModel):
    id: int
    kind: str = Field(..., description="place, state, owner or habit:<part of day>")
    value: str
    text: str
    importance: float = Field(..., description="0..1, raised by confirming evidence, lowered by contradicting evidence")
    confirmations: int
    first_confirmed: float = Field(..., description="Unix seconds")
    last_confirmed: float = Field(..., description="Unix seconds")


class TraceOut(BaseModel):
    id: int
    camera: str
    place: str = Field(..., description="the named zone or image region of the span ('' when unknown)")
    description: str
    t_start: float = Field(..., description="Unix seconds")
    t_end: float = Field(..., description="Unix seconds")
    sightings: int = Field(..., description="observations folded into this span")
    first_observation_id: int | None
    last_observation_id: int | None


class BiographyOut(BaseModel):
    entity: EntityOut
    observations: list[ObservationOut] = Field(
        ..., description="in time order (the latest `limit` when there are more)"
    )
    observations_total: int
    facts: list[FactOut] = Field(..., description="what memory has learnt about it, most important first")
    traces: list[TraceOut] = Field(..., description="spans it stayed in one state, in time order")
    recent: list[ObservationOut] = Field(..., description="recent activity: its last 10 observations, newest first")
    taken: TakenOut | None = Field(
        None, description="a thing taken after its last sighting, while memory holds it (until it is seen again)"
    )


class TakenOut(BaseModel):
    t: float = Field(..., description="when it went: the end of its last sighting (Unix seconds)")
    camera: str
    observation_id: int = Field(..., description="its last sighting")
    by_entity_id: int | None = Field(None, description="the person within reach as it went")
    by_observation_id: int | None = None


class RenameRequest(_In):
    name: str | None = Field(..., min_length=1, max_length=100, description="the new name, or null to remove it")


class PlaceNameRequest(_In):
    name: str = Field(..., min_length=1, max_length=100, description="what the user calls the place ('sofa', 'desk')")


class PlaceMergeRequest(_In):
    keep: Id = Field(..., description="the place that stays")
    absorb: Id = Field(..., description="the place whose observations move into `keep` (it is deleted)")


class PlaceOut(BaseModel):
    id: int
    camera: str
    name: str | None = Field(None, description="what the user named it; its observations' zone")
    observations: int
    first_seen: float | None = None
    last_seen: float | None = None
    example: int | None = Field(None, description="an observation of it (its crop shows what stood there)")
    likeness: float | None = Field(
        None, description="how alike its observations' surroundings were to it when placed there (mean cosine)"
    )


class MergeRequest(_In):
    keep: Id = Field(..., description="the entity that stays")
    absorb: Id = Field(..., description="the entity whose observations move into `keep` (it is deleted)")
    force: bool = Field(False, description="override a 'not the same' constraint (from a split)")


class SplitRequest(_In):
    observation: Id = Field(..., description="observations from this one on (in time order) move to a new entity")


class SplitOut(BaseModel):
    entity: EntityOut
    new_entity: EntityOut


class ForgetRequest(_In):
    confirm: bool = Field(
        ...,
        json_schema_extra={"enum": [True]},
        description="must be true: forgetting erases the entity, its media and every trace of it for good",
    )

    @field_validator("confirm")
    @classmethod
    def _confirmed(cls, value: bool) -> bool:
        if value is not True:
            raise ValueError("confirm must be true: forgetting erases the entity for good")
        return value


class ForgetOut(BaseModel):
    entity_id: int
    observations: int = Field(..., description="observations erased")
    files: int = Field(..., description="media files erased")
    bytes_freed: int


# -- moments ------------------------------------------------------------------------------------------


class ClipOut(BaseModel):
    id: int
    camera: str
    t_start: float = Field(..., description="Unix seconds")
    t_end: float = Field(..., description="Unix seconds")
    observations: int = Field(..., description="observations in the clip")
    caption: str | None = Field(None, description="the clip's caption (its clip-scale episode)")
    keyframe_url: str | None = Field(None, description="the clip's keyframe (a JPEG)")


class EpisodeOut(BaseModel):
    id: int
    scale: str = Field(..., description="10min, hour or day")
    camera: str | None
    t_start: float = Field(..., description="Unix seconds")
    t_end: float = Field(..., description="Unix seconds")
    text: str = Field(..., description="the summary")


class CameraMoments(BaseModel):
    camera: str
    clips: list[ClipOut] = Field(..., description="clips overlapping the range, in time order")
    truncated: bool = Field(
        ..., description="more clips lie in the range than `limit`: ask again from the last one's end"
    )
    episodes: list[EpisodeOut] = Field(..., description="coarser summaries overlapping the range, by scale then time")


class MomentsOut(BaseModel):
    start: float = Field(..., description="the range asked for, Unix seconds")
    end: float
    cameras: list[CameraMoments]


class CameraOut(BaseModel):
    name: str
    clips: int = Field(..., description="clips stored (quiet stretches are folded into the clip before them)")
    first: float | None = Field(None, description="start of its first recorded clip, Unix seconds")
    last: float | None = Field(None, description="end of its last recorded clip, Unix seconds")


# -- rules and alerts ---------------------------------------------------------------------------------


class RulePreviewRequest(_In):
    text: str | None = Field(
        None,
        min_length=1,
        max_length=500,
        examples=["notify me when the dog is on the sofa"],
        description="the rule in words ('notify me when the dog is on the sofa'), read by the phrase reader",
    )
    predicate: dict[str, Any] | None = Field(
        None, description="the predicate as a JSON object (instead of, or naming, `text`)"
    )


class RuleRequest(RulePreviewRequest):
    cooldown_s: float | None = Field(
        None,
        ge=0,
        le=31_536_000,
        description="quiet time after an alert, per subject (default: the configuration's [rules] cooldown_s)",
    )


class RulePreviewOut(BaseModel):
    text: str
    predicate: dict[str, Any] = Field(..., description="the structured predicate as read")
    description: str = Field(..., description="the predicate read back in words, for the user to confirm")


class RuleReadingOut(BaseModel):
    """A rule as the reader took it, or why it could not: both are answers (a page checking what its user wrote
    logs no failed request)."""

    text: str = Field(..., description="the rule as given")
    readable: bool
    predicate: dict[str, Any] | None = Field(None, description="the structured predicate as read (when readable)")
    description: str | None = Field(None, description="the predicate read back in words (when readable)")
    reason: str | None = Field(
        None, description="why the reader could not read it, in its words, with rules that would read (when not)"
    )


class RuleOut(RulePreviewOut):
    id: int
    cooldown_s: float
    created_at: float = Field(..., description="Unix seconds")
    enabled: bool
    removed_at: float | None = None


class AlertOut(BaseModel):
    id: int = Field(..., description="the alert's id (rule event); the stream sends them in increasing order")
    rule_id: int
    rule: str = Field(..., description="the rule's text")
    entity_id: int | None
    t: float = Field(..., description="when the condition was met, Unix seconds")
    camera: str | None
    message: str
    evidence: list[int] = Field(..., description="observation ids")
    clip_id: int | None
    detected_at: float | None = Field(None, description="memory's clock when it was seen (the clip's end)")
    keyframe_url: str | None = Field(None, description="keyframe of the clip that raised it")
    crop_url: str | None = Field(None, description="crop of its first evidence observation")
    deliveries: list[dict[str, Any]] = Field(default_factory=list, description="per sink: status, attempts, error")


# -- status -------------------------------------------------------------------------------------------


class CameraStatus(BaseModel):
    camera: str
    clips_recorded: int = Field(..., description="clips recorded (from the ingest log's spans and the clip length)")
    recorded_seconds: float = Field(..., description="seconds of video recorded")
    clips_stored: int = Field(..., description="clips memory still keeps (folded and pruned ones are gone)")
    last_clip_end: float | None = Field(None, description="end of the last clip written, Unix seconds")
    last_commit: float | None = Field(None, description="when the last clip was written, Unix seconds")
    writer_active: bool = Field(..., description="a clip was written within twice the clip length")


class StatusOut(BaseModel):
    version: str
    schema_version: int
    now: float = Field(..., description="the server's clock, Unix seconds")
    cameras: list[CameraStatus]
    entities: int
    rules: int = Field(..., description="rules in force")
    pending_notifications: int = Field(..., description="alert deliveries waiting for a sink")
    memory_bytes: int = Field(..., description="database and media on disk")
