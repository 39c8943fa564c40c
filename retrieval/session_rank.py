"""Sessions ranked as documents: the turns after the first 10 cover the best sessions.

Session any@10 (a gold session among the first 10 sessions the cited turns come
from) moves only when the order in which sessions first appear changes: a cap of
turns per session, or an MMR over them, defers a session's later turns and leaves
that order as it was (docs/retrieval-rounds.md, second and seventh rounds). The
sixth round's tail (`retrieval.session_dense`) changed the order after the first
10 turns by a session centroid, which ranks sessions worse than their best turn.

Here a session is ranked by what its turns say together: the **session document**,
the term counts of all its turns summed (in a memory where a ``user`` talks with an
assistant, of the user's own turns where the session has some: the assistant's long
answers repeat every topic), scored by BM25 against the question like any document.
A session that comes back to the question's words in several turns outranks one
turn that happens to share many of them. Also by the mean cosine to the question of
its **best three turns** (the stored turn vectors; no new embedding; the best single
turn until issue 12's eleventh round: a session about the topic has several turns near
the question, while one turn of an unrelated session can match a phrase), and, when
the question names a time, the sessions dated in it (cut at `now`) by that cosine:
a question about "10 days ago" has its answer in one of the few sessions of that
day even when the words differ. These rankings and the sessions' first appearance
in the fused turn order are fused by weighted RRF (equal weights, k 5, fixed in
advance as elsewhere).

`tail` then keeps the first `head` fused turns as they are (recall@10 cannot move),
and after them puts one turn of each next session of that order not yet seen (its
best fused turn, else its best turn by BM25 over the question) until the first turns
cover `sessions` sessions; then the rest of the fused order (`session_dense.
promote_sessions`). With the default packet (limit 10) and head 10 the packet is
unchanged; the reorder acts on longer contexts (the harness cites 25 turns).

The session document index is built once per graph version from the turn BM25
index's counts (a sparse product; `UserIndexes.derive`). Opt-in or
default per `SearchRecipe.session_tail` (docs/retrieval-rounds.md, eighth round).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from graphmem.retrieval.turn_views import TurnTable, self_mask

if TYPE_CHECKING:  # bm25 -> fusion -> recipes imports this module; scipy only when a search runs
    import scipy.sparse as sp

    from graphmem.retrieval.bm25 import BM25Index


class SessionTailConfig(BaseModel):
    """Which session rankings order the turns after the head, and how many sessions to cover."""

    model_config = ConfigDict(frozen=True)

    head: int = Field(10, ge=0, description="fused turns kept in place")
    sessions: int = Field(10, ge=1, description="sessions the first turns should cover")
    fused: float = Field(1.0, ge=0.0, description="RRF weight of the sessions' first appearance in the fused turns")
    bm25: float = Field(1.0, ge=0.0, description="RRF weight of the session documents ranked by BM25")
    dense: float = Field(1.0, ge=0.0, description="RRF weight of the sessions ranked by their best turns' cosine")
    dense_turns: int = Field(3, ge=1, le=10, description="a session's dense score is the mean cosine of its best "
                                                         "this many turns; 1 is its best turn (before issue 12's "
                                                         "eleventh round); 3 kept on the LoCoMo tuning split (docs/retrieval-rounds.md)")
    dated: float = Field(1.0, ge=0.0, description="RRF weight of the sessions dated in the time the question names "
                                                  "(cut at `now`, `time_prior.until`), by their best turns' cosine")
    own: bool = Field(True, description="in a user-assistant memory, a session document is the user's own turns "
                                        "where the session has some")
    rrf_k: int = Field(5, ge=1, description="k of the RRF over the session rankings")


def session_documents(table: TurnTable, counts: sp.csr_matrix, own: bool) -> tuple[tuple[str, ...], sp.csr_matrix]:
    """Session ids (in `table.members` order) and their term counts: the sum of their turns' rows
    of `counts`, or, with `own`, of the user's own turns where the session has some (pure)."""
    import scipy.sparse as sp

    ids = tuple(table.members)
    mask = self_mask(table) if own else None
    rows, cols = [], []
    for j, s in enumerate(ids):
        members = np.asarray(table.members[s], dtype=np.int64)
        if mask is not None and mask[members].any():
            members = members[mask[members]]
        rows.extend([j] * len(members))
        cols.extend(members.tolist())
    member_of = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(ids), len(table.uuids)))
    return ids, (member_of @ counts).tocsr()


def session_index(idx, own: bool) -> BM25Index | None:
    """A BM25 index over the memory's session documents, built once per graph version and kind
    (`UserIndexes.derive`); None without turns."""
    table = idx.turns
    if table is None or not table.uuids:
        return None
    return idx.derive(("session_bm25", own),
                      lambda: idx.episodes.regrouped(*session_documents(table, idx.episodes.counts, own)))


def ranked_sessions(index: BM25Index, query: str) -> list[str]:
    """Session ids by BM25 of their documents, best first; sessions scoring 0 left out."""
    return [s.doc_id for s in index.search(query, len(index))]


