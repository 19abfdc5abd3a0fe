"""The MCP tools (edge_agent/api/mcp_tools.py) through the SDK's own client, over both transports: stdio (``python -m
edge_agent mcp`` as a subprocess) and streamable HTTP (``/mcp`` of the API app under a real uvicorn server), on the
small memory of conftest.py. Every tool is called; rules_add stores only with confirm=true; errors are one line;
/mcp takes the API's token when the server has one."""

from __future__ import annotations

import base64
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import anyio
import httpx
import httpx2  # the SDK's HTTP client
from fastapi.testclient import TestClient
from helpers.server import live_server
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.types import ImageContent, TextContent

from edge_agent.api import create_app
from edge_agent.api.mcp_tools import PATH
from edge_agent.runtime import Runtime

TOOLS = {"ask", "last_seen", "search", "entity", "moments", "rules_list", "rules_add"}
TOKEN = "t" * 43
START, END = "2026-03-02T08:00:00Z", "2026-03-02T08:35:00Z"  # conftest's T0 and the last clip's end


def text_of(result) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, TextContent))


async def _call(client: Client, name: str, **arguments):
    result = await client.call_tool(name, arguments)
    assert not result.is_error, f"{name}: {text_of(result)}"
    return result


async def _refused(client: Client, name: str, **arguments) -> str:
    result = await client.call_tool(name, arguments)
    assert result.is_error, name
    said = text_of(result)
    assert "\n" not in said and "Traceback" not in said, said
    return said


async def _listing(client: Client) -> None:
    tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) == TOOLS
    for tool in tools.values():  # typed arguments with descriptions, a description of the tool, an output schema
        assert tool.description and tool.output_schema, tool.name
        for name, schema in tool.input_schema["properties"].items():
            assert schema.get("description"), f"{tool.name}.{name}"
    assert tools["ask"].input_schema["required"] == ["question"]
    assert tools["rules_add"].annotations.read_only_hint is False and tools["search"].annotations.read_only_hint


async def _reads(client: Client, memory) -> None:
    seen = await _call(client, "last_seen", thing="cup")
    matches = seen.structured_content["matches"]
    assert [m["entity_id"] for m in matches] == [memory.blue, memory.red]  # most recently seen first
    assert matches[0]["camera"] == "kitchen" and "by the sink" in text_of(seen) and "2026-03-02 08:30" in text_of(seen)
    dog = await _call(client, "last_seen", thing="animal")
    assert [m["entity_id"] for m in dog.structured_content["matches"]] == [memory.dog]
    by_id = await _call(client, "last_seen", entity_id=memory.red)
    assert by_id.structured_content["matches"][0]["where"] == "by the table"

    found = await _call(client, "search", text="red cup")
    assert {o["id"] for o in found.structured_content["observations"]} >= set(memory.red_observations)
    windowed = await _call(client, "search", text="cup", camera="kitchen", start="2026-03-02T08:25:00Z")
    assert [o["id"] for o in windowed.structured_content["observations"]] == [memory.blue_observation]
    assert not (await _call(client, "search", text="cup", camera="living")).structured_content["observations"]

    entity = await _call(client, "entity", entity_id=memory.red, observations=2)
    assert entity.structured_content["entity"]["id"] == memory.red
    assert len(entity.structured_content["observations"]) == 2 and entity.structured_content["observations_total"] == 3
    images = [b for b in entity.content if isinstance(b, ImageContent)]
    assert len(images) == 2 and all(i.mime_type == "image/jpeg" for i in images)
    assert all(base64.b64decode(i.data).startswith(b"\xff\xd8") for i in images)  # the crop files themselves

    moments = await _call(client, "moments", start=START, end=END)
    cameras = {c["camera"]: c for c in moments.structured_content["cameras"]}
    assert set(cameras) == {"kitchen", "living"} and len(cameras["kitchen"]["clips"]) == 4
    assert "a red cup by the sink" in text_of(moments)
    assert len(moments.structured_content["observations"]) == 5
    only = await _call(client, "moments", start=START, end=END, camera="living")
    assert [o["category"] for o in only.structured_content["observations"]] == ["dog"]


async def _rules(client: Client) -> None:
    rule = "tell me when a person appears in the kitchen"
    preview = await _call(client, "rules_add", text=rule)
    assert preview.structured_content["stored"] is False and preview.structured_content["rule"] is None
    assert preview.structured_content["reading"]["predicate"]["camera"] == "kitchen"
    assert "confirm=true" in text_of(preview)
    assert (await _call(client, "rules_list")).structured_content["rules"] == []  # only read, not stored
    stored = await _call(client, "rules_add", text=rule, confirm=True)
    assert stored.structured_content["stored"] is True
    rule_id = stored.structured_content["rule"]["id"]
    listed = (await _call(client, "rules_list")).structured_content["rules"]
    assert [r["id"] for r in listed] == [rule_id] and listed[0]["text"] == rule
    assert "unknown" in (await _refused(client, "rules_add", text="tell me when the unicorn dances", confirm=True))
    assert len((await _call(client, "rules_list")).structured_content["rules"]) == 1


