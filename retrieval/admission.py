"""The admission check every packet fact passes, and the reasons it was let in.

A fact reaches the packet only when it holds for the question's time mode
(`keep_for_mode`) and, whatever the recipe, never when it is expired, archived,
or (in the current mode) superseded: a recipe may switch the time filter off
(`SearchRecipe.time_filter`, the ``no_time`` ablation), not the admission rule.

Each admitted fact says why it is there (`reasons`), from the signals search
fused: its subject or object is an entity the question names (*named entity*),
it was kept for the time the question names (*time match*), BM25 or MiniLM
found it (*similar text*), the graph walk from the question's entities reached
it (*graph neighbour*), or a lookup chain led to it (*chain step*,
`retrieval.chains`). Pure functions over records.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from datetime import datetime

from graphmem.retrieval.query import QueryPlan
from graphmem.retrieval.recipes import FactList
from graphmem.schema.models import normalize_name
from graphmem.schema.records import FactRecord

NAMED_ENTITY = "named entity"
TIME_MATCH = "time match"
SIMILAR_TEXT = "similar text"
GRAPH_NEIGHBOUR = "graph neighbour"
CHAIN_STEP = "chain step"
REASONS = (NAMED_ENTITY, TIME_MATCH, SIMILAR_TEXT, GRAPH_NEIGHBOUR, CHAIN_STEP)


def keep_for_mode(record: FactRecord, plan: QueryPlan, now: datetime) -> bool:
    """Current facts by default; the past for historical questions; the named range for as-of."""
    if record.expires_at is not None and record.expires_at <= now:
        return False
    if record.archived_at is not None:
        return False
    if plan.mode == "current":
        return record.status == "current" and (record.valid_at is None or record.valid_at <= now)
    if plan.mode == "historical":
        return True
    start, end = plan.range_start, plan.range_end
    if end is None:
        return (record.valid_at is None or record.valid_at <= start) and (
            record.invalid_at is None or record.invalid_at > start
        )
    return (record.valid_at is None or record.valid_at < end) and (record.invalid_at is None or record.invalid_at > start)


def never_admitted(record: FactRecord, plan: QueryPlan, now: datetime) -> bool:
    """Expired, archived, or superseded in the current mode: out whatever the recipe."""
    if record.expires_at is not None and record.expires_at <= now:
        return True
    if record.archived_at is not None:
        return True
    return plan.mode == "current" and record.status == "superseded"


def admit(record: FactRecord, plan: QueryPlan, now: datetime, *, time_filter: bool = True) -> bool:
    """Whether `record` may be a packet line for this question."""
    if never_admitted(record, plan, now):
        return False
    return not time_filter or keep_for_mode(record, plan, now)


def reasons(record: FactRecord, found_by: Collection[FactList], plan: QueryPlan,
            distance: Mapping[str, int]) -> tuple[str, ...]:
    """Which signals let `record` in, in `REASONS` order; `found_by`: the fused
    lists that held it, `distance`: the graph walk's hops to each fact it reached."""
    named = set(plan.entity_keys)
    out = []
    if named & {normalize_name(record.subject), normalize_name(record.object)}:
        out.append(NAMED_ENTITY)
    if plan.mode == "as_of":
        out.append(TIME_MATCH)
    if FactList.BM25 in found_by or FactList.VECTOR in found_by:
        out.append(SIMILAR_TEXT)
    if FactList.BFS in found_by and record.uuid in distance and NAMED_ENTITY not in out:
        out.append(GRAPH_NEIGHBOUR)
    return tuple(out)
