"""Per-user capacity: archive the facts least worth keeping, restore on request.

Archiving never deletes: an archived fact keeps its text and history, leaves
search, and comes back with `restore`. Which facts go is decided by the pure
decay score (`retrieval.decay.to_archive`); this module reads the active facts,
asks that decision and writes it. Callers hold the user's lock.
"""

from __future__ import annotations

from datetime import datetime

from graphmem.graph import cypher as q
from graphmem.graph.fact_repository import access_stats, merged_access
from graphmem.schema.decay import DecayInput, to_archive
from graphmem.schema import time as t
from graphmem.graph.store import Store


def decay_input(row: dict, access: tuple[int, datetime | None] | None = None) -> DecayInput:
    """One row of `queries.active_facts`, with the fact's access record, as what decay reads."""
    count, last = merged_access(int(row["access_count"]), t.decode(row["last_accessed_at"]), access)
    return DecayInput(
        uuid=row["uuid"],
        importance=float(row["importance"]),
        access_count=count,
        last_accessed_at=last,
        created_at=t.decode(row["created_at"]),
    )


def enforce(store: Store, user_id: str, capacity: int | None, now: datetime | None = None) -> int:
    """Archive the lowest-decay facts beyond `capacity` (None: unlimited); returns
    how many. Bumps the graph version when it archived, so search reloads."""
    if capacity is None:
        return 0
    rows = store.run(user_id, q.active_facts())
    if len(rows) <= capacity:
        return 0
    moment = now or t.now_utc()
    accessed = access_stats(store, user_id)
    doomed = to_archive([decay_input(r, accessed.get(r["uuid"])) for r in rows], capacity, moment)
    if doomed:
        store.run(user_id, q.set_archived(doomed, moment))
        store.run(user_id, q.bump_version())
    return len(doomed)


def restore(store: Store, user_id: str, fact_uuid: str) -> bool:
    """Bring an archived fact back into search; False when there was no such fact
    or it was not archived (nothing changed, so the warm indexes stay)."""
    found = store.run(user_id, q.unarchive(fact_uuid))
    if found:
        store.run(user_id, q.bump_version())
    return bool(found)
