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


def vector_indexes(dimension: int) -> tuple[str, ...]:
    """Cosine vector indexes; the dimension is an int we control, never user text."""
    dim = int(dimension)
    options = f"OPTIONS {{dimension:{dim}, similarityFunction:'cosine'}}"
    return (
        f"CREATE VECTOR INDEX FOR ()-[e:RELATES_TO]-() ON (e.fact_embedding) {options}",
        f"CREATE VECTOR INDEX FOR (n:Entity) ON (n.name_embedding) {options}",
        f"CREATE VECTOR INDEX FOR (n:Episodic) ON (n.content_embedding) {options}",
    )


def all_indexes(dimension: int) -> tuple[str, ...]:
    return RANGE_INDEXES + FULLTEXT_INDEXES + vector_indexes(dimension)
