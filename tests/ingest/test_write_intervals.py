"""Turns that state an interval, written through `Memory.write`: the slot's history
holds the interval, and the home or job said before or after it is left as it was."""

from __future__ import annotations


def values(mem, when=None):
    return sorted((f.predicate, f.object) for f in mem.facts("u", valid_at=when)
                  if f.predicate in ("LIVES_IN", "WORKS_AT"))


def say(mem, text, when):
    mem.write("u", [{"role": "user", "content": text}], when)


def test_a_past_range_fills_the_history_and_leaves_the_current_home(memory):
    say(memory, "I moved to Berlin in March 2021.", "2021-04-01")
    say(memory, "I lived in Oslo from 2015 to 2020.", "2024-05-01")
    assert values(memory) == [("LIVES_IN", "Berlin")]
    assert values(memory, "2016-06-01") == values(memory, "2020-06-01") == [("LIVES_IN", "Oslo")]


def test_an_until_that_has_passed_closes_the_open_value_then(memory):
    say(memory, "I live in Oslo.", "2019-02-01")
    say(memory, "I lived in Oslo until June 2020. Now I'm in Berlin.", "2024-05-01")
    assert values(memory, "2019-06-01") == [("LIVES_IN", "Oslo")]
    assert values(memory, "2022-06-01") == []
    assert values(memory) == [("LIVES_IN", "Berlin")]


def test_a_past_job_with_its_interval_is_the_job_then_not_now(memory):
    say(memory, "I work at Initech.", "2023-02-01")
    say(memory, "Before that I worked at Acme from 2018 to 2022.", "2024-05-01")
    assert values(memory) == [("WORKS_AT", "Initech")]
    assert values(memory, "2019-06-01") == values(memory, "2022-06-01") == [("WORKS_AT", "Acme")]


def test_a_past_until_is_no_expiry_so_purge_keeps_the_fact(memory):
    say(memory, "I lived in Oslo until June 2020.", "2024-05-01")
    assert memory.purge("u") == 0
    assert values(memory, "2019-06-01") == [("LIVES_IN", "Oslo")]


def test_the_job_taken_then_holds_from_the_end_of_the_last(memory):
    say(memory, "I worked at Acme until 2022, then joined Initech.", "2024-05-01")
    assert values(memory, "2021-06-01") == [("WORKS_AT", "Acme")]
    assert values(memory, "2023-06-01") == values(memory) == [("WORKS_AT", "Initech")]


def test_an_interval_said_after_its_end_ends_the_open_value_it_restates(memory):
    """Merged into the open "I work at Siemens", the stated interval moved its start back and
    left it open: retired in 2021, the memory still had the job now."""
    say(memory, "I work at Siemens.", "2020-09-14")
    say(memory, "I was at Siemens from 2013 up until March 2021 when I retired.", "2024-09-01")
    assert values(memory, "2015-06-01") == values(memory, "2020-12-01") == [("WORKS_AT", "Siemens")]
    assert values(memory) == []


def test_a_value_said_again_after_the_stated_end_stays_open(memory):
    say(memory, "I work at Siemens.", "2020-09-14")
    say(memory, "I work at Siemens.", "2022-05-02")
    say(memory, "I was at Siemens from 2013 up until March 2021.", "2024-09-01")
    assert values(memory) == [("WORKS_AT", "Siemens")]
