"""The seventh extraction round (issue 12): general constructions behind the misses of the
fifth holdout, each with a sentence it must read and a look-alike it must leave alone. The
sentences are not those of the timeline sets."""

from __future__ import annotations

import pytest
from rule_reading import SESSION, endings, extracted, states


@pytest.mark.parametrize("text,fact", [
    ("I've been a pharmacist at Hollis Chemists since 2019 and the rota is awful.", ("WORKS_AT", "Hollis Chemists")),
    ("Survived my first shift at Larkspur Diner!", ("WORKS_AT", "Larkspur Diner")),
    ("First month at Quillon Analytics done, and I still get lost in the building.", ("WORKS_AT", "Quillon Analytics")),
    ("First week at Exeter done and the lectures are great.", ("STUDIES_AT", "Exeter")),
    ("I've started writing for the Hartley Gazette.", ("WORKS_AT", "Hartley Gazette")),
    ("I've been delivering for Parcelly since March.", ("WORKS_AT", "Parcelly")),
    ("I'm in Sheffield and the buses here are hopeless.", ("LIVES_IN", "Sheffield")),
    ("We've just bought a terraced house in Halifax and the boiler is ancient.", ("LIVES_IN", "Halifax")),
    ("Orientation week at McMaster University was exhausting, but I made friends.", ("STUDIES_AT", "McMaster University")),
    ("I've had my Fender Telecaster since college and the frets are worn.", ("OWNS", "Fender Telecaster")),
    ("Last winter we took in a scruffy stray we named Biscotti.", ("HAS_PET", "Biscotti")),
])
def test_a_general_construction_is_read(text, fact):
    assert fact in states(text)


@pytest.mark.parametrize("text,predicate", [
    ("I've been a guest at the Ritz twice.", "WORKS_AT"),  # no occupation
    ("First day at the Brightwater Conference done!", "WORKS_AT"),  # an event
    ("My first week at Quillon starts Monday.", "WORKS_AT"),  # not begun
    ("My brother's first week at Quillon is done.", "WORKS_AT"),  # someone else's
    ("I've started cooking for Marcus on weekends.", "WORKS_AT"),  # a person is cooked for
    ("I started training for the Bristol Half Marathon.", "WORKS_AT"),  # no trade
    ("I'm in Lisbon for a week, what should I eat?", "LIVES_IN"),  # a stay
    ("While I'm in Porto I'd like to see the bridges.", "LIVES_IN"),  # a trip, mid-sentence
    ("I'm in Lisbon and the hotel is great.", "LIVES_IN"),  # a trip by its words
    ("I'm in Year 9 and maths is hard.", "LIVES_IN"),  # a school year
    ("I'm in Aldi right now and they're out of eggs.", "LIVES_IN"),  # an errand
    ("I bought a flat in Salford.", "LIVES_IN"),  # one person's purchase may be let
    ("We bought a cottage in Wales to let out.", "LIVES_IN"),
    ("My cousin's orientation week at McMaster University was fun.", "STUDIES_AT"),
    ("I had my Vespa serviced last week.", "OWNS"),  # "had" alone is past or causative
    ("I got a rescue named after my grandpa.", "HAS_PET"),  # no name follows
    ("We joined a rescue called Paws Together.", "HAS_PET"),  # no adopting verb
])
def test_a_look_alike_is_left_alone(text, predicate):
    assert not any(p == predicate for p, _ in states(text))


@pytest.mark.parametrize("text,ended", [
    ("Now that our divorce is finalised I'm looking for a smaller flat.", ("PARTNER_OF", "partner")),
    ("After Pickles slipped out the door we searched for days.", ("HAS_PET", "Pickles")),
    ("I passed the old Canon to my niece.", ("OWNS", "Canon")),
])
def test_an_ending_is_read(text, ended):
    assert ended in endings(text)


@pytest.mark.parametrize("text", [
    "My parents' divorce came through last spring.",  # someone else's
    "The divorce came through for Jenny and Tom.",  # no first person
    "Pickles slipped on the ice.",  # no escape
])
def test_an_ending_look_alike_ends_nothing(text):
    assert not endings(text)


def test_a_band_and_a_singer_are_one_favourite():
    band = extracted("Blondie has been my favourite band since school.")
    singer = extracted("Now Lorde is easily my favourite singer.")
    assert [f.object for f in band] == ["Blondie"] and [f.object for f in singer] == ["Lorde"]
    assert band[0].slot == singer[0].slot


def test_a_time_in_an_opening_after_clause_does_not_date_the_main_clause():
    [fig] = [f for f in extracted("After Rolo died last spring we adopted a kitten named Fig.") if f.object == "Fig"]
    assert fig.valid_at == SESSION
    moved = extracted("After a long search we moved to Gdansk in May.")  # no subject after the time: still its date
    assert moved and all(f.valid_at.month == 5 for f in moved)
