"""Index statements for a user's graph, created once when the graph is created.

Range and full-text indexes mirror what Graphiti 0.31 creates on FalkorDB, so
Graphiti's queries find them; the vector indexes serve graphmem's own search.
"""

from __future__ import annotations

ACCESS_INDEX = "CREATE INDEX FOR (a:FactAccess) ON (a.uuid)"
"""The facts' access records (`graph.cypher.facts.ACCESS`); added after graphs were
first stored, so the store also creates it on an older graph that lacks it."""

RANGE_INDEXES = (
    "CREATE INDEX FOR (n:Entity) ON (n.uuid, n.group_id, n.name, n.normalized_name, n.created_at)",
    "CREATE INDEX FOR (n:Episodic) ON (n.uuid, n.group_id, n.name, n.created_at, n.valid_at, n.session_id, n.content_hash)",
    "CREATE INDEX FOR ()-[e:RELATES_TO]-() ON (e.uuid, e.group_id, e.name, e.slot, e.created_at, e.expired_at, e.valid_at, e.invalid_at)",
    "CREATE INDEX FOR ()-[e:MENTIONS]-() ON (e.uuid, e.group_id)",
    ACCESS_INDEX,
)

FULLTEXT_INDEXES = (
    "CREATE FULLTEXT INDEX FOR (e:Episodic) ON (e.content, e.source, e.source_description, e.group_id)",
    "CREATE FULLTEXT INDEX FOR (n:Entity) ON (n.name, n.summary, n.group_id)",
    "CREATE FULLTEXT INDEX FOR ()-[e:RELATES_TO]-() ON (e.name, e.fact, e.group_id)",
)


VECTOR_FIELDS = (("RELATES_TO", "fact_embedding"), ("Entity", "name_embedding"), ("Episodic", "content_embedding"))
"""(label or relationship type, property) of each vector index."""


def _vector_target(label: str, prop: str) -> str:
    return f"()-[e:{label}]-() ON (e.{prop})" if label == "RELATES_TO" else f"(n:{label}) ON (n.{prop})"


def vector_indexes(dimension: int) -> tuple[str, ...]:
    """Cosine vector indexes; the dimension is an int we control, never user text."""
    options = f"OPTIONS {{dimension:{int(dimension)}, similarityFunction:'cosine'}}"
    return tuple(f"CREATE VECTOR INDEX FOR {_vector_target(*field)} {options}" for field in VECTOR_FIELDS)


def drop_vector_indexes() -> tuple[str, ...]:
    """The vector indexes' DROP statements (a re-embedding to another dimension, `ingest.reembed`)."""
    return tuple(f"DROP VECTOR INDEX FOR {_vector_target(*field)}" for field in VECTOR_FIELDS)


def all_indexes(dimension: int) -> tuple[str, ...]:
    return RANGE_INDEXES + FULLTEXT_INDEXES + vector_indexes(dimension)
