"""A session-level dense signal from the stored turn vectors (no new embedding).

Every earlier turn list ranks turns; a session only shows up through its best
turn. Session any@10 (a gold session among the first 10 cited sessions) can
only move if the order in which sessions first appear changes, and deferring a
session's later turns does not change it (docs/retrieval-rounds.md, the
per-session cap). Here each session gets a vector of its own: the centroid of
its stored turn vectors (MiniLM, written at ingest), or of its user's own turns
where it has some (`own=True`: in a user-assistant chat the user's turns say
what the session is about, the assistant's long answers drift). Sessions are
ranked by the cosine of that centroid with the question's vector, already
embedded for the MiniLM lists.

Two ways to use that ranking, both opt-in (`SearchRecipe.session_prior`):

- ``tail``: the first `head` fused turns stay as they are (recall@10 cannot
  move); after them, the best turn of each of the next sessions not yet seen
  (sessions ordered by RRF of their fused rank and their centroid rank) until
  the first turns cover `sessions` sessions; then the rest of the fused order.
- ``list``: the best turns of the top centroid sessions, interleaved by session,
  are fused with the fused turn order by RRF (`weight` against 1.0).

Measured in issue 12's sixth round (docs/retrieval-rounds.md): neither passed its
rule (the tail moved session any@10 +0.005 on the LoCoMo tuning split and not at all on
the LME tuning half; the list cost R@10), so both stay opt-in. A centroid ranks sessions
worse than their best fused turn does.

Pure functions over `TurnTable` positions (`retrieval.turn_views`); the vectors
are read once per graph version (`vectors_of`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from graphmem.retrieval.turn_views import TurnTable


class SessionPriorConfig(BaseModel):
    """How the session centroid ranking enters the turn order."""

    model_config = ConfigDict(frozen=True)

    mode: Literal["tail", "list"] = Field("tail", description="tail: after the first `head` turns; list: one more RRF list")
    own: bool = Field(False, description="centroid of the user's own turns where a session has some")
    head: int = Field(10, ge=0, description="tail: fused turns kept in place")
    sessions: int = Field(10, ge=1, description="tail: sessions the first turns should cover; list: sessions listed")
    per_session: int = Field(2, ge=1, description="list: best turns of each listed session")
    weight: float = Field(0.5, ge=0.0, description="list: RRF weight against the fused order's 1.0")
    rrf_k: int = Field(5, ge=1, description="k of the RRF fusions here")


@dataclass(frozen=True)
class SessionVectors:
    """Unit turn vectors in `TurnTable` order (zero rows for a turn without one) and
    unit session centroids, one row per id of `sessions`."""

    turns: np.ndarray
    sessions: tuple[str, ...]
    centroids: np.ndarray

    @classmethod
    def of(cls, table: TurnTable, vectors: Mapping[str, Sequence[float]], mask: np.ndarray | None = None
           ) -> SessionVectors:
        """Centroids of each session's turns, or of its turns under `mask` where it has any."""
        dim = len(next(iter(vectors.values()))) if vectors else 0
        turns = np.zeros((len(table.uuids), dim))
        for i, u in enumerate(table.uuids):
            v = vectors.get(u)
            if v is not None:
                turns[i] = v
        norms = np.linalg.norm(turns, axis=1, keepdims=True)
        turns = np.divide(turns, norms, out=np.zeros_like(turns), where=norms > 0)
        ids = tuple(table.members)
        centroids = np.zeros((len(ids), dim))
        for j, s in enumerate(ids):
            members = np.asarray(table.members[s], dtype=int)
            if mask is not None and mask[members].any():
                members = members[mask[members]]
            centroids[j] = turns[members].sum(axis=0)
        norms = np.linalg.norm(centroids, axis=1, keepdims=True)
        centroids = np.divide(centroids, norms, out=np.zeros_like(centroids), where=norms > 0)
        return cls(turns, ids, centroids)

    def rank_sessions(self, query: Sequence[float]) -> list[str]:
        """Session ids by the cosine of their centroid with `query`, best first (ties in table order)."""
        if not self.sessions:
            return []
        q = _unit(query)
        scores = self.centroids @ q
        return [self.sessions[i] for i in np.argsort(-scores, kind="stable")]

    def nearest(self, table: TurnTable, query: Sequence[float], k: int) -> list[tuple[str, float]]:
        """The `k` turns closest to `query` by cosine, best first, as (uuid, similarity); turns
        without a vector are left out, ties keep table order (pure; why: `retrieval.turn_vectors`)."""
        if not len(self.turns) or k <= 0:
            return []
        sims = np.einsum("ij,j->i", self.turns, _unit(query))  # einsum: see `session_rank.dense_sessions`
        has = self._with_vector
        order = has[np.argsort(-sims[has], kind="stable")[:k]]
        return [(table.uuids[i], float(sims[i])) for i in order]

    @cached_property
    def _with_vector(self) -> np.ndarray:
        return np.flatnonzero(np.any(self.turns != 0, axis=1))

    def best_turns(self, table: TurnTable, query: Sequence[float], session: str, n: int) -> list[str]:
        """The session's `n` turns closest to `query`, best first."""
        members = np.asarray(table.members.get(session, ()), dtype=int)
        if not len(members):
            return []
        scores = self.turns[members] @ _unit(query)
        return [table.uuids[members[i]] for i in np.argsort(-scores, kind="stable")[:n]]


