"""Timestamps and the time predicates: the Python form and the Cypher form must agree."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone
from types import SimpleNamespace

import pytest

from graphmem import InvalidInput
from graphmem.graph.cypher import Query
from graphmem.schema import time as t

UTC = timezone.utc


def d(day: int) -> datetime:
    return datetime(2024, 1, 1, tzinfo=UTC) + timedelta(days=day)


def test_encoding_is_fixed_width_utc_with_offset():
    assert t.encode(datetime(2024, 3, 1, 8, 0, tzinfo=timezone(timedelta(hours=8)))) == (
        "2024-03-01T00:00:00.000000+00:00"
    )
    assert t.encode(datetime(2024, 3, 1)) == "2024-03-01T00:00:00.000000+00:00"
    assert t.encode(date(2024, 3, 1)) == "2024-03-01T00:00:00.000000+00:00"
    assert t.encode("2024-03-01T12:30:00Z") == "2024-03-01T12:30:00.000000+00:00"
    assert t.decode("2024-03-01T00:00:00+00:00") == datetime(2024, 3, 1, tzinfo=UTC)


def test_string_order_is_time_order():
    moments = [d(0), d(0) + timedelta(microseconds=1), d(1), datetime(2031, 1, 1, tzinfo=UTC)]
    assert sorted(t.encode(m) for m in moments) == [t.encode(m) for m in moments]


@pytest.mark.parametrize(
    "bad",
    ["yesterday-ish", "2024-13-01", "", 12345, None, [2024], datetime(1, 1, 1), "0999-01-01"],
)
def test_unusable_times_are_typed_errors(bad):
    with pytest.raises(InvalidInput):
        t.to_utc(bad)


def test_offset_that_leaves_the_year_range_is_rejected():
    with pytest.raises(InvalidInput):
        t.to_utc(datetime(9999, 12, 31, 23, 0, tzinfo=timezone(timedelta(hours=-5))))


def edge(valid=None, invalid=None, created=0, expired=None, by=None, own=None, log=None):
    """`log`: (changed day, valid day, invalid day) of each interval a change replaced."""
    return SimpleNamespace(
        valid_at=None if valid is None else d(valid),
        invalid_at=None if invalid is None else d(invalid),
        created_at=d(created),
        expired_at=None if expired is None else d(expired),
        invalidated_by=by,
        own_invalid_at=None if own is None else d(own),
        interval_log=None if log is None else [
            t.log_entry(d(at), None if v is None else d(v), None if i is None else d(i)) for at, v, i in log],
    )


CASES = [
    edge(),
    edge(valid=10),
    edge(valid=10, invalid=20),
    edge(valid=10, invalid=20, created=5, expired=15, by="x"),
    edge(valid=10, invalid=20, created=5, expired=15),
    edge(invalid=20, created=12, expired=30, by="y"),
    edge(valid=25, created=1),
    edge(valid=10, invalid=18, created=5, expired=15, by="x", own=30),  # closed before the log: own end before
    edge(valid=10, invalid=18, created=5, expired=15, by="x", log=[(15, 10, 30)]),
    edge(valid=10, invalid=12, created=5, expired=19, by="x", log=[(15, 10, None), (19, 10, 18)]),  # re-closed
    edge(valid=10, invalid=40, created=5, log=[(12, 10, 20)]),  # stretched on day 12
    edge(valid=5, created=1, log=[(12, 10, None), (19, 8, None)]),  # start moved back twice
    edge(valid=10, created=5, log=[]),
]
MOMENTS = [0, 5, 10, 12, 15, 19, 20, 25, 40]


def as_props(e) -> dict:
    return {k: t.encode(getattr(e, k)) for k in ("valid_at", "invalid_at", "created_at", "expired_at", "own_invalid_at")} | {
        "invalidated_by": e.invalidated_by, "interval_log": e.interval_log
    }


def test_python_and_cypher_predicates_agree(memory):
    memory.store.ensure_graph("twin", dimension=3, embedder="none")
    for e in CASES:
        for tt in MOMENTS:
            for kk in [None, *MOMENTS]:
                k = None if kk is None else d(kk)
                exprs = {
                    "true_at": t.true_at_cypher("r", "t", None if k is None else "k"),
                    "current": t.current_cypher("r"),
                }
                if k is not None:
                    exprs["known_at"] = t.known_at_cypher("r", "k")
                bound = "" if k is None else f"WITH r, {t.replaced_fields_cypher('r', 'k')} AS rf "
                cypher = f"WITH $r AS r {bound}RETURN " + ", ".join(f"{v} AS {n}" for n, v in exprs.items())
                [row] = memory.store.run("twin", Query(cypher, {"r": as_props(e), "t": t.encode(d(tt)), "k": t.encode(k)}))
                assert row["true_at"] == t.is_true_at(e, d(tt), k), (e, tt, kk)
                assert row["current"] == t.is_current(e)
                if k is not None:
                    assert row["known_at"] == t.is_known_at(e, k), (e, kk)


def test_predicate_meanings():
    superseded = edge(valid=10, invalid=20, created=5, expired=15, by="x")
    assert t.is_true_at(superseded, d(12)) and not t.is_true_at(superseded, d(20))
    assert t.is_true_at(superseded, d(25), d(14))  # before the supersession it read open-ended
    assert t.is_known_at(superseded, d(30))  # superseded facts stay the record of the past
    retracted = edge(valid=10, created=5, expired=15)
    assert t.is_known_at(retracted, d(14)) and not t.is_known_at(retracted, d(15))
    assert t.status_of(superseded, d(40)) == "superseded"
    assert t.status_of(edge(valid=1, invalid=3), d(40)) == "ended"
    assert t.status_of(edge(valid=1), d(40)) == "current"


def test_a_change_after_k_is_not_seen_at_k():
    """Each change of a stored fact's interval logs the interval it replaced: *known at K*
    reads the interval of the first change after K, today's when none came after K."""
    stretched = edge(valid=10, invalid=40, created=5, log=[(12, 10, 20)])
    assert t.interval_as_known(stretched, d(11)) == (d(10), d(20))
    assert t.interval_as_known(stretched, d(12)) == (d(10), d(40))
    assert t.is_true_at(stretched, d(25), d(30)) and not t.is_true_at(stretched, d(25), d(11))
    moved = edge(valid=5, created=1, log=[(12, 10, None), (19, 8, None)])
    assert [t.interval_as_known(moved, d(k))[0] for k in (11, 15, 19)] == [d(10), d(8), d(5)]
    reclosed = edge(valid=10, invalid=12, created=5, expired=15, by="y")
    reclosed.interval_log = [t.log_entry(d(15), d(10), None), t.log_entry(d(19), d(10), d(18), "x")]
    assert [t.invalid_at_as_known(reclosed, d(k)) for k in (14, 16, 19)] == [None, d(18), d(12)]
    assert [t.superseded_by_as_known(reclosed, d(k)) for k in (14, 16, 19)] == [None, "x", "y"]
    assert t.status_of(reclosed, d(40), d(14)) == "current" and t.status_of(reclosed, d(40), d(16)) == "superseded"
    legacy = edge(valid=10, invalid=18, created=5, expired=15, by="x", own=30)
    assert t.invalid_at_as_known(legacy, d(14)) == d(30) and t.invalid_at_as_known(legacy, d(15)) == d(18)


