"""BM25Index against rank_bm25.BM25Okapi, top-k selection, add(), and the tokenizer."""

from __future__ import annotations

import random

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from graphmem.schema.errors import InvalidInput
from graphmem.retrieval.bm25 import BM25Index, BM25Params, Scored
from graphmem.retrieval.tokenize import KEPT_WORDS, STOPWORDS, stem, tokenize, tokenize_many

TINY = [
    "Alice moved to Paris in 2019 and loves painting.",
    "Bob lives in Berlin; he paints on weekends.",
    "Alice started a new job at the museum in Paris.",
    "The cat lived with Alice before she moved.",
    "Carol never drinks coffee after 6pm.",
    "Alice and Bob went hiking, and Alice painted the mountains.",
    "",
]
QUERIES = [
    "Where does Alice live?",
    "painting paint painted",
    "alice alice alice",  # repeated word; "alic" is in > half the docs: idf floor
    "paris paris berlin",
    "zebra quantum",  # unknown words only
    "zebra coffee",  # unknown + known
    "the of in",  # stopwords only: empty query
    "",
    "6pm 2019",
]


def _reference(texts: list[str], params: BM25Params = BM25Params()) -> BM25Okapi:
    return BM25Okapi([tokenize(t) for t in texts], k1=params.k1, b=params.b, epsilon=params.epsilon)


def _generated(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(60)] + ["alice", "paris", "lives", "living", "painting", "the", "before"]
    skewed = list(range(len(words)))
    return [
        " ".join(rng.choices(words, weights=[1 / (1 + i) for i in skewed], k=rng.randint(1, 20)))
        for _ in range(n)
    ]


@pytest.mark.parametrize("query", QUERIES)
def test_scores_equal_rank_bm25_on_tiny_corpus(query):
    index = BM25Index.build([f"d{i}" for i in range(len(TINY))], TINY)
    expected = _reference(TINY).get_scores(tokenize(query))
    assert np.allclose(index.scores(query), expected, rtol=1e-12, atol=1e-12)


def test_tiny_corpus_exercises_the_idf_floor():
    reference = _reference(TINY)
    assert reference.idf["alic"] == pytest.approx(0.25 * reference.average_idf)
    index = BM25Index.build([f"d{i}" for i in range(len(TINY))], TINY)
    assert index.scores("alice")[0] == pytest.approx(reference.get_scores(["alic"])[0])


@pytest.mark.parametrize("params", [BM25Params(), BM25Params(k1=1.2, b=0.5, epsilon=0.1), BM25Params(b=0.0)])
def test_scores_equal_rank_bm25_on_300_generated_docs(params):
    texts = _generated(300, seed=7)
    index = BM25Index.build([f"d{i}" for i in range(len(texts))], texts, params)
    reference = _reference(texts, params)
    rng = random.Random(3)
    vocab = sorted({t for text in texts for t in text.split()})
    queries = [" ".join(rng.choices(vocab + ["unknownword"], k=rng.randint(1, 6))) for _ in range(25)]
    queries += ["w0 w0 w0 w1", "lives living", "unknownword"]
    for query in queries:
        expected = reference.get_scores(tokenize(query))
        assert np.allclose(index.scores(query), expected, rtol=1e-12, atol=1e-12), query
    assert index.params == params


def test_search_returns_top_k_best_first_with_positive_scores():
    texts = _generated(300, seed=11)
    index = BM25Index.build([f"d{i}" for i in range(len(texts))], texts)
    scores = index.scores("w5 w9 paris")
    hits = index.search("w5 w9 paris", k=10)
    assert all(isinstance(h, Scored) for h in hits)
    assert len(hits) == 10
    expected = sorted(np.flatnonzero(scores > 0), key=lambda i: (-scores[i], i))[:10]
    assert [h.doc_id for h in hits] == [f"d{i}" for i in expected]
    assert [h.score for h in hits] == pytest.approx([scores[i] for i in expected])
    assert all(a.score >= b.score for a, b in zip(hits, hits[1:]))


def test_search_breaks_ties_by_document_order_even_at_the_cut():
    texts = ["red apple", "green pear", "red apple", "blue plum", "red apple", "yellow fig", "kiwi", "lime"]
    index = BM25Index.build(list("abcdefgh"), texts)
    assert [h.doc_id for h in index.search("apple", k=2)] == ["a", "c"]
    assert [h.doc_id for h in index.search("apple", k=5)] == ["a", "c", "e"]


def test_search_drops_non_positive_scores_and_handles_k_zero():
    index = BM25Index.build(["a", "b", "c"], ["tea", "coffee", "water"])
    assert index.search("zebra", k=5) == []
    assert index.search("tea", k=0) == []
    assert [h.doc_id for h in index.search("tea coffee", k=5)] == ["a", "b"]
    # "tea" in 2 of 2 docs: rank_bm25's floor makes the idf (and score) negative
    assert BM25Index.build(["a", "b"], ["green tea", "black tea"]).search("tea", k=5) == []
    with pytest.raises(InvalidInput):
        index.search("tea", k=-1)


