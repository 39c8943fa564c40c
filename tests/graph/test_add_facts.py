"""`Memory.add_facts` leaves the timeline a loop of `add_fact` leaves, and writes
nothing when a row is bad.

The property test draws random runs of facts over two subjects and three
predicates (two single-valued, one multi-valued), dated or not, some ended,
some citing turns that were said at other moments (so restatements merge and
intervals split), in random order; one user gets them through `add_fact` one
at a time, another through `add_facts` (in two imports, so the second reads
slots that already hold facts). Both must show the same `facts()` at every
date, the same `history()` and the same decisions.
"""

from __future__ import annotations

import json
import time
from functools import partial
from itertools import count

import numpy as np

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from graphmem import InvalidInput, Memory
from graphmem.graph import bulk_facts
from graphmem.graph.cypher.query import Query, VectorParam
from graphmem.graph.store import Store
from graphmem import FactInput

DATES = ["2024-01-01", "2024-02-01", "2024-03-01", "2024-04-01", "2024-05-01", "2024-06-01"]
PROBES = ["2023-12-15", "2024-01-15", "2024-02-15", "2024-03-15", "2024-04-15", "2024-05-15", "2024-06-15"]
SUBJECTS = ["me", "Bob"]
PREDICATES = {"lives_in": True, "works_at": True, "likes": False}
VALUES = ["Oslo", "Lima", "Kyoto"]
USERS = count()

