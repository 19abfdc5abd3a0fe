"""The words the reader knows: memory's own vocabulary (the kinds of thing it holds and their synonyms, the
cameras, named zones and places, the names the user gave) and the closed classes of English a question is
built from (question words, auxiliaries, prepositions, determiners, negation, order and counting words).
:meth:`Lexicon.tag` turns a question's tokens into tagged spans, the longest phrase first ("cell phone"
over "phone", a camera "living-room" over "room"), so that the reader works on what words mean, not on how
a sentence is spelt."""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from edge_agent.language.english import english
from edge_agent.language.times import UNITS
from edge_agent.perception.vocabulary import COLOUR_NAMES, category_words, plural

__all__ = ["Lexicon", "Span", "Tag", "outdoor_cameras", "tokenize"]

# -- closed classes --------------------------------------------------------------------------------------

WH = frozenset({"who", "whom", "whose", "what", "which", "where", "when", "why", "how"})
AUX = frozenset(
    {"is", "are", "was", "were", "am", "be", "been", "being", "do", "does", "did", "has", "have", "had", "can",
     "could", "will", "would", "should", "may", "might", "must"}
)  # fmt: skip
DETERMINERS = frozenset(
    {"the", "a", "an", "any", "some", "my", "our", "your", "his", "her", "their", "its", "this", "that", "these",
     "those", "every", "each", "all", "another", "other", "both", "either", "no", "much", "many", "several", "one"}
)  # fmt: skip
#: Words that put what follows at a place (the place slot), with the relation they say.
PLACE_PREPOSITIONS: dict[tuple[str, ...], str] = {
    ("in",): "in",
    ("inside",): "in",
    ("into",): "in",
    ("within",): "in",
    ("at",): "at",
    ("on",): "on",
    ("onto",): "on",
    ("upon",): "on",
    ("on", "top", "of"): "on",
    ("over",): "on",
    ("under",): "near",
    ("underneath",): "near",
    ("below",): "near",
    ("beneath",): "near",
    ("behind",): "near",
    ("by",): "near",
    ("near",): "near",
    ("beside",): "near",
    ("besides",): "near",
    ("next", "to"): "near",
    ("close", "to"): "near",
    ("in", "front", "of"): "near",
    ("across", "from"): "near",
    ("opposite",): "near",
    ("around",): "near",
    ("from",): "in",
    ("through",): "in",
    ("across",): "in",
    ("past",): "near",
    ("along",): "near",
    ("outside",): "near",
    ("out", "of"): "in",
}
#: Words that say what follows was with the subject (company): with it, carried, held, walked ...
WITH_WORDS = frozenset(
    {"with", "alongside", "carrying", "carried", "carries", "carry", "holding", "held", "holds", "hold", "wearing",
     "wore", "wears", "pushing", "pushed", "pulling", "pulled", "walking", "riding", "rode", "having",
     "accompanied", "accompanying", "beside", "using", "uses"}
)  # fmt: skip
NEGATIONS = frozenset({"not", "never", "no", "none", "nobody", "nothing", "neither", "nor", "without", "nowhere"})
#: Subjects that are themselves negative: the proposition asked is that none was there.
NEGATIVE_SUBJECTS = frozenset({"nobody", "nothing", "none", "noone"})
EXCLUDING = (("other", "than"), ("except",), ("besides",), ("apart", "from"), ("excluding",), ("but",), ("not",))
#: Nouns that name no kind: any thing (or any person).
GENERIC = {
    "thing": (),
    "things": (),
    "object": (),
    "objects": (),
    "item": (),
    "items": (),
    "entity": (),
    "entities": (),
    "stuff": (),
    "anything": (),
    "something": (),
    "everything": (),
    "nothing": (),
    "one": (),
    "ones": (),
    "kind": (),
    "kinds": (),
    "everyone": ("person",),
    "everybody": ("person",),
    "nobody": ("person",),
    "noone": ("person",),
    "who": ("person",),
}
PRONOUNS = frozenset({"it", "its", "they", "them", "he", "she", "him", "her", "this", "that", "those", "these"})
FIRST_WORDS = frozenset({"first", "earliest", "firstly", "initially", "originally"})
LAST_WORDS = frozenset({"last", "latest", "lastly", "finally", "final", "recently", "recent", "newest"})
BEFORE_WORDS = frozenset({"before", "earlier", "sooner", "prior", "ahead"})
AFTER_WORDS = frozenset({"after", "later", "afterwards", "afterward", "then", "next", "following"})
MORE_WORDS = frozenset({"more", "most", "greater", "larger", "bigger", "longer"})
FEWER_WORDS = frozenset({"fewer", "fewest", "less", "least", "smaller", "shorter"})
#: Verbs by what they say happened (any form).
EVENT_VERBS: dict[str, str] = {
    **dict.fromkeys(
        ("appear", "appears", "appeared", "appearing", "arrive", "arrives", "arrived", "arriving", "come", "comes",
         "came", "coming", "enter", "enters", "entered", "entering", "show", "shows", "showed", "shown", "turn",
         "turned", "turns", "get", "got", "gets", "reach", "reached", "return", "returned", "returns", "emerge",
         "emerged", "pop", "popped", "walk", "walks", "walked", "pass", "passes", "passed", "cross", "crossed",
         "crosses", "appearance", "arrival", "entrance", "entry", "return"),
        "appears",
    ),
    **dict.fromkeys(
        ("leave", "leaves", "left", "leaving", "go", "goes", "went", "gone", "going", "exit", "exits", "exited",
         "disappear", "disappears", "disappeared", "depart", "departed", "drive", "drove", "driven", "vanish",
         "vanished", "departure", "disappearance", "exit", "dip", "dipped", "bounce", "bounced"),
        "leaves",
    ),
    **dict.fromkeys(
        ("move", "moves", "moved", "moving", "carried", "taken", "took", "take", "put", "placed", "picked", "shifted",
         "relocated", "brought"),
        "moved",
    ),
    **dict.fromkeys(
        ("see", "saw", "seen", "pick", "picks", "spot", "spotted", "notice", "noticed", "observe", "observed",
         "detect", "detected", "record", "recorded", "catch", "caught", "film", "filmed", "capture", "captured",
         "visible", "view"),
        "seen",
    ),
    **dict.fromkeys(
        ("stay", "stayed", "stays", "remain", "remained", "sit", "sat", "sitting", "park", "parked", "wait", "waited",
         "stand", "stood", "standing", "spend", "spent", "linger", "lingered", "lingering", "hang", "hung", "hanging",
         "loiter", "loitered", "loitering", "waiting", "staying", "remaining", "there", "around"),
        "stays",
    ),
}  # fmt: skip
#: Words of the counted unit in "how many X": what a count counts when X is not a kind.
AGGREGATE_WORDS: dict[str, str] = {
    **dict.fromkeys(("time", "times", "occasions", "occasion", "visits", "visit", "trips"), "times"),
    **dict.fromkeys(
        ("camera", "cameras", "cam", "cams", "views", "view", "feeds", "feed", "rooms", "room", "locations"), "cameras"
    ),
    **dict.fromkeys(("places", "place", "spots", "spot", "zones", "zone", "areas", "area"), "places"),
    **dict.fromkeys(("sightings", "sighting", "observations", "observation", "detections", "appearances"), "sightings"),
    **dict.fromkeys(("days", "day", "dates", "mornings", "evenings"), "days"),
    **dict.fromkeys(("different", "distinct", "separate", "individual", "unique"), "things"),
}
#: "What colour", "how big": the described field a question asks about.
FIELD_WORDS: dict[str, str] = {
    **dict.fromkeys(("colour", "color", "colours", "colors", "coloured", "colored", "shade", "hue"), "colour"),
    **dict.fromkeys(("pattern", "patterns", "patterned", "design", "print"), "pattern"),
    **dict.fromkeys(("size", "big", "large", "small", "tall", "huge", "tiny"), "size"),
    **dict.fromkeys(("motion", "moving", "still", "stationary", "parked", "driving", "walking", "standing"), "motion"),
}
HABIT_WORDS = frozenset(
    {"usually", "usual", "normally", "typically", "generally", "habit", "habits", "routine", "whose", "belong",
     "belongs", "owns", "own", "owner", "often"}
)  # fmt: skip
#: Words of a summary: what happened, what went on, anything unusual.
HAPPEN_WORDS = frozenset(
    {"happen", "happened", "happening", "happens", "occur", "occurred", "going", "went", "unusual", "interesting",
     "notable", "new", "strange", "weird", "odd", "activity", "events", "event", "summary", "summarize", "summarise",
     "overview", "miss", "missed", "recap", "rundown", "report", "update", "briefing", "digest", "story", "highlights",
     "gist", "lowdown"}
)  # fmt: skip
IMPERATIVES = frozenset({"tell", "show", "list", "give", "describe", "name", "count", "find", "summarize", "summarise"})
DURATION_WORDS = frozenset({"long", "duration", "length"})
#: Verbs whose doer is a vehicle ("did anyone drive off?", "did somebody park?" ask after cars, trucks, ...), and the
#: words after "drive" that say it arrived ("drove in", "drove up"); "away", "off", "out" say it left, nothing else
#: that it was seen.
DRIVE_VERBS = frozenset({"drive", "drives", "drove", "driven", "driving", "park", "parks", "parked", "parking"})
DRIVE_IN = frozenset({"in", "into", "up", "over", "onto"})
DRIVE_OFF = frozenset({"away", "off", "out"})
DRIVEN = ("car", "truck", "bus", "motorcycle")  #: what "anyone" who drove or parked is
LEAVE_WORDS = frozenset({"quit", "exit", "bye", "goodbye", "q", ":q", ":quit", "stop", "leave"})
FILLER = frozenset(
    {"please", "hey", "ok", "okay", "so", "and", "also", "just", "um", "uh", "well", "actually", "again", "ever",
     "still", "even", "yet", "already", "there", "here", "me", "you", "i", "we", "us", "camera", "cam", "memory",
     "today", "anywhere", "somewhere", "around", "about", "like", "really", "exactly", "approximately", "roughly"}
)  # fmt: skip

