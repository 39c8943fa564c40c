"""The tenth extraction round (issue 12): mechanisms behind the misses of the eighth holdout,
each with sentences it must read and look-alikes it must leave alone. The sentences are not
those of the timeline sets."""

from __future__ import annotations

import pytest

from graphmem.ingest.reader.classifier import Reading
from graphmem.ingest.reader.reader import drafts_for
from graphmem.ingest.rules.extractor import with_subject
from graphmem.ingest.rules.text import normalise
from rule_reading import endings, extracted, states


# ------------------------------------------------------------------ subjects chat leaves out

@pytest.mark.parametrize("text,expected", [
    ("im a second-year at Leeds", "I'm a second-year at Leeds"),
    ("ive lived here for years", "I've lived here for years"),
    ("Im done, Ive had enough", "I'm done, I've had enough"),
    ("Jim moved. The vim ivermectin hive", "Jim moved. The vim ivermectin hive"),  # inside a word: left alone
    ("I'll be ill, we'd said it's well", "I'll be ill, we'd said it's well"),  # "ill", "id", "well" are words
])
def test_a_bare_im_or_ive_gets_its_apostrophe_back(text, expected):
    assert normalise(text) == expected


@pytest.mark.parametrize("text,expected", [
    ("been kayaking most weekends", "I've been kayaking most weekends"),
    ("Vegan here.", "I'm Vegan."),
    ("Night nurse here, quick one.", "I'm Night nurse, quick one."),
])
def test_a_dropped_ive_or_whole_im_is_put_back(text, expected):
    assert with_subject(text) == expected


@pytest.mark.parametrize("text", ["Same here.", "Nothing here.", "Been there, done that.", "Anyone here?",
                                  "It was cold here.", "Vegan here now", "Been a while since I posted.",
                                  "Been busy with work.", "Been ages!",
                                  "Success is almost here.", "Looky here, a new pup!", "Come here."])
def test_no_subject_is_invented_for_what_is_no_self_introduction(text):
    assert with_subject(text) == text


@pytest.mark.parametrize("text,fact", [
    ("im a fresher at Cardiff Uni and the halls are loud", ("STUDIES_AT", "Cardiff Uni")),
    ("ive moved to Glasgow for work", ("LIVES_IN", "Glasgow")),
    ("Pescatarian here. What goes with salmon?", ("DIET", "pescatarian")),
    ("been kayaking 3x a week since the spring", ("LIKES", "kayaking")),
    ("Been at Google for two years now.", ("WORKS_AT", "Google")),
    ("Been pescatarian since March.", ("DIET", "pescatarian")),
])
def test_a_sentence_without_its_subject_is_read(text, fact):
    assert fact in states(text)


def test_an_introduction_by_name_is_no_fact():
    assert extracted("Sarah here! Quick question about spreadsheets.") == []


# ------------------------------------------------------------------ habits: how often, and "have been doing"

@pytest.mark.parametrize("text,fact", [
    ("I've been swimming twice a week since January.", ("LIKES", "swimming")),
    ("I have been fishing once a month with my dad.", ("LIKES", "fishing")),
    ("I go climbing 4x a week.", ("LIKES", "climbing")),
    ("I run 5 times a week.", ("LIKES", "running")),
])
def test_a_pastime_done_this_often_is_liked(text, fact):
    assert fact in states(text)


@pytest.mark.parametrize("text", [
    "I've been working 4x a week.",  # a job, no pastime
    "I've been running errands every day.",  # an object: not the pastime
    "I paint the fence 2 times a month.",
    "My son has been swimming every day.",  # someone else's
    "I've been swimming.",  # no frequency: once is no habit
])
def test_what_is_no_habit_of_the_speaker_is_not_liked(text):
    assert not any(p == "LIKES" for p, _ in states(text))


# ------------------------------------------------------------------ presupposed places: a team, a thesis committee

@pytest.mark.parametrize("text,fact", [
    ("we're both on the payments team at Monzo, so it's awkward", ("WORKS_AT", "Monzo")),
    ("I'm on the night staff at Whittington Hospital.", ("WORKS_AT", "Whittington Hospital")),
    ("My thesis is nearly done. It goes to my committee at Trinity College Dublin in May.",
     ("STUDIES_AT", "Trinity College Dublin")),
])
def test_a_place_taken_for_granted_is_read(text, fact):
    assert fact in states(text)


@pytest.mark.parametrize("text,predicate", [
    ("My brother is on the team at Acme.", "WORKS_AT"),  # his
    ("I'm a fan of the team at Arsenal.", "WORKS_AT"),  # not on it
    ("I sit on my committee at Rotary Club Leeds.", "STUDIES_AT"),  # no thesis in the turn: a board
])
def test_a_look_alike_presupposes_nothing(text, predicate):
    assert not any(p == predicate for p, _ in states(text))


