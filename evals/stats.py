"""Accuracy with bootstrap confidence intervals, and paired differences (pure).

Why: a 1-2 point gap between memory systems on a few hundred questions is
often noise. Each system's score gets a 95% percentile-bootstrap CI over
questions, and each system's difference from graphmem a *paired* bootstrap CI
(the same resampled questions for both), which is much tighter than comparing
two independent intervals. Resampling is seeded, so a report re-renders
identically. With ``--runs N`` a question's score is its mean over the runs.

Example:
    >>> ci = bootstrap_ci([1, 0, 1, 1], seed=0)
    >>> ci.mean, ci.low <= ci.mean <= ci.high
    (0.75, True)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict

RESAMPLES = 2000


class CI(BaseModel):
    """A mean and its 95% bootstrap interval."""

    model_config = ConfigDict(frozen=True)

    mean: float
    low: float
    high: float
    n: int


def bootstrap_ci(values: Sequence[float], *, seed: int = 0, resamples: int = RESAMPLES) -> CI:
    """The mean of ``values`` with a 95% percentile bootstrap CI (seeded)."""
    data = np.asarray(values, dtype=float)
    if data.size == 0:
        return CI(mean=0.0, low=0.0, high=0.0, n=0)
    rng = np.random.default_rng(seed)
    means = data[rng.integers(0, data.size, size=(resamples, data.size))].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return CI(mean=float(data.mean()), low=float(low), high=float(high), n=int(data.size))


def paired_diff_ci(a: Sequence[float], b: Sequence[float], *, seed: int = 0, resamples: int = RESAMPLES) -> CI:
    """mean(a - b) with a 95% paired bootstrap CI: both resampled on the same questions.

    Example:
        >>> paired_diff_ci([1, 1, 0], [0, 1, 0]).mean
        0.3333333333333333
    """
    if len(a) != len(b):
        raise ValueError(f"paired samples differ in length: {len(a)} and {len(b)}")
    return bootstrap_ci(np.asarray(a, dtype=float) - np.asarray(b, dtype=float), seed=seed, resamples=resamples)


def per_question_mean(runs: Sequence[Mapping[str, float]]) -> dict[str, float]:
    """Each question's score averaged over runs (questions missing from a run are skipped there).

    Example:
        >>> per_question_mean([{"q1": 1.0, "q2": 0.0}, {"q1": 0.0, "q2": 0.0}])
        {'q1': 0.5, 'q2': 0.0}
    """
    sums: dict[str, list[float]] = {}
    for run in runs:
        for qid, value in run.items():
            sums.setdefault(qid, []).append(value)
    return {qid: sum(v) / len(v) for qid, v in sums.items()}


def paired_diffs(
    scores: Mapping[str, Mapping[str, float]], baseline: str, *, seed: int = 0
) -> dict[str, CI]:
    """Each system's paired difference from ``baseline`` over the questions both answered."""
    if baseline not in scores:
        return {}
    base = scores[baseline]
    out = {}
    for name, system in scores.items():
        if name == baseline:
            continue
        shared = [q for q in system if q in base]
        out[name] = paired_diff_ci([system[q] for q in shared], [base[q] for q in shared], seed=seed)
    return out


__all__ = ["CI", "RESAMPLES", "bootstrap_ci", "paired_diff_ci", "paired_diffs", "per_question_mean"]
