"""Intervals a clause states in full: "from 2015 to 2020", "between May 2019 and
March 2021", "2015-2019", and a past end, "until June 2020".

Why a module of its own: `parsing.dates` finds single expressions, and a bare
year or month only after a preposition it knows ("in 2020", "since May"); the
second half of a range ("to 2020", "and March 2021") is none of these, and
reading it as a start or an expiry got the interval wrong: "I lived in Oslo
from 2015 to 2020" was read as living there since 2015, and "until June 2020"
as an expiry in the past, which hides the fact at once and lets `purge` delete
it (ARCHITECTURE §7).

Pure functions of the text and the session time; `rules.timing` decides which
draft an interval belongs to.
"""

from __future__ import annotations

import re
from datetime import datetime
from functools import lru_cache
from typing import NamedTuple

from dateutil.relativedelta import relativedelta

from graphmem.parsing.dates import TimeRange, find_time_spans, resolve

__all__ = ["Interval", "PAST_EVENT", "past_end", "present_twin", "ranges"]

_OPEN = re.compile(r"\b(?:from|between)\s+", re.IGNORECASE)
_JOIN = re.compile(r"\s*(?:on(?:wards?)?\s+)?(?:up\s+(?:until|till|to)|to|until|till|til|through|thru|and|-|\u2013|\u2014)\s*",
                   re.IGNORECASE)  # "from 2017 onwards until the end of 2021"
_UNTIL_WORD = re.compile(r"(?:on(?:wards?)?\s+)?(?:up\s+)?(?:until|till|til)", re.IGNORECASE)
_BETWEEN = re.compile(r"between", re.IGNORECASE)
# two times with their years joined without an opening word: "2014-2017", "2011 through 2022", "back in sept
# 2010 thru may 2014", "fall 2018 through summer 2021"; the word before a year is tried with it, then left out
_DATED = r"(?:(?:[A-Za-z]{3,9}\.?|early|mid|late)[\s-]+)?(?:19|20)\d\d"
_YEARS = re.compile(rf"(?<![\w-])({_DATED})(?:\s*[-\u2013\u2014]\s*|\s+(?:to|through|thru|until|till|til|up\s+to|up\s+until)\s+)"
                    rf"({_DATED})(?![\w-])", re.IGNORECASE)
# a time said roughly is that time: "from about 2015", "roughly 2010 till 2013"
_ROUGHLY = re.compile(r"(?:about|around|roughly|approximately|approx\.?|circa|c\.)\s+", re.IGNORECASE)
_WORD = re.compile(r"[\w']+")
# a weekly routine is no interval of a life: "I work at Acme from Monday to Friday"
_ROUTINE = re.compile(r"\b(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b|\b(?:weekends?|today|tomorrow|tonight|"
                      r"morning|afternoon|evening|night)\b", re.IGNORECASE)
# "early 2021", "the end of 2019", "mid-March": a part of the period
_PART = re.compile(r"(?P<part>early|mid|late|the\s+(?:start|beginning|middle|end)\s+of)[\s-]+(?=\w)", re.IGNORECASE)
_CLAUSE_END = re.compile(r"[,;:.!?]")
MAX_WORDS = 4  # "the end of March 2021" is the longest either half needs
# the clause speaks of the past: "I was at Acme till March" means last March, "I'm at Acme till March" the next
PAST_TENSE = re.compile(r"\b(?:was|were|lived|worked|stayed|studied|dated|had|owned|used\s+to|spent|kept|ran|"
                        r"taught|rented|shared|attended)\b", re.IGNORECASE)


# an until clause that tells of the past: "until we moved ...", "until the divorce went through ..."; "until the
# repair guy shows up Thursday" is still ahead
PAST_EVENT = re.compile(r"\b(?:[a-z]{2,}ed|went|got|sold|left|came|became|took|broke|split|was|were|had|began|found|"
                        r"met|quit|ran|gave|made|lost|bought|drove|flew|grew|won|fell|wrote|paid|set|put)\b", re.IGNORECASE)


class Interval(NamedTuple):
    """A stated interval: where it is in the text, its first period and its last. With
    `last_is_event`, the last period dates what ended it ("until we moved in spring 2021"):
    the interval ends at that moment, not at the end of the period."""

    start_pos: int
    end_pos: int
    first: TimeRange
    last: TimeRange
    last_is_event: bool = False
    first_said: str = ""  # the words each half was said in ("early 2015"), for the fact's sentence
    last_said: str = ""


