"""Store benchmark: fact-insert throughput through `Memory.add_fact` one at a time
and through the bulk `Memory.add_facts` (the same N facts, default 10,000, into
another user), and the current-fact query at N facts in one user's graph.

The graph mixes single-valued slots that supersede (LIVES_IN, WORKS_AT) with
multi-valued ones (LIKES), so inserts pay for slot reads and closures as they
would in real use. Embeddings are computed by the real MiniLM inside add_fact / add_facts (add_facts
embeds each distinct new text and entity name once, in batches, while the server
writes the batch before); its time is printed split into embedding and the rest.
add_facts runs three times: with the fp32 embedder, with the int8 ONNX one, and
"store only", with the vectors the fp32 run computed served from memory (the
same rows and vectors, so the same vector-index work, without the model). Python
and FalkorDB-server CPU seconds are printed beside the wall time: on a shared
2-core machine the wall time says as much about the neighbours as about us.
Every user must end with the same current facts (checked and printed).
"""

from __future__ import annotations

import os
import random
import tempfile
import time
from contextlib import contextmanager

import numpy as np
import psutil

from bench.common import header, percentiles_ms, timed
from graphmem import Memory
from graphmem.embedding.embedder import fast_embedder, fp32_embedder, warmed

USER = "bench_store"
BULK_USER = "bench_store_bulk"


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
    embedder = _TimedEmbedder(warmed(fp32_embedder()))
    with tempfile.TemporaryDirectory() as tmp, Memory(data_dir=tmp, embedder=embedder) as mem:
        mem.add_fact("warmup", "a", "likes", "b")
        plan = fact_plan(n_facts)
        start = time.perf_counter()
        for subject, predicate, obj, when, single in plan:
            mem.add_fact(USER, subject, predicate, obj, valid_at=when, single_valued=single)
        elapsed = time.perf_counter() - start
        bulk = bulk_import(mem, embedder, plan)
        people = sorted({p[0] for p in plan})
        rng = random.Random(1)
        subject_times = [timed(lambda: mem.facts(USER, subject=rng.choice(people))) for _ in range(queries)]
        all_current = [timed(lambda: mem.facts(USER)) for _ in range(20)]
        current = len(mem.facts(USER))
        same = current_view(mem, USER) == current_view(mem, BULK_USER)
        loop_view = current_view(mem, USER)
    fast = _TimedEmbedder(fast_embedder())
    with tempfile.TemporaryDirectory() as tmp, Memory(data_dir=tmp, embedder=fast) as mem:
        mem.add_fact("warmup", "a", "likes", "b")
        bulk_fast = {f"fast_{k}": v for k, v in bulk_import(mem, fast, plan).items()}
        same_fast = current_view(mem, BULK_USER) == loop_view
    replayed = _TimedEmbedder(_Replayed(embedder.seen, embedder.inner))
    with tempfile.TemporaryDirectory() as tmp, Memory(data_dir=tmp, embedder=replayed) as mem:
        mem.add_fact("warmup", "a", "likes", "b")
        bulk_stored = {f"stored_{k}": v for k, v in bulk_import(mem, replayed, plan).items()}
        same_stored = current_view(mem, BULK_USER) == loop_view
    figures = {
        "insert_facts_per_s": n_facts / elapsed,
        "subject_current_p50_ms": percentiles_ms(subject_times)[0],
        "subject_current_p95_ms": percentiles_ms(subject_times)[1],
        "all_current_p50_ms": percentiles_ms(all_current)[0],
        "all_current_p95_ms": percentiles_ms(all_current)[1],
    } | bulk | bulk_fast | bulk_stored
    print(f"  insert: {n_facts:,} facts in {elapsed:.1f} s = {figures['insert_facts_per_s']:.1f} facts/s (add_fact, one at a time)")
    print(f"  add_facts: {n_facts:,} facts in {bulk['bulk_s']:.1f} s = {bulk['bulk_facts_per_s']:.0f} facts/s "
          f"({bulk['bulk_embed_s']:.1f} s of it embedding {bulk['bulk_embedded']:,} distinct texts, overlapped with the "
          f"writes; {_cpu(bulk, 'bulk_')}), {figures['bulk_facts_per_s'] / figures['insert_facts_per_s']:.0f}x add_fact; "
          f"same current facts as one at a time: {'yes' if same else 'NO'}")
    print(f"  add_facts with the int8 ONNX embedder ({type(fast.inner).__name__}): {bulk_fast['fast_bulk_s']:.1f} s = "
          f"{bulk_fast['fast_bulk_facts_per_s']:.0f} facts/s ({bulk_fast['fast_bulk_embed_s']:.1f} s embedding = "
          f"{bulk_fast['fast_bulk_embedded'] / bulk_fast['fast_bulk_embed_s']:.0f} texts/s; fp32 "
          f"{bulk['bulk_embedded'] / bulk['bulk_embed_s']:.0f} texts/s; {_cpu(bulk_fast, 'fast_bulk_')}); "
          f"same current facts as one at a time: {'yes' if same_fast else 'NO'}")
    print(f"  add_facts store only (the fp32 vectors served from memory): {bulk_stored['stored_bulk_s']:.1f} s = "
          f"{bulk_stored['stored_bulk_facts_per_s']:.0f} facts/s (target >= 1,000; {_cpu(bulk_stored, 'stored_bulk_')}); "
          f"same current facts as one at a time: {'yes' if same_stored else 'NO'}; load average {os.getloadavg()[0]:.1f}")
    print(f"  current facts of one subject ({queries} queries): p50 {figures['subject_current_p50_ms']:.1f} ms, "
          f"p95 {figures['subject_current_p95_ms']:.1f} ms")
    print(f"  all {current:,} current facts of the user (20 queries): p50 {figures['all_current_p50_ms']:.1f} ms, "
          f"p95 {figures['all_current_p95_ms']:.1f} ms")
    return figures


