"""Why Graphiti's search scores low on graphmem's graphs: its result lists scored apart.

``python -m graphmem.evals.graphiti_probe RUN_DIR CONVERSATION [N]`` reads the shared
graph of a ``graphmem eval retrieval`` run (``RUN_DIR/work/graphmem_graph``) and, for
the first N category 1-4 questions of that LoCoMo conversation, prints recall@10 of:
Graphiti's episode results alone, the turns its edge results cite alone, and
FalkorDB's full-text query as Graphiti builds it, unfielded and restricted to
``@content`` (README: "Why Graphiti's search scores low").
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import numpy as np

from graphmem import Memory
from graphmem.evals.graphiti_compat import close_graphiti, open_graphiti
from graphmem.evals.metrics import recall_at
from graphmem.evals.systems._common import memory_id
from graphmem.evals.systems.graphmem_system import SharedGraph
from graphmem.ingest.loaders import load_locomo
from graphmem.graph.cypher import Query

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "locomo_dev7.json"
FULLTEXT = ("CALL db.idx.fulltext.queryNodes('Episodic', $q) YIELD node, score "
            "RETURN node.name AS name ORDER BY score DESC LIMIT 10")
NAMES = "MATCH (e:Episodic) RETURN e.uuid AS uuid, e.name AS name"


async def _graphiti_lists(mem: Memory, group: str, questions) -> dict[str, list[float]]:
    from graphiti_core.search.search_config_recipes import COMBINED_HYBRID_SEARCH_RRF

    names = {r["uuid"]: r["name"] for r in mem.store.run(group, Query(NAMES, {}), read_only=True)}
    graphiti = await open_graphiti(mem.store.url, group, mem.embedder)
    out: dict[str, list[float]] = {"episodes": [], "edge turns": [], "episodes per query": [], "edges per query": []}
    try:
        for q in questions:
            found = await graphiti.search_(q.question, config=COMBINED_HYBRID_SEARCH_RRF.model_copy(
                update={"limit": 25}), group_ids=[group])
            edge_turns = list(dict.fromkeys(names[u] for e in found.edges for u in e.episodes if u in names))
            out["episodes"].append(recall_at([e.name for e in found.episodes], q.evidence, 10))
            out["edge turns"].append(recall_at(edge_turns, q.evidence, 10))
            out["episodes per query"].append(len(found.episodes))
            out["edges per query"].append(len(found.edges))
    finally:
        await close_graphiti(graphiti)
    return out


def probe(run_dir: Path, conversation_id: str, n: int = 40) -> dict[str, float]:
    from graphiti_core.driver.falkordb.fulltext import build_falkor_fulltext_query

    conv = next(c for c in load_locomo(DATA) if c.conversation_id == conversation_id)
    questions = [q for q in conv.questions if q.category in (1, 2, 3, 4) and q.evidence][:n]
    group = memory_id(conversation_id)
    graph = SharedGraph(run_dir / "work" / "graphmem_graph")
    try:
        graph.require(conv)
        mem = graph.memory
        lists = asyncio.run(_graphiti_lists(mem, group, questions))
        for label, field in (("full-text as built", ""), ("full-text @content only", "@content:")):
            lists[label] = []
            for q in questions:
                text = build_falkor_fulltext_query(q.question, [group]).replace(") (", f") {field}(", 1)
                rows = mem.store.run(group, Query(FULLTEXT, {"q": text}), read_only=True)
                lists[label].append(recall_at([r["name"] for r in rows], q.evidence, 10))
    finally:
        graph.close()
    return {label: float(np.mean(values)) for label, values in lists.items()}


if __name__ == "__main__":
    args = sys.argv[1:]
    figures = probe(Path(args[0]), args[1], int(args[2]) if len(args) > 2 else 40)
    print(f"Graphiti on graphmem's graph, {args[1]}: recall@10 per list (and list sizes)")
    for label, value in figures.items():
        print(f"  {label:<26} {value:.3f}")
