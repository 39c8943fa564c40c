"""BM25 pseudo-relevance feedback expands the turn BM25 list (`retrieval.feedback`)."""

import numpy as np
import pytest

from graphmem.retrieval.bm25 import BM25Index
from graphmem.retrieval.feedback import FeedbackConfig, expanded_scores, expansion_terms
from graphmem.retrieval.recipes import FactList, SearchRecipe, TurnList, get_recipe
from graphmem.retrieval.tokenize import tokenize

NOW = "2024-09-15T12:00:00Z"
QUESTION = "Which hiking trip did I enjoy?"
TURNS = [
    "The hiking trip to the Alps was great, the glacier views were endless.",
    "Our hiking trip had a glacier walk in the Alps.",
    "The glacier in the Alps was breathtaking at sunrise.",  # no word of the question
    "I baked sourdough bread on Sunday.",
    "My cat sleeps all day on the sofa.",
    "Jazz concert tickets are expensive this year.",
    "I repaired the bike chain myself.",
    "Tea with lemon is my favourite drink.",
    "Learning Spanish verbs slowly.",
]
IDS = [f"t{i}" for i in range(len(TURNS))]
INDEX = BM25Index.build(IDS, TURNS)
TARGET = 2


def _expanded(config: FeedbackConfig) -> np.ndarray:
    return expanded_scores(INDEX, INDEX.scores(QUESTION), tokenize(QUESTION), config)


def test_feedback_brings_in_a_turn_sharing_only_the_top_turns_words():
    plain = INDEX.scores(QUESTION)
    assert plain[TARGET] == 0.0
    expanded = _expanded(FeedbackConfig(docs=2, terms=10, weight=0.25))
    assert expanded[TARGET] > 0
    ranked = [s.doc_id for s in INDEX.top(expanded, 3)]
    assert set(ranked[:2]) == {"t0", "t1"} and ranked[2] == IDS[TARGET]
    assert np.count_nonzero(expanded) == 3  # the distractors share nothing with either


def test_expansion_skips_the_question_terms_and_keeps_at_most_terms():
    ids, weights = expansion_terms(INDEX, INDEX.scores(QUESTION), tokenize(QUESTION),
                                   FeedbackConfig(docs=2, terms=3, weight=0.25))
    assert len(ids) == 3 and not set(ids) & set(INDEX.term_ids(tokenize(QUESTION)))
    assert set(INDEX.term_ids(["glacier", "alp"])) <= set(ids)  # in both feedback turns
    assert list(weights) == sorted(weights, reverse=True)


def test_weight_zero_or_no_hit_changes_nothing():
    plain = INDEX.scores(QUESTION)
    assert np.array_equal(_expanded(FeedbackConfig(weight=0.0)), plain)
    none = INDEX.scores("submarine")
    assert np.array_equal(expanded_scores(INDEX, none, ["submarin"], FeedbackConfig()), none)


def test_config_rejects_a_weight_outside_zero_one():
    with pytest.raises(ValueError):
        FeedbackConfig(weight=1.5)


def test_memory_search_with_the_feedback_recipe_finds_the_unworded_turn(memory):
    for i, text in enumerate(TURNS):
        memory.write("p", [{"role": "user", "speaker": "user", "content": text}], f"2024-03-{i + 1:02d}")
    bm25 = SearchRecipe(name="bm25_turns", time_prior=0.0, fact_weights={FactList.BM25: 1.0},
                        turn_weights={TurnList.BM25: 1.0}, feedback=None, session_tail=None)
    plain = memory.search("p", QUESTION, now=NOW, recipe=bm25)
    fed = memory.search("p", QUESTION, now=NOW,
                        recipe=bm25.model_copy(update={"feedback": get_recipe("hybrid_prf").feedback}))
    assert not any("sunrise" in e.content for e in plain.episodes)
    assert any("sunrise" in e.content for e in fed.episodes)
    assert get_recipe("hybrid_prf").feedback == FeedbackConfig(docs=5, terms=10, weight=0.25)
    assert get_recipe("hybrid_rrf").feedback == get_recipe("hybrid_prf").feedback  # the default
    assert get_recipe("bm25_only").feedback is None
