"""A search of some scopes behaves as if the memory held only those scopes: other
scopes' facts and turns neither crowd its candidate lists (so it gets every line
it should) nor decide its abstention (so it abstains on what its scopes never
said, and its signals say nothing about the other scopes)."""

from __future__ import annotations

NOW = "2024-09-01"


def test_another_scopes_many_close_facts_do_not_crowd_out_the_searched_scopes(memory):
    crowd = [{"subject": "alice", "predicate": "hiked", "object": f"Trail {n}", "single_valued": False,
              "fact": f"Alice hiked trail {n} in the hills.", "valid_at": "2024-01-01", "scope": "project:apollo"}
             for n in range(120)]
    mine = [{"subject": "alice", "predicate": "hiked", "object": name, "single_valued": False,
             "fact": f"Alice went walking up {name}.", "valid_at": "2024-01-01"}
            for name in ("Ben Nevis", "Snowdon", "Scafell Pike")]
    memory.add_facts("u", crowd + mine)
    packet = memory.search("u", "Which trails did Alice hike in the hills?", now=NOW, scopes=["user"], limit=5)
    assert not packet.abstain, packet.reason
    assert {f.object for f in packet.facts} == {"Ben Nevis", "Snowdon", "Scafell Pike"}
    both = memory.search("u", "Which trails did Alice hike in the hills?", now=NOW,
                         scopes=["user", "project:apollo"])
    assert len(both.facts) == 10  # the crowd is still found when its scope is asked for


def test_abstention_reads_only_the_searched_scopes(memory):
    memory.write("u", [{"role": "user", "content": "I like green tea in the morning."}], "2024-03-01")
    memory.write("u", [{"role": "user", "content": "My dentist appointment is on Friday at the clinic."},
                       {"role": "user", "content": "The dentist said my molar needs a filling."}],
                 "2024-03-02", scope="project:apollo")
    asked = "When is my dentist appointment?"
    theirs = memory.search("u", asked, now=NOW, scopes=["project:apollo"])
    assert not theirs.abstain
    mine = memory.search("u", asked, now=NOW)
    assert mine.abstain, (mine.reason, mine.topic_coverage, mine.masked_similarity)
    assert not mine.facts and not mine.episodes
    memory.write("w", [{"role": "user", "content": "I like green tea in the morning."}], "2024-03-01")
    same = memory.search("w", asked, now=NOW)
    # the signals are those of a memory holding only the user scope: nothing of the other leaks through them
    assert (mine.topic_coverage, round(mine.masked_similarity, 4)) == (same.topic_coverage,
                                                                        round(same.masked_similarity, 4))


def test_an_entity_line_summarises_only_the_searched_scopes(memory):
    memory.add_fact("u", "user", "lives_in", "Beijing", valid_at="2024-01-01")
    memory.add_fact("u", "user", "works_at", "Zapcorp", valid_at="2024-01-01", scope="project:apollo")
    packet = memory.search("u", "Where do I live?", now=NOW)
    user = next(e for e in packet.entities if e.name == "user")
    assert "Beijing" in user.summary and "Zapcorp" not in packet.to_prompt()
    theirs = memory.search("u", "Where do I work?", now=NOW, scopes=["project:apollo"])
    assert "Beijing" not in theirs.to_prompt() and "Beijing" not in str(theirs.model_dump())


def test_both_ways_of_fetching_a_scoped_vector_list_agree_and_stay_in_scope(memory):
    from graphmem.graph import cypher as q

    rows = [{"subject": "alice", "predicate": "likes", "object": f"Thing {n}", "single_valued": False,
             "fact": f"Alice likes thing number {n}.", "scope": "user" if n % 4 else "project:apollo"}
            for n in range(40)]
    memory.add_facts("u", rows)
    scope_of = {f.uuid: f.scope for f in memory.facts("u")}
    vector = memory._embed(["What does Alice like?"])[0].tolist()
    for scopes in (["user"], ["project:apollo"]):
        outside = sum(1 for s in scope_of.values() if s not in scopes)
        overfetched = memory.store.run("u", q.vector_facts(vector, 5, scopes, fetch=5 + outside), read_only=True)
        scanned = memory.store.run("u", q.vector_facts(vector, 5, scopes), read_only=True)
        assert [r["uuid"] for r in overfetched] == [r["uuid"] for r in scanned] and len(scanned) == 5
        assert {scope_of[r["uuid"]] for r in scanned} == set(scopes)
