"""Cypher builders for stored communities; pure, every value a parameter (see `graphmem.graph.cypher`).

Graphiti's shape: ``(:Community {uuid, group_id, name, summary, created_at})-[:HAS_MEMBER
{uuid, group_id, created_at}]->(:Entity)``, plus graphmem's ``label_uuid``,
``size``, ``rank``, ``graph_version`` and per-member ``centrality``.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from graphmem.graph.cypher.query import Query
from graphmem.schema import time as t


def delete_communities() -> Query:
    """Every community of the graph: they are derived, and recomputed on demand."""
    return Query("MATCH (c:Community) DETACH DELETE c", {})


def create_communities(rows: Sequence[dict[str, Any]], group_id: str, graph_version: int,
                       created_at: datetime) -> Query:
    """rows: {uuid, name, summary, label_uuid, size, rank, members: [{uuid, edge_uuid, centrality}]}."""
    return Query(
        "UNWIND $rows AS row "
        "CREATE (c:Community {uuid: row.uuid, group_id: $g, name: row.name, summary: row.summary, label_uuid: row.label_uuid, "
        "size: row.size, rank: row.rank, graph_version: $v, created_at: $at}) "
        "WITH c, row UNWIND row.members AS m MATCH (n:Entity {uuid: m.uuid}) "
        "CREATE (c)-[:HAS_MEMBER {uuid: m.edge_uuid, group_id: $g, created_at: $at, centrality: m.centrality}]->(n)",
        {"rows": list(rows), "g": group_id, "v": int(graph_version), "at": t.encode(created_at)},
    )


def communities() -> Query:
    """Stored communities with their members, most central first."""
    return Query(
        "MATCH (c:Community)-[m:HAS_MEMBER]->(n:Entity) "
        "WITH c, m, n ORDER BY m.centrality DESC, n.name "
        "RETURN c.uuid AS uuid, c.name AS label, c.label_uuid AS label_uuid, c.rank AS rank, "
        "c.graph_version AS graph_version, c.created_at AS created_at, "
        "collect(n.name) AS members, collect(n.uuid) AS member_uuids, collect(m.centrality) AS centrality "
        "ORDER BY c.rank",
        {},
    )
