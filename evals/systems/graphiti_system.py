"""Graphiti proper, offline route: Graphiti's own ``COMBINED_HYBRID_SEARCH_RRF`` over
the graph graphmem wrote (rule extractor), MiniLM as its embedder, an LLM and a
cross-encoder that raise if called (``graphmem.evals.graphiti_compat``).

Results map to turn ids like ``bench/retrieval.py``: an episode result is its
``name`` (graphmem stores the turn id there); an edge result gives the names of
the episodes in its ``episodes`` list. The two are interleaved, an episode
first, duplicates dropped. A search that raises is an error (``Context.error``),
never an empty result. Graphiti's own LLM ingestion (``add_episode``) is the
answer stage's route, not this one.
"""

from __future__ import annotations

import asyncio
from itertools import zip_longest
from pathlib import Path

from graphmem.evals.graphiti_compat import close_graphiti
from graphmem.evals.metrics import count_tokens
from graphmem.evals.systems._common import error_text, memory_id, stopwatch
from graphmem.evals.systems.base import Context, IngestStats, SystemConfig
from graphmem.evals.systems.graphmem_system import SharedGraph
from graphmem.ingest.loaders import Conversation, Question
from graphmem.graph.cypher import Query

NAMES = "MATCH (e:Episodic) WHERE e.uuid IN $u RETURN e.uuid AS uuid, e.name AS name"


def interleave(episodes: list[str], edge_turns: list[str]) -> list[str]:
    """Episode turn ids and edge-derived turn ids alternately, an episode first, deduplicated (pure)."""
    pairs = zip_longest(dict.fromkeys(episodes), dict.fromkeys(edge_turns))
    return list(dict.fromkeys(x for pair in pairs for x in pair if x is not None))


class GraphitiSystem:
    has_provenance = True

    def __init__(self, name: str, config: SystemConfig) -> None:
        from graphiti_core.search.search_config_recipes import COMBINED_HYBRID_SEARCH_RRF

        self.name = name
        self.config = config
        self.graph = SharedGraph(Path(config.options.get("graph_dir") or Path(config.work_dir) / "graph"))
        self.search_config = COMBINED_HYBRID_SEARCH_RRF.model_copy(update={"limit": config.k})
        self._loop = asyncio.new_event_loop()
        self._open: dict[str, object] = {}

    def ingest(self, conversation: Conversation) -> IngestStats:
        return self.graph.ingest(conversation)

    async def _graphiti(self, group: str):
        from graphmem.evals.graphiti_compat import open_graphiti

        if group not in self._open:
            self._open[group] = await open_graphiti(self.graph.memory.store.url, group, self.graph.memory.embedder)
        return self._open[group]

    async def _search(self, group: str, text: str):
        graphiti = await self._graphiti(group)
        return await graphiti.search_(text, config=self.search_config, group_ids=[group])

    def _episode_names(self, group: str, uuids: list[str]) -> dict[str, str]:
        if not uuids:
            return {}
        rows = self.graph.memory.store.run(group, Query(NAMES, {"u": sorted(set(uuids))}), read_only=True)
        return {r["uuid"]: r["name"] for r in rows}

    def context(self, conversation_id: str, question: Question) -> Context:
        group = memory_id(conversation_id)
        with stopwatch() as ms:
            try:
                results = self._loop.run_until_complete(self._search(group, question.question))
            except Exception as exc:  # noqa: BLE001 - counted as an error by the harness
                return Context(text="", error=error_text(exc), latency_ms=ms())
            elapsed = ms()
        names = self._episode_names(group, [u for e in results.edges for u in e.episodes])
        edge_turns = [names[u] for e in results.edges for u in e.episodes if u in names]
        turn_ids = interleave([e.name for e in results.episodes], edge_turns)
        lines = [f"- {e.fact} (valid {e.valid_at or '...'} -> {e.invalid_at or '...'})" for e in results.edges]
        lines += [f"[{e.valid_at.date() if e.valid_at else 'undated'}] {e.content}" for e in results.episodes]
        text = "\n".join(lines)
        return Context(text=text, turn_ids=tuple(turn_ids), tokens=count_tokens(text), latency_ms=elapsed)

    def close(self) -> None:
        async def close_all():
            for graphiti in self._open.values():
                await close_graphiti(graphiti)

        try:
            self._loop.run_until_complete(close_all())
        finally:
            self._loop.close()
            self.graph.close()
