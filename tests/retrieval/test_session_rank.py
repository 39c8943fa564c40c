"""Sessions ranked as documents (`retrieval.session_rank`) and the time prior cut at `now`
(`retrieval.time_prior.until`): issue 12's eighth round."""

from datetime import UTC, datetime
from types import SimpleNamespace

import numpy as np

from graphmem.retrieval import search as search_module
from graphmem.retrieval.bm25 import BM25Index
from graphmem.retrieval.index import UserIndexes
from graphmem.retrieval.recipes import (
    BM25_ONLY, DEFAULT_RECIPE, HYBRID_BEST_TURN_SESSIONS, HYBRID_NO_SESSION_TAIL, HYBRID_TIME_UNTIL_NOW, VECTOR_ONLY,
)
from graphmem.retrieval.session_rank import (
    SessionTailConfig, best_turn_by_scores, best_turns_mean, dated_sessions, dense_sessions, fuse_orders, ranked_sessions,
    session_documents, session_index, tail,
)
from graphmem.retrieval.time_prior import time_list, until
from graphmem.retrieval.turn_views import TurnTable

ROWS = [
    {"uuid": "x1", "session_id": "X", "speaker": "user", "text": "the zucchini plants are tall"},
    {"uuid": "x2", "session_id": "X", "speaker": "assistant", "text": "zucchini zucchini zucchini recipes"},
    {"uuid": "x3", "session_id": "X", "speaker": "user", "text": "I watered the zucchini bed"},
    {"uuid": "y1", "session_id": "Y", "speaker": "user", "text": "zucchini and carrots from the market"},
    {"uuid": "z1", "session_id": "Z", "speaker": "user", "text": "my car needs new tyres"},
    {"uuid": "z2", "session_id": "Z", "speaker": "assistant", "text": "zucchini"},
]
TABLE = TurnTable.of([r["uuid"] for r in ROWS], ROWS)
INDEX = BM25Index.build([r["uuid"] for r in ROWS], [r["text"] for r in ROWS])


def _idx():
    return UserIndexes(version=1, facts=INDEX, episodes=INDEX, turns=TABLE)


def test_session_documents_sum_the_users_own_turns_where_a_session_has_some():
    ids, counts = session_documents(TABLE, INDEX.counts, own=True)
    assert ids == ("X", "Y", "Z")
    zucchini = INDEX.term_ids(["zucchini"])[0]
    assert counts[:, zucchini].toarray().ravel().tolist() == [2.0, 1.0, 0.0]  # x2 and z2 are the assistant's
    _, every = session_documents(TABLE, INDEX.counts, own=False)
    assert every[:, zucchini].toarray().ravel().tolist() == [5.0, 1.0, 1.0]


def test_a_session_that_comes_back_to_the_words_outranks_one_turn_of_them():
    idx = _idx()
    assert ranked_sessions(session_index(idx, own=True), "zucchini")[0] == "X"
    assert session_index(idx, own=True) is idx.derived[("session_bm25", True)]  # built once per graph version
    assert "Z" not in ranked_sessions(session_index(idx, own=True), "zucchini")  # only the assistant said it


def test_regrouped_index_scores_like_an_index_built_from_the_joined_texts():
    ids, counts = session_documents(TABLE, INDEX.counts, own=False)
    regrouped = INDEX.regrouped(ids, counts)
    joined = BM25Index.build(["X", "Y", "Z"], [" ".join(r["text"] for r in ROWS if r["session_id"] == s)
                                                for s in "XYZ"])
    np.testing.assert_allclose(regrouped.scores("zucchini tall market tyres"),
                               joined.scores("zucchini tall market tyres"))


def test_fuse_orders_weighs_the_rankings_and_skips_a_zero_weight():
    assert fuse_orders([(["Y", "X"], 1.0), (["X", "Y"], 2.0)], k=5) == ["X", "Y"]
    assert fuse_orders([(["Y", "X"], 1.0), (["X", "Y"], 0.0)], k=5) == ["Y", "X"]


def test_best_turn_prefers_the_users_turns_and_dense_sessions_rank_by_the_best_turn():
    scores = INDEX.scores("zucchini")
    assert best_turn_by_scores(TABLE, scores, ["X"])["X"] == "x2"
    own = best_turn_by_scores(TABLE, scores, ["X", "Z"], TABLE.own_turns)
    assert own["X"] in ("x1", "x3") and own["Z"] == "z1"  # Z's only user turn, though it scores 0
    vectors = np.zeros((6, 2))
    vectors[4] = [1.0, 0.0]  # z1
    vectors[0] = [0.0, 1.0]  # x1
    assert dense_sessions(TABLE, vectors, [1.0, 0.1])[0] == "Z"


