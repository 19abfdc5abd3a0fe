"""Reading what a description says: the subject ("striped red cup", "person in blue plain clothes") and the
place ("by the sink", "at the top left") of the describer's sentences ("a striped red cup by the sink,
staying in place; with a person"). Episode summaries, the controller's tools and the evaluation's text-only
baseline read them the same way."""

from __future__ import annotations

import re

__all__ = ["place_of", "subject_of"]

_SUBJECT = re.compile(r"^(?:an? )?(.*?)(?: (?:by|at|in|on|near) the |,|;|$)")
_PLACE = re.compile(r" ((?:by|at|in|on|near) the [a-z ]+?|in the centre)(?:,|;|$)")


def subject_of(description: str | None) -> str | None:
    """What the description is about, without its article; None when it names nothing."""
    match = _SUBJECT.match(description or "")
    return match.group(1) if match and match.group(1) else None


def place_of(description: str | None) -> str | None:
    """Where the description puts the thing, e.g. "by the sink"; None when it does not say."""
    match = _PLACE.search(description or "")
    return match.group(1) if match else None
