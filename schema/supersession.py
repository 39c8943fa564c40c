"""Where a new single-valued fact goes on its slot's timeline, and what it closes.

A slot is (subject, predicate) for predicates that hold one value at a time
(lives_in, works_at). Nothing is deleted: a fact is closed by setting
``invalid_at`` (world time), ``expired_at`` (when graphmem stopped holding it as
open) and ``invalidated_by``. Sessions may arrive out of order, so the incoming
fact is placed by its start time: facts that started earlier and overlap it are
closed at its start; if a later fact already exists, the incoming one is closed
at that fact's start (DESIGN §4).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from graphmem.schema.models import FactEdge


@dataclass(frozen=True)
class Closure:
    """Close fact `uuid`: valid until `invalid_at`, because of `invalidated_by`."""

    uuid: str
    invalid_at: datetime
    invalidated_by: str
    expired_at: datetime


def plan_closures(slot: Sequence[FactEdge], incoming: FactEdge, now: datetime) -> list[Closure]:
    """The closures that placing `incoming` among `slot`'s facts requires.

    `slot` holds the other facts of the same subject and predicate with a
    different object. Retracted facts (expired, not superseded) take no part.
    An already-closed fact keeps its first ``expired_at``.

    Example: slot = [Beijing from March], incoming = Shanghai from June
    -> [Closure(Beijing, invalid_at=June, invalidated_by=Shanghai)].
    """
    live = [e for e in slot if e.expired_at is None or e.invalidated_by is not None]
    start = incoming.order_key()
    closures = [
        Closure(e.uuid, start, incoming.uuid, e.expired_at or now)
        for e in live
        if e.order_key() <= start and (e.invalid_at is None or e.invalid_at > start)
    ]
    later = [e for e in live if e.order_key() > start]
    if later:
        successor = min(later, key=FactEdge.order_key)
        end = successor.order_key()
        if incoming.invalid_at is None or incoming.invalid_at > end:
            closures.append(Closure(incoming.uuid, end, successor.uuid, now))
    return closures
