"""``edge-agent serve``: the HTTP API and the dashboard under uvicorn, over the runtime's memory."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from edge_agent.cli.common import fail, port, runtime

__all__ = ["register"]


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    serve = commands.add_parser(
        "serve",
        parents=[common],
        help="a local HTTP API over the memory (ask, entities, moments, rules, alerts) and the dashboard",
    )
    serve.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to bind (default 127.0.0.1: this machine only); any other address (0.0.0.0, a LAN "
        "address) requires the API token, made on first use in <home>/api-token",
    )
    serve.add_argument("--port", type=port, default=8765, help="TCP port (8765)")
    serve.add_argument(
        "--require-token",
        action="store_true",
        help="require the API token on a loopback bind too (other users of this machine can reach loopback); "
        "also [api] require_token = true in the configuration",
    )
    serve.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Bound to loopback the API needs no token unless --require-token (or [api] require_token); bound to anything
    else, or so required, every /api/ request needs the token kept in <home>/api-token (made, 0600, printed once)."""
    rt = runtime(args)
    try:
        import uvicorn

        from edge_agent.api import create_app
        from edge_agent.api.security import TOKEN_FILE, is_loopback, load_or_create_token
    except ImportError as exc:
        return fail(f"serve needs FastAPI and uvicorn ({exc}): pip install edge-agent")
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
    app = create_app(rt, token=token)
    uvicorn.run(
        app,
        host=args.host,
        port=args.port,
        log_level="info",
        ws="none",
        server_header=False,
        timeout_graceful_shutdown=5,
    )
    return 0
