"""Times in questions and rules, read into the grammar's :class:`~edge_agent.language.grammar.Time`: a window
("after 3 pm", "between 8 and 9", "this morning", "yesterday", "in the last hour", "on 2026-03-03"), a bound
("before 10:00", "by noon": nothing later is used) and moments ("at 09:49:11"). Relative words are read
against a reference moment (the question's as-of, else the end of what memory recorded: a live camera's
now) in the user's time zone. Calendar words (weekdays, month dates) go to ``dateparser``; clock times,
parts of the day and spans are read here, where the words around them say which (a bare "8" is an hour
only after a time word: "between 8 and 9")."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from zoneinfo import ZoneInfo

from edge_agent.language.grammar import Time

__all__ = ["TimeReading", "read_span", "read_times"]

#: Lengths of time by their words: "for 5 minutes", "the first minute of the video".
UNITS = {
    "second": 1.0,
    "seconds": 1.0,
    "sec": 1.0,
    "secs": 1.0,
    "minute": 60.0,
    "minutes": 60.0,
    "min": 60.0,
    "mins": 60.0,
    "hour": 3600.0,
    "hours": 3600.0,
    "hr": 3600.0,
    "hrs": 3600.0,
    "day": 86400.0,
    "days": 86400.0,
    "week": 604800.0,
    "weeks": 604800.0,
}
_AND_A_HALF = ["and", "a", "half"]
NUMBER_WORDS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "fifteen": 15,
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "few": 3,
    "couple": 2,
}
#: Parts of the day: (start hour, end hour), the end past midnight for the night.
PARTS = {
    "morning": (6, 12),
    "mornings": (6, 12),
    "afternoon": (12, 18),
    "afternoons": (12, 18),
    "evening": (18, 23),
    "evenings": (18, 23),
    "night": (22, 30),
    "tonight": (18, 30),
    "lunchtime": (12, 14),
    "lunch": (12, 14),
    "breakfast": (7, 9),
    "breakfasttime": (7, 9),
    "dinner": (18, 20),
    "dinnertime": (18, 20),
    "supper": (18, 20),
    "suppertime": (18, 20),
    "dawn": (5, 7),
    "dusk": (18, 20),
    "noon": (12, 12),
    "midnight": (0, 0),
}
#: Meals name a time of day only after a word of time: "after lunch", "at dinner" (not "the lunch box").
_MEALS = frozenset({"lunch", "breakfast", "dinner", "supper"})
#: The meals and their times, as parts of the day: "at dinner time", "during lunch", "at lunchtime".
MEALTIMES = (*sorted(_MEALS), "lunchtime", "breakfasttime", "dinnertime", "suppertime")
_BEFORE_MEALS = frozenset(
    {"after", "before", "at", "during", "around", "since", "until", "till", "by", "over", "from", "this", "past"}
)
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
#: The words before "the 20th" said as a day ("on the 20th", "since the 3rd"), and those that may follow it.
_DAY_LEADS = frozenset({"on", "since", "before", "after", "until", "till", "from", "by", "for", "of", "during"})
_AFTER_DAY = frozenset({"", "?", ".", ",", "!", "at", "in", "around", "after", "before", "between", "from", "until",
                        "and", "or", "then", "morning", "afternoon", "evening", "night"})  # fmt: skip
#: Days of the month said in words: "the second of march", "march third"
_ORDINALS = {
    w: n + 1
    for n, w in enumerate(
        "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth fourteenth "
        "fifteenth sixteenth seventeenth eighteenth nineteenth twentieth".split()
    )
} | {"thirtieth": 30}
_MONTHS = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
    "jan",
    "feb",
    "mar",
    "apr",
    "jun",
    "jul",
    "aug",
    "sep",
    "sept",
    "oct",
    "nov",
    "dec",
)
_END = frozenset({"before", "by", "until", "till", "til"})
_START = frozenset({"after", "since"})
#: What may follow a bare hour ("after 3?", "between 8 and 9 this morning"); "after 3 people" is no time.
_AFTER_HOUR = frozenset(
    {"", "?", ",", ":", ";", "and", "to", "this", "that", "today", "yesterday", "tonight", "on", "in", "at", "or",
     "until", "till", "but", "when", "what", "who", "where", "did", "was", "were", "is", "are", "how"}
)  # fmt: skip
_AT = frozenset({"at", "around", "about", "approximately", "roughly", "near"})
#: Words that say a time is not exact: "after about 11:05".
_HEDGES = frozenset({"around", "about", "approximately", "roughly", "circa", "approx", "just"})
_ZONES = {"utc": "UTC", "gmt": "UTC", "z": "UTC"}


@dataclass(frozen=True)
class TimeReading:
    time: Time
    used: frozenset[int]  #: the token indices that were time words


@dataclass
class _Point:
    t: float  #: Unix seconds
    first: int  #: token index where the expression starts (its connector included)
    last: int  #: one past its last token
    end: float | None = None  #: for a span (a day, a part of it): its end
    connector: str = ""


def _clock_token(token: str) -> tuple[int, int, int] | None:
    parts = token.split(":")
    if len(parts) not in (2, 3) or not all(p.isdigit() for p in parts):
        return None
    h, m, s = (int(p) for p in (*parts, "0")[:3])
    return (h, m, s) if h < 24 and m < 60 and s < 60 else None


def _to_second(said: list[str], moments: list[float]) -> bool:
    """Whether a moment was said to the second ("at 09:00:30", an ISO time): what was seen then, not around it."""
    return bool(moments) and any(w.count(":") == 2 for words in said for w in words.split())


class _Reader:
    def __init__(self, tokens: Sequence[str], reference: float, zone: ZoneInfo) -> None:
        self.tokens = list(tokens)
        self.reference = reference
        self.zone = zone
        self.now = dt.datetime.fromtimestamp(reference, zone)
        self.used: set[int] = set()
        #: the windows of the days and parts of the day said ("yesterday", "in the morning")
        self.parts: list[tuple[float, float]] = []

    def word(self, i: int) -> str:
        return self.tokens[i] if 0 <= i < len(self.tokens) else ""

    def day_start(self, day: dt.date) -> float:
        return dt.datetime.combine(day, dt.time(), self.zone).timestamp()

    # -- days --------------------------------------------------------------------------------------------------

    def days(self) -> list[tuple[int, int, dt.date]]:
        """(first token, one past last, the day) of each day the words name."""
        found: list[tuple[int, int, dt.date]] = []
        i = 0
        while i < len(self.tokens):
            w = self.word(i)
            day: dt.date | None = None
            n = 1
            if len(w) == 10 and w[4] == "-" and w[7] == "-":
                try:
                    day = dt.date.fromisoformat(w)
                except ValueError:
                    day = None
            elif w in ("today", "tonight"):
                day = self.now.date()
            elif w == "yesterday":
                day = self.now.date() - dt.timedelta(days=1)
            elif (w, self.word(i + 1), self.word(i + 2), self.word(i + 3)) == ("the", "day", "before", "yesterday"):
                day, n = self.now.date() - dt.timedelta(days=2), 4
            elif w in _WEEKDAYS or w in _MONTHS or ((w[:1].isdigit() or w in _ORDINALS) and self.month_after(i)):
                day, n = self.calendar(i)
            elif self.month_day(i) is not None:  # "on the 20th": of this month, or the last one's if still to come
                day = self.month_day(i)
                i -= 1  # from "the" ("on the 20th")
                n = 2
            if day is not None:
                # "last monday", "this friday" (but "what was seen last today?": the last thing, today)
                calendar = w not in ("today", "tonight", "yesterday")
                first = (
                    i - 1
                    if self.word(i - 1) in ("on", "this", "past") or calendar and self.word(i - 1) == "last"
                    else i
                )
                found.append((first, i + n, day))
                i += n
            else:
                i += 1
        return found

    def month_day(self, i: int) -> dt.date | None:
        """The day "the 20th" (token ``i``, after "the", as a time is said: "on the 20th", "after 7 pm on the 20th,")
        names: that day of this month, or of the month before where it is still to come."""
        w = self.word(i)
        if not (w[:-2].isdigit() and w[-2:] in ("st", "nd", "rd", "th")) or self.word(i - 1) != "the":
            return None
        if not (i == 1 or self.word(i - 2) in _DAY_LEADS) or self.word(i + 1) not in _AFTER_DAY:
            return None  # "the 2nd person", "who was the 3rd": no day
        month = self.now.date().replace(day=1)
        for start in (month, (month - dt.timedelta(days=1)).replace(day=1)):
            try:
                day = start.replace(day=int(w[:-2]))
            except ValueError:
                continue
            if day <= self.now.date():
                return day
        return None

    def month_after(self, i: int) -> bool:
        """Whether a month's name follows token ``i``, or "of" and one ("the 2nd of march")."""
        after = self.word(i + 1)
        return after in _MONTHS or (after == "of" and self.word(i + 2) in _MONTHS)

    def calendar(self, i: int) -> tuple[dt.date | None, int]:
        """A weekday or a month date read by dateparser ("monday", "last tuesday", "march 2", "2nd of march")."""
        import dateparser  # lazily: its import costs a question ~0.1 s, and most name no date

        n = 1
        words = [self.word(i)]
        if self.word(i - 1) == "last" and self.word(i) in _WEEKDAYS:
            words.insert(0, "last")
        follow = self.word(i + 1)
        if self.word(i) in _MONTHS and (follow[:1].isdigit() or follow in _ORDINALS):  # "march 2", "march second"
            words.append(str(_ORDINALS.get(follow, follow.rstrip("stndrh"))))
            n = 2
        elif (self.word(i)[:1].isdigit() or self.word(i) in _ORDINALS) and self.month_after(i):  # "the 2nd of march"
            n = 2 if follow in _MONTHS else 3
            words = [str(_ORDINALS.get(self.word(i), self.word(i).rstrip("stndrh"))), self.word(i + n - 1)]
        if self.word(i) == "may" and n == 1:
            return None, 1  # "may" alone is the verb
        parsed = dateparser.parse(
            " ".join(words),
            languages=["en"],
            settings={
                "RELATIVE_BASE": self.now.replace(tzinfo=None),
                "PREFER_DATES_FROM": "past",
                "PREFER_DAY_OF_MONTH": "first",
            },
        )
        if parsed is None:
            return None, 1
        day = parsed.date()
        if self.word(i) in _WEEKDAYS and words[0] != "last" and day == self.now.date() - dt.timedelta(days=7):
            day = self.now.date()  # "on monday" said on a monday: today
        return day, n

    # -- clock times ---------------------------------------------------------------------------------------------

    def part_hours(self, i: int) -> tuple[float, float, int]:
        """(start hour, end hour, first token) of the part of the day at token ``i``: "late morning" its second half,
        "early afternoon" its first."""
        a, b = PARTS[self.word(i)]
        said = self.word(i - 1)
        if said in ("late", "early") and b > a:
            middle = (a + b) / 2
            return (middle, b, i - 1) if said == "late" else (a, middle, i - 1)
        return a, b, i

    def part_of_day(self, i: int) -> bool:
        """Whether token ``i`` names a part of the day: "morning", "tonight"; a meal only after a word of time ("after
        lunch", not "the lunch box")."""
        w = self.word(i)
        meal = w in _MEALS and self.word(i - 1) not in _BEFORE_MEALS
        return w in PARTS and w not in ("noon", "midnight") and not meal

    def hour_words(self, i: int, connector: str) -> tuple[tuple[int, int, int, str], int] | None:
        """(hour, minute, second, am/pm or ''), tokens used, of a clock time at token ``i``."""
        w = self.word(i)
        said = self.word(i + 1)
        number = int(said) if said.isdigit() else NUMBER_WORDS.get(said, 0) if said not in ("a", "an") else 0
        if w == "half" and 1 <= number <= 12:
            half = self.word(i + 2) if self.word(i + 2) in ("am", "pm") else ""
            return (number, 30, 0, half), 2 + bool(half)  # British "half 7", "half ten": 7:30, 10:30
        minutes, k = _minutes_said(self.tokens, i)  # "quarter", "half", "ten", "20 minutes": k tokens
        if minutes and self.word(i + k) in ("to", "past", "after"):
            # "quarter to one", "half past 9 pm", "ten past eleven", "twenty to twelve"
            hour = self.word(i + k + 1)
            h = int(hour) if hour.isdigit() else NUMBER_WORDS.get(hour) if hour not in ("a", "an") else None
            if h is None or not 1 <= h <= 12:
                return None
            half = self.word(i + k + 2) if self.word(i + k + 2) in ("am", "pm") else ""
            if self.word(i + k) == "to":
                h, minute = (h - 1) or 12, 60 - minutes  # "quarter to one": 12:45 (or 00:45, by the reference)
            else:
                minute = minutes
            return (h % 24, minute, 0, half), k + 2 + bool(half)
        if w == "a" and self.word(i + 1) == "quarter":
            found = self.hour_words(i + 1, connector)
            return (found[0], found[1] + 1) if found is not None else None
        if w in ("noon", "midday"):
            return (12, 0, 0, "pm"), 1
        if w == "12" and said in ("noon", "midday", "midnight"):  # "after 12 noon": noon
            return (0 if said == "midnight" else 12, 0, 0, "am" if said == "midnight" else "pm"), 2
        if w == "midnight":
            return (0, 0, 0, "am"), 1
        spoken = _spoken_minutes(self.tokens, i + 1) if connector and w in _HOUR_WORDS else None
        if spoken is not None:  # "at nine oh one", "after eleven thirty", "around ten forty five pm"
            minute, used = spoken
            half = self.word(i + 1 + used) if self.word(i + 1 + used) in ("am", "pm") else ""
            return (_HOUR_WORDS[w], minute, 0, half), 1 + used + bool(half)
        clock = _clock_token(w)
        n = 1
        spelt = NUMBER_WORDS.get(w) if w not in ("a", "an") else None  # "ten o'clock", "seven pm"
        if clock is None and spelt is not None and 1 <= spelt <= 12:
            marked = self.word(i + 1) in ("am", "pm") or self.word(i + 1) == "o" and self.word(i + 2) == "clock"
            if marked or connector:  # "seven pm", "between nine and ten": an hour, as "between 9 and 10" is
                w = str(spelt)
        if clock is None:
            if not w.isdigit() or not 0 <= int(w) <= 24:
                return None
            marked = self.word(i + 1) in ("am", "pm") or self.word(i + 1) == "o" and self.word(i + 2) == "clock"
            if not marked and (connector == "" or self.word(i + 1) not in _AFTER_HOUR):
                return None  # a bare number is an hour only after a time word ("between 8 and 9", "after 3")
            clock = (int(w) % 24, 0, 0)
        if self.word(i + n) in ("am", "pm"):
            return (*clock, self.word(i + n)), n + 1
        if self.word(i + n) == "o" and self.word(i + n + 1) == "clock":
            return (*clock, ""), n + 2
        return (*clock, ""), n

    def end_half(self, i: int, h: int, m: int) -> str:
        """ "Between 8 and 9 pm": the am / pm of a window's end (said from token ``i`` on) is its start's (``h``:``m``),
        where it keeps the start before the end ("between 10 and noon" is from 10 am); "" where none is said."""
        for j in range(i, min(i + 3, len(self.tokens))):
            later = self.hour_words(j, "and") if self.word(j - 1) in ("and", "to") else None
            if later is not None and later[0][3]:
                h2, m2, _, half = later[0]
                return half if _on_clock(h, half) * 60 + m <= _on_clock(h2, half) * 60 + m2 else ""
        return ""

    def at(
        self, day: dt.date | None, clock: tuple[int, int, int, str], connector: str = "", pending: float | None = None
    ) -> float:
        """The moment of a clock time: on ``day``, else the reference's day (the day before when the time is later
        than the reference, unless it bounds a window, after or before it: "after 2 pm" asked at 1 pm is today's, when
        nothing was yet seen); an hour without am / pm is the later of the two that is not past the reference, or (the
        ``connector`` "and" of a window from ``pending``) the first after that."""
        after = pending if connector == "and" else None
        bound = connector in ("after", "before")
        h, m, s, half = clock
        if half == "pm" and h < 12:
            h += 12
        if half == "am" and h == 12:
            h = 0
        base = day or self.now.date()
        options = [h] if half or h >= 12 or h == 0 else [h, h + 12]  # "12:30" is past noon; midnight is "12 am"

        def moment(hour: int, on: dt.date) -> float:
            return dt.datetime.combine(on, dt.time(hour % 24, m, s), self.zone).timestamp()

        if after is not None:  # the end of a window: the first such time after its start, on the start's day
            on = dt.datetime.fromtimestamp(after, self.zone).date()
            later = [moment(x, d) for d in (on, on + dt.timedelta(days=1)) for x in options if moment(x, d) > after]
            if later:
                return min(later)
        candidates = [moment(x, base) for x in options]
        if day is None:
            past = [c for c in candidates if c <= self.reference]
            if past:
                return max(past)
            if bound:
                return min(candidates)
            return moment(options[0], base - dt.timedelta(days=1))
        return min(candidates) if len(options) == 1 or after is None else candidates[0]

    # -- the whole reading ---------------------------------------------------------------------------------------

    def connector(self, i: int) -> tuple[str, int]:
        """The time word before token ``i`` (after, before, between, at, ...) and where it starts; a hedge between
        them ("after about 11:05", "before roughly 9") is part of it."""
        w = self.word(i - 1)
        if w in _HEDGES and i > 1:
            connector, at = self.connector(i - 1)
            if connector and connector != "at":
                return connector, at
        if w == "to" and self.word(i - 2) in ("up", "prior"):
            return "before", i - 2
        if w == "of" and self.word(i - 2) == "as":
            return "before", i - 2
        if w in _END:
            return "before", i - 1
        if w in _START:
            return "after", i - 1
        if w in ("between", "from"):
            return "between", i - 1
        if w in ("and", "to") and any(self.word(j) in ("between", "from") for j in range(max(0, i - 6), i)):
            return "and", i - 1
        if w in _AT:
            return "at", i - 1
        if w in ("on", "during", "in", "this", "that"):
            return "in", i - 1
        return "", i

    def read(self) -> TimeReading:
        moments: list[float] = []
        said: list[str] = []

        def use(first: int, last: int) -> None:
            self.used.update(range(first, last))
            said.append(" ".join(self.tokens[first:last]))

        days = self.days()
        named_day = days[0][2] if len(days) == 1 else None
        start, end = self.days_window(days, use)
        i = 0
        pending_between: float | None = None
        while i < len(self.tokens):
            if i in self.used:
                i += 1
                continue
            w = self.word(i)
            # ISO date-times: "2026-03-02 17:56:32" (UTC, GMT, Z, an offset, else the user's zone)
            if len(w) > 10 and w[4] == "-" and w[10] in " t":
                t, n = self.iso(i)
                if t is not None:
                    connector, at = self.connector(i)
                    if connector == "before":
                        end = t if end is None else min(end, t)
                    elif connector == "after":
                        start = t if start is None else max(start, t)
                    else:
                        moments.append(t)
                    use(at, i + n)
                    i += n
                    continue
            # spans back from the reference: "in the last hour", "over the past 2 days", "10 minutes ago"
            span = self.span(i)
            if span is not None:
                first, last, seconds, ago = span
                if ago:
                    moments.append(self.reference - seconds)
                else:
                    start = max(self.reference - seconds, start or -1e18)
                use(first, last)
                i = last
                continue
            # parts of the day: "this morning", "in the afternoon", "yesterday evening", "tonight"
            if self.part_of_day(i):
                a, b, k = self.part_hours(i)
                day = named_day or self.now.date()
                if named_day is None and self.word(i - 1) == "last" and w in ("night", "evening"):
                    day = self.now.date() - dt.timedelta(days=1)
                    a, b = (18, 30) if w == "night" else (a, b)  # "last night": the evening too
                connector, at = self.connector(k if self.word(k - 1) not in ("the", "this", "last") else k - 1)
                since = self.word(at) == "since"
                s0 = self.day_start(day) + a * 3600
                if s0 > self.reference and named_day is None and self.word(i - 1) != "this":
                    s0 -= 86400  # a part not yet begun is the day before's
                first = at if connector else (k - 1 if self.word(k - 1) in ("the", "this", "last") else k)
                if connector == "before":
                    end = min(s0, end) if end is not None else s0
                elif connector == "after":  # ("since the morning": from its start)
                    start = max(s0 + (0 if since else (b - a) * 3600), start or -1e18)
                else:
                    start = max(s0, start) if start is not None else s0
                    end = min(s0 + (b - a) * 3600, end) if end is not None else s0 + (b - a) * 3600
                    self.parts.append((s0, s0 + (b - a) * 3600))
                use(first, i + 1)
                i += 1
                continue
            connector, at = self.connector(i)
            clock = self.hour_words(i, connector)
            if clock is not None:
                (h, m, s, half), n = clock
                if connector == "between" and not half:
                    half = self.end_half(i + n, h, m)
                t = self.at(named_day, (h, m, s, half), connector, pending_between)
                if connector == "before":
                    end = t if end is None else min(end, t)
                elif connector == "after":
                    start = t if start is None else max(start, t)
                elif connector == "between":
                    start = t if start is None else max(start, t)
                    pending_between = t
                elif connector == "and" and pending_between is not None:
                    end = t if end is None else min(end, t)
                    pending_between = None
                else:  # "at 9", "at 09:00:30", "in that 10:05" a moment
                    moments.append(t)
                use(at, i + n)
                i += n
                continue
            i += 1
        # an hour said with its part of the day is the one in it: "at 10 in the evening" is 22:00 (that evening's)
        narrowest = min(self.parts, key=lambda p: p[1] - p[0], default=None)
        if narrowest is not None:
            a, b = narrowest
            moments = [next((m + d for d in (0, 43200, -43200) if a <= m + d < b), m) for m in moments]
        if "since" in self.tokens and not {"before", "until", "till", "til"} & set(self.tokens):
            end = None  # "since yesterday evening", "since 6 pm yesterday": until now (the day says which)
            if start is not None and moments and min(moments) >= start:  # "since friday noon": from its noon
                start, moments = min(moments), []
        start, end = _read_window(start, end, moments, self.parts)
        time = Time(start, end, tuple(moments), tuple(said), to_second=_to_second(said, moments))
        return TimeReading(time, frozenset(self.used))

    def days_window(
        self, days: list[tuple[int, int, dt.date]], use: Callable[[int, int], None]
    ) -> tuple[float | None, float | None]:
        """The window the days said make ("yesterday", "before monday", "after march 2"), each said used."""
        start: float | None = None
        end: float | None = None
        for first, last, day in days:
            connector, at = self.connector(first)
            day_start = self.day_start(day)
            if connector == "before":
                end = min(day_start, end) if end is not None else day_start
            elif connector == "after":  # ("since yesterday": from its start)
                start = max(day_start + (0 if self.word(at) == "since" else 86400), start or -1e18)
            else:
                start = max(day_start, start) if start is not None else day_start
                end = min(day_start + 86400, end) if end is not None else day_start + 86400
                self.parts.append((day_start, day_start + 86400))  # ("at 6 pm yesterday": the day says which 6 pm)
            use(min(at, first), last)
        return start, end

    def iso(self, i: int) -> tuple[float | None, int]:
        text = self.word(i).replace(" ", "T")
        n = 1
        zone = self.word(i + 1)
        if zone in _ZONES:
            text += "+00:00"
            n = 2
        try:
            moment = dt.datetime.fromisoformat(text.upper().replace("Z", "+00:00"))
        except ValueError:
            return None, 1
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=self.zone)
        return moment.timestamp(), n

    def span(self, i: int) -> tuple[int, int, float, bool] | None:
        """(first, last, seconds, ago) of "(in|over|during|within) the (last|past) [N] UNIT[s]" or "N UNIT[s] ago"."""
        w = self.word(i)
        if w in ("last", "past") and self.word(i - 1) in ("the", "") or w == "past" and self.word(i - 1) == "in":
            j = i + 1
            amount = 1.0
            if self.word(j).isdigit() or self.word(j) in NUMBER_WORDS:
                amount = float(self.word(j)) if self.word(j).isdigit() else float(NUMBER_WORDS[self.word(j)])
                j += 1
                if self.word(j) == "of":  # "the last couple of hours"
                    j += 1
            j, half = (j + 3, 0.5) if self.tokens[j : j + 3] == _AND_A_HALF else (j, 0.0)  # "seven and a half hours"
            if self.word(j) in UNITS:
                unit = UNITS[self.word(j)]
                if self.tokens[j + 1 : j + 4] == _AND_A_HALF:  # "the last hour and a half"
                    j, half = j + 3, 0.5
                first = i - 2 if self.word(i - 2) in ("in", "over", "during", "within", "for") else i - 1
                return max(first, 0), j + 1, (amount + half) * unit, False
            return None
        if (w.isdigit() or w in NUMBER_WORDS) and self.word(i + 1) in UNITS and self.word(i + 2) == "ago":
            amount = float(w) if w.isdigit() else float(NUMBER_WORDS[w])
            return i, i + 3, amount * UNITS[self.word(i + 1)], True
        if w in ("recently", "lately") and self.word(i - 1) not in (
            "most",
            "more",
            "less",
        ):  # "more recently": an order
            return i, i + 1, 3600.0, False
        return None


