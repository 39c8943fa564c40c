"""Hard deletion that follows derived memories and leaves no trace on disk.

    selector -> seeds -> cascade (pure) -> preview | intent -> delete -> compact -> audit

Cascade (`cascade`), decided on a snapshot of the graph:
- the turns that stated a matched fact go too (removed whole, not redacted:
  a turn's text cannot be half-forgotten reliably);
- a fact whose every source turn is gone goes;
- a fact derived from a deleted fact goes, transitively;
- an entity left with no fact and no mention goes;
- a surviving fact that a deleted fact had superseded is re-opened: its
  closure was an effect of the forgotten statement, so it goes with it
  ("forget that I moved to Shanghai" leaves Beijing as the current home); it
  gets back its own end, or ends where the next remaining fact of its slot
  starts (`supersession.plan_reopenings`), so no instant holds two values.
Then: surviving facts drop references to deleted turns, summaries of touched
entities are rebuilt, warm indexes, FalkorDB's query telemetry and LLM-cache
entries derived from the deleted turns, facts and names (and any unreadable
cache file) are dropped, the store is compacted (AOF rewrite +
snapshot) so the text is gone from the data files too, and an audit line
(selector kind, time, counts, a keyed hash of a text; never content) is appended.
A dry run stops after the preview.

Crash safety: the decided deletion is recorded as an intent (uuids only, see
`forget_journal`) before the first write and removed after the audit line; every
step after it is idempotent, so `recover` finishes an interrupted forget by
running `finish` again on the next open.
"""

from __future__ import annotations

import bisect
import hashlib
import logging
import re
import time
import uuid
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict

from graphmem.forgetting import journal
from graphmem.graph.cypher import candidates as gq
from graphmem.graph.cypher import communities as cq
from graphmem.graph.cypher import forgetting as fq
from graphmem.graph import cypher as q
from graphmem.schema.errors import GraphMemError
from graphmem.graph.llm_cache import LLMCache
from graphmem.graph.inspect import Inspector
from graphmem.schema.errors import InvalidInput, StoreError
from graphmem.schema import time as t
from graphmem.schema.models import FactEdge, normalize_name
from graphmem.schema.supersession import Reopening, plan_reopenings
from graphmem.graph.fact_repository import edge_from_row
from graphmem.graph.store import Store
from graphmem.parsing.text import check_name, clean_text

log = logging.getLogger("graphmem.forgetting.pipeline")

SELECTOR_KEYS = ("fact", "entity", "session_id", "text", "between", "all")
MAX_SELECTOR_TEXT = 1_000


class Selector(BaseModel):
    model_config = ConfigDict(frozen=True)

    kind: str
    value: Any = None


class ForgetReport(BaseModel):
    """What was (or, for a dry run, would be) removed."""

    model_config = ConfigDict(frozen=True)

    selector: str
    dry_run: bool
    facts: tuple[str, ...] = ()
    episodes: tuple[str, ...] = ()
    turn_ids: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()
    facts_reopened: tuple[str, ...] = ()
    facts_deleted: int = 0
    episodes_deleted: int = 0
    entities_deleted: int = 0
    cache_entries_deleted: int = 0
    compacted: bool = False
    seconds: float = 0.0


def parse_selector(selector: object, *, confirm: bool) -> Selector:
    """Exactly one known key with a usable value; `{"all": true}` needs confirm.

    Text follows `graphmem.parsing.text`: a "text" selector loses control characters
    as stored turns did; a fact uuid, entity name or session id holding one, or
    any lone surrogate, is refused.
    """
    if not isinstance(selector, dict) or len(selector) != 1:
        raise InvalidInput(f"selector must be an object with exactly one of {list(SELECTOR_KEYS)}")
    [(kind, value)] = selector.items()
    if kind not in SELECTOR_KEYS:
        raise InvalidInput(f"unknown selector {kind!r}; use one of {list(SELECTOR_KEYS)}")
    if kind == "all":
        if value is not True:
            raise InvalidInput('{"all": true} is the only form of the all selector')
        if not confirm:
            raise InvalidInput('{"all": true} deletes the whole memory; pass confirm=True to do it')
        return Selector(kind=kind, value=True)
    if kind == "between":
        if not isinstance(value, (list, tuple)) or len(value) != 2:
            raise InvalidInput('"between" takes [start, end]')
        start, end = (t.to_utc(v, field="between") for v in value)
        if end <= start:
            raise InvalidInput('"between" end must be later than its start')
        return Selector(kind=kind, value=(start, end))
    if kind == "text":
        return Selector(kind=kind, value=clean_text(value, '"text"', MAX_SELECTOR_TEXT))
    return Selector(kind=kind, value=check_name(value, f'"{kind}"', MAX_SELECTOR_TEXT))


