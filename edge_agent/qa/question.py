"""How long a question may be: at most ``[qa] max_question_chars`` characters. Reading a question and searching
memory for it take time in its length (a 17,000-word question took 50 s, a 1 MB chat line 11 minutes), so every
way a question arrives (``ask``, ``chat``, the API, a spoken question's transcript) is bounded by this one check,
which the controllers make before reading a word."""

from __future__ import annotations

from edge_agent.config.qa import MAX_QUESTION_CHARS
from edge_agent.errors import InvalidInputError

__all__ = ["MAX_QUESTION_CHARS", "QuestionTooLong", "bounded"]


class QuestionTooLong(InvalidInputError):
    """A question longer than ``[qa] max_question_chars``: nothing of it was read."""


def bounded(question: str, limit: int = MAX_QUESTION_CHARS) -> str:
    """``question`` when it is at most ``limit`` characters long; else :class:`QuestionTooLong` naming the limit and
    the setting."""
    if len(question) > limit:
        raise QuestionTooLong(
            f"the question is {len(question):,} characters long; at most {limit:,} are taken ([qa] max_question_chars)"
        )
    return question
