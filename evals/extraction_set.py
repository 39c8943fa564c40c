"""Score an extractor on the hand-labelled extraction set and the two-session timelines.

Two hand-written sets in ``tests/data`` (issue 12):

- ``extraction_set.json``: turns in ordinary English with the facts a careful
  reader would store, split into a ``tune`` part (rules may be fitted to it)
  and a ``report`` part (only scored). `score_extractions` is a pure function:
  precision = matched predicted facts / predicted facts, recall = matched
  labelled facts / labelled facts, per part (an ending the extractor marks
  ``closes_only`` is not counted: with nothing open it is not stored). A predicted fact matches a label
  when subject, predicate, object (any of the label's ``a|b`` spellings, compared
  without case, leading articles or possessives) and ending (``"end"``: the
  statement closes an open fact) agree; each label matches at most once.
- ``timeline_set.json``: two sessions per case, the second stating a change;
  `timeline_passes` checks what `Memory.facts` says at the "then" and the "now"
  moment. Kept out of rule development.
- ``timeline_holdout.json``: the same kind of cases, each with its own dates,
  written later in other words and never used while rules are written.

`entities_per_1000_turns` counts the distinct names an extractor makes
entities of, per conversation, per 1,000 turns: the graph's entity count
before resolution merges spellings.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, model_validator

from graphmem.ingest.extraction import ExtractedFact, Extraction, Extractor, TurnContext
from graphmem.schema.records import FactRecord

if TYPE_CHECKING:
    from graphmem import Memory

__all__ = [
    "LabelledTurn", "PartScore", "TimelineCase", "TimelineSet", "entities_per_1000_turns", "extract_set",
    "load_extraction_set", "load_timeline_set", "mistakes", "run_timeline", "score_extractions",
    "timeline_passes",
]

Part = Literal["tune", "report"]
_LEADING = re.compile(r"^(?:(?:a|an|the|my|our|his|her|their|your|some)\s+)+", re.IGNORECASE)


class LabelledTurn(BaseModel):
    """One turn of the extraction set and the facts it states."""

    model_config = ConfigDict(frozen=True)

    id: str
    part: Part
    style: str
    speaker: str
    text: str
    facts: tuple[tuple[str, ...], ...]


class PartScore(BaseModel):
    """Precision and recall of one part, with the counts behind them."""

    model_config = ConfigDict(frozen=True)

    part: str
    turns: int
    labelled: int
    predicted: int
    matched: int

    @property
    def precision(self) -> float:
        return self.matched / self.predicted if self.predicted else 1.0

    @property
    def recall(self) -> float:
        return self.matched / self.labelled if self.labelled else 1.0


class TimelineCase(BaseModel):
    """One two-session case; its own dates, when given, override the set's."""

    model_config = ConfigDict(frozen=True)

    id: str
    speaker: str
    first: str
    second: str
    predicates: tuple[str, ...]
    then: str
    now: str | None
    first_time: datetime | None = None
    second_time: datetime | None = None
    then_at: datetime | None = None
    now_at: datetime | None = None
    then_question: str = ""
    now_question: str = ""


class TimelineSet(BaseModel):
    """Cases and the dates shared by the cases that give none of their own."""

    model_config = ConfigDict(frozen=True)

    first_time: datetime | None = None
    second_time: datetime | None = None
    then_at: datetime | None = None
    now_at: datetime | None = None
    cases: tuple[TimelineCase, ...]

    @model_validator(mode="after")
    def _every_case_dated(self) -> TimelineSet:
        for case in self.cases:
            for name in ("first_time", "second_time", "then_at", "now_at"):
                if getattr(case, name) is None and getattr(self, name) is None:
                    raise ValueError(f"case {case.id!r} has no {name} and the set gives none")
        return self

    def dates(self, case: TimelineCase) -> tuple[datetime, datetime, datetime, datetime]:
        """(first session, second session, then, now) for `case`."""
        return tuple(getattr(case, n) or getattr(self, n)  # type: ignore[return-value]
                     for n in ("first_time", "second_time", "then_at", "now_at"))


def load_extraction_set(path: str | Path) -> tuple[datetime, list[LabelledTurn]]:
    """The session time every turn is dated by, and the labelled turns."""
    doc = json.loads(Path(path).read_text(encoding="utf-8"))
    return datetime.fromisoformat(doc["session_time"]), [LabelledTurn(**t) for t in doc["turns"]]


def load_timeline_set(path: str | Path) -> TimelineSet:
    doc = json.loads(Path(path).read_text(encoding="utf-8"))
    return TimelineSet(**{k: v for k, v in doc.items() if k != "about"})


def extract_set(extractor: Extractor, turns: Sequence[LabelledTurn], session_time: datetime) -> list[Extraction]:
    """The extractor's output for every labelled turn, each turn on its own."""
    return extractor.extract([TurnContext(text=t.text, speaker=t.speaker, session_time=session_time,
                                          turn_id=t.id) for t in turns])