# ------------------------------------------------------------------ pets: particles after the pet, "got mine"

@pytest.mark.parametrize("text,fact", [
    ("We had to put Pepper down in the spring, she was 16.", ("HAS_PET", "Pepper")),
    ("We had to put our collie Bess down last week.", ("HAS_PET", "Bess")),
    ("We put Rex to sleep on Friday.", ("HAS_PET", "Rex")),
    ("We had to rehome our rabbit Clover when we moved.", ("HAS_PET", "Clover")),  # "had to" + the base form
])
def test_a_pet_put_down_is_no_longer_had(text, fact):
    assert fact in endings(text) and fact not in states(text)


@pytest.mark.parametrize("text", ["I put Pepper down for a nap.", "I had to put Pepper down for a nap.",
                                  "I put Sarah down as a reference.", "We put Rex in the car."])
def test_something_else_put_down_ends_no_pet(text):
    assert not endings(text)


def test_got_mine_takes_up_the_pet_named_before():
    text = "do king snakes need a heat mat?? got mine on Saturday, his name is Noodle"
    assert ("HAS_PET", "Noodle") in states(text)
    assert ("HAS_PET", "axolotl") in states("Are axolotls hard to keep? We adopted one in May.")


@pytest.mark.parametrize("text", ["I need a new laptop. I got one of the cheap ones.",
                                  "Which phone is best? I got mine last year.",
                                  "My sister wants a cat. I got one for her birthday."])
def test_got_one_without_a_pet_before_is_no_pet(text):
    assert not any(p == "HAS_PET" for p, _ in states(text))


def test_a_hubby_is_a_husband():
    assert ("MARRIED_TO", "Dave") in states("My hubby Dave and I are redoing the kitchen.")


def test_a_betta_is_a_pet_by_its_own_name():
    assert ("HAS_PET", "betta") in states("I just got a betta!!")


# ------------------------------------------------------------------ partners: an anniversary, "things ended with"

@pytest.mark.parametrize("text,fact", [
    ("Ravi and I hit two years together in June.", ("PARTNER_OF", "Ravi")),
    ("Mel and I celebrated one year together last weekend.", ("PARTNER_OF", "Mel")),
])
def test_a_couple_by_its_anniversary(text, fact):
    assert fact in states(text)


def test_things_ended_with_someone_ends_the_relationship():
    assert ("PARTNER_OF", "Tomasz") in endings("It's been hard since things ended with Tomasz.")
    assert endings("My sister says things ended with Tomasz.") == set()  # hers


@pytest.mark.parametrize("text", ["Mia and I hit one year together at the company.",
                                  "Jo and I spent one year together at school."])
def test_a_year_together_somewhere_is_no_couple(text):
    assert not any(p == "PARTNER_OF" for p, _ in states(text))


# ------------------------------------------------------------------ homes: moved to be near family

@pytest.mark.parametrize("text", [
    "Since we sold the house and came up to Duluth, I have more time.",
    "We came down to Sarasota to be closer to our grandkids.",
])
def test_a_journey_made_to_live_somewhere_is_a_move(text):
    assert any(p == "LIVES_IN" for p, _ in states(text))


@pytest.mark.parametrize("text", ["We came down to Sarasota for the weekend.",
                                  "My parents came down to Sarasota to be closer to my sister.",
                                  "We sold the house and went to Spain for a month."])
def test_a_trip_or_someone_elses_move_is_no_home(text):
    assert not any(p == "LIVES_IN" for p, _ in states(text))


# ------------------------------------------------------------------ the reader: a change with an ending word ends

def test_a_change_read_with_only_an_ending_word_ends_its_value():
    sure = Reading("study", 0.95, "new", 0.9)
    drafts, _ = drafts_for("Graduated in June, so that's me done with Exeter.", sure, "Ana")
    assert [(d.kind, d.object) for d in drafts] == [("end", "Exeter")]
    started, _ = drafts_for("Since June I've been at Exeter.", sure, "Ana")
    assert [d.kind for d in started] == ["state"]  # a word that starts: the new value holds


# ------------------------------------------------------------------ the reader: whose clause holds the value

@pytest.mark.parametrize("text,kept", [
    ("We love Tucson, but my brother lives in Mesa.", []),  # Mesa is his
    ("Tucson is home now, and he lives in Mesa.", ["Tucson"]),
    ("I stayed in Leeds when my sister moved to York.", ["Leeds"]),
    ("My parents and I moved to Tucson.", ["Tucson"]),  # the speaker is one of them
])
def test_a_value_in_someone_elses_clause_is_not_the_speakers(text, kept):
    drafts, _ = drafts_for(text, Reading("residence", 0.95, "holds", 0.9), "Ana")
    assert [d.object for d in drafts] == kept
