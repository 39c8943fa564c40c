"""Graphiti proper, online route: graphiti-core's own ``add_episode`` ingestion
(its own prompts) driven by the same endpoint and model as graphmem's LLM
extractor, on FalkorDB, with MiniLM as its embedder and its own search.

Why this shape:
- One episode per dataset turn, named by its turn id, dated by its session time
  (``reference_time``), so Graphiti's edges cite episodes and so turn ids:
  provenance for the retrieval metrics and the failure-stage table.
- Graphiti's calls go through `OpenAIGenericClient` (``LLMConfig(base_url, model)``)
  whose openai client sends through the harness's caching transport: every
  call is cached on disk by its request body and metered from ``usage``, so a
  re-run replays and the cost table is Graphiti's real spend.
- The graph lives in an embedded FalkorDB (falkordblite, via graphmem's store)
  under ``work_dir/graphiti_graph``, cleared when the system opens: a re-run
  rebuilds the same graph from cached replies instead of adding duplicates.
- Search: ``COMBINED_HYBRID_SEARCH_RRF`` copied with the run's ``k`` (never the
  shared recipe mutated), edges rendered with their validity dates.

Example:
    >>> system = GraphitiLLMSystem("graphiti", SystemConfig(work_dir=tmp, llm=endpoint))  # doctest: +SKIP
    >>> system.ingest(conversation).llm_calls                                               # doctest: +SKIP
    14
"""

from __future__ import annotations

import asyncio
import os
import shutil
import time
from pathlib import Path
from typing import Any

from graphmem.schema.errors import ConfigError
from graphmem.evals.graphiti_compat import close_graphiti
from graphmem.evals.llm import async_caching_http_client
from graphmem.evals.systems._common import memory_id
from graphmem.evals.systems.base import Context, IngestStats, SystemConfig
from graphmem.ingest.loaders import Conversation, Question
from graphmem.ingest.metering import Meter
from graphmem.retrieval.packet import estimate_tokens

STAGE = "graphiti_ingest"
OPEN_GRAPHS = 4



def render_results(edges: list[Any], episodes: list[Any]) -> str:
    """Graphiti's search results as reader context: dated facts, then dated episodes (pure)."""
    lines = []
    for edge in edges:
        since = edge.valid_at.date().isoformat() if edge.valid_at else "?"
        until = f" until {edge.invalid_at.date().isoformat()}" if edge.invalid_at else ""
        lines.append(f"- {edge.fact} (from {since}{until})")
    for episode in episodes:
        lines.append(f"[{episode.valid_at.date().isoformat()}] {episode.content}")
    return "\n".join(lines)


