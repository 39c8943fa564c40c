"""Tune the naive RAG baseline's RRF k and BM25 weight on the LoCoMo tuning split.

``python -m graphmem.evals.tune_rag [PATH]`` ranks every (k, BM25 weight) of a
small grid (MiniLM weight fixed at 1) by mean evidence recall@10 over the
tuning conversations' questions (categories 1-4) and prints the best rows;
`graphmem.evals.systems.rag` stores the winner as constants. It never reads the
reporting split.
"""

from __future__ import annotations

import sys
from itertools import product
from pathlib import Path

import numpy as np

from graphmem.evals.baselines import build_corpus, rank_bm25, rank_minilm
from graphmem.evals.metrics import recall_at
from graphmem.evals.retrieval_run import load_dataset
from graphmem.evals.systems._common import embed_cached
from graphmem.retrieval.fusion import rrf

GRID_K = (1, 2, 5, 10, 20, 40, 60)
GRID_BM25 = (0.5, 0.75, 1.0, 1.25, 1.5, 2.0)
DEFAULT_DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "locomo_dev7.json"


def grid_recall(data: Path) -> dict[tuple[int, float], float]:
    """Mean recall@10 per (k, BM25 weight) over the tuning split."""
    dataset = load_dataset("locomo", data, split="tuning")
    scores: dict[tuple[int, float], list[float]] = {key: [] for key in product(GRID_K, GRID_BM25)}
    for conv in dataset.conversations:
        turns = conv.turns_by_id()
        corpus = build_corpus(turns.values(), embed_cached)
        for question in conv.questions:
            gold = [e for e in question.evidence if e in turns]
            if not gold:
                continue
            vector = embed_cached([question.question])[0]
            rankings = [rank_bm25(corpus, question.question)[:200], rank_minilm(corpus, vector)[:200]]
            for k, w in scores:
                ranked = [s.doc_id for s in rrf(rankings, k=k, weights=[w, 1.0])]
                scores[(k, w)].append(recall_at(ranked, gold, 10))
    return {key: float(np.mean(values)) for key, values in scores.items()}


def main(argv: list[str]) -> None:
    data = Path(argv[0]) if argv else DEFAULT_DATA
    figures = grid_recall(data)
    print(f"naive RAG tuning on the LoCoMo tuning split ({data.name}): recall@10 by (RRF k, BM25 weight)")
    for (k, w), value in sorted(figures.items(), key=lambda item: -item[1])[:10]:
        print(f"  k={k:<3} bm25={w:<5} recall@10={value:.4f}")
    print(f"  k=60 bm25=1.0 (untuned default): {figures[(60, 1.0)]:.4f}")


if __name__ == "__main__":
    main(sys.argv[1:])
