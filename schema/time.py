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
- The ``invalid_at`` written by a supersession that happened after K is ignored
  at K, so the fact reads open-ended as it did then.

Each predicate has a ``*_cypher`` twin; tests run both on the same cases.

FalkorDB 4.22 (the module falkordblite ships) ignores ``<``/``<=`` on a
parameterised string when a range index covers the property (FalkorDB issue
#2239), and Graphiti creates such indexes on every time field. The Cypher twins
therefore read times through ``toString(...)``, which keeps the planner off the
index and leaves the comparison exact.
"""

from __future__ import annotations

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
    if k is None:
        return edge.invalid_at
    closed_later = edge.invalidated_by is not None and edge.expired_at is not None and edge.expired_at > k
    return None if closed_later else edge.invalid_at


INVALID_AT_AS_KNOWN_CYPHER = (
    "CASE WHEN {r}.invalidated_by IS NOT NULL AND toString({r}.expired_at) > ${k} "
    "THEN NULL ELSE toString({r}.invalid_at) END"
)


def is_true_at(edge: Temporal, t: datetime, k: datetime | None = None) -> bool:
    """valid_at <= T < invalid_at, open ends allowed, invalid_at as known at K."""
    if edge.valid_at is not None and edge.valid_at > t:
        return False
    end = invalid_at_as_known(edge, k)
    return end is None or end > t


def true_at_cypher(r: str = "r", t: str = "t", k: str | None = None) -> str:
    """Cypher twin of `is_true_at`; parameters are named, never inlined."""
    end = f"toString({r}.invalid_at)" if k is None else "(" + INVALID_AT_AS_KNOWN_CYPHER.format(r=r, k=k) + ")"
    start = f"toString({r}.valid_at)"
    return f"(({start} IS NULL OR {start} <= ${t}) AND ({end} IS NULL OR {end} > ${t}))"


def known_at_cypher(r: str = "r", k: str = "k") -> str:
    return KNOWN_AT_CYPHER.format(r=r, k=k)


def current_cypher(r: str = "r") -> str:
    return CURRENT_CYPHER.format(r=r)


def status_of(edge: Temporal, now: datetime, k: datetime | None = None) -> str:
    """'superseded' (closed by a newer fact), 'ended' (validity over), or 'current'."""
    end = invalid_at_as_known(edge, k)
    if edge.invalidated_by is not None and end is not None:
        return "superseded"
    if end is not None and end <= now:
        return "ended"
    return "current"
