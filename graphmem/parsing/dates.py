"""Time expressions in chat text, resolved against a reference time.

"I moved here last month" is only meaningful next to the date it was said, so
every expression resolves against a *reference* (the session time of the
episode, or a query's ``now``) and never against the wall clock (ARCHITECTURE §4).

Finding and resolving are separate steps. Finding is one precompiled regex,
cheap enough to run on every sentence of every turn; ``dateparser.search`` is
both slow and noisy on chat text ("may", "second", "march"). Resolving is pure
calendar arithmetic with ``dateutil.relativedelta``, plus ``dateparser`` for
explicit calendar dates ("March 5th, 2023", "the 5th of March"), whose many
spellings it already knows.

A resolved expression is a `TimeRange`: the calendar period it names, aligned
to its granularity ("two years ago" on 2024-07-15 is the year 2022, "last
month" is June 2024), ``end`` exclusive, or open-ended for "since ...". Weeks
start on Monday.

    >>> ref = datetime(2024, 7, 15, 10, tzinfo=UTC)
    >>> resolve("last month", ref).start
    datetime.datetime(2024, 6, 1, 0, 0, tzinfo=datetime.timezone.utc)
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta
from functools import lru_cache
from typing import Literal, NamedTuple

from dateutil.relativedelta import relativedelta
from pydantic import BaseModel, ConfigDict

from graphmem.schema.errors import InvalidInput
from graphmem.schema.time import storable

Granularity = Literal["day", "week", "month", "year"]
Prefer = Literal["past", "future"]


class TimeRange(BaseModel):
    """The calendar period an expression names: ``[start, end)``, or from ``start`` on."""

    model_config = ConfigDict(frozen=True)

    start: datetime
    end: datetime | None
    granularity: Granularity
    open_ended: bool = False

    def label(self) -> str:
        """How a fact sentence names the period: "14 July 2024", "June 2024", "2022"."""
        s = self.start
        if self.granularity == "day" and self.end is not None and self.end - s == timedelta(days=2) and s.weekday() == 5:
            return f"the weekend of {s.day} {s:%B %Y}"
        if self.granularity == "month" and self.end is not None and self.end == s + relativedelta(months=3) \
                and s.month in _SEASON_OF:
            return f"{_SEASON_OF[s.month]} {s.year}"
        if self.end is not None and self.end - s > _ONE[self.granularity]:
            last = self.end - timedelta(days=1)  # "the past three months": a span of several periods
            if self.granularity == "year":
                return f"{s.year} to {last.year}"
            if self.granularity == "month":
                return f"{s:%B %Y} to {last:%B %Y}"
            return f"{s.day} {s:%B %Y} to {last.day} {last:%B %Y}"
        if self.granularity == "day":
            return f"{s.day} {s:%B %Y}"
        if self.granularity == "week":
            return f"the week of {s.day} {s:%B %Y}"
        if self.granularity == "month":
            return f"{s:%B %Y}"
        return f"{s.year}"


_ONE = {"day": timedelta(days=1), "week": timedelta(days=7), "month": timedelta(days=31), "year": timedelta(days=366)}


class TimeSpan(NamedTuple):
    """Where an expression sits in a text: ``text[start:end] == expression``."""

    start: int
    end: int
    expression: str


# ---------------------------------------------------------------- vocabulary

_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17,
    "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
    "a couple of": 2, "a couple": 2, "couple of": 2, "a few": 3, "few": 3,
}
_MONTHS = {
    "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7,
    "august": 8, "september": 9, "october": 10, "november": 11, "december": 12,
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9,
    "sept": 9, "oct": 10, "nov": 11, "dec": 12,
}
# meteorological seasons (northern hemisphere): the month each starts in
# day ordinals in words ("the tenth of June", "May first"), hyphenated or spaced
_ORDINALS = {w: i for i, w in enumerate((
    "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
    "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth",
    "eighteenth", "nineteenth", "twentieth"), start=1)}
_ORDINALS |= {f"twenty {w}": 20 + i for w, i in list(_ORDINALS.items())[:9]}
_ORDINALS |= {"thirtieth": 30, "thirty first": 31}
_SEASONS = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}
_SEASON_OF = {3: "spring", 6: "summer", 9: "autumn", 12: "winter"}
_WEEKDAYS = {d: i for i, d in enumerate(
    ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"))}
_DAY_OFFSETS = {
    "the day before yesterday": -2, "day before yesterday": -2, "yesterday": -1,
    "last night": -1, "today": 0, "tonight": 0, "this morning": 0, "this afternoon": 0,
    "this evening": 0, "tomorrow": 1, "the day after tomorrow": 2, "day after tomorrow": 2,
}


def _alternation(words) -> str:
    """Longest first, so "a couple of" wins over "a" in a regex alternation."""
    return "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in sorted(words, key=len, reverse=True))


_NUM = rf"(?:\d{{1,3}}|{_alternation(_NUMBERS)})"
_UNIT = r"(?:day|week|month|year)s?"
_WD = rf"(?:{_alternation(_WEEKDAYS)})"
_MONTH_FULL = rf"(?:{_alternation(m for m in _MONTHS if len(m) > 4 or m in ('may', 'june', 'july'))})"
_MONTH_ANY = rf"(?:{_alternation(_MONTHS)})\.?"
_DAY_WORDS = re.compile("|".join(w.replace(" ", r"[\s-]") for w in sorted(_ORDINALS, key=len, reverse=True)))
_DAY = rf"(?:(?:[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?|{_DAY_WORDS.pattern})"
_YEAR = r"(?:19|20)\d{2}"
_PREP = r"(?:since|in|on|during|by|until|till|from|of|around|back\s+in|over)"
_QUAL = r"(?:last|this|next|early|late|mid)"

_CORES = (
    r"\d{4}-\d{2}-\d{2}",
    rf"{_MONTH_ANY}\s+{_DAY}(?:,?\s+{_YEAR})?(?!\d)",
    rf"(?:the\s+)?{_DAY}\s+(?:of\s+)?{_MONTH_ANY}(?:,?\s+{_YEAR})?",
    rf"{_MONTH_FULL},?\s+{_YEAR}",
    rf"{_NUM}\s+{_UNIT}\s+(?:ago|from\s+now|from\s+today)",
    _alternation(_DAY_OFFSETS),
    r"(?:last|this|next|(?:this\s+)?past)\s+(?:week|month|year|weekend)",
    rf"(?:the\s+)?(?:last|past)\s+{_NUM}\s+{_UNIT}",
    rf"(?:(?:last|this|next|this\s+past|this\s+coming|coming)\s+)?{_WD}",
    r"the\s+weekend",
    rf"{_QUAL}[\s-]+{_MONTH_FULL}",
    rf"(?(prep){_MONTH_FULL}|(?!))",
    # "in the spring", "over the summer", "last winter", "in autumn 2023"; a bare "spring" (rolls, cleaning) is none
    rf"(?:(?:last|this|next|this\s+past)\s+|(?(prep)(?:the\s+)?|(?!)))(?:spring|summer|autumn|fall|winter)"
    rf"(?:\s+(?:of\s+)?{_YEAR})?",
    rf"(?(prep){_YEAR}|(?!))",
)
_FINDER = re.compile(
    rf"\bin\s+(?:about\s+|around\s+|another\s+)?(?!(?:a|an|one)\s+(?:day|week|month|year)\b(?!\s+or\s))"
    rf"{_NUM}\s+{_UNIT}(?!\s+ago)(?![\w-])"
    rf"|\b(?:(?P<prep>{_PREP})\s+)?(?:{'|'.join(_CORES)})(?![\w-])",
    re.IGNORECASE,
)

# ------------------------------------------------------------------- finding


def find_time_spans(text: str) -> list[TimeSpan]:
    """Every time expression in `text` with its position, in order.

    Example: find_time_spans("I moved last month") -> [TimeSpan(8, 18, "last month")]
    """
    if not isinstance(text, str):
        raise InvalidInput(f"text must be a str, not {type(text).__name__}")
    return [TimeSpan(m.start(), m.end(), m.group(0)) for m in _FINDER.finditer(text) if _plausible(m.group(0))]


def find_time_expressions(text: str) -> list[str]:
    """The time expressions in `text`, ordered by position.

    Example: find_time_expressions("Since 2019 I visit yearly, last in May") -> ["Since 2019", "in May"]
    """
    return [span.expression for span in find_time_spans(text)]


def _plausible(expression: str) -> bool:
    """Drop "may" the verb ("you may 2x it"): lowercase "may" opens no date."""
    return not expression.startswith("may ")


# ----------------------------------------------------------------- resolving


def resolve(expression: str, reference: datetime, prefer: Prefer = "past") -> TimeRange | None:
    """The period `expression` names, seen from `reference`; None if it names none.

    `prefer` settles expressions without a direction ("in March", "on Friday",
    "March 5"): the most recent one not after `reference`, or the next one.

    Example: resolve("two years ago", datetime(2024, 7, 15, tzinfo=UTC))
    -> TimeRange(start=2022-01-01, end=2023-01-01, granularity="year")
    """
    if not isinstance(expression, str):
        raise InvalidInput(f"expression must be a str, not {type(expression).__name__}")
    ref = _check_reference(reference)
    if prefer not in ("past", "future"):
        raise InvalidInput(f"prefer must be 'past' or 'future', not {prefer!r}")
    normal = " ".join(expression.lower().replace(",", " ").split()).strip(" .!?;:")
    try:
        found = _resolve(normal, ref, prefer)
    except (OverflowError, ValueError):  # "next year" on 9999-12-20: past what a date holds
        return None
    return found if found is None or _storable(found) else None


def _storable(found: TimeRange) -> bool:
    """Whether every date of the range can be stored (years 1000-9999, `schema.time`): "last
    year" said on 1000-01-05 names year 999, which no fact may carry."""
    return all(storable(moment) for moment in (found.start, found.end) if moment is not None)


