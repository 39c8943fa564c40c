"""Where each wrong answer went wrong: write, retrieval or reader (pure decision).

Why: "graphmem got 61%" says nothing about what to fix. For every wrong
answer, the gold evidence turn ids and the system's provenance tell:

- **write**: the gold evidence never became memory (no gold turn among what the
  system stored and can cite);
- **retrieval**: it is in memory but not in the context (no gold turn id among
  the context's turn ids and the gold answer's text is not in the context);
- **reader**: it is in the context, yet the answer is wrong.

A system that cannot say what it stored (no `StoredEvidence`) cannot tell
write from retrieval: those are ``unknown``. A question with no gold evidence
ids and an answer not found in the context is ``unknown`` too.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable
from enum import StrEnum
from typing import Protocol, runtime_checkable

from graphmem.evals.judge import normalize_answer


class Stage(StrEnum):
    WRITE = "write"
    RETRIEVAL = "retrieval"
    READER = "reader"
    UNKNOWN = "unknown"


@runtime_checkable
class StoredEvidence(Protocol):
    """A system that can say which dataset turns its memory rests on."""

    def stored_turn_ids(self, conversation_id: str) -> set[str]: ...


def answer_in_text(answer: str | None, text: str) -> bool:
    """Whether the normalized gold answer occurs in the normalized text (non-empty answers only).

    Example:
        >>> answer_in_text("The Lisbon office", "Ann works at the lisbon office.")
        True
    """
    if not answer:
        return False
    needle = normalize_answer(answer)
    return bool(needle) and needle in normalize_answer(text)


def classify(
    *,
    gold_turn_ids: Collection[str],
    gold_answer: str | None,
    context_turn_ids: Collection[str],
    context_text: str,
    stored_turn_ids: Collection[str] | None,
) -> Stage:
    """The stage a wrong answer failed at (see the module docstring).

    Example:
        >>> classify(gold_turn_ids={"D1:3"}, gold_answer="Oslo", context_turn_ids=(),
        ...          context_text="", stored_turn_ids={"D1:3"})
        <Stage.RETRIEVAL: 'retrieval'>
    """
    gold = set(gold_turn_ids)
    if gold & set(context_turn_ids) or answer_in_text(gold_answer, context_text):
        return Stage.READER
    if not gold or stored_turn_ids is None:
        return Stage.UNKNOWN
    return Stage.RETRIEVAL if gold & set(stored_turn_ids) else Stage.WRITE


def stage_table(stages: Iterable[Stage | str]) -> dict[str, int]:
    """Counts per stage, every stage present (zeros included), in a fixed order."""
    counts = Counter(str(s) for s in stages)
    return {str(stage): counts.get(str(stage), 0) for stage in Stage}


__all__ = ["Stage", "StoredEvidence", "answer_in_text", "classify", "stage_table"]