def seeds(store: Store, user_id: str, selector: Selector) -> tuple[set[str], set[str], set[str]]:
    """(fact uuids, episode uuids, entity uuids) the selector names directly."""
    run = lambda query: store.run(user_id, query, read_only=True)  # noqa: E731
    if selector.kind == "fact":
        return {r["uuid"] for r in run(fq.fact_exists(selector.value))}, set(), set()
    if selector.kind == "session_id":
        return set(), {r["uuid"] for r in run(fq.session_episodes(selector.value))}, set()
    if selector.kind == "between":
        start, end = selector.value
        return set(), {r["uuid"] for r in run(fq.episodes_between(t.encode(start), t.encode(end)))}, set()
    if selector.kind == "all":
        rows = run(fq.all_seeds())
        return tuple({r["uuid"] for r in rows if r["kind"] == kind} for kind in ("fact", "episode", "entity"))
    if selector.kind == "entity":
        found = run(fq.entity_named(selector.value, normalize_name(selector.value)))
        entities = {r["uuid"] for r in found}
    else:  # text
        needle = selector.value
        entities = {r["uuid"] for r in run(fq.entities_containing(needle)) if has_words(r["name"], needle)}
    facts = {r["uuid"] for r in run(fq.facts_touching(sorted(entities)))} if entities else set()
    episodes = {r["uuid"] for r in run(fq.episodes_mentioning_all(sorted(entities)))} if entities else set()
    if selector.kind == "text":
        facts |= {r["uuid"] for r in run(fq.facts_containing(needle)) if has_words(r["fact"], needle)}
        episodes |= {r["uuid"] for r in run(fq.episodes_containing(needle)) if has_words(r["content"], needle)}
    elif entities:
        episodes |= naming_episodes(store, user_id, entities)
    return facts, episodes, entities


def has_words(text: str | None, needle: str) -> bool:
    """`needle` occurs in `text` as whole words, in any case: "a" must not match every
    turn with the letter a. Cypher's CONTAINS narrows (on `toLower`); this decides, and
    accepts what either lower-casing or case-folding matches, so it never refuses a text
    the narrowing let through."""
    if not text:
        return False
    return any(re.search(r"(?<!\w)" + re.escape(fold(needle)) + r"(?!\w)", fold(text)) is not None
               for fold in (str.lower, str.casefold, _simple_lower))


def _simple_lower(text: str) -> str:
    """Lower-cased as Cypher's toLower does it, one character for one: "İ" is "i", where Python
    writes "i" and a combining dot, so "İstanbul" never matched "Istanbul" after the store had
    found the turn."""
    return text.lower().replace("i\u0307", "i")


def naming_episodes(store: Store, user_id: str, entities: set[str]) -> set[str]:
    """Turns that name the entity as a whole word, linked by extraction or not
    ("Coldplay played Yellow" names Coldplay even if no fact was extracted)."""
    found: set[str] = set()
    for row in store.run(user_id, fq.entity_names(sorted(entities)), read_only=True):
        for name in {row["name"], *row["aliases"]}:
            if len(name.strip()) < 2:
                continue
            for hit in store.run(user_id, fq.episodes_containing(name.strip()), read_only=True):
                if has_words(hit["content"], name.strip()):
                    found.add(hit["uuid"])
    return found