def resolve_in_text(text: str, reference: datetime, prefer: Prefer = "past") -> TimeRange | None:
    """The range of the first resolvable time expression in `text`, or None.

    Example: resolve_in_text("I moved to Shanghai last month.", ref) -> June of ref's year
    """
    _check_reference(reference)
    for expression in find_time_expressions(text):
        found = resolve(expression, reference, prefer)
        if found is not None:
            return found
    return None


def _check_reference(reference: datetime) -> datetime:
    """Aware UTC, or a clear error: a naive reference would silently mean local time."""
    if not isinstance(reference, datetime):
        raise InvalidInput(f"reference must be a datetime, not {type(reference).__name__}")
    if reference.tzinfo is None or reference.utcoffset() is None:
        raise InvalidInput(f"reference must be timezone-aware (UTC), got naive {reference.isoformat()}")
    return reference.astimezone(UTC)


@lru_cache(maxsize=4096)
def _resolve(normal: str, ref: datetime, prefer: Prefer) -> TimeRange | None:
    if normal.startswith("since "):
        inner = _resolve(normal[6:], ref, "past")
        return inner.model_copy(update={"end": None, "open_ended": True}) if inner else None
    m = _IN_DURATION.fullmatch(normal)
    if m:
        return _offset(_number(m["n"]), m["unit"], +1, ref)
    core = _PREFIX.sub("", normal, count=1)
    for pattern, handler in _HANDLERS:
        m = pattern.fullmatch(core)
        if m:
            return handler(m, ref.date(), prefer)
    return None


