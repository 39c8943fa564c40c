"""Naive RAG: each turn a chunk, BM25 and MiniLM rankings fused by weighted RRF, top k.

``options["ranker"]`` = ``"bm25"`` or ``"minilm"`` ranks by one list alone (the
harness's ``bm25`` and ``minilm`` systems), so the fused baseline sits beside its parts.

The rankings are `graphmem.evals.baselines` (the same code `make bench` uses).
RRF_K and WEIGHTS were tuned on the LoCoMo tuning split only
(conv-26, conv-30, conv-41; evidence recall@10) by
``python -m graphmem.evals.tune_rag``, which prints the grid it searched.
"""

from __future__ import annotations

import time

from graphmem.embedding.embedder import default_embedder, warmed
from graphmem.evals.baselines import TurnCorpus, build_corpus, rank_bm25, rank_minilm, rank_rrf
from graphmem.evals.metrics import count_tokens
from graphmem.evals.systems._common import embed_cached, error_text, stopwatch, turn_index, turn_line
from graphmem.evals.systems.base import Context, IngestStats, SystemConfig
from graphmem.ingest.loaders import Conversation, Question, Session, Turn

# tuned on the tuning split by `python -m graphmem.evals.tune_rag` (recall@10 0.659; k=60 scored 0.596)
RRF_K = 5
WEIGHTS = (1.0, 1.0)  # (BM25, MiniLM)
RANKERS = ("rrf", "bm25", "minilm")


class RagSystem:
    """Turns as chunks; `context()` returns the top-k turns, dated, best first."""

    has_provenance = True

    def __init__(self, name: str, config: SystemConfig) -> None:
        self.name = name
        self.config = config
        self.rrf_k = int(config.options.get("rrf_k", RRF_K))
        self.weights = tuple(config.options.get("weights", WEIGHTS))
        self.ranker = str(config.options.get("ranker", "rrf"))
        if self.ranker not in RANKERS:
            raise ValueError(f"unknown ranker {self.ranker!r}; choose one of {', '.join(RANKERS)}")
        self._embedder = warmed(default_embedder())
        self._corpora: dict[str, TurnCorpus] = {}
        self._turns: dict[str, dict[str, tuple[Turn, Session]]] = {}

    def ingest(self, conversation: Conversation) -> IngestStats:
        start = time.perf_counter()
        turns = turn_index(conversation)
        self._turns[conversation.conversation_id] = turns
        self._corpora[conversation.conversation_id] = build_corpus([t for t, _ in turns.values()], embed_cached)
        return IngestStats(episodes=len(turns), seconds=time.perf_counter() - start)

    def context(self, conversation_id: str, question: Question) -> Context:
        with stopwatch() as ms:
            try:
                corpus, turns = self._corpora[conversation_id], self._turns[conversation_id]
                vector = self._embedder.embed([question.question])[0]
                ranked = self._rank(corpus, question.question, vector)
                top = ranked[: self.config.k]
            except Exception as exc:  # noqa: BLE001 - counted as an error by the harness
                return Context(text="", error=error_text(exc), latency_ms=ms())
            elapsed = ms()
        text = "\n".join(turn_line(turns[t][0], turns[t][1].session_time) for t in top)
        return Context(text=text, turn_ids=tuple(top), session_ids=tuple(dict.fromkeys(turns[t][1].session_id for t in top)),
                       tokens=count_tokens(text), latency_ms=elapsed)

    def _rank(self, corpus: TurnCorpus, query: str, vector) -> list[str]:
        if self.ranker == "bm25":
            return rank_bm25(corpus, query)
        if self.ranker == "minilm":
            return rank_minilm(corpus, vector)
        return rank_rrf(corpus, query, vector, k=self.rrf_k, weights=self.weights)

    def close(self) -> None:
        self._corpora.clear()
