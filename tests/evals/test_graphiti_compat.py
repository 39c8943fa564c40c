"""Graphiti's own search() and search_() run over a graph graphmem wrote."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("graphiti_core", reason="the [eval] extra installs graphiti-core")

from graphiti_core.search.search_config_recipes import COMBINED_HYBRID_SEARCH_RRF  # noqa: E402

from graphmem.evals.graphiti_compat import open_graphiti  # noqa: E402

USER = "graphiti_user"


@pytest.fixture
def written(memory):
    memory.add_fact(USER, "Alice", "works_at", "Acme Robotics", fact="Alice works at Acme Robotics.", valid_at="2023-01-01")
    memory.add_fact(USER, "Alice", "works_at", "Globex", fact="Alice works at Globex.", valid_at="2024-05-01")
    memory.add_fact(USER, "Alice", "has_pet", "Max", fact="Alice has a dog named Max.", single_valued=False)
    memory.add_fact(USER, "Bob", "lives_in", "Lisbon", fact="Bob lives in Lisbon.")
    memory.add_fact("someone_else", "Carol", "works_at", "Globex", fact="Carol works at Globex.")
    return memory


def run(coro):
    return asyncio.run(coro)


async def close(graphiti) -> None:
    """Graphiti's close leaves the connection pool of `FalkorDB.from_url` open,
    and an open foreign connection keeps graphmem's embedded server up."""
    await graphiti.close()
    await graphiti.driver.client.connection.connection_pool.disconnect()


def test_graphiti_search_finds_graphmem_facts(written, embedder):
    async def go():
        graphiti = await open_graphiti(written.store.url, USER, embedder)
        try:
            return await graphiti.search("Where does Alice work?", group_ids=[USER], num_results=5)
        finally:
            await close(graphiti)

    edges = run(go())
    facts = [e.fact for e in edges]
    assert facts[0].startswith("Alice works at")
    assert {"Alice works at Acme Robotics.", "Alice works at Globex."} <= set(facts)
    assert "Carol works at Globex." not in facts
    closed = next(e for e in edges if e.fact == "Alice works at Acme Robotics.")
    assert closed.invalid_at is not None and closed.invalid_at.year == 2024 and closed.expired_at is not None


def test_graphiti_combined_hybrid_rrf_returns_edges_and_nodes(written, embedder):
    async def go():
        graphiti = await open_graphiti(written.store.url, USER, embedder)
        try:
            return await graphiti.search_("Alice dog Max", config=COMBINED_HYBRID_SEARCH_RRF, group_ids=[USER])
        finally:
            await close(graphiti)

    results = run(go())
    assert results.edges[0].fact == "Alice has a dog named Max."
    names = {n.name for n in results.nodes}
    assert {"Alice", "Max"} <= names
    assert all(n.group_id == USER for n in results.nodes)
