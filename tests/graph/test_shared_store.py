"""Two clients of one FalkorDB (two processes, or two service workers) see each other's
drops: a graph one client dropped is gone for the other at once, its next write makes a
whole graph again (indexes and record), and its warm search indexes do not outlive the
dropped graph, even when the new graph's version counts up to the old one's."""

from graphmem import Memory
from graphmem.graph.cypher import Query

INDEXES = Query("CALL db.indexes() YIELD label RETURN label", {})


def say(mem, user, text, day):
    mem.write(user, [{"role": "user", "content": text}], f"2024-01-{day:02d}")


def test_a_graph_another_client_dropped_reads_as_no_memory(tmp_path, embedder):
    with Memory(data_dir=tmp_path / "gm", embedder=embedder) as first, \
            Memory(data_dir=tmp_path / "gm", embedder=embedder) as second:
        say(first, "u", "I live in Oslo.", 1)
        assert first.search("u", "where do I live?").episodes
        assert second.drop_user("u")
        assert not first.store.has_graph("u")
        packet = first.search("u", "where do I live?")  # was a StoreError: "empty key"
        assert packet.abstain and not packet.episodes and not packet.facts
        assert first.facts("u") == []


def test_a_write_after_another_clients_drop_makes_a_whole_graph(tmp_path, embedder):
    with Memory(data_dir=tmp_path / "gm", embedder=embedder) as first, \
            Memory(data_dir=tmp_path / "gm", embedder=embedder) as second:
        say(first, "u", "I live in Oslo.", 1)
        assert second.drop_user("u")
        say(first, "u", "I live in Bergen.", 2)  # failed before: a bare graph had no record or indexes
        assert {row["label"] for row in first.store.run("u", INDEXES)} >= {"Episodic", "Entity", "RELATES_TO"}
        assert first.inspect().embedding("u").embedder == embedder.name
        assert [f.object for f in first.facts("u")] == ["Bergen"]
        assert [e.content for e in first.search("u", "where do I live?").episodes] == ["I live in Bergen."]


def test_warm_indexes_do_not_outlive_a_graph_another_client_dropped(tmp_path, embedder):
    with Memory(data_dir=tmp_path / "gm", embedder=embedder) as first, \
            Memory(data_dir=tmp_path / "gm", embedder=embedder) as second:
        say(second, "u", "My dentist is Dr Hargreaves.", 1)
        assert first.search("u", "Hargreaves").episodes  # first's warm indexes now hold the turn
        version = first.store.run("u", Query("MATCH (m:GraphmemMeta) RETURN m.version AS v", {}))[0]["v"]
        assert second.drop_user("u")
        say(second, "u", "I adopted a cat.", 2)
        now = second.store.run("u", Query("MATCH (m:GraphmemMeta) RETURN m.version AS v", {}))[0]["v"]
        assert now == version  # the new graph's version met the old one's
        found = first.search("u", "Who is my dentist, Hargreaves?")
        # with the dropped graph's BM25 and names, the question's words all looked stored
        # (topic coverage 1.0) and the packet answered with the cat
        assert found.abstain and not found.episodes and not found.entities
        assert [e.content for e in first.search("u", "what pet did I adopt?").episodes] == ["I adopted a cat."]


def test_a_read_of_a_graph_that_is_gone_reads_nothing(tmp_path, embedder):
    """A read that comes after another client's drop (or races it, between `has_graph` and the
    query) gets no rows; FalkorDB answers a read-only query on a missing graph with an error."""
    with Memory(data_dir=tmp_path / "gm", embedder=embedder) as mem:
        assert mem.store.run("nobody", Query("MATCH (n) RETURN n.uuid AS uuid", {}), read_only=True) == []
        assert "nobody" not in mem.users()  # the read made no graph


def test_a_rebuild_waiting_for_the_lock_while_another_client_drops_makes_no_graph(tmp_path, embedder):
    """`rebuild` checks for the graph, then waits for the user's lock; a drop by the lock's
    holder in that wait must end it with NotFound, not with an empty graph made anew."""
    import threading

    import pytest

    from graphmem.schema.errors import NotFound

    with Memory(data_dir=tmp_path / "gm", embedder=embedder) as first, \
            Memory(data_dir=tmp_path / "gm", embedder=embedder) as second:
        say(first, "u", "I live in Oslo.", 1)
        outcome = []

        def rebuild():
            try:
                outcome.append(first.rebuild("u"))
            except NotFound as exc:
                outcome.append(exc)

        with second.store.user_lock("u"):
            waiter = threading.Thread(target=rebuild)
            waiter.start()
            waiter.join(1.0)
            assert waiter.is_alive()  # past its first check, waiting for the lock
            assert second.drop_user("u")
        waiter.join(30.0)
        assert len(outcome) == 1 and isinstance(outcome[0], NotFound)
        assert not first.store.has_graph("u") and "u" not in second.users()
        with pytest.raises(NotFound):
            first.rebuild("u")
