"""Forgetting a fact undoes only its own effect on its slot: what it closed gets
back its own end, or ends where the next remaining value starts (README "Forgetting")."""

from __future__ import annotations


def at(mem, user, when):
    return sorted(f.object for f in mem.facts(user, valid_at=when))


def spans(mem, user):
    return sorted((v.object, v.valid_at.date().isoformat(), v.invalid_at and v.invalid_at.date().isoformat())
                  for v in mem.history(user, user).versions)


def test_forgetting_the_middle_value_ends_the_first_where_the_last_starts(memory):
    memory.add_fact("u", "u", "lives_in", "Beijing", valid_at="2020-01-01")
    shanghai = memory.add_fact("u", "u", "lives_in", "Shanghai", valid_at="2021-01-01")
    tokyo = memory.add_fact("u", "u", "lives_in", "Tokyo", valid_at="2022-01-01")
    report = memory.forget("u", {"fact": shanghai.fact_uuid})
    assert report.facts_reopened
    assert at(memory, "u", "2023-06-01") == at(memory, "u", None) == ["Tokyo"]
    assert at(memory, "u", "2021-06-01") == ["Beijing"]
    assert spans(memory, "u") == [("Beijing", "2020-01-01", "2022-01-01"), ("Tokyo", "2022-01-01", None)]
    [beijing] = [v for v in memory.history("u", "u").versions if v.object == "Beijing"]
    assert beijing.status == "superseded" and beijing.superseded_by == tokyo.fact_uuid


def test_forgetting_the_superseder_gives_back_the_end_the_caller_gave(memory):
    memory.add_fact("u", "u", "works_at", "Acme", valid_at="2020-01-01", invalid_at="2022-01-01")
    initech = memory.add_fact("u", "u", "works_at", "Initech", valid_at="2021-01-01")
    memory.forget("u", {"fact": initech.fact_uuid})
    assert spans(memory, "u") == [("Acme", "2020-01-01", "2022-01-01")]
    assert at(memory, "u", "2024-06-01") == []
    [acme] = memory.history("u", "u").versions
    assert acme.status == "ended" and acme.superseded_by is None


def test_forgetting_the_last_value_reopens_the_one_before(memory):
    memory.add_fact("u", "u", "lives_in", "Beijing", valid_at="2020-01-01")
    shanghai = memory.add_fact("u", "u", "lives_in", "Shanghai", valid_at="2021-01-01")
    memory.forget("u", {"fact": shanghai.fact_uuid})
    assert spans(memory, "u") == [("Beijing", "2020-01-01", None)]
    assert [(f.object, f.status) for f in memory.facts("u")] == [("Beijing", "current")]


def test_forgetting_a_later_value_reopens_an_out_of_order_one_it_closed(memory):
    lima = memory.add_fact("u", "u", "lives_in", "Lima", valid_at="2024-04-01")
    memory.add_fact("u", "u", "lives_in", "Oslo", valid_at="2024-03-01")
    memory.add_fact("u", "u", "lives_in", "Kyoto", valid_at="2024-06-01")
    memory.forget("u", {"fact": lima.fact_uuid})
    assert spans(memory, "u") == [("Kyoto", "2024-06-01", None), ("Oslo", "2024-03-01", "2024-06-01")]
