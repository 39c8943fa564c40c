"""The session-level dense signal: centroids of stored turn vectors, the session order
and the tail that covers more sessions, and its wiring as opt-in recipes."""

from __future__ import annotations

import numpy as np

from graphmem.retrieval import session_dense
from graphmem.retrieval.recipes import DEFAULT_RECIPE, get_recipe
from graphmem.retrieval.session_dense import (
    SessionVectors, promote_sessions, session_list, session_order,
)
from graphmem.retrieval.turn_views import TurnTable

ROWS = [
    {"uuid": "a1", "session_id": "A", "speaker": "user", "session_time": None},
    {"uuid": "a2", "session_id": "A", "speaker": "assistant", "session_time": None},
    {"uuid": "b1", "session_id": "B", "speaker": "user", "session_time": None},
    {"uuid": "b2", "session_id": "B", "speaker": "assistant", "session_time": None},
    {"uuid": "c1", "session_id": "C", "speaker": "assistant", "session_time": None},
]
TABLE = TurnTable.of([r["uuid"] for r in ROWS], ROWS)
VECTORS = {"a1": [1.0, 0.0, 0.0], "a2": [0.0, 1.0, 0.0], "b1": [0.0, 0.0, 1.0], "b2": [0.0, 2.0, 0.0],
           "c1": [0.6, 0.8, 0.0]}


def test_centroids_average_the_unit_turn_vectors_of_each_session():
    sv = SessionVectors.of(TABLE, VECTORS)
    assert sv.sessions == ("A", "B", "C")
    np.testing.assert_allclose(sv.centroids[0], [2 ** -0.5, 2 ** -0.5, 0.0])
    np.testing.assert_allclose(sv.centroids[1], [0.0, 2 ** -0.5, 2 ** -0.5])
    assert sv.rank_sessions([0.0, 1.0, 1.0]) == ["B", "C", "A"]
    assert sv.rank_sessions([0.6, 0.8, 0.0]) == ["C", "A", "B"]


def test_own_centroids_use_the_users_turns_where_a_session_has_some():
    sv = SessionVectors.of(TABLE, VECTORS, TABLE.own_turns)
    np.testing.assert_allclose(sv.centroids[0], [1.0, 0.0, 0.0])  # a1 only
    np.testing.assert_allclose(sv.centroids[1], [0.0, 0.0, 1.0])  # b1 only
    np.testing.assert_allclose(sv.centroids[2], [0.6, 0.8, 0.0])  # no user turn: all of C
    assert sv.rank_sessions([0.0, 1.0, 0.0]) == ["C", "A", "B"]


def test_a_turn_without_a_vector_counts_as_nothing():
    sv = SessionVectors.of(TABLE, {k: v for k, v in VECTORS.items() if k != "a2"})
    np.testing.assert_allclose(sv.centroids[0], [1.0, 0.0, 0.0])
    assert not sv.turns[1].any()


def test_session_list_interleaves_the_best_turns_of_the_best_sessions():
    sv = SessionVectors.of(TABLE, VECTORS)
    assert sv.best_turns(TABLE, [0.0, 1.0, 0.0], "B", 2) == ["b2", "b1"]
    assert session_list(sv, TABLE, [0.0, 1.0, 0.1], sessions=2, per_session=2) == ["c1", "b2", "b1"]


def test_session_order_fuses_the_fused_rank_and_the_centroid_rank():
    assert session_order(["a1", "b1"], {"a1": "A", "b1": "B"}, ["B", "C", "A"], k=5) == ["B", "A", "C"]
    assert session_order(["a1", "a2"], {"a1": "A", "a2": "A"}, ["A"], k=5) == ["A"]


def test_promote_sessions_keeps_the_head_and_covers_more_sessions_after_it():
    s = {"a1": "A", "a2": "A", "a3": "A", "b1": "B", "c1": "C"}
    out = promote_sessions(["a1", "a2", "a3", "b1"], s, ["A", "C", "B"], {"C": "c1"}, head=2, sessions=3)
    assert out == ["a1", "a2", "c1", "b1", "a3"]
    # the head is never touched, and nothing is dropped or repeated
    out = promote_sessions(["c1", "a1", "a2", "b1"], s, ["B"], {}, head=3, sessions=5)
    assert out == ["c1", "a1", "a2", "b1"]
    # enough sessions already: unchanged
    assert promote_sessions(["a1", "b1", "a2"], s, ["C"], {"C": "c1"}, head=2, sessions=2) == ["a1", "b1", "a2"]
    # a session of the fused tail is promoted by its own best fused turn, not the dense one
    assert promote_sessions(["a1", "a2", "b1"], s, ["B"], {"B": "zz"}, head=1, sessions=2) == ["a1", "b1", "a2"]


def test_the_recipes_are_opt_in_and_named_as_systems():
    from graphmem.evals.systems.registry import ABLATIONS, BUILDERS

    assert DEFAULT_RECIPE.session_prior is None
    assert get_recipe("hybrid_session_tail").session_prior.mode == "tail"
    assert get_recipe("hybrid_session_tail_own").session_prior.own
    assert get_recipe("hybrid_session_list").session_prior.mode == "list"
    for name in ("session_tail", "session_tail_own", "session_list"):
        assert f"graphmem:{name}" in BUILDERS and ABLATIONS[name].session_prior is not None