def cascade(
    facts: dict[str, dict], seed_facts: set[str], seed_episodes: set[str]
) -> tuple[set[str], set[str], set[str]]:
    """Pure closure: (facts to delete, episodes to delete, facts to re-open).

    `facts`: uuid -> {"episodes": [...], "derived_from": [...], "invalidated_by": uuid|None}.
    """
    episodes = set(seed_episodes)
    for uuid in seed_facts:
        episodes |= set(facts.get(uuid, {}).get("episodes") or ())
    doomed = set(seed_facts)
    changed = True
    while changed:
        changed = False
        for uuid, row in facts.items():
            if uuid in doomed:
                continue
            sources = set(row.get("episodes") or ())
            orphaned = bool(sources) and sources <= episodes
            derived = bool(set(row.get("derived_from") or ()) & doomed)
            if orphaned or derived:
                doomed.add(uuid)
                changed = True
    reopen = {u for u, row in facts.items() if u not in doomed and row.get("invalidated_by") in doomed}
    return doomed, episodes, reopen


def orphans(store: Store, user_id: str, facts: set[str], episodes: set[str], named: set[str]) -> dict[str, str]:
    """Entities (uuid -> name) left with no fact and no mention, plus those named."""
    touched = store.run(user_id, fq.entities_around(sorted(facts), sorted(episodes)), read_only=True)
    candidates = {r["uuid"] for r in touched} | named
    rows = store.run(user_id, fq.entity_degrees(sorted(candidates)), read_only=True)
    return {
        r["uuid"]: r["name"]
        for r in rows
        if r["uuid"] in named or (set(r["facts"]) <= facts and set(r["mentions"]) <= episodes)
    }


def _stale_aof_files(data_dir: Path) -> list[Path]:
    """AOF files the manifest no longer lists (redis deletes them in the background)."""
    aof_dir = data_dir / "appendonlydir"
    manifest = aof_dir / "appendonly.aof.manifest"
    if not manifest.exists():
        return []
    listed = {line.split()[1] for line in manifest.read_text().splitlines() if line.startswith("file ")}
    return [p for p in aof_dir.iterdir() if p.name != manifest.name and p.name not in listed]


TEMP_SNAPSHOT = re.compile(r"temp-(?:rewriteaof-)?(?:bg-)?(\d+)\.(?:aof|rdb)")


def _remove_orphaned_snapshots(data_dir: Path) -> list[Path]:
    """Delete the temp snapshots a killed server's rewrite or save left behind.

    A rewrite child outlives its killed server, finishes its temp file, and
    nothing ever renames or removes it: a full copy of the data, maybe from
    before a deletion. Files whose writer is still alive are left alone.
    """
    removed = []
    for path in [*data_dir.glob("temp-*"), *(data_dir / "appendonlydir").glob("temp-*")]:
        match = TEMP_SNAPSHOT.fullmatch(path.name)
        if match and not _alive(int(match.group(1))):
            path.unlink(missing_ok=True)
            removed.append(path)
    return removed


def _alive(pid: int) -> bool:
    import psutil

    try:
        return psutil.Process(pid).status() not in (psutil.STATUS_ZOMBIE, psutil.STATUS_DEAD)
    except psutil.Error:
        return False


def compact(store: Store, data_dir: Path | None = None, timeout_s: float = 60.0) -> None:
    """Rewrite the AOF and take a snapshot, so deleted text leaves the data files.

    With the data directory at hand (embedded mode), also wait until redis has
    removed the superseded AOF files, which it does in a background thread, and
    remove temp snapshots orphaned by a killed server.
    """
    store.execute("BGREWRITEAOF")
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        info = store.execute("INFO", "persistence")
        info = info if isinstance(info, dict) else _parse_info(info)
        if not int(info.get("aof_rewrite_in_progress", 0)) and not int(info.get("aof_rewrite_scheduled", 0)):
            break
        time.sleep(0.05)
    else:
        raise StoreError("AOF rewrite did not finish in time; forgotten text may remain on disk")
    store.execute("SAVE")
    while data_dir is not None and _stale_aof_files(data_dir):
        if time.monotonic() > deadline:
            raise StoreError("old AOF files were not removed in time; forgotten text may remain on disk")
        time.sleep(0.05)
    if data_dir is not None:
        _remove_orphaned_snapshots(data_dir)