def vectors_of(store, user_id: str, idx, own: bool) -> SessionVectors | None:
    """The memory's `SessionVectors`, read from the store once per graph version and
    kind (`UserIndexes.derive`); None when it holds no turns."""
    table = idx.turns
    if table is None or not table.uuids:
        return None

    def read() -> SessionVectors:
        from graphmem.graph import cypher as q

        rows = store.run(user_id, q.episode_vectors(), read_only=True)
        vectors = {r["uuid"]: r["v"] for r in rows if r["v"] is not None}
        return SessionVectors.of(table, vectors, table.own_turns if own else None)

    return idx.derive(("session_vectors", own), read)


def _unit(v: Sequence[float]) -> np.ndarray:
    q = np.asarray(v, dtype=float)
    norm = np.linalg.norm(q)
    return q / norm if norm > 0 else q


def session_list(sv: SessionVectors, table: TurnTable, query: Sequence[float], sessions: int, per_session: int
                 ) -> list[str]:
    """The best `per_session` turns of the top `sessions` centroid sessions, interleaved:
    every session's best turn first, then every session's second, and so on."""
    picked = [sv.best_turns(table, query, s, per_session) for s in sv.rank_sessions(query)[:sessions]]
    return [turns[i] for i in range(per_session) for turns in picked if i < len(turns)]


def session_order(ranked: Sequence[str], session_of: Mapping[str, str], centroid_order: Sequence[str], k: int
                  ) -> list[str]:
    """Sessions by RRF (equal weights) of their first appearance in `ranked` and their
    place in `centroid_order` (pure).

    Example:
        >>> session_order(["a1", "b1"], {"a1": "A", "b1": "B"}, ["B", "C", "A"], k=5)
        ['B', 'A', 'C']
    """
    by_rank = list(dict.fromkeys(session_of.get(u, u) for u in ranked))
    score: dict[str, float] = {}
    for order in (by_rank, list(centroid_order)):
        for i, s in enumerate(order, start=1):
            score[s] = score.get(s, 0.0) + 1.0 / (k + i)
    return sorted(score, key=lambda s: -score[s])


def promote_sessions(ranked: Sequence[str], session_of: Mapping[str, str], order: Sequence[str],
                     best_turn: Mapping[str, str], head: int, sessions: int) -> list[str]:
    """`ranked` with its first `head` turns in place, then one turn of each next session of
    `order` not yet among them, until `sessions` sessions are covered, then the rest (pure).
    A promoted session's turn is its best in `ranked`, else `best_turn[session]`.

    Example:
        >>> s = {"a1": "A", "a2": "A", "b1": "B", "c1": "C"}
        >>> promote_sessions(["a1", "a2", "b1"], s, ["A", "C", "B"], {"C": "c1"}, head=1, sessions=2)
        ['a1', 'c1', 'a2', 'b1']
    """
    ranked = list(dict.fromkeys(ranked))
    out = ranked[:head]
    seen = {session_of.get(u, u) for u in out}
    first: dict[str, str] = {}
    for u in ranked[head:]:
        first.setdefault(session_of.get(u, u), u)
    for s in order:
        if len(seen) >= sessions:
            break
        if s in seen:
            continue
        turn = first.get(s) or best_turn.get(s)
        if turn is None:
            continue
        out.append(turn)
        seen.add(s)
    chosen = set(out)
    return out + [u for u in ranked if u not in chosen]
