"""A conversation with memory (``chat``): each line is read by the same reader as a question, and a follow-up
keeps what the conversation is about and replaces only what it says. "and where was it?" keeps the subject and
asks where; "what about the dog?" asks the last question again about the dog; "who else was there?" keeps the
place. "quit", "exit" and "bye" leave; "ok thanks" is answered in kind."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from edge_agent.language.grammar import Event, Intent, Order, Place, Query, Side, Subject, Time
from edge_agent.language.lexicon import tokenize
from edge_agent.language.reader import TOLD_APART, is_courtesy, is_leaving

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


def _fragment_of(previous: Query, current: Query) -> Query:
    """ "And the cat?", "and the bedroom?", "and black?": the previous question, of what the fragment names (a colour
    alone is the previous subject's in that colour)."""
    kept, said = previous.subject, current.subject
    if current.place.named and kept.entity_id is not None and previous.method == "follow-up":
        kept = replace(kept, entity_id=None)  # "when was she there?" then "and the bedroom?": a person there
    if not said.named and (said.colours or said.pattern):  # "how many wore blue?" then "and black?"
        kept = replace(kept, colours=said.colours or kept.colours, pattern=said.pattern or kept.pattern)
    return replace(
        previous,
        subject=said if said.named else kept,
        place=current.place if current.place.named else previous.place,
        time=current.time if current.time.named else previous.time,
        unknown=current.unknown,
        unknown_places=current.unknown_places,
        grounded=current.grounded,
    )


def follow_up(
    previous: Query | None, current: Query, about: About = (None, None, ""), mentioned: Sequence[About] = ()
) -> Query:
    """``current`` read in the light of the question before it: a subject, place or time it refers back to (or does
    not name) is the previous one's; a fragment ("and the cat?") asks what the previous question asked. ``about``: what
    the previous answer was about (:func:`talked_about`): "she", "it" or "that one" is that entity, "there" the camera
    it was seen on when the previous question named none. ``mentioned``: the things the answers so far cited, the
    latest last: "that person", or "the person" pointed at by "they", is the latest person among them."""
    if previous is None or "among" in current.refers and previous.subject.named:  # "how many of those were people?"
        return current if previous is None else _among(previous, current)
    if current.subject.generic and not current.subject.said and current.intent in _OF_ONE_THING:
        current = replace(current, subject=Subject())  # "what colour?": nothing named, of what was talked about
    pointed = "subject" in current.refers or (current.subject.generic and current.subject.said in ("one", "ones"))
    kinds = current.subject.kinds
    if pointed and kinds and current.subject.entity_id is None:  # "that person": the last person talked about
        about = next((m for m in reversed(mentioned) if m[0] is not None and m[2] in kinds), (None, None, ""))
    entity, camera, category = about
    if "near" in current.refers and entity is not None and current.subject.entity_id is None:  # "anything by her?"
        return _with_it(current, entity, category)
    if pointed and entity is not None and current.subject.entity_id is None:
        # (an answer that listed one thing names no kind: the one the question asked of, where it asked of one kind)
        of_it = len(previous.subject.kinds) == 1 and previous.intent is not Intent.COMPANY and previous.other is None
        kinds = (category,) if category else previous.subject.kinds if of_it else ()
        subject = Subject(kinds=kinds, entity_id=entity, said=category or (kinds[0] if kinds else "thing"))
        if "else" in current.refers and camera is not None:  # "where else was he seen?": not where he was
            current = replace(current, place=Place(not_cameras=(camera,)))
        if current.method == "fragment":  # "what about the other one?": the last question, of it
            return replace(previous, subject=subject, place=Place(), unknown=(), method="follow-up")
        return replace(current, subject=subject, unknown=(), method="follow-up")  # that one thing: its own scope
    those = [m for m in reversed(mentioned) if m[0] is not None][:2]
    if "those" in current.refers and len(those) == 2:  # "which of those was first?": the last two talked about
        return _of_two(current, Intent.ORDER, those)
    if kinds or current.subject.entity_id is not None:  # "and the person, when did they come?": a person
        pointed = False
    if "place" in current.refers and not current.place.named and not previous.place.named and camera is not None:
        current = replace(current, place=Place(cameras=(camera,)))  # "who else was there?": where it was seen
    merged = current
    if current.method == "fragment":  # the previous question, about what this one names
        merged = _fragment_of(previous, current)
    elif (
        (pointed or not current.subject.named)
        and previous.subject.named
        and current.subject.said not in current.unknown
    ):
        # (a thing memory has no word for is asked about, not the last one: "is there a fireplace in there?")
        elliptic = not current.subject.named  # "how many were wearing blue?": of those, there and then
        said = current.subject  # "how many of them were in blue?": them, in blue
        subject = replace(
            previous.subject,
            colours=said.colours or previous.subject.colours,
            pattern=said.pattern or previous.subject.pattern,
            motion=said.motion or previous.subject.motion,
            many=previous.subject.many or said.said in _PLURAL_PRONOUNS,  # "what were they wearing?": all of them
        )
        merged = replace(merged, subject=subject, unknown=())
        if (pointed or elliptic) and not current.place.named:  # "she", of "anyone in the kitchen?": the one there
            merged = replace(merged, place=previous.place)
        if (pointed or elliptic) and not current.time.named:  # "them", of "how many people after 9:01?": those then
            merged = replace(merged, time=previous.time)
    merged = _scope_referred(merged, current, previous)
    if previous.time.named and {"before", "after"} & set(current.refers):  # "and before that?", "who ... before that?"
        t = previous.time
        shifted = Time(end=t.start) if "before" in current.refers else Time(start=t.end)
        if shifted.named:
            merged = replace(merged, time=replace(shifted, said=("before" if shifted.end else "after",)))
    if previous.time.named and "day before" in current.refers:  # "and the day before?": that window, a day earlier
        t = previous.time
        day = (t.start - 86400 if t.start is not None else None, t.end - 86400 if t.end is not None else None)
        moments = tuple(m - 86400 for m in t.moments)
        merged = replace(merged, time=replace(t, start=day[0], end=day[1], moments=moments, said=("the day before",)))
    if merged is current:
        return current
    return replace(merged, method="follow-up")


def _among(previous: Query, current: Query) -> Query:
    """ "How many of those were people?", "which of them were cars?": of what the previous question was about, there
    and then, those of the kind now named (with its colours, if it says any)."""
    before, said = previous.subject, current.subject
    kinds = tuple(k for k in said.kinds if not before.kinds or k in before.kinds) or said.kinds
    subject = replace(
        before,
        kinds=kinds,
        said=said.said,
        generic=False,
        colours=said.colours or before.colours,
        pattern=said.pattern or before.pattern,
        many=True,
    )
    place = current.place if current.place.named else previous.place
    time = current.time if current.time.named else previous.time
    return replace(current, subject=subject, place=place, time=time, method="follow-up")


def _anyone_there(current: Query) -> bool:
    """Whether a question names no place, no time and nothing in particular ("who left first?", "what showed up after
    the person?", "anything else?"): in a conversation, it asks of the place the conversation is about."""
    s = current.subject
    anyone = s.generic or (s.kinds == ("person",) and s.said in ("person", "anyone", "someone", "anybody", "somebody"))
    return anyone and s.entity_id is None and not s.described and not current.place.named and not current.time.named


def _with_it(current: Query, entity: int, category: str) -> Query:
    """ "Was anything by her?", "who was on it?": what (or who) was with the one talked about."""
    subject = Subject(entity_id=entity, said=category or "thing")
    asks = "person" if current.subject.kinds == ("person",) else current.asks  # "who was on it?": people
    return replace(current, intent=Intent.COMPANY, subject=subject, asks=asks, unknown=(), method="follow-up")


def _scope_referred(merged: Query, current: Query, previous: Query) -> Query:
    """The previous question's place and time where ``current`` refers to them and names none ("who else was there?",
    "how many people was that?"), and its place where ``current`` names nothing in particular ("who left first?")."""
    if "place" in current.refers and not current.place.named and previous.place.named:
        merged = replace(merged, place=previous.place)
    there_then = "place" in current.refers and previous.place.named  # "and what things were there?": there, then
    if ("time" in current.refers or there_then) and not current.time.named and previous.time.named:
        merged = replace(merged, time=previous.time)
    if _anyone_there(current) and previous.place.named and merged.place == current.place:
        merged = replace(merged, place=previous.place)  # "who left first?", asked of the living room talked about
    return merged


class Conversation:
    """Questions asked one after another of one controller (deterministic or LLM), as a person talks."""

    def __init__(self, controller: Controller) -> None:
        self.controller = controller
        self.previous: Query | None = None
        self.about: dict[str, About] = {}  #: the last person, the last thing and the last of either talked about
        self.mentioned: list[About] = []  #: the things the answers cited, the latest last
        self.last: About = (None, None, "")  #: what the last answer was about (no entity: several or none)
        self.window: Time | None = None  #: the last time the user named: "before that" and "after" move from it
        self.place = Place()  #: the last place the user named: what happened "before that" happened there
        self.kind: dict[int, str] = {}  #: the kind of each thing cited (person, animal, object)
        self.asked: list[Query] = []  #: the questions asked so far, as read: "which one came first?" of the last two
        self.cited: tuple[int, ...] = ()  #: the things the last answer cited: "who else?" leaves them out

    @staticmethod
    def leaves(line: str) -> bool:
        return is_leaving(line)

    @staticmethod
    def thanks(line: str) -> bool:
        """Whether the line only thanks or acknowledges ("ok thanks"): answered in kind, the conversation kept."""
        return is_courtesy(line)

    def ask(self, line: str, *, as_of: float | None = None) -> Answer:
        """The answer to one line, read as a follow-up of the conversation so far."""
        current = _unbounded(self._of_the_recording(self.controller.query(line, as_of), line, as_of), as_of)
        about = self._referent(current, line)
        told = current.subject.said in TOLD_APART and not current.place.named and not current.subject.described
        if told and "subject" not in current.refers:  # (not "and the baby in the living room?": the room says which)
            # "when was the baby last seen?", of a conversation about one: memory cannot tell a baby from anyone
            person = self.about.get("person")
            if person is not None and person[0] is not None:
                about, current = person, replace(current, refers=(*current.refers, "subject"), subject=Subject())
        previous = self.previous
        shift = {"before", "after", "day before"} & set(current.refers)
        if (
            shift - {"day before"} and previous is not None and self.window is not None
        ):  # "and after?" of "before that?"
            previous = replace(previous, time=self.window)
        then = "time" in current.refers and previous is not None and not previous.time.named
        if then and previous is not None and self.window is not None:  # "who else was around then?": around it
            w = self.window
            previous = replace(previous, time=Time(start=(w.start or 0.0) - _AROUND_S, end=(w.end or 0.0) + _AROUND_S))
        if "other" in current.refers:  # "what about the other one?": the one named with it, not it
            about = next(
                (m for m in reversed(self.mentioned) if m[0] not in (None, self.about.get("last", about)[0])), about
            )
        if (
            shift - {"day before"}
            and previous is not None
            and previous.intent in _NOTHING_NEXT
            and current.method == "fragment"
        ):
            # "what colour was the bowl?" then "and after that?": what happened after it there, not its colour then
            # (after it: what came there after it; before it: what was seen there before)
            there = previous.place if previous.place.named else self.place
            event = Event.APPEARS if "after" in shift else Event.SEEN
            previous = replace(previous, intent=Intent.LIST, subject=Subject(generic=True), place=there, asks="",
                               alternatives=(), alternative_of="", yes_no=False, negated=False, event=event,
                               order=None, other=None, rank="")  # fmt: skip
        current = self._after_pronoun(current, line)
        if "others" in current.refers and self.cited:  # "who else?": not those the last answer named
            current = replace(current, subject=replace(current.subject, not_ids=self.cited))
        two = _of_the_two(current, line, self.asked) or _same_two(current, line, self.mentioned)
        if two is None and _which_first(current, line):  # "which came first?" after a list: the last two it cited
            current = replace(current, refers=(*current.refers, "those"))
        query = two or follow_up(previous, current, about, self.mentioned)
        if _anyone_there(current) and _anyone_there(query) and self.place.named and query.intent is not Intent.ORDER:
            query = replace(query, place=self.place)  # "what showed up after them?", of the kitchen talked about
        self.asked = [*self.asked, query][-_ASKED:]
        if current.place.named:
            self.place = current.place
        answer = self.controller.ask(line, as_of=as_of, query=query)
        self.previous = query
        if not shift:  # what "before that" and "after that" move from: the time asked, else the answer's moment
            self.window = (
                query.time if _narrow(query.time) else _moment(answer) or (query.time if query.time.named else None)
            )
        self.last = talked_about(answer)
        cited = tuple(dict.fromkeys(int(str(e["entity"])) for e in answer.evidence if e.get("entity") is not None))
        self.cited = tuple(dict.fromkeys((*current.subject.not_ids, *cited)))
        self._remember(self.last)
        self._mention(answer)
        return answer

    def _of_the_recording(self, current: Query, line: str, as_of: float | None) -> Query:
        """ "And in the last 10 seconds?" after "... in the first 10 seconds of the street video?": of that recording
        too (not the last 10 seconds of all memory)."""
        previous, words = self.previous, tokenize(line)
        if previous is None or not previous.time.of_recording or current.time.of_recording or "of" in words:
            return current
        if not current.time.said or not {"first", "last", "final", "opening"} & set(words):
            return current
        return self.controller.query(f"{line.strip().rstrip('?.!')} of the recording?", as_of)

    def _after_pronoun(self, current: Query, line: str) -> Query:
        """ "And what showed up after them?", "who came before her?": the other side is the one talked about."""
        words = [w for w in tokenize(line) if w not in ("?", ".", "!")]
        said = words[-1] if len(words) > 1 and words[-2] in ("after", "before") else ""
        if (
            not said
            or current.other is not None
            or current.time.named
            or current.order not in (Order.AFTER, Order.BEFORE)
        ):
            return current
        kind = "person" if said in _PERSON_PRONOUNS | _PLURAL_PRONOUNS else "thing" if said in _THING_PRONOUNS else ""
        who = self.about.get(kind) if kind else None
        if who is None or who[0] is None:
            return current
        return replace(current, other=Side(subject=Subject(entity_id=who[0], said=who[2] or "thing")))

    def _referent(self, current: Query, line: str) -> About:
        """What the question's pronoun (or "one") refers to: "she" the last person, "it" the last thing, "that" what
        the last answer was about, "they" a person or the things the last answer was about."""
        word = current.subject.said
        if "near" in current.refers:  # "was anything next to her?": the pronoun after "next to" is who is meant
            word = next((w for w in tokenize(line) if w in _PERSON_PRONOUNS | _THING_PRONOUNS | _PLURAL_PRONOUNS), word)
        nothing: About = (None, None, "")
        if word in _PERSON_PRONOUNS:
            return self.about.get("person", nothing)
        if word in ("that", "this"):  # "what time was that?": what the last answer was about
            return self.about.get("last", nothing)
        if word in _THING_PRONOUNS and not (word == "one" and current.order is not None):
            return self.about.get("thing", nothing)
        if word in _PLURAL_PRONOUNS and self.last[0] is not None and self.kind.get(self.last[0]) != "person":
            return self.about.get("person", self.last)  # "how long did they stay?": a person, not the phone
        if word in _PLURAL_PRONOUNS or word == "one":  # "them", "the last one": what the last answer was about
            return self.last
        return self.about.get("last", nothing)

    def _mention(self, answer: Answer) -> None:
        """Keeps the things the answer cited (the latest last, each once): what "that person" may point at; the one
        thing (or person) an answer cites is what "it" (or "she") refers to next ("what was he holding?" / "what
        colour is it?")."""
        cited = [e for e in answer.evidence if e.get("entity") is not None]
        by_kind: dict[str, set[int]] = {}
        for e in cited[-_MENTIONED:]:
            entity = int(str(e["entity"]))
            try:
                found = self.controller.store.entity(entity)
            except LookupError:  # forgotten meanwhile
                continue
            self.kind[entity] = found.kind
            self.mentioned = [m for m in self.mentioned if m[0] != entity][-_MENTIONED:]
            self.mentioned.append((entity, str(e.get("camera") or "") or None, found.category))
            by_kind.setdefault("person" if found.kind == "person" else "thing", set()).add(entity)
        for which, ids in by_kind.items():
            if len(ids) == 1 and self.last[0] not in ids:  # the one other thing it cited: "it" next
                self.about[which] = next(m for m in reversed(self.mentioned) if m[0] in ids)

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


def _narrow(time: Time) -> bool:
    """Whether a time asked is narrow enough for "after that" to move from (a day or a part of one is not: "who was
    in the kitchen today?" then "and after that?" is after the person)."""
    if not time.named:
        return False
    if time.start is None or time.end is None:
        return True
    return time.end - time.start <= _NARROW_S


_NARROW_S = 3 * 3600.0


def _unbounded(current: Query, as_of: float | None) -> Query:
    """The question without the as-of's bound on its time, where it names no time itself: the conversation reads the
    time a question names ("and before that?" of a chat answered as of a moment); the controller bounds every
    question by the as-of again."""
    t = current.time
    if as_of is None or t.said or t.start is not None or t.moments or t.of_recording or t.end != as_of:
        return current
    return replace(current, time=Time())


def _same_two(current: Query, line: str, mentioned: Sequence[About]) -> Query | None:
    """ "Is it the same person?", "are they the same one?" after two things were talked about: whether memory holds
    the last two (of the kind said) as one."""
    words = tokenize(line)
    if current.intent is Intent.SAME or "same" not in words or "as" in words or not current.yes_no:
        return None
    kinds = current.subject.kinds
    last = [m for m in reversed(mentioned) if m[0] is not None and (not kinds or m[2] in kinds)][:2]
    if len(last) < 2:
        return None
    return replace(_of_two(current, Intent.SAME, last), unknown=(), refers=())


def _of_two(current: Query, intent: Intent, last_two: Sequence[About]) -> Query:
    """``current`` asked as ``intent`` of the last two things talked about (the latest first in ``last_two``)."""
    (b, _, b_said), (a, _, a_said) = last_two
    return replace(
        current,
        intent=intent,
        subject=Subject(entity_id=a, said=f"{a_said} #{a}"),
        other=Side(subject=Subject(entity_id=b, said=f"{b_said} #{b}")),
        place=Place(),
        method="follow-up",
    )


def _which_first(current: Query, line: str) -> bool:
    """ "Which one came first?", "which left last?": an order asked of things the conversation talked about."""
    if current.intent is not Intent.WHEN or current.order not in (Order.FIRST, Order.LAST) or "those" in current.refers:
        return False  # "which of those ...": the things the answers cited (follow_up)
    said = current.subject
    return not (said.kinds or said.entity_id is not None) and said.said in _OF_TWO and "which" in tokenize(line)


def _of_the_two(current: Query, line: str, asked: Sequence[Query]) -> Query | None:
    """ "Which one came first?", "which of the two left last?" asked after questions about two things (or one thing
    in two places): the order of the last two, each as it was asked, over all of memory (a window asked of one of
    them does not bound when either first came). After a question about anything ("anything else there?"), None:
    the things its answer cited are the two."""
    longer = current.intent is Intent.DURATION and current.rank in ("most", "fewest") and current.other is None
    if not (_which_first(current, line) or longer) or (asked and asked[-1].subject.generic):
        return None
    named = [q for q in asked if (q.subject.kinds or q.subject.entity_id is not None) and q.intent is not Intent.ORDER]
    two: list[Query] = []  # the last two things asked about, one question each ("what colour was it?" of the truck
    for q in reversed(named):  # is the truck "and the truck?" asked about: one thing)
        if not two or _thing_of(q) != _thing_of(two[0]):
            two.insert(0, q)
        if len(two) == 2:
            break
    if len(two) < 2 or (two[0].subject, two[0].place) == (two[1].subject, two[1].place):
        return None
    a, b = two
    return replace(
        current,
        intent=Intent.DURATION if longer else Intent.ORDER,
        rank="",
        subject=a.subject,
        place=a.place,
        time=Time(),
        other=Side(subject=b.subject, place=b.place if b.place.named else Place(anywhere=True)),
        refers=(),
        method="follow-up",
    )


def _thing_of(q: Query) -> tuple[object, ...]:
    """What a question was about, as far as telling two apart goes: its kind (or the entity's word), colours, place."""
    kind = q.subject.kinds[0] if q.subject.kinds else q.subject.said
    return (kind, q.subject.colours, q.place.cameras)


#: What "which ... first?" says of the two things talked about: "which was first?", "which one", "which of the two".
_OF_TWO = frozenset({"", "one", "ones", "two", "both", "them", "those", "these", "thing", "things"})
_ASKED = 6  #: how many questions the conversation keeps


def _moment(answer: Answer) -> Time | None:
    """The span the answer's evidence covers: "that" of "and after that?" when the question named no time."""
    times = [(e.get("t_start"), e.get("t_end")) for e in answer.evidence]
    spans = [(float(a), float(b)) for a, b in times if isinstance(a, (int, float)) and isinstance(b, (int, float))]
    if not spans:
        return None
    return Time(start=min(a for a, _ in spans), end=max(b for _, b in spans))


#: What no "after that" follows on: asked of a thing's look, company, count, stay or time, or of who was there, "and
#: after that?" asks what happened next.
_NOTHING_NEXT = frozenset(
    {Intent.ATTRIBUTE, Intent.COMPANY, Intent.COUNT, Intent.DURATION, Intent.HABIT, Intent.WHEN, Intent.LIST}
)

#: How far around the moment an answer was about "then" reaches, in seconds.
_AROUND_S = 60.0

#: What is asked of one thing, so that a question naming none ("what colour?", "how long?") is of the last one.
_OF_ONE_THING = frozenset({Intent.ATTRIBUTE, Intent.WHERE, Intent.WHEN, Intent.DURATION, Intent.WHICH_CAMERA})

#: How many of the things cited the conversation keeps.
_MENTIONED = 20

#: Pronouns that refer to a person, and to a thing: "what was she holding?", "what colour is it?"
_PERSON_PRONOUNS = frozenset({"she", "he", "her", "him", "hers", "his"})
_THING_PRONOUNS = frozenset({"it", "its", "that", "this", "one"})
_PLURAL_PRONOUNS = frozenset({"they", "them", "their", "those", "these"})