def _times(text: str, pos: int, session: datetime) -> list[tuple[int, TimeRange]]:
    """(end position, period) of each run of 1-4 words at `pos` that reads as a time, shortest first."""
    if not re.match(r"\s*[\w']", text[pos:]):
        return []
    if (rough := _ROUGHLY.match(text, pos)) is not None:
        pos = rough.end()
    part = _PART.match(text, pos)
    start = part.end() if part is not None else pos
    ends = [m.end() for m in _WORD.finditer(text, start, min(len(text), start + 60))][:MAX_WORDS]
    found = ((end, resolve(text[start:end], session, "past")) for end in ends if not _ROUTINE.search(text, start, end))
    return [(end, _part_of(period, part["part"]) if part is not None else period)
            for end, period in found if period is not None and period.end is not None]


def _part_of(period: TimeRange, part: str) -> TimeRange:
    """A third of a year (by months) or of a month (by days): "early 2021" is January to April,
    "late May" the 21st on."""
    word = part.split()[-2] if part.lower().startswith("the") else part
    index = {"early": 0, "start": 0, "beginning": 0, "mid": 1, "middle": 1, "late": 2, "end": 2}[word.lower()]
    if period.granularity == "year":
        start = period.start + relativedelta(months=4 * index)
        return period.model_copy(update={"start": start, "end": start + relativedelta(months=4), "granularity": "month"})
    if period.granularity == "month":
        start = period.start + relativedelta(days=10 * index)
        end = period.end if index == 2 else start + relativedelta(days=10)
        return period.model_copy(update={"start": start, "end": end, "granularity": "day"})
    return period


def _dated(said: str, session: datetime) -> tuple[TimeRange | None, str]:
    """A half of a bare range and the words it was read from: "fall 2018", "early 2015", else
    its year alone ("roughly 2010", "was 2015")."""
    for words in (said, said.split()[-1]):
        found = _times(words, 0, session)
        if found and found[-1][0] == len(words):
            return found[-1][1], words
    return None, said


def _event_after(text: str, pos: int, session: datetime) -> tuple[int, TimeRange] | None:
    """The date of the clause an "until" opens at `pos`, up to the clause's end (at most 120
    characters on): "until we moved to Edinburgh in spring 2021" -> spring 2021."""
    stop = _CLAUSE_END.search(text, pos, pos + 120)
    end = stop.start() if stop is not None else min(len(text), pos + 120)
    if PAST_EVENT.search(text, pos, end) is None:
        return None
    for span in find_time_spans(text[pos:end]):
        found = resolve(span.expression, session, "past")
        if found is not None:
            return pos + span.end, found
    return None


@lru_cache(maxsize=512)
def ranges(text: str, session: datetime) -> tuple[Interval, ...]:
    """Every "from X to Y", "between X and Y", "from X until <a dated clause>" and "YYYY-YYYY" /
    "YYYY to YYYY" in `text` whose two halves read as times, the first before the last
    ("between May and July" of the same year).

    Example: ranges("I lived in Oslo from 2015 to 2020.", session) -> one Interval,
    2015 to 2020 (first = the year 2015, last = the year 2020).
    """
    out = []
    for m in _OPEN.finditer(text):
        between = _BETWEEN.match(m[0]) is not None
        for first_end, first in _times(text, m.end(), session):
            join = _JOIN.match(text, first_end)
            if join is None or (join[0].strip().lower() == "and") != between:
                continue
            lasts = _times(text, join.end(), session)
            if lasts and first.start >= lasts[-1][1].start and first.granularity in ("month", "day"):
                # "from March to May 2020": the first half is in the year the second names
                first = resolve(text[m.end():first_end], lasts[-1][1].end, "past") or first
            if lasts and ONGOING.search(text, join.end(), lasts[-1][0]):
                break
            first_said = text[m.end():first_end]
            if lasts and first.start < lasts[-1][1].end:
                out.append(Interval(m.start(), lasts[-1][0], first, lasts[-1][1], False, first_said,
                                    text[join.end():lasts[-1][0]]))
            elif not lasts and _UNTIL_WORD.fullmatch(join[0].strip()):
                event = _event_after(text, join.end(), session)
                if event is not None and first.start < event[1].start:
                    out.append(Interval(m.start(), event[0], first, event[1], True, first_said))
            break
    for m in _YEARS.finditer(text):
        (a, a_said), (b, b_said) = _dated(m[1], session), _dated(m[2], session)
        if a is not None and b is not None and a.start < b.start:
            out.append(Interval(m.start() + m[0].find(a_said), m.end(), a, b, False, a_said, b_said))
    return tuple(sorted(out))


