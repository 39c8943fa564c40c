"""BM25 pseudo-relevance feedback (RM3-style query expansion) for the turn BM25 list.

The question's words miss evidence phrased in other words; the turns it ranks
best often use those words. RM3 (Lavrenko and Croft's relevance model, mixed
with the original query): take the `docs` best turns as relevant, weigh each
term by ``sum_d P(term | d) * score(d) / sum(scores)``, keep the `terms`
heaviest that are not in the question (nor function words the tokenizer keeps,
`tokenize.KEPT_WORDS`), and score every turn for that weighted query by BM25.
The result is ``(1 - weight) * original / max + weight * expansion / max``.

Pure: it reads the index's sparse matrices (`BM25Index.counts`,
`BM25Index.term_weights`) and the question's scores computed once per search,
so the expansion costs two sparse products and no query embedding.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from graphmem.retrieval.tokenize import KEPT_WORDS, tokenize

if TYPE_CHECKING:  # bm25 -> fusion -> recipes imports this module
    from graphmem.retrieval.bm25 import BM25Index

_FUNCTION_TERMS = frozenset(tokenize(" ".join(KEPT_WORDS)))


class FeedbackConfig(BaseModel):
    """How many top turns feed back, how many new terms they add, and the expansion's share."""

    model_config = ConfigDict(frozen=True)

    docs: int = Field(5, ge=1, description="feedback turns: the best of the question's BM25 ranking")
    terms: int = Field(10, ge=1, description="expansion terms kept")
    weight: float = Field(0.25, ge=0.0, le=1.0, description="share of the expansion's normalised scores")


def expansion_terms(index: BM25Index, scores: np.ndarray, question_terms: Sequence[str],
                    config: FeedbackConfig) -> tuple[np.ndarray, np.ndarray]:
    """Term ids and RM3 weights of the expansion, heaviest first (empty when no turn scores > 0)."""
    top = _top(scores, config.docs)
    if not len(top):
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    counts = index.counts[top]
    lengths = np.asarray(counts.sum(axis=1), dtype=np.float64).ravel()
    doc_weight = scores[top] / scores[top].sum() / np.where(lengths > 0, lengths, 1.0)
    term_weight = np.asarray(counts.T @ doc_weight).ravel()
    skipped = index.term_ids([*question_terms, *_FUNCTION_TERMS])
    term_weight[skipped] = 0.0
    candidates = np.flatnonzero(term_weight > 0)
    order = candidates[np.lexsort((candidates, -term_weight[candidates]))][: config.terms]
    return order, term_weight[order]


def expanded_scores(index: BM25Index, scores: np.ndarray, question_terms: Sequence[str],
                    config: FeedbackConfig) -> np.ndarray:
    """Every turn's score for the expanded question, aligned with `index.doc_ids`;
    `scores` itself (unchanged) when the weight is 0 or nothing expands.

    Example:
        >>> from graphmem.retrieval.bm25 import BM25Index
        >>> texts = ["hiking trip alps", "trip alps snow", "mountain snow boots", "tea", "cat", "bread", "jazz"]
        >>> index = BM25Index.build(list("abcdefg"), texts)
        >>> s = index.scores("hiking trip")
        >>> bool(s[2] > 0), bool(expanded_scores(index, s, tokenize("hiking trip"), FeedbackConfig(docs=2))[2] > 0)
        (False, True)
    """
    if config.weight == 0.0:
        return scores
    ids, weights = expansion_terms(index, scores, question_terms, config)
    if not len(ids):
        return scores
    expansion = np.asarray(index.term_weights[ids].T @ weights).ravel()
    top_expansion = expansion.max()
    if top_expansion <= 0:
        return scores
    return (1.0 - config.weight) * scores / scores.max() + config.weight * expansion / top_expansion


def _top(scores: np.ndarray, n: int) -> np.ndarray:
    """Positions of the `n` best positive scores (ties in document order)."""
    hits = np.flatnonzero(scores > 0)
    return hits[np.lexsort((hits, -scores[hits]))][:n]
