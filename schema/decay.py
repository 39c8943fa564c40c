"""Decay: how much a fact is still worth keeping in front of the agent.

    score = importance x recency x frequency
    recency   = 0.5 ** (days since last access (or creation) / half_life_days)
    frequency = 1 + ln(1 + access_count)

Pure functions. Decay never deletes: it orders (the "decay" reranker) and, at
a per-user capacity, chooses which facts to archive (kept, out of search,
restorable with `Memory.restore`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime
from typing import NamedTuple


HALF_LIFE_DAYS = 30.0


class Ranked(NamedTuple):
    """A uuid and its decay score (the same shape as retrieval's `Scored`)."""

    doc_id: str
    score: float


class DecayInput(NamedTuple):
    """What decay reads of a fact (FactRecord and FactEdge have these too)."""

    uuid: str
    importance: float
    access_count: int
    last_accessed_at: datetime | None
    created_at: datetime


def decay_score(
    importance: float,
    access_count: int,
    last_accessed_at: datetime | None,
    created_at: datetime,
    now: datetime,
    half_life_days: float = HALF_LIFE_DAYS,
) -> float:
    """Example: a fact never accessed for one half-life keeps half its importance.

    >>> from datetime import datetime, timedelta, timezone
    >>> now = datetime(2024, 1, 31, tzinfo=timezone.utc)
    >>> round(decay_score(0.8, 0, None, now - timedelta(days=30), now), 3)
    0.4
    """
    since = last_accessed_at or created_at
    age_days = max(0.0, (now - since).total_seconds() / 86_400)
    recency = 0.5 ** (age_days / half_life_days)
    return max(0.0, importance) * recency * (1.0 + math.log1p(max(0, access_count)))


def decay_rerank(candidates: Sequence, now: datetime, half_life_days: float = HALF_LIFE_DAYS) -> list[Ranked]:
    """Order fact-like records (importance, access_count, last_accessed_at,
    created_at, uuid) by decay score, highest first; ties keep input order."""
    scored = [
        Ranked(c.uuid, decay_score(c.importance, c.access_count, c.last_accessed_at, c.created_at, now, half_life_days))
        for c in candidates
    ]
    return sorted(scored, key=lambda s: -s.score)


def to_archive(candidates: Sequence, capacity: int, now: datetime) -> list[str]:
    """The uuids to archive so that at most `capacity` stay active: the lowest decay first."""
    if capacity < 0 or len(candidates) <= capacity:
        return []
    ranked = decay_rerank(candidates, now)
    return [s.doc_id for s in ranked[capacity:]]
