"""Abstention masks proper names only: the graph's common-noun entities are the topic
(issue 12, ninth round; `retrieval.abstention.proper_names`; since the eleventh round
told apart by how the graph spells them, `abstention.spelt_as_name`); and its coverage reads
a turn with its neighbours, as an answer is often an exchange
(`retrieval.abstention.exchange_coverage`).

The offline rules name activities and things as entities ("car", "running"), so the
question's known names included them: "When did Maria get in a car accident?" was
masked to "... get in a someone accident?" and had no "car" among its topic words,
and abstained although a turn says it. Never-said questions keep abstaining.
"""

from __future__ import annotations

import numpy as np
import pytest

from graphmem.retrieval import abstention
from graphmem.retrieval.bm25 import BM25Index
from graphmem.retrieval.recipes import (
    HYBRID_MASK_ALL_NAMES, HYBRID_NO_WIDE_COVERAGE, HYBRID_QUESTION_CASE_NAMES, HYBRID_SINGLE_TURN_COVERAGE,
)
from graphmem.retrieval.turn_views import TurnTable

NOW = "2023-08-01"
SMALL_TALK = [
    "The weather was lovely, we got out for a walk by the river today.",
    "I finally got through the book club novel, the ending surprised me.",
    "We tried the new bakery on Elm Street, you should get their sourdough.",
    "My sister visited and we got the board games out all evening.",
    "Work has been busy, I get the quarterly reports done this month.",
    "I started learning to paint with watercolours on Sundays.",
    "The kids had their school concert, they got a standing ovation.",
    "We planted tomatoes and basil in the backyard garden.",
    "I went to a yoga class with a friend from the gym.",
    "The neighbours threw a barbecue party on Saturday night.",
]


def test_proper_names_are_the_keys_written_capitalised():
    keys = ["maria", "car", "homeless shelter", "lgbtq"]
    assert abstention.proper_names("When did Maria get in a car accident?", keys) == ["maria"]
    assert abstention.proper_names("Is Maria's LGBTQ group at the homeless shelter?", keys) == ["maria", "lgbtq"]
    # a question written without case keeps every known name masked, as before
    assert abstention.proper_names("when did maria get in a car accident?", keys) == keys


def test_a_common_noun_entity_stays_a_topic_word_and_unmasked():
    names = abstention.proper_names("When did Maria get in a car accident?", ["maria", "car"])
    assert "car" in abstention.topic_terms("When did Maria get in a car accident?", names)
    assert abstention.mask_names("When did Maria get in a car accident?", names) == \
        "When did someone get in a car accident?"


@pytest.fixture
def maria(memory):
    turns = []
    for n, line in enumerate(SMALL_TALK * 5):  # 50 turns: a memory of LoCoMo's kind, not a small one
        turns.append({"speaker": "Maria" if n % 2 else "John", "content": line, "id": f"D1:{n + 1}"})
    memory.write("m", turns, "2023-06-01", session_id="s1")
    memory.write("m", [
        {"speaker": "Maria", "content": "Sorry I missed yoga, I got in a wreck with my car on the icy road.", "id": "D2:1"},
        {"speaker": "John", "content": "Oh no, are you hurt? That sounds scary.", "id": "D2:2"},
        {"speaker": "Maria", "content": "Just bruises, the mechanic says the car needs a new bumper.", "id": "D2:3"},
    ], "2023-07-04", session_id="s2")
    memory.add_fact("m", "Maria", "owns", "car", fact="Maria owns a car.", valid_at="2023-07-04")
    return memory


def test_a_question_naming_a_thing_the_graph_knows_finds_its_turn(maria):
    asked = "When did Maria get in a car accident?"
    packet = maria.search("m", asked, now=NOW)
    assert not packet.abstain, (packet.reason, packet.topic_coverage, packet.masked_similarity)
    assert "D2:1" in packet.cited_turn_ids
    # positive control: with every known name masked, as before, the same memory abstains
    assert "car" in maria._indexes.get(maria.store, "m").entity_uuids
    before = maria.search("m", asked, now=NOW, recipe=HYBRID_MASK_ALL_NAMES)
    assert before.abstain and before.cited_turn_ids == (), (before.topic_coverage, before.masked_similarity, packet.topic_coverage, packet.masked_similarity)
    assert before.masked_similarity < packet.masked_similarity


def test_never_said_questions_still_abstain(maria):
    for asked in ("What is Maria's blood type?", "Who is John's dentist?", "Which opera did Maria see last season?"):
        for recipe in (None, HYBRID_MASK_ALL_NAMES, HYBRID_QUESTION_CASE_NAMES):
            packet = maria.search("m", asked, now=NOW, recipe=recipe)
            assert packet.abstain, (asked, packet.topic_coverage, packet.masked_similarity)


def test_a_stored_name_is_proper_when_every_word_of_it_holds_a_capital():
    assert [abstention.spelt_as_name(n) for n in ("Maria", "LGBTQ", "East Coast", "iPhone", "O'Brien")] == [True] * 5
    assert [abstention.spelt_as_name(n) for n in ("car", "homeless shelter", "trip to the East Coast",
                                                 "5K charity run", "2023", "")] == [False] * 6


def test_the_graph_spelling_decides_the_names_whatever_the_question_case(maria):
    """Stored "Maria" is a name and stored "car" is not, so a question written in lower case
    keeps "car" as its topic and finds the accident's turn; by the question's case (the
    ablation) a case-less question masks every known name, "car" too, and abstains."""
    asked = "when did maria get in a car accident?"
    packet = maria.search("m", asked, now=NOW)
    assert not packet.abstain and "D2:1" in packet.cited_turn_ids, (packet.topic_coverage, packet.masked_similarity)
    by_case = maria.search("m", asked, now=NOW, recipe=HYBRID_QUESTION_CASE_NAMES)
    assert by_case.abstain and by_case.topic_coverage < packet.topic_coverage