def _parse_info(text: Any) -> dict[str, str]:
    if isinstance(text, bytes):
        text = text.decode()
    return dict(line.split(":", 1) for line in str(text).splitlines() if ":" in line)


class Plan(BaseModel):
    """A computed cascade, with the turns' text (kept in memory, never in the intent)."""

    model_config = ConfigDict(frozen=True)

    facts: tuple[str, ...] = ()
    episodes: tuple[str, ...] = ()
    reopen: tuple[str, ...] = ()
    entities: dict[str, str] = {}
    turns: tuple[tuple[str, str], ...] = ()
    derived_texts: tuple[str, ...] = ()  # deleted facts' text, deleted entities' names and aliases

    @property
    def empty(self) -> bool:
        return not (self.facts or self.episodes or self.entities)


class Indexes(Protocol):
    def drop(self, user_id: str) -> None: ...


def plan(store: Store, user_id: str, selector: Selector) -> Plan:
    """Seeds -> cascade -> orphans, read-only: what this selector would delete now."""
    seed_facts, seed_episodes, named = seeds(store, user_id, selector)
    table = {r["uuid"]: r for r in store.run(user_id, fq.fact_table(), read_only=True)}
    doomed, episodes, reopen = cascade(table, seed_facts, seed_episodes)
    entities = orphans(store, user_id, doomed, episodes, named)
    turns = store.run(user_id, fq.episode_turns(sorted(episodes)), read_only=True) if episodes else []
    return Plan(
        facts=tuple(sorted(doomed)), episodes=tuple(sorted(episodes)), reopen=tuple(sorted(reopen)),
        entities=entities, turns=tuple(sorted((r["turn_id"], r["content"]) for r in turns)),
        derived_texts=_derived_texts(store, user_id, doomed, set(entities)),
    )


def _derived_texts(store: Store, user_id: str, facts: set[str], entities: set[str]) -> tuple[str, ...]:
    """The texts LLM-cache entries may be keyed by besides the turns: deleted facts and names."""
    if not (facts or entities):
        return ()
    inspector = Inspector(store)
    texts = {f.fact for f in inspector.facts(user_id) if f.uuid in facts}
    texts |= {name for e in inspector.entities(user_id) if e.uuid in entities for name in (e.name, *e.aliases)}
    return tuple(sorted(texts))


def preview(selector: Selector, chosen: Plan, *, dry_run: bool) -> ForgetReport:
    return ForgetReport(
        selector=selector.kind, dry_run=dry_run, facts=chosen.facts, episodes=chosen.episodes,
        turn_ids=tuple(turn_id for turn_id, _ in chosen.turns), entities=tuple(sorted(chosen.entities.values())),
        facts_reopened=chosen.reopen, facts_deleted=len(chosen.facts), episodes_deleted=len(chosen.episodes),
        entities_deleted=len(chosen.entities),
    )


def store_identity(store: Store) -> str:
    """Which database an intent belongs to (a server URL is hashed: it may hold a password)."""
    return "embedded" if store.embedded else "server:" + hashlib.sha256(store.url.encode()).hexdigest()[:16]


def audit_value(data_dir: Path, selector: Selector) -> object:
    """What the audit line may say about the selector: caller-chosen strings (a text,
    a name, a session id such as "beijing") keyed-hashed, fact uuids as they are."""
    if selector.kind in ("text", "entity", "session_id"):
        return journal.keyed_hash(data_dir, str(selector.value))
    if selector.kind == "between":
        return [t.encode(v) for v in selector.value]
    return selector.value


def cache_keys(cache: LLMCache | None, texts: list[str]) -> tuple[str, ...]:
    """Keys of the LLM-cache entries built from any of these texts, directly or
    through another entry's answer (see `LLMCache.derived_from`)."""
    if cache is None or not texts:
        return ()
    return cache.derived_from(texts)


