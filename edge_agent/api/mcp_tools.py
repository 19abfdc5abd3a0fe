"""Memory as Model Context Protocol tools (the official ``mcp`` SDK, 2.x), for an assistant that holds MCP
clients (Claude Desktop, an IDE, an agent framework): ask, when a thing was last seen, search, an entity's
biography with its crops, what happened in a window, and rules. Over stdio (``edge-agent mcp``) and over
streamable HTTP at ``/mcp`` of ``edge-agent serve`` (behind the API's token and Host rules).

Each tool is a thin layer over what the HTTP endpoints and memory's reads already do, run on the API state's
worker threads; it answers with words for the model to read and, where it fits, typed structured content (its
output schema listed with the tool). A failure the user can act on is one line (an MCP tool error); anything
else is logged with its traceback on the server and reaches the client as "Error executing tool NAME"."""

from __future__ import annotations

import base64
import functools
import logging
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Annotated, Any, TypeVar

from fastapi import FastAPI
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import CallToolResult, ContentBlock, ImageContent, TextContent, ToolAnnotations
from pydantic import BaseModel, Field, ValidationError
from starlette.exceptions import HTTPException

from edge_agent import __version__
from edge_agent.api import ask as ask_endpoint
from edge_agent.api import entities as entities_endpoint
from edge_agent.api import moments as moments_endpoint
from edge_agent.api import rules as rules_endpoint
from edge_agent.api.models import (
    MAX_ID,
    MAX_QUESTION,
    CameraMoments,
    EntityOut,
    EvidenceOut,
    FactOut,
    ObservationOut,
    RuleOut,
    RulePreviewOut,
    RulePreviewRequest,
    TakenOut,
)
from edge_agent.api.state import ApiState
from edge_agent.api.views import observations_out, parse_time
from edge_agent.clock import format_utc
from edge_agent.errors import EdgeAgentError
from edge_agent.memory import NotFoundError, Store
from edge_agent.memory.description import place_phrase
from edge_agent.memory.records import KINDS, EntityOverview
from edge_agent.perception.vocabulary import categories_in, singular
from edge_agent.rules import book
from edge_agent.rules.predicate import describe

__all__ = ["PATH", "MemoryTools", "create_server", "mount"]

PATH = "/mcp"  #: where ``serve`` answers MCP over streamable HTTP
SHOWN = 5  #: entities a last-seen answer lists, at most
IMAGES = 3  #: crops an entity's answer carries as images, at most
SEARCH_SCAN = 2000  #: text matches read before a camera or time filter is applied

T = TypeVar("T")
Time = Annotated[
    str | None,
    Field(
        description="ISO 8601 (a time without a zone is UTC, e.g. 2026-03-02T08:00:00Z) or Unix seconds",
        max_length=64,
    ),
]
Camera = Annotated[str | None, Field(description="only this camera (its name, e.g. kitchen)", max_length=200)]
EntityId = Annotated[int, Field(ge=1, le=MAX_ID, description="the entity's id (#12 in listings and answers)")]


# -- what the tools answer (structured content; the text content says the same in words) -----------------------


class AskOut(BaseModel):
    text: str = Field(..., description="the answer")
    tool: str = Field(..., description="which handler answered: the intent (where, count, with, ...), or unreadable")
    evidence: list[EvidenceOut] = Field(..., description="the observations the answer cites")


class SeenOut(BaseModel):
    entity_id: int
    name: str | None = Field(None, description="the name the user gave it")
    kind: str = Field(..., description="person, animal or object")
    category: str
    looks: str = Field(..., description="what it looks like, in words")
    last_seen: float = Field(..., description="end of its latest sighting, Unix seconds")
    camera: str = Field(..., description="the camera it was last seen on")
    where: str = Field(..., description="where in that camera's view: its named zone or place, else the region")
    observations: int


class LastSeenOut(BaseModel):
    matches: list[SeenOut] = Field(..., description="most recently seen first")
    total: int = Field(..., description="every entity that fits, of which `matches` lists the latest")


class SearchOut(BaseModel):
    observations: list[ObservationOut] = Field(..., description="best match first")


class MomentsToolOut(BaseModel):
    start: float = Field(..., description="Unix seconds")
    end: float = Field(..., description="Unix seconds")
    cameras: list[CameraMoments] = Field(..., description="per camera: clips with their captions, and episodes")
    observations: list[ObservationOut] = Field(..., description="the sightings overlapping the window, in time order")