def _read_window(
    start: float | None, end: float | None, moments: Sequence[float], parts: Sequence[tuple[float, float]]
) -> tuple[float | None, float | None]:
    """The window read: none where it is only the day or the part of the day a moment said in it is in ("at half
    past ten in the morning", "at 6 pm yesterday": they say which half past ten, they are no window); a window that
    closes before it opens keeps its start ("after 9 until 8" is misread)."""
    if start is None or end is None:
        return start, end
    if moments and (start, end) in parts and all(start <= m < end for m in moments):
        return None, None
    return (start, None) if end <= start else (start, end)


def read_times(tokens: Sequence[str], reference: float, zone: str | ZoneInfo = "UTC") -> TimeReading:
    """The times ``tokens`` name, relative to ``reference`` (Unix seconds) in ``zone``, and which tokens they were."""
    return _Reader(tokens, reference, zone if isinstance(zone, ZoneInfo) else ZoneInfo(zone)).read()


#: Words that hold a span against a length: "more than a minute", "over ten seconds", "under an hour".
_LONGER = frozenset({"more", "longer", "over", "above", "beyond"})
_SHORTER = frozenset({"less", "shorter", "under", "below", "fewer"})


#: Words around a time that belong to it when it is one of two choices: "before or after 10:30", "in the morning or
#: the afternoon", "at 9 or at 10".
_CHOICE_WORDS = frozenset({"before", "after", "in", "the", "at", "around", "about", "during", "this", "on", "by"})


