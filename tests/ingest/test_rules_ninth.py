"""The ninth extraction round (issue 12): general constructions behind the misses of the seventh
holdout, each with sentences it must read and look-alikes it must leave alone. The sentences are
not those of the timeline sets."""

from __future__ import annotations

import pytest

from graphmem.ingest.extraction import TurnContext
from graphmem.ingest.reader.reader import candidates
from graphmem.ingest.rules.grammar import is_region
from rule_reading import SESSION, endings, states


@pytest.mark.parametrize("text,fact", [
    # a home by the dwelling one settled into, looks after, or has been in a while
    ("We've finally settled into the new maisonette in Swansea.", ("LIVES_IN", "Swansea")),
    ("The boiler's on the blink again. How do I go about heating our flat in Leeds cheaply?", ("LIVES_IN", "Leeds")),
    ("Any tips for soundproofing my studio in Croydon? The neighbours play drums.", ("LIVES_IN", "Croydon")),
    ("what's good to eat around york? been here two years and still only go to the same pub", ("LIVES_IN", "York")),
    ("Love the markets in Hanoi, we've been here eight months now.", ("LIVES_IN", "Hanoi")),
    # a swap with a region on one side is a move
    ("We swapped Ohio for Portland last spring and the rain is real.", ("LIVES_IN", "Portland")),
    ("Traded the Midwest for Tucson and I don't miss shovelling snow.", ("LIVES_IN", "Tucson")),
    # work: where in the workplace before the employer, a working life's length, a dropped "I'm"
    ("I'm a midwife on the labour ward at Royal Berkshire Hospital.", ("WORKS_AT", "Royal Berkshire Hospital")),
    ("Thirty years teaching at Hollybank Primary and the kids still surprise me.", ("WORKS_AT", "Hollybank Primary")),
    ("Eleven years flying for Ryanair, so I know airports.", ("WORKS_AT", "Ryanair")),
    # study with no "I'm"
    ("Doing a part-time MA at Goldsmiths alongside work.", ("STUDIES_AT", "Goldsmiths")),
    # partners by how long they have been together
    ("Aisha and I have been together nearly three years.", ("PARTNER_OF", "Aisha")),
    ("Sam and I have been together since the spring.", ("PARTNER_OF", "Sam")),
    # things: a model's generation, a change of kind said with the new thing
    ("My Nikon D850 Mark II is heavy but worth it.", ("OWNS", "Nikon D850 Mark II")),
    ("I went electric with a Kia Niro last month.", ("OWNS", "Kia Niro")),
    # a pastime by the habit of going, diets by switching to a way of eating
    ("I've been going to a pottery class every Thursday since January.", ("LIKES", "pottery")),
    ("We've switched to eating plant-based at home.", ("DIET", "plant-based")),
    ("On my doctor's advice I switched to a Mediterranean-style diet.", ("DIET", "mediterranean")),
    # a favourite named without its kind
    ("These days Mitski is my absolute favourite.", ("LIKES", "Mitski")),
])
def test_a_general_construction_is_read(text, fact):
    assert fact in states(text)


@pytest.mark.parametrize("text,predicate", [
    ("We settled into the hotel in Rome for a week.", "LIVES_IN"),  # a stay
    ("My parents have settled into their new flat in Cork.", "LIVES_IN"),  # theirs
    ("Any tips for cleaning a holiday flat in Cork between guests?", "LIVES_IN"),  # a let
    ("Any tips for decorating a flat in Leeds for a client?", "LIVES_IN"),  # no first person
    ("Any tips for keeping a flat in Leeds warm? My sister's heating is broken.", "LIVES_IN"),  # whose flat is unsure
    ("any ideas for a weekend in york? been here three days for a conference", "LIVES_IN"),  # a visit
    ("We moved here from Boston and have been here two years.", "LIVES_IN"),  # Boston is where they came from
    ("We swapped France for Spain this summer and loved the beaches.", "LIVES_IN"),  # a holiday
    ("I traded Deloitte for KPMG.", "LIVES_IN"),  # firms, no region
    ("I'm a fan on the team at Arsenal.", "WORKS_AT"),  # no occupation
    ("Two years waiting for Amazon to refund me.", "WORKS_AT"),  # no work verb
    ("My dad spent ten years teaching at Hillside.", "WORKS_AT"),  # someone else's
    ("Working from home at Acme is great.", "WORKS_AT"),  # a gerund as subject
    ("Kate and I have been together all day at the office.", "PARTNER_OF"),  # time spent, no couple
    ("My parents have been together forty years.", "PARTNER_OF"),
    ("I'm going to the climbing wall on Saturday.", "LIKES"),  # one trip, no habit
    ("My son has been going to a swimming club twice a week.", "LIKES"),  # someone else's
    ("I switched to Mediterranean food for the party.", "DIET"),  # a meal, no way of eating
    ("My dad switched to a vegan diet.", "DIET"),  # someone else's
    ("My favourite part of the film was the ending.", "LIKES"),  # a reaction
])
def test_a_look_alike_is_left_alone(text, predicate):
    assert not any(p == predicate for p, _ in states(text))