class _TimedEmbedder:
    """Wraps the embedder to count the seconds and texts add_facts spends embedding,
    and keep each vector it made (`seen`, for the store-only run)."""

    def __init__(self, inner) -> None:
        self.inner, self.name, self.dimension, self.seconds, self.texts = inner, inner.name, inner.dimension, 0.0, 0
        self.seen: dict[str, object] = {}

    def embed(self, texts):
        start = time.perf_counter()
        try:
            vectors = self.inner.embed(texts)
        finally:
            self.seconds += time.perf_counter() - start
            self.texts += len(texts)
        self.seen.update(zip(texts, vectors))
        return vectors


class _Replayed:
    """Serves vectors made earlier; a text never seen goes to `inner` (none should)."""

    def __init__(self, seen: dict, inner) -> None:
        self.seen, self.inner, self.name, self.dimension = seen, inner, inner.name, inner.dimension

    def embed(self, texts):
        missing = [text for text in texts if text not in self.seen]
        if missing:
            self.seen.update(zip(missing, self.inner.embed(missing)))
        return np.stack([self.seen[text] for text in texts]) if texts else np.zeros((0, self.dimension), np.float32)


@contextmanager
def _cpu_seconds(mem: Memory, into: dict[str, float]):
    """CPU seconds of this process and of the embedded FalkorDB server over the block."""
    server = psutil.Process(mem.store.server_pid) if mem.store.server_pid else None
    mine, theirs = psutil.Process().cpu_times(), server.cpu_times() if server else None
    yield
    after = psutil.Process().cpu_times()
    into["python_cpu_s"] = after.user + after.system - mine.user - mine.system
    if server is not None:
        done = server.cpu_times()
        into["server_cpu_s"] = done.user + done.system - theirs.user - theirs.system


def _cpu(figures: dict[str, float], prefix: str) -> str:
    return (f"CPU: Python {figures[prefix + 'python_cpu_s']:.1f} s, "
            f"FalkorDB server {figures.get(prefix + 'server_cpu_s', float('nan')):.1f} s")


def bulk_import(mem: Memory, embedder: _TimedEmbedder, plan: list[tuple[str, str, str, str, bool]]) -> dict[str, float]:
    """The same plan through one `add_facts` call, into BULK_USER (a graph of its own)."""
    rows = [{"subject": s, "predicate": p, "object": o, "valid_at": when, "single_valued": single}
            for s, p, o, when, single in plan]
    embedder.seconds, embedder.texts = 0.0, 0
    cpu: dict[str, float] = {}
    start = time.perf_counter()
    with _cpu_seconds(mem, cpu):
        mem.add_facts(BULK_USER, rows)
    elapsed = time.perf_counter() - start
    return {"bulk_s": elapsed, "bulk_facts_per_s": len(rows) / elapsed, "bulk_embed_s": embedder.seconds,
            "bulk_embedded": embedder.texts} | {f"bulk_{k}": v for k, v in cpu.items()}


def current_view(mem: Memory, user: str) -> list[tuple]:
    return sorted((f.subject, f.predicate, f.object, f.valid_at, f.invalid_at) for f in mem.facts(user))
