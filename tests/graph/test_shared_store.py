"""Two clients of one FalkorDB (two processes, or two service workers) see each other's
drops: a graph one client dropped is gone for the other at once, also in the middle of a
search or while the other waits for the user's lock; a write after it makes a whole graph
again (indexes and record), nothing else makes one anew; and warm search indexes do not
outlive the dropped graph, even when the new graph's version counts up to the old one's."""

import threading

import pytest

from graphmem import Memory
from graphmem.graph import cypher as q
from graphmem.graph.cypher import Query
from graphmem.retrieval import packet_lines
from graphmem.schema.errors import NotFound, StoreError

INDEXES = Query("CALL db.indexes() YIELD label RETURN label", {})


def say(mem, user, text, day):
    mem.write(user, [{"role": "user", "content": text}], f"2024-01-{day:02d}")


@pytest.fixture
def clients(tmp_path, embedder):
    with Memory(data_dir=tmp_path / "gm", embedder=embedder) as first, \
            Memory(data_dir=tmp_path / "gm", embedder=embedder) as second:
        yield first, second


def racing(first, second, call):
    """`call()` on a thread; once it asks for the user's lock (past any check it makes before),
    `second` drops user "u" while holding that lock, then lets it in. Returns what `call`
    returned or raised."""
    asked, outcome = threading.Event(), []
    real = first.store.user_lock

    def user_lock(user_id):
        asked.set()
        return real(user_id)

    def run():
        try:
            outcome.append(call())
        except Exception as exc:  # noqa: BLE001 - the test looks at it
            outcome.append(exc)

    first.store.user_lock = user_lock
    try:
        with second.store.user_lock("u"):
            thread = threading.Thread(target=run)
            thread.start()
            assert asked.wait(30.0)
            assert second.drop_user("u")
        thread.join(60.0)
    finally:
        del first.store.user_lock
    assert len(outcome) == 1
    return outcome[0]


def test_a_graph_another_client_dropped_reads_as_no_memory(clients):
    first, second = clients
    say(first, "u", "I live in Oslo.", 1)
    assert first.search("u", "where do I live?").episodes
    assert second.drop_user("u")
    assert not first.store.has_graph("u")
    packet = first.search("u", "where do I live?")  # was a StoreError: "empty key"
    assert packet.abstain and not packet.episodes and not packet.facts
    assert first.facts("u") == []


def test_a_write_waiting_for_the_lock_while_another_client_drops_makes_a_whole_graph(clients):
    first, second = clients
    say(first, "u", "I live in Oslo.", 1)
    result = racing(first, second, lambda: say(first, "u", "I live in Bergen.", 2))
    assert result is None  # with the graph checked before the lock: a bare graph, and the write failed
    assert {row["label"] for row in first.store.run("u", INDEXES)} >= {"Episodic", "Entity", "RELATES_TO"}
    assert first.inspect().embedding("u").embedder == first.embedder.name
    assert [f.object for f in first.facts("u")] == ["Bergen"]
    assert [e.content for e in first.search("u", "where do I live?").episodes] == ["I live in Bergen."]


@pytest.mark.parametrize("call, expected", [
    (lambda mem: mem.rebuild("u"), NotFound),
    (lambda mem: mem.restore("u", "no-such-fact"), False),
    (lambda mem: mem.purge("u"), 0),
    (lambda mem: mem.confirm("u", "no-such-fact"), NotFound),
], ids=["rebuild", "restore", "purge", "confirm"])
def test_a_call_waiting_for_the_lock_while_another_client_drops_makes_no_graph(clients, call, expected):
    """Each checks for the graph, then waits for the user's lock; a drop in that wait must
    end it as for an unknown user. Checked only before the lock, rebuild made an empty graph
    with its record anew, and the others' write queries a bare one."""
    first, second = clients
    say(first, "u", "I live in Oslo.", 1)
    got = racing(first, second, lambda: call(first))
    if isinstance(expected, type):
        assert isinstance(got, expected)
    else:
        assert got == expected
    assert "u" not in second.users() and not first.store.has_graph("u")


