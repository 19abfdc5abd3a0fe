"""``edge-agent serve``: the HTTP API and the dashboard under uvicorn, over the runtime's memory."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from edge_agent.cli.common import examples, port, runtime
from edge_agent.errors import EdgeAgentError

__all__ = ["add_options", "build_app", "register", "server_options"]


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    serve = commands.add_parser(
        "serve",
        parents=[common],
        help="a local HTTP API over the memory (ask, entities, moments, rules, alerts) and the dashboard",
        description="Serves the memory over HTTP until Ctrl-C: the dashboard at /, the API under /api/ (OpenAPI at "
        "/api/openapi.json). On this machine only by default; any other address needs the API token.",
        epilog=examples(
            "# http://127.0.0.1:8765/ on this machine",
            "edge-agent serve",
            "# on the LAN: a token is made on first use (<home>/api-token, mode 0600)",
            "edge-agent --home demo-home serve --host 0.0.0.0 --port 8080",
        ),
    )
    add_options(serve)
    serve.set_defaults(handler=run)


def add_options(parser: argparse.ArgumentParser, *, default: int = 8765, condition: str = "") -> None:
    """--host, --port and --require-token (serve; hub and frigate with ``condition`` "with --serve: ")."""
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help=f"{condition}address to bind (default 127.0.0.1: this machine only); any other address (0.0.0.0, a LAN "
        "address) requires the API token, made on first use in <home>/api-token",
    )
    parser.add_argument("--port", type=port, default=default, help=f"{condition}TCP port ({default})")
    parser.add_argument(
        "--require-token",
        action="store_true",
        help=f"{condition}require the API token on a loopback bind too (other users of this machine can reach "
        "loopback); also [api] require_token = true in the configuration",
    )


def run(args: argparse.Namespace) -> int:
    rt = runtime(args)
    app = build_app(rt, args)
    import uvicorn

    uvicorn.run(app, **server_options(args))
    return 0


def server_options(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "host": args.host,
        "port": args.port,
        "log_level": "info",
        "ws": "none",
        "server_header": False,
        "timeout_graceful_shutdown": 5,
    }


def build_app(rt: Any, args: argparse.Namespace) -> Any:
    """The API app over the runtime's memory. Bound to loopback the API
    needs no token unless --require-token (or [api] require_token); bound to anything else, or so required, every
    /api/ request needs the token kept in <home>/api-token (made, 0600, printed once)."""
    try:
        import uvicorn  # noqa: F401

        from edge_agent.api import create_app
        from edge_agent.api.security import TOKEN_FILE, is_loopback, load_or_create_token
    except ImportError as exc:
        raise EdgeAgentError(f"serve needs FastAPI and uvicorn ({exc}): pip install edge-agent") from None
    with rt.store(mode="read"):  # fails now, not at the first request, if memory cannot be opened
        pass
    token = None
    loopback = is_loopback(args.host)
    if not loopback or args.require_token or rt.config.api.require_token:
        token, created = load_or_create_token(rt.home)
        why = "the API token is required" if loopback else f"{args.host} can be reached from other machines"
        if created:
            where = (f"[{args.host}]" if ":" in args.host else args.host) if loopback else "<this machine>"
            print(
                f"edge-agent: {why}, so every /api/ request needs this API token "
                f"(kept in {rt.home / TOKEN_FILE}, mode 0600; it is not printed again):\n\n    {token}\n\n"
                "Send it as the header 'Authorization: Bearer <token>' (the dashboard asks for it once), e.g.\n"
                f"    curl -H 'Authorization: Bearer {token}' http://{where}:{args.port}/api/status",
                file=sys.stderr,
            )
        else:
            print(
                f"edge-agent: {why}: every /api/ request needs the API token in "
                f"{rt.home / TOKEN_FILE} (header 'Authorization: Bearer <token>')",
                file=sys.stderr,
            )
    return create_app(rt, token=token)