@pytest.mark.parametrize("text,ended", [
    ("Since the Corsa went to a new owner I've been taking the bus.", ("OWNS", "Corsa")),
    ("Traded the Nikon in at the camera shop last week.", ("OWNS", "Nikon")),
    ("I hung up my whistle after thirty years of refereeing.", ("WORKS_AT", "job")),
    ("since i hung up my tools for good in march i've been bored stiff", ("WORKS_AT", "job")),
    ("Got my results, passed with distinction!", ("STUDIES_AT", "studies")),
    ("I passed my MSc in the summer.", ("STUDIES_AT", "studies")),
    ("Paleo lasted about a month before pizza won.", ("DIET", "paleo")),
    ("We swapped Ohio for Portland last spring.", ("LIVES_IN", "Ohio")),
    ("Okay, Coldplay's been knocked off the top spot.", ("LIKES", "Coldplay")),
])
def test_an_ending_is_read(text, ended):
    assert ended in endings(text)


@pytest.mark.parametrize("text", [
    "I hung up my keys and made a cup of tea.",  # a hook, no retirement
    "We traded the stock in the morning.",  # no thing of one's own
    "My son passed with distinction.",  # someone else's course
    "I passed my driving test with merit.",  # no course
    "The keto cookbook lasted ages.",  # a book, not the diet
    "Keto lasted me a month of meal ideas.",
])
def test_an_ending_look_alike_ends_nothing(text):
    assert not {e for e in endings(text) if e[0] in ("WORKS_AT", "STUDIES_AT", "DIET", "OWNS", "LIVES_IN")}


def test_an_outing_is_not_a_change_of_hands():
    facts = states("The Focus went to a new owner in June.") | states("Mochi went to live with my sister.")
    assert not any(p == "ATTENDED" for p, _ in facts)


def test_the_regions_are_places_and_towns_and_firms_are_not():
    assert is_region("Texas") and is_region("the Midwest") and is_region("Midwest") and is_region("new zealand")
    assert not is_region("Denver") and not is_region("Deloitte") and not is_region("Texas Instruments")


def test_an_adjunct_s_owner_does_not_take_the_clause_from_the_speaker():
    assert ("DIET", "vegetarian") in states("On my GP's advice I've switched to a vegetarian diet.")
    assert ("DIET", "vegetarian") not in states("My GP's wife switched to a vegetarian diet.")


def test_the_reader_reads_the_statement_a_question_opens_with():
    turn = TurnContext(text="Now that we've moved into the new place in Kendal, could you help me with a checklist?",
                       speaker="Ann", session_time=SESSION)
    assert candidates(turn) == ["Now that we've moved into the new place in Kendal."]
    asked = TurnContext(text="Could you help me find a flat in Kendal?", speaker="Ann", session_time=SESSION)
    assert candidates(asked) == []


def test_an_ended_pastime_ends_its_other_names_too(memory):
    """Two names of one pastime open at once (the rules read one, the reader another): ending
    one ends both (`ingest.facts.also_ended`); an unrelated pastime stays."""
    memory.write("u", [{"speaker": "Jess", "content": "I love singing and I love choir. I love chess."}], "2024-01-15",
                 session_id="s1")
    memory.write("u", [{"speaker": "Jess", "content": "I dropped out of the choir in May."}], "2024-07-15",
                 session_id="s2")
    liked = lambda when: {f.object for f in memory.facts("u", valid_at=when) if f.predicate == "LIKES"}  # noqa: E731
    assert {"singing", "choir", "chess"} <= liked("2024-03-01")
    assert "singing" not in liked("2024-09-01") and "choir" not in liked("2024-09-01")
    assert "chess" in liked("2024-09-01")
