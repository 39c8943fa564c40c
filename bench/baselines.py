"""The raw-turn baselines now live in `graphmem.evals.baselines` (shared with the eval harness)."""

from graphmem.evals.baselines import (  # noqa: F401
    RRF_K,
    TurnCorpus,
    build_corpus,
    rank_all,
    rank_bm25,
    rank_minilm,
    rank_rrf,
    turn_text,
)
