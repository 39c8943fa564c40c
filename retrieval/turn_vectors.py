"""The turns nearest a question's vector: FalkorDB's approximate vector index (the
default), or exact cosine over the turn vectors the search keeps in memory
(`SearchRecipe.exact_turn_vectors`, recipe ``hybrid_exact_turns``).

Why the exact option: the index is approximate, and which neighbours it misses depends on
the order its graph was built in. The same memory searched by the process that wrote it
and after a reload from disk (the index rebuilt) returned different turns after the first
ten for 62 of the 99 pooled LongMemEval questions, session any@10 0.949 against 0.960.
Exact search gives the same turns either way, and costs nothing new: the vectors are read
once per graph version for the session tail anyway (`session_dense.vectors_of`), and one
product over a few thousand turns takes well under a millisecond. Why not the default: on
the tuning sets it moved one LME question from rank 10 to 11 (docs/retrieval-rounds.md,
twelfth round), so by the keep rule it stays opt-in.
"""

from __future__ import annotations

from collections.abc import Sequence

from graphmem.graph.store import Store
from graphmem.retrieval import session_dense
from graphmem.retrieval.index import UserIndexes
from graphmem.retrieval.scoped import EVERY_SCOPE, ScopedView


def nearest_turns(store: Store, user_id: str, idx: UserIndexes, vector: Sequence[float], k: int, *, exact: bool,
                  view: ScopedView = EVERY_SCOPE) -> list[tuple[str, float]]:
    """The `k` turns of `idx` (its scopes: `view`) closest to `vector`, as (uuid, cosine) best
    first: exact with `exact` when the memory holds turns, else from the vector index."""
    if exact and idx.turns is not None and idx.turns.uuids:
        sv = session_dense.vectors_of(store, user_id, idx, False)
        if sv is not None:
            return sv.nearest(idx.turns, vector, k)
    rows = store.run(user_id, view.vector_episodes(vector, k), read_only=True)
    return [(r["uuid"], r["similarity"]) for r in rows]