def read_time_choices(
    tokens: Sequence[str], reference: float, zone: str | ZoneInfo = "UTC"
) -> tuple[tuple[str, Time], ...]:
    """The two windows of "was it before or after 10:30?", "in the morning or the afternoon?" (each with the words
    that name it); () when the words choose between no two times. Each choice is the sentence read with the other
    left out, so "before or after 10:30" is before 10:30, and after it."""
    used = read_times(tokens, reference, zone).used
    shared = _shared_connector(tokens, used)
    if len(shared) != len(tokens):  # "at 10 or 11": "at 10 or at 11"
        tokens, used = shared, read_times(shared, reference, zone).used
    for k, w in enumerate(tokens):
        if w != "or" or k == 0:
            continue
        left = k
        while left > 0 and (left - 1 in used or tokens[left - 1] in _CHOICE_WORDS):
            left -= 1
        right = k + 1
        while right < len(tokens) and (right in used or tokens[right] in _CHOICE_WORDS):
            right += 1
        if left == k or right == k + 1 or not (used & set(range(left, right))):
            continue
        # "before or after 10:30": a choice without a time of its own takes the other's ("before 10:30")
        own = used & set(range(left, k))
        borrowed = next((j for j in range(k + 1, right) if j in used and tokens[j] not in _CHOICE_WORDS), right)
        borrowed = right if own else borrowed
        first = _window(read_times([*tokens[:k], *tokens[borrowed:]], reference, zone).time)
        # "before 10:30 or after": the second choice, without a time of its own, takes the first's ("after 10:30")
        lent = (
            []
            if used & set(range(k + 1, right))
            else [tokens[j] for j in sorted(own) if tokens[j] not in _CHOICE_WORDS]
        )
        second = _window(
            read_times([*tokens[:left], *tokens[k + 1 : right], *lent, *tokens[right:]], reference, zone).time
        )
        if first.named and second.named and (first.start, first.end) != (second.start, second.end):
            return (" ".join(first.said), first), (" ".join(second.said), second)
    return ()


