"""The application: JSON endpoints under ``/api/`` over the memory, the dashboard's page at ``/``.

Errors are one shape, ``{"error": "..."}``: 401 without the token (when there is one), 400 for a Host
header not naming this machine (when there is none), 404 for an unknown id, 405 with ``Allow`` for a
method a path does not take, 409 for a correction that cannot be applied, 413 for a body over the limit,
415 for a spoken question that is not audio, 422 for invalid input (each bad field named with what was
wrong; a JSON body that is not UTF-8 too), 503 when a model an endpoint needs is not installed, 500
``internal error`` for anything else (the traceback goes to the log, never to the client). Each route's
OpenAPI description lists the statuses it can answer. No CORS: the dashboard is served from the same origin.

OpenAI's chat completions (``POST /v1/chat/completions``, ``GET /v1/models``; edge_agent.api.chat_completions) take
the same token, statuses and messages, in OpenAI's error shape, which its clients parse: ``{"error": {"message":
"...", "type": "invalid_request_error", ...}}``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from edge_agent import __version__
from edge_agent.api import ask, chat_completions, entities, mcp_tools, moments, places, rules, status
from edge_agent.api.models import errors
from edge_agent.api.security import BearerAuth, BodyLimit, ErrorBoundary, LoopbackHost, RedactToken
from edge_agent.api.state import ApiState, ServiceUnavailable
from edge_agent.memory import DatabaseError, NotFoundError
from edge_agent.memory.corrections import CorrectionError
from edge_agent.rules.parse import RuleParseError
from edge_agent.runtime import Runtime

if TYPE_CHECKING:
    from edge_agent.perception.text import TextEmbedder

__all__ = ["STATIC_DIR", "create_app"]

log = logging.getLogger("edge_agent.api")
STATIC_DIR = Path(__file__).with_name("static")

_NOT_BUILT = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>edge-agent</title></head>
<body style="font-family: sans-serif; max-width: 40em; margin: 3em auto">
<h1>edge-agent</h1>
<p>The dashboard is not built into this installation (no <code>edge_agent/api/static/index.html</code>).</p>
<p>The HTTP API is running: its description is at <a href="/api/docs">/api/docs</a>
(<a href="/api/openapi.json">/api/openapi.json</a>).</p>
</body></html>
"""


class _DashboardFiles(StaticFiles):
    """The dashboard's files, when it is built (404 until then)."""

    async def check_config(self) -> None:
        if self.directory is None or not Path(self.directory).is_dir():
            raise StarletteHTTPException(404, "the dashboard is not built")
        await super().check_config()


def _error(status_code: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status_code, headers=headers)


def _validation_message(exc: RequestValidationError) -> str:
    """'body.question: String should have at least 1 character; query.limit: ...' (the values sent are not echoed)."""
    parts = []
    for e in exc.errors():
        where = ".".join(str(p) for p in e.get("loc", ())) or "request"
        parts.append(f"{where}: {str(e.get('msg', 'invalid')).removeprefix('Value error, ')}")
    return "; ".join(parts)[:2000] or "invalid request"


_METHODS = ("DELETE", "GET", "HEAD", "PATCH", "POST", "PUT")


def _allowed(app: FastAPI, request: Request) -> str:
    """Every method the path takes, across the routes that share it (the router's 405 names only the first route's)."""
    return ", ".join(
        method
        for method in _METHODS
        if any(route.matches({**request.scope, "method": method})[0] == Match.FULL for route in app.router.routes)
    )


def _with_bearer(schema: dict[str, Any]) -> dict[str, Any]:
    """States in the schema that every operation needs the token (this app was made with one)."""
    schema.setdefault("components", {})["securitySchemes"] = {
        "bearerAuth": {"type": "http", "scheme": "bearer", "description": "the token in <home>/api-token"}
    }
    schema["security"] = [{"bearerAuth": []}]
    return schema


async def _keep_warm(state: ApiState, every_s: float) -> None:
    """Warms retrieval at start, then every ``every_s`` seconds (0: at start only): a memory ``watch`` writes
    to is embedded, indexed and its graph saved between questions, not during one."""
    while True:
        try:
            await state.qa(state.warm)
        except Exception:  # a damaged or missing memory is reported by the requests that need it
            log.debug("retrieval not warmed", exc_info=True)
        if every_s <= 0:
            return
        await asyncio.sleep(every_s)


