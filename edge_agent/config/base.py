"""The configuration's common ground: strict pydantic models (unknown keys refused, values frozen) and one
error whose message names the key, the value and what was expected."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, ValidationError

from edge_agent.errors import EdgeAgentError

__all__ = ["ConfigError", "StrictModel", "describe_validation_error"]


class ConfigError(EdgeAgentError, ValueError):
    """The configuration file cannot be used; the message names the key and what was expected."""


class StrictModel(BaseModel):
    """Every area of the configuration: unknown keys are an error, values cannot change once read."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


def describe_validation_error(error: ValidationError) -> str:
    """One line naming each bad key, what was wrong and the value given."""
    lines = []
    for e in error.errors():
        key = ".".join(str(p) for p in e["loc"]) or "(top level)"
        given = e.get("input")
        shown = "" if isinstance(given, dict) else f" (got {given!r})"
        lines.append(f"{key}: {e['msg']}{shown}")
    return "; ".join(lines)
