"""Graphiti proper, reading a graph graphmem wrote: for compatibility checks and
for running Graphiti's own search beside graphmem's under the same embedder.

Graphiti needs an LLM client and a cross-encoder object to be constructed; the
ones here refuse to be called, so a search that would need an LLM fails loudly
instead of reaching the network. Requires the ``[eval]`` extra.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from graphmem.embedding.embedder import Embedder


def _graphiti_classes():
    os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")
    from graphiti_core.cross_encoder.client import CrossEncoderClient
    from graphiti_core.embedder.client import EmbedderClient, EmbedderConfig
    from graphiti_core.llm_client.client import LLMClient
    from graphiti_core.llm_client.config import LLMConfig

    class GraphmemEmbedder(EmbedderClient):
        """Graphiti's embedder interface over graphmem's MiniLM."""

        def __init__(self, embedder: Embedder) -> None:
            self.config = EmbedderConfig(embedding_dim=embedder.dimension)
            self._embedder = embedder

        async def create(self, input_data):
            text = input_data[0] if isinstance(input_data, list) else input_data
            return self._embedder.embed([str(text)])[0].tolist()

        async def create_batch(self, input_data_list: Sequence[str]) -> list[list[float]]:
            return [v.tolist() for v in self._embedder.embed(list(input_data_list))]

    class NoLLM(LLMClient):
        def __init__(self) -> None:
            super().__init__(LLMConfig(api_key="unused"))

        async def _generate_response(self, *args, **kwargs):
            raise RuntimeError("graphmem's Graphiti comparison makes no LLM calls")

    class NoCrossEncoder(CrossEncoderClient):
        async def rank(self, query, passages):
            raise RuntimeError("graphmem's Graphiti comparison uses no cross-encoder")

    return GraphmemEmbedder, NoLLM, NoCrossEncoder


async def open_graphiti(url: str, user_id: str, embedder: Embedder):
    """A Graphiti instance over the graph of `user_id` at `url` (redis:// or unix://).

    Graphiti's FalkorDB full-text search finds nothing for group ids containing
    '-' (its query escaping), so compare on ids made of letters, digits and '_'.
    """
    from falkordb.asyncio import FalkorDB as AsyncFalkorDB
    from graphiti_core import Graphiti
    from graphiti_core.driver.falkordb_driver import FalkorDriver

    graphmem_embedder, no_llm, no_cross_encoder = _graphiti_classes()
    driver = FalkorDriver(falkor_db=AsyncFalkorDB.from_url(url), database=user_id)
    if getattr(driver, "_init_task", None) is not None:
        await driver._init_task
    return Graphiti(
        graph_driver=driver, llm_client=no_llm(), embedder=graphmem_embedder(embedder), cross_encoder=no_cross_encoder()
    )


async def close_graphiti(graphiti: Any) -> None:
    """Close Graphiti and its connection pool: `Graphiti.close()` leaves the pool open, and the
    embedded server, seeing a client, would outlive the run (`graphmem.graph.embedded`)."""
    await graphiti.close()
    pool = getattr(getattr(graphiti.driver.client, "connection", None), "connection_pool", None)
    if pool is not None:
        await pool.disconnect(inuse_connections=True)
