"""Re-embedding: a user's stored vectors made again by another embedder, so a memory can
move to another model (or dimension) without losing what it holds.

A graph records the model its vectors came from and refuses any other
(`Store.ensure_graph`), since vectors of two models cannot be compared. Without this
step a user who changed models could only open the memory with the old one. Every
vector is a function of stored text (a turn's "speaker: content", an entity's name, a
fact's or candidate's sentence), so all of them can be made again; nothing else
changes: facts, times, turns, ids and the write gate's decisions stay as they are.

The graph is marked before the first vector is replaced and unmarked, with its new
model and dimension, after the last (`cypher.vectors`): a re-embedding that stops half
way leaves a graph that is refused, naming the command to run again, rather than one
that silently compares two models' vectors. With another dimension the three vector
indexes are dropped first and made anew after. A vector given to `add_fact(embedding=...)`
is replaced by the new model's vector of the fact's text, as every other vector is.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict

from graphmem.graph import cypher as q
from graphmem.graph.store import Store
from graphmem.ingest.pipeline import turn_text
from graphmem.schema.errors import NotFound, StoreError
from graphmem.schema.indexes import VECTOR_FIELDS, drop_vector_indexes, vector_indexes

BATCH = 256


class ReembedResult(BaseModel):
    """What a re-embedding replaced: vectors per kind, and the model before and after."""

    model_config = ConfigDict(frozen=True)

    turns: int = 0
    entities: int = 0
    facts: int = 0
    candidates: int = 0
    embedder: str
    dimension: int
    previous_embedder: str | None = None
    previous_dimension: int


def reembed(store: Store, user_id: str, embed: Callable[[Sequence[str]], np.ndarray], *, embedder: str,
            dimension: int, backend: str | None) -> ReembedResult:
    """Replace every stored vector of `user_id` with `embed`'s. The caller holds the user's lock."""
    known = store.stored_embedding(user_id)
    if known is None:
        raise NotFound(f"user {user_id!r} has no memory")
    store.run(user_id, q.mark_reembedding(embedder))
    resized = _index_dimensions(store, user_id) != {field: int(dimension) for field in VECTOR_FIELDS}
    if resized:  # also when a stopped re-embedding to another dimension dropped them already
        for statement in drop_vector_indexes():
            _drop_index(store, user_id, statement)
    counts = {kind: _replace(store, user_id, kind, embed) for kind in q.VECTOR_KINDS}
    if resized:
        for statement in vector_indexes(dimension):
            store.run(user_id, q.Query(statement, {}))
    store.run(user_id, q.finish_reembedding(dimension, embedder, backend))
    return ReembedResult(**counts, embedder=embedder, dimension=int(dimension), previous_embedder=known.embedder,
                         previous_dimension=known.dimension)


def _replace(store: Store, user_id: str, kind: str, embed: Callable[[Sequence[str]], np.ndarray]) -> int:
    rows = store.run(user_id, q.vector_texts(kind), read_only=True)
    texts = [turn_text(r["speaker"], r["text"]) if kind == "turns" else (r["text"] or "") for r in rows]
    for start in range(0, len(rows), BATCH):
        vectors = np.asarray(embed(texts[start:start + BATCH]), dtype=np.float32)
        batch = [{"uuid": r["uuid"], "v": v.tolist()} for r, v in zip(rows[start:start + BATCH], vectors, strict=True)]
        store.run(user_id, q.set_vectors(kind, batch))
    return len(rows)


def _index_dimensions(store: Store, user_id: str) -> dict[tuple[str, str], int]:
    """(label, property) -> dimension of each vector index the graph has now."""
    rows = store.run(user_id, q.INDEX_OPTIONS, read_only=True)
    return {(row["label"], prop): int(row["options"][prop]["dimension"])
            for row in rows for prop, kinds in row["types"].items() if "VECTOR" in kinds}


def _drop_index(store: Store, user_id: str, statement: str) -> None:
    """Drop one vector index; one already dropped (a re-embedding run again) is no error."""
    try:
        store.run(user_id, q.Query(statement, {}))
    except StoreError as exc:
        if "no such index" not in str(exc):
            raise