NOW = "2024-09-15T12:00:00Z"


def _write_sessions(memory, sessions=14):
    topics = ["glacier hike in the Alps", "baking sourdough bread", "my cat sleeping on the sofa",
              "fixing the bike chain", "learning the violin", "planting tomatoes", "a trip to Lisbon"]
    for i in range(sessions):
        topic = topics[i % len(topics)]
        memory.write("p", [{"role": "user", "speaker": "user", "content": f"Today I talked about {topic} ({i})."},
                           {"role": "assistant", "speaker": "assistant", "content": f"Tell me more about {topic}."}],
                     f"2024-03-{i + 1:02d}", session_id=f"s{i}")


def _write_one_long_session(memory):
    """One session of 16 turns on the glacier, then 8 short sessions on other things."""
    memory.write("p", [{"role": "user" if i % 2 == 0 else "assistant", "speaker": "user" if i % 2 == 0 else "assistant",
                        "content": f"The glacier hike, part {i}: the glacier trail was icy."} for i in range(16)],
                 "2024-03-01", session_id="long")
    _write_sessions(memory, sessions=8)


def test_session_tail_keeps_the_first_ten_turns_and_covers_more_sessions_after_them(memory):
    _write_one_long_session(memory)
    question = "What did I say about the glacier hike?"
    plain = memory.search("p", question, now=NOW, limit=25, recipe=get_recipe("hybrid_no_session_tail"))
    tail = memory.search("p", question, now=NOW, limit=25, recipe=get_recipe("hybrid_session_tail"))
    by_turn = {row.turn_id: row.session_id for row in memory.inspect().episodes("p")}

    def sessions(packet, n):
        return len(set(by_turn[e.turn_id] for e in packet.episodes[:n]))

    assert [e.turn_id for e in tail.episodes[:10]] == [e.turn_id for e in plain.episodes[:10]]
    assert sessions(plain, 10) < 10 and sessions(tail, 20) == 9 > sessions(plain, 20)
    assert len(tail.episodes) == len(plain.episodes)


def test_session_vectors_are_read_once_per_graph_version(memory, monkeypatch):
    _write_sessions(memory, sessions=3)
    calls = []
    real = session_dense.SessionVectors.of
    monkeypatch.setattr(session_dense.SessionVectors, "of",
                        classmethod(lambda cls, *a, **k: calls.append(1) or real(*a, **k)))
    for _ in range(2):
        memory.search("p", "bread?", now=NOW, recipe=get_recipe("hybrid_session_list"))
    assert len(calls) == 1


def _count_neighbour_queries(monkeypatch):
    from graphmem.retrieval import search as s

    calls = []
    real = s.q.episode_neighbours
    monkeypatch.setattr(s.q, "episode_neighbours", lambda uuids: calls.append(uuids) or real(uuids))
    return calls


def test_no_chat_neighbours_drops_the_neighbour_list_in_user_assistant_memories_only(memory, monkeypatch):
    _write_sessions(memory, sessions=3)
    for i, speaker in enumerate(["Caroline", "Melanie"]):
        memory.write("named", [{"role": "user", "speaker": speaker, "content": "The glacier trail was icy."}],
                     f"2024-03-{i + 1:02d}")
    calls = _count_neighbour_queries(monkeypatch)
    recipe = get_recipe("hybrid_no_chat_neighbours")
    assert DEFAULT_RECIPE.chat_neighbours == "all" and recipe.chat_neighbours == "none"
    memory.search("p", "What did I say about bread?", now=NOW)
    assert len(calls) == 1
    memory.search("p", "What did I say about bread?", now=NOW, recipe=recipe)
    assert len(calls) == 1
    memory.search("named", "Where was the glacier trail?", now=NOW, recipe=recipe)
    assert len(calls) == 2


def test_user_neighbours_keep_only_the_users_own_turns_among_the_neighbours_of_a_chat(memory):
    memory.write("p", [{"role": "user", "speaker": "user", "content": "I adopted a puppy called Rex."},
                       {"role": "assistant", "speaker": "assistant", "content": "Congratulations on the puppy Rex!"},
                       {"role": "user", "speaker": "user", "content": "He chews my shoes."},
                       {"role": "assistant", "speaker": "assistant", "content": "Chewing is normal for a puppy."}],
                 "2024-03-01", session_id="s0")
    _write_sessions(memory, sessions=2)
    from graphmem.retrieval import learned_fusion

    question = "What is my puppy called?"
    speakers = {r.uuid: r.speaker for r in memory.inspect().episodes("p")}
    with learned_fusion.recording(force=True) as log:
        memory.search("p", question, now=NOW)
        memory.search("p", question, now=NOW, recipe=get_recipe("hybrid_user_neighbours"))
    column = learned_fusion.FEATURES.index("in_neighbours")
    (all_ids, all_x), (user_ids, user_x) = log
    every = [u for u, row in zip(all_ids, all_x) if row[column]]
    users = [u for u, row in zip(user_ids, user_x) if row[column]]
    assert {speakers[u] for u in every} == {"user", "assistant"}
    assert users and {speakers[u] for u in users} == {"user"} and set(users) <= set(every)