# no shrinking: each example writes to a real store, and shrinking one took minutes; the
# derandomized run reports the failing example as drawn.
SLOW_DB = settings(max_examples=15, deadline=None, derandomize=True, phases=[Phase.explicit, Phase.generate],
                   suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


@st.composite
def fact_rows(draw) -> dict:
    """One `add_fact` call, with turn ids (not uuids) in `episodes`."""
    predicate = draw(st.sampled_from(sorted(PREDICATES)))
    when = draw(st.sampled_from([None, *range(len(DATES))]))
    row = {"subject": draw(st.sampled_from(SUBJECTS)), "predicate": predicate,
           "object": draw(st.sampled_from(VALUES)), "single_valued": PREDICATES[predicate]}
    if when is not None:
        row["valid_at"] = DATES[when]
        if draw(st.booleans()):
            row["episodes"] = [f"s{when}#0"]
        if when + 1 < len(DATES) and draw(st.integers(0, 5)) == 0:
            row["invalid_at"] = DATES[draw(st.integers(when + 1, len(DATES) - 1))]
    return row


def with_sessions(mem, user: str) -> dict[str, str]:
    """One stored turn per date (so facts can cite turns said then); turn id -> episode uuid."""
    for i, day in enumerate(DATES):
        mem.write(user, [{"role": "user", "content": f"Good morning number {i}."}], day, session_id=f"s{i}")
    return {e.turn_id: e.uuid for e in mem.inspect().episodes(user)}


def resolved(rows: list[dict], episodes: dict[str, str]) -> list[dict]:
    return [{**row, "episodes": [episodes[ep] for ep in row.get("episodes", [])]} for row in rows]


def moment(value) -> str:
    """A date the rows gave, or "write time": an undated fact starts when it was written,
    so its successor's start (and its end) is the wall clock of that write."""
    if value is None:
        return "-"
    day = value.date().isoformat()
    return day if day in DATES else "write time"


def version_key(f) -> tuple:
    return (f.subject, f.predicate, f.object, f.fact, moment(f.valid_at), moment(f.invalid_at), f.status,
            f.source_turn_ids, f.superseded_by_fact or "", f.expired_at is None)


def timeline(mem, user: str) -> dict:
    """What a caller can see: facts true at each probe date and now, and each subject's history."""
    seen = {probe: sorted(map(version_key, mem.facts(user, valid_at=probe))) for probe in PROBES}
    seen["now"] = sorted(map(version_key, mem.facts(user)))
    for subject in SUBJECTS:
        try:
            seen[subject] = sorted(map(version_key, mem.history(user, subject).versions))
        except Exception as exc:  # noqa: BLE001 - a subject never written is NotFound on both sides
            seen[subject] = type(exc).__name__
    return seen


@SLOW_DB
@given(first=st.lists(fact_rows(), min_size=1, max_size=12), second=st.lists(fact_rows(), max_size=6))
def test_add_facts_gives_the_timeline_of_add_fact_one_at_a_time(memory, first, second):
    n = next(USERS)
    loop_user, bulk_user = f"loop{n}", f"bulk{n}"
    loop_eps, bulk_eps = with_sessions(memory, loop_user), with_sessions(memory, bulk_user)
    looped = [memory.add_fact(loop_user, **row).action for row in resolved(first + second, loop_eps)]
    bulk = memory.add_facts(bulk_user, resolved(first, bulk_eps))
    bulk += memory.add_facts(bulk_user, [FactInput(**row) for row in resolved(second, bulk_eps)])
    assert [r.action for r in bulk] == looped
    assert timeline(memory, bulk_user) == timeline(memory, loop_user)


def test_a_restated_interval_is_split_as_add_fact_splits_it(memory):
    """Oslo said in January and again in May, Lima said in March: Oslo is cut in two."""
    rows = [("Oslo", 0), ("Oslo", 4), ("Lima", 2)]
    results = {}
    for user in ("loop_split", "bulk_split"):
        eps = with_sessions(memory, user)
        facts = [{"subject": "me", "predicate": "lives_in", "object": obj, "valid_at": DATES[k],
                  "episodes": [eps[f"s{k}#0"]]} for obj, k in rows]
        if user.startswith("loop"):
            for row in facts:
                memory.add_fact(user, **row)
        else:
            memory.add_facts(user, facts)
        results[user] = timeline(memory, user)
    versions = sorted((v[4], v[2], v[5]) for v in results["bulk_split"]["me"])
    assert versions == [("2024-01-01", "Oslo", "2024-03-01"), ("2024-03-01", "Lima", "2024-05-01"),
                        ("2024-05-01", "Oslo", "-")]
    assert results["bulk_split"] == results["loop_split"]


def test_importing_the_same_dated_facts_again_changes_nothing(memory):
    rows = [{"subject": "me", "predicate": "lives_in", "object": city, "valid_at": day}
            for city, day in (("Oslo", DATES[0]), ("Lima", DATES[2]), ("Kyoto", DATES[4]))]
    rows.append({"subject": "me", "predicate": "likes", "object": "tea", "single_valued": False})
    first = memory.add_facts("again", rows)
    before = timeline(memory, "again")
    second = memory.add_facts("again", rows)
    assert [r.action for r in first] == ["added", "superseded", "superseded", "added"]
    assert [r.action for r in second] == ["merged"] * 4
    assert [r.fact_uuid for r in second] == [r.fact_uuid for r in first]
    assert timeline(memory, "again") == before
    assert memory.inspect().counts("again").facts == 4


@pytest.mark.parametrize("bad, field", [
    ({"subject": "me", "predicate": "lives in!", "object": "Oslo"}, "predicate"),
    ({"subject": "me", "predicate": "lives_in", "object": "Oslo", "valid_at": "not a date"}, "valid_at"),
    ({"subject": "me", "predicate": "lives_in", "object": "Oslo", "valid_at": DATES[2], "invalid_at": DATES[1]},
     "invalid_at"),
    ({"subject": "me", "predicate": "lives_in", "object": "Oslo", "embedding": [0.1] * 3}, "embedding"),
    ({"subject": "me", "predicate": "lives_in", "object": "Oslo", "vaild_at": DATES[0]}, "vaild_at"),
    ({"subject": 7, "predicate": "lives_in", "object": "Oslo"}, "subject"),
    ({"subject": "me\x00", "predicate": "lives_in", "object": "Oslo"}, "subject"),
    ({"subject": "me", "predicate": "lives_in", "object": "Oslo", "episodes": "s1"}, "episodes"),
    ({"subject": "me", "predicate": "lives_in", "object": "Oslo", "importance": 2}, "importance"),
    ({"subject": "me", "predicate": "likes", "object": "tea", "single_valued": "yes"}, "single_valued"),
    ("me lives in Oslo", "row"),
])
def test_a_bad_row_is_named_and_nothing_is_written(memory, bad, field):
    memory.add_fact("guarded", "me", "lives_in", "Bergen", valid_at=DATES[0])
    before = timeline(memory, "guarded")
    good = {"subject": "me", "predicate": "lives_in", "object": "Lima", "valid_at": DATES[3]}
    with pytest.raises(InvalidInput) as caught:
        memory.add_facts("guarded", [good, good, bad])
    assert str(caught.value).startswith("facts[2]: ")
    assert field in str(caught.value) or field == "row"
    assert timeline(memory, "guarded") == before
    assert memory.inspect().counts("guarded").facts == 1


def test_the_rows_argument_must_be_a_list(memory):
    for value in ("me lives in Oslo", {"subject": "me"}, 42):
        with pytest.raises(InvalidInput, match="facts must be a list"):
            memory.add_facts("u", value)
    assert memory.add_facts("u", []) == []
    assert "u" not in memory.users()


def test_vectors_travel_as_a_literal_that_reads_back_bit_for_bit(embedder):
    """`VectorParam` (how every vector reaches FalkorDB) loses nothing of a float32 vector."""
    vectors = embedder.embed(["a sentence nobody says", "another one"])
    for vector in vectors:
        text = str(VectorParam(vector.tolist()))
        assert np.array_equal(np.asarray(json.loads(text), dtype=np.float32), vector)
    with pytest.raises(InvalidInput):
        VectorParam([0.1, float("nan")])


def test_edge_floats_read_back_from_falkordb_bit_for_bit(tmp_path):
    """What the server parses from the literal is the float32 we sent: signed zero,
    subnormals, the largest finite floats and exponent forms included."""
    values = np.array([0.0, -0.0, 1e-40, -1.4e-45, 3.4028235e38, -1.1754944e-38, 1e-5, -2.5e-7, 1.0,
                       123456.7, 0.1, 1 / 3], dtype=np.float32)
    store = Store.open(data_dir=tmp_path / "gm")
    try:
        rows = store.run("vec", Query("CREATE (n:Probe {v: vecf32($v)}) RETURN n.v AS v", {"v": VectorParam(values)}))
    finally:
        store.close()
    back = np.asarray(rows[0]["v"], dtype=np.float32)
    assert np.array_equal(back.view(np.uint32), values.view(np.uint32))


def test_a_given_embedding_is_the_one_search_uses(memory, embedder):
    vector = embedder.embed(["zebra migration across the plains"])[0]
    memory.add_facts("vec", [{"subject": "me", "predicate": "likes", "object": "tea", "single_valued": False,
                              "fact": "I like tea", "embedding": vector.tolist()}])
    packet = memory.search("vec", "zebra migration across the plains", limit=5)
    assert [f.fact for f in packet.facts][:1] == ["I like tea"]


def dated(subject: str, predicate: str, obj: str, when: int, episodes: dict[str, str] | None = None) -> dict:
    row = {"subject": subject, "predicate": predicate, "object": obj, "valid_at": DATES[when],
           "single_valued": PREDICATES[predicate]}
    return row | ({"episodes": [episodes[f"s{when}#0"]]} if episodes else {})


def two_imports(eps: dict[str, str]) -> tuple[list[dict], list[dict]]:
    """A first import, and a second that splits one stored interval (a clone and an
    update), closes stored facts and adds to both subjects' slots."""
    first = [dated("me", "lives_in", "Oslo", 0, eps), dated("me", "lives_in", "Oslo", 4, eps),
             dated("Bob", "works_at", "Kyoto", 1), {"subject": "me", "predicate": "likes", "object": "tea",
                                                     "single_valued": False},
             dated("Bob", "lives_in", "Lima", 1, eps), dated("Bob", "lives_in", "Oslo", 3)]
    second = [dated("me", "lives_in", "Lima", 2, eps), dated("Bob", "works_at", "Lima", 2),
              dated("me", "likes", "Quito", 1), dated("Bob", "lives_in", "Kyoto", 5), dated("me", "lives_in", "Bern", 5),
              dated("Bob", "likes", "tea", 0), dated("me", "works_at", "Oslo", 0), dated("me", "works_at", "Lima", 3)]
    return first, second


def looped_timeline(memory) -> dict:
    eps = with_sessions(memory, "looped")
    first, second = two_imports(eps)
    for row in first + second:
        memory.add_fact("looped", **row)
    return timeline(memory, "looped")


def test_a_slot_cut_across_write_batches_ends_as_one_at_a_time(memory, monkeypatch):
    """Batches of two: one slot's entities, new facts, split copies and closures land in
    different UNWIND batches, each embedded while the one before is written."""
    monkeypatch.setattr(bulk_facts, "add_facts", partial(bulk_facts.add_facts, batch=2))
    eps = with_sessions(memory, "batched")
    first, second = two_imports(eps)
    actions = [r.action for r in memory.add_facts("batched", first) + memory.add_facts("batched", second)]
    assert {"added", "superseded", "merged"} <= set(actions)
    assert timeline(memory, "batched") == looped_timeline(memory)


class FailingEmbedder:
    """The real embedder, except that call number `fail_at` raises."""

    def __init__(self, inner, fail_at: int | None) -> None:
        self.inner, self.name, self.dimension, self.fail_at, self.calls = inner, inner.name, inner.dimension, fail_at, 0

    def embed(self, texts):
        self.calls += 1
        if self.calls == self.fail_at:
            raise RuntimeError("embedder down")
        return self.inner.embed(texts)


@pytest.mark.parametrize("fail_at", [1, 3, 5])
def test_an_embedder_failure_part_way_leaves_the_graph_as_it_was(memory, tmp_path, embedder, monkeypatch, fail_at):
    """The new entities and facts are written behind a thread while later batches are
    embedded; an embedder failure at call `fail_at` (1: before any write; 3: the new
    entities written, a batch of facts queued; 5: four of eight new facts written)
    deletes them again before the error reaches the caller, nothing writes after that,
    and the same import run again gives the timeline of one at a time."""
    monkeypatch.setattr(bulk_facts, "add_facts", partial(bulk_facts.add_facts, batch=2))
    failing = FailingEmbedder(embedder, None)
    with Memory(data_dir=tmp_path / "cut", embedder=failing) as mem:
        eps = with_sessions(mem, "cut")
        first, second = two_imports(eps)
        mem.add_facts("cut", first)
        before, counts = timeline(mem, "cut"), mem.inspect().counts("cut")
        failing.calls, failing.fail_at = 0, fail_at
        with pytest.raises(RuntimeError, match="embedder down"):
            mem.add_facts("cut", second)
        time.sleep(0.2)
        assert mem.inspect().counts("cut") == counts
        assert timeline(mem, "cut") == before
        failing.fail_at = None
        mem.add_facts("cut", second)
        assert timeline(mem, "cut") == looped_timeline(memory)


def test_a_store_failure_in_the_second_phase_still_bumps_the_graph_version(tmp_path, embedder):
    """The new facts are written by then: the version moves, so warm indexes in every
    process see what is stored, and the store's error reaches the caller."""
    from graphmem import StoreError
    from graphmem.graph import cypher as q
    from store_faults import failing

    with Memory(data_dir=tmp_path / "p2", embedder=embedder) as mem:
        mem.add_facts("p2", [{"subject": "me", "predicate": "lives_in", "object": "Oslo", "valid_at": "2024-01-01"}])
        version = lambda: mem.store.run("p2", q.graph_version(), read_only=True)[0]["version"]  # noqa: E731
        before = version()
        with failing(mem.store, q.update_facts([{"uuid": "x", "props": {}}]).cypher):
            with pytest.raises(StoreError, match="went away"):
                mem.add_facts("p2", [{"subject": "me", "predicate": "lives_in", "object": "Lima",
                                      "valid_at": "2024-06-01"}])
        assert version() == before + 1
        assert "Lima" in {f.object for f in mem.facts("p2", valid_at="2024-07-01")}
