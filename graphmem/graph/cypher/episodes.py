"""Cypher for episodes (stored turns): create, link, look up, rank."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from graphmem.schema import time as t
from graphmem.schema.models import new_uuid

from graphmem.graph.cypher.query import Query, in_scopes, vector as vector_param, vector_rows


def episode_times(uuids: Sequence[str]) -> Query:
    """Session time of each episode: when the facts it states were said to hold."""
    return Query(
        "MATCH (e:Episodic) WHERE e.uuid IN $uuids RETURN e.uuid AS uuid, e.valid_at AS valid_at",
        {"uuids": list(uuids)},
    )


def episode_names(uuids: Sequence[str]) -> Query:
    return Query(
        "MATCH (e:Episodic) WHERE e.uuid IN $uuids RETURN e.uuid AS uuid, e.name AS name",
        {"uuids": list(uuids)},
    )


def existing_episodes(uuids: Sequence[str]) -> Query:
    """Which of `uuids` are stored, whether extracted, and whether still without their
    vector (``bare``: a write stopped between `create_linked_episodes` and `mark_extracted`)."""
    return Query(
        "MATCH (e:Episodic) WHERE e.uuid IN $uuids "
        "RETURN e.uuid AS uuid, e.name AS name, e.extracted AS extracted, e.content_embedding IS NULL AS bare",
        {"uuids": list(uuids)},
    )


def names_taken(names: Sequence[str], uuids: Sequence[str]) -> Query:
    """Which of `names` (turn ids) stored turns other than `uuids` already have."""
    return Query(
        "MATCH (e:Episodic) WHERE e.name IN $names AND NOT e.uuid IN $uuids RETURN DISTINCT e.name AS name",
        {"names": list(names), "uuids": list(uuids)},
    )


def create_episodes(rows: Sequence[dict[str, Any]]) -> Query:
    """rows: {uuid, props, embedding}; MERGE on uuid makes a repeated write a no-op."""
    return Query(
        "UNWIND $rows AS row MERGE (e:Episodic {uuid: row.uuid}) "
        "ON CREATE SET e += row.props, e.content_embedding = vecf32(row.embedding)",
        {"rows": vector_rows(rows)},
    )



def set_episode_vectors(rows: Sequence[dict[str, Any]]) -> Query:
    """rows: {uuid, embedding}: the vectors of turns whose write stopped before `mark_extracted`."""
    return Query(
        "UNWIND $rows AS row MATCH (e:Episodic {uuid: row.uuid}) SET e.content_embedding = vecf32(row.embedding)",
        {"rows": vector_rows(rows)},
    )




def create_linked_episodes(rows: Sequence[dict[str, Any]], group_id: str, created_at: datetime) -> Query:
    """rows: {uuid, props}, one session's new turns in turn order, stored without their
    vectors (the write path sets them with `mark_extracted`; why: see there; MERGE on
    uuid makes a repeat a no-op), each linked to the next and the first to the
    session's turn before it: one round trip instead of three."""
    first = rows[0]["props"]
    pairs = [[a["uuid"], b["uuid"], new_uuid()] for a, b in zip(rows, rows[1:])]
    return Query(
        "UNWIND $rows AS row MERGE (e:Episodic {uuid: row.uuid}) ON CREATE SET e += row.props "
        "WITH count(e) AS stored "
        "OPTIONAL MATCH (p:Episodic {session_id: $session_id}) WHERE p.turn_index < $index "
        "WITH p ORDER BY p.turn_index DESC LIMIT 1 "
        "UNWIND CASE WHEN p IS NULL THEN $pairs ELSE [[p.uuid, $first, $link]] + $pairs END AS x "
        "MATCH (a:Episodic {uuid: x[0]}), (b:Episodic {uuid: x[1]}) "
        "MERGE (a)-[r:NEXT_EPISODE]->(b) "
        "ON CREATE SET r.uuid = x[2], r.group_id = $group_id, r.created_at = $at",
        {"rows": list(rows), "session_id": first["session_id"], "index": first["turn_index"],
         "first": rows[0]["uuid"], "link": new_uuid(), "pairs": pairs, "group_id": group_id,
         "at": t.encode(created_at)},
    )


def mark_extracted(rows: Sequence[dict[str, Any]], *, vectors: bool = False) -> Query:
    """rows: {uuid, edges}: the episode's facts are written; re-writes may skip it.
    With `vectors`, rows also carry {embedding}, set in the same SET.

    Why the vector waits for this: FalkorDB re-inserts a node into its label's
    vector index on every SET, whatever property it sets, so a turn stored with
    its vector and then marked was indexed twice, ~0.6 ms of server CPU each time
    (conv-42's 629 turns: 0.3-0.4 s, a tenth of embedding them)."""
    if not vectors:
        return Query(
            "UNWIND $rows AS row MATCH (e:Episodic {uuid: row.uuid}) SET e.extracted = true, e.entity_edges = row.edges",
            {"rows": list(rows)},
        )
    return Query(
        "UNWIND $rows AS row MATCH (e:Episodic {uuid: row.uuid}) "
        "SET e.extracted = true, e.entity_edges = row.edges, e.content_embedding = vecf32(row.embedding)",
        {"rows": vector_rows(rows)},
    )


