"""`Memory.to_networkx`: the facts true at T as known at K, as a MultiDiGraph."""

from __future__ import annotations

import networkx as nx
import pytest

from graphmem import InvalidInput


def homes(graph: nx.MultiDiGraph) -> set[str]:
    return {v for _, v, p in graph.out_edges("user", data="predicate") if p == "LIVES_IN"}


def test_a_past_date_holds_the_old_home_and_not_the_new(moved):
    past = moved.to_networkx("u", valid_at="2024-04-15")
    assert isinstance(past, nx.MultiDiGraph)
    assert homes(past) == {"Beijing"}
    assert "Shanghai" not in past, "nothing about Shanghai held in April"
    assert homes(moved.to_networkx("u")) == {"Shanghai"}
    assert "Beijing" not in moved.to_networkx("u")


def test_edges_and_nodes_carry_the_fact_and_entity_attributes(moved):
    graph = moved.to_networkx("u", valid_at="2024-04-15")
    [(key, edge)] = [(k, d) for _, v, k, d in graph.out_edges("user", keys=True, data=True) if v == "Beijing"]
    assert key == edge["uuid"] and edge["predicate"] == "LIVES_IN" and "Beijing" in edge["fact"]
    assert edge["valid_at"].date().isoformat() == "2024-03-10"
    assert edge["invalid_at"].date().isoformat() == "2024-06-01" and edge["status"] == "superseded"
    assert edge["source_turn_ids"] == ("march#0",) and edge["created_at"] is not None
    assert graph.nodes["Anna"]["uuid"] and graph.nodes["user"]["name"] == "user"
    assert graph.has_edge("Anna", "Google"), "facts about other entities are in the graph too"
    assert graph.graph["user_id"] == "u" and graph.graph["valid_at"].date().isoformat() == "2024-04-15"


def test_known_at_shows_what_graphmem_believed_then(moved):
    then = moved.to_networkx("u", valid_at="2024-09-01", known_at=moved.known_before_move)
    assert homes(then) == {"Beijing"}, "before the July write Beijing was still the home"
    assert then.edges["user", "Beijing", next(iter(then["user"]["Beijing"]))]["status"] == "current"


def test_unknown_users_are_empty_and_bad_input_is_refused(moved):
    assert moved.to_networkx("nobody").number_of_nodes() == 0
    with pytest.raises(InvalidInput):
        moved.to_networkx("u", valid_at="yesterday-ish")
    with pytest.raises(InvalidInput):
        moved.to_networkx("bad user")
