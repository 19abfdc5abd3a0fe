"""Questions to memory: typed (``POST /api/ask``) or spoken (``POST /api/ask/audio``, the recording as
the request body). Both are answered by the deterministic controller, one question at a time."""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, HTTPException, Query, Request

from edge_agent.api.models import AskRequest, AskResponse, EvidenceOut, errors
from edge_agent.api.state import ApiState
from edge_agent.api.views import crop_url, keyframe_url, parse_time, with_keyframes
from edge_agent.memory import Store
from edge_agent.qa.question import QuestionTooLong

if TYPE_CHECKING:
    from edge_agent.qa.deterministic import Answer

__all__ = ["respond", "router"]

router = APIRouter(tags=["ask"])

#: Content types taken as a spoken question, with the suffix the temporary file gets (FFmpeg reads the
#: content either way).
AUDIO_TYPES = {
    "audio/wav": ".wav",
    "audio/x-wav": ".wav",
    "audio/wave": ".wav",
    "audio/vnd.wave": ".wav",
    "audio/webm": ".webm",
    "audio/ogg": ".ogg",
    "audio/opus": ".opus",
    "audio/mpeg": ".mp3",
    "audio/mp4": ".m4a",
    "audio/aac": ".aac",
    "audio/flac": ".flac",
    "audio/x-flac": ".flac",
    "application/octet-stream": ".audio",
}


def _answer(store: Store, api: ApiState, question: str, as_of: float | None, choices: Sequence[str]) -> AskResponse:
    try:
        answer = api.controller(store).ask(question, as_of=as_of, choices=choices)
    except QuestionTooLong as exc:  # longer than [qa] max_question_chars: the controller read none of it
        raise HTTPException(422, f"question: {exc}") from None
    return respond(store, question, answer)


def respond(store: Store, question: str, answer: Answer) -> AskResponse:
    """The controller's answer as the API gives it: each cited observation looked up for its description and media
    (shared with ``/v1/chat/completions``)."""
    cited: list[dict[str, Any]] = [dict(c) for c in answer.evidence]  # values as each controller cites them
    observations = {
        o.id: o
        for o in store.observations_by_id([int(c["observation"]) for c in cited if c.get("observation") is not None])
    }
    keyframed = with_keyframes(store, (int(c["clip"]) for c in cited if c.get("clip") is not None))
    evidence = []
    for c in cited:
        o = observations.get(int(c["observation"]))
        clip = int(c["clip"]) if c.get("clip") is not None else (o.clip_id if o else 0)
        evidence.append(
            EvidenceOut(
                entity=c.get("entity"),
                observation=int(c["observation"]),
                clip=clip,
                camera=str(c.get("camera") or (o.camera if o else "")),
                t_start=float(c["t_start"]),
                t_end=float(c["t_end"]),
                description=o.description if o else None,
                crop_url=crop_url(o.id) if o is not None and o.crop_path else None,
                keyframe_url=keyframe_url(clip) if clip in keyframed else None,
            )
        )
    return AskResponse(
        question=question,
        text=answer.text,
        choice=answer.choice,
        choice_index=answer.choice_index,
        tool=answer.tool,
        reading=dict(answer.query),
        evidence=evidence,
        seen=list(answer.seen),
        timings_ms=dict(answer.timings_ms),
        context=answer.context,
    )


@router.post(
    "/ask",
    response_model=AskResponse,
    responses=errors(413, 422, 503),
    summary="Answer a question from memory, with cited evidence",
)
async def ask(body: AskRequest, request: Request) -> AskResponse:
    api: ApiState = request.app.state.api
    as_of = parse_time(body.as_of, "as_of")
    return await api.qa(_answer, api, body.question.strip(), as_of, body.choices or ())


def _spoken(store: Store, api: ApiState, audio: bytes, suffix: str, as_of: float | None) -> AskResponse:
    from edge_agent.perception.speech import spoken_question

    transcriber = api.transcriber()
    started = time.perf_counter()
    fd, name = tempfile.mkstemp(prefix="edge-agent-question-", suffix=suffix)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(audio)
        try:
            question = spoken_question(transcriber, name)
        except ValueError as exc:
            raise HTTPException(422, str(exc).replace(os.path.basename(name), "the recording")) from None
        except Exception as exc:  # FFmpeg could not decode it: the client sent something that is not audio
            if type(exc).__module__.split(".")[0] != "av":
                raise
            raise HTTPException(
                422, "the request body could not be decoded as audio (WAV, WebM, Ogg, MP3...)"
            ) from None
    finally:
        os.unlink(name)
    transcribe_ms = (time.perf_counter() - started) * 1000
    answer = _answer(store, api, question, as_of, ())
    answer.transcript = question
    answer.timings_ms["transcribe"] = transcribe_ms
    return answer


@router.post(
    "/ask/audio",
    response_model=AskResponse,
    responses=errors(413, 415, 422, 503),
    summary="Answer a spoken question: the recording is the request body (audio/wav, audio/webm, audio/ogg...)",
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {
                t: {"schema": {"type": "string", "format": "binary", "minLength": 1}}
                for t in ("audio/wav", "audio/webm", "audio/ogg")
            },
        }
    },
)
async def ask_audio(
    request: Request,
    as_of: str | None = Query(
        None, min_length=1, max_length=64, description="answer as of this time (ISO 8601 or Unix seconds)"
    ),
) -> Any:
    api: ApiState = request.app.state.api
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind not in AUDIO_TYPES:
        raise HTTPException(
            415,
            "send the recording itself as the request body with an audio Content-Type (audio/wav, audio/webm, "
            "audio/ogg...); multipart forms are not accepted",
        )
    when = parse_time(as_of, "as_of")
    audio = await request.body()
    if not audio:
        raise HTTPException(422, "the request body is empty: send the recording")
    return await api.qa(_spoken, api, audio, AUDIO_TYPES[kind], when)
