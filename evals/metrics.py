"""Retrieval-stage metrics: pure functions over per-question records.

- recall@k: the share of a question's gold evidence turns among the first k
  *distinct* turn ids the system cites (k = 5, 10, 25); averaged over the
  questions that have gold turns. A question the system failed on (an error)
  scores 0 and is also counted in ``errors``: it is never silently dropped.
- session any@k: 1 when any gold session is among the first k distinct sessions
  of the cited turns, else 0.
- tokens: the project's estimate, 4 characters per token
  (``graphmem.retrieval.packet.estimate_tokens``; tiktoken is not installed, and
  one estimate for every system is what makes them comparable).
- latency: p50 / p95 of the per-question ``context()`` time in milliseconds.

Every figure in ``results.json`` is ``summarize(records)`` of the per-question
records stored beside it, so a reader can recompute it.

Example:
    >>> recall_at(["a", "x", "a", "b"], {"a", "b"}, 2)
    0.5
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from graphmem.retrieval.packet import estimate_tokens

KS = (5, 10, 25)
SESSION_K = 10
TOKEN_ESTIMATE = "4 characters per token (graphmem.retrieval.packet.estimate_tokens)"

__all__ = ["KS", "SESSION_K", "QuestionRecord", "count_tokens", "distinct", "percentile_ms", "recall_at", "session_any_at",
           "summarize"]


class QuestionRecord(BaseModel):
    """What one system did for one question: enough to recompute every metric."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    question_id: str
    conversation_id: str
    category: str
    gold: tuple[str, ...]
    gold_sessions: tuple[str, ...] = ()
    cited: tuple[str, ...] = ()
    cited_sessions: tuple[str, ...] = ()
    tokens: int = 0
    latency_ms: float = 0.0
    error: str | None = None
    extra: dict[str, object] = Field(default_factory=dict)


def count_tokens(text: str) -> int:
    return estimate_tokens(text)


def distinct(ids: Iterable[str]) -> list[str]:
    """First occurrences, in order."""
    return list(dict.fromkeys(ids))


def recall_at(cited: Sequence[str], gold: Iterable[str], k: int) -> float:
    """Share of `gold` among the first `k` distinct ids of `cited` (gold must be non-empty)."""
    gold = set(gold)
    if not gold:
        raise ValueError("recall needs at least one gold id")
    return len(gold & set(distinct(cited)[:k])) / len(gold)


def session_any_at(cited_sessions: Sequence[str], gold_sessions: Iterable[str], k: int) -> float:
    """1.0 when any gold session is among the first `k` distinct cited sessions."""
    return float(bool(set(gold_sessions) & set(distinct(cited_sessions)[:k])))


def percentile_ms(values: Sequence[float], q: float) -> float | None:
    return float(np.percentile(np.asarray(values, dtype=float), q)) if len(values) else None


def _mean(values: Sequence[float]) -> float | None:
    return float(np.mean(values)) if len(values) else None


def summarize(records: Sequence[QuestionRecord], ks: Sequence[int] = KS, recall: bool = True) -> dict[str, object]:
    """The system-level figures of ``results.json`` from its per-question records.

    ``recall=False`` (full context: it cites every turn it keeps, so a rank
    means nothing) leaves the recall figures None and reports tokens only.
    """
    with_gold = [r for r in records if r.gold]
    with_sessions = [r for r in records if r.gold_sessions]
    ok = [r for r in records if r.error is None]
    out: dict[str, object] = {"questions": len(records), "errors": len(records) - len(ok)}
    for k in ks:
        values = [0.0 if r.error else recall_at(r.cited, r.gold, k) for r in with_gold]
        out[f"recall@{k}"] = _mean(values) if recall else None
    values = [0.0 if r.error else session_any_at(r.cited_sessions, r.gold_sessions, SESSION_K) for r in with_sessions]
    out[f"session_any@{SESSION_K}"] = _mean(values) if recall else None
    out["gold_in_context"] = _mean([0.0 if r.error else recall_at(r.cited, r.gold, len(r.cited) or 1)
                                    for r in with_gold])
    out["tokens_mean"] = _mean([r.tokens for r in ok])
    out["latency_ms_p50"] = percentile_ms([r.latency_ms for r in ok], 50)
    out["latency_ms_p95"] = percentile_ms([r.latency_ms for r in ok], 95)
    out["questions_with_gold"] = len(with_gold)
    return out