def test_dense_sessions_by_their_best_three_turns_prefer_a_session_about_the_topic():
    """One turn of X matches the question exactly, the rest of X is about something else; all
    three of Y are close to it. By the best turn X leads, by the best three Y does."""
    rows = [{"uuid": f"{s.lower()}{i}", "session_id": s, "speaker": "user", "text": ""} for s in "XY" for i in range(3)]
    table = TurnTable.of([r["uuid"] for r in rows], rows)
    vectors = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 1.0], [0.8, 0.6], [0.8, 0.6], [0.8, 0.6]])
    assert dense_sessions(table, vectors, [1.0, 0.0]) == ["X", "Y"]
    assert dense_sessions(table, vectors, [1.0, 0.0], turns=3) == ["Y", "X"]
    # a session shorter than `turns` is scored by the turns it has
    np.testing.assert_allclose(best_turns_mean(np.array([0.9, 0.2, 0.5]), np.array([1, 2]), 3), [0.9, 0.35])


def test_the_tail_keeps_the_head_and_brings_the_next_best_session():
    s = {"y1": "Y", "z1": "Z", "z2": "Z", "x1": "X"}
    assert tail(["y1", "z1", "z2", "x1"], s, ["Y", "X", "Z"], {}, head=1, sessions=2) == ["y1", "x1", "z1", "z2"]


def test_the_knob_reorders_the_search(memory):
    """Through `Memory.search`: with the tail (head 0, one session, the session documents' BM25
    alone) the first turn cited is from the session that keeps coming back to the question's
    words, not from the session holding the one best single turn."""
    filler = ["my car needs new tyres", "the bus was late again", "I booked the dentist", "rain all day",
              "the printer jammed twice", "we watched a long film"]
    memory.write("u", [{"role": "user", "content": "zucchini harvest"}]
                 + [{"role": "user", "content": f} for f in filler], "2024-05-01", session_id="Y")
    memory.write("u", [{"role": "user", "content": f"{'zucchini' if i % 2 else 'harvest'} note {i}, weeding the beds"}
                       for i in range(8)], "2024-05-02", session_id="X")
    for d in range(3):
        memory.write("u", [{"role": "user", "content": f"{f} on day {d}"} for f in filler[:2]], f"2024-05-1{d}",
                     session_id=f"D{d}")
    now = datetime(2024, 6, 1, tzinfo=UTC)
    before = memory.search("u", "zucchini harvest", now=now, limit=30, recipe=HYBRID_NO_SESSION_TAIL)
    assert before.episodes[0].content == "zucchini harvest"
    recipe = DEFAULT_RECIPE.model_copy(update={"session_tail": SessionTailConfig(head=0, sessions=1, fused=0.0,
                                                                                  dense=0.0, dated=0.0)})
    after = memory.search("u", "zucchini harvest", now=now, recipe=recipe, limit=30)
    assert " note " in after.episodes[0].content
    assert {e.content for e in after.episodes} == {e.content for e in before.episodes}  # reordered, nothing lost


def test_the_tail_ranks_a_session_by_its_best_three_turns_through_search(memory):
    """Through `Memory.search` (real MiniLM), the tail ranking sessions by cosine alone (head 0,
    one session): session A repeats the question once among unrelated turns, session B talks
    about the garden in three turns. By the best single turn (the ablation) A's turn comes
    first; by the best three turns (the default) B's does."""
    memory.write("u", [{"role": "user", "content": c} for c in (
        "My neighbour asked how the vegetable garden is doing", "The printer jammed twice at work",
        "We watched a long film about submarines", "The bus was late again this morning")],
        "2024-05-01", session_id="A")
    memory.write("u", [{"role": "user", "content": c} for c in (
        "The tomatoes in my vegetable patch are finally ripening", "I planted carrots and beans in the backyard beds",
        "Weeding the garden beds took all morning", "I paid the electricity bill")], "2024-05-02", session_id="B")
    now = datetime(2024, 6, 1, tzinfo=UTC)
    only_dense = {"head": 0, "sessions": 1, "fused": 0.0, "bm25": 0.0, "dated": 0.0}

    def first_session(recipe):
        cfg = recipe.session_tail.model_copy(update=only_dense)
        packet = memory.search("u", "How is the vegetable garden doing?", now=now, limit=8,
                               recipe=recipe.model_copy(update={"session_tail": cfg}))
        return packet.episodes[0].content

    assert first_session(HYBRID_BEST_TURN_SESSIONS) == "My neighbour asked how the vegetable garden is doing"
    assert first_session(DEFAULT_RECIPE) in {"The tomatoes in my vegetable patch are finally ripening",
                                             "I planted carrots and beans in the backyard beds",
                                             "Weeding the garden beds took all morning"}