class EntityExcerptOut(BaseModel):
    entity: EntityOut
    facts: list[FactOut] = Field(..., description="what memory has learnt about it, most important first")
    observations: list[ObservationOut] = Field(..., description="its latest observations, newest first")
    observations_total: int
    taken: TakenOut | None = Field(None, description="taken after its last sighting (until it is seen again)")


class RulesOut(BaseModel):
    rules: list[RuleOut]


class RuleAddOut(BaseModel):
    stored: bool = Field(..., description="whether the rule was stored (only with confirm=true)")
    reading: RulePreviewOut = Field(..., description="how the rule was read")
    rule: RuleOut | None = Field(None, description="the stored rule")


# -- errors -------------------------------------------------------------------------------------------------------


def _line(text: str) -> str:
    return " ".join(str(text).split())


def _one_line_errors(fn: Callable[..., Awaitable[T]]) -> Callable[..., Awaitable[T]]:
    """The endpoints' refusals (404, 409, 422) and memory's named errors become one-line tool errors."""

    @functools.wraps(fn)
    async def call(*args: Any, **kwargs: Any) -> T:
        try:
            return await fn(*args, **kwargs)
        except HTTPException as exc:
            raise ToolError(_line(str(exc.detail))) from None
        except EdgeAgentError as exc:
            raise ToolError(_line(str(exc))) from None

    return call


def _invalid(exc: ValidationError) -> str:
    """'question: String should have at least 1 character; limit: ...' (the values sent are not echoed)."""
    parts = []
    for e in exc.errors():
        where = ".".join(str(p) for p in e.get("loc", ())) or "arguments"
        parts.append(f"{where}: {str(e.get('msg', 'invalid')).removeprefix('Value error, ')}")
    return _line("; ".join(parts)) or "invalid arguments"


