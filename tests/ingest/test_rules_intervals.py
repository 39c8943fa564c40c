"""A state said with its whole interval ("from 2015 to 2020", "between 2019 and 2021",
"2015-2019") or with an end that has passed ("until June 2020") is stored with those
bounds: never as open since its start, and never as an expiry in the past, which
hides the fact at once and lets `purge` delete it."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from rule_reading import SESSION, extracted

from graphmem.ingest.rules.intervals import past_end, ranges


def at(year: int, month: int = 1) -> datetime:
    return datetime(year, month, 1, tzinfo=UTC)


def bounded(text: str) -> set[tuple[str, str, datetime | None, datetime | None]]:
    return {(f.predicate, f.object, f.valid_at, f.invalid_at) for f in extracted(text) if f.invalid_at is not None}


@pytest.mark.parametrize(("text", "fact"), [
    ("I lived in Oslo from 2015 to 2020.", ("LIVES_IN", "Oslo", at(2015), at(2021))),
    ("I lived in Oslo between 2015 and 2020, then came back home.", ("LIVES_IN", "Oslo", at(2015), at(2021))),
    ("From 2015 to 2020, I lived in Oslo.", ("LIVES_IN", "Oslo", at(2015), at(2021))),
    ("I lived in Leeds 2015-2019 and loved it.", ("LIVES_IN", "Leeds", at(2015), at(2020))),
    ("I worked for Globex from March 2019 until last year.", ("WORKS_AT", "Globex", at(2019, 3), at(2024))),
    ("I was working at Initech between 2019 and 2021.", ("WORKS_AT", "Initech", at(2019), at(2022))),
    ("I've worked at Acme from 2018 to 2022.", ("WORKS_AT", "Acme", at(2018), at(2023))),
])
def test_a_stated_range_bounds_the_state(text, fact):
    assert fact in bounded(text)
    assert not any(f.expires_at is not None for f in extracted(text))


@pytest.mark.parametrize(("text", "fact"), [
    ("I lived in Oslo until June 2020.", ("LIVES_IN", "Oslo", None, at(2020, 7))),
    ("Until last summer I lived in Leeds.", ("LIVES_IN", "Leeds", None, at(2023, 9))),
    ("I worked at Acme until last year.", ("WORKS_AT", "Acme", None, at(2024))),
])
def test_an_until_that_has_passed_ends_the_state_instead_of_expiring_it(text, fact):
    assert fact in bounded(text)
    assert all(f.expires_at is None for f in extracted(text))


def test_an_until_still_ahead_is_an_expiry_as_before():
    [fact] = [f for f in extracted("I live in Berlin until December.") if f.predicate == "LIVES_IN"]
    assert fact.valid_at == SESSION and fact.invalid_at is None
    assert fact.expires_at == at(2025)


def test_a_past_job_without_its_interval_says_nothing():
    assert not [f for f in extracted("I worked at Acme.") if f.object == "Acme"]


def test_a_weekly_routine_is_no_interval():
    assert ranges("I work at Acme from Monday to Friday.", SESSION) == []
    assert not bounded("I work at Acme from Monday to Friday.")


def test_the_range_finder_reads_both_halves():
    [found] = ranges("I worked there from March 2019 until last year, then left.", SESSION)
    assert (found.first.start, found.last.end) == (at(2019, 3), at(2024))
    assert ranges("between July and May", SESSION) == []  # the second half before the first: no interval


def test_an_until_reads_the_past_from_the_tense_of_its_clause():
    past = past_end("till March", "I was at Acme till March", SESSION)
    assert past is not None and past.end == at(2024, 4)
    assert past_end("till March", "I am at Acme till March", SESSION) is None


@pytest.mark.parametrize(("text", "fact"), [
    ("I owned a Honda Civic from 2015 to 2020.", ("OWNS", "Honda Civic", at(2015), at(2021))),
    ("I studied at MIT from 2010 to 2014.", ("STUDIES_AT", "MIT", at(2010), at(2015))),
    ("I had a cat named Luna until 2021.", ("HAS_PET", "Luna", None, at(2022))),
    ("I was vegetarian until last year.", ("DIET", "vegetarian", None, at(2024))),
    ("I dated Sam until last spring.", ("PARTNER_OF", "Sam", None, at(2024, 6))),
])
def test_a_past_state_of_any_topic_with_its_interval_is_read_like_the_present(text, fact):
    """The present twin: the topic rules read "I own ...", kept only for the stated interval."""
    assert fact in bounded(text)


@pytest.mark.parametrize("text", ["I owned a Honda Civic.", "I was vegetarian.", "I had a cat named Luna."])
def test_a_past_state_without_an_interval_gives_no_present_fact(text):
    assert not [f for f in extracted(text) if f.predicate in ("OWNS", "DIET", "HAS_PET") and f.invalid_at is None
                and f.valid_at is not None]


def test_an_until_clause_dated_in_the_past_ends_the_state_when_it_happened():
    facts = extracted("I lived in Leeds until we moved to York last summer.")
    [move] = [f for f in facts if f.predicate == "MOVED_TO"]
    assert move.valid_at.year == 2023
    assert ("LIVES_IN", "Leeds", None, move.valid_at) in bounded("I lived in Leeds until we moved to York last summer.")
    assert ("LIVES_IN", "Boston", None, at(2019)) in bounded("Until I graduated in 2019 I lived in Boston.")


def test_the_date_of_an_until_clause_still_ahead_is_no_start():
    [fact] = [f for f in extracted("I live in Leeds until we move next year.") if f.object == "Leeds"]
    assert fact.valid_at == SESSION


@pytest.mark.parametrize(("text", "then", "start"), [
    ("I worked at Acme until 2022, then joined Initech.", "Initech", at(2023)),
    ("We lived in Paris until 2019 and then moved to Lyon.", "Lyon", at(2020)),
    ("I was vegetarian until last year, then went vegan.", "vegan", at(2024)),
])
def test_what_comes_then_starts_where_the_stated_interval_ended(text, then, start):
    assert {f.valid_at for f in extracted(text) if f.object == then} == {start}
