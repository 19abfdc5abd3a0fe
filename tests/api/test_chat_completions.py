"""OpenAI's chat completions over memory, through the real ``openai`` client against a real uvicorn server, as Open
WebUI or Home Assistant would call it: a plain and a streamed answer with their evidence, follow-ups, the model
list, the token, and invalid requests refused in OpenAI's error shape."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator

import httpx
import pytest
from helpers.server import live_server
from helpers.text import HashEmbedder

from edge_agent.api import create_app
from edge_agent.runtime import Runtime

openai = pytest.importorskip("openai", reason="the openai client is a test dependency (pip install '.[test]')")

TOKEN = "o" * 43
WHERE_RED = "Where was the red cup last seen?"


@pytest.fixture
def serve(memory, config):
    """serve(embedder, token=TOKEN): the API over the scene's memory on a real server; yields its base URL."""

    @contextlib.contextmanager
    def run(embedder, token: str | None = TOKEN) -> Iterator[str]:
        with live_server(create_app(Runtime.at(memory.home, config), token=token, embedder=embedder)) as url:
            yield url

    return run


@pytest.fixture
def answering(serve, embedder):
    """(base URL, an openai client with the token) over a server that answers with the real text model."""
    with serve(embedder) as url, openai.OpenAI(base_url=f"{url}/v1", api_key=TOKEN, max_retries=0) as client:
        yield url, client


@pytest.fixture
def refusing(serve):
    """(base URL, an openai client with the token) over a server for requests that are refused or need no model."""
    with (
        serve(HashEmbedder("text:chat-completions-test")) as url,
        openai.OpenAI(base_url=f"{url}/v1", api_key=TOKEN, max_retries=0) as client,
    ):
        yield url, client


def test_a_question_is_answered_with_the_evidence_of_api_ask(answering, memory):
    url, client = answering
    completion = client.chat.completions.create(
        model="edge-agent",
        messages=[{"role": "system", "content": "You are helpful."}, {"role": "user", "content": WHERE_RED}],
        temperature=0.2,  # sampling parameters are taken and ignored: the answer is memory's
    )
    asked = httpx.post(
        f"{url}/api/ask", json={"question": WHERE_RED}, headers={"Authorization": f"Bearer {TOKEN}"}, timeout=30
    ).json()
    assert completion.object == "chat.completion" and completion.model == "edge-agent"
    assert completion.id.startswith("chatcmpl-") and completion.usage is None
    [choice] = completion.choices
    assert choice.finish_reason == "stop" and choice.message.role == "assistant"
    text = choice.message.content
    assert text.startswith(asked["text"] + "\n\n[1] ") and "table" in asked["text"]
    extension = completion.model_extra["edge_agent"]
    assert extension["question"] == WHERE_RED and extension["intent"] == asked["tool"] == "where"
    assert extension["evidence"] == asked["evidence"] and extension["reading"] == asked["reading"]
    notes = text.split("\n\n", 1)[1].splitlines()
    assert len(notes) == len(asked["evidence"])
    last = asked["evidence"][-1]
    assert last["observation"] == memory.red_observations[-1]
    assert notes[-1] == (
        f"[{len(notes)}] 2026-03-02 08:20:00 UTC kitchen, cup #{memory.red}: {last['description']}"
    )  # the third sighting, 20 minutes after 08:00 UTC


def test_a_streamed_answer_is_the_plain_one_in_chunks(answering):
    url, client = answering
    messages = [{"role": "user", "content": WHERE_RED}]
    plain = client.chat.completions.create(model="edge-agent", messages=messages)
    chunks = list(client.chat.completions.create(model="edge-agent", messages=messages, stream=True))
    assert len(chunks) > 3 and all(c.object == "chat.completion.chunk" and c.id == chunks[0].id for c in chunks)
    assert chunks[0].choices[0].delta.role == "assistant"
    assert "".join(c.choices[0].delta.content or "" for c in chunks) == plain.choices[0].message.content
    assert [c.choices[0].finish_reason for c in chunks] == [None] * (len(chunks) - 1) + ["stop"]
    assert chunks[-1].model_extra["edge_agent"] == plain.model_extra["edge_agent"]
    # on the wire: server-sent events, ended as OpenAI ends them
    with httpx.stream(
        "POST",
        f"{url}/v1/chat/completions",
        json={"model": "edge-agent", "messages": messages, "stream": True},
        headers={"Authorization": f"Bearer {TOKEN}"},
        timeout=30,
    ) as raw:
        assert raw.headers["content-type"].startswith("text/event-stream")
        events = [line for line in raw.iter_lines() if line]
    assert all(e.startswith("data: ") for e in events) and events[-1] == "data: [DONE]"
    first, piece = (json.loads(e.removeprefix("data: "))["choices"][0] for e in events[:2])
    assert first["delta"] == {"role": "assistant", "content": ""} and first["finish_reason"] is None
    assert set(piece["delta"]) == {"content"} and piece["finish_reason"] is None  # null until the last, as OpenAI's