def episode_docs() -> Query:
    """Each turn's BM25 text, its scope, and the session and speaker the turn views need (`retrieval.turn_views`)."""
    return Query("MATCH (e:Episodic) RETURN e.uuid AS uuid, e.speaker + ': ' + e.content AS text, "
                 "coalesce(e.scope, 'user') AS scope, "
                 "e.session_id AS session_id, e.turn_index AS turn_index, e.speaker AS speaker, "
                 "e.valid_at AS session_time", {})


def episode_vectors() -> Query:
    """Every turn's stored MiniLM vector (`retrieval.session_dense` builds session centroids from them)."""
    return Query("MATCH (e:Episodic) WHERE e.content_embedding IS NOT NULL "
                 "RETURN e.uuid AS uuid, e.content_embedding AS v", {})


def vector_episodes(vector: Sequence[float], k: int, scopes: Sequence[str] | None = None,
                    fetch: int | None = None) -> Query:
    """The `k` turns closest by cosine, of every scope or only of `scopes` (how, as
    in `facts.vector_facts`)."""
    if scopes is None:
        return Query(
            "CALL db.idx.vector.queryNodes('Episodic', 'content_embedding', $k, vecf32($v)) "
            "YIELD node, score RETURN node.uuid AS uuid, 1.0 - score AS similarity",
            {"k": int(k), "v": vector_param(vector)},
        )
    params = {"k": int(k), "n": int(fetch or 0), "v": vector_param(vector), "scopes": list(scopes)}
    if fetch is not None:
        return Query(
            "CALL db.idx.vector.queryNodes('Episodic', 'content_embedding', $n, vecf32($v)) "
            f"YIELD node, score WITH node, score WHERE true{in_scopes('node', scopes)} "
            "RETURN node.uuid AS uuid, 1.0 - score AS similarity ORDER BY similarity DESC LIMIT $k", params)
    return Query(
        f"MATCH (node:Episodic) WHERE node.content_embedding IS NOT NULL{in_scopes('node', scopes)} "
        "WITH node, vec.cosineDistance(node.content_embedding, vecf32($v)) AS score "
        "RETURN node.uuid AS uuid, 1.0 - score AS similarity ORDER BY similarity DESC LIMIT $k", params)


def episodes_mentioning(entity_uuids: Sequence[str], limit: int, scopes: Sequence[str] | None = None) -> Query:
    """Turns mentioning the entities, most of them first; with `scopes`, only theirs."""
    params = {"uuids": list(entity_uuids), "limit": int(limit)}
    return Query(
        f"MATCH (e:Episodic)-[:MENTIONS]->(n:Entity) WHERE n.uuid IN $uuids{in_scopes('e', scopes)} "
        "WITH e, count(n) AS hits ORDER BY hits DESC, e.valid_at DESC LIMIT $limit RETURN e.uuid AS uuid, hits",
        params if scopes is None else params | {"scopes": list(scopes)},
    )


def episodes_by_uuid(uuids: Sequence[str]) -> Query:
    return Query(
        "MATCH (e:Episodic) WHERE e.uuid IN $uuids RETURN e.uuid AS uuid, e.name AS turn_id, "
        "e.valid_at AS session_time, e.speaker AS speaker, e.content AS content, e.created_at AS created_at, "
        "coalesce(e.scope, 'user') AS scope",
        {"uuids": list(uuids)},
    )


def episode_scopes(uuids: Sequence[str]) -> Query:
    """The scope of each turn (``user`` when unset), so a search keeps only its own."""
    return Query(
        "MATCH (e:Episodic) WHERE e.uuid IN $uuids RETURN e.uuid AS uuid, coalesce(e.scope, 'user') AS scope",
        {"uuids": list(uuids)},
    )


def episode_neighbours(uuids: Sequence[str]) -> Query:
    return Query(
        "MATCH (a:Episodic)-[:NEXT_EPISODE]-(b:Episodic) WHERE a.uuid IN $uuids RETURN a.uuid AS of, b.uuid AS uuid",
        {"uuids": list(uuids)},
    )


def episodes_in_order() -> Query:
    """Every turn with what a write needs to extract it again, in session-time order
    (`ingest.rebuild`)."""
    return Query(
        "MATCH (e:Episodic) RETURN e.uuid AS uuid, e.name AS turn_id, e.content AS content, e.speaker AS speaker, "
        "e.session_id AS session_id, e.turn_index AS turn_index, e.valid_at AS session_time, "
        "coalesce(e.scope, 'user') AS scope ORDER BY e.valid_at, e.session_id, e.turn_index",
        {},
    )


def reset_extracted() -> Query:
    """Mark every turn as not extracted yet, with no facts drawn from it."""
    return Query("MATCH (e:Episodic) SET e.extracted = false, e.entity_edges = [] RETURN count(e) AS n", {})