class _Server(MCPServer):
    """MCPServer whose refusal of a tool's arguments is one line, as every other tool error."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                raise ToolError(f"Error executing tool {name}: {_invalid(exc.__cause__)}") from exc.__cause__
            raise


# -- words ------------------------------------------------------------------------------------------------------


def _when(t: float) -> str:
    return format_utc(t, zone=True)


def _observation_line(o: ObservationOut) -> str:
    who = f"#{o.entity_id} " if o.entity_id is not None else ""
    return f"- {_when(o.t_start)}, camera {o.camera}: {who}{o.description} (observation {o.id})"


def _where(e: EntityOverview) -> str:
    at = place_phrase(e.last_zone or e.last_region)
    unnamed = f"place {e.last_place_id}" if e.last_place_id is not None and not e.last_zone else ""
    return ", ".join(p for p in (at, unnamed) if p)


def _result(text: str, out: BaseModel, more: Sequence[ContentBlock] = ()) -> CallToolResult:
    content: list[ContentBlock] = [TextContent(type="text", text=text), *more]
    return CallToolResult(content=content, structured_content=out.model_dump(mode="json"))


# -- reads (each runs on a worker thread with its store) ---------------------------------------------------------


def _matching(store: Store, thing: str | None, entity_id: int | None) -> list[EntityOverview]:
    """The entities ``thing`` names (a name the user gave, a kind, or a kind of thing) or the one ``entity_id`` is,
    most recently seen first."""
    overviews = store.entity_overviews()
    if entity_id is not None:
        found = [e for e in overviews if e.id == entity_id]
        if not found:
            raise NotFoundError(f"no entity {entity_id} in memory")
        return found
    assert thing is not None
    named = set(store.entities_named(thing))
    if named:
        return [e for e in overviews if e.id in named]
    word = singular(" ".join(thing.lower().split()))
    kind = {"people": "person", "thing": "object"}.get(word, word)
    if kind in KINDS:
        return [e for e in overviews if e.kind == kind]
    categories, _ = categories_in(thing.lower(), {e.category.lower() for e in overviews})
    found = [e for e in overviews if e.category.lower() in categories or e.category.lower() == word]
    if not found:
        raise NotFoundError(
            f"nothing in memory is named {thing!r} or is one: give a name, a kind (person, animal, object), a kind "
            "of thing (cup, dog, car) or an entity id"
        )
    return found


def _search(
    store: Store, text: str, camera: str | None, start: float | None, end: float | None, limit: int
) -> list[ObservationOut]:
    """Observations whose description holds any of the words (BM25 order), on ``camera`` and within the window."""
    words = re.findall(r"\w+", text.lower())
    if not words:
        raise ToolError("text: give at least one word to look for")
    query = " OR ".join(f'"{w}"' for w in dict.fromkeys(words))  # each word quoted: FTS syntax in the text is inert
    filtered = camera is not None or start is not None or end is not None
    found = [
        o
        for o in store.search_text(query, limit=SEARCH_SCAN if filtered else limit)
        if (camera is None or o.camera == camera)
        and (start is None or o.t_end >= start)
        and (end is None or o.t_start <= end)
    ]
    return observations_out(store, found[:limit])


def _window(store: Store, camera: str | None, start: float | None, end: float | None, limit: int) -> MomentsToolOut:
    moments = moments_endpoint._moments(store, camera, start, end, limit)
    observation_ids, _ = store.items_between(moments.start, moments.end, limit=limit)
    seen = [o for o in store.observations_by_id(observation_ids) if camera is None or o.camera == camera]
    return MomentsToolOut(
        start=moments.start,
        end=moments.end,
        cameras=moments.cameras,
        observations=observations_out(store, sorted(seen, key=lambda o: (o.t_start, o.id))),
    )


def _crops(store: Store, cited: Sequence[tuple[int, float]]) -> list[ContentBlock]:
    """The JPEG crops memory still keeps of these (observation id, start time), at most :data:`IMAGES`, each as image
    content after a line saying which observation it shows."""
    blocks: list[ContentBlock] = []
    for observation_id, t in cited:
        if len(blocks) >= 2 * IMAGES:
            break
        try:
            path = moments_endpoint._crop(store, observation_id)
        except HTTPException:  # no crop kept, or the file is gone (retention, a damaged medium)
            continue
        data = base64.b64encode(path.read_bytes()).decode("ascii")
        blocks.append(TextContent(type="text", text=f"crop of observation {observation_id} ({_when(t)}):"))
        blocks.append(ImageContent(type="image", data=data, mime_type="image/jpeg"))
    return blocks


def _add_rule(store: Store, api: ApiState, text: str, confirm: bool, cooldown_s: float | None) -> RuleAddOut:
    """The rule read as ``POST /api/rules/preview`` reads it; stored as ``POST /api/rules`` does, if ``confirm``."""
    said, predicate = rules_endpoint._read(store, api, RulePreviewRequest(text=text))
    reading = RulePreviewOut(
        text=said, predicate=predicate.model_dump(exclude_defaults=True), description=describe(predicate)
    )
    if not confirm:
        return RuleAddOut(stored=False, reading=reading)
    cooldown = cooldown_s if cooldown_s is not None else api.config.rules.cooldown_s
    rule = book.add_rule(store, said, predicate, cooldown_s=cooldown)
    return RuleAddOut(stored=True, reading=reading, rule=rules_endpoint._rule_out(rule))


def _rules(store: Store, removed: bool) -> list[RuleOut]:
    return [rules_endpoint._rule_out(r) for r in book.rules(store, removed=removed)]


# -- the tools ----------------------------------------------------------------------------------------------------


class MemoryTools:
    """The tools, over one API state (its memory, question worker and configuration)."""

    def __init__(self, api: ApiState) -> None:
        self.api = api

    @_one_line_errors
    async def ask(
        self,
        question: Annotated[
            str,
            Field(
                min_length=1,
                max_length=MAX_QUESTION,
                description="the question in plain words, e.g. 'where was the red cup last seen?'",
            ),
        ],
        as_of: Annotated[Time, Field(description="answer as of this time: nothing recorded later is used")] = None,
    ) -> Annotated[CallToolResult, AskOut]:
        """Ask memory a question in plain words (where, when, who, how many, what colour, with whom, what
        happened); the answer cites the observations it rests on."""
        if not question.strip():
            raise ToolError("question: the question is empty")
        api = self.api
        when = parse_time(as_of, "as_of")
        answer = await api.qa(ask_endpoint._answer, api, question.strip(), when, ())
        out = AskOut(text=answer.text, tool=answer.tool, evidence=answer.evidence)
        crops = await api.db(_crops, [(e.observation, e.t_start) for e in answer.evidence if e.crop_url])
        cited = [
            f"- observation {e.observation}"
            + (f" (entity #{e.entity})" if e.entity is not None else "")
            + f", {_when(e.t_start)}, camera {e.camera}"
            + (f": {e.description}" if e.description else "")
            for e in answer.evidence
        ]
        return _result("\n".join([answer.text, *(["evidence:", *cited] if cited else [])]), out, crops)

    @_one_line_errors
    async def last_seen(
        self,
        thing: Annotated[
            str | None,
            Field(
                min_length=1,
                max_length=200,
                description="a name the user gave (Rex), a kind (person, animal, object) or a kind of thing (cup, "
                "dog, van)",
            ),
        ] = None,
        entity_id: Annotated[
            int | None, Field(ge=1, le=MAX_ID, description="instead of `thing`: an entity's id")
        ] = None,
    ) -> Annotated[CallToolResult, LastSeenOut]:
        """When and where a thing was last seen: by its name, its kind, or its entity id (the latest few that fit)."""
        if (thing is None) == (entity_id is None):
            raise ToolError("give either `thing` (a name or a kind) or `entity_id`")
        found = await self.api.db(_matching, thing, entity_id)
        matches = [
            SeenOut(
                entity_id=e.id,
                name=e.name,
                kind=e.kind,
                category=e.category,
                looks=e.label,
                last_seen=e.last_seen,
                camera=e.last_camera,
                where=_where(e),
                observations=e.observations,
            )
            for e in found[:SHOWN]
        ]
        lines = [
            f"#{m.entity_id}{f' {m.name!r}' if m.name else ''} {m.looks}: last seen {_when(m.last_seen)}"
            + (f" on camera {m.camera}" if m.camera else "")
            + (f", {m.where}" if m.where else "")
            + (" (seen once)" if m.observations == 1 else f" (seen {m.observations} times)")
            for m in matches
        ]
        more = [f"... and {len(found) - SHOWN} more seen earlier"] if len(found) > SHOWN else []
        return _result("\n".join(lines + more), LastSeenOut(matches=matches, total=len(found)))

    @_one_line_errors
    async def search(
        self,
        text: Annotated[
            str, Field(min_length=1, max_length=500, description="words the descriptions should hold: 'red cup'")
        ],
        camera: Camera = None,
        start: Annotated[Time, Field(description="only sightings ending at or after this time")] = None,
        end: Annotated[Time, Field(description="only sightings starting at or before this time")] = None,
        limit: Annotated[int, Field(ge=1, le=200, description="at most this many observations")] = 20,
    ) -> Annotated[CallToolResult, SearchOut]:
        """Search the observations' descriptions for words (best match first), optionally on one camera and within
        a time window."""
        t0, t1 = parse_time(start, "start"), parse_time(end, "end")
        found = await self.api.db(_search, text, camera, t0, t1, limit)
        lines = [_observation_line(o) for o in found] or [f"no observation's description holds {text!r} there"]
        return _result("\n".join(lines), SearchOut(observations=found))

    @_one_line_errors
    async def entity(
        self,
        entity_id: EntityId,
        observations: Annotated[int, Field(ge=1, le=50, description="its latest observations to show")] = 5,
    ) -> Annotated[CallToolResult, EntityExcerptOut]:
        """An entity's biography: what it is, what memory learnt about it, its latest observations, and the crops
        (pictures) of those memory keeps."""

        def read(store: Store) -> tuple[EntityExcerptOut, list[ContentBlock]]:
            bio = entities_endpoint._biography(store, entity_id, observations)
            latest = bio.observations[::-1]
            excerpt = EntityExcerptOut(
                entity=bio.entity,
                facts=bio.facts,
                observations=latest,
                observations_total=bio.observations_total,
                taken=bio.taken,
            )
            return excerpt, _crops(store, [(o.id, o.t_start) for o in latest if o.crop_url])

        bio, images = await self.api.db(read)
        e = bio.entity
        head = f"#{e.id}{f' {e.name!r}' if e.name else ''} {e.category} ({e.kind}), seen {e.observations} times"
        lines = [head + f" from {_when(e.first_seen)} to {_when(e.last_seen)}"]
        lines += [f"learnt: {f.text}" for f in bio.facts]
        if bio.taken is not None:
            lines.append(f"taken {_when(bio.taken.t)} on camera {bio.taken.camera}")
        lines += ["latest observations:", *(_observation_line(o) for o in bio.observations)]
        return _result("\n".join(lines), bio, images)

    @_one_line_errors
    async def moments(
        self,
        start: Annotated[Time, Field(description="from this time (default: a day before `end`)")] = None,
        end: Annotated[Time, Field(description="until this time (default: the end of the last clip)")] = None,
        camera: Camera = None,
        limit: Annotated[int, Field(ge=1, le=500, description="at most this many clips per camera")] = 50,
    ) -> Annotated[CallToolResult, MomentsToolOut]:
        """What happened in a time window: per camera the clips' captions and coarser episodes, and the sightings."""
        t0, t1 = parse_time(start, "start"), parse_time(end, "end")
        out = await self.api.db(_window, camera, t0, t1, limit)
        lines = [f"from {_when(out.start)} to {_when(out.end)}:"]
        for c in out.cameras:
            lines += [f"camera {c.camera}:"]
            lines += [f"- summary: {e.text}" for e in c.episodes]  # the text says its camera and span
            lines += [f"- {_when(clip.t_start)}: {clip.caption}" for clip in c.clips if clip.caption]
        lines += ["sightings:", *(_observation_line(o) for o in out.observations)] if out.observations else []
        if len(lines) == 1:
            lines.append("nothing was recorded then")
        return _result("\n".join(lines), out)

    @_one_line_errors
    async def rules_list(
        self, include_removed: Annotated[bool, Field(description="also the rules that were removed")] = False
    ) -> Annotated[CallToolResult, RulesOut]:
        """The alert rules in force: each with its id, its words and how it was read."""
        found = await self.api.db(_rules, include_removed)
        lines = [
            f"#{r.id} {r.text!r}: {r.description}" + (" (removed)" if r.removed_at is not None else "") for r in found
        ]
        return _result("\n".join(lines) or "no rules", RulesOut(rules=found))

    @_one_line_errors
    async def rules_add(
        self,
        text: Annotated[
            str,
            Field(
                min_length=1,
                max_length=500,
                description="the rule in words, e.g. 'tell me when a person appears in the kitchen'",
            ),
        ],
        confirm: Annotated[
            bool,
            Field(
                description="store it: leave false first, show the user how the rule reads, and call again with "
                "true once they agree"
            ),
        ] = False,
        cooldown_s: Annotated[
            float | None,
            Field(ge=0, le=31_536_000, description="quiet seconds after an alert (default: the configuration's)"),
        ] = None,
    ) -> Annotated[CallToolResult, RuleAddOut]:
        """Read an alert rule and show how it reads; it is stored only when called again with confirm=true."""
        out = await self.api.db(_add_rule, self.api, text, confirm, cooldown_s)
        said = f"rule: {out.reading.text}\nreads as: {out.reading.description}"
        if out.rule is None:
            said += "\nNot stored yet: confirm with the user, then call rules_add again with confirm=true."
        else:
            said += f"\nStored as rule #{out.rule.id}: it applies to what the cameras record from now on."
        return _result(said, out)

    def register(self, server: MCPServer) -> None:
        reads = ToolAnnotations(read_only_hint=True, open_world_hint=False)
        for tool in (self.ask, self.last_seen, self.search, self.entity, self.moments, self.rules_list):
            server.add_tool(tool, annotations=reads)
        server.add_tool(
            self.rules_add,
            annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False),
        )


