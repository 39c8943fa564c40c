"""*Known at K* after a stored fact's interval changed later: a stretch, a start moved back,
a re-closure, an ending. Each change logs the interval it replaced (`interval_log`), so K
reads the interval graphmem held then; a forget takes its own effect out of the log too
(README "Time semantics")."""

from __future__ import annotations

import time

from hypothesis import given
from hypothesis import strategies as st

from graphmem.graph.cypher.query import Query
from graphmem.schema.time import now_utc
from test_add_facts import SLOW_DB, PROBES, USERS, fact_rows, resolved, version_key, with_sessions

MARCH, JUNE, JULY, AUG = "2024-03-01", "2024-06-01", "2024-07-01", "2024-08-01"


def objects(facts):
    return sorted(f.object for f in facts)


def moment():
    """A system time strictly between two writes."""
    time.sleep(0.01)
    k = now_utc()
    time.sleep(0.01)
    return k


def test_a_stretch_after_k_is_not_seen_at_k(memory):
    memory.add_fact("u", "u", "works_at", "Acme", valid_at="2020-01-01", invalid_at="2021-01-01")
    k = moment()
    assert memory.add_fact("u", "u", "works_at", "Acme", valid_at="2020-06-01", invalid_at="2023-01-01").action == "merged"
    assert objects(memory.facts("u", valid_at="2022-01-01")) == ["Acme"]
    assert objects(memory.facts("u", valid_at="2022-01-01", known_at=k)) == []
    [then] = memory.facts("u", valid_at="2020-06-01", known_at=k)
    assert then.invalid_at.year == 2021


def test_a_start_moved_back_after_k_is_not_seen_at_k(memory):
    memory.add_fact("u", "u", "lives_in", "Oslo", valid_at="2024-03-01")
    k = moment()
    assert memory.add_fact("u", "u", "lives_in", "Oslo", valid_at="2023-01-01").action == "merged"
    assert objects(memory.facts("u", valid_at="2023-06-01")) == ["Oslo"]
    assert objects(memory.facts("u", valid_at="2023-06-01", known_at=k)) == []
    assert memory.facts("u", valid_at="2024-06-01", known_at=k)[0].valid_at.year == 2024


def test_a_reclosure_after_k_is_not_seen_at_k(memory):
    beijing = memory.add_fact("u", "u", "lives_in", "Beijing", valid_at=MARCH)
    shanghai = memory.add_fact("u", "u", "lives_in", "Shanghai", valid_at=AUG)
    k = moment()
    memory.add_fact("u", "u", "lives_in", "Tokyo", valid_at=JUNE)  # closes Beijing again, at June
    assert objects(memory.facts("u", valid_at=JULY)) == ["Tokyo"]
    [then] = memory.facts("u", valid_at=JULY, known_at=k)
    assert (then.object, then.invalid_at.month, then.superseded_by) == ("Beijing", 8, shanghai.fact_uuid)
    assert beijing.fact_uuid == then.uuid and then.status == "superseded"
    [successor] = memory.facts("u", valid_at="2024-09-01", known_at=k)
    assert then.superseded_by_fact == successor.fact  # the closer at K, not today's


def test_an_ending_said_after_k_is_not_seen_at_k(memory):
    """Through `write` (the rules and the session's batched fact writes)."""
    memory.write("u", [{"role": "user", "content": "I live in Oslo."}], "2024-01-10")
    k = moment()
    memory.write("u", [{"role": "user", "content": "I no longer live in Oslo."}], "2024-06-10")
    assert "Oslo" not in objects(memory.facts("u", valid_at=AUG))
    assert "Oslo" in objects(memory.facts("u", valid_at=AUG, known_at=k))
    assert "Oslo" in objects(memory.facts("u", valid_at=MARCH))


