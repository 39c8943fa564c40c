"""Presupposed facts and oblique changes (issue 12): a fact said in passing, inside a
request or a question, and a change said sideways. Each mechanism has a sentence it
must read and a look-alike it must leave alone; the sentences are not those of the
timeline sets."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from graphmem.ingest.extraction import TurnContext
from graphmem.ingest.rules import RuleExtractor
from graphmem.ingest.rules.extractor import not_restarted, statement_before_question

SESSION = datetime(2024, 7, 15, 10, 0, tzinfo=UTC)
RULES = RuleExtractor(learned=False)


def facts(text: str, speaker: str = "Ann") -> set[tuple[str, ...]]:
    """(subject, predicate, object[, "end"][, "closes"]) of the rules alone."""
    [x] = RULES.extract([TurnContext(text=text, speaker=speaker, session_time=SESSION)])
    return {(f.subject, f.predicate, f.object) + (("end",) if f.valid_at is None else ())
            + (("closes",) if f.closes_only else ()) for f in x.facts}


def states(text: str) -> set[tuple[str, str]]:
    return {(p, o) for _, p, o, *rest in facts(text) if not rest}


# ------------------------------------------------------------------ presuppositions, questions included

@pytest.mark.parametrize("text,fact", [
    ("My supervisor at Harbourview Dental keeps changing the rota. How do I push back?", ("WORKS_AT", "Harbourview Dental")),
    ("How do I tell my coworkers at Brindle Labs I'm leaving early on Fridays?", ("WORKS_AT", "Brindle Labs")),
    ("Working nights at Quayside Hotel is killing me, any tips for sleeping in the day?", ("WORKS_AT", "Quayside Hotel")),
    ("Can you help me with my thesis? My advisor at Carleton University wants it by May.", ("STUDIES_AT", "Carleton University")),
    ("What should I pack for my semester at Aalto University?", ("STUDIES_AT", "Aalto University")),
    ("Our garden in Norwich gets no sun at all, what grows in shade?", ("LIVES_IN", "Norwich")),
    ("The buses here in Halifax are always late, any cycling routes?", ("LIVES_IN", "Halifax")),
    ("Can I put a washing machine in our Brixton flat's kitchen?", ("LIVES_IN", "Brixton")),
    ("Is it safe to drive my Toyota Corolla with the check engine light on?", ("OWNS", "Toyota Corolla")),
    ("how do I reset my Kindle Oasis?", ("OWNS", "Kindle Oasis")),
    ("Is it worth restringing an old Gibson guitar my grandad left me?", ("OWNS", "Gibson guitar")),
    ("Is it ok to give my cat Pickles tuna?", ("HAS_PET", "Pickles")),
    ("What should I cook for my husband Omar on his birthday?", ("MARRIED_TO", "Omar")),
    ("Is oat milk ok? Vegetarian for ten years and never been tired like this.", ("DIET", "vegetarian")),
    ("Six months into paleo and my energy is up, is that normal?", ("DIET", "paleo")),
    ("What's a good lunch to bring as a vegan?", ("DIET", "vegan")),
    ("Woodworking has basically taken over my garage. How do I store clamps?", ("LIKES", "woodworking")),
    ("I spend most weekends hiking, can you suggest a waterproof jacket?", ("LIKES", "hiking")),
])
def test_a_fact_said_in_passing_is_read(text, fact):
    assert fact in states(text)


@pytest.mark.parametrize("text,predicate", [
    ("My sister's boss at Harbourview Dental keeps changing the rota.", "WORKS_AT"),
    ("My brother says his manager at Brindle Labs is great.", "WORKS_AT"),
    ("I quit my job at Brindle Labs in March.", None),  # the ending, no state
    ("My old boss at Brindle Labs called me.", "WORKS_AT"),  # a former job
    ("The food here in Rome is amazing, we're on day three of our trip.", "LIVES_IN"),
    ("Should I move to Denver?", "LIVES_IN"),
    ("Someone stole my Toyota Corolla last night.", None),
    ("I'm building my Ford Mustang model this weekend.", "OWNS"),
    ("Nothing has become my thing yet.", "LIKES"),
])
def test_a_look_alike_presupposes_nothing_that_holds(text, predicate):
    found = states(text)
    if predicate is None:  # an ending's object is not also a state of the same sentence
        assert not any(p in ("WORKS_AT", "OWNS") for p, _ in found), found
    else:
        assert not any(p == predicate for p, _ in found), found


def test_a_question_with_a_statement_first_reads_the_statement():
    assert statement_before_question("I'm pescatarian, what's a good fish for a beginner?") == "I'm pescatarian."
    assert statement_before_question("My Vespa won't start on cold mornings, any ideas?") is not None
    assert statement_before_question("Is it normal, or should I worry?") is None
    assert statement_before_question("What do you think?") is None
    assert ("DIET", "pescatarian") in states("I'm pescatarian, what's a good fish for a beginner?")
    assert ("LIKES", "Alien") in states("My favourite film is Alien, what else would I like?")
    assert not states("Should I move to Denver, or stay in Leeds?")


# ------------------------------------------------------------------ oblique endings

@pytest.mark.parametrize("text,ended", [
    ("I handed in my notice at Brindle Labs last month.", ("WORKS_AT", "Brindle Labs")),
    ("Put in my two weeks at Quayside Hotel in June.", ("WORKS_AT", "Quayside Hotel")),
    ("Got made redundant from Harbourview Dental in the spring.", ("WORKS_AT", "Harbourview Dental")),
    ("Harbourview let me go in May.", ("WORKS_AT", "Harbourview")),
    ("I dropped out of Carleton in the autumn.", ("STUDIES_AT", "Carleton")),
    ("My last day at Brindle was Friday.", ("WORKS_AT", "Brindle")),
    ("We finally left Norwich behind in August.", ("LIVES_IN", "Norwich")),
    ("The lease on our Brixton flat ran out in May.", ("LIVES_IN", "Brixton")),
    ("Omar and I went our separate ways in March.", ("PARTNER_OF", "Omar")),
    ("Omar moved out in the spring.", ("PARTNER_OF", "Omar")),
    ("We had to have Pickles put down last week.", ("HAS_PET", "Pickles")),
    ("We found Pickles a new home in June.", ("HAS_PET", "Pickles")),
    ("Pickles crossed the rainbow bridge in May.", ("HAS_PET", "Pickles")),
    ("Finally got rid of the Corolla in June.", ("OWNS", "Corolla")),
    ("The Gibson went to my nephew at Christmas.", ("OWNS", "Gibson")),
    ("Left my Kindle on a plane in May.", ("OWNS", "Kindle")),
    ("I've put the needles down for now.", ("LIKES", "knitting")),
    ("Haven't cycled since my knee op in March.", ("LIKES", "cycling")),
    ("I lost interest in woodworking over the winter.", ("LIKES", "woodworking")),
    ("Honestly Dune isn't my favourite anymore.", ("LIKES", "Dune")),
    ("I came off paleo in May.", ("DIET", "paleo")),
])
def test_an_ending_said_sideways_closes_what_it_names(text, ended):
    # an ending the older topics read too comes out once, theirs (kept whether or not it closes)
    assert {("Ann", *ended, "end", "closes"), ("Ann", *ended, "end")} & facts(text)


def test_an_ending_with_no_value_closes_the_one_open_fact_of_its_kind():
    [x] = RULES.extract([TurnContext(text="Been back on meat since the spring, honestly.", speaker="Ann",
                                     session_time=SESSION)])
    [end] = [f for f in x.facts if f.predicate == "DIET"]
    assert end.ends_any and end.closes_only and end.valid_at is None
    [x] = RULES.extract([TurnContext(text="I'm single again, for the first time in years.", speaker="Ann",
                                     session_time=SESSION)])
    assert [(f.predicate, f.ends_any) for f in x.facts] == [("PARTNER_OF", True)]


@pytest.mark.parametrize("text", [
    "Sam and I are done with the report.",
    "Tom let me go early today.",
    "Haven't talked to you in days!",
    "I went to Woodhaven, a small town in the Midwest.",
    "We lost our dog Biscuit in May.",  # the pets topic's; no possession
])
def test_a_look_alike_ending_or_start_yields_no_idiom(text):
    found = facts(text)
    assert not any(p in ("PARTNER_OF", "WORKS_AT", "LIKES", "LIVES_IN", "OWNS") for _, p, *_ in found), found


# ------------------------------------------------------------------ oblique beginnings

@pytest.mark.parametrize("text,fact", [
    ("We packed up and headed north to Inverness in May.", ("LIVES_IN", "Inverness")),
    ("My husband's job took us to Ottawa last year.", ("LIVES_IN", "Ottawa")),
    ("We've been renting a flat in Cork since March.", ("LIVES_IN", "Cork")),
    ("We've been in Galway since the end of June.", ("LIVES_IN", "Galway")),
    ("I've landed a role at Quayside Hotel.", ("WORKS_AT", "Quayside Hotel")),
    ("Transferred over to Carleton University in January.", ("STUDIES_AT", "Carleton University")),
    ("I switched schools, I'm at Aalto University now.", ("STUDIES_AT", "Aalto University")),
    ("I've been seeing someone new, Priyanka, since June.", ("PARTNER_OF", "Priyanka")),
    ("We've been driving a used Honda Jazz since April.", ("OWNS", "Honda Jazz")),
    ("Picked up crochet instead.", ("STARTED", "crochet")),
    ("My favourite author is George R. R. Martin, for what it's worth.", ("LIKES", "George R. R. Martin")),
])
def test_a_beginning_said_sideways_is_read(text, fact):
    assert fact in {(p, o) for _, p, o, *rest in facts(text) if "end" not in rest}


def test_a_sentence_that_ends_a_value_does_not_begin_it_again():
    from graphmem.ingest.rules.drafts import Draft
    end = Draft("Ann", "WORKS_AT", "Fernhill", "", "end", 0.8, True)
    state = Draft("Ann", "WORKS_AT", "fernhill", "", "state", 0.8, True)
    other = Draft("Ann", "WORKS_AT", "Acme", "", "state", 0.8, True)
    assert not_restarted([[end], [state, other]]) == [[end], [other]]
    assert ("WORKS_AT", "Fernhill") not in states("I moved on from Fernhill in May and I've been freelancing since.")