# -- open classes from the vocabulary ---------------------------------------------------------------------

#: Question colour words -> the describer's colour names they cover (a word it never uses filters nothing).
COLOUR_WORDS: dict[str, tuple[str, ...]] = {
    **{c: (c,) for c in COLOUR_NAMES},
    "gray": ("grey", "dark grey"),
    "grey": ("grey", "dark grey"),
    "silver": ("grey",),
    "dark gray": ("dark grey",),
    "charcoal": ("dark grey",),
    "green": ("green", "teal"),
    "blue": ("blue", "teal"),
    "light blue": ("blue", "teal"),
    "dark blue": ("blue",),
    "navy": ("blue",),
    "turquoise": ("teal",),
    "cyan": ("teal",),
    "mint": ("green", "teal"),
    "mint green": ("green", "teal"),
    "violet": ("purple",),
    "magenta": ("pink", "purple"),
    "brown": ("orange", "dark grey"),
    "beige": ("white", "orange"),
    "tan": ("orange",),
    "gold": ("yellow",),
    "golden": ("yellow",),
    "cream": ("white",),
}
PATTERN_WORDS: dict[str, str] = {
    "striped": "striped",
    "stripy": "striped",
    "stripes": "striped",
    "stripey": "striped",
    "checked": "checked",
    "checkered": "checked",
    "chequered": "checked",
    "plaid": "checked",
    "tartan": "checked",
    "checks": "checked",
    "checkers": "checked",
    "plain": "plain",
    "patterned": "patterned",
    "spotted": "patterned",
    "dotted": "patterned",
    "floral": "patterned",
    "spots": "patterned",
    "dots": "patterned",
    "printed": "patterned",
}
SIZE_WORDS: dict[str, str] = {
    "small": "small",
    "little": "small",
    "tiny": "small",
    "medium": "medium",
    "large": "large",
    "big": "large",
    "huge": "large",
}
MOTION_WORDS: dict[str, str] = {
    **dict.fromkeys(("still", "parked", "stationary", "standing", "static", "motionless", "sitting"), "still"),
    **dict.fromkeys(("moving", "walking", "driving", "running", "passing", "going", "in motion"), "moving"),
}
#: Other words for the rooms and places cameras are named after: a camera named "living-room" is the lounge too.
#: Each group is one kind of room: a camera named by any of its words is called by the others too (a camera named
#: "lounge" is the living room).
ROOM_WORDS: dict[str, tuple[str, ...]] = {
    "living room": ("lounge", "sitting room", "front room", "family room", "tv room", "living area", "livingroom"),
    "kitchen": ("cooking area", "kitchenette"),
    "bedroom": ("bed room",),
    "kids room": ("kid room", "kids bedroom", "nursery", "child room", "children room", "childs room", "playroom",
                  "play room", "baby room", "babys room"),
    "street": ("road", "the road", "pavement", "sidewalk"),
    "front yard": ("driveway", "drive way", "front garden", "yard", "frontyard"),
    "front door": ("entrance", "doorstep", "front step", "front entrance"),
    "back door": ("back entrance",),
    "garden": ("yard", "back yard", "backyard", "back garden"),
    "hallway": ("hall", "corridor", "entrance hall"),
    "desk": ("study desk", "work desk"),
    "office": ("study", "home office"),
}  # fmt: skip


