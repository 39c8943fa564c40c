"""General behaviours of the offline rules added for issue 12: endings that find their open
fact in any slot or by its words, endings that close nothing when nothing is open, endings
the rules cannot place (``closes_only``), the swap grammar ("switched from X to Y"), values
said before the verb, seasons as dates, and objects that are not noun phrases."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from graphmem.evals.extraction_set import LabelledTurn, score_extractions
from graphmem.ingest import write_gate
from graphmem.ingest.extraction import ExtractedFact, Extraction, TurnContext
from graphmem.ingest.rules import RuleExtractor
from graphmem.parsing.dates import find_time_expressions, resolve

SESSION = datetime(2024, 7, 15, 10, tzinfo=UTC)
THEN, NOW = "2024-03-01", "2024-09-01"


def facts(text: str, speaker: str = "Sam") -> list[ExtractedFact]:
    return RuleExtractor().extract([TurnContext(text=text, speaker=speaker, session_time=SESSION)])[0].facts


def shown(text: str) -> set[tuple[str, str, bool]]:
    """(predicate, object, ends) for each fact of `text`."""
    return {(f.predicate, f.object, f.valid_at is None) for f in facts(text)}


def objects(mem, when: str, *predicates: str) -> set[str]:
    return {f.object for f in mem.facts("u", valid_at=when) if f.predicate in predicates}


def two_sessions(mem, first: str, second: str) -> None:
    mem.write("u", [{"speaker": "Sam", "content": first}], "2024-01-15", session_id="s1")
    mem.write("u", [{"speaker": "Sam", "content": second}], "2024-07-15", session_id="s2")


# ------------------------------------------------------------- endings in the graph

def test_an_ending_with_no_open_fact_closes_no_other_value(memory):
    two_sessions(memory, "I live in Luton.", "I don't live in Paris anymore.")
    assert objects(memory, NOW, "LIVES_IN") == {"Luton"}


@pytest.mark.parametrize("first,second,predicates,then", [
    # the ending names no species: "Rex died" finds the dog Rex in the slot PET:dog
    ("We have a dog named Rex.", "Rex died in May.", ("HAS_PET",), {"Rex"}),
    # the ending's words inside the open fact's object
    ("I'm really into rock climbing.", "I've given up climbing.", ("LIKES",), {"rock climbing"}),
    ("Playing the guitar is my favourite hobby.", "I've lost interest in the guitar.", ("LIKES",),
     {"Playing the guitar"}),
    # a break-up ends a marriage too
    ("My wife Helen loves gardening.", "Helen and I split in May.", ("MARRIED_TO", "PARTNER_OF"), {"Helen"}),
    ("I'm in a relationship with Jake.", "I'm not with Jake anymore.", ("PARTNER_OF",), {"Jake"}),
    ("I go to Arizona State University.", "I quit Arizona State University in May.", ("STUDIES_AT",),
     {"Arizona State University"}),
    ("I work at Northwind as an analyst.", "I'm no longer with Northwind.", ("WORKS_AT",), {"Northwind"}),
])
def test_an_ending_finds_its_open_fact(memory, first, second, predicates, then):
    two_sessions(memory, first, second)
    assert {o.casefold() for o in objects(memory, THEN, *predicates)} == {o.casefold() for o in then}
    assert objects(memory, NOW, *predicates) == set()


def test_an_ending_the_rules_cannot_place_is_dropped_when_nothing_is_open(memory):
    two_sessions(memory, "My grandpa Joe is 90.", "Whiskers passed away in May. I quit Harvard University.")
    kept = {(f.predicate, f.object) for f in memory.facts("u")}
    assert not any(p in ("HAS_PET", "WORKS_AT", "STUDIES_AT", "LEFT_JOB") for p, _ in kept), kept


def test_a_job_left_is_not_a_relationship_ended(memory):
    two_sessions(memory, "I'm dating Jake. I work at Globex.", "I'm not with Globex anymore.")
    assert objects(memory, NOW, "PARTNER_OF") == {"Jake"}
    assert objects(memory, NOW, "WORKS_AT") == set()


# ------------------------------------------------------------- the extractor

@pytest.mark.parametrize("text,expected", [
    ("I switched from vegan to pescatarian in June.", {("DIET", "vegan", True), ("DIET", "pescatarian", False)}),
    ("I transferred from Ohio State to Penn State.",
     {("STUDIES_AT", "Ohio State", True), ("STUDIES_AT", "Penn State", False)}),
    ("I switched from baking to gardening.", {("LIKES", "baking", True), ("STARTED", "gardening", False)}),
    ("I replaced my iPhone 12 with a Pixel 8.", {("OWNS", "iPhone 12", True), ("OWNS", "Pixel 8", False)}),
    ("I switched from the Dell laptop to a MacBook Air.",
     {("OWNS", "Dell laptop", True), ("OWNS", "MacBook Air", False)}),
    ("Rugby has replaced cricket as my favourite sport.", {("LIKES", "cricket", True), ("LIKES", "Rugby", False)}),
])
def test_a_swap_ends_one_value_and_starts_the_other_in_the_slot_its_shape_names(text, expected):
    assert shown(text) == expected


def test_a_swap_between_names_of_no_sure_kind_stores_only_conditional_endings():
    """The rules alone cannot tell a bank from an employer in two bare names; the learned
    reader, reading the whole sentence, may (tests/ingest/test_reader.py)."""
    rules = RuleExtractor(learned=False)
    found = rules.extract([TurnContext(text="I switched from Deloitte to KPMG in June.", speaker="Sam",
                                       session_time=SESSION)])[0].facts
    assert found and all(f.closes_only and f.valid_at is None for f in found)
    assert not any(f.object == "KPMG" for f in found)
    assert not any(f.predicate in ("WORKS_AT", "STUDIES_AT") for f in facts("We moved from Leeds to York."))


@pytest.mark.parametrize("text,expected", [
    ("Chicago is my home now.", ("LIVES_IN", "Chicago", False)),
    ("Boston is where I live.", ("LIVES_IN", "Boston", False)),
    ("Pizza is my favourite food.", ("LIKES", "Pizza", False)),
    ("These days sushi is my favourite food.", ("LIKES", "sushi", False)),
    ("I drive a Subaru Outback.", ("OWNS", "Subaru Outback", False)),
    ("I sold my Honda Civic and got myself a Toyota Prius.", ("OWNS", "Toyota Prius", False)),
    ("I completed my degree at the University of Kent.", ("STUDIES_AT", "University of Kent", True)),
    ("I'm not a student at St. Andrews anymore.", ("STUDIES_AT", "St. Andrews", True)),
    ("Emma broke up with me.", ("PARTNER_OF", "Emma", True)),
    ("Ravi isn't my boyfriend anymore.", ("PARTNER_OF", "Ravi", True)),
    ("I've started dating Hana.", ("PARTNER_OF", "Hana", False)),
    ("I'm done with knitting.", ("LIKES", "knitting", True)),
    ("I quit fishing in May.", ("LIKES", "fishing", True)),
])
def test_ordinary_phrasings_of_a_value_or_an_ending(text, expected):
    assert expected in shown(text)


@pytest.mark.parametrize("text", [
    "This is home.", "I have a Spanish class on Monday.", "We split the bill.", "Ravi is not my boyfriend.",
    "I quit fishing in May.",
])
def test_no_fact_where_the_words_state_none(text):
    assert not any(p in ("LIVES_IN", "OWNS", "PARTNER_OF", "AVOIDS") for p, _, _ in shown(text))


def test_a_name_that_died_is_a_pet_ending_only_when_no_relative_is_named():
    assert ("HAS_PET", "Whiskers", True) in shown("Whiskers passed away in May.")
    assert all(f.closes_only for f in facts("Whiskers passed away in May.") if f.predicate == "HAS_PET")
    assert not any(p == "HAS_PET" for p, _, _ in shown("My grandpa Joe died last year."))


@pytest.mark.parametrize("text", ["I love playing.", "I went to Singapore 3 times.", "I like on 3/1 the most."])
def test_an_object_must_be_a_noun_phrase(text):
    assert not any(o in ("playing", "Singapore 3 times", "on 3/1") for _, o, _ in shown(text))


# ------------------------------------------------------------- dates

def test_seasons_are_dated_and_a_fact_sits_at_their_midpoint():
    spring = resolve("in the spring", SESSION)
    assert (spring.start.month, spring.end.month, spring.label()) == (3, 6, "spring 2024")
    assert resolve("last summer", SESSION).start.year == 2023
    assert resolve("last winter", SESSION).start == datetime(2023, 12, 1, tzinfo=UTC)
    moved = next(f for f in facts("We moved to Oxford in the spring.") if f.predicate == "LIVES_IN")
    assert moved.valid_at == datetime(2024, 4, 16, tzinfo=UTC)  # 1 March to 1 June, halfway
    assert find_time_expressions("I love spring rolls") == []


def test_in_a_day_as_a_rate_is_no_time():
    assert find_time_expressions("How many devices do I use in a day?") == []
    assert find_time_expressions("I'll know in a day or two") == ["in a day"]


# ------------------------------------------------------------- gate and scoring

@pytest.mark.parametrize("turn", ["I quit fishing in May.", "Jazz is my favourite kind of music."])
def test_a_month_or_a_kind_of_thing_is_no_hedge(turn):
    assert not write_gate.hedged(turn, "LIKES")
    assert write_gate.hedged("I'm kind of into jazz, I may try it.", "LIKES")


def test_the_extraction_set_does_not_count_an_ending_that_would_close_nothing():
    turn = LabelledTurn(id="t", part="tune", style="chat", speaker="Sam", text="Rex died.", facts=())
    ending = ExtractedFact(subject="Sam", predicate="HAS_PET", object="Rex", fact="Sam no longer has Rex.",
                           invalid_at=SESSION, closes_only=True)
    assert score_extractions([turn], [Extraction(facts=[ending])])["tune"].predicted == 0


def test_initials_inside_a_name_do_not_end_the_sentence():
    assert ("WORKS_AT", "U.S. Postal Service", False) in shown("I'm currently working for the U.S. Postal Service.")
    assert ("LIVES_IN", "U.S.", False) in shown("I moved to the U.S. in 2019.")


@pytest.mark.parametrize("text,expected", [
    ("I got my degree from Trinity College in June.", ("STUDIES_AT", "Trinity College", True)),
    ("I used to love tennis but now I prefer squash.", ("LIKES", "tennis", True)),
])
def test_more_ordinary_endings(text, expected):
    assert expected in shown(text)


def test_a_partner_is_no_possession():
    assert not any(p == "OWNS" for p, _, _ in shown("I've got a new girlfriend, Bea."))


def test_an_ending_that_names_the_kind_closes_the_one_open_fact_of_that_kind(memory):
    two_sessions(memory, "We have a dog named Rex. We also have a cat named Luna.", "Our dog died in May.")
    assert objects(memory, THEN, "HAS_PET") == {"Rex", "Luna"}
    assert objects(memory, NOW, "HAS_PET") == {"Luna"}
