"""A write decides its facts on slots read once and writes them back in a few queries
(`ingest.session_facts`); the timeline it leaves is the one the one-query-per-step
path left.

The reference is that path itself, kept here as `DirectFacts`: every read and write
goes to the store when the decision makes it (`fact_repository.insert_fact`,
`cypher.subject_facts`, `end_fact`, ...). The property test writes random sessions
(single- and multi-valued slots, several values of one slot in one session,
endings of facts said in the same or an earlier session, sessions out of order so
restatements merge and intervals split) for one user through the batched path and
for another through the reference, and compares every fact version.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from itertools import count

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from graphmem import Memory
from graphmem.graph import cypher as q
from graphmem.graph import fact_repository
from graphmem.ingest import facts as ingest_facts
from graphmem.ingest.extraction import ExtractedFact, Extraction, TurnContext
from graphmem.schema import time as t
from graphmem.schema.models import FactEdge
from graphmem.schema.records import AddFactResult
from graphmem.schema.supersession import Closure

DATES = ["2024-01-01", "2024-02-01", "2024-03-01", "2024-04-01", "2024-05-01", "2024-06-01"]
PREDICATES = {"LIVES_IN": True, "WORKS_AT": True, "LIKES": False}
VALUES = ["Oslo", "Lima", "Kyoto"]
USERS = count()


class ScriptedExtractor:
    """Each turn is one fact, spelled ``SUBJECT|PREDICATE|OBJECT|valid|invalid|flags``
    (dates as indexes into DATES or '-'; flags: 'closes_only', 'ends_any')."""

    name = "scripted-facts"

    def extract(self, turns: Sequence[TurnContext]) -> list[Extraction]:
        return [Extraction(facts=[_fact(turn.text)]) for turn in turns]


def _fact(text: str) -> ExtractedFact:
    subject, predicate, obj, valid, invalid, flags = text.split("|")
    when = lambda i: None if i == "-" else t.decode(DATES[int(i)])  # noqa: E731
    return ExtractedFact(subject=subject, predicate=predicate, object=obj, fact=f"{subject} {predicate} {obj}",
                         valid_at=when(valid), invalid_at=when(invalid), single_valued=PREDICATES[predicate],
                         closes_only="closes_only" in flags, ends_any="ends_any" in flags)


class DirectFacts:
    """`SessionFacts`' interface on the store itself: each step a query, when it is taken
    (the write path before batching)."""

    def __init__(self, store, user_id: str) -> None:
        self.store, self.user = store, user_id

    def include(self, uuids) -> None:
        pass

    def get(self, uuid: str) -> FactEdge | None:
        rows = self.store.run(self.user, q.facts_by_uuid([uuid]))
        return fact_repository.edge_from_row(rows[0]) if rows else None

    def slot(self, key) -> list[FactEdge]:
        return [fact_repository.edge_from_row(r) for r in self.store.run(self.user, q.slot_facts(*key))]

    def kin_rows(self, key) -> list[dict]:
        return self.store.run(self.user, q.subject_facts(*key))

    def insert(self, edge: FactEdge, embedding, *, single_valued: bool, now: datetime) -> AddFactResult:
        return fact_repository.insert_fact(self.store, self.user, edge, embedding, single_valued=single_valued, now=now)

    def create(self, edge: FactEdge, embedding) -> None:
        self.store.run(self.user, q.create_fact(edge, embedding))

    def merge(self, uuid: str, episodes, valid_at) -> None:
        self.store.run(self.user, q.merge_restatement(uuid, episodes, valid_at, t.now_utc()))

    def close(self, closure: Closure) -> None:
        self.store.run(self.user, q.close_fact(closure, t.now_utc()))

    def end(self, uuid: str, invalid_at, episodes) -> None:
        self.store.run(self.user, q.end_fact(uuid, invalid_at, episodes, t.now_utc()))

    def write(self, now: datetime) -> None:
        pass


@pytest.fixture
def scripted(tmp_path, embedder):
    with Memory(data_dir=tmp_path / "db", embedder=embedder, extractor=ScriptedExtractor()) as mem:
        yield mem


def write(mem: Memory, user: str, day: int, facts: Sequence[str], direct: bool = False, monkeypatch=None):
    turns = [{"role": "user", "content": f} for f in facts]
    if not direct:
        return mem.write(user, turns, DATES[day], session_id=f"s{day}")
    with monkeypatch.context() as m:
        m.setattr(ingest_facts, "read_facts", lambda store, user_id, plans: DirectFacts(store, user_id))
        return mem.write(user, turns, DATES[day], session_id=f"s{day}")


def versions(mem: Memory, user: str) -> list[tuple]:
    """Every fact version, without uuids or write times (sorted by text: an open
    start or end is None, which does not compare with a time)."""
    return sorted(
        ((r.subject, r.predicate, r.object, r.fact, r.valid_at, r.invalid_at, r.expired_at is not None,
          r.superseded_by_fact, r.source_turn_ids, r.status)
         for r in mem.inspect().fact_versions(user)), key=repr)


def test_two_values_of_one_slot_in_one_session(scripted):
    result = write(scripted, "u", 0, ["me|LIVES_IN|Oslo|-|-|", "me|LIVES_IN|Lima|1|-|"])
    assert (result.facts_added, result.facts_superseded) == (2, 1)
    rows = {r.object: r for r in scripted.inspect().fact_versions("u")}
    assert rows["Oslo"].invalid_at == t.decode(DATES[1]) and rows["Oslo"].superseded_by_fact == "me LIVES_IN Lima"
    assert rows["Oslo"].valid_at == t.decode(DATES[0])
    assert rows["Lima"].invalid_at is None and rows["Lima"].expired_at is None


def test_a_later_session_closes_a_stored_fact_and_a_restatement_merges(scripted):
    write(scripted, "u", 0, ["me|LIVES_IN|Oslo|-|-|"])
    result = write(scripted, "u", 1, ["me|LIVES_IN|Oslo|-|-|", "me|LIVES_IN|Lima|-|-|", "me|LIVES_IN|Lima|-|-|"])
    assert (result.facts_merged, result.facts_superseded) == (2, 1)
    rows = {r.object: r for r in scripted.inspect().fact_versions("u")}
    assert len(scripted.inspect().fact_versions("u")) == 2
    assert rows["Oslo"].invalid_at == t.decode(DATES[1]) and rows["Oslo"].source_turn_ids == ("s0#0", "s1#0")
    assert rows["Lima"].source_turn_ids == ("s1#1", "s1#2")


def test_an_ending_closes_a_fact_said_earlier_in_the_same_session(scripted):
    write(scripted, "u", 3, ["me|LIKES|Kyoto|1|-|", "me|LIKES|Kyoto|-|2|closes_only"])
    (row,) = scripted.inspect().fact_versions("u")
    assert (row.valid_at, row.invalid_at) == (t.decode(DATES[1]), t.decode(DATES[2]))
    assert row.source_turn_ids == ("s3#0", "s3#1")


def test_a_value_said_inside_a_restated_interval_splits_it(scripted):
    write(scripted, "u", 0, ["me|LIVES_IN|Oslo|-|-|"])
    write(scripted, "u", 4, ["me|LIVES_IN|Oslo|-|-|"])
    write(scripted, "u", 2, ["me|LIVES_IN|Lima|-|-|", "me|WORKS_AT|Lima|-|-|"])
    spans = sorted((r.object, r.predicate, r.valid_at, r.invalid_at) for r in scripted.inspect().fact_versions("u"))
    d = [t.decode(x) for x in DATES]
    assert spans == [("Lima", "LIVES_IN", d[2], d[4]), ("Lima", "WORKS_AT", d[2], None),
                     ("Oslo", "LIVES_IN", d[0], d[2]), ("Oslo", "LIVES_IN", d[4], None)]


FACT = st.builds(
    lambda subject, predicate, obj, valid, end, flags: f"{subject}|{predicate}|{obj}|{valid}|{end}|{flags}",
    st.sampled_from(["me", "Bob"]), st.sampled_from(sorted(PREDICATES)), st.sampled_from(VALUES),
    st.sampled_from(["-", "0", "2", "4"]), st.sampled_from(["-", "-", "-", "3", "5"]),
    st.sampled_from(["", "", "closes_only", "ends_any"]),
)
SESSIONS = st.lists(st.tuples(st.integers(0, len(DATES) - 1), st.lists(FACT, min_size=1, max_size=4)),
                    min_size=1, max_size=4)
SLOW_DB = settings(max_examples=12, deadline=None, derandomize=True, phases=[Phase.explicit, Phase.generate],
                   suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


@SLOW_DB
@given(sessions=SESSIONS)
def test_batched_decisions_leave_the_timeline_the_direct_path_leaves(scripted, monkeypatch, sessions):
    n = next(USERS)
    batched, direct = f"b{n}", f"d{n}"
    for day, facts in sessions:
        got = write(scripted, batched, day, facts)
        want = write(scripted, direct, day, facts, direct=True, monkeypatch=monkeypatch)
        assert got.model_dump(exclude={"episode_uuids"}) == want.model_dump(exclude={"episode_uuids"})
    assert versions(scripted, batched) == versions(scripted, direct)


def test_one_nearest_facts_query_answers_each_plan_as_its_own_query_did(scripted, embedder):
    """The LLM path asks for every plan's most similar facts in one query (`nearest_facts_each`)."""
    write(scripted, "u", 0, ["me|LIVES_IN|Oslo|-|-|", "Bob|WORKS_AT|Lima|-|-|", "me|LIKES|Kyoto|-|-|"])
    write(scripted, "u", 1, ["me|LIVES_IN|Lima|-|-|"])  # Oslo expired: neither query returns it
    vectors = embedder.embed(["me LIVES_IN Oslo", "Bob WORKS_AT Kyoto", "me LIKES Lima"])
    each = scripted.store.run("u", q.nearest_facts_each([v.tolist() for v in vectors], 2), read_only=True)
    for i, vector in enumerate(vectors):
        alone = scripted.store.run("u", q.nearest_facts(vector.tolist(), 2), read_only=True)
        assert [{k: v for k, v in row.items() if k != "i"} for row in each if row["i"] == i] == alone
        assert alone


def test_a_failed_write_back_leaves_no_new_fact_beside_the_one_it_should_close(scripted):
    """The closure of the stored fact is the last query; when it fails, the facts the
    write created are deleted, so no second current home is left, and a retry of the
    session leaves the timeline a clean write leaves."""
    from graphmem import StoreError
    from store_faults import failing

    write(scripted, "u", 0, ["me|LIVES_IN|Oslo|-|-|"])
    with failing(scripted.store, q.update_facts([{"uuid": "x", "props": {}}]).cypher):
        with pytest.raises(StoreError, match="went away"):
            write(scripted, "u", 1, ["me|LIVES_IN|Lima|-|-|"])
    assert [(r.object, r.invalid_at) for r in scripted.inspect().fact_versions("u")] == [("Oslo", None)]
    write(scripted, "u", 1, ["me|LIVES_IN|Lima|-|-|"])
    rows = {r.object: r for r in scripted.inspect().fact_versions("u")}
    assert rows["Oslo"].invalid_at == t.decode(DATES[1]) and rows["Lima"].invalid_at is None
