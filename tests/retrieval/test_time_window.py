"""The time list weighed by how few sessions the named time holds (`retrieval.time_prior.window_weight`,
`SearchRecipe.time_prior_window`; opt-in, issue 12's twelfth round)."""

from datetime import UTC, datetime
from types import SimpleNamespace

from graphmem.retrieval import turn_order
from graphmem.retrieval.recipes import DEFAULT_RECIPE, HYBRID_WINDOW_TIME_PRIOR, RECIPES
from graphmem.retrieval.time_prior import time_weight, window_sessions, window_weight
from graphmem.retrieval.turn_views import TurnTable


def _utc(*a):
    return datetime(*a, tzinfo=UTC)


ROWS = [{"uuid": u, "session_id": s, "speaker": "user", "session_time": d} for u, s, d in (
    ("a1", "A", "2023-03-15T09:00:00+00:00"), ("a2", "A", "2023-03-15T09:00:00+00:00"),
    ("b1", "B", "2023-03-15T18:00:00+00:00"), ("c1", "C", "2023-03-01T09:00:00+00:00"),
    ("d1", "D", "2023-02-01T09:00:00+00:00"))]
TABLE = TurnTable.of([r["uuid"] for r in ROWS], ROWS)


def test_window_weight_grows_as_the_window_holds_fewer_sessions_and_never_falls_below_the_weight():
    assert window_weight(1.0, 1, 10.0) == 10.0
    assert window_weight(1.0, 4, 10.0) == 2.5
    assert window_weight(2.0, 5, 10.0) == 4.0
    assert window_weight(1.0, 40, 10.0) == 1.0  # a wide window ("the past three months") keeps the weight
    assert window_weight(1.0, 0, 10.0) == 1.0  # no dated session: no list to weigh
    assert window_weight(1.0, 2, 0.0) == 1.0  # off


def test_window_sessions_counts_sessions_not_turns_with_the_slack_of_a_day():
    assert window_sessions(TABLE, _utc(2023, 3, 15), _utc(2023, 3, 16)) == 2  # A (two turns) and B
    assert window_sessions(TABLE, _utc(2023, 2, 1), _utc(2023, 3, 16)) == 4
    assert window_sessions(TABLE, None, None) == 0


def test_time_weight_reads_the_questions_named_time():
    idx = SimpleNamespace(turns=TABLE)
    day = SimpleNamespace(time_words=("on March 15",), mode="as_of", range_start=_utc(2023, 3, 15),
                          range_end=_utc(2023, 3, 16))
    assert time_weight(idx, day, 1.0, 10.0) == 5.0
    assert time_weight(idx, day, 1.0, 0.0) == 1.0
    timeless = SimpleNamespace(time_words=(), mode="as_of", range_start=None, range_end=None)
    assert time_weight(idx, timeless, 1.0, 10.0) == 1.0
    assert time_weight(SimpleNamespace(turns=None), day, 1.0, 10.0) == 1.0


def test_opt_in_recipe_and_default():
    from graphmem.evals.systems.registry import ABLATIONS

    assert DEFAULT_RECIPE.time_prior_window == 0.0
    assert HYBRID_WINDOW_TIME_PRIOR.time_prior_window == 10.0
    assert ABLATIONS["window_time_prior"] is HYBRID_WINDOW_TIME_PRIOR
    assert RECIPES["hybrid_window_time_prior"] is HYBRID_WINDOW_TIME_PRIOR


def _chat(memory):
    """A user-assistant memory (weighted-RRF fusion): six sessions that talk about the store
    in the question's words, on other days, and one session ten days before `now` that says
    what was bought in other words."""
    for d in range(1, 7):
        memory.write("u", [{"role": "user", "content": f"I went to the store again and got nothing useful, visit {d}"},
                           {"role": "assistant", "content": "Stores can be disappointing."}],
                     f"2024-04-0{d}T10:00:00+00:00", session_id=f"S{d}")
    memory.write("u", [{"role": "user", "content": "Picked up a shiny new blender this afternoon"},
                       {"role": "assistant", "content": "Enjoy the smoothies!"}],
                 "2024-04-20T10:00:00+00:00", session_id="T")


QUESTION = "What did I get at the store 10 days ago?"
NOW = _utc(2024, 4, 30, 12)


def test_the_dated_session_weighs_more_through_search(memory, monkeypatch):
    """Through `Memory.search` (real FalkorDB and MiniLM): the time list's RRF weight is 10 for a
    named time holding one session with the opt-in recipe, 1 by default; with it the dated
    session's turn comes first, without it the word matches of other days do."""
    _chat(memory)
    seen = []
    real = turn_order.rrf

    def spy(rankings, k, weights=None):
        seen.append(list(weights))
        return real(rankings, k=k, weights=weights)

    monkeypatch.setattr(turn_order, "rrf", spy)
    flat = memory.search("u", QUESTION, now=NOW, limit=10)
    window = memory.search("u", QUESTION, now=NOW, limit=10, recipe=HYBRID_WINDOW_TIME_PRIOR)
    assert max(seen[0]) < 10.0 and 10.0 in seen[1]

    def rank(packet):
        return [e.content for e in packet.episodes].index("Picked up a shiny new blender this afternoon")

    assert rank(window) == 0 and rank(flat) > 0  # flat: the six store sessions' turns outrank it