def test_an_import_that_stretches_a_stored_fact_logs_it(memory):
    """Through `add_facts` (the bulk path)."""
    memory.add_facts("u", [{"subject": "u", "predicate": "works_at", "object": "Acme",
                            "valid_at": "2020-01-01", "invalid_at": "2021-01-01"}])
    k = moment()
    memory.add_facts("u", [{"subject": "u", "predicate": "works_at", "object": "Acme",
                            "valid_at": "2020-06-01", "invalid_at": "2023-01-01"}])
    assert objects(memory.facts("u", valid_at="2022-01-01")) == ["Acme"]
    assert objects(memory.facts("u", valid_at="2022-01-01", known_at=k)) == []


def test_an_import_logs_each_change_at_the_write_time_of_the_row_that_made_it(memory):
    """Rows of one import are written a microsecond apart; the stored fact a row closes
    reads closed from that row's time on, not from the import's last row's."""
    memory.add_fact("u", "u", "lives_in", "Beijing", valid_at=MARCH)
    memory.add_facts("u", [{"subject": "u", "predicate": "lives_in", "object": "Shanghai", "valid_at": AUG},
                           {"subject": "u", "predicate": "works_at", "object": "Acme"}])
    [shanghai] = [f for f in memory.facts("u", valid_at="2024-09-01") if f.object == "Shanghai"]
    lives = [f.object for f in memory.facts("u", valid_at="2024-09-01", known_at=shanghai.created_at)
             if f.predicate == "LIVES_IN"]
    assert lives == ["Shanghai"]


def test_a_fact_whose_log_was_emptied_by_a_forget_logs_its_closure_on_every_path(memory):
    """Beijing re-opened and cut at Tokyo by a forget (its log emptied), then closed again:
    `add_fact` (Cypher) and `add_facts` (the replay) log that closure alike."""
    reads = {}
    for user, bulk in (("one", False), ("many", True)):
        memory.add_fact(user, user, "lives_in", "Beijing", valid_at="2020-01-01")
        shanghai = memory.add_fact(user, user, "lives_in", "Shanghai", valid_at="2021-01-01")
        k = moment()
        memory.add_fact(user, user, "lives_in", "Tokyo", valid_at="2022-01-01")
        memory.forget(user, {"fact": shanghai.fact_uuid})
        row = {"subject": user, "predicate": "lives_in", "object": "Osaka", "valid_at": "2021-06-01"}
        memory.add_facts(user, [row]) if bulk else memory.add_fact(user, **{**row, "predicate": "lives_in"})
        reads[user] = [(f.object, f.invalid_at, f.status) for probe in ("2021-03-01", "2023-01-01")
                       for f in memory.facts(user, valid_at=probe, known_at=k)]
    assert reads["one"] == reads["many"]
    assert [obj for obj, _, _ in reads["one"]] == ["Beijing", "Beijing"]


def test_forgetting_a_closer_that_was_closed_over_leaves_no_trace_of_it(memory):
    """Shanghai closed Beijing, Tokyo closed it again earlier; forgetting Shanghai leaves no
    entry naming it or its start, and at K (before Tokyo) Beijing reads as if Shanghai had
    never been said: open."""
    memory.add_fact("u", "u", "lives_in", "Beijing", valid_at=MARCH)
    shanghai = memory.add_fact("u", "u", "lives_in", "Shanghai", valid_at=AUG)
    k = moment()
    memory.add_fact("u", "u", "lives_in", "Tokyo", valid_at=JUNE)
    memory.forget("u", {"fact": shanghai.fact_uuid})
    logs = memory.store.run("u", Query("MATCH ()-[r:RELATES_TO]->() RETURN r.interval_log AS log", {}))
    kept = " ".join(entry for row in logs for entry in row["log"] or ())
    assert shanghai.fact_uuid not in kept and "2024-08-01" not in kept
    [then] = memory.facts("u", valid_at="2024-09-01", known_at=k)
    assert (then.object, then.invalid_at, then.superseded_by, then.status) == ("Beijing", None, None, "current")
    assert objects(memory.facts("u", valid_at=JULY)) == ["Tokyo"]


