"""Cypher for the write gate's candidates and the user's decisions on them.

A candidate is a ``CANDIDATE`` edge between the fact's subject and object with the
fact's properties: not a ``RELATES_TO`` edge, so no search, fact read, slot or
vector index sees it until `confirm` turns it into one. A decision is a
``GateDecision`` node keyed by (episode, subject, relation, object); `rebuild`
keeps these and the gate replays them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from graphmem.graph.cypher.facts import fact_columns
from graphmem.graph.cypher.query import Query, vector as vector_param
from graphmem.schema.models import FactEdge

CANDIDATE_VIEW = (f"{fact_columns('r')}, s.name AS subject, o.name AS object, r.single_valued AS single_valued, "
                  "r.ends AS ends, r.gate_key AS gate_key, r.write_score AS write_score, r.gate_reason AS gate_reason")


def create_candidate(edge: FactEdge, embedding: Sequence[float] | None, extra: dict[str, Any]) -> Query:
    props = {k: v for k, v in edge.to_props().items() if v is not None} | extra
    return Query(
        "MATCH (s:Entity {uuid: $source}), (o:Entity {uuid: $target}) "
        "CREATE (s)-[r:CANDIDATE]->(o) SET r += $props, r.fact_embedding = $embedding RETURN r.uuid AS uuid",
        {"source": edge.source_node_uuid, "target": edge.target_node_uuid, "props": props,
         "embedding": vector_param(embedding)},
    )


def same_candidate(source: str, name: str, target: str, scope: str) -> Query:
    """A candidate with this subject, relation, object and scope (a repeated passing state)."""
    return Query(
        "MATCH (:Entity {uuid: $s})-[r:CANDIDATE {name: $name}]->(:Entity {uuid: $o}) "
        "WHERE coalesce(r.scope, 'user') = $scope RETURN r.uuid AS uuid LIMIT 1",
        {"s": source, "name": name, "o": target, "scope": scope},
    )


def add_candidate_episodes(uuid: str, episodes: Sequence[str]) -> Query:
    return Query(
        "MATCH ()-[r:CANDIDATE {uuid: $u}]->() "
        "SET r.episodes = coalesce(r.episodes, []) + [x IN $e WHERE NOT x IN coalesce(r.episodes, [])]",
        {"u": uuid, "e": list(episodes)},
    )


def candidates() -> Query:
    return Query(f"MATCH (s:Entity)-[r:CANDIDATE]->(o:Entity) RETURN {CANDIDATE_VIEW} ORDER BY r.created_at", {})


def candidate(uuid: str) -> Query:
    """One candidate with its embedding (confirm writes it as a fact)."""
    return Query(
        f"MATCH (s:Entity)-[r:CANDIDATE {{uuid: $u}}]->(o:Entity) RETURN {CANDIDATE_VIEW}, r.fact_embedding AS embedding",
        {"u": uuid},
    )


def delete_candidate(uuid: str) -> Query:
    return Query("MATCH ()-[r:CANDIDATE {uuid: $u}]->() DELETE r RETURN count(r) AS n", {"u": uuid})


def delete_all_candidates() -> Query:
    return Query("MATCH ()-[r:CANDIDATE]->() DELETE r RETURN count(r) AS n", {})


def delete_candidates_of(episodes: Sequence[str]) -> Query:
    """Candidates and decisions resting on forgotten turns go with them."""
    return Query(
        "CALL { MATCH ()-[r:CANDIDATE]->() WHERE any(x IN coalesce(r.episodes, []) WHERE x IN $e) DELETE r "
        "RETURN count(r) AS n UNION ALL MATCH (d:GateDecision) WHERE d.episode IN $e DELETE d RETURN count(d) AS n } "
        "RETURN sum(n) AS n",
        {"e": list(episodes)},
    )


def record_decision(key: str, episode: str, decision: str, at: str) -> Query:
    return Query(
        "MERGE (d:GateDecision {key: $key}) SET d.episode = $episode, d.decision = $decision, d.decided_at = $at",
        {"key": key, "episode": episode, "decision": decision, "at": at},
    )


def decisions(keys: Sequence[str]) -> Query:
    return Query(
        "MATCH (d:GateDecision) WHERE d.key IN $keys RETURN d.key AS key, d.decision AS decision",
        {"keys": list(keys)},
    )
