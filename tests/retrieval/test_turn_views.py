"""The speaker view ranks only the named speakers' turns (`retrieval.turn_views`)."""

import numpy as np

from graphmem.retrieval.turn_views import TurnTable, speaker_turns, speaker_vector_turns

ROWS = [
    {"uuid": "a", "session_id": "s1", "speaker": "Melanie"},
    {"uuid": "b", "session_id": "s1", "speaker": "Caroline"},
    {"uuid": "c", "session_id": "s2", "speaker": "Melanie"},
    {"uuid": "d", "session_id": "s2", "speaker": "Caroline"},
]
TABLE = TurnTable.of(["a", "b", "c", "d"], ROWS)


def test_speaker_turns_keep_only_the_named_speaker_best_first():
    scores = np.array([0.5, 3.0, 1.5, 0.0])
    assert speaker_turns(TABLE, scores, ["melanie"], 10) == ["c", "a"]


def test_speaker_turns_empty_without_a_named_speaker():
    scores = np.array([0.5, 3.0, 1.5, 2.0])
    assert speaker_turns(TABLE, scores, [], 10) == []
    assert speaker_turns(TABLE, scores, ["lyon"], 10) == []


def test_speaker_vector_turns_filter_the_list_in_its_order():
    assert speaker_vector_turns(TABLE, ["d", "c", "b", "a"], ["caroline"]) == ["d", "b"]
    assert TABLE.members == {"s1": (0, 1), "s2": (2, 3)}
