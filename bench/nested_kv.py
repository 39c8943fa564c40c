"""Nested key-value lookups (MemGPT's task, `graphmem.evals.nested_kv`) through the
retrieval harness: graphmem (pairs imported as facts, chains followed by search)
and naive RAG, seed 0, 140 pairs, 3 chains per depth 0-4. Per depth, the share
of questions whose context holds the terminal value and the whole chain."""

from __future__ import annotations

import tempfile
from pathlib import Path

from bench.common import header
from graphmem.evals import nested_kv
from graphmem.evals.retrieval_run import load_dataset, run as run_harness

SYSTEMS = ("graphmem", "rag")


def run(seed: int = 0) -> dict[str, dict]:
    dataset = load_dataset("nested_kv", None, seed=seed)
    with tempfile.TemporaryDirectory() as tmp:
        results = run_harness(dataset, list(SYSTEMS), Path(tmp))
    header(f"nested key-value: {nested_kv.PAIRS} UUID pairs, {nested_kv.CHAINS_PER_DEPTH} chains per depth, seed {seed}")
    print("  context holds the terminal value / the whole chain, per depth")
    depths = [str(d) for d in nested_kv.DEPTHS]
    print(f"  {'system':<12}" + "".join(f"{'depth ' + d:>14}" for d in depths))
    figures = {}
    for name in SYSTEMS:
        by_depth = results["systems"][name]["nested_kv"]
        figures[name] = by_depth
        cells = "".join(f"{by_depth[d]['value_found']:>8.2f} / {by_depth[d]['chain_found']:.2f}" for d in depths)
        print(f"  {name:<12}{cells}")
    return figures
