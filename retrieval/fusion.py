"""Fusers and rerankers: pure functions from candidate ids to `Scored` lists.

Every function here takes ids (plus the signals it needs) and returns a new
``list[Scored]``, best first; nothing is mutated and ties always keep the
order in which candidates were given, so results are deterministic.

- `rrf` fuses several rankings by reciprocal rank.
- `mmr` reorders candidates for diversity (maximal marginal relevance).
- `node_distance` orders by graph distance from a centre node.
- `episode_mentions` orders by how many episodes mention a candidate.

`RERANKERS` is the one `Reranker` -> function table for the rerankers that
need only ids and signals (the "decay" reranker lives in `retrieval.decay`,
which reads records); `get_reranker` looks names up in it and its keys make
the error text for an unknown name.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import NamedTuple

import numpy as np

from graphmem.schema.errors import InvalidInput
from graphmem.retrieval.recipes import Reranker

__all__ = [
    "RERANKERS",
    "Scored",
    "episode_mentions",
    "get_reranker",
    "mmr",
    "node_distance",
    "rrf",
]


class Scored(NamedTuple):
    """One id with its score; higher is better. Immutable."""

    doc_id: str
    score: float


def _unique(ids: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(ids))


def _best_first(scores: Mapping[str, float]) -> list[Scored]:
    """Sort by score, descending; `sorted` is stable, so ties keep mapping order."""
    return [Scored(i, s) for i, s in sorted(scores.items(), key=lambda item: -item[1])]


def rrf(
    rankings: Sequence[Sequence[str]], k: int = 60, weights: Sequence[float] | None = None
) -> list[Scored]:
    """Reciprocal rank fusion: score = sum over rankings of w_i / (k + rank_i).

    Ranks are 1-based. An id repeated inside one ranking counts once, at its
    best rank. Ties keep the order of first appearance (ranking by ranking).

    Example:
        >>> rrf([["a", "b"], ["b", "c"]], k=1)
        [Scored(doc_id='b', score=0.8333333333333333), Scored(doc_id='a', score=0.5), Scored(doc_id='c', score=0.3333333333333333)]
    """
    if k < 0:
        raise InvalidInput(f"rrf k must be >= 0, got {k}")
    if weights is None:
        weights = [1.0] * len(rankings)
    elif len(weights) != len(rankings):
        raise InvalidInput(f"rrf got {len(weights)} weights for {len(rankings)} rankings")
    scores: dict[str, float] = {}
    for ranking, weight in zip(rankings, weights, strict=True):
        if isinstance(ranking, str):
            raise InvalidInput("each ranking must be a sequence of ids, not a string")
        seen: set[str] = set()
        for rank, doc_id in enumerate(ranking, start=1):
            if doc_id not in seen:
                seen.add(doc_id)
                scores[doc_id] = scores.get(doc_id, 0.0) + weight / (k + rank)
    return _best_first(scores)


def _unit_rows(ids: Sequence[str], vectors: Mapping[str, np.ndarray]) -> np.ndarray:
    """Stack the candidates' vectors as unit rows; a missing or zero vector is a zero row."""
    present = [np.asarray(vectors[i], dtype=np.float64).ravel() for i in ids if i in vectors]
    dims = {v.shape[0] for v in present}
    if len(dims) > 1:
        raise InvalidInput(f"mmr vectors have different sizes: {sorted(dims)}")
    rows = np.zeros((len(ids), dims.pop() if dims else 1))
    for row, doc_id in enumerate(ids):
        if doc_id in vectors:
            rows[row] = np.asarray(vectors[doc_id], dtype=np.float64).ravel()
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return np.divide(rows, norms, out=np.zeros_like(rows), where=norms > 0)


