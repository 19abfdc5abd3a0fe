"""A conversation with memory (``chat``): each line is read by the same reader as a question, and a follow-up
keeps what the conversation is about and replaces only what it says. "and where was it?" keeps the subject and
asks where; "what about the dog?" asks the last question again about the dog; "who else was there?" keeps the
place. "quit", "exit" and "bye" leave."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from edge_agent.language.grammar import Place, Query, Subject
from edge_agent.language.reader import is_leaving

if TYPE_CHECKING:  # the controllers import this module's package
    from edge_agent.qa.deterministic import Answer, Controller

__all__ = ["Conversation", "follow_up", "talked_about"]


#: What an answer was about: the one entity (None when several or none), the camera it was seen on, its category.
About = tuple[int | None, str | None, str]


def talked_about(answer: Answer) -> About:
    """The one entity an answer is about (its finding's entity, else the one entity its evidence cites) and the camera
    the answer saw it on: what "she", "it" and "there" refer to next."""
    finding = getattr(answer, "finding", None) or {}
    said = finding.get("entity") if isinstance(finding, dict) else None
    entity = said.get("entity") if isinstance(said, dict) else None
    cited = [e for e in getattr(answer, "evidence", None) or [] if isinstance(e, dict) and e.get("entity") is not None]
    ids = {e["entity"] for e in cited}
    if entity is None and len(ids) == 1:
        entity = next(iter(ids))
    cameras = [str(e["camera"]) for e in cited if e.get("entity") == entity and e.get("camera")]
    category = str(said.get("category") or "") if isinstance(said, dict) and said.get("entity") == entity else ""
    return (int(entity) if entity is not None else None), (cameras[-1] if cameras else None), category


def follow_up(previous: Query | None, current: Query, about: About = (None, None, "")) -> Query:
    """``current`` read in the light of the question before it: a subject, place or time it refers back to (or does
    not name) is the previous one's; a fragment ("and the cat?") asks what the previous question asked. ``about``: what
    the previous answer was about (:func:`talked_about`): "she", "it" or "that one" is that entity, "there" the camera
    it was seen on when the previous question named none."""
    if previous is None:
        return current
    pointed = "subject" in current.refers or (current.subject.generic and current.subject.said in ("one", "ones"))
    entity, camera, category = about
    if pointed and entity is not None and not current.subject.kinds and current.subject.entity_id is None:
        subject = Subject(entity_id=entity, said=category or "thing")
        return replace(current, subject=subject, unknown=(), method="follow-up")  # that one thing: its own scope
    if "place" in current.refers and not current.place.named and not previous.place.named and camera is not None:
        current = replace(current, place=Place(cameras=(camera,)))  # "who else was there?": where it was seen
    merged = current
    fragment = current.method == "fragment"
    if fragment:  # the previous question, about what this one names
        kept = previous.subject
        if current.place.named and kept.entity_id is not None and previous.method == "follow-up":
            kept = replace(kept, entity_id=None)  # "when was she there?" then "and the bedroom?": a person there
        merged = replace(
            previous,
            subject=current.subject if current.subject.named else kept,
            place=current.place if current.place.named else previous.place,
            time=current.time if current.time.named else previous.time,
            unknown=current.unknown,
            unknown_places=current.unknown_places,
            grounded=current.grounded,
        )
    elif ("subject" in current.refers or not current.subject.named) and previous.subject.named:
        merged = replace(merged, subject=previous.subject, unknown=())
        if pointed and not current.place.named:  # "she", of "anyone in the kitchen?": the one in the kitchen
            merged = replace(merged, place=previous.place)
    if "place" in current.refers and not current.place.named and previous.place.named:
        merged = replace(merged, place=previous.place)
    if merged is current:
        return current
    return replace(merged, method="follow-up")


class Conversation:
    """Questions asked one after another of one controller (deterministic or LLM), as a person talks."""

    def __init__(self, controller: Controller) -> None:
        self.controller = controller
        self.previous: Query | None = None
        self.about: dict[str, About] = {}  #: the last person, the last thing and the last of either talked about

    @staticmethod
    def leaves(line: str) -> bool:
        return is_leaving(line)

    def ask(self, line: str, *, as_of: float | None = None) -> Answer:
        """The answer to one line, read as a follow-up of the conversation so far."""
        current = self.controller.query(line, as_of)
        word = current.subject.said
        which = "person" if word in _PERSON_PRONOUNS else "thing" if word in _THING_PRONOUNS else "last"
        query = follow_up(self.previous, current, self.about.get(which, (None, None, "")))
        answer = self.controller.ask(line, as_of=as_of, query=query)
        self.previous = query
        self._remember(talked_about(answer))
        return answer

    def _remember(self, about: About) -> None:
        entity = about[0]
        if entity is None:
            return
        store = getattr(self.controller, "store", None)
        try:
            found = store.entity(entity) if store is not None else None
        except LookupError:  # forgotten meanwhile
            return
        if found is not None:
            about = (entity, about[1], found.category)
        self.about["person" if found is not None and found.kind == "person" else "thing"] = about
        self.about["last"] = about


#: Pronouns that refer to a person, and to a thing: "what was she holding?", "what colour is it?"
_PERSON_PRONOUNS = frozenset({"she", "he", "her", "him", "hers", "his"})
_THING_PRONOUNS = frozenset({"it", "its", "that", "this", "one"})