async def _errors(client: Client) -> None:
    assert "no entity" in await _refused(client, "entity", entity_id=999)
    assert "no entity" in await _refused(client, "last_seen", entity_id=999)
    assert "either" in await _refused(client, "last_seen")
    assert "nothing in memory" in await _refused(client, "last_seen", thing="unicorn")
    assert "ISO 8601" in await _refused(client, "moments", start="yesterday-ish")
    assert "entity_id" in await _refused(client, "entity", entity_id=0)  # the SDK's argument check, in one line
    assert "start is after end" in await _refused(client, "moments", start=END, end=START)


async def _ask(client: Client, memory) -> None:
    answer = await _call(client, "ask", question="where was the red cup last seen?")
    assert "table" in answer.structured_content["text"]
    assert memory.red_observations[-1] in [e["observation"] for e in answer.structured_content["evidence"]]
    assert "evidence:" in text_of(answer)
    assert any(isinstance(b, ImageContent) for b in answer.content)  # the cited sighting's crop
    assert "question" in await _refused(client, "ask", question="   ")


def _session(connect: Callable[[], Client], *steps: Callable[[Client], Awaitable[None]]) -> None:
    async def run() -> None:
        async with connect() as client:
            for step in steps:
                await step(client)

    anyio.run(run)


def _stdio(memory) -> Client:
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "edge_agent", "mcp", "--home", str(memory.home)],
        env={"PYTHONPATH": os.pathsep.join(sys.path)},  # the edge_agent this test imports
        cwd=str(Path(memory.home).parent),
    )
    return Client(server, read_timeout_seconds=120)


def test_every_tool_but_ask_over_stdio(memory):
    _session(lambda: _stdio(memory), _listing, lambda c: _reads(c, memory), _rules, _errors)


def test_every_tool_but_ask_over_streamable_http(memory, config):
    app = create_app(Runtime.at(memory.home, config), token=None)
    with live_server(app) as url:
        _session(lambda: Client(f"{url}{PATH}"), _listing, lambda c: _reads(c, memory), _rules, _errors)
        assert httpx.get(f"{url}/api/status").status_code == 200  # the API beside it is unchanged


def test_ask_over_both_transports(memory, config, embedder):
    """Needs the text model (skipped without it): the stdio server loads its own, the app is given the test's."""
    _session(lambda: _stdio(memory), lambda c: _ask(c, memory))
    app = create_app(Runtime.at(memory.home, config), token=None, embedder=embedder)
    with live_server(app) as url:
        _session(lambda: Client(f"{url}{PATH}", read_timeout_seconds=120), lambda c: _ask(c, memory))


def test_the_token_is_required_on_mcp(memory, config):
    app = create_app(Runtime.at(memory.home, config), token=TOKEN)
    with live_server(app) as url:
        hello = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        refused = httpx.post(f"{url}{PATH}", json=hello)
        assert refused.status_code == 401 and "API token" in refused.json()["error"]
        wrong = httpx.post(f"{url}{PATH}", json=hello, headers={"Authorization": "Bearer " + "x" * 43})
        assert wrong.status_code == 401

        async def listed() -> None:
            headers = {"Authorization": f"Bearer {TOKEN}"}
            async with httpx2.AsyncClient(headers=headers) as http:  # a client given to the SDK is ours to close
                async with Client(streamable_http_client(f"{url}{PATH}", http_client=http)) as client:
                    assert {t.name for t in (await client.list_tools()).tools} == TOOLS

        anyio.run(listed)


def test_without_a_token_mcp_answers_only_this_machine_by_name(memory, config):
    """A loopback bind without a token: the Host header must name this machine (DNS rebinding), as for /api/."""
    app = create_app(Runtime.at(memory.home, config), token=None)
    with live_server(app) as url:
        rebound = httpx.post(
            f"{url}{PATH}", json={"jsonrpc": "2.0", "id": 1, "method": "ping"}, headers={"Host": "evil.example"}
        )
        assert rebound.status_code == 400


def test_the_app_starts_again_with_its_mcp_sessions(memory, config):
    """The MCP session manager runs inside the app's lifespan, a fresh one at each start (one runs only once)."""
    app = create_app(Runtime.at(memory.home, config), token=None)
    for _ in range(2):
        with TestClient(app, base_url="http://127.0.0.1:8765") as client:
            assert client.get("/api/status").status_code == 200
