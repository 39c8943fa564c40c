"""Cypher builders for forgetting; pure, every value a parameter (see queries.py)."""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from functools import lru_cache

from graphmem.graph.cypher import Query
from graphmem.schema import time as t
from graphmem.schema.supersession import Reopening
from graphmem.graph.cypher.facts import ACCESS


def fact_exists(uuid: str) -> Query:
    return Query("MATCH ()-[r:RELATES_TO {uuid: $u}]->() RETURN r.uuid AS uuid", {"u": uuid})


def session_episodes(session_id: str) -> Query:
    return Query("MATCH (e:Episodic {session_id: $s}) RETURN e.uuid AS uuid", {"s": session_id})


def episodes_between(start: str, end: str) -> Query:
    return Query(
        "MATCH (e:Episodic) WHERE toString(e.valid_at) >= $start AND toString(e.valid_at) < $end RETURN e.uuid AS uuid",
        {"start": start, "end": end},
    )


def entity_named(name_or_uuid: str, key: str) -> Query:
    return Query(
        "MATCH (n:Entity) WHERE n.uuid = $v OR n.normalized_name = $k OR $k IN coalesce(n.aliases, []) "
        "RETURN n.uuid AS uuid",
        {"v": name_or_uuid, "k": key},
    )


@lru_cache(maxsize=1)
def _folded_runs() -> tuple[str, ...]:
    """Each string case folding makes of one character that it turns into several ("ss" of
    "ß" and "ẞ", "fi" of "ﬁ"), longest first."""
    runs = {folded for code in range(sys.maxunicode + 1) if len(folded := chr(code).casefold()) > 1}
    return tuple(sorted(runs, key=len, reverse=True))


def spellings(needle: str) -> list[str]:
    """The needle as typed, lower-cased and case-folded, for the *_containing queries to lower
    again with Cypher's toLower: neither Python lowering is Cypher's ("Hauptstraße" folds to
    "hauptstrasse"; toLower makes "ΣΩΚΡΆΤΗΣ" end in "σ" where Python writes the final "ς"), and
    a needle lowered one way only once narrowed to nothing. Cypher cannot fold, so when the
    folded needle holds a run one character folds into ("STRASSE" is also "straße"), the
    longest part of it without such a run is looked for too, and `has_words` decides on the
    folded forms (before, spelling each run every way made too many forms to send)."""
    found = {needle, needle.lower(), needle.casefold()}
    folded = needle.casefold()
    runs = [run for run in _folded_runs() if run in folded]
    if runs:
        found.add(max(re.split("|".join(map(re.escape, runs)), folded), key=len))
    return sorted(found)


def entities_containing(needle: str) -> Query:
    return Query(
        "MATCH (n:Entity) WHERE any(t IN $t WHERE toLower(n.name) CONTAINS toLower(t)) RETURN n.uuid AS uuid, n.name AS name",
        {"t": spellings(needle)},
    )


def facts_touching(entity_uuids: Sequence[str]) -> Query:
    return Query(
        "MATCH (a:Entity)-[r:RELATES_TO]-() WHERE a.uuid IN $u RETURN DISTINCT r.uuid AS uuid",
        {"u": list(entity_uuids)},
    )


def episodes_mentioning_all(entity_uuids: Sequence[str]) -> Query:
    return Query(
        "MATCH (e:Episodic)-[:MENTIONS]->(n:Entity) WHERE n.uuid IN $u RETURN DISTINCT e.uuid AS uuid",
        {"u": list(entity_uuids)},
    )


def facts_containing(needle: str) -> Query:
    return Query(
        "MATCH ()-[r:RELATES_TO]->() WHERE any(t IN $t WHERE toLower(r.fact) CONTAINS toLower(t)) "
        "RETURN r.uuid AS uuid, r.fact AS fact",
        {"t": spellings(needle)},
    )


def episodes_containing(needle: str) -> Query:
    return Query(
        "MATCH (e:Episodic) WHERE any(t IN $t WHERE toLower(e.content) CONTAINS toLower(t)) RETURN e.uuid AS uuid, e.content AS content",
        {"t": spellings(needle)},
    )


def entity_names(uuids: Sequence[str]) -> Query:
    return Query(
        "MATCH (n:Entity) WHERE n.uuid IN $u RETURN n.name AS name, coalesce(n.aliases, []) AS aliases",
        {"u": list(uuids)},
    )


def fact_table() -> Query:
    """What the cascade needs of every fact: sources, derivations, successor."""
    return Query(
        "MATCH ()-[r:RELATES_TO]->() RETURN r.uuid AS uuid, coalesce(r.episodes, []) AS episodes, "
        "coalesce(r.derived_from, []) AS derived_from, r.invalidated_by AS invalidated_by",
        {},
    )


def episode_turns(uuids: Sequence[str]) -> Query:
    return Query(
        "MATCH (e:Episodic) WHERE e.uuid IN $u RETURN e.uuid AS uuid, e.name AS turn_id, e.content AS content",
        {"u": list(uuids)},
    )