def room_words(camera_words: str) -> tuple[str, ...]:
    """The other words for the room a camera's name says ("lounge" -> "living room", "sitting room", ...)."""
    out: list[str] = []
    for room, others in ROOM_WORDS.items():
        group = (room, *others)
        if camera_words in group:
            out.extend(w for w in group if w != camera_words)
    return tuple(dict.fromkeys(out))


_ROWS = {"top": "top", "upper": "top", "bottom": "bottom", "lower": "bottom", "middle": "middle"}
_COLUMNS = {"left": "left", "right": "right", "centre": "centre", "center": "centre", "middle": "centre"}


def _regions() -> dict[str, tuple[str, ...]]:
    """Region words -> the describer's image regions (edge_agent.memory.description.REGIONS) they cover: "top
    left" one, "the left" the three on the left, "the middle" the centre."""
    from edge_agent.memory.description import REGIONS

    def named(row: str, column: str) -> str:
        return "centre" if (row, column) == ("middle", "centre") else f"{row} {column}"

    words: dict[str, tuple[str, ...]] = {}
    for row_word, row in _ROWS.items():
        for column_word, column in _COLUMNS.items():
            if named(row, column) in REGIONS:
                words[f"{row_word} {column_word}"] = (named(row, column),)
        words.setdefault(row_word, tuple(r for r in REGIONS if r.startswith(row)))
    for column_word, column in _COLUMNS.items():
        if column != "centre":
            words[column_word] = words[f"{column_word} side"] = tuple(r for r in REGIONS if r.endswith(column))
    words["centre"] = words["center"] = words["middle"] = ("centre",)
    return words


