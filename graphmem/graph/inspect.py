"""Read-only inspection of what a user's graph holds, for tests, bench and evals.

Why: checks that read the graph with ad-hoc Cypher re-implement the write
schema and drift from it. This is the one documented way to look at the raw
graph: every row, including closed, expired and archived facts, as pydantic
records; nothing here writes, and an unknown user reads as empty (no graph is
created).

Example:
    >>> ins = mem.inspect()
    >>> ins.counts("alice").facts
    2
    >>> [hit.field for hit in ins.contains_text("alice", "Beijing")]
    ['name', 'summary', 'fact', 'content']
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from graphmem.graph import fact_repository
from graphmem.graph.cypher import inspection as iq
from graphmem.schema import time as t
from graphmem.schema.models import check_user_id
from graphmem.schema.records import FactRecord
from graphmem.graph.store import GraphEmbedding, Store
from graphmem.parsing.text import clean_text

MAX_NEEDLE = 1_000


class _Row(BaseModel):
    model_config = ConfigDict(frozen=True)


class EntityRow(_Row):
    uuid: str
    name: str
    normalized_name: str | None = None
    aliases: tuple[str, ...] = ()
    summary: str = ""
    entity_type: str | None = None
    created_at: str | None = None


class FactRow(_Row):
    """A fact edge as stored (times as the stored ISO strings)."""

    uuid: str
    subject: str
    predicate: str
    object: str
    fact: str
    valid_at: str | None = None
    invalid_at: str | None = None
    created_at: str | None = None
    expired_at: str | None = None
    expires_at: str | None = None
    archived_at: str | None = None
    episodes: tuple[str, ...] = ()
    derived_from: tuple[str, ...] = ()


class EpisodeRow(_Row):
    uuid: str
    turn_id: str
    session_id: str | None = None
    speaker: str | None = None
    content: str
    valid_at: str | None = None
    turn_index: int | None = None
    scope: str = "user"


class MentionRow(_Row):
    uuid: str | None = None
    episode: str
    turn_id: str
    entity: str
    entity_name: str


class Counts(_Row):
    entities: int = 0
    episodes: int = 0
    facts: int = 0
    mentions: int = 0
    episode_links: int = 0


class TextHit(_Row):
    """One property of one node or edge that holds the searched text."""

    element: Literal["node", "edge"]
    label: str
    uuid: str | None
    field: str


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _strings(item)


def find_text(element: Literal["node", "edge"], rows: Iterable[dict], needle: str) -> list[TextHit]:
    """Pure: every (element, property) whose text contains `needle`, case-insensitively.

    Vector properties are skipped: they hold numbers, never text.
    """
    folded = needle.casefold()
    hits = []
    for row in rows:
        for field, value in (row["props"] or {}).items():
            if field.endswith("_embedding"):
                continue
            if any(folded in s.casefold() for s in _strings(value)):
                hits.append(TextHit(element=element, label=row["label"] or "", uuid=row.get("uuid"), field=field))
    return hits


class Inspector:
    """Read-only views of one store's graphs; see the module docstring."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def _rows(self, user_id: str, query: iq.Query) -> list[dict]:
        check_user_id(user_id)
        if not self.store.has_graph(user_id):
            return []
        return self.store.run(user_id, query, read_only=True)

    def entities(self, user_id: str) -> list[EntityRow]:
        return [EntityRow(**r) for r in self._rows(user_id, iq.entities())]

    def facts(self, user_id: str, include_expired: bool = True) -> list[FactRow]:
        """Raw fact edges; by default also closed, expired and archived ones."""
        return [FactRow(**r) for r in self._rows(user_id, iq.facts(include_expired))]

    def fact_versions(self, user_id: str, known_at: datetime | None = None) -> list[FactRecord]:
        """Every fact version as known at `known_at` (default now), whatever its
        valid time, with status and successor as then known; retracted ones left out."""
        rows = self._rows(user_id, iq.fact_versions(known_at))
        return fact_repository.to_records(self.store, user_id, rows, now=t.now_utc(), known_at=known_at) if rows else []

    def episodes(self, user_id: str) -> list[EpisodeRow]:
        return [EpisodeRow(**r) for r in self._rows(user_id, iq.episodes())]

    def mentions(self, user_id: str) -> list[MentionRow]:
        return [MentionRow(**r) for r in self._rows(user_id, iq.mentions())]

    def counts(self, user_id: str) -> Counts:
        rows = self._rows(user_id, iq.counts())
        return Counts(**rows[0]) if rows else Counts()

    def embedding(self, user_id: str) -> GraphEmbedding | None:
        """The embedder model, dimension and backends the user's vectors were written
        with, as stored now (another process may have added a backend); None for an
        unknown user."""
        check_user_id(user_id)
        return self.store.stored_embedding(user_id)

    def contains_text(self, user_id: str, needle: str) -> list[TextHit]:
        """Every node or edge property (names, aliases, summaries, fact and turn
        text, ...) holding `needle`, case-insensitively; [] when none does."""
        needle = clean_text(needle, "needle", MAX_NEEDLE)
        nodes = find_text("node", self._rows(user_id, iq.all_nodes()), needle)
        return nodes + find_text("edge", self._rows(user_id, iq.all_edges()), needle)


__all__ = ["Counts", "EntityRow", "EpisodeRow", "FactRow", "GraphEmbedding", "Inspector", "MentionRow", "TextHit", "find_text"]
