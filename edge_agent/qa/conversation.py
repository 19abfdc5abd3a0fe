"""A conversation with memory (``chat``): each line is read by the same reader as a question, and a follow-up
keeps what the conversation is about and replaces only what it says. "and where was it?" keeps the subject and
asks where; "what about the dog?" asks the last question again about the dog; "who else was there?" keeps the
place. "quit", "exit" and "bye" leave."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from edge_agent.language.grammar import Query
from edge_agent.language.reader import is_leaving

__all__ = ["Conversation", "follow_up"]


def follow_up(previous: Query | None, current: Query) -> Query:
    """``current`` read in the light of the question before it: a subject, place or time it refers back to (or does
    not name) is the previous one's; a fragment ("and the cat?") asks what the previous question asked."""
    if previous is None:
        return current
    merged = current
    fragment = current.method == "fragment"
    if fragment:  # the previous question, about what this one names
        merged = replace(
            previous,
            subject=current.subject if current.subject.named else previous.subject,
            place=current.place if current.place.named else previous.place,
            time=current.time if current.time.named else previous.time,
            unknown=current.unknown,
            unknown_places=current.unknown_places,
            grounded=current.grounded,
        )
    elif ("subject" in current.refers or not current.subject.named) and previous.subject.named:
        merged = replace(merged, subject=previous.subject, unknown=())
    if "place" in current.refers and not current.place.named and previous.place.named:
        merged = replace(merged, place=previous.place)
    if merged is current:
        return current
    return replace(merged, method="follow-up")


class Conversation:
    """Questions asked one after another of one controller (deterministic or LLM), as a person talks."""

    def __init__(self, controller: Any) -> None:
        self.controller = controller
        self.previous: Query | None = None

    @staticmethod
    def leaves(line: str) -> bool:
        return is_leaving(line)

    def ask(self, line: str, *, as_of: float | None = None) -> Any:
        """The answer to one line, read as a follow-up of the conversation so far."""
        query = follow_up(self.previous, self.controller.query(line, as_of))
        answer = self.controller.ask(line, as_of=as_of, query=query)
        self.previous = query
        return answer