def _shared_connector(tokens: Sequence[str], used: frozenset[int]) -> list[str]:
    """ "At 10 or 11": the second choice, a bare number, said with the first's word ("at 10 or at 11"), which a bare
    number needs to be an hour."""
    out = list(tokens)
    for k in range(2, len(out) - 1):
        after = out[k + 1]
        bare = after.isdigit() and int(after) <= 24 or NUMBER_WORDS.get(after, 99) <= 12 or _clock_token(after)
        if (
            out[k] == "or"
            and k - 1 in used
            and bare
            and out[k - 2] in ("at", "around", "about", "by", "after", "before")
        ):
            return [*out[: k + 1], out[k - 2], *out[k + 1 :]]
    return out


#: The hours said in words: "nine oh one".
_HOUR_WORDS = {w: n for w, n in NUMBER_WORDS.items() if 1 <= n <= 12 and w not in ("a", "an", "couple", "few")}
#: Minutes said in words after an hour: "oh five", "fifteen", "thirty", "forty five".
_MINUTE_WORDS = {
    **{w: n for w, n in NUMBER_WORDS.items() if 10 <= n <= 59},
    **{w: n for w, n in (("thirteen", 13), ("fourteen", 14), ("sixteen", 16), ("seventeen", 17), ("eighteen", 18),
                         ("nineteen", 19))},
}  # fmt: skip


