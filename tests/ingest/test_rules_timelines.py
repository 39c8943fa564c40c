"""State changes across two sessions, through `Memory.write` and `Memory.facts(valid_at=...)`:
the ending or the new value said in session two closes what session one stated."""

from __future__ import annotations

import pytest

THEN, NOW = "2024-03-01", "2024-09-01"


def objects(mem, user: str, when: str, predicate: str) -> set[str]:
    return {f.object for f in mem.facts(user, valid_at=when) if f.predicate == predicate}


@pytest.mark.parametrize("first,second,predicate,then,now", [
    ("I'm studying marine biology at Dalhousie.", "I graduated from Dalhousie in May!", "STUDIES_AT",
     {"Dalhousie"}, set()),
    ("My favourite book is Middlemarch.", "My favourite book these days is Piranesi.", "LIKES",
     {"Middlemarch"}, {"Piranesi"}),
    ("I have a cat named Mochi.", "Sadly our cat Mochi passed away in June.", "HAS_PET", {"Mochi"}, set()),
    ("I bought a motorbike.", "I sold my motorbike because I never rode it.", "OWNS", {"motorbike"}, set()),
    ("I love running.", "I gave up running and took up swimming instead.", "LIKES", {"running"}, set()),
    ("I work at Northwind as an analyst.", "I'm no longer with Northwind, I joined Fabrikam in May.", "WORKS_AT",
     {"Northwind"}, {"Fabrikam"}),
    ("I've been dating Noah since the summer.", "Noah and I broke up last month.", "PARTNER_OF", {"Noah"}, set()),
    # an ending and the new value in one sentence: the ending closes the old value first
    ("I'm vegan.", "I'm no longer vegan, I'm vegetarian now.", "DIET", {"vegan"}, {"vegetarian"}),
    ("I live in Brooklyn.", "We moved out of Brooklyn in May and now live in Queens.", "LIVES_IN",
     {"Brooklyn"}, {"Queens"}),
])
def test_the_second_session_closes_the_first(memory, first, second, predicate, then, now):
    memory.write("u", [{"speaker": "Jess", "content": first}], "2024-01-15", session_id="s1")
    memory.write("u", [{"speaker": "Jess", "content": second}], "2024-07-15", session_id="s2")
    assert objects(memory, "u", THEN, predicate) == then
    assert objects(memory, "u", NOW, predicate) == now


@pytest.mark.parametrize("first,second,then,now", [
    # "got into" reads STARTED and LIKES; the ending closes both (ingest.facts.also_ended)
    ("I've really got into pottery lately.", "I lost interest in pottery in May.", {"pottery"}, set()),
    # asked in passing, ended sideways: a presupposition and an idiom (rules.presupposed, rules.idioms)
    ("My cat Juniper keeps scratching the sofa, what can I do?", "We had to have Juniper put to sleep in May.",
     {"Juniper"}, set()),
    ("How do I clean the seats of my Honda Civic?", "Finally got rid of the Civic in May.", {"Honda Civic"}, set()),
])
def test_an_oblique_ending_closes_every_fact_of_what_it_names(memory, first, second, then, now):
    memory.write("u", [{"speaker": "Jess", "content": first}], "2024-01-15", session_id="s1")
    memory.write("u", [{"speaker": "Jess", "content": second}], "2024-07-15", session_id="s2")
    held = lambda when: {f.object for f in memory.facts("u", valid_at=when)  # noqa: E731
                         if f.predicate in ("LIKES", "STARTED", "HAS_PET", "OWNS")}
    assert held(THEN) == then
    assert held(NOW) == now
