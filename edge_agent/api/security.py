"""What keeps the API to its owner: the bind address decides whether a bearer token is needed, the token
lives in ``<home>/api-token`` (mode 0600), request bodies are bounded, and an unexpected error reaches
the client as ``{"error": "internal error"}`` only (the traceback goes to the server's log).

The three middlewares are plain ASGI (no ``BaseHTTPMiddleware``: it would buffer the alert stream and
hide client disconnects)."""

from __future__ import annotations

import hmac
import ipaddress
import json
import logging
import os
import re
import secrets
import stat
from collections.abc import Awaitable, Callable, MutableMapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from edge_agent.errors import EdgeAgentError

__all__ = [
    "AUDIO_BODY_LIMIT",
    "JSON_BODY_LIMIT",
    "STREAM_PATH",
    "TOKEN_FILE",
    "BearerAuth",
    "BodyLimit",
    "ErrorBoundary",
    "LoopbackHost",
    "RedactToken",
    "TokenError",
    "is_loopback",
    "load_or_create_token",
]

log = logging.getLogger("edge_agent.api")

TOKEN_FILE = "api-token"
JSON_BODY_LIMIT = 64 * 1024  #: bytes of a JSON request body
AUDIO_BODY_LIMIT = 25 * 1024 * 1024  #: bytes of a spoken question (a browser's WebM / Ogg, or WAV)
AUDIO_PATH = "/api/ask/audio"
STREAM_PATH = "/api/alerts/stream"  #: the one endpoint that also takes ``?token=`` (EventSource cannot set headers)

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class TokenError(EdgeAgentError, RuntimeError):
    """The token file cannot be used safely; the message says why and what to do."""


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` keeps the server to this machine: a loopback address (127.0.0.0/8, ::1)
    or ``localhost``. Anything else (0.0.0.0, ::, a LAN address, another name) is reachable from
    elsewhere and needs the token."""
    host = host.strip().strip("[]")
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def load_or_create_token(home: Path) -> tuple[str, bool]:
    """(the API token, whether it was just created). Created with ``secrets.token_urlsafe(32)`` at
    ``<home>/api-token``, opened with mode 0600 from the start (``os.open``, never a symlink). An existing
    file that is not a regular file of this user with mode 0600 (group or others may read it) is refused
    with :class:`TokenError`, not repaired: a token others could read may already be known to them."""
    home.mkdir(parents=True, exist_ok=True)
    path = home / TOKEN_FILE
    nofollow = getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | nofollow, 0o600)
    except FileExistsError:
        pass
    else:
        token = secrets.token_urlsafe(32)
        with os.fdopen(fd, "w") as f:
            f.write(token + "\n")
        return token, True
    try:
        fd = os.open(path, os.O_RDONLY | nofollow)
    except OSError as exc:
        raise TokenError(
            f"cannot read the API token {path}: {exc.strerror} (a symlink is refused); delete it to make a new one"
        ) from None
    with os.fdopen(fd) as f:
        info = os.fstat(f.fileno())
        if not stat.S_ISREG(info.st_mode) or (hasattr(os, "getuid") and info.st_uid != os.getuid()):
            raise TokenError(f"{path} is not a regular file owned by this user; delete it to make a new token")
        mode = stat.S_IMODE(info.st_mode)
        if mode & 0o077:
            raise TokenError(
                f"{path} has mode {mode:04o}: other users may have read the token. Not using it: delete the file "
                "(a new token is made on the next start) or, if no one else could read it, chmod 600 it"
            )
        token = f.read().strip()
    if len(token) < 32 or not token.isascii() or any(c.isspace() for c in token):
        raise TokenError(
            f"{path} does not hold a usable token (32 or more printable ASCII characters); delete it to make a new one"
        )
    return token, False


async def _send_json(
    send: Send, status: int, body: dict[str, Any], headers: Sequence[tuple[bytes, bytes]] = ()
) -> None:
    data = json.dumps(body).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode()), *headers],
        }
    )
    await send({"type": "http.response.body", "body": data})


def _open_path(path: str) -> bool:
    """The dashboard page and its files stay reachable without the token (the page asks for it)."""
    return path == "/" or path.startswith("/static/") or path == "/favicon.ico"


class BearerAuth:
    """With a token, every request but the dashboard's page and static files needs ``Authorization:
    Bearer <token>``, whoever the peer (loopback included); the alert stream also accepts ``?token=``.
    Compared in constant time. Without a token (a loopback bind) everything passes."""

    def __init__(self, app: ASGIApp, token: str | None) -> None:
        self.app = app
        self.token = token.encode() if token is not None else None

    def _authorized(self, scope: Scope) -> bool:
        assert self.token is not None
        given = b""
        for name, value in scope.get("headers", ()):
            if name.lower() == b"authorization":
                scheme, _, credentials = value.partition(b" ")
                if scheme.lower() == b"bearer":
                    given = credentials.strip()
                break
        if not given and scope.get("path") == STREAM_PATH:
            query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
            given = (query.get("token") or [""])[0].encode("latin-1")
        return bool(given) and hmac.compare_digest(given, self.token)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or self.token is None or _open_path(scope.get("path", "")):
            await self.app(scope, receive, send)
            return
        if self._authorized(scope):
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":  # no websocket routes; refuse before any handshake
            await send({"type": "websocket.close", "code": 1008})
            return
        await _send_json(
            send,
            401,
            {
                "error": "missing or wrong API token: send the header 'Authorization: Bearer <token>' "
                "(the token is in the api-token file of the memory folder)"
            },
            [(b"www-authenticate", b'Bearer realm="edge-agent"')],
        )


class BodyLimit:
    """Refuses request bodies over the limit with 413: 64 KiB for JSON, 25 MiB for a spoken question.
    A Content-Length over the limit is refused before anything is read; a body without one (chunked) is
    read and counted up to the limit before the endpoint runs, then handed on."""

    def __init__(self, app: ASGIApp, *, json_limit: int = JSON_BODY_LIMIT, audio_limit: int = AUDIO_BODY_LIMIT) -> None:
        self.app = app
        self.json_limit = json_limit
        self.audio_limit = audio_limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.audio_limit if scope.get("path") == AUDIO_PATH else self.json_limit
        for name, value in scope.get("headers", ()):
            if name.lower() == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    await _send_json(send, 400, {"error": "Content-Length is not a number"})
                    return
                if declared > limit:
                    await _too_large(send, limit)
                    return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body = message.get("body", b"")
            size += len(body)
            if size > limit:
                await _too_large(send, limit)
                return
            chunks.append(body)
            if not message.get("more_body", False):
                break
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": b"".join(chunks), "more_body": False}
            return await receive()  # after the body: the disconnect, when it comes

        await self.app(scope, replay, send)


async def _too_large(send: Send, limit: int) -> None:
    size = f"{limit / 2**20:g} MiB" if limit >= 2**20 else f"{limit / 1024:g} KiB"
    await _send_json(send, 413, {"error": f"request body too large: at most {size} here"}, [(b"connection", b"close")])


def _host_name(value: bytes) -> str:
    """The name in a Host header, without the port ('[::1]:8765' -> '::1')."""
    text = value.decode("latin-1").strip()
    if text.startswith("["):
        return text[1 : text.find("]")] if "]" in text else ""
    return text.rsplit(":", 1)[0] if text.count(":") == 1 else text


class LoopbackHost:
    """Without a token (a loopback bind) a request must name this machine in its Host header
    (localhost, 127.0.0.1, [::1]): a web page whose name was rebound to 127.0.0.1 (DNS rebinding)
    is then refused instead of reading memory from the user's browser."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            host = next((v for k, v in scope.get("headers", ()) if k.lower() == b"host"), b"")
            if not is_loopback(_host_name(host)):
                if scope["type"] == "websocket":
                    await send({"type": "websocket.close", "code": 1008})
                else:
                    await _send_json(
                        send,
                        400,
                        {
                            "error": "the Host header must name this machine (localhost, 127.0.0.1 or [::1]): "
                            "the server is bound to loopback"
                        },
                    )
                return
        await self.app(scope, receive, send)


_HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
]


class RedactToken(logging.Filter):
    """Keeps the stream's ``?token=`` out of the access log (uvicorn logs each request's path and query)."""

    _PATTERN = re.compile(r"([?&]token=)[^&\s]*")

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple) and any(isinstance(a, str) and "token=" in a for a in record.args):
            record.args = tuple(self._PATTERN.sub(r"\1<redacted>", a) if isinstance(a, str) else a for a in record.args)
        elif isinstance(record.msg, str) and "token=" in record.msg:
            record.msg = self._PATTERN.sub(r"\1<redacted>", record.msg)
        return True


class ErrorBoundary:
    """The outermost layer: an exception nothing handled is logged here with its traceback, and the
    client gets 500 ``{"error": "internal error"}``, with no exception text. Every response also gets
    nosniff, no framing and no referrer headers."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def watch(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                headers = list(message.get("headers", ()))
                present = {k.lower() for k, _ in headers}
                message = {**message, "headers": headers + [h for h in _HEADERS if h[0] not in present]}
            await send(message)

        try:
            await self.app(scope, receive, watch)
        except Exception:
            log.exception("%s %s failed", scope.get("method"), scope.get("path"))
            if started:
                raise  # too late for a clean answer: the server closes the connection
            await _send_json(send, 500, {"error": "internal error"}, _HEADERS)