def entities_around(fact_uuids: Sequence[str], episode_uuids: Sequence[str]) -> Query:
    """Ends of these facts and entities these turns mention. Two directed matches:
    an undirected one filtered on the edge returns only its source here."""
    return Query(
        "CALL { MATCH (n:Entity)-[r:RELATES_TO]->() WHERE r.uuid IN $f RETURN n "
        "UNION MATCH ()-[r:RELATES_TO]->(n:Entity) WHERE r.uuid IN $f RETURN n "
        "UNION MATCH (e:Episodic)-[:MENTIONS]->(n:Entity) WHERE e.uuid IN $e RETURN n } "
        "RETURN DISTINCT n.uuid AS uuid",
        {"f": list(fact_uuids), "e": list(episode_uuids)},
    )


def entity_degrees(entity_uuids: Sequence[str]) -> Query:
    return Query(
        "MATCH (n:Entity) WHERE n.uuid IN $u "
        "OPTIONAL MATCH (n)-[r:RELATES_TO]-() WITH n, collect(DISTINCT r.uuid) AS facts "
        "OPTIONAL MATCH (e:Episodic)-[:MENTIONS]->(n) "
        "RETURN n.uuid AS uuid, n.name AS name, facts, collect(DISTINCT e.uuid) AS mentions",
        {"u": list(entity_uuids)},
    )


def reopen(reopenings: Sequence[Reopening], logs: dict[str, list[str]]) -> Query:
    """The fact that closed these is being deleted, and so is its effect
    (`supersession.plan_reopenings`); `logs`: each one's `interval_log` without it
    (`time.scrub_log`)."""
    rows = [{"uuid": r.uuid, "invalid_at": t.encode(r.invalid_at), "by": r.invalidated_by,
             "expired_at": t.encode(r.expired_at), "own": t.encode(r.own_invalid_at),
             "log": logs.get(r.uuid, [])} for r in reopenings]
    return Query(
        "UNWIND $rows AS x MATCH ()-[r:RELATES_TO {uuid: x.uuid}]->() "
        "SET r.invalid_at = x.invalid_at, r.invalidated_by = x.by, r.expired_at = x.expired_at, "
        "r.own_invalid_at = x.own, r.interval_log = x.log",
        {"rows": rows},
    )


def logs_naming(fact_uuids: Sequence[str]) -> Query:
    """The `interval_log` of every other fact with an entry recorded while one of these closed it."""
    return Query(
        "MATCH ()-[r:RELATES_TO]->() WHERE NOT r.uuid IN $f "
        f"AND any(x IN coalesce(r.interval_log, []) WHERE split(x, '{t.LOG_SEPARATOR}')[3] IN $f) "
        "RETURN r.uuid AS uuid, r.interval_log AS log",
        {"f": list(fact_uuids)},
    )


def set_logs(rows: Sequence[dict]) -> Query:
    """rows: {uuid, log}."""
    return Query("UNWIND $rows AS x MATCH ()-[r:RELATES_TO {uuid: x.uuid}]->() SET r.interval_log = x.log",
                 {"rows": list(rows)})


def slots_of(uuids: Sequence[str]) -> Query:
    """The (subject uuid, slot) of each of these facts."""
    return Query(
        "MATCH (s)-[r:RELATES_TO]->() WHERE r.uuid IN $u RETURN DISTINCT s.uuid AS source, r.slot AS slot",
        {"u": list(uuids)},
    )


def strip_references(fact_uuids: Sequence[str], episode_uuids: Sequence[str]) -> Query:
    return Query(
        "MATCH ()-[r:RELATES_TO]->() WHERE any(x IN coalesce(r.episodes, []) WHERE x IN $e) "
        "OR any(x IN coalesce(r.derived_from, []) WHERE x IN $f) "
        "SET r.episodes = [x IN coalesce(r.episodes, []) WHERE NOT x IN $e], "
        "r.derived_from = [x IN coalesce(r.derived_from, []) WHERE NOT x IN $f]",
        {"f": list(fact_uuids), "e": list(episode_uuids)},
    )


def delete_facts(uuids: Sequence[str]) -> Query:
    """The facts and their access records (`cypher.facts.ACCESS`)."""
    return Query(
        f"UNWIND $u AS x OPTIONAL MATCH ()-[r:RELATES_TO {{uuid: x}}]->() OPTIONAL MATCH (a:{ACCESS} {{uuid: x}}) "
        "DELETE r, a",
        {"u": list(uuids)},
    )


def delete_episodes(uuids: Sequence[str]) -> Query:
    return Query("MATCH (e:Episodic) WHERE e.uuid IN $u DETACH DELETE e", {"u": list(uuids)})


def delete_entities(uuids: Sequence[str]) -> Query:
    return Query("MATCH (n:Entity) WHERE n.uuid IN $u DETACH DELETE n", {"u": list(uuids)})


def all_seeds() -> Query:
    return Query(
        "CALL { MATCH ()-[r:RELATES_TO]->() RETURN r.uuid AS uuid, 'fact' AS kind "
        "UNION MATCH (e:Episodic) RETURN e.uuid AS uuid, 'episode' AS kind "
        "UNION MATCH (n:Entity) RETURN n.uuid AS uuid, 'entity' AS kind } RETURN uuid, kind",
        {},
    )


def expired_facts(now: str) -> Query:
    return Query(
        "MATCH (s)-[r:RELATES_TO]->() WHERE toString(r.expires_at) <= $now RETURN r.uuid AS uuid, s.uuid AS subject",
        {"now": now},
    )