# -- tokens and tags ---------------------------------------------------------------------------------------

_TOKEN = re.compile(r"\d{4}-\d{2}-\d{2}(?:[t ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?(?:z|[+-]\d{2}:?\d{2})?|"
                    r"\d{1,2}:\d{2}(?::\d{2})?|#\d+|\d+(?:st|nd|rd|th)?|[a-z]+|[?:,;.!]")  # fmt: skip
_CONTRACTIONS = (
    ("n't", " not"),
    ("can't", "can not"),
    ("won't", "will not"),
    ("'re", " are"),
    ("'ve", " have"),
    ("'ll", " will"),
    ("'d", " would"),
    ("i'm", "i am"),
)
#: "the dog's on the bed": 's before these is "is", before a noun ("the dog's bowl") it is a possessive.
_IS_BEFORE = frozenset(
    {"on", "in", "at", "near", "by", "next", "back", "gone", "here", "there", "missing", "not", "been", "outside",
     "inside", "home", "up", "out", "away", "under", "behind", "seen", "still", "moving", "parked", "sitting",
     "lying", "standing", "sleeping", "beside", "around", "over", "just", "never", "always", "usually", "coming",
     "going", "leaving", "arriving"}
)  # fmt: skip
_IS_AFTER = frozenset({"where", "what", "who", "when", "how", "that", "there", "it", "here", "which", "he", "she"})


#: Chat spellings of words the reader knows: "any1 at the desk?", "how many ppl?", "whos been here".
_CHAT = {
    "any1": "anyone",
    "some1": "someone",
    "every1": "everyone",
    "no1": "no one",
    "ppl": "people",
    "u": "you",
    "ur": "your",
    "b4": "before",
    "2day": "today",
    "2nite": "tonight",
    "tmrw": "tomorrow",
    "yday": "yesterday",
    "hw": "how",
    "mny": "many",
    "wat": "what",
    "wen": "when",
    "wht": "what",
    "lengthiest": "longest",
    "briefest": "shortest",
    "whr": "where",
    "whos": "who is",
    "wheres": "where is",
    "whats": "what is",
    "hows": "how is",
    "rm": "room",
    "teh": "the",
    "stil": "still",
    "pls": "please",
    "plz": "please",
    "thx": "thanks",
    "dont": "do not",
    "didnt": "did not",
    "doesnt": "does not",
    "wasnt": "was not",
    "werent": "were not",
    "isnt": "is not",
    "arent": "are not",
    "hasnt": "has not",
    "havent": "have not",
    "hadnt": "had not",
    "couldnt": "could not",
    "wouldnt": "would not",
    "shouldnt": "should not",
    "r": "are",
    "rn": "right now",
    "atm": "right now",
    "som1": "someone",
    "prior to": "before",
    "many from them": "many of them",
    "many from those": "many of those",
    "which from them": "which of them",
    "catch me up": "what happened",
    "ahead of": "before",
    "show me what the": "what did the",
    "show me what": "what",
    "show me who": "who",
    "was first seen": "first appeared",
    "were first seen": "first appeared",
    "in what part of the frame": "where in the frame",
    "in which part of the frame": "where in the frame",
    "in what part of the picture": "where in the picture",
    "in which part of the picture": "where in the picture",
    "what part of the frame": "where in the frame",
    "which part of the frame": "where in the frame",
    "what part of the picture": "where in the picture",
    "which part of the picture": "where in the picture",
    "when the recording ended": "at the end of the recording",
    "when the video ended": "at the end of the video",
    "when the clip ended": "at the end of the clip",
    "when recording stopped": "at the end of the recording",
    "when the recording stopped": "at the end of the recording",
    "once the": "after the",
    "once she": "after she",
    "once he": "after he",
    "once they": "after they",
    "once it": "after it",
    "once someone": "after someone",
    "once somebody": "after somebody",
    "fill me in": "what happened",
    "bring me up to speed": "what happened",
    "i should know": "happened",
    "i need to know": "happened",
    "worth knowing": "happened",
    "subsequent to": "after",
    "in advance of": "before",
    "sum1": "someone",
    "hows many": "how many",
    "hows much": "how much",
}
#: Amounts said in words, as the numbers they stand for (approximately: "or so" is dropped).
_AMOUNTS = (
    (r"\bhalf a dozen\b", "6"), (r"\ba dozen\b", "12"), (r"\bdozen\b", "12"), (r"\ba couple of\b", "2"),
    (r"\ba couple\b", "2"), (r"\ba handful of\b", "5"), (r"\b(\d+) or so\b", r"\1"),
    # lengths of time in words: "for half an hour", "an hour and a half", "a quarter of an hour"
    (r"\b(?:an|one) hour and a half\b", "90 minutes"), (r"\b(?:a|one) minute and a half\b", "90 seconds"),
    (r"\bhalf an hour\b", "30 minutes"), (r"\bhalf a minute\b", "30 seconds"), (r"\bhalf a day\b", "12 hours"),
    (r"\b(?:a )?quarter of an hour\b", "15 minutes"), (r"\ba quarter hour\b", "15 minutes"),
    (r"\bthree quarters of an hour\b", "45 minutes"),
)  # fmt: skip
_CHAT_WORD = re.compile(r"\b(" + "|".join(sorted(_CHAT, key=len, reverse=True)) + r")\b")