def test_logging_a_change_keeps_the_replaced_interval_and_a_closure_made_before_the_log():
    before = edge(valid=10, invalid=18, created=5, expired=15, by="x", own=30)
    after = SimpleNamespace(**(vars(before) | {"invalid_at": d(16)}))
    log = t.logged(before, after, d(20))
    assert log == [t.log_entry(d(15), d(10), d(30)), t.log_entry(d(20), d(10), d(18), "x")]
    assert t.logged(before, SimpleNamespace(**vars(before)), d(20)) is None  # nothing changed: the log as it was
    assert t.logged(edge(valid=1, log=[]), edge(valid=0, log=[]), d(3)) == [t.log_entry(d(3), d(1), None)]


def test_scrubbing_a_forgotten_closer_keeps_what_its_closure_replaced():
    """Beijing open (entry at 15 when G closed it), then closed again by T at 19 while G was
    its closer; G forgotten: one entry at 19 holding the open interval, nothing naming G."""
    log = [t.log_entry(d(15), d(10), None), t.log_entry(d(19), d(10), d(18), "G")]
    assert t.scrub_log(log, {"G"}, reopened=False) == [t.log_entry(d(19), d(10), None)]
    reopened = [t.log_entry(d(12), d(10), d(40)), t.log_entry(d(15), d(10), None)]  # closed by G at 15
    assert t.scrub_log(reopened, {"G"}, reopened=True) == [t.log_entry(d(12), d(10), d(40))]
    assert t.scrub_log(log, {"other"}, reopened=False) == log
    moved_back = [t.log_entry(d(2), d(10), None), t.log_entry(d(6), d(10), d(20), "G")]  # then re-opened
    assert t.scrub_log(moved_back, {"G"}, reopened=True) == [t.log_entry(d(6), d(10), None)]
    assert t.scrub_log(None, {"G"}, reopened=True) == []
