"""Question parts and the user's own turns first (`retrieval.query_parts`)."""

from graphmem.retrieval.bm25 import BM25Index
from graphmem.retrieval.fusion import Scored
from graphmem.retrieval.query_parts import interleave, own_turns_first, parts, parts_list
from graphmem.retrieval.recipes import BM25_ONLY, DEFAULT_RECIPE, HYBRID_NO_OWN_FIRST, HYBRID_NO_PARTS, VECTOR_ONLY
from graphmem.retrieval.turn_views import TurnTable

CHAT_ROWS = [
    {"uuid": "u1", "session_id": "s1", "speaker": "user", "text": "I bought a coffee maker today, a Breville"},
    {"uuid": "a1", "session_id": "s1", "speaker": "assistant", "text": "A coffee maker, a coffee grinder, coffee beans and a stand mixer"},
    {"uuid": "u2", "session_id": "s2", "speaker": "user", "text": "my stand mixer broke this morning"},
    {"uuid": "a2", "session_id": "s2", "speaker": "assistant", "text": "Sorry about the stand mixer"},
    {"uuid": "u3", "session_id": "s3", "speaker": "user", "text": "coffee coffee coffee maker reviews please"},
]
CHAT = TurnTable.of([r["uuid"] for r in CHAT_ROWS], CHAT_ROWS)
CHAT_INDEX = BM25Index.build([r["uuid"] for r in CHAT_ROWS], [r["text"] for r in CHAT_ROWS])


def test_parts_split_coordination_and_two_event_links():
    assert parts("Which seeds were started first, the tomatoes or the marigolds?") == [
        "Which seeds were started first", "the tomatoes", "the marigolds"]
    assert parts("How many days before the team meeting did I attend the workshop?") == [
        "How many days", "the team meeting did I attend the workshop"]


def test_a_question_of_one_part_has_none():
    assert parts("What kitchen appliance did I buy?") == []
    assert parts("Tom and I?") == []  # "I" alone holds no searchable word


def test_interleave_takes_each_ranking_in_turn_once():
    assert interleave([["a", "b"], ["c", "a", "d"], []], 3) == ["a", "c", "b"]


def test_parts_list_gives_each_part_a_top_rank_among_the_users_turns():
    ranked = parts_list(CHAT, CHAT_INDEX, "Which happened first, the coffee maker or the stand mixer?", 10)
    assert set(ranked[:2]) == {"u3", "u2"} or set(ranked[:2]) == {"u1", "u2"}
    assert "a1" not in ranked and "a2" not in ranked  # the assistant's turns are not ranked in a chat


def test_parts_list_ranks_every_turn_in_a_memory_of_named_speakers():
    rows = [dict(r, speaker="Ann" if r["speaker"] == "user" else "Bob") for r in CHAT_ROWS]
    table = TurnTable.of([r["uuid"] for r in rows], rows)
    assert "a2" in parts_list(table, CHAT_INDEX, "the coffee maker or the stand mixer", 10)


def test_own_turns_first_discounts_the_other_speakers_fused_scores():
    fused = [Scored("a1", 1.0), Scored("u1", 0.8), Scored("a2", 0.5), Scored("u2", 0.1)]
    assert own_turns_first(fused, CHAT, 0.7) == ["u1", "a1", "a2", "u2"]
    assert own_turns_first(fused, CHAT, 1.0) == ["a1", "u1", "a2", "u2"]


def test_own_turns_first_leaves_named_speaker_memories_alone():
    rows = [dict(r, speaker="Ann" if r["speaker"] == "user" else "Bob") for r in CHAT_ROWS]
    table = TurnTable.of([r["uuid"] for r in rows], rows)
    fused = [Scored("a1", 1.0), Scored("u1", 0.8)]
    assert own_turns_first(fused, table, 0.5) == ["a1", "u1"]
    assert own_turns_first(fused, None, 0.5) == ["a1", "u1"]


def test_recipes_switch_the_rules_on_and_off():
    assert DEFAULT_RECIPE.query_parts == 1.0 and DEFAULT_RECIPE.other_turns == 0.7
    assert HYBRID_NO_PARTS.query_parts == 0.0 and HYBRID_NO_PARTS.other_turns == 0.7
    assert HYBRID_NO_OWN_FIRST.other_turns == 1.0 and HYBRID_NO_OWN_FIRST.query_parts == 1.0
    for single in (BM25_ONLY, VECTOR_ONLY):
        assert single.query_parts == 0.0 and single.other_turns == 1.0
