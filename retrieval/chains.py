"""Lookups followed to the end (MemGPT's nested key-value task).

When a fact's object is itself the subject of another fact on the same relation
("k1 MAPS_TO k2", "k2 MAPS_TO k3"), one search hit is only the first hop: a
reader that stops there answers with a key, not the value. `follow_chains`
walks each chain, one lookup per hop for every chain at once, until the object
has no further admitted fact on that relation (the value is **verified
terminal**), the walk comes back to a key it saw (a cycle), the relation
branches (two admitted next facts: no single answer), or `max_depth` hops.

Pure: the graph read (`lookup`) and the time-mode check (`admit`) are passed in,
so this module does no I/O and is tested on plain records.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

from graphmem.schema.models import normalize_name
from graphmem.schema.records import FactRecord

MAX_DEPTH = 8

Stop = Literal["terminal", "cycle", "branch", "depth"]
Lookup = Callable[[Sequence[tuple[str, str]]], Sequence[FactRecord]]


class FactChain(BaseModel):
    """One followed lookup: ``steps[0]`` is the fact search found, each next step's
    subject is the previous step's object. ``terminal``: the last object.
    ``verified_terminal``: no admitted fact on the relation has it as subject."""

    model_config = ConfigDict(frozen=True)

    steps: tuple[FactRecord, ...]
    terminal: str
    stop: Stop

    @property
    def verified_terminal(self) -> bool:
        return self.stop == "terminal"

    @property
    def predicate(self) -> str:
        return self.steps[0].predicate


def _key(record: FactRecord) -> tuple[str, str]:
    """Where the chain goes next: the object as a subject, on the same relation."""
    return normalize_name(record.object), record.predicate


def follow_chains(starts: Sequence[FactRecord], lookup: Lookup, admit: Callable[[FactRecord], bool],
                  max_depth: int = MAX_DEPTH) -> list[FactChain]:
    """Follow every start fact to its end; one chain per start, in start order.

    :param starts: the facts search found (each is a chain of at least one step).
    :param lookup: reads the facts of (subject_key, predicate) pairs, any status.
    :param admit: whether a fact counts at the question's time (current mode:
        current, not expired, not archived); others are neither followed nor
        count against a terminal.
    :param max_depth: hops past the start; a chain cut there is not verified.
    """
    walks: list[list[FactRecord]] = [[s] for s in starts]
    stops: list[Stop | None] = [None] * len(walks)
    for _ in range(max_depth):
        open_walks = [i for i, stop in enumerate(stops) if stop is None]
        if not open_walks:
            break
        wanted = list(dict.fromkeys(_key(walks[i][-1]) for i in open_walks))
        found: dict[tuple[str, str], list[FactRecord]] = {}
        for record in lookup(wanted):
            if admit(record):
                found.setdefault((normalize_name(record.subject), record.predicate), []).append(record)
        for i in open_walks:
            nexts = found.get(_key(walks[i][-1]), [])
            seen = {normalize_name(walks[i][0].subject)} | {normalize_name(r.object) for r in walks[i]}
            if not nexts:
                stops[i] = "terminal"
            elif len({r.uuid for r in nexts}) > 1:
                stops[i] = "branch"
            elif nexts[0].uuid in {r.uuid for r in walks[i]}:
                stops[i] = "cycle"
            elif normalize_name(nexts[0].object) in seen:
                walks[i].append(nexts[0])
                stops[i] = "cycle"
            else:
                walks[i].append(nexts[0])
    return [FactChain(steps=tuple(w), terminal=w[-1].object, stop=stop or "depth") for w, stop in zip(walks, stops)]
