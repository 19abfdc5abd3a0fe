"""The base of the product's named errors. Each says in one line what was wrong and, where there is one, the
cure; the command line catches this one class once and prints the message. Any other exception is a bug and
keeps its traceback. Each named error also keeps its standard base (ValueError, RuntimeError, LookupError)."""

from __future__ import annotations

__all__ = ["EdgeAgentError", "InvalidInputError"]


class EdgeAgentError(Exception):
    """A failure the user can act on, described in one line."""


class InvalidInputError(EdgeAgentError, ValueError):
    """A value the user gave (an option, a time, a file) cannot be used; the message names it."""
