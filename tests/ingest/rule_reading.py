"""What the offline rules read from one turn, for the extraction rounds' tests: every
fact, the states (with a start) and the endings (without one)."""

from __future__ import annotations

from datetime import UTC, datetime

from graphmem.ingest.extraction import TurnContext
from graphmem.ingest.rules import RuleExtractor

SESSION = datetime(2024, 7, 15, 10, 0, tzinfo=UTC)
RULES = RuleExtractor(learned=False)


def extracted(text: str, speaker: str = "Ann"):
    [x] = RULES.extract([TurnContext(text=text, speaker=speaker, session_time=SESSION)])
    return x.facts


def states(text: str) -> set[tuple[str, str]]:
    return {(f.predicate, f.object) for f in extracted(text) if f.valid_at is not None}


def endings(text: str) -> set[tuple[str, str]]:
    return {(f.predicate, f.object) for f in extracted(text) if f.valid_at is None}