def dense_sessions(table: TurnTable, turn_vectors: np.ndarray, query: Sequence[float], turns: int = 1) -> list[str]:
    """Session ids by the mean cosine to `query` of their best `turns` turns (unit turn vectors in
    table order; a session with fewer turns, the mean of those it has), best first."""
    q = np.asarray(query, dtype=float)
    norm = np.linalg.norm(q)
    if not len(turn_vectors) or norm == 0:
        return []
    # einsum, not `@`: a threaded BLAS spins its idle threads on a product this small, which cost
    # ~30 ms of process CPU per search on 2,234 turns for under 1 ms of work
    sims = np.einsum("ij,j->i", turn_vectors, q / norm)
    ids = list(table.members)
    grouped = np.concatenate([np.asarray(table.members[s], dtype=np.int64) for s in ids])
    sizes = np.array([len(table.members[s]) for s in ids])
    starts = np.cumsum(np.concatenate(([0], sizes[:-1])))
    best = np.maximum.reduceat(sims[grouped], starts) if turns == 1 else best_turns_mean(sims[grouped], sizes, turns)
    return [ids[i] for i in np.argsort(-best, kind="stable")]


def best_turns_mean(values: np.ndarray, sizes: np.ndarray, turns: int) -> np.ndarray:
    """Per group of consecutive `values` (group lengths `sizes`, each >= 1), the mean of its `turns`
    largest values (pure). Why more than the best one: a session about the question's topic
    has several turns near it, while one turn of an unrelated session can match a phrase
    (issue 12's eleventh round, docs/retrieval-rounds.md).

    Example:
        >>> best_turns_mean(np.array([0.9, 0.1, 0.5, 0.6, 0.7, 0.2]), np.array([3, 3]), 2).round(2).tolist()
        [0.7, 0.65]
    """
    group = np.repeat(np.arange(len(sizes)), sizes)
    starts = np.cumsum(np.concatenate(([0], sizes[:-1])))
    order = np.lexsort((-values, group))  # by group, then largest first
    keep = np.arange(len(values)) - starts[group] < turns  # group[order] == group: a group's rows stay together
    sums = np.bincount(group[keep], weights=values[order][keep], minlength=len(sizes))
    return sums / np.minimum(sizes, turns)


def dated_sessions(table: TurnTable, dense_order: Sequence[str], start, end) -> list[str]:
    """The sessions of `dense_order` dated within [start, end) (`time_prior.in_range`, its slack);
    empty without a range, or when no session or every session is in it."""
    from graphmem.retrieval.time_prior import in_range

    if (start is None and end is None) or not table.times:
        return []
    mask = in_range(table.times, start, end)
    if not mask.any() or mask.all():
        return []
    inside = {table.sessions[i] for i in np.flatnonzero(mask)}
    return [s for s in dense_order if s in inside]


def fuse_orders(orders: Sequence[tuple[Sequence[str], float]], k: int) -> list[str]:
    """Session ids by weighted RRF over several session orders; ties keep first appearance (pure).

    Example:
        >>> fuse_orders([(["A", "B", "C"], 1.0), (["C", "B"], 1.0)], k=5)
        ['C', 'B', 'A']
    """
    from graphmem.retrieval.fusion import rrf  # fusion -> recipes -> this module

    kept = [(list(dict.fromkeys(order)), weight) for order, weight in orders if weight > 0]
    return [s.doc_id for s in rrf([order for order, _ in kept], k, [weight for _, weight in kept])]


def best_turn_by_scores(table: TurnTable, scores: np.ndarray, sessions: Sequence[str],
                        mask: np.ndarray | None = None) -> dict[str, str]:
    """Each session's turn with the highest score, among its turns under `mask` where it has
    some (its first such turn when none scores above 0)."""
    out = {}
    for s in sessions:
        members = table.members.get(s)
        if members:
            at = np.asarray(members, dtype=np.int64)
            if mask is not None and mask[at].any():
                at = at[mask[at]]
            out[s] = table.uuids[int(at[int(np.argmax(scores[at]))])]
    return out


def tail(ranked: Sequence[str], session_of: Mapping[str, str], order: Sequence[str], best_turn: Mapping[str, str],
         head: int, sessions: int) -> list[str]:
    """`ranked` with its first `head` turns in place, then one turn of each next session of `order`
    not yet among them until `sessions` are covered, then the rest (pure; `session_dense.promote_sessions`).

    Example:
        >>> s = {"a1": "A", "a2": "A", "b1": "B", "c1": "C"}
        >>> tail(["a1", "a2", "b1"], s, ["A", "C", "B"], {"C": "c1"}, head=1, sessions=2)
        ['a1', 'c1', 'a2', 'b1']
    """
    from graphmem.retrieval.session_dense import promote_sessions

    return promote_sessions(ranked, session_of, order, best_turn, head, sessions)