def _handle_errors(app: FastAPI) -> None:
    """Each kind of error as its status, in the one shape ``{"error": "..."}``."""

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if exc.status_code == 400 and isinstance(exc.__cause__, UnicodeDecodeError):
            # FastAPI answers 400 to a JSON body that is not UTF-8; it is invalid input like any other: 422.
            return _error(422, "body: not JSON (a JSON request body must be UTF-8)")
        if exc.status_code == 405:  # RFC 9110: a 405 names the methods the resource takes
            allowed = _allowed(app, request)
            return _error(
                405, f"{request.method} is not taken by {request.url.path} (it takes {allowed})", {"Allow": allowed}
            )
        return _error(exc.status_code, str(exc.detail), getattr(exc, "headers", None))

    @app.exception_handler(RequestValidationError)
    async def invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        return _error(422, _validation_message(exc))

    @app.exception_handler(NotFoundError)
    async def not_found(_: Request, exc: NotFoundError) -> JSONResponse:
        return _error(404, str(exc.args[0]) if exc.args else "not found")

    @app.exception_handler(CorrectionError)
    async def refused(_: Request, exc: CorrectionError) -> JSONResponse:
        return _error(409, str(exc.args[0]) if exc.args else "the correction cannot be applied")

    @app.exception_handler(RuleParseError)
    async def unreadable(_: Request, exc: RuleParseError) -> JSONResponse:
        return _error(422, str(exc))

    @app.exception_handler(ServiceUnavailable)
    async def unavailable(_: Request, exc: ServiceUnavailable) -> JSONResponse:
        return _error(503, str(exc))

    @app.exception_handler(DatabaseError)
    async def memory_unavailable(_: Request, exc: DatabaseError) -> JSONResponse:
        # A damaged memory, a full disk or a read-only medium: the message names the file and the cure.
        return _error(503, str(exc))


def create_app(runtime: Runtime, *, token: str | None, embedder: TextEmbedder | None = None) -> FastAPI:
    """The API over the runtime's memory, models and configuration. ``token``: when given, every ``/api/``
    request needs ``Authorization: Bearer <token>`` (the alert stream also takes ``?token=``); when None (a
    loopback bind), requests must name this machine in their Host header. ``embedder``: a text embedder to
    use instead of loading all-MiniLM-L6-v2 on the first question (tests share theirs)."""
    state = ApiState(runtime, token=token, embedder=embedder)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        access = logging.getLogger("uvicorn.access")
        redact = RedactToken()
        access.addFilter(redact)  # the stream's ?token= stays out of the access log
        warming = asyncio.create_task(_keep_warm(state, runtime.config.api.warm_every_s))
        try:
            yield
        finally:
            warming.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await warming
            access.removeFilter(redact)
            state.close()

    app = FastAPI(
        title="edge-agent",
        version=__version__,
        lifespan=lifespan,
        description=(
            "The on-device camera memory: ask it, browse what it holds, correct it, set rules and follow alerts."
        ),
        openapi_url="/api/openapi.json",
        docs_url="/api/docs",
        redoc_url=None,
        swagger_ui_oauth2_redirect_url=None,
    )
    app.state.api = state

    _handle_errors(app)

    # What any endpoint may answer, whatever it does: the token refused, or (without one) a Host not naming this
    # machine; and 503 when the memory is damaged, or cannot take a change (a full disk, a read-only medium).
    anywhere = errors(401, 503) if token is not None else errors(400, 503)
    for module in (ask, entities, moments, places, rules, status):
        app.include_router(module.router, prefix="/api", responses=anywhere)
    v1_anywhere = chat_completions.openai_errors(401 if token is not None else 400, 503)
    app.include_router(chat_completions.router, responses=v1_anywhere)  # /v1/: OpenAI's paths, OpenAI's error shape
    if token is not None:
        generate = app.openapi
        app.openapi = lambda: _with_bearer(generate())  # type: ignore[method-assign]

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    async def index() -> Any:
        page = STATIC_DIR / "index.html"
        if page.is_file():
            return FileResponse(page, media_type="text/html", headers={"Cache-Control": "no-cache"})
        return HTMLResponse(_NOT_BUILT)

    app.mount("/static", _DashboardFiles(directory=STATIC_DIR, check_dir=False), name="static")

    # Outermost last: errors -> host check or token -> body size -> the endpoints.
    app.add_middleware(BodyLimit)
    if token is not None:
        app.add_middleware(BearerAuth, token=token)
    else:
        app.add_middleware(LoopbackHost)
    app.add_middleware(ErrorBoundary)
    app.add_middleware(chat_completions.OpenAIErrors)  # /v1/ errors in OpenAI's shape, whichever layer made them
    return mcp_tools.mount(app, state)  # MCP over streamable HTTP at /mcp, behind the same middleware
