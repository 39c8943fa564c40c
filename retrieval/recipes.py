"""Named search recipes: frozen configurations, like Graphiti's.

A recipe says which candidate lists feed the fusion and with what weight, how
many candidates each list brings, and which reranker orders the result.
The default's weights and ``rrf_k`` were picked on the LoCoMo evidence
recall of `bench/retrieval.py` (a small RRF k rewards lists' top ranks; turns
next to the best hits carry the answer often enough to weigh 0.5).
Per-call changes go through ``model_copy(update=...)``; nothing here is ever
mutated, so one caller's tweak cannot leak into the next (Graphiti's `search()`
writes `limit` into a shared module-level recipe).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from graphmem.errors import InvalidInput


class SearchRecipe(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    candidates: int = Field(50, description="how many candidates each list brings")
    rrf_k: int = Field(5, description="chosen on LoCoMo evidence recall (bench retrieval); 60 scored 0.58 at k=10")
    fact_weights: dict[str, float] = Field(
        default_factory=lambda: {"bm25": 1.0, "vector": 1.0, "bfs": 0.5}
    )
    turn_weights: dict[str, float] = Field(
        default_factory=lambda: {"bm25": 1.2, "vector": 1.0, "facts": 0.3, "mentions": 0.1, "neighbours": 0.5}
    )
    bfs_hops: int = 1
    neighbour_seeds: int = Field(3, description="top hits of each turn list whose adjacent turns join")
    reranker: str = "rrf"
    mmr_lambda: float = 0.7
    max_turn_chars: int = 400
    time_filter: bool = Field(True, description="keep facts by the question's time mode; off only for the no_time ablation")


HYBRID_RRF = SearchRecipe(name="hybrid_rrf")
HYBRID_MMR = SearchRecipe(name="hybrid_mmr", reranker="mmr")
BM25_ONLY = SearchRecipe(
    name="bm25_only", fact_weights={"bm25": 1.0}, turn_weights={"bm25": 1.0, "facts": 0.5}
)
VECTOR_ONLY = SearchRecipe(
    name="vector_only", fact_weights={"vector": 1.0}, turn_weights={"vector": 1.0, "facts": 0.5}
)
GRAPH_HEAVY = SearchRecipe(
    name="graph_heavy",
    bfs_hops=2,
    fact_weights={"bm25": 1.0, "vector": 1.0, "bfs": 1.0},
    turn_weights={"bm25": 1.0, "vector": 1.0, "facts": 1.0, "mentions": 0.6, "neighbours": 0.5},
)

HYBRID_DECAY = SearchRecipe(name="hybrid_decay", reranker="decay")

RECIPES = {r.name: r for r in (HYBRID_RRF, HYBRID_MMR, BM25_ONLY, VECTOR_ONLY, GRAPH_HEAVY, HYBRID_DECAY)}
DEFAULT_RECIPE = HYBRID_RRF


def get_recipe(name: str) -> SearchRecipe:
    try:
        return RECIPES[name]
    except KeyError:
        raise InvalidInput(f"unknown recipe {name!r}; choose one of {sorted(RECIPES)}") from None
