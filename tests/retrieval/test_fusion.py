"""RRF, MMR, node-distance and episode-mention rerankers, and the reranker table."""

from __future__ import annotations

import numpy as np
import pytest

from graphmem.schema.errors import InvalidInput
from graphmem.retrieval.fusion import (
    RERANKERS,
    Scored,
    episode_mentions,
    get_reranker,
    mmr,
    node_distance,
    rrf,
)


def _ids(scored: list[Scored]) -> list[str]:
    return [s.doc_id for s in scored]


def test_rrf_matches_a_hand_computed_example():
    fused = rrf([["a", "b", "c"], ["c", "a"]], k=60)
    assert _ids(fused) == ["a", "c", "b"]
    assert [s.score for s in fused] == pytest.approx([1 / 61 + 1 / 62, 1 / 63 + 1 / 61, 1 / 62])
    assert all(isinstance(s, Scored) for s in fused)


def test_rrf_k_is_a_parameter_and_ties_keep_first_appearance():
    fused = rrf([["a", "b"], ["b", "a"]], k=0)
    assert fused == [Scored("a", 1.5), Scored("b", 1.5)]
    assert _ids(rrf([["x"], ["y"], ["z"]])) == ["x", "y", "z"]


def test_rrf_weights_scale_each_ranking():
    fused = rrf([["a", "b"], ["b", "a"]], k=0, weights=[1.0, 3.0])
    assert fused == [Scored("b", 0.5 + 3.0), Scored("a", 1.0 + 1.5)]
    assert rrf([["a"], ["b"]], weights=[0.0, 1.0])[0].doc_id == "b"
    with pytest.raises(InvalidInput, match="2 rankings"):
        rrf([["a"], ["b"]], weights=[1.0])


def test_rrf_counts_an_id_once_per_ranking_and_rejects_bad_input():
    assert rrf([["a", "a", "b"]], k=0) == [Scored("a", 1.0), Scored("b", 1 / 3)]
    assert rrf([]) == []
    with pytest.raises(InvalidInput):
        rrf([["a"]], k=-1)
    with pytest.raises(InvalidInput):
        rrf(["abc"])


VECTORS = {
    "a": np.array([1.0, 0.0]),
    "a_dup": np.array([0.999, 0.045]),  # near-duplicate of a
    "b": np.array([0.0, 2.0]),  # not unit length: mmr normalises
}
RELEVANCE = {"a": 1.0, "a_dup": 0.95, "b": 0.5}


def test_mmr_prefers_a_diverse_second_item_when_lambda_is_low():
    picked = mmr(["a", "a_dup", "b"], RELEVANCE, VECTORS, lambda_=0.3, k=3)
    assert _ids(picked) == ["a", "b", "a_dup"]
    assert picked[0].score == pytest.approx(0.3)
    assert picked[1].score == pytest.approx(0.3 * 0.5)


def test_mmr_with_lambda_one_keeps_relevance_order():
    assert _ids(mmr(["b", "a_dup", "a"], RELEVANCE, VECTORS, lambda_=1.0, k=3)) == ["a", "a_dup", "b"]


def test_mmr_is_independent_of_the_relevance_scale():
    vectors = {"a": np.array([1.0, 0.0]), "c": np.array([0.5, 0.75**0.5]), "b": np.array([0.0, 1.0])}
    relevance = {"a": 1.0, "c": 0.9, "b": 0.1}  # c is half-similar to a, but relevant
    for scale in (1.0, 1 / 30, 25.0):  # unit, RRF-sized, BM25-sized scores
        scaled = {key: value * scale for key, value in relevance.items()}
        assert _ids(mmr(["a", "b", "c"], scaled, vectors, lambda_=0.7)) == ["a", "c", "b"]


def test_mmr_treats_a_missing_vector_as_unlike_everything():
    relevance = {**RELEVANCE, "novec": 0.4}
    picked = mmr(["a", "a_dup", "novec"], relevance, VECTORS, lambda_=0.5, k=2)
    assert _ids(picked) == ["a", "novec"]
    assert picked[1].score == pytest.approx(0.5 * 0.4)


def test_mmr_limits_dedupes_and_validates():
    assert len(mmr(["a", "a_dup", "b"], RELEVANCE, VECTORS, k=2)) == 2
    assert _ids(mmr(["a", "a", "b"], RELEVANCE, VECTORS, lambda_=1.0)) == ["a", "b"]
    assert mmr([], RELEVANCE, VECTORS) == [] and mmr(["a"], RELEVANCE, VECTORS, k=0) == []
    with pytest.raises(InvalidInput):
        mmr(["a"], RELEVANCE, VECTORS, lambda_=1.5)
    with pytest.raises(InvalidInput, match="sizes"):
        mmr(["a", "c"], RELEVANCE, {**VECTORS, "c": np.ones(3)})


def test_node_distance_orders_nearest_first_and_unknown_last_stably():
    ranked = node_distance(["x", "y", "z", "w", "v"], {"x": 2, "y": 0, "w": 5, "v": 2}, max_distance=3)
    assert _ids(ranked) == ["y", "x", "v", "z", "w"]
    assert [s.score for s in ranked] == pytest.approx([1.0, 1 / 3, 1 / 3, 1 / 5, 1 / 5])
    assert _ids(node_distance(["p", "q"], {"q": 1}, max_distance=0)) == ["p", "q"]


def test_episode_mentions_orders_most_mentioned_first_stably():
    ranked = episode_mentions(["a", "b", "c", "d", "b"], {"b": 3, "c": 1, "d": 3})
    assert ranked == [Scored("b", 3.0), Scored("d", 3.0), Scored("c", 1.0), Scored("a", 0.0)]


def test_reranker_table_lookup_and_unknown_name_error_lists_names():
    assert get_reranker("mmr") is mmr and get_reranker("rrf") is rrf
    assert set(RERANKERS) == {"rrf", "mmr", "node_distance", "episode_mentions"}
    with pytest.raises(InvalidInput) as caught:
        get_reranker("cross_encoder")
    message = str(caught.value)
    assert "cross_encoder" in message
    assert all(name in message for name in RERANKERS)
    with pytest.raises(TypeError):
        RERANKERS["mine"] = rrf  # type: ignore[index]