def tokenize(text: str) -> list[str]:
    """Lower-case word tokens; contractions opened ("where's" -> "where is", "didn't" -> "did not"), a possessive
    's dropped ("the living room's view" -> "living room view"), hyphens and underscores between words as spaces
    (camera "living-room" is "living room"); ISO times, clock times and punctuation that separates clauses kept."""
    text = text.lower().replace("\u2019", "'").replace("\u2018", "'")
    text = _CHAT_WORD.sub(lambda m: _CHAT[m.group(0)], text)
    text = text.replace("can't", "can not").replace("won't", "will not")
    text = re.sub(r"\b(where|when|who|what|how|why)'d\b", r"\1 did", text)  # "where'd I see it"
    for short, long in _CONTRACTIONS[2:]:
        text = text.replace(short, long)
    text = text.replace("n't", " not")

    def opened(match: re.Match[str]) -> str:
        word, following = match.group(1), match.group(2)
        return f"{word} is" if word in _IS_AFTER or following in _IS_BEFORE else word

    text = re.sub(r"\b([a-z]+)'s\b(?=\s*([a-z]*))", opened, text)
    text = re.sub(r"\b(\d{1,2}(?::\d\d)?|noon|midday|midnight)-?ish\b", r"\1", text)  # "noon-ish", "9ish": a time
    for said, number in _AMOUNTS:  # "a dozen or so people", "more than a couple of things": the number
        text = re.sub(said, number, text)
    # "10:30-10:59", "9am-10am", "9-5": from one time to the other
    text = re.sub(
        r"(?<![-\d:])\b(\d{1,2}(?::\d\d)?\s*(?:[ap]\.?m\.?)?)\s*[-\u2013]\s*(?=\d{1,2}(?::\d\d|\s*[ap]\.?m|\b)(?![-\d]))",
        lambda m: (
            m.group(1) + " to " if re.search(r"\b(from|between)\s*$", text[: m.start()]) else f"from {m.group(1)} to "
        ),
        text,
    )
    text = re.sub(r"\s[-\u2013\u2014]+\s", " , ", text)  # "the iPad - where is it": a break between clauses
    text = re.sub(r"[()\[\]]", " , ", text)  # "(not the street)": an aside, set off as a clause is
    # "at like 10 or more like 11": at 10 or 11 ("between like nine and half nine" too)
    text = re.sub(
        r"\b(?:more )?like (?=\d|(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|noon|half)\b)",
        "",
        text,
    )
    text = re.sub(r"(?<=[a-z])[-_/](?=[a-z])", " ", text)
    text = re.sub(r"\bno[- ]one\b", "noone", text)  # "no one" is nobody
    text = re.sub(r"(?<=\d)\s*([ap])\.?\s?m\.?\b", r" \1m", text)  # "3pm", "3 p.m." -> "3 pm"
    # "at 10.00", "after 10.30 am": a clock time said with a dot, after a word of time
    text = re.sub(
        r"\b(at|after|before|around|about|by|until|till|from|to|and|since|between)\s+(\d{1,2})\.(\d\d)\b",
        r"\1 \2:\3",
        text,
    )
    return _TOKEN.findall(text.replace("'", " "))


@dataclass(frozen=True)
class Tag:
    type: str  #: kind, name, camera, zone, colour, pattern, size, motion, region
    value: tuple[str, ...]  #: what it means: classes, a camera, describer colours ...
    entity_id: int | None = None


@dataclass(frozen=True)
class Span:
    start: int
    end: int  #: tokens [start, end)
    words: str
    tags: tuple[Tag, ...]

    def of(self, type_: str) -> Tag | None:
        return next((t for t in self.tags if t.type == type_), None)


def _key(text: str) -> tuple[str, ...]:
    return tuple(tokenize(text))


#: Sounds written with other letters at a word's start: "fone" (phone), "kat" (cat).
_SOUNDS = (("f", "ph"), ("ph", "f"), ("k", "c"), ("c", "k"))


def _pair_misspelt(
    first: str, second: str, names: Mapping[str, tuple[tuple[str, ...], str]]
) -> tuple[tuple[str, ...], str] | None:
    """The name that two words said are, written as one, the first or the last said right and the other a letter or so
    off ("living rom", "frnt yard"), as (its words, the name); None where they are not."""
    if not (first.isalpha() and second.isalpha()) or len(first + second) < 6 or first + second in names:
        return None
    for close in difflib.get_close_matches(first + second, names, n=3, cutoff=_SPELLING):
        rest, said = (close[len(first) :], second) if close.startswith(first) else (close[: -len(second)], first)
        if not (close.startswith(first) or close.endswith(second)) or not rest or rest == said:
            continue  # ("in bedroom": "in" is no part of it)
        if difflib.SequenceMatcher(None, rest, said).ratio() >= _PART_SPELLING:
            return names[close]
    return None


