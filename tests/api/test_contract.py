"""The API keeps to its own OpenAPI schema: schemathesis generates requests from /api/openapi.json (valid
ones, invalid ones, methods a path does not take) and checks every answer: never a 5xx, every status
documented for its operation, the documented content type and body, and a 405 that says what is Allowed."""

from __future__ import annotations

import pytest
import schemathesis
from helpers.text import HashEmbedder
from hypothesis import settings
from schemathesis.checks import not_a_server_error
from schemathesis.python import asgi
from schemathesis.specs.openapi.checks import (
    allow_header_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
    unsupported_method,
)

from edge_agent.api import create_app
from edge_agent.memory import Store
from edge_agent.perception.speech import Segment
from edge_agent.rules import book
from edge_agent.rules.parse import parse_rule
from edge_agent.rules.resolver import Resolver
from edge_agent.runtime import Runtime

TOKEN = "c" * 43
AUTH = {"Authorization": f"Bearer {TOKEN}"}
EXAMPLES = 10  #: generated requests per operation, on top of schemathesis's explicit boundary and negative cases
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    response_headers_conformance,
    unsupported_method,
    allow_header_conformance,
]
# Which schema-valid requests a handler still refuses is not checked (positive_data_acceptance): a rule in words that
# the phrase reader cannot read, or a time range whose start is after its end, is refused with 422 as documented,
# and no JSON Schema can state either.
CORRECTIONS = r"^/api/entities/.+/(rename|split|forget)$|^/api/entities/merge$"


class Transcriber:
    """Hears the same question in any recording (no Whisper, no FFmpeg)."""

    def transcribe(self, path):
        return [Segment(0.0, 1.0, "where was the red cup last seen?")]


# A recording goes as the raw bytes of the body, as binary data does.
schemathesis.serializer.alias(["audio/wav", "audio/webm", "audio/ogg"], "application/octet-stream")


@pytest.fixture
def api_schema(memory, config, scene):
    """The schema of an app with the token over the scene's memory, with a rule that has fired once."""
    with Store(memory.home) as store:
        text = "notify me when the dog is on the sofa"
        book.add_rule(store, text, parse_rule(text, places=["sofa"]), cooldown_s=0)
        scene.dog_clip(store, scene.T0 + 3600)
        assert Resolver(store, zones=scene.ZONES).process()
    app = create_app(Runtime.at(memory.home, config), token=TOKEN, embedder=HashEmbedder("text:contract-test"))
    app.state.api._transcriber = Transcriber()
    yield schemathesis.openapi.from_asgi("/api/openapi.json", app, headers=AUTH)
    asgi.shutdown_lifespans()  # schemathesis keeps an app started until exit: close its memory with the test


@pytest.fixture(autouse=True)
def _node_id(request):
    # schemathesis 4.32.5 reads (and rewrites, to name each operation) the private request.node._nodeid that pytest 9
    # no longer has.
    request.node._nodeid = request.node.nodeid


schema = schemathesis.pytest.from_fixture("api_schema")
# Deterministic (the same requests every run), bounded, and no example database (hypothesis keeps only its caches,
# in the git-ignored .hypothesis folder).
examples = settings(max_examples=EXAMPLES, derandomize=True, database=None, deadline=None)


def _call(case):
    # The alert stream never ends by itself: what it sent within the timeout is checked.
    case.call_and_validate(headers=AUTH, checks=CHECKS, timeout=0.2 if case.path.endswith("/stream") else 30)


def test_what_the_contract_run_found_stays_fixed(make_client, memory):
    """Each of these was an answer the schema did not allow."""
    client = make_client(memory.home, token=TOKEN)
    spec = client.get("/api/openapi.json", headers=AUTH).json()
    assert (
        spec["security"] == [{"bearerAuth": []}]
        and spec["components"]["securitySchemes"]["bearerAuth"]["scheme"] == "bearer"
    )
    assert "401" in spec["paths"]["/api/status"]["get"]["responses"]
    not_utf8 = client.post(
        "/api/ask", content=b'{"question": "\xff\xfe"}', headers={**AUTH, "content-type": "application/json"}
    )
    assert not_utf8.status_code == 422 and "UTF-8" in not_utf8.json()["error"]  # was an undocumented 400
    for method, path, allowed in (
        ("OPTIONS", "/api/rules", "GET, POST"),
        ("PUT", "/api/rules/1", "DELETE"),
        ("GET", "/api/entities/merge", "POST"),
    ):  # was a 422: "merge" read as an entity id
        got = client.request(method, path, headers=AUTH)
        assert got.status_code == 405 and got.headers["allow"] == allowed, (method, path)
    # a constraint the handler enforces is stated in the schema
    assert spec["components"]["schemas"]["AskRequest"]["properties"]["question"]["pattern"] == r"\S"


@schema.exclude(path_regex=CORRECTIONS).parametrize()
@examples
def test_reads_questions_and_rules_keep_to_the_schema(case):
    _call(case)


@schema.include(path_regex=CORRECTIONS).parametrize()
@examples
def test_corrections_keep_to_the_schema(case):
    """On a memory of their own: a merge or a forget changes what the other operations would find."""
    _call(case)
