"""When a draft holds: its clause's time expression, resolved against the session.

A draft takes the time expression of its own clause, or the nearest one
before it ("Last month, I moved to ..."), resolved against the session time
(`parsing.dates`); without one, it holds from the session time. "... until
Friday" sets an expiry, not a start (ARCHITECTURE §7).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Sequence
from datetime import datetime
from typing import NamedTuple


from graphmem.ingest.extraction import ExtractedFact
from graphmem.ingest.rules.drafts import Draft, Sentence
from graphmem.ingest.rules.intervals import ONGOING, PAST_EVENT, past_end, ranges
from graphmem.parsing.dates import TimeRange, resolve

__all__ = ["Stated", "add_group", "said_in_past", "stated_interval"]


def add_group(drafts: list[Draft], s: Sentence, session: datetime, facts: list[ExtractedFact], seen: dict,
              ended: Sequence[tuple[int, Stated]] = (), stated: Sequence[Stated | None] | None = None) -> None:
    """Finish drafts into facts; a repeat is not added again, and a fact derived
    from it points at the earlier copy. `stated`: each draft's `stated_interval` (computed
    here when not given); `ended`: (end position in `s.text`, interval) of every draft of
    the sentence that states its interval, for what comes "then" after one (`_after`);
    default: those of `drafts`."""
    if stated is None:
        spans = [d.span for d in drafts]
        stated = [stated_interval(draft, s, session, spans) for draft in drafts]
    ended = list(ended) or [(d.span[1], st) for d, st in zip(drafts, stated) if st is not None]
    index: list[int] = []
    for draft, bounded in zip(drafts, stated):
        derived = [index[i] for i in draft.derived_from if index[i] >= 0]
        if draft.bounded_only and not _long_enough(bounded, draft.min_days):
            index.append(-1)
            continue
        when = _when(draft, s, session) if bounded is None else None
        after = _after(draft, s, ended) if bounded is None and when is None else None
        if bounded is not None:
            fact = _finish_interval(draft, bounded, session, derived)
        elif after is not None:
            fact = _finish_after(draft, after, session, derived)
        else:
            fact = _finish(draft, when, session, derived)
        expires = _until(draft, s, session) if bounded is None else None
        if expires is not None and draft.kind != "end":
            fact = fact.model_copy(update={"expires_at": expires})
        key = (fact.subject.lower(), fact.predicate, fact.object.lower(), fact.valid_at, fact.invalid_at)
        if key not in seen:
            seen[key] = len(facts)
            facts.append(fact)
        index.append(seen[key])


def _when(draft: Draft, s: Sentence, session: datetime) -> TimeRange | None:
    """The range of the time expression that belongs to the draft, if any."""
    if not draft.dated or not s.spans:
        return None
    left, right = s.clause(*draft.span)
    if (cut := _UNTIL_CLAUSE.search(s.text, draft.span[1], right)) is not None:
        right = cut.start()  # "I live in Leeds until we move next year": the move's date is no start
    for cut in _UNTIL_CLAUSE.finditer(s.text, left):
        if cut.start() < draft.span[0]:
            left = cut.start()  # "... from 2016 until we moved to Edinburgh in 2021": the move is dated in its own clause
    # a range dates its owner only (`stated_interval`): "I'm vegan and worked at Acme from 2015 to 2020" is vegan
    # now, and "I worked at Acme from 2018 to 2022, then moved to Berlin" no move in 2018
    in_range = [(r.start_pos, r.end_pos) for r in ranges(s.text, session)]
    inside = [span for span in s.spans if span.start >= left and span.end <= right
              and not _dates_earlier_clause(s.text, left, span.end, draft.span[1])
              and not any(a <= span.start < b for a, b in in_range)]
    # a fronted expression ("Last month, I moved ...") counts if it opens the sentence;
    # for a state only "since ..." does: "Yesterday, at the theater, Sam loves theater" is no start date
    opening = [span for span in s.spans[:1] if span.end <= draft.span[0] and s.clause(span.start, span.end)[0] == 0
               and (draft.kind != "state" or span.expression.lower().startswith("since"))
               and not any(a <= span.start < b for a, b in in_range)]
    for span in inside or opening:
        if UNTIL.match(span.expression):
            continue
        found = resolve(span.expression, session, "future" if draft.kind == "plan" else "past")
        if found is not None:
            return found
    return None


UNTIL = re.compile(r"^\s*(until|till|til)\b", re.I)
_AFTER_OPENING = re.compile(r"\s*(?:after|once|following)\b", re.I)
_MAIN_SUBJECT = re.compile(r"\b(?:I|we|my|our)\b")


def _dates_earlier_clause(text: str, left: int, time_end: int, draft_end: int) -> bool:
    """ "After Mango flew off last year we adopted Clover": a time inside an opening "after" clause dates
    what came first, and the main clause (from its subject on) only happened later, so it is not its date."""
    return _AFTER_OPENING.match(text, left) is not None and _MAIN_SUBJECT.search(text, time_end, draft_end) is not None


def _long_enough(stated: Stated | None, days: int) -> bool:
    """A stated interval, of at least `days` when that is asked for (then its start must be known)."""
    if stated is None:
        return False
    return days <= 0 or (stated.start is not None and (stated.end - stated.start).days >= days)


def _until(draft: Draft, s: Sentence, session: datetime) -> datetime | None:
    """'... until Friday': the fact holds until then, so it expires then (ARCHITECTURE §7).
    An "until" that has passed is an end (`stated_interval`), never an expiry: a fact expired
    in the past leaves search at once and `purge` deletes it."""
    if not s.spans:
        return None
    left, right = s.clause(*draft.span)
    for span in s.spans:
        if span.start >= left and span.end <= right and UNTIL.match(span.expression):
            if past_end(span.expression, s.text[left:right], session) is not None or ONGOING.search(span.expression):
                return None  # "till today" is no expiry either: still true
            found = resolve(UNTIL.sub("", span.expression).strip() or span.expression, session, "future")
            if found is not None:
                return found.end or found.start
    return None


# a past form whose interval is stated is the slot's own history: "I lived in Oslo from 2015 to 2020"
# is where the speaker lived then, the answer to "where did I live in 2018?"
PAST_FORMS = {"LIVED_IN": "LIVES_IN"}
# "until" opening a clause of its own: "I lived in Leeds until we moved to York last summer", "... until the
# divorce went through in 2019"
_UNTIL_CLAUSE = re.compile(r"\b(?:until|till|til)\s+(?=(?:I|we|he|she|they|my|our|his|her|their|the)\b)", re.IGNORECASE)
# what comes next after a stated end: "I worked at Acme until 2022, then joined Initech"
_THEN = re.compile(r"\b(?:then|after\s+that|afterwards|since\s+then|ever\s+since)\b", re.IGNORECASE)
# what may stand between a clause and the range that dates it: "..., 2018 to 2020", "... - between 2012 and 2016"
_ASIDE = re.compile(r"\s*(?:,|\s[-\u2013\u2014])?\s*(?:(?:for|of)\s+(?:about\s+|around\s+|nearly\s+|almost\s+)?"
                    r"\w+\s+(?:years?|months?)\s*,?\s*)?")


class Stated(NamedTuple):
    """An interval a clause states: its start (None: unknown) and end, each with the words
    the fact sentence names it by."""

    start: datetime | None
    start_label: str
    end: datetime
    end_label: str


# a range that opens the sentence: "From 2015 to 2020, I lived ...", "Back in 2013 thru 2018 I ..."
_OPENING = re.compile(r"\s*(?:(?:during|in|at|back\s+in|when\s+I\s+was)\s+[^,;.!?]{1,30},\s*)?(?:(?:back\s+)?in\s+)?$",
                      re.IGNORECASE)  # "During uni, roughly 2010 till 2013, I was ..."
# a verb in the past or the perfect in the words a draft was read from: only such a state takes a past interval
# ("I'm vegan and worked at Acme from 2015 to 2020": the range is the job's, not the diet's)
_PAST_OR_PERFECT = re.compile(r"\b(?:was|were|used\s+to|(?:have|has|had|'ve|'s|'d)\s+(?:\w+\s+)?(?:been|\w+ed)|"
                              r"[a-z]{2,}ed|had|did|got|drove|kept|ran|went|ate|rode|taught|spent|held|met|knew|took|"
                              r"wore|sang|swam|led)\b", re.IGNORECASE)


# another verb joined on after the draft: the range after it is that verb's ("I've been vegan since 2015 and lived in
# Paris March 2012 to June 2014": Paris's, not the diet's)
_COORDINATED = re.compile(r"\b(?:and|but)\s+(?:(?:I|we|also|then)\s+)?(?:(?:'ve|have|had|has)\s+)?(?:been\s+)?"
                          r"(?:[a-z]{2,}ed|was|were|had|got|went|did|took|spent|ran|kept|"
                          r"live|work|study|own|have|date|drive|rent|keep|am|are)\b", re.IGNORECASE)  # the twin's present


def said_in_past(text: str, start: int, end: int) -> bool:
    """Whether the words text[start:end] a draft was read from hold a verb in the past or the perfect."""
    return _PAST_OR_PERFECT.search(text, start, end) is not None


def stated_interval(draft: Draft, s: Sentence, session: datetime, beside: Sequence[tuple[int, int]] = (),
                    past: bool | None = None) -> Stated | None:
    """The interval a state's clause states for it: a range ("from 2015 to 2020", "between 2019
    and 2021", "2015-2019") after it in its clause or right after the clause, or opening the
    sentence ("From 2015 to 2020, I lived in Oslo"); an "until" after it that has passed, with the
    clause's own start if it has one ("since 2015 ... until 2020"); or an "until" clause dated in
    the past ("until we moved to York last summer": the move's moment). Only for a state said in
    the past or the perfect (`past`, as the sentence said it: a present twin's "I am vegan" was
    "I was vegan" or "I'm vegan"; default: read from `s`), and only when no other draft of the
    sentence (`beside`, their spans) stands between it and the interval."""
    if draft.kind != "state" or not draft.dated:
        return None
    left, right = s.clause(*draft.span)
    if not (past if past is not None else said_in_past(s.text, left, draft.span[1])):
        return None

    others = sorted(start for start, end in beside if (start, end) != draft.span)

    def free(a: int, b: int) -> bool:  # no other draft read, and no other verb coordinated, between a and b
        i = bisect_left(others, a)
        return not (i < len(others) and others[i] < b) and _COORDINATED.search(s.text, a, b) is None

    # ranges and time spans come in text order: of those after the draft only the nearest can be its
    # own (whatever stands before it stands before the later ones too), and of those before it only
    # one opening the sentence or the clause; a run-on turn of ranges stays linear
    for found in ranges(s.text, session):
        if found.start_pos <= draft.span[0] < found.end_pos:
            continue  # the draft is said inside the range: "from 2016 until we moved to Edinburgh in 2021"
        if found.start_pos >= draft.span[1]:
            if not free(draft.span[1], found.start_pos):
                break
            inside = found.start_pos < right  # "oct 2017 – dec 2022": a spaced dash breaks the clause, not the range
            # "when I was living in Kraków, between 2012 and 2016": the range right after the clause, apart by a comma
            trailing = not inside and _ASIDE.fullmatch(s.text, right, found.start_pos) is not None
            if inside or trailing:
                return _range_stated(found, session)
            break
        # the range opens the sentence, or the draft's own clause: "..., between march 2012 and august 2017 i rented ..."
        near_start = found.start_pos <= _OPENING_REACH or left <= found.start_pos <= left + _OPENING_REACH
        if near_start and found.end_pos <= draft.span[0] and free(found.end_pos, draft.span[0]) and (
                (_OPENING.match(s.text[:found.start_pos]) is not None and s.text[found.end_pos:left].strip() in ("", ","))
                or (found.start_pos >= left and _OPENING.match(s.text[left:found.start_pos]) is not None)):
            return _range_stated(found, session)
    for span in s.spans:
        if not UNTIL.match(span.expression):
            continue
        if span.start >= draft.span[1]:
            if span.end <= right and free(draft.span[1], span.start):
                end = past_end(span.expression, s.text[left:right], session)
                if end is not None:
                    return _with_start(draft, s, session, end.end, end.label())
            break
        if span.start <= _OPENING_REACH and span.end <= draft.span[0] and _OPENING.match(s.text[:span.start]) \
                and free(span.end, draft.span[0]):  # "Until last summer I lived in Leeds"
            end = past_end(span.expression, s.text[left:right], session)
            if end is not None:
                return _with_start(draft, s, session, end.end, end.label())
    return _until_clause(draft, s, session, left, right)


_OPENING_REACH = 60  # how far into the sentence or the clause an opening phrase may run before its range


def _range_stated(found, session: datetime) -> Stated:
    """The interval a range states, ending at the event that ended it or at the end of its last period
    (never after the session, once that period has begun: "I lived in Oslo from May to July", said in July)."""
    end = _moment(found.last, session) if found.last_is_event else found.last.end
    if found.last.start <= session:
        end = min(end, session)
    return Stated(_moment(found.first, session), _words(found.first_said) or found.first.label(), end,
                  _words(found.last_said) or found.last.label())


def _words(said: str) -> str:
    """A range's half as the fact sentence names it: the speaker's words ("early 2015"), without a
    leading preposition."""
    return re.sub(r"^(?:in|back\s+in|from)\s+", "", " ".join(said.split()), flags=re.IGNORECASE)


def _with_start(draft: Draft, s: Sentence, session: datetime, end: datetime, end_label: str) -> Stated:
    """The interval ending at `end`, from the clause's own start when it has one before that end."""
    start = _when(draft, s, session)
    if start is not None and start.start < end:
        return Stated(_moment(start, session), start.label(), end, end_label)
    return Stated(None, "", end, end_label)


def _until_clause(draft: Draft, s: Sentence, session: datetime, left: int, right: int) -> Stated | None:
    """ "... until we moved to York last summer", "Until I graduated in 2019 I lived in Boston": the
    state ends when the until-clause's event happened, if it is dated and past."""
    for m in _UNTIL_CLAUSE.finditer(s.text, left, right):
        before = m.start() < draft.span[0]
        stop = draft.span[0] if before else right
        if not before and m.start() < draft.span[1]:
            continue
        for span in s.spans:
            if m.end() <= span.start and span.end <= stop and not UNTIL.match(span.expression):
                if PAST_EVENT.search(s.text, m.end(), span.start) is None:
                    break  # "until the repair guy shows up Thursday" is still ahead
                found = resolve(span.expression, session, "past")
                if found is not None and (moment := _moment(found, session)) <= session:
                    return _with_start(draft, s, session, moment, found.label())
                break
    return None


def _after(draft: Draft, s: Sentence, ended: Sequence[tuple[int, Stated]]) -> Stated | None:
    """The stated interval an undated draft comes "then" after, in the same sentence: what the
    speaker did next began when that ended."""
    found = [(end, st) for end, st in ended if end <= draft.span[0]]
    if not found:
        return None
    end, st = max(found, key=lambda pair: pair[0])
    return st if _THEN.search(s.text, end, draft.span[0]) else None


def _finish_interval(draft: Draft, stated: Stated, session: datetime, derived: list[int]) -> ExtractedFact:
    """A state with its stated interval; without a start it reads as an ending ("I lived in Oslo
    until 2020" closes the open Oslo, or is kept as a record that closes nothing)."""
    said = (f"from {stated.start_label} until {stated.end_label}" if stated.start is not None
            else f"until {stated.end_label}")
    predicate = PAST_FORMS.get(draft.predicate, draft.predicate)
    fact = _finish(draft, None, session, derived)
    return fact.model_copy(update={
        "predicate": predicate, "fact": f"{fact.fact[:-1]} ({said}).", "valid_at": stated.start,
        "invalid_at": stated.end, "single_valued": draft.single_valued or predicate != draft.predicate})


def _finish_after(draft: Draft, before: Stated, session: datetime, derived: list[int]) -> ExtractedFact:
    """A state or event said to come "then", after a stated interval: it starts where that ended."""
    fact = _finish(draft, None, session, derived)
    if draft.kind not in ("state", "event") or before.end > session:
        return fact
    return fact.model_copy(update={"fact": f"{fact.fact[:-1]} (after {before.end_label}).", "valid_at": before.end})


def _moment(when: TimeRange, session: datetime) -> datetime:
    """Where a dated statement sits: the start of its period, but a season's midpoint
    ("in the spring" -> mid-April), since three months is too wide to claim its first day
    and a change said only by its season is as likely before its middle as after (never after
    the session that tells of it: "we moved in the summer", said in July)."""
    if when.end is not None and when.granularity == "month" and (when.end - when.start).days > 40:
        return max(when.start, min(when.start + (when.end - when.start) / 2, session))
    return when.start


def _finish(draft: Draft, when: TimeRange | None, session: datetime, derived: list[int]) -> ExtractedFact:
    """States hold from `when` (else the session), events happen at it, plans are
    for it, endings close at it; the sentence names the resolved date."""
    text = draft.text
    if when is not None:
        if when.open_ended or draft.kind in ("state", "end"):
            text += f" (since {when.label()})"
        else:
            text += f" {'on' if when.granularity == 'day' else 'in'} {when.label()}"
    moment = _moment(when, session) if when is not None else session
    return ExtractedFact(
        subject=draft.subject, predicate=draft.predicate, object=draft.object,
        fact=text[0].upper() + text[1:] + ".",
        valid_at=None if draft.kind == "end" else moment,
        invalid_at=moment if draft.kind == "end" else None,
        single_valued=draft.single_valued, slot=draft.slot, importance=draft.importance, derived_from=derived,
        closes_only=draft.closes_only and draft.kind == "end",
        ends_any=draft.ends_any and draft.kind == "end",
    )