_IN_DURATION = re.compile(rf"in (?:about |around |another )?(?P<n>{_NUM}) (?P<unit>{_UNIT})")
_PREFIX = re.compile(rf"^{_PREP} ")


def _number(word: str) -> int:
    return int(word) if word.isdigit() else _NUMBERS[" ".join(word.split())]


def _unit(word: str) -> Granularity:
    return word.rstrip("s")  # type: ignore[return-value]


# --------------------------------------------------------------- periods


def _day_range(d: date) -> TimeRange:
    start = datetime(d.year, d.month, d.day, tzinfo=UTC)
    return TimeRange(start=start, end=start + timedelta(days=1), granularity="day")


def _period(d: date, granularity: Granularity) -> TimeRange:
    """The calendar day, week (Monday-start), month or year containing `d`."""
    if granularity == "day":
        return _day_range(d)
    if granularity == "week":
        first = d - timedelta(days=d.weekday())
        step = relativedelta(weeks=1)
    elif granularity == "month":
        first, step = d.replace(day=1), relativedelta(months=1)
    else:
        first, step = d.replace(month=1, day=1), relativedelta(years=1)
    start = datetime(first.year, first.month, first.day, tzinfo=UTC)
    return TimeRange(start=start, end=start + step, granularity=granularity)


def _offset(n: int, unit: str, sign: int, ref: datetime) -> TimeRange:
    """ "3 days ago", "in two weeks": the period of that unit `n` units away."""
    granularity = _unit(unit)
    delta = relativedelta(**{f"{granularity}s": sign * n})
    return _period(ref.date() + delta, granularity)