def intent_for(store: Store, user_id: str, selector: Selector, chosen: Plan, *, data_dir: Path,
               cache: LLMCache | None) -> journal.Intent:
    return journal.Intent(
        id=uuid.uuid4().hex, store=store_identity(store), user_id=user_id, selector=selector.kind,
        audit_value=audit_value(data_dir, selector), created_at=t.now_utc(), facts=chosen.facts,
        episodes=chosen.episodes, reopen=chosen.reopen, entities=tuple(sorted(chosen.entities)),
        drop_graph=selector.kind == "all", cache_dir=str(cache.directory) if cache is not None else None,
        cache_keys=cache_keys(cache, [content for _, content in chosen.turns] + list(chosen.derived_texts)),
    )


def run(store: Store, user_id: str, selector: Selector, *, data_dir: Path, dry_run: bool = False,
        cache: LLMCache | None = None, indexes: Indexes | None = None) -> ForgetReport:
    """The whole hard delete for one (validated) user and selector.

    plan -> intent (fsynced) -> delete -> caches -> compact -> audit -> intent removed.
    `{"all": true}` drops the graph even when it holds nothing, so a user's
    graph never outlives its erasure.
    """
    clock = time.perf_counter()
    with store.locked_graph(user_id) as present:
        if not present:
            return ForgetReport(selector=selector.kind, dry_run=dry_run)
        chosen = plan(store, user_id, selector)
        report = preview(selector, chosen, dry_run=dry_run)
        if dry_run or (chosen.empty and selector.kind != "all"):
            return report.model_copy(update={"seconds": time.perf_counter() - clock})
        intent = intent_for(store, user_id, selector, chosen, data_dir=data_dir, cache=cache)
        with journal.recorded(data_dir, intent):
            removed = finish(store, intent, data_dir=data_dir, indexes=indexes)
    return report.model_copy(
        update={"cache_entries_deleted": removed, "compacted": True, "seconds": time.perf_counter() - clock}
    )


def _step(intent: journal.Intent, name: str) -> None:
    """Named points of a forget, logged; crash tests stop a child at them."""
    log.debug("forget %s: %s", intent.id, name)


def finish(store: Store, intent: journal.Intent, *, data_dir: Path, indexes: Indexes | None = None,
           recovered: bool = False) -> int:
    """Carry out a recorded intent; returns the LLM-cache entries removed.

    Every step is idempotent (deleting what is gone is a no-op), so an intent
    interrupted anywhere is finished by running this again.
    """
    _step(intent, "intent")
    if intent.drop_graph:
        store.drop(intent.user_id)
    elif store.has_graph(intent.user_id):
        apply(store, intent)
    store.clear_telemetry(intent.user_id)
    if indexes is not None:
        indexes.drop(intent.user_id)
    removed = _clear_cache(intent)
    _step(intent, "compacting")
    compact(store, data_dir if store.embedded else None)
    _step(intent, "compacted")
    journal.append_audit(data_dir, {
        "id": intent.id, "at": t.encode(t.now_utc()), "user": intent.user_id, "selector": intent.selector,
        "value": intent.audit_value, "facts": len(intent.facts), "episodes": len(intent.episodes),
        "entities": len(intent.entities), "recovered": recovered,
    })
    _step(intent, "audited")
    return removed


def apply(store: Store, intent: journal.Intent) -> None:
    """The graph writes of an intent, in an order that is safe to repeat from any point."""
    run_query = lambda query: store.run(intent.user_id, query)  # noqa: E731
    run_query(cq.delete_communities())  # derived, and labelled with entity names
    gone = set(intent.facts)
    if intent.reopen:
        reopenings, logs = plan_reopening(store, intent.user_id, intent.reopen, gone)
        if reopenings:
            run_query(fq.reopen(reopenings, logs))
    if intent.facts:
        scrubbed = [{"uuid": row["uuid"], "log": t.scrub_log(row["log"], gone, reopened=False)}
                    for row in run_query(fq.logs_naming(intent.facts))]
        if scrubbed:
            run_query(fq.set_logs(scrubbed))
    if intent.facts or intent.episodes:
        run_query(fq.strip_references(intent.facts, intent.episodes))
    if intent.facts:
        run_query(fq.delete_facts(intent.facts))
        _step(intent, "facts_deleted")
    if intent.episodes:
        run_query(gq.delete_candidates_of(intent.episodes))
        run_query(fq.delete_episodes(intent.episodes))
        _step(intent, "episodes_deleted")
    if intent.entities:
        run_query(fq.delete_entities(intent.entities))
    run_query(q.rebuild_summaries())
    run_query(q.bump_version())