#: How many words (and pairs) a lexicon keeps the reading of, so that a server asked for months stays bounded.
_READ_ONCE = 20_000

#: How alike the misspelt part of a two-word name must be to what it stands for: "rom" for "room", "frnt" for "front".
_PART_SPELLING = 0.75


class Lexicon:
    """Memory's vocabulary as tagged phrases. ``names``: the names the user gave entities (-> entity id);
    ``cameras``; ``categories``: kinds memory holds beyond the detector's (another detector's classes, things
    the user enrolled); ``zones``: named zones and places; ``dictionary``: where the copy of the English dictionary is
    kept (:func:`edge_agent.language.english.english`; None: read from its package)."""

    def __init__(
        self,
        *,
        names: Mapping[str, int] | None = None,
        cameras: Iterable[str] = (),
        categories: Iterable[str] = (),
        zones: Iterable[str] = (),
        dictionary: Path | None = None,
    ) -> None:
        self.dictionary = dictionary
        self.cameras = tuple(dict.fromkeys(c for c in cameras if c))
        self.zones = tuple(dict.fromkeys(z for z in zones if z))
        self.names = {str(k): int(v) for k, v in (names or {}).items() if str(k).strip()}
        self.extra_kinds = tuple(dict.fromkeys(c.lower() for c in categories if c))
        self._phrases: dict[tuple[str, ...], list[Tag]] = {}
        words = category_words()
        extra = {w: (c,) for c in self.extra_kinds for w in (c, plural(c))}
        for word, meant in words.items():
            self._add(word, Tag("kind", extra.get(word, ()) + tuple(c for c in meant if c not in extra.get(word, ()))))
        for word, meant in extra.items():
            if word not in words:
                self._add(word, Tag("kind", meant))
        for word, colours in COLOUR_WORDS.items():
            self._add(word, Tag("colour", colours))
        for word, pattern in PATTERN_WORDS.items():
            self._add(word, Tag("pattern", (pattern,)))
        for word, size in SIZE_WORDS.items():
            self._add(word, Tag("size", (size,)))
        for word, motion in MOTION_WORDS.items():
            self._add(word, Tag("motion", (motion,)))
        for word, regions in _regions().items():
            self._add(word, Tag("region", regions))
        for zone in self.zones:
            self._add(zone, Tag("zone", (zone,)))
        for camera in self.cameras:
            self._add(camera, Tag("camera", (camera,)))
            for word in room_words(" ".join(_key(camera))):  # "the lounge" for a camera named living-room, and back
                if _key(word) not in self._phrases:
                    self._add(word, Tag("camera", (camera,)))
            key = _key(camera)
            if len(key) == 2 and key[0] in ("camera", "cam") and key[1].isdigit():  # "cam 1" for camera1, and back
                other = ("cam" if key[0] == "camera" else "camera", key[1])
                if other not in self._phrases:
                    self._add(" ".join(other), Tag("camera", (camera,)))
        for name, entity_id in self.names.items():
            self._add(name, Tag("name", (name,), entity_id))
            key = _key(name)
            if len(key) > 1 and key[0] in ("the", "a", "an", "my", "our"):  # "the white van" is "white van" too
                self._add(" ".join(key[1:]), Tag("name", (name,), entity_id))
        self._longest = max((len(k) for k in self._phrases), default=1)
        self._starts = frozenset(k[0] for k in self._phrases)  # the words a phrase starts with ("camera" of camera 1)
        self._pairs: dict[tuple[str, str], tuple[tuple[str, ...], str] | None] = {}  # respelt once, by words said
        self._tokens: dict[str, tuple[tuple[str, ...], str | None]] = {}

    def _add(self, text: str, tag: Tag) -> None:
        key = _key(text)
        if key:
            tags = self._phrases.setdefault(key, [])
            tags[:] = [t for t in tags if t.type != tag.type] + [tag]  # a later tag of a type replaces it

    def respell(self, tokens: Sequence[str]) -> tuple[list[str], tuple[tuple[str, str], ...]]:
        """``tokens`` with each word that no phrase starts with, of five letters or more and a letter or so off the
        name of a camera, zone, place or entity ("kitchn", "livingroom", "bedrom"), read as that name; and (what was
        said, what it was read as) of each. Only the memory's own names: a word off a kind by a letter may be
        another thing ("tablet", "table"), which the reader's text model grounds instead."""
        out: list[str] = []
        read_as: list[tuple[str, str]] = []
        skip = False
        for i, token in enumerate(tokens):
            if skip:
                skip = False
                continue
            pair = self._pair(token, tokens[i + 1] if i + 1 < len(tokens) else "")
            if pair is not None:  # "living rom", "livng room": a name of two words, one of them misspelt
                out.extend(pair[0])
                read_as.append((f"{token} {tokens[i + 1]}", pair[1]))
                skip = True
                continue
            words, name = self._respelt(token)
            out.extend(words)
            if name is not None:
                read_as.append((token, name))
        return out, tuple(read_as)

    @functools.cached_property
    def _names(self) -> dict[str, tuple[tuple[str, ...], str]]:
        """Each name of a camera, zone, place or entity written as one word -> (its words, the name)."""
        names: dict[str, tuple[tuple[str, ...], str]] = {}
        for key, tags in sorted(self._phrases.items(), key=lambda kv: -len(kv[0])):  # one word beats "bed room"
            tag = next((t for t in tags if t.type in _NAMES), None)
            if tag is not None:
                names["".join(key)] = (key, tag.value[0])
        return names

    def _pair(self, first: str, second: str) -> tuple[tuple[str, ...], str] | None:
        """:func:`_pair_misspelt` of two words said one after the other, read once."""
        key = (first, second)
        if key not in self._pairs:
            if len(self._pairs) >= _READ_ONCE:
                self._pairs.clear()
            self._pairs[key] = _pair_misspelt(first, second, self._names)
        return self._pairs[key]

    def _respelt(self, token: str) -> tuple[tuple[str, ...], str | None]:
        """The words one word said is read as, and the name or word it was read as (None: as it is); read once."""
        if token in self._tokens:
            return self._tokens[token]
        names = self._names
        known = token in self._starts or any(
            token.endswith(end) and token[: -len(end)] in self._starts for end in ("s", "es")
        )
        close = (
            difflib.get_close_matches(token, names, n=1, cutoff=_SPELLING)
            if len(token) >= 5 and token.isalpha() and not known
            else []
        )
        read: tuple[tuple[str, ...], str | None] = ((token,), None)
        if close and names[close[0]][0] != (token,):
            read = names[close[0]]
        elif not known and (word := self._without_vowels(token) or self._english_typo(token)) is not None:
            read = ((word,), word)
        if len(self._tokens) >= _READ_ONCE:
            self._tokens.clear()
        self._tokens[token] = read
        return read

    @functools.cached_property
    def _words(self) -> frozenset[str]:
        """Every single word of memory's vocabulary and the reader's own, read once."""
        return frozenset(w for key in self._phrases for w in key) | _closed_words()

    def _without_vowels(self, token: str) -> str | None:
        """The word of memory's vocabulary or the reader's own that ``token`` writes without (some of) its vowels, as
        people type ("strt", "bedrm", "lvng", "colr"), when the dictionary has no such word: the one with the fewest
        letters left out."""
        if len(token) < 3 or not token.isalpha() or token in _closed_words() or token in english(self.dictionary):
            return None
        fits = [w for w in self._words if len(w) > len(token) and w[0] == token[0] and _drops_vowels(w, token)]
        return min(fits, key=lambda w: (len(w), w)) if fits else None

    def _english_typo(self, token: str) -> str | None:
        """The word ``token`` is a typo of ("sombody", "notifiy", "yesturday"), or None: a word of four letters or
        more that no English dictionary holds, one edit (a letter added, dropped, changed or two swapped) off a word
        it does; a word the lexicon knows first, else the most used one, when it is used often enough that a typo is
        likelier than a word the dictionary lacks ("hoodie" is not read as "goodie"). A word the dictionary holds
        but a hundred times rarer than a kind or name one letter off it is read as that ("truk", "buss"); the
        reader's own words ("colour", "lounge") are never respelt."""
        if len(token) < 4 or not token.isalpha() or token in _closed_words():
            return None
        words = english(self.dictionary)
        edits = words.edits(token)
        ours = sorted(c for c in edits if (c,) in self._phrases and c != token)
        # as it sounds: "fone" is phone (a sound written with other letters, at the start)
        ours = ours or sorted(c for a, b in _SOUNDS if token.startswith(a) for c in [b + token[len(a) :]]
                              if (c,) in self._phrases and token not in words)  # fmt: skip
        rare = words.count(token) * _RARER
        if ours and all(words.count(c) > rare for c in ours):  # "truk" (50 uses) is truck (70,723)
            return ours[0]
        if token in words:
            return None
        best = max(sorted(words.known(edits)), key=words.count, default=None)
        if best is None or words.count(best) < _COMMON or not best.isalpha():
            return None
        return best

    def kinds(self) -> tuple[str, ...]:
        """The kinds a question may name: the detector's classes and the kinds memory holds."""
        from edge_agent.perception.vocabulary import COCO_CLASSES

        return tuple(dict.fromkeys((*self.extra_kinds, *COCO_CLASSES)))

    def kind_words(self) -> dict[str, tuple[str, ...]]:
        """Every single word or phrase that names a kind -> the kinds."""
        return {" ".join(k): t.value for k, tags in self._phrases.items() for t in tags if t.type == "kind"}

    def tag(self, tokens: Sequence[str]) -> list[Span]:
        """The tagged spans of ``tokens``, left to right, each the longest phrase known at its start; a token no
        phrase starts at is a span without tags."""
        spans: list[Span] = []
        i = 0
        while i < len(tokens):
            ref = _entity_ref(tokens, i)
            if ref is not None:
                spans.append(ref)
                i = ref.end
                continue
            for n in range(min(self._longest, len(tokens) - i), 0, -1):
                key = tuple(tokens[i : i + n])
                tags = self._phrases.get(key)
                if tags:
                    spans.append(Span(i, i + n, " ".join(key), tuple(tags)))
                    i += n
                    break
            else:
                spans.append(Span(i, i + 1, tokens[i], ()))
                i += 1
        for k, here in enumerate(spans):  # "the orange bowl", "was the bowl orange?": a colour, no fruit
            if here.of("colour") and here.of("kind") and _describes(spans, k):
                spans[k] = Span(here.start, here.end, here.words, tuple(t for t in here.tags if t.type != "kind"))
        return spans


