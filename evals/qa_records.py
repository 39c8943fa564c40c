"""The answer stage's per-question records and every figure derived from them (pure).

Why a module of its own: ``results.json`` must be recomputable from its
per-question records alone. Everything the report prints (J, F1, accuracy,
their CIs, per-category scores, paired differences, answer cost, the
failure-stage table) is computed here from `QARecord`s and nothing else, so a
reader of the file (or a test) can redo the arithmetic.

Scores: a question's score is its mean over runs; a judge error (a reply that
is neither CORRECT nor WRONG) leaves that run out of the question's mean and
is counted; a question every run of which is a judge error is left out of J.
A system's own error (its context or its answer failed) scores 0 in J and F1
and is counted in ``errors``, as in the retrieval stage: left out, a system
that failed on its hard questions scored higher than one that answered them
(fixed 2026-12-05).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pydantic import BaseModel, ConfigDict

from graphmem.evals.cost import Usage
from graphmem.evals.stages import stage_table
from graphmem.evals.stats import CI, bootstrap_ci, paired_diffs, per_question_mean

BASELINE = "graphmem"


class QARecord(BaseModel):
    """One system's answer to one question in one run, and how it was scored."""

    model_config = ConfigDict(frozen=True)

    system: str
    run: int
    seed: int | None
    conversation_id: str
    question_id: str
    category: str
    question: str
    gold: str
    evidence: tuple[str, ...] = ()
    abstention: bool = False
    answer: str = ""
    label: bool | None = None
    judge_reply: str = ""
    f1: float | None = None
    context_turn_ids: tuple[str, ...] = ()
    context_tokens: int = 0
    context_error: str | None = None
    answer_error: str | None = None
    stage: str | None = None
    tool_calls: int = 0
    answer_calls: int = 0
    answer_cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0


def ci_dict(ci: CI) -> dict[str, object]:
    """A score as results.json holds it: mean, its 95% CI (also as ``ci95``), question count."""
    return {"mean": ci.mean, "ci95": [ci.low, ci.high], "low": ci.low, "high": ci.high, "n": ci.n}


def failed(record: QARecord) -> bool:
    """The system failed this question (its context or its answer), not the judge."""
    return record.context_error is not None or record.answer_error is not None


def label_scores(records: Iterable[QARecord]) -> dict[str, float]:
    """question id -> mean judge label over the runs that got a label (a system error: 0)."""
    runs: dict[int, dict[str, float]] = {}
    for r in records:
        if failed(r) or r.label is not None:
            runs.setdefault(r.run, {})[r.question_id] = 0.0 if failed(r) else float(r.label)
    return per_question_mean([runs[k] for k in sorted(runs)])


def f1_scores(records: Iterable[QARecord]) -> dict[str, float]:
    """question id -> mean token F1 over runs (a system error: 0)."""
    runs: dict[int, dict[str, float]] = {}
    for r in records:
        if failed(r) or r.f1 is not None:
            runs.setdefault(r.run, {})[r.question_id] = 0.0 if failed(r) else r.f1
    return per_question_mean([runs[k] for k in sorted(runs)])


def answer_usage(records: Iterable[QARecord]) -> Usage:
    """Answering cost: every reply needed (cached or not) and its tokens."""
    total = Usage()
    for r in records:
        total = total + Usage(calls=r.answer_calls, cache_hits=r.answer_cache_hits,
                              prompt_tokens=r.prompt_tokens, completion_tokens=r.completion_tokens)
    return total


def summarize(records: Sequence[QARecord], *, metric: str = "J", with_f1: bool, seed: int = 0) -> dict[str, object]:
    """One system's scores from its records: the main metric (``J`` for LoCoMo,
    ``accuracy`` for LongMemEval: both the judge's mean label), per category, counts, stages."""
    labels = label_scores(records)
    by_category: dict[str, dict[str, object]] = {}
    category_of = {r.question_id: r.category for r in records}
    for category in sorted(set(category_of.values())):
        members = [r for r in records if r.category == category]
        entry: dict[str, object] = {metric: ci_dict(bootstrap_ci(list(label_scores(members).values()), seed=seed))}
        if with_f1:
            entry["F1"] = ci_dict(bootstrap_ci(list(f1_scores(members).values()), seed=seed))
        by_category[category] = entry
    out: dict[str, object] = {
        metric: ci_dict(bootstrap_ci(list(labels.values()), seed=seed)),
        "by_category": by_category,
        "questions": len(category_of),
        "answers": len(records),
        "judge_errors": sum(r.label is None and r.answer_error is None for r in records),
        "errors": sum(failed(r) for r in records),
        "wrong": sum(r.label is False for r in records),
        "stages": stage_table(r.stage for r in records if r.stage is not None),
    }
    if with_f1:
        out["F1"] = ci_dict(bootstrap_ci(list(f1_scores(records).values()), seed=seed))
    return out


def differences(records: Sequence[QARecord], *, seed: int = 0) -> dict[str, dict[str, object]]:
    """Each system's paired bootstrap difference in J from graphmem."""
    systems = sorted({r.system for r in records})
    scores = {name: label_scores(r for r in records if r.system == name) for name in systems}
    return {name: ci_dict(ci) for name, ci in paired_diffs(scores, BASELINE, seed=seed).items()}


__all__ = ["BASELINE", "QARecord", "answer_usage", "ci_dict", "differences", "f1_scores", "failed", "label_scores",
           "summarize"]