def drop_before(monkeypatch, second, step):
    """`second` drops user "u" just before a search reaches `packet_lines.<step>`."""
    real = getattr(packet_lines, step)

    def dropped_then(*args, **kwargs):
        assert second.drop_user("u")
        return real(*args, **kwargs)

    monkeypatch.setattr(packet_lines, step, dropped_then)


def test_a_search_during_which_another_client_drops_reads_as_no_memory(clients, monkeypatch):
    """The drop comes after the search has ranked its lines: the queries left fail on the
    missing graph, which reads as no memory rather than a StoreError."""
    first, second = clients
    say(first, "u", "I live in Oslo.", 1)
    drop_before(monkeypatch, second, "fit")
    packet = first.search("u", "where do I live?")
    assert packet.abstain and not packet.facts and not packet.episodes
    assert "u" not in second.users()


def test_a_search_whose_graph_is_dropped_before_its_last_write_does_not_make_it_anew(clients, monkeypatch):
    """A search marks the facts it returns as used (a write). After a drop that write would
    create an empty graph under the user's name, undoing the erasure."""
    first, second = clients
    say(first, "u", "I live in Oslo.", 1)
    drop_before(monkeypatch, second, "fit_entities")
    first.search("u", "where do I live?")
    assert "u" not in second.users()


def racing_touch(monkeypatch, act):
    """`act()` runs after a search has checked that its graph exists, just before it marks
    the facts it returns as used (no check before a write can rule this out)."""
    real = q.touch_facts

    def acted_then(*args, **kwargs):
        act()
        return real(*args, **kwargs)

    monkeypatch.setattr(q, "touch_facts", acted_then)


def test_a_drop_between_a_searchs_check_and_its_touch_leaves_no_graph(clients, monkeypatch):
    """The touch, a write, makes an empty graph under the dropped user's name; the search
    sees it found none of its facts and deletes that graph, which holds nothing."""
    first, second = clients
    say(first, "u", "I live in Oslo.", 1)
    racing_touch(monkeypatch, lambda: second.drop_user("u"))
    first.search("u", "where do I live?")
    assert "u" not in second.users() and not first.store.has_graph("u")


def test_a_touch_that_finds_its_facts_forgotten_keeps_the_rest_of_the_memory(clients, monkeypatch):
    """Facts forgotten between the read and the touch also leave it nothing to mark, but
    the graph still holds the turns: it stays, whole."""
    first, second = clients
    say(first, "u", "I live in Oslo.", 1)
    say(first, "u", "My sister is called Ingrid.", 2)
    racing_touch(monkeypatch, lambda: second.forget("u", {"entity": "Oslo"}, confirm=True))
    first.search("u", "where do I live?")
    assert first.store.has_graph("u")
    assert "Ingrid" in " ".join(e.content for e in first.search("u", "what is my sister called?").episodes)


def test_warm_indexes_do_not_outlive_a_graph_another_client_dropped(clients):
    first, second = clients
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


def test_a_read_of_a_missing_graph_is_an_error_unless_asked_otherwise(clients):
    """Only reads that ask for it (`missing_ok`) read a missing graph as no rows: a writer's
    read under the lock that finds its graph gone must stop, not write a bare graph anew."""
    first, _ = clients
    query = Query("MATCH (n) RETURN n.uuid AS uuid", {})
    assert first.store.run("nobody", query, read_only=True, missing_ok=True) == []
    with pytest.raises(StoreError, match="empty key"):
        first.store.run("nobody", query, read_only=True)
    assert "nobody" not in first.users()  # neither read made a graph


def test_a_key_of_another_type_under_a_users_name_is_no_graph(clients):
    """On a shared server another key may carry a user's name; it is not a memory."""
    first, _ = clients
    first.store.execute("SET", "carol", "not a graph")
    assert not first.store.has_graph("carol")
    assert first.search("carol", "anything?").abstain