def test_forgetting_the_closing_fact_leaves_no_trace_of_it_in_the_log(memory):
    beijing = memory.add_fact("u", "u", "lives_in", "Beijing", valid_at=MARCH)
    shanghai = memory.add_fact("u", "u", "lives_in", "Shanghai", valid_at=JUNE)
    k = moment()
    log = Query("MATCH ()-[r:RELATES_TO {uuid: $u}]->() RETURN r.interval_log AS log", {"u": beijing.fact_uuid})
    assert len(memory.store.run("u", log)[0]["log"]) == 1
    memory.forget("u", {"fact": shanghai.fact_uuid})
    assert memory.store.run("u", log)[0]["log"] == []
    assert objects(memory.facts("u", valid_at=AUG, known_at=k)) == ["Beijing"]
    assert objects(memory.facts("u", valid_at=AUG)) == ["Beijing"]


@SLOW_DB
@given(rows=st.lists(fact_rows(), min_size=1, max_size=8))
def test_known_at_after_each_write_is_the_timeline_those_writes_left(memory, rows):
    """One user gets the facts one at a time, noting the time K after each; for each prefix
    another user gets just those facts (`add_facts`, the same timeline as one at a time:
    test_add_facts.py). At K the first user's memory must read as the second's does now."""
    n = next(USERS)
    loop_user = f"known{n}"
    loop_eps = with_sessions(memory, loop_user)
    moments = []
    for row in resolved(rows, loop_eps):
        memory.add_fact(loop_user, **row)
        moments.append(moment())
    for i, k in enumerate(moments, start=1):
        prefix_user = f"prefix{n}_{i}"
        memory.add_facts(prefix_user, resolved(rows[:i], with_sessions(memory, prefix_user)))
        for probe in PROBES:
            then = sorted(map(as_known, memory.facts(loop_user, valid_at=probe, known_at=k)))
            assert then == sorted(map(as_known, memory.facts(prefix_user, valid_at=probe))), (i, probe)


def as_known(fact) -> tuple:
    """`version_key` without the source turns: a restatement's turns join the fact's evidence
    in place, so K reads today's list (README "Time semantics")."""
    key = version_key(fact)
    return key[:7] + key[8:]


def test_forgetting_a_closer_keeps_what_kept_facts_changed_while_it_closed(memory):
    """Beijing from 2020, closed by Shanghai, then restated from 2019 (its start moved back while
    Shanghai closed it); Shanghai forgotten: before the restatement, 2019 is still not Beijing."""
    memory.add_fact("u", "u", "lives_in", "Beijing", valid_at="2020-01-01")
    shanghai = memory.add_fact("u", "u", "lives_in", "Shanghai", valid_at="2021-01-01")
    k = moment()
    memory.add_fact("u", "u", "lives_in", "Beijing", valid_at="2019-01-01")
    memory.forget("u", {"fact": shanghai.fact_uuid})
    assert objects(memory.facts("u", valid_at="2019-06-01", known_at=k)) == []
    assert objects(memory.facts("u", valid_at="2019-06-01")) == ["Beijing"]


def test_a_fact_reopened_and_closed_by_a_kept_fact_reads_open_before_that(memory):
    """Beijing (restated, so its log holds an entry), Shanghai, Tokyo; Shanghai forgotten: Beijing
    ends at Tokyo now, but as known before Shanghai and Tokyo were said it was open."""
    memory.add_fact("u", "u", "lives_in", "Beijing", valid_at="2020-01-01")
    memory.add_fact("u", "u", "lives_in", "Beijing", valid_at="2019-01-01")
    k = moment()
    shanghai = memory.add_fact("u", "u", "lives_in", "Shanghai", valid_at="2021-01-01")
    memory.add_fact("u", "u", "lives_in", "Tokyo", valid_at="2022-01-01")
    memory.forget("u", {"fact": shanghai.fact_uuid})
    assert objects(memory.facts("u", valid_at="2023-06-01", known_at=k)) == ["Beijing"]
    assert objects(memory.facts("u", valid_at="2023-06-01")) == ["Tokyo"]
    assert objects(memory.facts("u", valid_at="2021-06-01")) == ["Beijing"]