def _spoken_minutes(tokens: Sequence[str], j: int) -> tuple[int, int] | None:
    """(minutes, words used) of the minutes said in words after an hour at ``j``: "oh five" (5), "fifteen", "forty
    five" (45); None where none are ("nine o'clock", "nine and ten", "nine people")."""
    word = tokens[j] if j < len(tokens) else ""
    after = tokens[j + 1] if j + 1 < len(tokens) else ""
    if word in ("oh", "o") and after in _HOUR_WORDS and _HOUR_WORDS[after] <= 9:
        return _HOUR_WORDS[after], 2
    if word in _MINUTE_WORDS:
        tens = _MINUTE_WORDS[word]
        if tens % 10 == 0 and tens >= 20 and after in _HOUR_WORDS and _HOUR_WORDS[after] <= 9:
            return tens + _HOUR_WORDS[after], 2
        return tens, 1
    return None


def _window(time: Time) -> Time:
    """A time as a window: a moment ("at 9") is the half hour either side of it."""
    if time.start is not None or time.end is not None or not time.moments:
        return time
    return replace(time, start=min(time.moments) - 1800.0, end=max(time.moments) + 1800.0, moments=())


def _minutes_said(tokens: Sequence[str], i: int) -> tuple[int, int]:
    """(minutes, tokens) of the minutes before "past" / "to" at token ``i``: "quarter" 15, "half" 30, "ten" or "10"
    (and "minutes" after them) up to 59; (0, 0) where none is said."""
    w = tokens[i] if i < len(tokens) else ""
    if w in ("quarter", "half"):
        return (15 if w == "quarter" else 30), 1
    n = int(w) if w.isdigit() else NUMBER_WORDS.get(w, 0) if w not in ("a", "an", "few", "couple") else 0
    unit = tokens[i + 1 : i + 2] in (["minutes"], ["mins"], ["min"])
    ambiguous = tokens[i + 1 + unit : i + 2 + unit] in (["after"], ["to"])
    # as clocks are read out: "ten past", "25 past", "ten to" (spelt), "7 minutes to"; not "camera 1 after 3 pm" nor
    # "10 to 11" (from 10 to 11)
    if not 1 <= n <= 59 or not (unit or n % 5 == 0) or (ambiguous and w.isdigit() and not unit):
        return 0, 0
    return n, 1 + unit