def _weekend(d: date) -> TimeRange:
    """Saturday and Sunday of the Monday-start week containing `d`."""
    saturday = d - timedelta(days=d.weekday()) + timedelta(days=5)
    start = datetime(saturday.year, saturday.month, saturday.day, tzinfo=UTC)
    return TimeRange(start=start, end=start + timedelta(days=2), granularity="day")


# -------------------------------------------------------------- handlers


def _h_iso(m: re.Match, today: date, prefer: Prefer) -> TimeRange | None:
    try:
        return _day_range(date.fromisoformat(m[0]))
    except ValueError:
        return None


def _h_calendar_date(m: re.Match, today: date, prefer: Prefer) -> TimeRange | None:
    """ "March 5", "5 March 2023", "the 5th of March": dateparser knows the spellings."""
    base = datetime(today.year, today.month, today.day)
    settings = {
        "RELATIVE_BASE": base, "PREFER_DATES_FROM": prefer, "RETURN_AS_TIMEZONE_AWARE": True,
        "TIMEZONE": "UTC", "TO_TIMEZONE": "UTC", "REQUIRE_PARTS": ["day", "month"],
    }
    import dateparser  # deferred: ~0.5 s to import, needed only for a spelled-out date

    spelled = _DAY_WORDS.sub(lambda w: str(_ORDINALS[" ".join(w[0].replace("-", " ").split())]), m[0])
    parsed = dateparser.parse(spelled, languages=["en"], settings=settings)
    if parsed is None:
        return None
    found = parsed.date()
    if prefer == "future" and not m["year"] and (found.month, found.day) == (today.month, today.day):
        found = today  # dateparser's "future" skips today; "on July 15" said on July 15 means today
    return _day_range(found)


def _h_offset(m: re.Match, today: date, prefer: Prefer) -> TimeRange:
    sign = -1 if m["dir"] == "ago" else +1
    return _offset(_number(m["n"]), m["unit"], sign, datetime(today.year, today.month, today.day, tzinfo=UTC))


def _h_last_n(m: re.Match, today: date, prefer: Prefer) -> TimeRange:
    """ "the past three months", "in the last 2 weeks": from the period `n` units back
    up to and including today, at that unit's granularity."""
    granularity = _unit(m["unit"])
    back = _period(today - relativedelta(**{f"{granularity}s": _number(m["n"])}), granularity)
    return TimeRange(start=back.start, end=_day_range(today).end, granularity=granularity)


def _h_day(m: re.Match, today: date, prefer: Prefer) -> TimeRange:
    return _day_range(today + timedelta(days=_DAY_OFFSETS[m[0]]))


_STEP = {"last": -1, "past": -1, "this past": -1, "this": 0, "next": +1}
_WEEKDAY_REL = {"last": "last", "this past": "last", "this": "this", "next": "next", "this coming": "next",
                "coming": "next"}


def _h_relative_period(m: re.Match, today: date, prefer: Prefer) -> TimeRange:
    """ "last week", "next month", "this year", "last weekend"."""
    step, unit = _STEP[m["rel"]], m["unit"]
    if unit == "weekend":
        return _weekend(today + timedelta(weeks=step))
    return _period(today + relativedelta(**{f"{unit}s": step}), unit)


def _h_weekday(m: re.Match, today: date, prefer: Prefer) -> TimeRange:
    """ "last Friday" is the latest Friday before today, "next Friday" the first after,
    "this Friday" the one of this week; a bare "Friday" follows `prefer`."""
    target = _WEEKDAYS[m["wd"]]
    rel = _WEEKDAY_REL.get(m["rel"] or "", "last" if prefer == "past" else "next")
    if rel == "this":
        return _day_range(today - timedelta(days=today.weekday()) + timedelta(days=target))
    if rel in ("last", "this past"):
        back = (today.weekday() - target) % 7 or 7
        return _day_range(today - timedelta(days=back))
    ahead = (target - today.weekday()) % 7 or 7
    return _day_range(today + timedelta(days=ahead))


