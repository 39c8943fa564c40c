"""Cypher for fact edges: create, close, split, restate, read as of a time."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from graphmem.schema import time as t
from graphmem.schema.models import FactEdge
from graphmem.schema.supersession import Closure, Extension, Split

from graphmem.graph.cypher.query import Query, in_scopes, vector as vector_param, vector_rows


FACT_FIELDS = tuple(name for name in FactEdge.model_fields if name not in FactEdge.VECTOR_FIELDS)


def fact_columns(r: str = "r") -> str:
    """`r.uuid AS uuid, ...` for every stored FactEdge field except embeddings."""
    return ", ".join(f"{r}.{name} AS {name}" for name in FACT_FIELDS)


FACT_VIEW = f"{fact_columns('r')}, s.name AS subject, o.name AS object"


ACCESS = "FactAccess"
"""Label of a fact's access statistics node, `(:FactAccess {uuid, access_count,
last_accessed_at})`, keyed by the fact's uuid. Not on the fact edge: a SET on the
edge re-indexes it in the range, full-text and vector indexes (10 edges: ~40 ms
at 10k facts), while this node sits only in a range index on `uuid` (~2-4 ms)."""

_COPY_ACCESS = (
    f"WITH g, r OPTIONAL MATCH (a:{ACCESS} {{uuid: g.uuid}}) "
    "FOREACH (_ IN CASE WHEN a IS NULL THEN [] ELSE [1] END | "
    f"MERGE (c:{ACCESS} {{uuid: r.uuid}}) SET c.access_count = a.access_count, c.last_accessed_at = a.last_accessed_at) "
)


def create_fact(edge: FactEdge, embedding: Sequence[float] | None) -> Query:
    props = {k: v for k, v in edge.to_props().items() if v is not None}
    return Query(
        "MATCH (s:Entity {uuid: $source}), (o:Entity {uuid: $target}) "
        "CREATE (s)-[r:RELATES_TO]->(o) SET r += $props, r.fact_embedding = vecf32($embedding) "
        "RETURN r.uuid AS uuid",
        {
            "source": edge.source_node_uuid,
            "target": edge.target_node_uuid,
            "props": props,
            "embedding": vector_param(embedding),
        },
    )


def slot_facts(source_uuid: str, slot: str) -> Query:
    """Every fact with this subject and slot, whatever its status."""
    return Query(
        f"MATCH (s:Entity {{uuid: $source}})-[r:RELATES_TO {{slot: $slot}}]->(o:Entity) RETURN {FACT_VIEW}",
        {"source": source_uuid, "slot": slot},
    )


def subject_facts(source_uuid: str, names: Sequence[str]) -> Query:
    """Every fact with this subject and one of these predicates, in any slot, whatever its status."""
    return Query(
        f"MATCH (s:Entity {{uuid: $source}})-[r:RELATES_TO]->(o:Entity) WHERE r.name IN $names RETURN {FACT_VIEW}",
        {"source": source_uuid, "names": list(names)},
    )


def facts_of_subjects(pairs: Sequence[tuple[str, Sequence[str]]]) -> Query:
    """`subject_facts` for each (subject uuid, predicates) pair at once, each row with its pair."""
    return Query(
        "UNWIND $pairs AS p MATCH (s:Entity {uuid: p[0]})-[r:RELATES_TO]->(o:Entity) WHERE r.name IN p[1] "
        f"RETURN p[0] AS kin_source, p[1] AS kin_names, {FACT_VIEW}",
        {"pairs": [[source, list(names)] for source, names in pairs]},
    )


def logged_interval(r: str = "r", changed_at: str = "changed_at") -> str:
    """`time.logged` in Cypher: `r`'s `interval_log` with `r`'s interval appended, recorded
    as replaced at `$changed_at` (a closed fact with an empty log gets its closure first).
    Set it in a SET clause before the one that changes the interval."""
    def entry(at: str, end: str, by: str) -> str:
        sep = f" + '{t.LOG_SEPARATOR}' + "
        return sep.join([at, f"coalesce(toString({r}.valid_at), '')", f"coalesce(toString({end}), '')",
                         f"coalesce({by}, '')"])

    log = f"coalesce({r}.interval_log, [])"
    before = (f"CASE WHEN size({log}) = 0 AND {r}.invalidated_by IS NOT NULL AND {r}.expired_at IS NOT NULL "
              f"THEN [{entry(f'toString({r}.expired_at)', f'{r}.own_invalid_at', 'NULL')}] ELSE {log} END")
    return f"{before} + [{entry(f'${changed_at}', f'{r}.invalid_at', f'{r}.invalidated_by')}]"


def close_fact(closure: Closure, changed_at: datetime) -> Query:
    """`supersession.closed` in the store: the first closure keeps the fact's own end; the
    interval it replaces is logged as replaced at `changed_at` (a re-closure keeps the
    first closure's `expired_at`, so that is not the time of this change)."""
    return Query(
        "MATCH ()-[r:RELATES_TO {uuid: $uuid}]->() "
        f"SET r.interval_log = {logged_interval()} "
        "SET r.own_invalid_at = CASE WHEN r.invalidated_by IS NULL THEN r.invalid_at ELSE r.own_invalid_at END "
        "SET r.invalid_at = $invalid_at, r.invalidated_by = $by, r.expired_at = $expired_at",
        {
            "uuid": closure.uuid,
            "invalid_at": t.encode(closure.invalid_at),
            "by": closure.invalidated_by,
            "expired_at": t.encode(closure.expired_at),
            "changed_at": t.encode(changed_at),
        },
    )


def extend_fact(extension: Extension, changed_at: datetime) -> Query:
    """A bounded restatement ran past the fact's given end: the fact runs on to its end."""
    return Query(f"MATCH ()-[r:RELATES_TO {{uuid: $uuid}}]->() SET r.interval_log = {logged_interval()} "
                 "SET r.invalid_at = $invalid_at",
                 {"uuid": extension.uuid, "invalid_at": t.encode(extension.invalid_at),
                  "changed_at": t.encode(changed_at)})


_SAID = "coalesce(r.reference_time, r.created_at)"
_OWN_END = "CASE WHEN r.invalidated_by IS NULL THEN r.invalid_at ELSE r.own_invalid_at END"
# `FactEdge.order_key` of fact edge r: its start, else when it was said, or its own end when that came first
ORDER_KEY = (f"coalesce(r.valid_at, CASE WHEN {_OWN_END} IS NOT NULL AND {_OWN_END} < {_SAID} THEN {_OWN_END} "
             f"ELSE {_SAID} END)")


def merge_restatement(fact_uuid: str, episodes: Sequence[str], valid_at: datetime | None, changed_at: datetime) -> Query:
    """MERGE of a restated fact: add the new evidence; an earlier start moves the start back
    (`supersession.moves_start_back`: a fact without a start is where it was said), and the
    interval it replaces is logged."""
    earlier = f"$valid_at IS NOT NULL AND {ORDER_KEY} > $valid_at"
    return Query(
        "MATCH ()-[r:RELATES_TO {uuid: $uuid}]->() "
        f"SET r.interval_log = CASE WHEN {earlier} THEN {logged_interval()} ELSE r.interval_log END "
        "SET r.episodes = coalesce(r.episodes, []) + [x IN $episodes WHERE NOT x IN coalesce(r.episodes, [])], "
        f"r.valid_at = CASE WHEN {earlier} THEN $valid_at ELSE r.valid_at END",
        {"uuid": fact_uuid, "episodes": list(episodes), "valid_at": t.encode(valid_at),
         "changed_at": t.encode(changed_at)},
    )


def split_fact(split: Split, created_at: datetime) -> Query:
    """Copy a fact from `split.at` on, with the episodes that stated it then; the
    copy keeps the original's end and successor, the original keeps the rest
    (a closure then ends it). The copy is believed from `created_at` and keeps
    the original's access statistics."""
    return Query(
        "MATCH (s)-[g:RELATES_TO {uuid: $uuid}]->(o) CREATE (s)-[r:RELATES_TO]->(o) SET r = properties(g) "
        "SET r.uuid = $copy, r.valid_at = $at, r.created_at = $created_at, "
        "r.episodes = [x IN g.episodes WHERE x IN $moved] "
        f"SET g.episodes = [x IN g.episodes WHERE NOT x IN $moved] {_COPY_ACCESS}RETURN r.uuid AS uuid",
        {
            "uuid": split.uuid,
            "copy": split.copy_uuid,
            "at": t.encode(split.at),
            "created_at": t.encode(created_at),
            "moved": list(split.episodes),
        },
    )


def end_fact(fact_uuid: str, invalid_at: datetime, episodes: Sequence[str], changed_at: datetime) -> Query:
    """'No longer': the fact's validity ends; the ending turn becomes evidence too."""
    return Query(
        f"MATCH ()-[r:RELATES_TO {{uuid: $uuid}}]->() SET r.interval_log = {logged_interval()} "
        "SET r.invalid_at = $invalid_at, "
        "r.episodes = coalesce(r.episodes, []) + [x IN $episodes WHERE NOT x IN coalesce(r.episodes, [])]",
        {"uuid": fact_uuid, "invalid_at": t.encode(invalid_at), "episodes": list(episodes),
         "changed_at": t.encode(changed_at)},
    )


def facts_at(valid_at: datetime, known_at: datetime | None, subject_key: str | None = None) -> Query:
    """Facts true at `valid_at` as graphmem knew them at `known_at` (None = now),
    optionally only those whose subject has the normalised name `subject_key`."""
    params: dict[str, Any] = {"t": t.encode(valid_at)}
    match = "MATCH (s:Entity)-[r:RELATES_TO]->(o:Entity)"
    if subject_key is not None:
        match = "MATCH (s:Entity {normalized_name: $subject})-[r:RELATES_TO]->(o:Entity)"
        params["subject"] = subject_key
    if known_at is None:
        where = f"{t.true_at_cypher('r', 't')} AND NOT (toString(r.expired_at) IS NOT NULL AND r.invalidated_by IS NULL)"
    else:
        params["k"] = t.encode(known_at)
        where = (f"{t.known_at_cypher('r', 'k')} WITH s, r, o, {t.replaced_fields_cypher('r', 'k')} AS rf "
                 f"WHERE {t.true_at_cypher('r', 't', 'k', 'rf')}")
    return Query(f"{match} WHERE {where} RETURN {FACT_VIEW} ORDER BY r.valid_at, r.created_at", params)


def facts_by_uuid(uuids: Sequence[str]) -> Query:
    """No labels on the endpoints: with them FalkorDB scans every Entity and
    probes the edge index per node (50 ms at 30k facts); without, one index lookup."""
    return Query(
        f"MATCH (s)-[r:RELATES_TO]->(o) WHERE r.uuid IN $uuids RETURN {FACT_VIEW}",
        {"uuids": list(uuids)},
    )


def facts_from_subjects(pairs: Sequence[tuple[str, str]]) -> Query:
    """Facts whose subject has the normalised name and whose predicate is the name
    of each (subject_key, predicate) pair: the next step of a lookup chain
    (`retrieval.chains`), one query per hop for every chain at once."""
    return Query(
        "UNWIND $pairs AS p MATCH (s:Entity {normalized_name: p[0]})-[r:RELATES_TO {name: p[1]}]->(o:Entity) "
        f"RETURN {FACT_VIEW}",
        {"pairs": [[key, predicate] for key, predicate in pairs]},
    )


def facts_of_entity(entity_uuid: str) -> Query:
    """Facts where the entity is subject or object, oldest first."""
    return Query(
        f"MATCH (s:Entity)-[r:RELATES_TO]->(o:Entity) WHERE s.uuid = $uuid OR o.uuid = $uuid "
        f"RETURN {FACT_VIEW}",
        {"uuid": entity_uuid},
    )


def nearest_facts(vector: Sequence[float], k: int) -> Query:
    return Query(
        "CALL db.idx.vector.queryRelationships('RELATES_TO', 'fact_embedding', $k, vecf32($v)) "
        "YIELD relationship AS r, score WHERE r.expired_at IS NULL "
        "RETURN r.uuid AS uuid, r.fact AS fact, coalesce(r.scope, 'user') AS scope, 1.0 - score AS similarity",
        {"k": int(k), "v": vector_param(vector)},
    )


def nearest_facts_each(vectors: Sequence[Sequence[float]], k: int) -> Query:
    """`nearest_facts` for each vector in one round trip: rows carry `i`, the vector's index."""
    return Query(
        "UNWIND range(0, size($vs) - 1) AS i "
        "CALL db.idx.vector.queryRelationships('RELATES_TO', 'fact_embedding', $k, vecf32($vs[i])) "
        "YIELD relationship AS r, score WHERE r.expired_at IS NULL "
        "RETURN i, r.uuid AS uuid, r.fact AS fact, coalesce(r.scope, 'user') AS scope, 1.0 - score AS similarity",
        {"k": int(k), "vs": [vector_param(v) for v in vectors]},
    )


def fact_docs() -> Query:
    """Each fact's text plus its relation's words ("has pet", "works at"): a question
    may name the relation rather than repeat the sentence ("What pets do I have?"),
    and its scope (a search of some scopes indexes only theirs); its subject's key
    and relation, the pair `facts_from_subjects` looks up."""
    return Query(
        "MATCH (s:Entity)-[r:RELATES_TO]->(:Entity) "
        "RETURN r.uuid AS uuid, r.fact + ' ' + replace(toLower(r.name), '_', ' ') AS text, "
        "coalesce(r.scope, 'user') AS scope, s.normalized_name AS subject_key, r.name AS predicate",
        {},
    )


def vector_facts(vector: Sequence[float], k: int, scopes: Sequence[str] | None = None,
                 fetch: int | None = None) -> Query:
    """The `k` facts closest by cosine, of every scope or only of `scopes`.

    FalkorDB's vector index cannot filter while it searches. For `scopes`, either
    the index is asked for the nearest `fetch` and those of `scopes` kept (exact
    when `fetch` is `k` plus the number of facts outside them), or, with `fetch`
    None, every fact of `scopes` is scored (exact, linear in their number);
    `retrieval.scoped` picks the cheaper.
    """
    if scopes is None:
        return Query(
            "CALL db.idx.vector.queryRelationships('RELATES_TO', 'fact_embedding', $k, vecf32($v)) "
            "YIELD relationship AS r, score RETURN r.uuid AS uuid, 1.0 - score AS similarity",
            {"k": int(k), "v": vector_param(vector)},
        )
    params = {"k": int(k), "n": int(fetch or 0), "v": vector_param(vector), "scopes": list(scopes)}
    if fetch is not None:
        return Query(
            "CALL db.idx.vector.queryRelationships('RELATES_TO', 'fact_embedding', $n, vecf32($v)) "
            f"YIELD relationship AS r, score WITH r, score WHERE true{in_scopes('r', scopes)} "
            "RETURN r.uuid AS uuid, 1.0 - score AS similarity ORDER BY similarity DESC LIMIT $k", params)
    return Query(
        f"MATCH ()-[r:RELATES_TO]->() WHERE r.fact_embedding IS NOT NULL{in_scopes('r', scopes)} "
        "WITH r, vec.cosineDistance(r.fact_embedding, vecf32($v)) AS score "
        "RETURN r.uuid AS uuid, 1.0 - score AS similarity ORDER BY similarity DESC LIMIT $k", params)


def facts_near_entities(entity_uuids: Sequence[str], hops: int, limit: int,
                        scopes: Sequence[str] | None = None) -> Query:
    """Facts within `hops` (1 or 2) RELATES_TO steps of the entities, nearest first;
    with `scopes`, only steps over facts of those scopes."""
    if hops <= 1:
        cypher = (
            f"MATCH (a:Entity)-[r:RELATES_TO]-(:Entity) WHERE a.uuid IN $uuids{in_scopes('r', scopes)} "
            "RETURN DISTINCT r.uuid AS uuid, 1 AS distance LIMIT $limit"
        )
    else:
        cypher = (
            f"MATCH (a:Entity)-[r1:RELATES_TO]-(b:Entity) WHERE a.uuid IN $uuids{in_scopes('r1', scopes)} "
            "WITH collect(DISTINCT r1.uuid) AS near, collect(DISTINCT b) AS around "
            "UNWIND around AS b MATCH (b)-[r2:RELATES_TO]-(:Entity)"
            + (f" WHERE true{in_scopes('r2', scopes)}" if scopes is not None else "") + " "
            "WITH near, collect(DISTINCT r2.uuid) AS far "
            "UNWIND near + [x IN far WHERE NOT x IN near] AS uuid "
            "RETURN uuid, CASE WHEN uuid IN near THEN 1 ELSE 2 END AS distance LIMIT $limit"
        )
    params = {"uuids": list(entity_uuids), "limit": int(limit)}
    return Query(cypher, params if scopes is None else params | {"scopes": list(scopes)})


def touch_facts(uuids: Sequence[str], when: datetime) -> Query:
    """Access statistics for decay: one more hit, last accessed `when` (`uuids` distinct).

    Only facts still stored get a record: a fact forgotten between the search's
    read and this write leaves nothing behind. Returns `touched`, how many were
    found: none means they went, perhaps with the whole graph."""
    return Query(
        f"MATCH ()-[r:RELATES_TO]->() WHERE r.uuid IN $uuids WITH DISTINCT r.uuid AS u "
        f"MERGE (a:{ACCESS} {{uuid: u}}) ON CREATE SET a.access_count = 1, a.last_accessed_at = $at "
        "ON MATCH SET a.access_count = a.access_count + 1, a.last_accessed_at = $at RETURN count(u) AS touched",
        {"uuids": list(dict.fromkeys(uuids)), "at": t.encode(when)},
    )


def access_of(uuids: Sequence[str] | None = None) -> Query:
    """The access records of these facts (None: of every fact)."""
    where = "" if uuids is None else " WHERE a.uuid IN $uuids"
    return Query(
        f"MATCH (a:{ACCESS}){where} RETURN a.uuid AS uuid, a.access_count AS access_count, "
        "a.last_accessed_at AS last_accessed_at",
        {} if uuids is None else {"uuids": list(uuids)},
    )


def active_facts() -> Query:
    """Facts that count against the capacity: not archived, not expired."""
    return Query(
        "MATCH ()-[r:RELATES_TO]->() WHERE r.archived_at IS NULL AND r.expired_at IS NULL "
        "RETURN r.uuid AS uuid, coalesce(r.importance, 0.5) AS importance, coalesce(r.access_count, 0) AS access_count, "
        "r.last_accessed_at AS last_accessed_at, r.created_at AS created_at",
        {},
    )


def set_archived(uuids: Sequence[str], when: datetime | None) -> Query:
    """Archive (when set) or restore (None): archived facts stay, out of search."""
    return Query(
        "UNWIND $u AS x MATCH ()-[r:RELATES_TO {uuid: x}]->() SET r.archived_at = $at RETURN r.uuid AS uuid",
        {"u": list(uuids), "at": t.encode(when)},
    )


def unarchive(uuid: str) -> Query:
    """Restore one archived fact; no row when there is no such fact or it was never
    archived (then there is nothing to restore)."""
    return Query(
        "MATCH ()-[r:RELATES_TO {uuid: $u}]->() WHERE r.archived_at IS NOT NULL "
        "SET r.archived_at = NULL RETURN r.uuid AS uuid",
        {"u": uuid},
    )


# -- bulk (`graph.bulk_facts`): one query per kind of write, rows UNWIND'ed -------------


def facts_of_slots(pairs: Sequence[tuple[str, str]]) -> Query:
    """Every fact of each (subject uuid, slot) pair, whatever its status, with the pair it belongs to."""
    return Query(
        "UNWIND $pairs AS p MATCH (s:Entity {uuid: p[0]})-[r:RELATES_TO {slot: p[1]}]->(o:Entity) "
        f"RETURN p[0] AS slot_source, {FACT_VIEW}",
        {"pairs": [list(p) for p in pairs]},
    )


def create_facts(rows: Sequence[dict[str, Any]]) -> Query:
    """rows: {source, target, props, embedding}; one new edge each (`create_fact` in bulk)."""
    return Query(
        "UNWIND $rows AS row MATCH (s:Entity {uuid: row.source}), (o:Entity {uuid: row.target}) "
        "CREATE (s)-[r:RELATES_TO]->(o) SET r += row.props, r.fact_embedding = vecf32(row.embedding)",
        {"rows": vector_rows(rows)},
    )


def clone_facts(rows: Sequence[dict[str, Any]]) -> Query:
    """rows: {from, props}: a copy of stored fact `from` (same endpoints and embedding) with
    `props` over it, and its access statistics; the later part of a split (`split_fact` in bulk)."""
    return Query(
        "UNWIND $rows AS row MATCH (s)-[g:RELATES_TO {uuid: row.from}]->(o) "
        f"CREATE (s)-[r:RELATES_TO]->(o) SET r = properties(g) SET r += row.props {_COPY_ACCESS}",
        {"rows": list(rows)},
    )


def update_facts(rows: Sequence[dict[str, Any]]) -> Query:
    """rows: {uuid, props}: set the changed properties of stored facts (merges, splits, closures)."""
    return Query(
        "UNWIND $rows AS row MATCH ()-[r:RELATES_TO {uuid: row.uuid}]->() SET r += row.props",
        {"rows": list(rows)},
    )


def delete_extracted_facts() -> Query:
    """Drop the facts drawn from turns (the projection a rebuild re-derives). A fact
    stored before `origin` existed counts as extracted when it cites a turn."""
    return Query(
        "MATCH ()-[r:RELATES_TO]->() WHERE r.origin = 'extracted' "
        "OR (r.origin IS NULL AND size(coalesce(r.episodes, [])) > 0) DELETE r RETURN count(r) AS n",
        {},
    )


def delete_orphan_access() -> Query:
    """Erase access records whose fact is gone (after a bulk delete that does not list uuids)."""
    return Query(
        f"MATCH (a:{ACCESS}) OPTIONAL MATCH ()-[r:RELATES_TO {{uuid: a.uuid}}]->() WITH a, r WHERE r IS NULL "
        "DELETE a RETURN count(a) AS n",
        {},
    )