def test_a_capital_i_does_not_unmask_a_lower_case_name(maria):
    """"did I ever tell you maria's blood type?": by the question's case its "I" marks names by
    case, so the lower-case "maria" was kept as a topic word, found in the turns, and the
    never-said question did not abstain (the review finding of issue 12's tenth round). By the
    stored spelling "maria" is a name, masked, and the question abstains."""
    asked = "did I ever tell you maria's blood type?"
    packet = maria.search("m", asked, now=NOW)
    assert packet.abstain and packet.cited_turn_ids == (), (packet.topic_coverage, packet.masked_similarity)
    by_case = maria.search("m", asked, now=NOW, recipe=HYBRID_QUESTION_CASE_NAMES)
    assert not by_case.abstain and by_case.topic_coverage > packet.topic_coverage


def test_exchange_coverage_reads_a_turn_with_its_neighbours():
    index = BM25Index.build(["a", "b", "c", "d"], ["did you sit the aptitude test", "yes third attempt",
                                                   "tea with milk", "aptitude"])
    table = TurnTable.of(index.doc_ids, [
        {"uuid": "a", "session_id": "s", "turn_index": 0}, {"uuid": "b", "session_id": "s", "turn_index": 1},
        {"uuid": "c", "session_id": "s", "turn_index": 2}, {"uuid": "d", "session_id": "t", "turn_index": 0}])
    assert table.adjacent.tolist() == [[-1, 1], [0, 2], [1, -1], [-1, -1]]
    terms = ["test", "third", "attempt"]
    assert abstention.exchange_coverage(index, terms, table.adjacent) == pytest.approx(1.0)
    assert index.best_coverage(terms) < 0.7
    no_neighbours = np.full((4, 2), -1)
    assert abstention.exchange_coverage(index, terms + ["blood"], no_neighbours) == \
        pytest.approx(index.best_coverage(terms + ["blood"]))
    # a word no turn holds stays uncovered, however wide the window
    assert abstention.exchange_coverage(index, ["dentist"], table.adjacent) == 0.0


def test_near_lists_two_turns_on_each_side_within_the_session():
    rows = [{"uuid": u, "session_id": s, "turn_index": i}
            for u, s, i in (("a", "s", 0), ("b", "s", 1), ("c", "s", 2), ("d", "s", 3), ("e", "t", 0))]
    table = TurnTable.of(["a", "b", "c", "d", "e"], rows)
    # columns: previous nearest first, then next nearest first; -1 past the session's ends
    assert table.near(2).tolist() == [[-1, -1, 1, 2], [0, -1, 2, 3], [1, 0, 3, -1], [2, 1, -1, -1],
                                      [-1, -1, -1, -1]]
    assert table.near(1).tolist() == table.adjacent.tolist()


def test_turns_out_of_storage_order_are_neighbours_by_turn_index():
    rows = [{"uuid": u, "session_id": "s", "turn_index": i} for u, i in (("x", 2), ("y", 0), ("z", 1))]
    assert TurnTable.of(["x", "y", "z"], rows).adjacent.tolist() == [[2, -1], [-1, 2], [1, 0]]


def _asked_after(maria, exchange: list[tuple[str, str]], ablation):
    """Store `exchange` as session s3 (turns D3:1, D3:2, ...), ask how many attempts Maria
    needed, and return the default packet and the `ablation` recipe's."""
    maria.write("m", [{"speaker": who, "content": text, "id": f"D3:{i}"} for i, (who, text) in enumerate(exchange, 1)],
                "2023-07-10", session_id="s3")
    asked = "How many attempts did Maria need to pass the test?"
    return maria.search("m", asked, now=NOW), maria.search("m", asked, now=NOW, recipe=ablation)


def test_an_answer_split_over_an_exchange_does_not_abstain(maria):
    packet, before = _asked_after(maria, [
        ("John", "Did you sit the aptitude test again on Monday?"),
        ("Maria", "Yes, my fourth attempt, and I finally passed!"),
    ], HYBRID_SINGLE_TURN_COVERAGE)
    assert before.topic_coverage < packet.topic_coverage, (before.abstain, before.topic_coverage, before.masked_similarity, packet.topic_coverage, packet.masked_similarity)
    assert not packet.abstain and "D3:2" in packet.cited_turn_ids, (packet.topic_coverage, packet.masked_similarity)


def test_an_answer_two_turns_from_its_question_does_not_abstain(maria):
    """Question, a short reply, a follow-up, then the answer: the test is named two turns
    before "fourth attempt ... passed", which a one-turn window never reads together
    (issue 12, tenth round; `SearchRecipe.abstain_window`)."""
    packet, narrow = _asked_after(maria, [
        ("John", "Did you sit the aptitude test again on Monday?"),
        ("Maria", "I did!"),
        ("John", "And? Tell me everything."),
        ("Maria", "My fourth attempt, and I finally passed!"),
    ], HYBRID_NO_WIDE_COVERAGE)
    # "test" and "attempt"/"passed" are read together only with two turns on each side
    assert narrow.topic_coverage < packet.topic_coverage, (narrow.topic_coverage, packet.topic_coverage)
    assert not packet.abstain and "D3:4" in packet.cited_turn_ids, (packet.topic_coverage, packet.masked_similarity)