#: How often (in pyspellchecker's counts: "kitchen" 49,700, "bicycle" 7,329, "goodie" 428) a word must be used for
#: an unknown word one letter off it to be read as it.
_COMMON = 5000


def _drops_vowels(word: str, token: str) -> bool:
    """Whether ``token`` is ``word`` with only vowels left out ("strt" of "street")."""
    i = 0
    for c in word:
        if i < len(token) and c == token[i]:
            i += 1
        elif c not in "aeiouy":
            return False
    return i == len(token)


#: How much more used a word of memory's one letter off must be than a dictionary word to read one as the other.
_RARER = 100


@functools.cache
def _closed_words() -> frozenset[str]:
    """The single words of the reader's own classes (fields, generic nouns, events, counting words, rooms), some
    spelt in British English, and the units of time ("hrs", "mins"), which the dictionary may not hold."""
    classes: Iterable[Iterable[str]] = (FIELD_WORDS, GENERIC, EVENT_VERBS, AGGREGATE_WORDS, ROOM_WORDS, WH, AUX, UNITS)
    return frozenset(w for words in classes for phrase in words for w in phrase.split())


#: The tags of the memory's own names, which a misspelt word is read as (Lexicon.respell).
_NAMES = frozenset({"camera", "zone", "name"})
#: How alike a word and a name must be (difflib's ratio) to read one as the other: one letter off an eight-letter
#: name is 0.93, off a five-letter one 0.8 (too little to tell a typo from another word).
_SPELLING = 0.85


