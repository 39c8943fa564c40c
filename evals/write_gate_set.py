"""The write gate on a labelled set of turns (tests/data/write_gate_set.json).

Each turn lists the facts it states with a kind: ``lasting``, ``event`` (dated,
stays true), ``explicit`` (the user asked to keep it) should become active;
``passing`` (a mood or a temporary situation) and ``hedged`` should not. Two ways in:

- ``labelled``: the gate on the labelled facts themselves, as an LLM extractor would
  return them (confidence 0.8, importance 0.5): the gate alone, for any extractor;
- ``rules``: the offline extractor's facts, each matched to a label by its object.

Figures: precision of what becomes active, the share of should-be-active facts held
back as candidates, and the share of passing states stopped. `calibrate` picks the
threshold on the tune part only; `bench gate` reports both parts.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from graphmem.ingest import write_gate
from graphmem.ingest.extraction import Extractor, TurnContext

SESSION_TIME = datetime(2024, 5, 1, 12, tzinfo=timezone.utc)
LABELLED_CONFIDENCE, LABELLED_IMPORTANCE = 0.8, 0.5
STEP = 0.01


@dataclass(frozen=True)
class Scored:
    """One fact the gate saw: its label, kind and score (None when no label matched)."""

    turn: str
    split: str
    kind: str | None
    should_activate: bool | None
    score: float
    explicit: bool
    text: str


def load(path: Path) -> tuple[str, list[dict]]:
    doc = json.loads(Path(path).read_text(encoding="utf-8"))
    return doc["speaker"], doc["turns"]


def _scored(turn: dict, label: dict | None, predicate: str, obj: str, confidence: float, importance: float) -> Scored:
    found, _ = write_gate.signals(turn["text"], predicate, obj, confidence=confidence, importance=importance)
    return Scored(turn=turn["id"], split=turn["split"], kind=label["kind"] if label else None,
                  should_activate=label["should_activate"] if label else None, score=write_gate.score(found),
                  explicit=found.explicit, text=f"{predicate} {obj}")


def score_labelled(turns: Sequence[dict]) -> list[Scored]:
    """The gate on the labelled facts (extractor-independent)."""
    return [_scored(t, f, f["predicate"], f["object"], LABELLED_CONFIDENCE, LABELLED_IMPORTANCE)
            for t in turns for f in t["facts"]]


def _match(facts: Sequence[dict], predicate: str, obj: str) -> dict | None:
    """The label with this object (equal or one inside the other), same relation first."""
    key = obj.casefold().strip()
    hits = [f for f in facts if key and (key == f["object"].casefold() or key in f["object"].casefold()
                                         or f["object"].casefold() in key)]
    return next((f for f in hits if f["predicate"] == predicate), hits[0] if hits else None)


def score_extracted(turns: Sequence[dict], speaker: str, extractor: Extractor) -> list[Scored]:
    """The gate on what `extractor` draws from each turn (one turn per call, no context)."""
    contexts = [TurnContext(text=t["text"], speaker=speaker, session_time=SESSION_TIME, turn_id=t["id"]) for t in turns]
    out = []
    for turn, extraction in zip(turns, extractor.extract(contexts)):
        for fact in extraction.facts:
            out.append(_scored(turn, _match(turn["facts"], fact.predicate, fact.object), fact.predicate, fact.object,
                               fact.confidence, fact.importance))
    return out


@dataclass(frozen=True)
class GateFigures:
    facts: int
    labelled: int
    activated: int
    precision: float  # of what became active, the share that should have
    held_back: float  # of should-be-active facts, the share left as candidates
    passing_stopped: float  # of passing states, the share not made active
    passing: int
    unlabelled: int


def figures(scored: Sequence[Scored], threshold: float = write_gate.THRESHOLD) -> GateFigures:
    labelled = [s for s in scored if s.should_activate is not None]
    active = [s for s in labelled if s.explicit or s.score >= threshold]
    good = [s for s in labelled if s.should_activate]
    passing = [s for s in labelled if s.kind == "passing"]
    share = lambda part, whole: len(part) / len(whole) if whole else float("nan")  # noqa: E731
    return GateFigures(
        facts=len(scored), labelled=len(labelled), activated=len(active),
        precision=share([s for s in active if s.should_activate], active),
        held_back=share([s for s in good if not (s.explicit or s.score >= threshold)], good),
        passing_stopped=share([s for s in passing if not (s.explicit or s.score >= threshold)], passing),
        passing=len(passing), unlabelled=len(scored) - len(labelled),
    )


def calibrate(scored: Sequence[Scored]) -> float:
    """The threshold with the best balanced accuracy (should-activate kept active,
    the rest stopped) on `scored`, explicit requests aside; the middle of the first
    run of best thresholds, so the boundary sits in the gap, not on a fact."""
    labelled = [s for s in scored if s.should_activate is not None and not s.explicit]
    pos = [s.score for s in labelled if s.should_activate]
    neg = [s.score for s in labelled if not s.should_activate]
    grid = [round(i * STEP, 2) for i in range(int(1 / STEP) + 1)]
    value = {th: (sum(x >= th for x in pos) / len(pos) if pos else 0.0)
             + (sum(x < th for x in neg) / len(neg) if neg else 0.0) for th in grid}
    best = max(value.values())
    first = next(i for i, th in enumerate(grid) if value[th] >= best - 1e-9)
    last = first
    while last + 1 < len(grid) and value[grid[last + 1]] >= best - 1e-9:
        last += 1
    return round((grid[first] + grid[last]) / 2, 2)


def split(scored: Sequence[Scored], part: str) -> list[Scored]:
    return [s for s in scored if s.split == part]
