"""Store benchmark: fact-insert throughput through `Memory.add_fact` and the
current-fact query at N facts (default 10,000) in one user's graph.

The graph mixes single-valued slots that supersede (LIVES_IN, WORKS_AT) with
multi-valued ones (LIKES), so inserts pay for slot reads and closures as they
would in real use. Embeddings are computed by the real MiniLM inside add_fact.
"""

from __future__ import annotations

import random
import tempfile
import time

from bench.common import header, percentiles_ms, timed
from graphmem import Memory

USER = "bench_store"


def fact_plan(n: int, seed: int = 7) -> list[tuple[str, str, str, str, bool]]:
    rng = random.Random(seed)
    people = max(1, n // 10)
    plan = []
    for i in range(n):
        person = f"person {i % people}"
        round_ = i // people
        kind = round_ % 3
        year = 2000 + round_
        if kind == 0:
            plan.append((person, "lives_in", f"city {rng.randrange(500)}", f"{year}-01-01", True))
        elif kind == 1:
            plan.append((person, "works_at", f"company {rng.randrange(500)}", f"{year}-01-01", True))
        else:
            plan.append((person, "likes", f"hobby {rng.randrange(2000)}", f"{year}-01-01", False))
    return plan


def run(n_facts: int = 10_000, queries: int = 200) -> dict[str, float]:
    header(f"store: {n_facts:,} facts in one user's graph (embedded FalkorDB, AOF fsync always)")
    with tempfile.TemporaryDirectory() as tmp, Memory(data_dir=tmp) as mem:
        mem.add_fact("warmup", "a", "likes", "b")
        plan = fact_plan(n_facts)
        start = time.perf_counter()
        for subject, predicate, obj, when, single in plan:
            mem.add_fact(USER, subject, predicate, obj, valid_at=when, single_valued=single)
        elapsed = time.perf_counter() - start
        people = sorted({p[0] for p in plan})
        rng = random.Random(1)
        subject_times = [timed(lambda: mem.facts(USER, subject=rng.choice(people))) for _ in range(queries)]
        all_current = [timed(lambda: mem.facts(USER)) for _ in range(20)]
        current = len(mem.facts(USER))
    figures = {
        "insert_facts_per_s": n_facts / elapsed,
        "subject_current_p50_ms": percentiles_ms(subject_times)[0],
        "subject_current_p95_ms": percentiles_ms(subject_times)[1],
        "all_current_p50_ms": percentiles_ms(all_current)[0],
        "all_current_p95_ms": percentiles_ms(all_current)[1],
    }
    print(f"  insert: {n_facts:,} facts in {elapsed:.1f} s = {figures['insert_facts_per_s']:.1f} facts/s (add_fact, one at a time)")
    print(f"  current facts of one subject ({queries} queries): p50 {figures['subject_current_p50_ms']:.1f} ms, "
          f"p95 {figures['subject_current_p95_ms']:.1f} ms")
    print(f"  all {current:,} current facts of the user (20 queries): p50 {figures['all_current_p50_ms']:.1f} ms, "
          f"p95 {figures['all_current_p95_ms']:.1f} ms")
    return figures
