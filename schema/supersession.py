"""Where a new single-valued fact goes on its slot's timeline, and what it closes.

A slot is (subject, predicate) for predicates that hold one value at a time
(lives_in, works_at). Nothing is deleted: a fact is closed by setting
``invalid_at`` (world time), ``expired_at`` (when graphmem stopped holding it as
open) and ``invalidated_by``. Sessions may arrive out of order, so the incoming
fact is placed by its start time: facts that started earlier and overlap it are
closed at its start; if a later fact already exists, the incoming one is closed
at that fact's start (ARCHITECTURE §4).

`plan_placement` does this for restatements too: every statement says its value
holds at its own time, so a restatement is merged only where no other value was
said in between, and a value said inside a restated interval splits it. Writing
statements in any order then never leaves two values at one instant.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass
from datetime import datetime

from graphmem.schema.models import FactEdge


@dataclass(frozen=True)
class Closure:
    """Close fact `uuid`: valid until `invalid_at`, because of `invalidated_by`."""

    uuid: str
    invalid_at: datetime
    invalidated_by: str
    expired_at: datetime


def stated_start(valid_at: datetime | None, reference_time: datetime | None, written_at: datetime,
                 invalid_at: datetime | None) -> datetime | None:
    """The start a fact is stored with: its `valid_at`, else when it was said.

    An undated fact is placed on its slot at the moment it was said
    (`reference_time`, else its write time); stored with an open start it would
    also hold at every earlier instant, beside the value it closed there. A fact
    said only after its given end keeps the open start: when it began is unknown.

    Example: stated_start(None, None, written_at=June, invalid_at=None) -> June.
    """
    if valid_at is not None:
        return valid_at
    said = reference_time or written_at
    return said if invalid_at is None or said < invalid_at else None


def plan_closures(slot: Sequence[FactEdge], incoming: FactEdge, now: datetime) -> list[Closure]:
    """The closures that placing `incoming` among `slot`'s facts requires.

    `slot` holds the other facts of the same subject and predicate with a
    different object. Retracted facts (expired, not superseded) take no part.
    An already-closed fact keeps its first ``expired_at``.

    Example: slot = [Beijing from March], incoming = Shanghai from June
    -> [Closure(Beijing, invalid_at=June, invalidated_by=Shanghai)].
    """
    live = _live(slot)
    start = incoming.order_key()
    # a fact said after its end with no start ("Oslo until June 2020") says nothing of when it began,
    # so it closes no value: placed at its end, it closed the home held from 2018 there
    closes = not (incoming.valid_at is None and incoming.invalid_at is not None and start == incoming.invalid_at)
    closures = [
        Closure(e.uuid, start, incoming.uuid, e.expired_at or now)
        for e in live
        if closes and e.order_key() <= start and (e.invalid_at is None or e.invalid_at > start)
    ]
    later = [e for e in live if e.order_key() > start]
    if later:
        successor = min(later, key=succession_key)
        end = successor.order_key()
        if incoming.invalid_at is None or incoming.invalid_at > end:
            closures.append(Closure(incoming.uuid, end, successor.uuid, now))
    return closures


@dataclass(frozen=True)
class Split:
    """Cut fact `uuid` at `at`: a copy (`copy_uuid`) holds it from `at` on, with
    the `episodes` that stated it then; the original keeps the earlier part."""

    uuid: str
    copy_uuid: str
    at: datetime
    episodes: tuple[str, ...]


@dataclass(frozen=True)
class Extension:
    """Fact `uuid` of the restated value now holds until `invalid_at`: a bounded
    restatement ran past the end it had been given, or gave an open fact the end it
    said it had (`_ended`)."""

    uuid: str
    invalid_at: datetime


@dataclass(frozen=True)
class Placement:
    """What writing one fact into its slot does.

    `merge_into`: the fact is a restatement; its episodes join that fact (whose
    start moves back when the restatement is earlier). Otherwise the fact is
    created. Then `split` (if any), the `closures` and the `extensions` are
    applied, in that order.
    """

    merge_into: str | None = None
    closures: tuple[Closure, ...] = ()
    split: Split | None = None
    extensions: tuple[Extension, ...] = ()


def closed_by(fact: FactEdge, closure: Closure) -> FactEdge:
    """`fact` after `closure` (in memory; `cypher.facts.close_fact` in the store).

    The first closure keeps the end the fact had before it in `own_invalid_at`:
    forgetting the closing fact gives that end back (`plan_reopenings`)."""
    own = fact.invalid_at if fact.invalidated_by is None else fact.own_invalid_at
    return fact.model_copy(update={"invalid_at": closure.invalid_at, "invalidated_by": closure.invalidated_by,
                                   "expired_at": closure.expired_at, "own_invalid_at": own})


@dataclass(frozen=True)
class Reopening:
    """Fact `uuid` once the fact that closed it is forgotten: valid until
    `invalid_at` (None: open), closed by `invalidated_by` since `expired_at`
    (both None: closed by nothing), `own_invalid_at` kept while it is closed."""

    uuid: str
    invalid_at: datetime | None
    invalidated_by: str | None
    expired_at: datetime | None
    own_invalid_at: datetime | None


def plan_reopenings(slot: Sequence[FactEdge], gone: Set[str]) -> list[Reopening]:
    """What forgetting the facts `gone` gives back to the facts of `slot` they closed.

    The closure was an effect of the forgotten statement, and only that effect is
    undone: a fact gets back the end it had before (`own_invalid_at`), unless the
    next remaining fact of the slot starts first; then it ends there, closed by
    that fact as if the forgotten one had never been said (believed so from when
    both were written). A remaining fact that already holds at its start (a
    merge moved that one's start back) closes it there. Of several re-opened at
    one moment, the last written holds, as when they were said. Facts closed by
    a remaining fact are left alone, so planning again after the writes gives
    nothing (a forget may be resumed).

    Example: Beijing 2020, Shanghai 2021, Tokyo 2022; Shanghai gone ->
    Beijing ends in 2022, closed by Tokyo (not open beside it).
    """
    kept = [e for e in _live(slot) if e.uuid not in gone]
    reopened = [e for e in kept if e.invalidated_by is not None and e.invalidated_by in gone]
    settled = {e.uuid: e for e in kept if e.invalidated_by is None or e.invalidated_by not in gone}
    out = []
    for fact in sorted(reopened, key=lambda e: (e.order_key(), -e.created_at.timestamp(), e.uuid)):
        back = _reopening(fact, list(settled.values()), kept)
        settled[fact.uuid] = fact.model_copy(update={"invalid_at": back.invalid_at,
                                                     "invalidated_by": back.invalidated_by})
        out.append(back)
    return out


def _reopening(fact: FactEdge, settled: Sequence[FactEdge], kept: Sequence[FactEdge]) -> Reopening:
    """`fact` given back its own end, cut where a settled fact holds or the next kept one starts.

    A kept fact whose interval shares an instant with `fact`'s closed one cuts nothing: on a
    single-valued slot none does, so the slot is a multi-valued one whose value an LLM decision
    closed (LIKES jazz beside LIKES tea), and another value is no reason to end this one."""
    start, own = fact.order_key(), fact.own_invalid_at
    beside = {e.uuid for e in kept if e.uuid != fact.uuid and _overlaps(e, fact)}
    holder = min((e for e in settled if _covers(e, start) and e.uuid not in beside), key=succession_key, default=None)
    later = min((e for e in kept if e.order_key() > start and e.uuid not in beside), key=succession_key, default=None)
    closer = holder or later
    if closer is None or (own is not None and own <= closer.order_key() and holder is None):
        return Reopening(fact.uuid, own, None, None, None)
    end = start if holder is not None else closer.order_key()
    return Reopening(fact.uuid, end, closer.uuid, max(fact.created_at, closer.created_at), own)


def moves_start_back(fact: FactEdge, valid_at: datetime | None) -> bool:
    """Whether a restatement starting at `valid_at` moves `fact`'s start back: only to before
    where the fact is on its timeline. A fact stored without a start (undated before
    2026-12-05, or an ending said with none) is where it was said, not at an open start that
    any later date would move forward."""
    return valid_at is not None and fact.order_key() > valid_at


def _overlaps(a: FactEdge, b: FactEdge) -> bool:
    """Whether the two facts' intervals share an instant (an empty interval shares none)."""
    ends = [end for end in (a.invalid_at, b.invalid_at) if end is not None]
    return not ends or max(a.order_key(), b.order_key()) < min(ends)


def _live(slot: Sequence[FactEdge]) -> list[FactEdge]:
    """Facts on the timeline: open, ended or superseded; not retracted. In timeline
    order, so every decision and the order of the closures is the same whatever
    order the slot was read in."""
    return sorted((e for e in slot if e.expired_at is None or e.invalidated_by is not None), key=succession_key)


def _covers(fact: FactEdge, moment: datetime) -> bool:
    return fact.order_key() <= moment and (fact.invalid_at is None or fact.invalid_at > moment)


def _holds(fact: FactEdge, moment: datetime) -> bool:
    """`_covers` as the reads see it (`time.is_true_at`): a null start is open (an
    ending said with no start, a fact stored before starts were). A restatement
    landing there merges into it rather than listing the value twice."""
    return _covers(fact, moment) or (fact.valid_at is None and (fact.invalid_at is None or fact.invalid_at > moment))


def succession_key(fact: FactEdge) -> tuple:
    """Which of several facts starting at one moment comes next: the one that holds
    then (a value overruled at the very moment it was said has an empty interval),
    then the earlier written. Never the order the slot was read in: the store
    returns edges in id order, and it reuses the ids of deleted edges."""
    start = fact.order_key()
    return start, not _covers(fact, start), fact.created_at, fact.uuid


def _same_value(a: FactEdge, b: FactEdge) -> bool:
    return a.name == b.name and a.target_node_uuid == b.target_node_uuid


def plan_placement(
    slot: Sequence[FactEdge],
    incoming: FactEdge,
    now: datetime,
    stated_at: Mapping[str, datetime],
    copy_uuid: str,
) -> Placement:
    """Place `incoming` on a single-valued slot so no instant holds two values.

    Each statement says its value holds at its start; `stated_at` (episode uuid ->
    session time) gives the later moments at which a merged fact was restated.
    - A same-value fact already covering the start absorbs it (merge).
    - A same-value fact starting later, reached by the incoming fact (open-ended,
      or ending at or after that start) with no other value asserted in between,
      absorbs it too and moves its start back; the value covering the start is
      closed there.
    - A merged fact given an end runs on to the incoming fact's end when that is
      later (as far as the next other value), so no stated span is lost.
    - Otherwise the fact is created: what covers its start is closed there, and
      it is closed at the next other-value start, or, when the fact it lands in
      was restated later, that fact is split at its next restatement.
    `copy_uuid` names the later part of a split. With `slot` holding only facts
    of the incoming value, these are the rules of a multi-valued predicate.

    Example: Porto 01:00-02:00, Lisbon from 02:00; "Lisbon" at 00:00 ->
    a new Lisbon fact 00:00-01:00 (Porto was said at 01:00), not Lisbon from 00:00.
    """
    start = incoming.order_key()
    live = _live(slot)
    same = [e for e in live if _same_value(e, incoming)]
    other = [e for e in live if not _same_value(e, incoming)]
    host = next((e for e in other if _covers(e, start)), None)
    restated = _restatements(host, start, stated_at) if host is not None else []
    next_other = min((e.order_key() for e in other if e.order_key() > start), default=None)
    bound = _earliest(next_other, restated[0][0] if restated else None)
    covering = [e for e in same if _holds(e, start)]
    if covering:
        target = min(covering, key=succession_key)
        # the merge moves the start back: what held there ends then ("Oslo until 2020", "Lima from 2019",
        # then "Oslo from June 2019" left Lima and Oslo both in July 2019)
        closures = tuple(Closure(e.uuid, start, target.uuid, e.expired_at or now) for e in other if _covers(e, start)) \
            if moves_start_back(target, incoming.valid_at) else ()
        return Placement(merge_into=target.uuid, closures=closures,
                         extensions=plan_extensions(same, target, incoming.invalid_at, bound)
                         or _ended(target, incoming, stated_at))
    later_same = [e for e in same if e.order_key() > start]
    if later_same:
        nearest = min(later_same, key=succession_key)
        reaches = incoming.invalid_at is None or incoming.invalid_at >= nearest.order_key()
        if reaches and (bound is None or nearest.order_key() <= bound):
            closures = tuple(Closure(e.uuid, start, nearest.uuid, e.expired_at or now) for e in other if _covers(e, start))
            return Placement(merge_into=nearest.uuid, closures=closures,
                             extensions=plan_extensions(same, nearest, incoming.invalid_at, bound)
                             or _ended(nearest, incoming, stated_at))
    closures = plan_closures(other, incoming, now)
    if not restated:
        return Placement(closures=tuple(closures))
    at = restated[0][0]
    split = Split(host.uuid, copy_uuid, at, tuple(ep for moment, ep in restated))
    closures = [c for c in closures if c.uuid != incoming.uuid]
    if incoming.invalid_at is None or incoming.invalid_at > at:
        closures.append(Closure(incoming.uuid, at, copy_uuid, now))
    return Placement(closures=tuple(closures), split=split)


def _earliest(*moments: datetime | None) -> datetime | None:
    """The earliest of the given moments; None when none is given (an open end)."""
    return min((m for m in moments if m is not None), default=None)


def plan_extensions(same: Sequence[FactEdge], target: FactEdge, until: datetime | None,
                    bound: datetime | None) -> tuple[Extension, ...]:
    """How a restatement ending at `until` (None: open) stretches the same-value
    facts from `target` on, as far as `bound` (the next other value).

    An open-ended statement says nothing about an end, so it stretches nothing. A
    bounded one fills every gap it spans between same-value intervals, each
    running to the next one's start (they stay separate facts, never overlap).

    Example: Acme 2020-2021 given, "Acme 2020-06 to 2023" -> Acme runs to 2023.
    """
    end = _earliest(until, bound) if until is not None else None
    if end is None:
        return ()
    chain = sorted((e for e in same if succession_key(e) >= succession_key(target)), key=succession_key)
    out = []
    for fact, after in zip(chain, [*chain[1:], None]):
        if fact.order_key() >= end:
            break
        reach = end if after is None else min(end, after.order_key())
        if fact.invalid_at is not None and fact.invalid_at < reach and fact.invalidated_by is None:
            out.append(Extension(fact.uuid, reach))
    return tuple(out)


def _ended(target: FactEdge, incoming: FactEdge, stated_at: Mapping[str, datetime]) -> tuple[Extension, ...]:
    """The end a restatement said after it gives the open fact it merges into: "I work at Siemens"
    (2020), then "I was at Siemens from 2013 until March 2021" (said in 2024) ends it in March 2021
    (before, the merge moved its start back and left it open). Not when the fact was stated again
    after that end, nor when the end was still ahead when it was said (an expectation)."""
    end = incoming.invalid_at
    said = incoming.reference_time or incoming.created_at
    if end is None or end > said or target.invalid_at is not None or target.invalidated_by is not None:
        return ()
    if target.order_key() >= end or any(stated_at[ep] > end for ep in target.episodes if ep in stated_at):
        return ()
    return (Extension(target.uuid, end),)


def _restatements(fact: FactEdge, after: datetime, stated_at: Mapping[str, datetime]) -> list[tuple[datetime, str]]:
    """(moment, episode) of the fact's statements strictly after `after`, in order."""
    end = fact.invalid_at
    found = [(stated_at[ep], ep) for ep in fact.episodes if ep in stated_at]
    return sorted((m, ep) for m, ep in found if m > after and (end is None or m < end))