def plan_reopening(store: Store, user_id: str, reopen: Sequence[str], gone: set[str]
                   ) -> tuple[list[Reopening], dict[str, list[str]]]:
    """Read the slots of the facts to re-open and place them among what remains; with each
    one's `interval_log` as if the gone facts had never been said (`time.scrub_log`)."""
    rows = store.run(user_id, fq.slots_of(sorted(reopen)), read_only=True)
    slots = sorted({(row["source"], row["slot"]) for row in rows})
    by_slot: dict[tuple[str, str], list] = {}
    for row in store.run(user_id, q.facts_of_slots(slots), read_only=True) if slots else ():
        by_slot.setdefault((row["slot_source"], row["slot"]), []).append(edge_from_row(row))
    reopenings = [r for slot in by_slot.values() for r in plan_reopenings(slot, gone)]
    facts = {e.uuid: e for slot in by_slot.values() for e in slot}
    return reopenings, {r.uuid: reopened_log(facts[r.uuid], r, gone) for r in reopenings}


def reopened_log(fact: FactEdge, reopening: Reopening, gone: set[str]) -> list[str]:
    """`fact`'s log without the gone facts (`time.scrub_log`), and, when a kept fact closes it
    now, that closure in its place by time: before it the fact had its own end, so *known at
    K* before the closure does not read it (a log that is not empty has no other rule for it)."""
    log = t.scrub_log(fact.interval_log, gone, reopened=True)
    if reopening.invalidated_by is not None and reopening.expired_at is not None:
        bisect.insort(log, t.log_entry(reopening.expired_at, fact.valid_at, reopening.own_invalid_at))
    return log


def purge(store: Store, user_id: str, moment: datetime) -> int:
    """Delete the facts whose expiry passed at `moment`; how many were.

    Entities left with no fact and no mention go too, and the summaries of the
    subjects of purged facts are rebuilt, so no expired text lives on in
    `Entity.summary` or a name. The caller holds the user lock.
    """
    rows = store.run(user_id, fq.expired_facts(t.encode(moment)))
    if not rows:
        return 0
    due = {r["uuid"] for r in rows}
    gone = orphans(store, user_id, due, set(), set())
    store.run(user_id, fq.delete_facts(sorted(due)))
    store.run(user_id, cq.delete_communities())
    if gone:
        store.run(user_id, fq.delete_entities(sorted(gone)))
    subjects = sorted({r["subject"] for r in rows} - set(gone))
    store.run(user_id, q.rebuild_summaries(subjects, now=moment))
    store.run(user_id, q.bump_version())
    return len(due)


def _clear_cache(intent: journal.Intent) -> int:
    """Delete the intent's cache entries and every unreadable file (it may hold anything)."""
    if not intent.cache_dir:
        return 0
    cache = LLMCache(intent.cache_dir)
    return sum(cache.delete(k) for k in intent.cache_keys) + cache.remove_unreadable()


def recover(store: Store, data_dir: Path) -> list[journal.Intent]:
    """Finish the forgets a crashed process left behind; returns those finished.

    One that a live process still holds, or that fails again, stays pending
    (see `pending`) and is logged.
    """
    journal.remove_stale_temps(data_dir)
    done = []
    for intent in journal.pending(data_dir, store_identity(store)):
        try:
            with journal.claimed(data_dir, intent) as claim:
                if claim is None:
                    log.warning("forget %s of user %r is still running in another process", intent.id, intent.user_id)
                    continue
                log.warning("finishing an interrupted forget %s (%s) of user %r",
                            intent.id, intent.selector, intent.user_id)
                with store.user_lock(intent.user_id):
                    finish(store, intent, data_dir=data_dir, recovered=True)
            done.append(intent)
        except GraphMemError as exc:
            log.error("interrupted forget %s of user %r is still pending: %s", intent.id, intent.user_id, exc)
    return done


def pending(store: Store, data_dir: Path) -> list[journal.Intent]:
    return journal.pending(data_dir, store_identity(store))