def test_the_default_has_the_tail_after_ten_turns_and_the_ablations_switch_it():
    from graphmem.evals.systems.registry import ABLATIONS

    cfg = DEFAULT_RECIPE.session_tail
    assert (cfg.head, cfg.sessions, cfg.fused, cfg.bm25, cfg.dense, cfg.dated) == (10, 10, 1.0, 1.0, 1.0, 1.0)
    assert cfg.dense_turns == 3
    assert HYBRID_BEST_TURN_SESSIONS.session_tail.dense_turns == 1
    assert ABLATIONS["best_turn_sessions"] is HYBRID_BEST_TURN_SESSIONS
    assert HYBRID_NO_SESSION_TAIL.session_tail is None and ABLATIONS["no_session_tail"].session_tail is None
    assert BM25_ONLY.session_tail is None and VECTOR_ONLY.session_tail is None
    assert not DEFAULT_RECIPE.time_prior_until_now and ABLATIONS["time_until_now"].time_prior_until_now
    assert HYBRID_TIME_UNTIL_NOW.time_prior_until_now


def _utc(*a):
    return datetime(*a, tzinfo=UTC)


def test_until_cuts_the_range_at_now_and_drops_a_range_after_it():
    now = _utc(2023, 5, 3)
    assert until(_utc(2023, 5, 6), _utc(2023, 5, 8), now) is None  # "this weekend", asked on a Wednesday
    assert until(_utc(2023, 5, 1), _utc(2023, 6, 1), now) == (_utc(2023, 5, 1), now)  # "this month"
    assert until(_utc(2023, 4, 1), _utc(2023, 5, 1), now) == (_utc(2023, 4, 1), _utc(2023, 5, 1))  # "last month"
    assert until(_utc(2023, 5, 6), _utc(2023, 5, 8), None) == (_utc(2023, 5, 6), _utc(2023, 5, 8))


def test_time_list_with_now_leaves_out_sessions_dated_after_it():
    rows = [{"uuid": "p", "session_id": "P", "speaker": "user", "session_time": "2023-05-01T00:00:00+00:00"},
            {"uuid": "f", "session_id": "F", "speaker": "user", "session_time": "2023-05-06T00:00:00+00:00"}]
    table = TurnTable.of(["p", "f"], rows)
    idx = SimpleNamespace(turns=table)
    plan = SimpleNamespace(time_words=("this weekend",), mode="as_of", range_start=_utc(2023, 5, 6),
                           range_end=_utc(2023, 5, 8))
    scores = np.array([1.0, 1.0])
    assert time_list(idx, plan, [], 10, scores) == ["f"]
    assert time_list(idx, plan, [], 10, scores, now=_utc(2023, 5, 3)) == []


def test_dated_sessions_keep_the_dense_order_of_the_sessions_in_the_range():
    rows = [{"uuid": u, "session_id": s, "speaker": "user", "session_time": d} for u, s, d in (
        ("a", "A", "2023-03-15T09:00:00+00:00"), ("b", "B", "2023-03-15T18:00:00+00:00"),
        ("c", "C", "2023-03-01T09:00:00+00:00"), ("d", "D", "2023-03-16T09:00:00+00:00"))]
    table = TurnTable.of(["a", "b", "c", "d"], rows)
    dense = ["C", "D", "B", "A"]
    assert dated_sessions(table, dense, _utc(2023, 3, 15), _utc(2023, 3, 16)) == ["D", "B", "A"]  # +-1 day
    assert dated_sessions(table, dense, None, None) == []
    assert dated_sessions(table, dense, _utc(2023, 1, 1), _utc(2023, 12, 1)) == []  # every session: no signal


def test_search_passes_now_to_the_time_prior_only_when_the_recipe_says(memory, monkeypatch):
    seen = []
    real = search_module.time_list

    def spy(*args, **kwargs):
        seen.append(args[5] if len(args) > 5 else kwargs.get("now"))
        return real(*args, **kwargs)

    monkeypatch.setattr(search_module, "time_list", spy)
    memory.write("u", [{"role": "user", "content": "I cooked risotto for dinner"}], "2024-05-01")
    now = _utc(2024, 5, 8)
    memory.search("u", "What should I cook this weekend?", now=now)
    memory.search("u", "What should I cook this weekend?", now=now, recipe=HYBRID_TIME_UNTIL_NOW)
    assert seen == [None, now]
