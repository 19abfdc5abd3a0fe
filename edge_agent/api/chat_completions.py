"""OpenAI's chat completions over memory (``POST /v1/chat/completions``, ``GET /v1/models``), so that chat front
ends that speak OpenAI's protocol (Open WebUI, Home Assistant, the ``openai`` client) can ask memory questions.

The last user message is answered by the same controller as ``POST /api/ask``; the user messages before it are read
as a ``chat`` conversation is (:class:`edge_agent.qa.conversation.Conversation`: "and where was it?" keeps the
subject), system and assistant messages are ignored, as are sampling parameters (temperature, max_tokens, n...):
the answer is memory's, not sampled. The cited observations come twice: as footnotes after the answer ("[1]
2026-03-02 08:20:00 UTC kitchen, cup #1: a red cup by the table") and, as ``/api/ask`` gives them, in the extension
field ``edge_agent`` of the completion (of the last chunk when streamed). ``"stream": true`` sends the answer as
server-sent events of ``chat.completion.chunk`` objects ending with ``data: [DONE]``. The token rule is the rest of
the API's (``Authorization: Bearer <token>``, which the ``openai`` client sends its ``api_key`` as).

Errors under ``/v1/`` take OpenAI's shape, which its clients parse: ``{"error": {"message": ..., "type": ...,
"param": null, "code": ...}}`` (:class:`OpenAIErrors` rewrites the API's ``{"error": "..."}``, whatever layer made
it); the statuses and messages are the API's own (422 for invalid input, naming what was wrong).

The request and response bodies are OpenAI's wire format, not the project's vocabulary, so they live here rather
than in :mod:`edge_agent.api.models`. Requests take fields this endpoint does not know (clients send many); each
response is the subset of OpenAI's fields that clients read, ``usage`` null (memory counts no tokens).
"""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import Iterator, Sequence
from typing import Any, Literal

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, ConfigDict, Field

from edge_agent.api.ask import respond
from edge_agent.api.models import EvidenceOut
from edge_agent.api.security import ASGIApp, Message, Receive, Scope, Send
from edge_agent.api.state import ApiState
from edge_agent.clock import format_utc
from edge_agent.memory import Store
from edge_agent.qa.question import QuestionTooLong

__all__ = [
    "FOLLOW_UP_TURNS",
    "FOOTNOTES",
    "MODEL_ID",
    "ChatCompletion",
    "ChatCompletionChunk",
    "ChatCompletionRequest",
    "ModelList",
    "OpenAIErrorOut",
    "OpenAIErrors",
    "openai_errors",
    "router",
]

MODEL_ID = "edge-agent"  #: the one model listed; a request may name any model, memory answers it
FOLLOW_UP_TURNS = 8  #: earlier user messages read for a follow-up (as ``chat`` would have read them), the latest ones
FOOTNOTES = 10  #: cited observations written as footnotes; all of them are in the ``edge_agent`` extension
_STARTED = int(time.time())  #: the listed model's ``created``: when this server started

router = APIRouter(tags=["openai"])


# -- errors -----------------------------------------------------------------------------------------------


class OpenAIError(BaseModel):
    message: str = Field(..., description="what was wrong (never a stack trace)")
    type: str = Field(..., description="invalid_request_error, authentication_error or server_error")
    param: str | None = None
    code: str | None = Field(None, description="invalid_api_key for a refused token")


class OpenAIErrorOut(BaseModel):
    error: OpenAIError


_ERRORS = {
    400: "the Host header does not name this machine (a server bound to loopback without a token)",
    401: "missing or wrong API token (send the api_key as 'Authorization: Bearer <token>')",
    413: "request body too large (64 KiB of JSON)",
    422: "invalid input: no user message, a user message without text, a question over the limit, a wrong type",
    503: "the text model is not installed, or the memory is damaged (the error says which and the cure)",
}


def openai_errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    """The ``responses`` of a ``/v1/`` route that can answer these error statuses, in OpenAI's error shape."""
    return {code: {"model": OpenAIErrorOut, "description": _ERRORS[code]} for code in codes}


def _error_type(status: int) -> str:
    if status == 401:
        return "authentication_error"
    return "server_error" if status >= 500 else "invalid_request_error"


