"""Hard deletion that follows derived memories and leaves no trace on disk.

    selector -> seed facts and turns -> cascade (pure) -> preview | delete -> compact

Cascade (`cascade`), decided on a snapshot of the graph:
- the turns that stated a matched fact go too (removed whole, not redacted:
  a turn's text cannot be half-forgotten reliably);
- a fact whose every source turn is gone goes;
- a fact derived from a deleted fact goes, transitively;
- an entity left with no fact and no mention goes;
- a surviving fact that a deleted fact had superseded is re-opened: its
  closure was an effect of the forgotten statement, so it goes with it
  ("forget that I moved to Shanghai" leaves Beijing as the current home).
Then: surviving facts drop references to deleted turns, summaries of touched
entities are rebuilt, warm indexes and LLM-cache entries for the deleted turns
are dropped, an audit line (selector kind, time, counts; never content) is
appended, and the store is compacted (AOF rewrite + snapshot) so the text is
gone from the data files too. A dry run stops after the preview.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from graphmem import forget_queries as fq
from graphmem import queries as q
from graphmem.errors import InvalidInput, StoreError
from graphmem.schema import time as t
from graphmem.schema.models import normalize_name
from graphmem.store import Store

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
    """Exactly one known key with a usable value; `{"all": true}` needs confirm."""
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
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput(f'"{kind}" needs a non-empty string')
    if len(value) > MAX_SELECTOR_TEXT:
        raise InvalidInput(f'"{kind}" is longer than {MAX_SELECTOR_TEXT} characters')
    return Selector(kind=kind, value=value.strip())


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
        needle = selector.value.casefold()
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
    """`needle` (casefolded) occurs in `text` as whole words: "a" must not match
    every turn with the letter a. Cypher's CONTAINS narrows; this decides."""
    pattern = r"(?<!\w)" + re.escape(needle) + r"(?!\w)"
    return bool(text) and re.search(pattern, text.casefold()) is not None


def naming_episodes(store: Store, user_id: str, entities: set[str]) -> set[str]:
    """Turns that name the entity as a whole word, linked by extraction or not
    ("Coldplay played Yellow" names Coldplay even if no fact was extracted)."""
    found: set[str] = set()
    for row in store.run(user_id, fq.entity_names(sorted(entities)), read_only=True):
        for name in {row["name"], *row["aliases"]}:
            if len(name.strip()) < 2:
                continue
            word = re.compile(rf"(?<!\w){re.escape(name.strip())}(?!\w)", re.IGNORECASE)
            for hit in store.run(user_id, fq.episodes_containing(name.strip().casefold()), read_only=True):
                if word.search(hit["content"]):
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


def audit(data_dir: Path, user_id: str, selector: Selector, report: ForgetReport) -> None:
    """One JSON line per deletion: what kind, when, how much. Never the content."""
    value = selector.value
    if selector.kind in ("text", "entity"):
        value = "sha256:" + hashlib.sha256(str(value).encode()).hexdigest()
    elif selector.kind == "between":
        value = [t.encode(v) for v in value]
    line = {
        "at": t.encode(t.now_utc()), "user": user_id, "selector": selector.kind, "value": value,
        "facts": report.facts_deleted, "episodes": report.episodes_deleted, "entities": report.entities_deleted,
    }
    data_dir.mkdir(parents=True, exist_ok=True)
    with open(data_dir / "forget_audit.jsonl", "a", encoding="utf-8") as handle:
        handle.write(json.dumps(line) + "\n")


def _stale_aof_files(data_dir: Path) -> list[Path]:
    """AOF files the manifest no longer lists (redis deletes them in the background)."""
    aof_dir = data_dir / "appendonlydir"
    manifest = aof_dir / "appendonly.aof.manifest"
    if not manifest.exists():
        return []
    listed = {line.split()[1] for line in manifest.read_text().splitlines() if line.startswith("file ")}
    return [p for p in aof_dir.iterdir() if p.name != manifest.name and p.name not in listed]


def compact(store: Store, data_dir: Path | None = None, timeout_s: float = 60.0) -> None:
    """Rewrite the AOF and take a snapshot, so deleted text leaves the data files.

    With the data directory at hand (embedded mode), also wait until redis has
    removed the superseded AOF files, which it does in a background thread.
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


def _parse_info(text: Any) -> dict[str, str]:
    if isinstance(text, bytes):
        text = text.decode()
    return dict(line.split(":", 1) for line in str(text).splitlines() if ":" in line)


def apply(store: Store, user_id: str, doomed: set[str], episodes: set[str], reopen: set[str],
          entities: Iterable[str]) -> None:
    """Carry out a computed cascade (the only writing part)."""
    run = lambda query: store.run(user_id, query)  # noqa: E731
    if reopen:
        run(fq.reopen(sorted(reopen)))
    if doomed or episodes:
        run(fq.strip_references(sorted(doomed), sorted(episodes)))
    if doomed:
        run(fq.delete_facts(sorted(doomed)))
    if episodes:
        run(fq.delete_episodes(sorted(episodes)))
    if entities:
        run(fq.delete_entities(sorted(entities)))
    run(q.rebuild_summaries())