def _h_the_weekend(m: re.Match, today: date, prefer: Prefer) -> TimeRange:
    """ "over the weekend": this week's if it has started (or is ahead, for future talk)."""
    if prefer == "future" or today.weekday() >= 5:
        return _weekend(today)
    return _weekend(today - timedelta(weeks=1))


def _h_month(m: re.Match, today: date, prefer: Prefer) -> TimeRange:
    """ "in March", "last March", "next March", "early March" (qualifiers beyond
    last/this/next only say where in the month, so the month is the range)."""
    month, qual = _MONTHS[m["month"]], m["qual"]
    this_year = today.replace(month=month, day=1)
    if qual == "this":
        chosen = this_year
    elif qual == "last" or (qual != "next" and prefer == "past"):
        # latest such month not after today ("last" excludes the current month)
        chosen = this_year if (month < today.month or (month == today.month and qual != "last")) \
            else this_year.replace(year=today.year - 1)
    else:
        chosen = this_year if (month > today.month or (month == today.month and qual != "next")) \
            else this_year.replace(year=today.year + 1)
    return _period(chosen, "month")


def _h_month_year(m: re.Match, today: date, prefer: Prefer) -> TimeRange:
    return _period(date(int(m["year"]), _MONTHS[m["month"]], 1), "month")


def _h_year(m: re.Match, today: date, prefer: Prefer) -> TimeRange:
    return _period(date(int(m["year"]), 1, 1), "year")


def _season_range(year: int, month: int) -> TimeRange:
    start = datetime(year, month, 1, tzinfo=UTC)
    return TimeRange(start=start, end=start + relativedelta(months=3), granularity="month")


def _h_season(m: re.Match, today: date, prefer: Prefer) -> TimeRange:
    """ "in the spring": the latest spring begun by `today` (or the next, for future
    talk); "last" is the one before the latest, "this" the latest; "winter 2023" starts
    in December 2023. Three months, labelled by the season."""
    month, rel = _SEASONS[m["season"]], m["rel"]
    if m["year"]:
        return _season_range(int(m["year"]), month)
    latest = today.year if (today.month, today.day) >= (month, 1) else today.year - 1  # begun by today
    current = today < date(latest, month, 1) + relativedelta(months=3)
    if rel in ("last", "this past"):
        year = latest - 1 if current else latest
    elif rel == "next" or (rel is None and prefer == "future" and not current):
        year = latest + 1
    else:
        year = latest
    return _season_range(year, month)


_MONTH_GROUP = rf"(?P<month>{_alternation(_MONTHS)})\.?"
_HANDLERS = tuple(
    (re.compile(pattern), handler)
    for pattern, handler in (
        (r"\d{4}-\d{2}-\d{2}", _h_iso),
        (rf"{_MONTH_GROUP} {_DAY}(?: (?P<year>{_YEAR}))?", _h_calendar_date),
        (rf"(?:the )?{_DAY} (?:of )?{_MONTH_GROUP}(?: (?P<year>{_YEAR}))?", _h_calendar_date),
        (rf"{_MONTH_GROUP} (?P<year>{_YEAR})", _h_month_year),
        (rf"(?P<n>{_NUM}) (?P<unit>{_UNIT}) (?P<dir>ago|from now|from today)", _h_offset),
        (_alternation(_DAY_OFFSETS), _h_day),
        (r"(?:the )?(?P<rel>last|this past|past|this|next) (?P<unit>week|month|year|weekend)", _h_relative_period),
        (rf"(?:the )?(?:last|past) (?P<n>{_NUM}) (?P<unit>{_UNIT})", _h_last_n),
        (rf"(?:(?P<rel>last|this past|this coming|coming|this|next) )?(?P<wd>{_WD})", _h_weekday),
        (r"the weekend", _h_the_weekend),
        (rf"(?:(?P<qual>{_QUAL})[ -])?{_MONTH_GROUP}", _h_month),
        (rf"(?P<year>{_YEAR})", _h_year),
        (rf"(?:the )?(?:(?P<rel>last|this past|this|next) )?(?P<season>spring|summer|autumn|fall|winter)"
         rf"(?: (?:of )?(?P<year>{_YEAR}))?", _h_season),
    )
)

__all__ = ["TimeRange", "TimeSpan", "find_time_expressions", "find_time_spans", "resolve", "resolve_in_text"]
