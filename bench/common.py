"""Small helpers shared by the benchmarks: percentiles, timing, peak memory."""

from __future__ import annotations

import resource
import time
from collections.abc import Callable, Sequence

import numpy as np


def percentiles_ms(samples_s: Sequence[float]) -> tuple[float, float]:
    ms = np.asarray(samples_s) * 1000
    return float(np.percentile(ms, 50)), float(np.percentile(ms, 95))


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def peak_rss_mb() -> float:
    """Peak resident memory of this process (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def header(title: str) -> None:
    print(f"\n== {title} " + "=" * max(0, 70 - len(title)))