# the second half names the present: "from 2015 till today" is still true, not ended
ONGOING = re.compile(r"\b(?:today|now|present|this\s+day|date)\b", re.IGNORECASE)


def past_end(expression: str, clause: str, session: datetime) -> TimeRange | None:
    """The period an "until ..." expression names when it has passed (None when it is still
    ahead, which makes it an expiry), its end never after the session that tells of it:
    "until June 2020" -> June 2020 (the fact ends on 1 July 2020); "till March" in a past-tense
    clause -> the last March."""
    said = re.sub(r"^\s*(?:until|till|til|up\s+until|up\s+till)\s+", "", expression, flags=re.IGNORECASE)
    if ONGOING.search(said):
        return None
    past = PAST_TENSE.search(clause) is not None
    found = resolve(said, session, "past" if past else "future")
    if found is None or found.start >= session:
        return None
    end = found.end or found.start
    if end > session and not past:
        return None
    return found.model_copy(update={"end": min(end, session)})


# past forms of the verbs that state a slot's value, and their present: "I owned a Civic from 2015 to
# 2020" is read as "I own a Civic from 2015 to 2020" by the present-tense rules (`present_twin`)
_PRESENT = {
    "i was": "I am", "we were": "we are", "was": "is", "were": "are", "'d been": "'ve been", "had been": "have been",
    "had": "have", "owned": "own",
    "lived": "live", "worked": "work", "studied": "study", "attended": "attend", "dated": "am dating",
    "drove": "drive", "rented": "rent", "kept": "keep", "followed": "follow", "ate": "eat", "used to ": "",
}
# ASCII case-insensitivity: with Unicode rules "İ WAS" and "ſtudied" matched, then missed the table
_PAST_VERB = re.compile(r"\b(?:" + "|".join(sorted((re.escape(k).replace(r"\ ", r"\s+") for k in _PRESENT),
                                                   key=len, reverse=True)) + r")(?:\b|(?<=\s))", re.IGNORECASE | re.ASCII)
_MAY_STATE = re.compile(r"\b(?:until|till|til|from|between)\b", re.IGNORECASE)


class Twin(NamedTuple):
    """A sentence in the present tense, and where each of its positions was in the sentence."""

    text: str
    shifts: tuple[tuple[int, int], ...]  # (twin position after a replacement, total shift up to it)

    def original(self, pos: int) -> int:
        return pos - next((shift for at, shift in reversed(self.shifts) if at <= pos), 0)


# what a twin's reading of a slot must span to count: "I was in Paris from March to May" was a stay, not a home
TWIN_MIN_DAYS = {"LIVES_IN": 180}


def present_twin(text: str) -> Twin | None:
    """`text` in the present tense, when it may state an interval and has a past verb of state:
    the topic rules read states in the present, and with the interval kept, "I was vegetarian
    until last year" says what "I am vegetarian" would, for that interval. The twin's drafts
    are kept only with a stated interval (`Draft.bounded_only`); None when there is no twin."""
    if (_MAY_STATE.search(text) is None and _YEARS.search(text) is None) or _PAST_VERB.search(text) is None:
        return None
    pieces, shifts, last, shift = [], [], 0, 0
    for m in _PAST_VERB.finditer(text):
        present = _present(m[0])
        pieces += [text[last:m.start()], present]
        shift += len(present) - len(m[0])
        shifts.append((m.end() + shift, shift))
        last = m.end()
    return Twin("".join(pieces) + text[last:], tuple(shifts))


def _present(past: str) -> str:
    word = " ".join(past.split()).lower() + (" " if past[-1:].isspace() else "")
    present = _PRESENT.get(word, past)
    return present[:1].upper() + present[1:] if past[:1].isupper() and present else present
