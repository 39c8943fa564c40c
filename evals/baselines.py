"""Simple retrieval baselines over a conversation's raw turns (no graph).

Each ranks the turns of one conversation for a question and returns turn ids,
best first: BM25 over "speaker: text", MiniLM cosine over the same strings,
and their reciprocal-rank fusion. They are the floor graphmem must beat
(ARCHITECTURE §10); the naive RAG system (`evals/systems/rag.py`) is their tuned RRF,
and `make bench` reads them from here.

Example:
    >>> embedder = default_embedder()
    >>> conv = load_locomo("tests/data/locomo_dev7.json")[0]
    >>> corpus = build_corpus(conv.turns_by_id().values(), embedder.embed)
    >>> question = "Where did Caroline move from 4 years ago?"
    >>> rank_rrf(corpus, question, embedder.embed([question])[0])[:3]
    ['D8:29', 'D10:15', 'D15:13']
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from graphmem.ingest.loaders import Turn
from graphmem.retrieval.bm25 import BM25Index
from graphmem.retrieval.fusion import rrf

RRF_K = 60


@dataclass(frozen=True)
class TurnCorpus:
    """One conversation's turns: ids, a BM25 index and unit MiniLM rows (same order)."""

    turn_ids: tuple[str, ...]
    bm25: BM25Index
    vectors: np.ndarray


def turn_text(turn: Turn) -> str:
    return f"{turn.speaker}: {turn.content}"


def build_corpus(turns: Iterable[Turn], embed: Callable[[Sequence[str]], np.ndarray]) -> TurnCorpus:
    """Index the turns for all three baselines (embeds every turn once)."""
    turns = list(turns)
    ids = tuple(t.id for t in turns)
    texts = [turn_text(t) for t in turns]
    return TurnCorpus(turn_ids=ids, bm25=BM25Index.build(ids, texts), vectors=np.asarray(embed(texts)))


def rank_bm25(corpus: TurnCorpus, query: str) -> list[str]:
    """Turns with a BM25 score > 0, best first (ties: earlier turn first)."""
    return [s.doc_id for s in corpus.bm25.search(query, len(corpus.turn_ids))]


def rank_minilm(corpus: TurnCorpus, query_vector: np.ndarray) -> list[str]:
    """Every turn by cosine to the query (rows are unit length), best first."""
    similarity = corpus.vectors @ np.asarray(query_vector, dtype=np.float32)
    order = np.argsort(-similarity, kind="stable")
    return [corpus.turn_ids[i] for i in order]


def rank_rrf(corpus: TurnCorpus, query: str, query_vector: np.ndarray, k: int = RRF_K,
             weights: tuple[float, float] = (1.0, 1.0)) -> list[str]:
    """Weighted RRF of the full BM25 and MiniLM rankings (default k=60, equal weights)."""
    rankings = [rank_bm25(corpus, query), rank_minilm(corpus, query_vector)]
    return [s.doc_id for s in rrf(rankings, k=k, weights=list(weights))]


def rank_all(corpus: TurnCorpus, query: str, query_vector: np.ndarray) -> dict[str, list[str]]:
    """The three baselines' rankings for one question, by name."""
    bm25, minilm = rank_bm25(corpus, query), rank_minilm(corpus, query_vector)
    fused = [s.doc_id for s in rrf([bm25, minilm], k=RRF_K)]
    return {"BM25 turns": bm25, "MiniLM turns": minilm, "RRF(BM25, MiniLM)": fused}
