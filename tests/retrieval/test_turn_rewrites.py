"""The opt-in turn-list rewrites: time prior, fact sources pulled up, per-session cap."""

from datetime import datetime, timezone

import numpy as np

from graphmem.retrieval.fact_turns import pull_sources
from graphmem.retrieval.session_cap import cap_sessions
from graphmem.retrieval.time_prior import dated_turns, in_range
from graphmem.retrieval.turn_views import TurnTable


def _utc(*args):
    return datetime(*args, tzinfo=timezone.utc)


ROWS = [
    {"uuid": "a", "session_id": "s1", "speaker": "user", "session_time": "2023-05-01T10:00:00+00:00"},
    {"uuid": "b", "session_id": "s1", "speaker": "user", "session_time": "2023-05-01T10:00:00+00:00"},
    {"uuid": "c", "session_id": "s2", "speaker": "user", "session_time": "2023-06-20T10:00:00+00:00"},
    {"uuid": "d", "session_id": "s3", "speaker": "user", "session_time": None},
]
TABLE = TurnTable.of(["a", "b", "c", "d"], ROWS)


def test_dated_turns_keep_only_sessions_in_the_named_range():
    scores = np.array([1.0, 2.0, 5.0, 9.0])
    june = dated_turns(TABLE, scores, ["d", "c", "a"], _utc(2023, 6, 1), _utc(2023, 7, 1), 10)
    assert june == ["c"]
    may = dated_turns(TABLE, scores, ["d", "c", "a"], _utc(2023, 5, 1), _utc(2023, 6, 1), 10)
    assert may == ["b", "a"]


def test_dated_turns_empty_without_a_range_or_when_every_turn_is_in_it():
    scores = np.ones(4)
    assert dated_turns(TABLE, scores, [], None, None, 10) == []
    assert in_range(TABLE.times, None, _utc(2024, 1, 1)).tolist() == [True, True, True, False]


def test_pull_sources_moves_a_fact_source_up_to_the_fact_rank():
    assert pull_sources(["a", "b", "c", "d"], ["d"], stride=1) == ["d", "a", "b", "c"]
    assert pull_sources(["a", "b", "c", "d"], [None, "d"], stride=2) == ["a", "b", "d", "c"]
    assert pull_sources(["a", "b"], ["a", "z"], stride=1) == ["a", "z", "b"]
    assert pull_sources(["a", "b", "c"], ["c"], stride=0) == ["a", "b", "c"]


def test_cap_sessions_defers_a_crowding_session_within_the_window():
    session = {"a1": "A", "a2": "A", "a3": "A", "b1": "B", "c1": "C"}
    assert cap_sessions(["a1", "a2", "a3", "b1", "c1"], session, cap=1, window=3) == ["a1", "b1", "c1", "a2", "a3"]
    assert cap_sessions(["a1", "a2", "a3", "b1"], session, cap=2, window=2) == ["a1", "a2", "a3", "b1"]
    assert cap_sessions(["a1", "a2"], session, cap=0, window=5) == ["a1", "a2"]