def test_add_gives_the_same_scores_as_a_full_build():
    texts = _generated(300, seed=5)
    ids = [f"d{i}" for i in range(300)]
    full = BM25Index.build(ids, texts)
    grown = BM25Index.build(ids[:200], texts[:200])
    grown = grown.add(ids[200:250], texts[200:250]).add(ids[250:], texts[250:])
    assert grown.doc_ids == full.doc_ids
    for query in ["w0 w3", "alice lives", "w12 w12 unknown", "painting before"]:
        assert np.allclose(grown.scores(query), full.scores(query), rtol=1e-12, atol=1e-12)
        assert grown.search(query, 20) == full.search(query, 20)


def test_add_replaces_a_duplicate_id_in_place_and_leaves_the_original_alone():
    original = BM25Index.build(["a", "b", "c"], ["alice paints", "bob hikes", "carol sings"])
    before = original.scores("alice bob zeppelin")
    updated = original.add(["b", "d"], ["zeppelin rides", "dave cooks"])
    combined = ["alice paints", "zeppelin rides", "carol sings", "dave cooks"]
    expected = BM25Index.build(["a", "b", "c", "d"], combined)
    assert updated.doc_ids == ("a", "b", "c", "d")
    assert np.allclose(updated.scores("alice bob zeppelin"), expected.scores("alice bob zeppelin"))
    reference = _reference(combined)
    assert np.allclose(updated.scores("bob zeppelin"), reference.get_scores(tokenize("bob zeppelin")))
    assert original.doc_ids == ("a", "b", "c")
    assert np.array_equal(original.scores("alice bob zeppelin"), before)


def test_replacement_drops_dead_terms_from_the_idf_floor_mean():
    index = BM25Index.build(list("abcd"), ["tea one", "tea two", "tea three", "bob"])
    updated = index.add(["d"], ["tea zeppelin"])  # "bob" is gone; "tea" is floored
    reference = _reference(["tea one", "tea two", "tea three", "tea zeppelin"])
    for query in ("tea", "tea zeppelin one", "bob"):
        assert np.allclose(updated.scores(query), reference.get_scores(tokenize(query)), rtol=1e-12), query


def test_build_with_duplicate_ids_keeps_the_last_text_at_the_first_position():
    index = BM25Index.build(["a", "b", "a", "c"], ["old text", "bob", "new words", "carol"])
    assert index.doc_ids == ("a", "b", "c") and len(index) == 3 and "a" in index
    assert index.search("old", k=5) == []
    assert index.search("words", k=5)[0].doc_id == "a"


def test_empty_index_and_bad_input():
    empty = BM25Index.build([], [])
    assert len(empty) == 0 and empty.search("anything", 5) == [] and empty.scores("x").shape == (0,)
    assert empty.add(["a"], ["hello world"]).doc_ids == ("a",)
    with pytest.raises(InvalidInput):
        BM25Index.build(["a", "b"], ["only one"])
    with pytest.raises(InvalidInput):
        BM25Params(b=1.5)


def test_scores_are_a_fresh_array_each_call():
    index = BM25Index.build(["a", "b", "c"], ["tea", "coffee", "water"])
    first = index.scores("tea")
    first[:] = 99.0
    assert index.scores("tea")[0] < 99.0


# --- tokenizer ---------------------------------------------------------------


def test_tokenizer_stems_word_families_together():
    assert {stem(w) for w in ("lives", "living", "lived", "live")} == {"liv"}
    assert {stem(w) for w in ("painting", "paint", "paints", "painted", "paintings")} == {"paint"}
    assert {stem(w) for w in ("studies", "studied", "study", "studying")} == {"study"}
    assert stem("running") == "run" and stem("falling") == "fall"
    assert stem("class") == "class" and stem("campus") == "campus"
    assert stem("sing") == "sing" and stem("bed") == "bed"  # minimum stem length 3


def test_tokenizer_casefolds_splits_and_drops_stopwords():
    assert tokenize("The CAT and I were at the Café, weren't we?") == ["cat", "café", "weren"]
    assert tokenize("user_name: 3pm, 2023-05-01") == ["user", "nam", "3pm", "2023", "05", "01"]
    assert tokenize("") == [] and tokenize("the of and") == []


def test_tokenizer_keeps_words_memory_questions_turn_on():
    assert tokenize("before after first last never") == ["befor", "after", "first", "last", "never"]
    assert not STOPWORDS & KEPT_WORDS
    assert {"the", "a", "she", "was", "did", "of", "in"} <= STOPWORDS


def test_tokenize_many_equals_tokenize():
    texts = _generated(50, seed=1) + ["Alice lived in Lyon before 2020", ""]
    assert tokenize_many(texts) == [tokenize(t) for t in texts]


def test_shares_words_sees_words_the_idf_floor_zeroes():
    from graphmem.retrieval.bm25 import BM25Index

    index = BM25Index.build(["a", "b"], ["A big milestone!", "My husband Tom is an airline pilot."])
    assert index.search("husband", 5) == []  # half of a two-document corpus: idf 0
    assert index.shares_words("What does my husband do?")
    assert not index.shares_words("What is my daughter's name?")
