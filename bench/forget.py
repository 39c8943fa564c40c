"""Forget benchmark: a forget with compaction for one user holding 10,000 facts,
in a data dir shared with 9 other users (2,000 facts each).

Graphs are written through `Memory.add_facts` with the retrieval benchmark's
templated facts (real MiniLM embeddings; facts only, no turns).
The time covers the cascade, the deletes, dropping caches and the compaction
(AOF rewrite of the whole data file + snapshot), which dominates.
"""

from __future__ import annotations

import tempfile
import time

from bench.common import header
from bench.retrieval import grow_graph, scale_facts
from graphmem import Memory

TARGET = "bench_forget_0"


def run(users: int = 10, facts: int = 10_000, others: int = 2_000) -> dict[str, float]:
    header(f"forget: one user with {facts:,} facts among {users} users (others {others:,} each)")
    pool = scale_facts(facts)
    with tempfile.TemporaryDirectory() as tmp, Memory(data_dir=tmp) as mem:
        for i in range(users):
            user = f"bench_forget_{i}"
            grow_graph(mem, pool, 0, facts if i == 0 else others, user=user)
        person = pool[0].subject
        preview = mem.forget(TARGET, {"entity": person}, dry_run=True)
        start = time.perf_counter()
        report = mem.forget(TARGET, {"entity": person})
        entity_s = time.perf_counter() - start
        start = time.perf_counter()
        text_report = mem.forget(TARGET, {"text": pool[1].object})
        text_s = time.perf_counter() - start
    print(f"  forget {{'entity': {person!r}}}: {report.facts_deleted} facts, {report.episodes_deleted} turns, "
          f"{report.entities_deleted} entities in {entity_s:.2f} s with compaction (dry run listed {preview.facts_deleted})")
    print(f"  forget {{'text': {pool[1].object!r}}}: {text_report.facts_deleted} facts, "
          f"{text_report.episodes_deleted} turns in {text_s:.2f} s with compaction")
    return {"entity_forget_s": entity_s, "text_forget_s": text_s}