def _entity_ref(tokens: Sequence[str], i: int) -> Span | None:
    """ "#12", "entity 12", "entity #12": an entity by the id memory shows it with, at token ``i``."""
    w = tokens[i]
    after = tokens[i + 1] if i + 1 < len(tokens) else ""
    if w in ("entity", "id", "number") and (after.isdigit() or after[:1] == "#" and after[1:].isdigit()):
        said = tokens[i : i + 2]
    elif w[:1] == "#" and w[1:].isdigit():
        said = [w]
    else:
        return None
    entity_id = int(said[-1].lstrip("#"))
    return Span(i, i + len(said), " ".join(said), (Tag("name", (f"#{entity_id}",), entity_id),))


#: Words after which a colour that is also a kind ("orange") says the colour of what they refer to: "was it orange?".
_REFERRING = frozenset({"it", "they", "them", "that", "this", "one", "ones", "these", "those"})


def _describes(spans: Sequence[Span], k: int) -> bool:
    """Whether span ``k``, a word that is both a colour and a kind ("orange"), is the colour: before a kind or another
    colour ("the orange bowl"), after a thing or a word referring to one ("is the bowl orange?", "was it orange?"), or
    beside "or" and a colour ("orange or white")."""

    def at(j: int) -> Span | None:
        return spans[j] if 0 <= j < len(spans) else None

    after, before = at(k + 1), at(k - 1)
    if after is not None and (after.of("kind") or after.of("colour")):
        return True
    if before is not None and (before.of("kind") or before.of("name") or before.words in _REFERRING):
        return True
    if after is not None and after.words in ("thing", "things", "one", "ones", "object", "objects", "stuff"):
        return True  # "the orange thing"
    if before is not None and before.words in ("was", "were", "is", "are", "looked", "looks", "seemed"):
        return after is None or not after.tags and after.words not in ("a", "an", "the")  # "the thing that was orange"
    beyond = (
        at(k + 2)
        if after is not None and after.words == "or"
        else at(k - 2)
        if before and before.words == "or"
        else None
    )
    return beyond is not None and beyond.of("colour") is not None


#: Words in a camera's name that say it looks outdoors (the rest look indoors): "street", "front-door", "garden".
_OUTDOOR_CAMERAS = frozenset(
    {"street", "road", "driveway", "drive", "garden", "yard", "backyard", "porch", "patio", "sidewalk", "pavement",
     "parking", "gate", "lawn", "outside", "outdoor", "outdoors", "deck", "balcony", "door", "doorbell", "entrance",
     "front", "courtyard", "carport"}
)  # fmt: skip


def outdoor_cameras(cameras: Sequence[str]) -> tuple[str, ...]:
    """The cameras whose names say they look outdoors ("street", "front-door"), in order."""
    return tuple(c for c in cameras if set(re.split(r"[-_ ]+", c.lower())) & _OUTDOOR_CAMERAS)
