"""Communities: Louvain groups of the current graph, stored, recomputed, forgotten."""

from __future__ import annotations

import networkx as nx
import pytest

from graphmem import InvalidInput, Memory
from graphmem.analysis.communities import detect


def two_clusters() -> nx.MultiDiGraph:
    """Two tight groups (every pair joined, the hub by two facts to each) and one bridge."""
    graph = nx.MultiDiGraph()
    for hub, leaves in {"Hub A": ["a1", "a2", "a3"], "Hub B": ["b1", "b2", "b3"]}.items():
        graph.add_nodes_from([(name, {"uuid": f"id-{name}"}) for name in (hub, *leaves)])
        for leaf in leaves:
            graph.add_edge(hub, leaf, key=f"{hub}-{leaf}-1")
            graph.add_edge(leaf, hub, key=f"{hub}-{leaf}-2")
        graph.add_edges_from([(x, y) for x in leaves for y in leaves if x < y])
    graph.add_edge("a1", "b1", key="bridge")
    return graph


def test_louvain_finds_the_two_clusters_labelled_by_their_hubs():
    groups = detect(two_clusters(), version=7)
    assert [(g.label, set(g.members)) for g in groups] == [
        ("Hub A", {"Hub A", "a1", "a2", "a3"}), ("Hub B", {"Hub B", "b1", "b2", "b3"})]
    assert groups[0].centrality[0] == 1.0 and all(g.graph_version == 7 for g in groups)
    assert detect(two_clusters(), version=7) == groups, "seeded and built in sorted order: deterministic"


def shape(communities) -> list[tuple]:
    return [(g.uuid, g.label, g.members, g.centrality) for g in communities.groups]


def test_stored_deterministic_and_read_back_without_recomputing(moved):
    first = moved.communities("u")
    assert first.recomputed and first.groups
    again = moved.communities("u", recompute=True)
    assert again.recomputed and shape(again) == shape(first)
    members = {name for g in first.groups for name in g.members}
    assert {"user", "Shanghai", "Anna", "Google"} <= members and "Beijing" not in members, "the current graph only"
    assert first.of("Shanghai") == first.of("user") and first.of("Shanghai").label == "user"
    hits = {(h.label, h.field) for h in moved.inspect().contains_text("u", first.groups[0].label)}
    assert {("Community", "name"), ("Community", "summary")} <= hits, "stored as Community nodes"
    stored = moved.communities("u")
    assert not stored.recomputed and shape(stored) == shape(first)
    assert stored.to_records()[0]["size"] == first.groups[0].size


def test_recomputed_after_new_writes(moved):
    before = moved.communities("u")
    moved.add_fact("u", "Anna", "lives_in", "Lisbon", valid_at="2024-08-01")
    after = moved.communities("u")
    assert after.recomputed and after.graph_version > before.graph_version
    assert "Lisbon" in after.of("Anna").members
    assert not moved.communities("u").recomputed


def test_forgetting_the_label_entity_removes_the_communities(moved):
    label = next(g.label for g in moved.communities("u").groups if "Google" in g.members)
    assert label in ("Anna", "Google")
    moved.forget("u", {"entity": label})
    hits = moved.inspect().contains_text("u", label)
    assert not hits, f"{label!r} is still stored: {hits}"
    assert not any(h.label == "Community" for h in moved.inspect().contains_text("u", "user"))
    rebuilt = moved.communities("u")
    assert rebuilt.recomputed and label not in {n for g in rebuilt.groups for n in g.members}


def test_forgotten_label_leaves_no_bytes_on_disk(tmp_path, embedder):
    data_dir = tmp_path / "gm"
    with Memory(data_dir=data_dir, embedder=embedder) as mem:
        mem.add_fact("u", "user", "has_friend", "Quetzalina", single_valued=False)
        mem.add_fact("u", "Quetzalina", "likes", "tea", single_valued=False)
        mem.add_fact("u", "Quetzalina", "likes", "chess", single_valued=False)
        assert mem.communities("u").groups[0].label == "Quetzalina"
        mem.forget("u", {"entity": "Quetzalina"})
        assert mem.communities("u").groups == (), "every fact went with Quetzalina"
    blob = b"".join(p.read_bytes() for p in data_dir.rglob("*") if p.is_file())
    assert b"quetzalina" not in blob.lower()


def test_unknown_user_and_bad_flag(moved):
    assert moved.communities("nobody").groups == ()
    assert "nobody" not in moved.users()
    with pytest.raises(InvalidInput):
        moved.communities("u", recompute="yes")
