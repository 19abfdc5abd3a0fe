"""Every named error of the product derives from EdgeAgentError (the command line catches that one class and
prints its message) and keeps its standard base, so callers that catch ValueError or LookupError still do."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import edge_agent
from edge_agent.errors import EdgeAgentError


def _named_errors() -> dict[str, type]:
    found = {}
    for info in pkgutil.walk_packages(edge_agent.__path__, "edge_agent."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            public = not name.startswith("_")  # a private one is control flow inside a module (a rollback)
            if public and inspect.isclass(value) and issubclass(value, Exception) and value.__module__ == info.name:
                found[f"{info.name}.{name}"] = value
    return found


def test_every_named_error_is_an_edge_agent_error():
    errors = _named_errors()
    assert len(errors) > 15
    stray = sorted(name for name, cls in errors.items() if not issubclass(cls, EdgeAgentError))
    assert not stray, f"errors that the command line would show as a traceback: {stray}"
    # ...and each keeps a standard base besides
    bare = sorted(
        n
        for n, c in errors.items()
        if c is not EdgeAgentError and not issubclass(c, (ValueError, RuntimeError, LookupError, OSError))
    )
    assert not bare, f"errors without a standard base: {bare}"