class OpenAIErrors:
    """Under ``/v1/``, an error answered as ``{"error": "..."}`` (by an endpoint, the token or Host check, the
    body limit, or the error boundary) goes out as ``{"error": {"message": "...", "type": ..., ...}}``, status and
    headers kept. Plain ASGI, outermost: only error responses are held (they are small); a stream passes through."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not str(scope.get("path", "")).startswith("/v1/"):
            await self.app(scope, receive, send)
            return
        start: Message | None = None
        body: list[bytes] = []

        async def rewrite(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start" and message.get("status", 200) >= 400:
                start = message
                return
            if start is None or message["type"] != "http.response.body":
                await send(message)
                return
            body.append(message.get("body", b""))
            if message.get("more_body", False):
                return
            data = _openai_shaped(start["status"], b"".join(body))
            headers = [(k, v) for k, v in start.get("headers", ()) if k.lower() != b"content-length"]
            await send({**start, "headers": [*headers, (b"content-length", str(len(data)).encode())]})
            await send({"type": "http.response.body", "body": data})

        await self.app(scope, receive, rewrite)


def _openai_shaped(status: int, data: bytes) -> bytes:
    """``{"error": "message"}`` as OpenAI's error object; any other body as it is."""
    try:
        body = json.loads(data)
    except ValueError:
        return data
    if not isinstance(body, dict) or not isinstance(body.get("error"), str):
        return data
    error = OpenAIError(
        message=body["error"], type=_error_type(status), code="invalid_api_key" if status == 401 else None
    )
    return OpenAIErrorOut(error=error).model_dump_json().encode()


# -- requests ---------------------------------------------------------------------------------------------


class _OpenAIIn(BaseModel):
    model_config = ConfigDict(extra="ignore")  # clients send fields of OpenAI's this endpoint has no use for


class ContentPart(_OpenAIIn):
    type: str = Field(..., min_length=1, description="'text' parts are read; images and others are ignored")
    text: str | None = Field(None, description="the text of a 'text' part")


class ChatMessage(_OpenAIIn):
    role: Literal["system", "developer", "user", "assistant", "tool", "function"]
    content: str | list[ContentPart] | None = Field(None, description="text, or a list of content parts")


class ChatCompletionRequest(_OpenAIIn):
    model: str | None = Field(None, max_length=200, description=f"any name: memory answers ({MODEL_ID} is listed)")
    messages: list[ChatMessage] = Field(
        ..., min_length=1, description="the conversation; its last user message is answered"
    )
    stream: bool | None = Field(False, description="send the answer as server-sent events of chat.completion.chunk")


def _text(message: ChatMessage) -> str:
    content = message.content
    if isinstance(content, list):
        content = " ".join(part.text for part in content if part.type == "text" and part.text)
    return (content or "").strip()


def _user_turns(messages: Sequence[ChatMessage]) -> tuple[list[str], str]:
    """(the earlier user messages' text, the last user message's text); 422 naming what is missing."""
    users = [i for i, m in enumerate(messages) if m.role == "user"]
    if not users:
        raise HTTPException(422, "messages: no message with role 'user' to answer")
    last = _text(messages[users[-1]])
    if not last:
        raise HTTPException(422, f"messages[{users[-1]}].content: the last user message has no text")
    earlier = [text for text in (_text(messages[i]) for i in users[:-1]) if text]
    return earlier[-FOLLOW_UP_TURNS:], last


# -- responses --------------------------------------------------------------------------------------------


class EdgeAgentExtension(BaseModel):
    question: str = Field(..., description="the user message answered")
    intent: str = Field(..., description="which handler answered: the intent (where, count, ...), or unreadable")
    reading: dict[str, Any] = Field(default_factory=dict, description="the typed query the question was read as")
    evidence: list[EvidenceOut] = Field(..., description="the cited observations, as /api/ask gives them")


class AssistantMessage(BaseModel):
    role: Literal["assistant"] = "assistant"
    content: str = Field(..., description="the answer, then a footnote per cited observation")


class Choice(BaseModel):
    index: int = 0
    message: AssistantMessage
    finish_reason: Literal["stop"] = "stop"
    logprobs: None = None


class ChatCompletion(BaseModel):
    id: str
    object: Literal["chat.completion"] = "chat.completion"
    created: int = Field(..., description="Unix seconds")
    model: str = MODEL_ID
    choices: list[Choice]
    usage: None = Field(None, description="always null: memory counts no tokens")
    edge_agent: EdgeAgentExtension = Field(..., description="the evidence behind the answer (an extension field)")


class Delta(BaseModel):
    role: Literal["assistant"] | None = None
    content: str | None = None


class ChunkChoice(BaseModel):
    index: int = 0
    delta: Delta
    finish_reason: Literal["stop"] | None = None
    logprobs: None = None


class ChatCompletionChunk(BaseModel):
    id: str
    object: Literal["chat.completion.chunk"] = "chat.completion.chunk"
    created: int
    model: str = MODEL_ID
    choices: list[ChunkChoice]
    edge_agent: EdgeAgentExtension | None = Field(None, description="on the last chunk: the evidence")