def normalise(text: str) -> str:
    """ "the St. Jude's." -> "st. jude's": case, curly quotes, leading articles and
    possessives, trailing punctuation and extra spaces do not count."""
    text = " ".join(text.replace("\u2019", "'").split()).rstrip(".,;:!?").strip()
    return _LEADING.sub("", text).casefold()


def _spellings(label: str) -> set[str]:
    return {normalise(s) for s in label.split("|")}


def _ends(fact: ExtractedFact) -> bool:
    return fact.valid_at is None and fact.invalid_at is not None


def _matches(label: tuple[str, ...], fact: ExtractedFact) -> bool:
    subject, predicate, obj = label[:3]
    ends = len(label) > 3 and label[3] == "end"
    return (fact.predicate == predicate and _ends(fact) == ends and normalise(fact.subject) in _spellings(subject)
            and normalise(fact.object) in _spellings(obj))


def _pair(labels: Sequence[tuple[str, ...]], facts: Sequence[ExtractedFact]) -> dict[int, int]:
    """label index -> fact index, each fact used at most once, labels in order."""
    pairs: dict[int, int] = {}
    for j, label in enumerate(labels):
        hit = next((i for i, f in enumerate(facts) if i not in pairs.values() and _matches(label, f)), None)
        if hit is not None:
            pairs[j] = hit
    return pairs


def stored(extraction: Extraction) -> list[ExtractedFact]:
    """The facts a memory holding nothing yet would store: an ending marked ``closes_only``
    ("Rex died", "I'm no longer with Acme") closes an open fact or is dropped, and each
    turn here is scored on its own."""
    return [f for f in extraction.facts if not f.closes_only]


def score_extractions(turns: Sequence[LabelledTurn], extractions: Sequence[Extraction]) -> dict[str, PartScore]:
    """Precision and recall per part ("tune", "report") and over all turns ("all")."""
    if len(turns) != len(extractions):
        raise ValueError(f"{len(turns)} turns but {len(extractions)} extractions")
    rows: dict[str, list[int]] = {}
    for turn, extraction in zip(turns, extractions):
        facts = stored(extraction)
        matched = len(_pair(turn.facts, facts))
        for part in (turn.part, "all"):
            row = rows.setdefault(part, [0, 0, 0, 0])
            for i, n in enumerate((1, len(turn.facts), len(facts), matched)):
                row[i] += n
    return {part: PartScore(part=part, turns=r[0], labelled=r[1], predicted=r[2], matched=r[3])
            for part, r in rows.items()}


def mistakes(turns: Sequence[LabelledTurn], extractions: Sequence[Extraction], part: str) -> list[str]:
    """Readable lines for the facts of `part` that were missed or wrongly stored."""
    lines = []
    for turn, extraction in zip(turns, extractions):
        if turn.part != part:
            continue
        facts = stored(extraction)
        pairs = _pair(turn.facts, facts)
        lines += [f"{turn.id} missed {' | '.join(label)}" for j, label in enumerate(turn.facts) if j not in pairs]
        lines += [f"{turn.id} wrong  {f.subject} | {f.predicate} | {f.object}{' | end' if _ends(f) else ''}"
                  for i, f in enumerate(facts) if i not in pairs.values()]
    return lines


def entities_per_1000_turns(conversations: Iterable[Sequence[Extraction]]) -> tuple[float, int, int]:
    """(entities per 1,000 turns, distinct entities, turns): names counted once per conversation."""
    entities = turns = 0
    for extractions in conversations:
        entities += len({normalise(e.name) for x in extractions for e in x.entities})
        turns += len(extractions)
    return (1000 * entities / turns if turns else 0.0), entities, turns


def _holds(facts: Sequence[FactRecord], predicates: Sequence[str], value: str | None) -> bool:
    if value is None:
        return False
    wanted = _spellings(value)
    return any(f.predicate in predicates and normalise(f.object) in wanted for f in facts)


def timeline_passes(case: TimelineCase, then_facts: Sequence[FactRecord], now_facts: Sequence[FactRecord]) -> bool:
    """The right "then" and "now" answer: the old value held then (the new one not
    yet), the new value holds now (when there is one) and the old one no longer."""
    then_ok = _holds(then_facts, case.predicates, case.then) and not _holds(then_facts, case.predicates, case.now)
    now_ok = not _holds(now_facts, case.predicates, case.then) and (
        case.now is None or _holds(now_facts, case.predicates, case.now))
    return then_ok and now_ok


def run_timeline(mem: Memory, tset: TimelineSet, user_prefix: str = "timeline") -> dict[str, bool]:
    """Write each case as its own user (two sessions) and check its then/now answer.

    :param mem: an open `Memory`; each case writes the user ``<user_prefix>_<case id>``.
    """
    results = {}
    for case in tset.cases:
        user = f"{user_prefix}_{case.id.replace('-', '_')}"
        first_time, second_time, then_at, now_at = tset.dates(case)
        for n, (text, when) in enumerate(((case.first, first_time), (case.second, second_time)), 1):
            mem.write(user, [{"speaker": case.speaker, "content": text}], when, session_id=f"s{n}")
        results[case.id] = timeline_passes(case, mem.facts(user, valid_at=then_at), mem.facts(user, valid_at=now_at))
    return results
