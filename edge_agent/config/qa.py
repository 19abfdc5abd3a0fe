"""Questions to memory: how long one may be, on every way a question arrives (``ask``, ``chat``, the API, a
spoken question's transcript)."""

from __future__ import annotations

from pydantic import Field

from edge_agent.config.base import StrictModel

__all__ = ["MAX_QUESTION_CHARS", "QUESTION_CHARS_CEILING", "QaConfig"]

MAX_QUESTION_CHARS = 500  #: the default bound of a question, in characters
QUESTION_CHARS_CEILING = 20_000  #: the most ``max_question_chars`` may be set to (the API's body bound, 64 KiB)


class QaConfig(StrictModel):
    max_question_chars: int = Field(
        MAX_QUESTION_CHARS,
        ge=1,
        le=QUESTION_CHARS_CEILING,
        description="the longest question taken, in characters; a longer one is refused, saying so (reading a "
        "question and searching memory for it take time in its length: a 1 MB line held a CPU for minutes)",
    )
