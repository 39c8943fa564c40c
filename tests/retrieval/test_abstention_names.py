"""Abstention masks proper names only: the graph's common-noun entities are the topic
(issue 12, ninth round; `retrieval.abstention.proper_names`).

The offline rules name activities and things as entities ("car", "running"), so the
question's known names included them: "When did Maria get in a car accident?" was
masked to "... get in a someone accident?" and had no "car" among its topic words,
and abstained although a turn says it. Never-said questions keep abstaining.
"""

from __future__ import annotations

import pytest

from graphmem.retrieval import abstention
from graphmem.retrieval.recipes import HYBRID_MASK_ALL_NAMES

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
        for recipe in (None, HYBRID_MASK_ALL_NAMES):
            packet = maria.search("m", asked, now=NOW, recipe=recipe)
            assert packet.abstain, (asked, packet.topic_coverage, packet.masked_similarity)