def _on_clock(hour: int, half: str) -> int:
    """An hour said with am / pm as the 24-hour clock's."""
    if half == "pm" and hour < 12:
        return hour + 12
    return 0 if half == "am" and hour == 12 else hour


def read_span(tokens: Sequence[str]) -> tuple[str, float, tuple[str, ...]] | None:
    """A length a span is held against ("for more than a minute", "over ten seconds", "less than half an hour"):
    ("more" or "fewer", seconds, the words it took), or None when the tokens hold none."""
    for i, w in enumerate(tokens):
        if w not in _LONGER and w not in _SHORTER or "or" in tokens[max(0, i - 1) : i + 2]:
            continue  # "more or less than a minute?" asks which, not whether
        j = i + 1 + (i + 1 < len(tokens) and tokens[i + 1] == "than")
        took = list(tokens[i:j])
        n = 1.0
        if j < len(tokens) and tokens[j] == "half" and j + 1 < len(tokens) and tokens[j + 1] in ("a", "an"):
            n, took, j = 0.5, [*took, tokens[j], tokens[j + 1]], j + 2
        elif j < len(tokens) and (tokens[j].replace(".", "", 1).isdigit() or tokens[j] in NUMBER_WORDS):
            n = float(tokens[j]) if tokens[j][0].isdigit() else float(NUMBER_WORDS[tokens[j]])
            took, j = [*took, tokens[j]], j + 1
        else:
            continue
        if j < len(tokens) and tokens[j] in UNITS:
            return ("more" if w in _LONGER else "fewer"), n * UNITS[tokens[j]], (*took, tokens[j])
    return None
