"""The configuration's common ground: strict pydantic models (unknown keys refused, values frozen, every number
finite and every whole number within SQLite's signed 64-bit integers) and one error whose message names the key,
the value and what was expected."""

from __future__ import annotations

import typing
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from edge_agent.errors import EdgeAgentError

__all__ = ["FINITE", "INT64_MAX", "ConfigError", "StrictModel", "describe_validation_error", "union_types"]

INT64_MAX = (1 << 63) - 1  #: SQLite's (and numpy's int64) largest integer
FINITE = ConfigDict(allow_inf_nan=False)  #: inf and nan refused: of the configuration's pydantic dataclasses too


class ConfigError(EdgeAgentError, ValueError):
    """The configuration file cannot be used; the message names the key and what was expected."""


class StrictModel(BaseModel):
    """Every area of the configuration: unknown keys are an error, values cannot change once read, a number is
    finite (inf and nan refused) and a whole number fits a signed 64-bit integer, wherever it is (in a list, a
    table): a field's own range (``Field(ge=..., le=...)``) says the rest."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True, allow_inf_nan=False)

    @field_validator("*", mode="after")
    @classmethod
    def _fits_int64(cls, value: Any) -> Any:
        if _beyond_int64(value):
            raise ValueError(f"whole numbers must lie within -{INT64_MAX + 1}..{INT64_MAX}")
        return value


def _beyond_int64(value: Any) -> bool:
    if isinstance(value, int) and not isinstance(value, bool):
        return not -INT64_MAX - 1 <= value <= INT64_MAX
    if isinstance(value, (list, tuple)):
        return any(_beyond_int64(v) for v in value)
    if isinstance(value, dict):
        return any(_beyond_int64(v) for v in value.values())
    return False


def describe_validation_error(error: ValidationError) -> str:
    """One line naming each bad key, what was wrong and the value given."""
    lines = []
    for e in error.errors():
        key = ".".join(str(p) for p in e["loc"]) or "(top level)"
        given = e.get("input")
        shown = "" if isinstance(given, dict) else f" (got {given!r})"
        lines.append(f"{key}: {e['msg'].removeprefix('Value error, ')}{shown}")
    return "; ".join(lines)


def union_types(union: Any) -> tuple[str, ...]:
    """The ``type`` values of a discriminated union (``Annotated[Union[...], Field(discriminator="type")]``), in the
    union's order: what a backend registry must build, and what a command line may offer."""
    members = typing.get_args(typing.get_args(union)[0])
    return tuple(value for member in members for value in typing.get_args(member.model_fields["type"].annotation))