class GraphitiLLMSystem:
    """`MemorySystem` over Graphiti proper's own LLM ingestion and search."""

    has_provenance = True

    def __init__(self, name: str, config: SystemConfig, embedder: Any = None) -> None:
        if config.llm is None:
            raise ConfigError("Graphiti's LLM ingestion needs an endpoint (SystemConfig.llm)")
        os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")
        from graphiti_core.search.search_config_recipes import COMBINED_HYBRID_SEARCH_RRF

        from graphmem import Memory
        from graphmem.embedding.embedder import default_embedder, warmed

        self.name = name
        self.config = config
        self.meter = Meter()
        graph_dir = Path(config.work_dir) / "graphiti_graph"
        shutil.rmtree(graph_dir, ignore_errors=True)
        self._embedder = warmed(embedder or default_embedder())
        self._memory = Memory(data_dir=graph_dir, embedder=self._embedder)  # only for its FalkorDB server
        self._cache_dir = Path(config.options.get("llm_cache_dir") or Path(config.work_dir) / "llm_cache")
        self._search_config = COMBINED_HYBRID_SEARCH_RRF.model_copy(update={"limit": config.k})
        self._loop = asyncio.new_event_loop()
        self._graphiti: dict[str, Any] = {}
        self._turn_of: dict[str, str] = {}
        self._stored: dict[str, set[str]] = {}

    def ingest(self, conversation: Conversation) -> IngestStats:
        """One ``add_episode`` per turn, sessions in time order; failures recorded per turn."""
        start, before = time.perf_counter(), self.meter.snapshot().total
        group, errors, episodes = memory_id(conversation.conversation_id), [], 0
        stored = self._stored.setdefault(conversation.conversation_id, set())
        for session in sorted(conversation.sessions, key=lambda s: s.session_time):
            for turn in session.turns:
                episodes += 1
                try:
                    uuid = self._run(self._add(group, session, turn))
                except Exception as exc:  # noqa: BLE001 - one bad turn must not end the run; counted
                    errors.append(f"{turn.id}: {type(exc).__name__}: {exc}"[:300])
                    continue
                self._turn_of[uuid] = turn.id
                stored.add(turn.id)
        spent = self.meter.snapshot().total - before
        return IngestStats(episodes=episodes, seconds=time.perf_counter() - start, llm_calls=spent.calls,
                           prompt_tokens=spent.prompt_tokens, completion_tokens=spent.completion_tokens,
                           errors=tuple(errors))

    def stored_turn_ids(self, conversation_id: str) -> set[str]:
        """Turns whose episode Graphiti stored (its edges can only cite these)."""
        return set(self._stored.get(conversation_id, set()))

    def context(self, conversation_id: str, question: Question) -> Context:
        start = time.perf_counter()
        try:
            results = self._run(self._search(memory_id(conversation_id), question.question))
        except Exception as exc:  # noqa: BLE001 - the harness counts it as an error, not an empty result
            return Context(text="", error=f"{type(exc).__name__}: {exc}"[:300])
        elapsed = (time.perf_counter() - start) * 1000
        cited = [e.uuid for e in results.episodes] + [u for edge in results.edges for u in edge.episodes]
        ids = tuple(dict.fromkeys(self._turn_of[u] for u in cited if u in self._turn_of))
        text = render_results(results.edges, results.episodes)
        return Context(text=text, turn_ids=ids, tokens=estimate_tokens(text), latency_ms=elapsed)

    def close(self) -> None:
        for graphiti in self._graphiti.values():
            self._run(close_graphiti(graphiti))
        self._graphiti.clear()
        self._loop.close()
        self._memory.close()

    # async internals, all on this system's own loop

    def _run(self, coro: Any) -> Any:
        return self._loop.run_until_complete(coro)

    async def _open(self, group: str) -> Any:
        if group in self._graphiti:
            return self._graphiti[group]
        while len(self._graphiti) >= OPEN_GRAPHS:  # LongMemEval: 500 memories, one at a time
            await close_graphiti(self._graphiti.pop(next(iter(self._graphiti))))
        from falkordb.asyncio import FalkorDB as AsyncFalkorDB
        from graphiti_core import Graphiti
        from graphiti_core.driver.falkordb_driver import FalkorDriver
        from openai import AsyncOpenAI

        from graphmem.evals.graphiti_compat import _graphiti_classes

        llm = self.config.llm
        embedder_class, _, no_cross_encoder = _graphiti_classes()
        driver = FalkorDriver(falkor_db=AsyncFalkorDB.from_url(self._memory.store.url), database=group)
        if getattr(driver, "_init_task", None) is not None:
            await driver._init_task
        graphiti = Graphiti(graph_driver=driver, llm_client=self._llm_client(llm, AsyncOpenAI),
                            embedder=embedder_class(self._embedder), cross_encoder=no_cross_encoder())
        await graphiti.build_indices_and_constraints()
        await _drop_crashing_indexes(driver)
        self._graphiti[group] = graphiti
        return graphiti

    def _llm_client(self, llm: Any, async_openai: Any) -> Any:
        from graphiti_core.llm_client.config import LLMConfig
        from graphiti_core.llm_client.openai_generic_client import OpenAIGenericClient

        config = LLMConfig(api_key=llm.api_key, base_url=llm.base_url, model=llm.model, small_model=llm.model,
                           temperature=llm.temperature)
        client = async_openai(api_key=llm.api_key, base_url=llm.base_url, max_retries=3,
                              http_client=async_caching_http_client(self._cache_dir, self.meter, STAGE))
        return OpenAIGenericClient(config, client=client)

    async def _add(self, group: str, session: Any, turn: Any) -> str:
        from graphiti_core.nodes import EpisodeType

        graphiti = await self._open(group)
        result = await graphiti.add_episode(
            name=turn.id, episode_body=f"{turn.speaker}: {turn.content}",
            source_description=f"conversation {group}, {session.session_id}",
            reference_time=session.session_time, source=EpisodeType.message, group_id=group,
        )
        return result.episode.uuid

    async def _search(self, group: str, text: str) -> Any:
        graphiti = await self._open(group)
        return await graphiti.search_(text, config=self._search_config, group_ids=[group])


# Range-indexed properties that Graphiti also full-text indexes (see _drop_crashing_indexes).
DOUBLE_INDEXED = (
    "DROP INDEX FOR (n:Entity) ON (n.name)",
    "DROP INDEX FOR (n:Entity) ON (n.group_id)",
    "DROP INDEX FOR (n:Episodic) ON (n.group_id)",
    "DROP INDEX FOR ()-[e:RELATES_TO]-() ON (e.name)",
    "DROP INDEX FOR ()-[e:RELATES_TO]-() ON (e.group_id)",
)


async def _drop_crashing_indexes(driver: Any) -> None:
    """Drop the range indexes on properties Graphiti also full-text indexes.

    On falkordblite 0.11, ``WHERE n.name IN $list`` (Graphiti's exact-name node
    lookup, and any ``group_id IN``) kills the redis-server when the property
    has both a range and a full-text index and the list holds certain absent
    values (``["That"]`` after a node "Caroline" exists). Without the range
    index the same queries answer correctly; each graph holds one group, so
    the scan is small.
    """
    for statement in DOUBLE_INDEXED:
        try:
            await driver.execute_query(statement)
        except Exception:  # noqa: BLE001 - an index already gone is fine
            pass


__all__ = ["STAGE", "GraphitiLLMSystem", "render_results"]