def mmr(
    candidates: Sequence[str],
    relevance: Mapping[str, float],
    vectors: Mapping[str, np.ndarray],
    lambda_: float = 0.7,
    k: int = 10,
) -> list[Scored]:
    """Maximal marginal relevance: pick, one at a time, the candidate maximising
    ``lambda_ * relevance - (1 - lambda_) * max cosine similarity to those picked``.

    Relevance is divided by the largest absolute relevance among the candidates,
    so any score scale (RRF ~0.03, BM25 ~10) weighs against cosine similarity
    (at most 1) the same way; a missing relevance is 0. Vectors are normalised
    here; a candidate without a vector (or with a zero one) has similarity 0 to
    everything. ``lambda_=1`` keeps relevance order; ``lambda_=0`` is pure
    diversity. Ties go to the earlier candidate. The score returned is the
    marginal score at the moment the candidate was picked.

    Example:
        >>> v = {"a": np.array([1.0, 0.0]), "a2": np.array([1.0, 0.01]), "b": np.array([0.0, 1.0])}
        >>> [s.doc_id for s in mmr(["a", "a2", "b"], {"a": 1.0, "a2": 0.9, "b": 0.5}, v, lambda_=0.5)]
        ['a', 'b', 'a2']
    """
    if not 0.0 <= lambda_ <= 1.0:
        raise InvalidInput(f"mmr lambda_ must be within [0, 1], got {lambda_}")
    if k < 0:
        raise InvalidInput(f"mmr k must be >= 0, got {k}")
    ids = _unique(candidates)
    if not ids or k == 0:
        return []
    rel = np.array([float(relevance.get(i, 0.0)) for i in ids])
    top = np.abs(rel).max()
    if top > 0:
        rel = rel / top
    rows = _unit_rows(ids, vectors)
    max_sim = np.zeros(len(ids))
    picked = np.zeros(len(ids), dtype=bool)
    out: list[Scored] = []
    for _ in range(min(k, len(ids))):
        marginal = lambda_ * rel - (1.0 - lambda_) * max_sim
        marginal[picked] = -np.inf
        best = int(np.argmax(marginal))  # first maximum: ties go to the earlier candidate
        out.append(Scored(ids[best], float(marginal[best])))
        sims = rows @ rows[best]
        max_sim = sims if not picked.any() else np.maximum(max_sim, sims)
        picked[best] = True
    return out


def node_distance(
    candidates: Sequence[str], distance: Mapping[str, int], max_distance: int = 3
) -> list[Scored]:
    """Order candidates by graph distance from a centre node, nearest first.

    An unknown distance, or one beyond `max_distance`, counts as
    ``max_distance + 1``. Score is ``1 / (1 + distance)``; ties keep candidate order.

    Example:
        >>> node_distance(["far", "near", "lost"], {"far": 2, "near": 0})
        [Scored(doc_id='near', score=1.0), Scored(doc_id='far', score=0.3333333333333333), Scored(doc_id='lost', score=0.2)]
    """
    if max_distance < 0:
        raise InvalidInput(f"max_distance must be >= 0, got {max_distance}")
    beyond = max_distance + 1
    scores = {c: 1.0 / (1 + min(distance.get(c, beyond), beyond)) for c in _unique(candidates)}
    return _best_first(scores)


def episode_mentions(candidates: Sequence[str], mentions: Mapping[str, int]) -> list[Scored]:
    """Order candidates by how many episodes mention them, most first (missing = 0).

    Score is the mention count; ties keep candidate order.

    Example:
        >>> episode_mentions(["a", "b", "c"], {"b": 3, "c": 3})
        [Scored(doc_id='b', score=3.0), Scored(doc_id='c', score=3.0), Scored(doc_id='a', score=0.0)]
    """
    return _best_first({c: float(mentions.get(c, 0)) for c in _unique(candidates)})


RERANKERS: Mapping[Reranker, Callable[..., list[Scored]]] = MappingProxyType(
    {
        Reranker.RRF: rrf,
        Reranker.MMR: mmr,
        Reranker.NODE_DISTANCE: node_distance,
        Reranker.EPISODE_MENTIONS: episode_mentions,
    }
)


def get_reranker(name: Reranker | str) -> Callable[..., list[Scored]]:
    """The fuser or reranker registered under `name`.

    Raises:
        InvalidInput: `name` is not a key of `RERANKERS`; the message lists the keys.

    Example:
        >>> get_reranker("rrf") is rrf
        True
    """
    try:
        return RERANKERS[name]
    except KeyError:
        valid = ", ".join(sorted(RERANKERS))
        raise InvalidInput(f"unknown reranker {name!r}; valid names: {valid}") from None
