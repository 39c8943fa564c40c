"""Entity resolution: map the names a write mentions to entities in the graph.

Cheapest evidence first (ARCHITECTURE §5):
1. the normalised name or a recorded alias matches an entity exactly;
2. the name's embedding is very close to an entity's (cosine >= AUTO_MERGE):
   same entity, and the name is recorded as an alias - unless the names carry
   different numbers ("hobby1"/"hobby2", "Apartment 3"/"Apartment 4"), which
   MiniLM scores as near-identical;
3. close but not that close (>= AMBIGUOUS): asked to the LLM in one batched
   call when an LLM is configured, otherwise kept apart (a wrong merge is
   worse than a duplicate: it mixes two people's facts);
4. anything else is a new entity.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np

from graphmem.graph import cypher as q
from graphmem.schema.models import EntityNode
from graphmem.graph.store import Store

AUTO_MERGE = 0.93
AMBIGUOUS = 0.80
DIGITS = re.compile(r"\d+")

SameEntity = Callable[[Sequence[tuple[str, str]]], list[bool]]


@dataclass
class Resolved:
    uuids: dict[str, str] = field(default_factory=dict)
    new: int = 0
    merged: int = 0


def _numbers_agree(a: str, b: str) -> bool:
    return DIGITS.findall(a) == DIGITS.findall(b)


def resolve_entities(
    store: Store,
    user_id: str,
    names: Mapping[str, str],
    embed: Callable[[Sequence[str]], np.ndarray],
    *,
    now: datetime,
    same_entity: SameEntity | None = None,
) -> Resolved:
    """`names`: normalised key -> display name. Returns key -> entity uuid."""
    result = Resolved()
    if not names:
        return result
    for row in store.run(user_id, q.match_entities(list(names))):
        for key in (row["key"], *row["aliases"]):
            if key in names:
                result.uuids[key] = row["uuid"]
    missing = [key for key in names if key not in result.uuids]
    if not missing:
        return result
    vectors = embed([names[key] for key in missing])
    aliases: list[tuple[str, str]] = []
    ambiguous: list[tuple[str, dict]] = []
    fresh: list[tuple[str, np.ndarray]] = []
    # Every lookup sees the graph as it was before this write (entities are created
    # after the loop), so one batched query answers them all.
    nearest = {row["i"]: row for row in store.run(user_id, q.nearest_entity_each(vectors))}
    for i, (key, vector) in enumerate(zip(missing, vectors)):
        found = nearest.get(i)
        best = found if found and _numbers_agree(names[key], found["name"]) else None
        if best and best["similarity"] >= AUTO_MERGE:
            result.uuids[key] = best["uuid"]
            aliases.append((best["uuid"], key))
        elif best and best["similarity"] >= AMBIGUOUS and same_entity is not None:
            ambiguous.append((key, best))
        else:
            fresh.append((key, vector))
    if ambiguous:
        verdicts = same_entity([(names[key], best["name"]) for key, best in ambiguous])
        for (key, best), same in zip(ambiguous, verdicts):
            if same:
                result.uuids[key] = best["uuid"]
                aliases.append((best["uuid"], key))
            else:
                fresh.append((key, vectors[missing.index(key)]))
    result.merged = len(aliases)
    if aliases:
        store.run(user_id, q.add_aliases(aliases))
    if fresh:
        rows = [
            {
                "key": key,
                "props": EntityNode(group_id=user_id, name=names[key], created_at=now).to_props(),
                "embedding": vector,
            }
            for key, vector in fresh
        ]
        for row in store.run(user_id, q.create_entities(rows)):
            result.uuids[row["key"]] = row["uuid"]
        result.new = len(fresh)
    return result
