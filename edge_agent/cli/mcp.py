"""``edge-agent mcp``: the memory as Model Context Protocol tools over stdio, for an MCP client that starts it
(the tools: :mod:`edge_agent.api.mcp_tools`; ``serve`` answers the same at ``/mcp``)."""

from __future__ import annotations

import argparse
from typing import Any

from edge_agent.cli.common import examples, runtime
from edge_agent.errors import EdgeAgentError

__all__ = ["register"]


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    mcp = commands.add_parser(
        "mcp",
        parents=[common],
        help="the memory as MCP tools over stdio, for an assistant (Claude Desktop, an IDE, an agent)",
        description="Serves the memory as Model Context Protocol tools on stdin and stdout until the client closes "
        "them: ask, last_seen, search, entity (with its crops as images), moments, rules_list and rules_add (which "
        "stores a rule only when called with confirm=true). An MCP client starts this command itself; nothing but "
        "the protocol goes to stdout, and the log goes to stderr. `edge-agent serve` answers the same tools over "
        "streamable HTTP at /mcp.",
        epilog=examples(
            "# what an MCP client runs (Claude Desktop: claude_desktop_config.json)",
            "edge-agent mcp --home ~/camera-memory",
            "#   {",
            '#     "mcpServers": {',
            '#       "edge-agent": {"command": "edge-agent", "args": ["mcp", "--home", "/home/me/camera-memory"]}',
            "#     }",
            "#   }",
            "# the same from a checkout, with the models folder",
            "edge-agent mcp --home demo-home --models ~/models",
        ),
    )
    mcp.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    rt = runtime(args)
    try:
        import anyio

        from edge_agent.api.mcp_tools import create_server
        from edge_agent.api.state import ApiState
    except ImportError as exc:
        raise EdgeAgentError(f"mcp needs the MCP SDK ({exc}): pip install edge-agent") from None
    with rt.store(mode="read"):  # fails now, in one line, not at the client's first call, if memory cannot be opened
        pass
    api = ApiState(rt, token=None)
    try:
        anyio.run(create_server(api).run_stdio_async)
    except KeyboardInterrupt:
        pass
    finally:
        api.close()
    return 0
