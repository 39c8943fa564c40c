"""A slot's timeline after restatements and undated facts: one value per instant,
and no stated span lost (README "Time semantics")."""

from __future__ import annotations

from graphmem.schema.time import now_utc


def at(mem, user, when):
    return sorted(f.object for f in mem.facts(user, valid_at=when))


def spans(mem, user):
    return sorted((v.object, v.valid_at and v.valid_at.date().isoformat(),
                   v.invalid_at and v.invalid_at.date().isoformat()) for v in mem.history(user, user).versions)


def test_an_undated_fact_starts_when_it_was_written_not_at_the_beginning_of_time(memory):
    memory.add_fact("u", "u", "lives_in", "Beijing", valid_at="2020-01-01")
    before = now_utc()
    result = memory.add_fact("u", "u", "lives_in", "Shanghai")
    assert result.action == "superseded"
    assert at(memory, "u", "2021-06-01") == ["Beijing"]
    assert at(memory, "u", "1990-01-01") == []
    assert at(memory, "u", None) == ["Shanghai"]
    [shanghai] = [f for f in memory.facts("u") if f.object == "Shanghai"]
    assert shanghai.valid_at is not None and shanghai.valid_at >= before


def test_an_undated_fact_with_a_reference_time_starts_then(memory):
    memory.add_fact("u", "u", "works_at", "Acme", valid_at="2020-01-01")
    memory.add_fact("u", "u", "works_at", "Initech", reference_time="2022-01-01")
    assert at(memory, "u", "2021-06-01") == ["Acme"]
    assert at(memory, "u", "2022-06-01") == ["Initech"]


def test_an_undated_multi_valued_fact_starts_when_it_was_written(memory):
    memory.add_fact("u", "u", "likes", "tea", single_valued=False)
    assert at(memory, "u", "1990-01-01") == []
    assert at(memory, "u", None) == ["tea"]


def test_a_restatement_after_an_ended_interval_is_a_new_interval(memory):
    memory.add_fact("u", "u", "likes", "tea", valid_at="2020-01-01", invalid_at="2021-01-01", single_valued=False)
    result = memory.add_fact("u", "u", "likes", "tea", valid_at="2023-01-01", single_valued=False)
    assert result.action == "added"
    assert at(memory, "u", "2024-06-01") == ["tea"]
    assert at(memory, "u", "2022-01-01") == []


def test_a_bounded_restatement_far_before_an_open_interval_does_not_stretch_it(memory):
    memory.add_fact("u", "u", "likes", "tea", valid_at="2023-01-01", single_valued=False)
    result = memory.add_fact("u", "u", "likes", "tea", valid_at="2010-01-01", invalid_at="2011-01-01",
                             single_valued=False)
    assert result.action == "added"
    assert at(memory, "u", "2015-01-01") == []
    assert at(memory, "u", "2010-06-01") == at(memory, "u", "2024-01-01") == ["tea"]


def test_a_restatement_running_past_the_end_of_its_interval_extends_it(memory):
    memory.add_fact("u", "u", "works_at", "Acme", valid_at="2020-01-01", invalid_at="2021-01-01")
    result = memory.add_fact("u", "u", "works_at", "Acme", valid_at="2020-06-01", invalid_at="2023-01-01")
    assert result.action == "merged"
    assert at(memory, "u", "2022-01-01") == ["Acme"]
    assert spans(memory, "u") == [("Acme", "2020-01-01", "2023-01-01")]


def test_a_restatement_is_never_listed_twice_at_one_instant(memory):
    memory.add_fact("u", "u", "lives_in", "Lima", valid_at="2024-04-01")
    memory.add_fact("u", "u", "lives_in", "Oslo", valid_at="2024-03-01")
    memory.add_fact("u", "u", "lives_in", "Oslo", valid_at="2024-01-01", invalid_at="2024-07-01")
    assert at(memory, "u", "2024-03-15") == ["Oslo"]
    assert at(memory, "u", "2024-02-01") == ["Oslo"]
    assert at(memory, "u", "2024-05-01") == ["Lima"]


def test_a_fact_said_after_its_end_does_not_close_the_value_that_began_later(memory):
    """An undated fact whose end has passed began before that end: placed where it was
    said, "Oslo until June 2020" closed the home held since 2021 (`FactEdge.order_key`)."""
    memory.add_fact("u", "u", "lives_in", "Berlin", valid_at="2021-03-01")
    memory.add_fact("u", "u", "lives_in", "Oslo", invalid_at="2020-06-01")
    assert at(memory, "u", None) == ["Berlin"]
    assert at(memory, "u", "2019-01-01") == ["Oslo"]
    assert at(memory, "u", "2020-09-01") == []


def test_a_dated_restatement_gives_a_fact_said_after_its_end_its_start(memory):
    memory.add_fact("u", "u", "lives_in", "Oslo", invalid_at="2020-06-01")
    assert memory.add_fact("u", "u", "lives_in", "Oslo", valid_at="2018-01-01").action == "merged"
    assert spans(memory, "u") == [("Oslo", "2018-01-01", "2020-06-01")]
    assert at(memory, "u", "2017-01-01") == []


def test_a_restatement_after_the_end_of_a_fact_said_later_is_a_new_interval(memory):
    """Placed where it was said (2030), the ended fact took the 2022 statement in and
    moved its start past its own end (`cypher.facts.ORDER_KEY` is the store's twin)."""
    memory.add_fact("u", "u", "lives_in", "Oslo", invalid_at="2020-06-01", reference_time="2030-01-01")
    assert memory.add_fact("u", "u", "lives_in", "Oslo", valid_at="2022-01-01").action == "added"
    assert sorted((v.valid_at is not None, v.invalid_at is not None) for v in memory.history("u", "u").versions) == [
        (False, True), (True, False)]
    assert at(memory, "u", "2021-01-01") == []


def test_a_fact_said_after_its_end_closes_no_value_that_began_before_it(memory):
    """Review of 497dc39: placed at its end, "Oslo until June 2020" closed the home held from 2018
    there; it says nothing of when it began, so it closes nothing (the write path's endings do the same)."""
    memory.add_fact("u", "u", "lives_in", "Berlin", valid_at="2018-01-01")
    memory.add_fact("u", "u", "lives_in", "Oslo", invalid_at="2020-06-01")
    assert at(memory, "u", None) == at(memory, "u", "2021-01-01") == ["Berlin"]


def test_a_start_moved_back_by_a_merge_closes_the_value_held_there(memory):
    memory.add_fact("u", "u", "lives_in", "Oslo", invalid_at="2020-06-01")
    memory.add_fact("u", "u", "lives_in", "Lima", valid_at="2019-01-01")
    assert memory.add_fact("u", "u", "lives_in", "Oslo", valid_at="2019-06-01").action == "merged"
    assert at(memory, "u", "2019-07-01") == ["Oslo"]
    assert at(memory, "u", "2019-03-01") == ["Lima"]
