"""The sixth extraction round (issue 12): implied homes, jobs and schools, pastimes said
as habits, favourites said sideways, kindred pastime names, seasons at their midpoint.
Each construction has a sentence it must read and a look-alike it must leave alone; the
sentences are not those of the timeline sets."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from graphmem import Memory
from graphmem.ingest.extraction import TurnContext
from graphmem.ingest.rules import RuleExtractor
from graphmem.ingest.rules.hobbies import kindred

SESSION = datetime(2024, 7, 15, 10, 0, tzinfo=UTC)
RULES = RuleExtractor(learned=False)


def facts(text: str, speaker: str = "Ann") -> set[tuple[str, ...]]:
    """(subject, predicate, object[, "end"][, "closes"]) of the rules alone."""
    [x] = RULES.extract([TurnContext(text=text, speaker=speaker, session_time=SESSION)])
    return {(f.subject, f.predicate, f.object) + (("end",) if f.valid_at is None else ())
            + (("closes",) if f.closes_only else ()) for f in x.facts}


def states(text: str) -> set[tuple[str, str]]:
    return {(p, o) for _, p, o, *rest in facts(text) if not rest}


def endings(text: str) -> set[tuple[str, str]]:
    return {(p, o) for _, p, o, *rest in facts(text) if rest}


@pytest.mark.parametrize("text,fact", [
    ("I'm in procurement at Haldane Motors, so I see a lot of invoices.", ("WORKS_AT", "Haldane Motors")),
    ("I work in sales for Ridgeway Software these days.", ("WORKS_AT", "Ridgeway Software")),
    ("I do the books for Fenwick Bakery on weekdays.", ("WORKS_AT", "Fenwick Bakery")),
    ("Six weeks in at Orchard Health and I finally know where the printer is.", ("WORKS_AT", "Orchard Health")),
    ("Marlowe Press took me on in the spring as a copy editor.", ("WORKS_AT", "Marlowe Press")),
    ("I'm with Kestrel Insurance now, much closer to home.", ("WORKS_AT", "Kestrel Insurance")),
    ("I'm a second-year at Lancaster University, reading history.", ("STUDIES_AT", "Lancaster University")),
    ("I'm doing a masters in ecology at Bangor University.", ("STUDIES_AT", "Bangor University")),
    ("My thesis supervisor at Trinity College never answers emails.", ("STUDIES_AT", "Trinity College")),
    ("Since the move to Dundee I've been swimming in the sea.", ("LIVES_IN", "Dundee")),
    ("Now that we're in Boise, what should I plant?", ("LIVES_IN", "Boise")),
    ("Could you plan a day for my parents, who are staying with me in Cardiff next week?", ("LIVES_IN", "Cardiff")),
    ("I rent a small flat in Leith with two friends.", ("LIVES_IN", "Leith")),
    ("Living in Phoenix is brutal in July.", ("LIVES_IN", "Phoenix")),
])
def test_a_place_said_by_what_surrounds_it_is_read(text, fact):
    assert fact in states(text)


@pytest.mark.parametrize("text,predicate", [
    ("My sister is in procurement at Haldane Motors.", "WORKS_AT"),  # someone else's job
    ("I'm in touch with Haldane Motors about the recall.", "WORKS_AT"),  # no department
    ("I'm with Tom now, he is lovely.", "WORKS_AT"),  # a person, no organisation word
    ("Now that I'm at Lumen Studios, what's nearby for lunch?", "STUDIES_AT"),  # no study word: no school
    ("We're staying with friends in Cardiff for a week.", "LIVES_IN"),  # a visit, not home
    ("We bought a holiday home in Cornwall.", "LIVES_IN"),
    ("Living in Phoenix was a dream I had as a kid.", "LIVES_IN"),  # no present "is"
    ("My week at Sandoval Labs was fun.", "STUDIES_AT"),  # a week is no study noun
    ("I dropped out of uni at Leeds.", "LIVES_IN"),
])
def test_a_look_alike_place_is_left_alone(text, predicate):
    assert not any(p == predicate for _, p, *_ in facts(text))


def test_a_transfer_ends_the_old_school_and_starts_the_new():
    found = facts("I transferred from Wexford to the Galway Institute of Technology last autumn.")
    assert ("Ann", "STUDIES_AT", "Wexford", "end", "closes") in found
    assert ("Ann", "STUDIES_AT", "Galway Institute of Technology") in found


@pytest.mark.parametrize("text,ended", [
    ("Cleared out my desk at Tanager Foods on Friday.", ("WORKS_AT", "Tanager Foods")),
    ("I handed in my badge at Westmoor Clinic last month.", ("WORKS_AT", "Westmoor Clinic")),
    ("I've deferred my place at Aston University until next year.", ("STUDIES_AT", "Aston University")),
    ("I quit uni after the first term.", ("STUDIES_AT", "studies")),
    ("I quit uni in the spring.", ("STUDIES_AT", "studies")),  # a lowercase word after "in" is no school
    ("My divorce from Patrick is finally done.", ("PARTNER_OF", "Patrick")),
    ("We gave Biscuit to a farm up the road.", ("HAS_PET", "Biscuit")),
    ("I moved out of our Clapham flat in May.", ("LIVES_IN", "Clapham")),
    ("I left Sainsbury's in March.", ("WORKS_AT", "Sainsbury's")),
    ("I've gone off sushi since the food poisoning.", ("LIKES", "sushi")),
    ("Titanic has been dethroned at last.", ("LIKES", "Titanic")),
    ("I used to think nothing could beat tiramisu, but I was wrong.", ("LIKES", "tiramisu")),
    ("I've fallen out of love with chess lately.", ("LIKES", "chess")),
    ("I barely play tennis anymore.", ("LIKES", "tennis")),
    ("Turns out I can eat gluten again.", ("DIET", "diet")),
    ("I got laid off in March, so money is tight.", ("WORKS_AT", "job")),  # no employer: the one open job
    ("I'm between jobs at the moment.", ("WORKS_AT", "job")),
    ("I finished my degree in June!", ("STUDIES_AT", "studies")),
])
def test_an_ending_said_sideways_is_read(text, ended):
    assert ended in endings(text)


@pytest.mark.parametrize("text", [
    "I left Paris in May.",  # a city is no employer
    "I barely play tennis, to be honest.",  # no "anymore": it may never have been liked
    "My knees gave out on the stairs.",  # a body part is no possession
    "I've gone off the idea of moving.",
    "My dad is retired now.",  # someone else
    "If I got fired, I'd travel.",  # hedged
])
def test_an_ending_look_alike_ends_nothing(text):
    assert not any(p in ("WORKS_AT", "STUDIES_AT", "LIKES", "OWNS") for p, _ in endings(text))


@pytest.mark.parametrize("text,fact", [
    ("I go swimming most mornings before work.", ("LIKES", "swimming")),
    ("I cycle along the canal every weekend.", ("LIKES", "cycling")),
    ("I play chess in the park on Sundays.", ("LIKES", "chess")),
    ("Pottery keeps me sane.", ("LIKES", "pottery")),
    ("I'm hooked on sudoku lately.", ("LIKES", "sudoku")),
    ("Work's been mad, so running is my thing now.", ("LIKES", "running")),
    ("I've been doing keto for a month.", ("DIET", "keto")),
    ("Swapped the Xbox for a PS5 over the holidays.", ("OWNS", "PS5")),
    ("I picked up a used Toyota Yaris last week.", ("OWNS", "Toyota Yaris")),
    ("We've brought home a kitten named Miso.", ("HAS_PET", "Miso")),
    ("Hannah and I are planning something special for our anniversary.", ("PARTNER_OF", "Hannah")),
    ("I met Jonas at a gig and we've been together since March.", ("PARTNER_OF", "Jonas")),
    ("Then Dune has become my all-time favourite book.", ("LIKES", "Dune")),
    ("Since that trip, pho has become my absolute favourite.", ("LIKES", "pho")),
    ("Parasite is my top film now.", ("LIKES", "Parasite")),
    ("These days I'm more into Formula 1.", ("LIKES", "Formula 1")),
    ("I joined a rowing club in March.", ("LIKES", "rowing")),
    ("I've been learning the cello since January.", ("LIKES", "cello")),
    ("I'm learning to knit.", ("LIKES", "knitting")),
])
def test_a_beginning_said_sideways_is_read(text, fact):
    assert fact in states(text)


@pytest.mark.parametrize("text", [
    "I run a small bakery every day.",  # an object after the verb: not the pastime
    "I paint the fence every summer.",
    "I go shopping every Saturday.",
    "I swim sometimes.",  # no frequency word the rule knows
    "I joined a gym.",  # a place, no pastime
    "I'm learning to drive.",
])
def test_a_habit_look_alike_is_no_pastime(text):
    assert not any(p == "LIKES" for p, _ in states(text))


def test_favourite_kinds_share_one_slot():
    [x] = RULES.extract([TurnContext(text="Heat is my favourite movie.", speaker="Ann", session_time=SESSION)])
    [y] = RULES.extract([TurnContext(text="Ronin is my favourite film.", speaker="Ann", session_time=SESSION)])
    assert x.facts[0].slot == y.facts[0].slot == "FAVORITE:film"


def test_kindred_names_are_one_pastime():
    assert "bouldering" in kindred("climbing") and "jogging" in kindred("running")
    assert kindred("chess") == frozenset()


def test_an_ending_closes_the_pastime_stored_under_a_kindred_name(tmp_path):
    first, second = datetime(2024, 1, 10, tzinfo=UTC), datetime(2024, 6, 1, tzinfo=UTC)
    with Memory(data_dir=tmp_path, extractor=RuleExtractor(learned=False)) as mem:
        mem.write("u", [{"speaker": "user", "content": "I jog along the river every morning."}], first)
        mem.write("u", [{"speaker": "user", "content": "I haven't run since my ankle went."}], second)
        assert any(f.object == "jogging" for f in mem.facts("u", valid_at=datetime(2024, 2, 1, tzinfo=UTC)))
        assert not any(f.object == "jogging" for f in mem.facts("u", valid_at=datetime(2024, 7, 1, tzinfo=UTC)))


def test_a_season_dates_a_change_at_its_midpoint_never_after_the_session():
    def moved(text: str) -> datetime:
        [x] = RULES.extract([TurnContext(text=text, speaker="Ann", session_time=SESSION)])
        return next(f for f in x.facts if f.predicate == "LIVES_IN").valid_at
    assert moved("We moved to Perth last spring.") == datetime(2024, 4, 16, tzinfo=UTC)  # 1 March to 1 June, halfway
    assert moved("We moved to Perth in the summer.") == SESSION  # the summer still under way
