"""The speaker view ranks only the named speakers' turns (`retrieval.turn_views`)."""

import numpy as np

from graphmem.retrieval.turn_views import (
    TurnTable, self_turns, self_vector_turns, speaker_turns, speaker_vector_turns, view_lists,
)

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


SELF_ROWS = [
    {"uuid": "u1", "session_id": "s1", "speaker": "user"},
    {"uuid": "a1", "session_id": "s1", "speaker": "assistant"},
    {"uuid": "u2", "session_id": "s2", "speaker": "user"},
    {"uuid": "a2", "session_id": "s2", "speaker": "assistant"},
]
SELF_TABLE = TurnTable.of(["u1", "a1", "u2", "a2"], SELF_ROWS)


def test_self_turns_keep_only_the_users_own_turns_best_first():
    scores = np.array([0.5, 9.0, 1.5, 4.0])
    assert self_turns(SELF_TABLE, scores, 10) == ["u2", "u1"]
    assert self_vector_turns(SELF_TABLE, ["a2", "u1", "a1", "u2"]) == ["u1", "u2"]


def test_self_turns_empty_when_the_user_speaks_no_turn_or_every_turn():
    scores = np.array([0.5, 3.0, 1.5, 2.0])
    assert self_turns(TABLE, scores, 10) == [] and self_vector_turns(TABLE, ["a", "b"]) == []
    only_user = TurnTable.of(["x", "y"], [{"uuid": "x", "speaker": "user"}, {"uuid": "y", "speaker": "User"}])
    assert self_turns(only_user, np.array([1.0, 2.0]), 10) == []


def test_view_lists_add_the_self_lists_only_for_a_first_person_question():
    from types import SimpleNamespace

    from graphmem.retrieval.recipes import DEFAULT_RECIPE, TurnList

    idx = SimpleNamespace(turns=SELF_TABLE)
    scores = np.array([0.5, 9.0, 1.5, 4.0])
    lists = {TurnList.VECTOR: ["a2", "u1"]}
    asked = view_lists(idx, SimpleNamespace(first_person=True, entity_keys=()), lists, DEFAULT_RECIPE, scores)
    assert asked == {TurnList.SELF: ["u2", "u1"], TurnList.SELF_VECTOR: ["u1"]}
    assert view_lists(idx, SimpleNamespace(first_person=False, entity_keys=()), lists, DEFAULT_RECIPE, scores) == {}


def test_a_turn_without_a_session_or_a_turn_index_has_no_neighbours():
    # sessionless turns used to be one session's neighbours, and a turn without an index sorted
    # as index 0, the neighbour of its session's first turn; neither has a place to be next to
    rows = [
        {"uuid": "x", "speaker": "a"}, {"uuid": "y", "speaker": "b", "turn_index": 1},
        {"uuid": "s0", "session_id": "s", "turn_index": 0}, {"uuid": "s1", "session_id": "s", "turn_index": 1},
        {"uuid": "s?", "session_id": "s"}, {"uuid": "s2", "session_id": "s", "turn_index": 2},
    ]
    table = TurnTable.of([r["uuid"] for r in rows], rows)
    near = table.near(1)
    assert near[0].tolist() == [-1, -1] and near[1].tolist() == [-1, -1]
    assert near[4].tolist() == [-1, -1]
    # the session's indexed turns stay a chain, without the unplaced one between them
    assert near[2].tolist() == [-1, 3] and near[3].tolist() == [2, 5] and near[5].tolist() == [3, -1]
    assert table.near(2)[5].tolist() == [3, 2, -1, -1]
