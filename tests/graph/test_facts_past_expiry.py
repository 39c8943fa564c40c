"""`facts(valid_at=T)` answers what is true at T: a fact whose `expires_at` is at or
before T is not (search already drops it once its expiry passed)."""

from __future__ import annotations


def test_a_fact_is_not_true_at_or_after_its_expiry(memory):
    memory.add_fact("u", "user", "stays_at", "Hotel Aurora", valid_at="2024-09-01", expires_at="2024-09-10",
                    single_valued=False)
    memory.add_fact("u", "user", "lives_in", "Boston", valid_at="2024-01-01")

    def at(when: str) -> set[str]:
        return {f.object for f in memory.facts("u", valid_at=when)}

    assert at("2024-09-05") == {"Hotel Aurora", "Boston"}
    assert at("2024-09-10") == at("2024-10-01") == at("2031-01-01") == {"Boston"}
    assert {f.object for f in memory.facts("u")} == {"Boston"}  # now is long past the expiry
    assert "Hotel Aurora" in {v.object for v in memory.history("u", "user").versions}  # until purge


def test_until_in_a_turn_ends_the_fact_for_facts_as_for_search(memory):
    memory.write("u", [{"role": "user", "content": "I live in Berlin until Friday."}], "2024-05-01T09:00:00Z")
    assert "Berlin" in {f.object for f in memory.facts("u", valid_at="2024-05-02")}
    assert "Berlin" not in {f.object for f in memory.facts("u", valid_at="2024-05-10")}
    assert not any(f.object == "Berlin" for f in memory.search("u", "Where do I live?", now="2024-05-10").facts)