def test_content_parts_and_follow_ups_are_read_as_chat_reads_them(answering):
    _, client = answering
    parts = client.chat.completions.create(
        model="edge-agent",
        messages=[
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Where was the red cup"},
                    {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
                    {"type": "text", "text": "last seen?"},
                ],
            }
        ],
    )
    assert parts.model_extra["edge_agent"]["question"] == WHERE_RED
    assert "table" in parts.choices[0].message.content
    # "and the blue cup?" asks the question before it again, about the blue cup (edge_agent.qa.conversation)
    follow_up = client.chat.completions.create(
        model="edge-agent",
        messages=[
            {"role": "user", "content": WHERE_RED},
            {"role": "assistant", "content": parts.choices[0].message.content},
            {"role": "user", "content": "and the blue cup?"},
        ],
    )
    extension = follow_up.model_extra["edge_agent"]
    assert extension["intent"] == "where" and extension["reading"]["method"] == "follow-up"
    assert "sink" in follow_up.choices[0].message.content.split("\n\n")[0]


def test_the_model_list_has_one_model(refusing):
    _, client = refusing
    [model] = client.models.list().data
    assert model.id == "edge-agent" and model.owned_by == "edge-agent" and model.object == "model"


def test_the_token_is_required_and_refused_in_openai_shape(refusing):
    url, _ = refusing
    for key in ("wrong", TOKEN + "x"):
        with openai.OpenAI(base_url=f"{url}/v1", api_key=key, max_retries=0) as client:
            with pytest.raises(openai.AuthenticationError) as refused:
                client.chat.completions.create(model="edge-agent", messages=[{"role": "user", "content": WHERE_RED}])
            assert refused.value.type == "authentication_error" and refused.value.code == "invalid_api_key"
            assert "token" in refused.value.body["message"]
            with pytest.raises(openai.AuthenticationError):
                client.models.list()
    bare = httpx.get(f"{url}/v1/models", timeout=10)
    assert bare.status_code == 401 and bare.headers["www-authenticate"].startswith("Bearer")
    assert set(bare.json()) == {"error"} and set(bare.json()["error"]) == {"message", "type", "param", "code"}


@pytest.mark.parametrize(
    ("messages", "said"),
    [
        ([], "messages: List should have at least 1 item"),
        ([{"role": "system", "content": "You are helpful."}], "messages: no message with role 'user' to answer"),
        ([{"role": "user", "content": "   "}], "messages[0].content: the last user message has no text"),
        (
            [{"role": "user", "content": WHERE_RED}, {"role": "user", "content": [{"type": "image_url"}]}],
            "messages[1].content: the last user message has no text",
        ),
        ([{"role": "robot", "content": WHERE_RED}], "messages.0.role"),
        ([{"role": "user", "content": 42}], "messages.0.content"),
        ([{"role": "user", "content": "where " * 100}], "at most 500 are taken ([qa] max_question_chars)"),
    ],
)
def test_invalid_requests_are_refused_naming_what_was_wrong(refusing, messages, said):
    _, client = refusing
    with pytest.raises(openai.UnprocessableEntityError) as refused:
        client.chat.completions.create(model="edge-agent", messages=messages)
    error = refused.value
    assert error.status_code == 422 and error.type == "invalid_request_error"
    assert said in error.body["message"] and "\n" not in error.body["message"]


def test_a_body_that_is_not_an_object_is_refused_in_openai_shape(refusing):
    url, _ = refusing
    got = httpx.post(
        f"{url}/v1/chat/completions",
        content=b"[1, 2]",
        headers={"Authorization": f"Bearer {TOKEN}", "content-type": "application/json"},
        timeout=10,
    )
    assert got.status_code == 422 and got.json()["error"]["type"] == "invalid_request_error"
    assert got.json()["error"]["message"].startswith("body")