class ModelOut(BaseModel):
    id: str
    object: Literal["model"] = "model"
    created: int = Field(..., description="Unix seconds: when this server started")
    owned_by: str


class ModelList(BaseModel):
    object: Literal["list"] = "list"
    data: list[ModelOut]


def footnotes(evidence: Sequence[EvidenceOut], categories: dict[int, str]) -> str:
    """'[1] 2026-03-02 08:20:00 UTC kitchen, cup #1: a red cup by the table', one line per cited observation (the
    first :data:`FOOTNOTES`, then how many more)."""
    lines = []
    for n, cited in enumerate(evidence[:FOOTNOTES], 1):
        what = categories.get(cited.observation, "observation")
        what = f"{what} #{cited.entity}" if cited.entity is not None else what
        said = f": {cited.description}" if cited.description else ""
        lines.append(f"[{n}] {format_utc(cited.t_start, zone=True)} {cited.camera}, {what}{said}")
    if len(evidence) > FOOTNOTES:
        lines.append(f"(and {len(evidence) - FOOTNOTES} more observations)")
    return "\n".join(lines)


def _complete(store: Store, api: ApiState, earlier: list[str], question: str) -> tuple[str, EdgeAgentExtension]:
    """On the question worker: the answer to ``question`` read as the follow-up of ``earlier`` (oldest first)."""
    from edge_agent.qa.conversation import Conversation, follow_up

    controller = api.controller(store)
    conversation = Conversation(controller)
    for line in earlier:
        try:
            conversation.previous = follow_up(conversation.previous, controller.query(line))
        except QuestionTooLong:  # as in chat: refused, and the conversation goes on without it
            continue
    try:
        answer = conversation.ask(question)
    except QuestionTooLong as exc:
        raise HTTPException(422, f"messages: the last user message: {exc}") from None
    said = respond(store, question, answer)
    categories = {o.id: o.category for o in store.observations_by_id([e.observation for e in said.evidence])}
    notes = footnotes(said.evidence, categories)
    text = f"{said.text}\n\n{notes}" if notes else said.text
    return text, EdgeAgentExtension(question=question, intent=said.tool, reading=said.reading, evidence=said.evidence)


def _pieces(text: str) -> list[str]:
    """``text`` in word-sized pieces that join back to it exactly."""
    return re.findall(r"\S+\s*|\s+", text) or [text]


def _events(completion_id: str, created: int, text: str, extension: EdgeAgentExtension) -> Iterator[str]:
    def event(delta: Delta, finish: Literal["stop"] | None = None, ext: EdgeAgentExtension | None = None) -> str:
        chunk = ChatCompletionChunk(
            id=completion_id,
            created=created,
            choices=[ChunkChoice(delta=delta, finish_reason=finish)],
            edge_agent=ext,
        )
        # As OpenAI sends them: finish_reason null until the last chunk, a delta without the fields it does not carry.
        data = chunk.model_dump(mode="json", exclude={"edge_agent"} if ext is None else None)
        data["choices"][0]["delta"] = delta.model_dump(exclude_none=True)
        return f"data: {json.dumps(data, separators=(',', ':'))}\n\n"

    yield event(Delta(role="assistant", content=""))
    for piece in _pieces(text):
        yield event(Delta(content=piece))
    yield event(Delta(), "stop", extension)
    yield "data: [DONE]\n\n"


@router.post(
    "/v1/chat/completions",
    response_model=ChatCompletion,
    responses={
        200: {
            "description": "the completion (JSON), or with stream: server-sent events of chat.completion.chunk "
            "objects, then 'data: [DONE]'",
            "content": {"text/event-stream": {"schema": {"type": "string"}}},
        },
        **openai_errors(413, 422, 503),
    },
    summary="Answer the last user message from memory, OpenAI's way (the evidence in the edge_agent field)",
)
async def chat_completions(body: ChatCompletionRequest, request: Request) -> Any:
    api: ApiState = request.app.state.api
    earlier, question = _user_turns(body.messages)
    text, extension = await api.qa(_complete, api, earlier, question)
    completion_id, created = f"chatcmpl-{uuid.uuid4().hex}", int(time.time())
    if body.stream:
        return StreamingResponse(
            _events(completion_id, created, text, extension),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )
    return ChatCompletion(
        id=completion_id,
        created=created,
        choices=[Choice(message=AssistantMessage(content=text))],
        edge_agent=extension,
    )


@router.get("/v1/models", response_model=ModelList, summary="The one model: memory answering (OpenAI's model list)")
async def models() -> ModelList:
    return ModelList(data=[ModelOut(id=MODEL_ID, created=_STARTED, owned_by="edge-agent")])
