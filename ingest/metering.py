"""Per-stage counters for LLM work: calls, cache hits, tokens, latency, failures.

Why: ARCHITECTURE §5 asks every stage to meter what it costs, so a write can report
how many requests and tokens it spent and an eval can compare runs. A `Meter`
is shared by whatever does the calls (the LLM client, the extractor) and read
as immutable snapshots, so a caller measures a span of work with
``diff(before, after)`` without resetting anything another thread relies on.

Stages are free-form names; graphmem uses ``extract``, ``resolve`` and
``resolve_entities``.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, Field


class StageStats(BaseModel):
    """Totals for one stage.

    ``calls`` counts HTTP requests sent (every retry attempt is one), so it
    equals what the endpoint saw; ``retries`` is the part of ``calls`` that
    were repeats; ``failures`` counts answers given up on (malformed reply or
    endpoint unreachable after retries).
    """

    model_config = ConfigDict(frozen=True)

    calls: int = 0
    retries: int = 0
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    failures: int = 0

    def __add__(self, other: StageStats) -> StageStats:
        return StageStats(**{name: getattr(self, name) + getattr(other, name) for name in _FIELDS})

    def __sub__(self, other: StageStats) -> StageStats:
        return StageStats(**{name: getattr(self, name) - getattr(other, name) for name in _FIELDS})


_FIELDS = tuple(StageStats.model_fields)


class MeterSnapshot(BaseModel):
    """The counters of every stage at one moment.

    Example:
        >>> Meter().snapshot().stage("extract").calls
        0
    """

    model_config = ConfigDict(frozen=True)

    stages: Mapping[str, StageStats] = Field(default_factory=dict)

    def stage(self, name: str) -> StageStats:
        """Totals of ``name``; all zeros for a stage never used."""
        return self.stages.get(name, StageStats())

    @property
    def total(self) -> StageStats:
        """Sum over all stages."""
        result = StageStats()
        for stats in self.stages.values():
            result = result + stats
        return result


class Meter:
    """Thread-safe accumulating counters, one `StageStats` per stage.

    Example:
        >>> m = Meter()
        >>> m.record_call("extract", prompt_tokens=10, completion_tokens=3, latency_s=0.2)
        >>> m.snapshot().stage("extract").prompt_tokens
        10
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._stages: dict[str, StageStats] = {}

    def _add(self, stage: str, delta: StageStats) -> None:
        with self._lock:
            self._stages[stage] = self._stages.get(stage, StageStats()) + delta

    def record_call(
        self,
        stage: str,
        *,
        prompt_tokens: int = 0,
        completion_tokens: int = 0,
        latency_s: float = 0.0,
        retry: bool = False,
    ) -> None:
        """One HTTP request sent (successful or not) and what it used."""
        self._add(
            stage,
            StageStats(
                calls=1,
                retries=int(retry),
                prompt_tokens=prompt_tokens,
                completion_tokens=completion_tokens,
                latency_s=latency_s,
            ),
        )

    def record_cache_hit(self, stage: str) -> None:
        """One answer served from the on-disk cache, no request sent."""
        self._add(stage, StageStats(cache_hits=1))

    def record_failure(self, stage: str) -> None:
        """One answer given up on."""
        self._add(stage, StageStats(failures=1))

    def snapshot(self) -> MeterSnapshot:
        """An immutable copy of the counters now."""
        with self._lock:
            return MeterSnapshot(stages=dict(self._stages))


def diff(before: MeterSnapshot, after: MeterSnapshot) -> MeterSnapshot:
    """What happened between two snapshots of the same meter, per stage.

    Example:
        >>> m = Meter(); a = m.snapshot(); m.record_cache_hit("extract")
        >>> diff(a, m.snapshot()).stage("extract").cache_hits
        1
    """
    names = set(before.stages) | set(after.stages)
    return MeterSnapshot(stages={name: after.stage(name) - before.stage(name) for name in sorted(names)})


__all__ = ["Meter", "MeterSnapshot", "StageStats", "diff"]