def create_server(api: ApiState) -> MCPServer:
    """The MCP server over the API state's memory (the same for stdio and streamable HTTP)."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    server = _Server(
        "edge-agent",
        title="edge-agent camera memory",
        version=__version__,
        instructions="The memory of the cameras of this home: ask it in plain words (ask), find when and where a "
        "thing was last seen (last_seen), search what was seen (search), read a thing's biography with its "
        "pictures (entity), see what happened in a time window (moments), and list or add alert rules. Times are "
        "UTC. rules_add stores a rule only with confirm=true, after the user agreed to how it reads.",
    )
    root.handlers[:] = handlers  # the SDK's constructor calls logging.basicConfig: the application owns logging
    root.setLevel(level)
    MemoryTools(api).register(server)
    return server


def _session_manager(server: MCPServer) -> StreamableHTTPSessionManager:
    """A new streamable HTTP session manager for ``server`` (one runs once: each start of the app needs its own).
    The SDK's Host and Origin checks are left to the app's middleware, which knows the bind and the token."""
    server.streamable_http_app(
        streamable_http_path=PATH, transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False)
    )
    return server.session_manager


def mount(app: FastAPI, api: ApiState) -> FastAPI:
    """Answers MCP over streamable HTTP at :data:`PATH` of the API ``app``, behind its middleware (the token, or
    the loopback Host check, and the body limit), and runs the MCP session manager inside the app's lifespan; the
    app."""
    server = create_server(api)
    endpoint = StreamableHTTPASGIApp(_session_manager(server))
    app.add_route(PATH, endpoint, include_in_schema=False)  # type: ignore[arg-type]  # an ASGI app as endpoint: Starlette runs it as one; its stubs name only request handlers
    inner: Callable[[Any], AbstractAsyncContextManager[Any]] = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(started: Any) -> AsyncIterator[Any]:
        endpoint.session_manager = _session_manager(server)  # a fresh one each start (a test client may restart)
        async with inner(started) as state, endpoint.session_manager.run():  # sessions end before the API state
            yield state

    app.router.lifespan_context = lifespan
    return app
