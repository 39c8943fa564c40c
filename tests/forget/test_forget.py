"""Hard deletion, dry runs, expiry and the bytes left on disk."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphmem import InvalidInput

NOW = "2024-09-15T12:00:00Z"


def tell(mem, user, text, when, session_id):
    return mem.write(user, [{"role": "user", "content": text}], when, session_id=session_id)


def all_text(mem, user, queries):
    texts = [mem.search(user, query, now=NOW, limit=25).to_prompt(100_000) for query in queries]
    texts += [f.fact for f in mem.facts(user)] + [v.fact for v in _history(mem, user)]
    return "\n".join(texts)


def _history(mem, user):
    try:
        return mem.history(user, "user").versions
    except Exception:  # noqa: BLE001 - no entity left is fine here
        return ()


def episode_count(mem, user):
    return mem.inspect().counts(user).episodes


@pytest.fixture
def family(memory):
    tell(memory, "u", "My daughter Lily started primary school.", "2024-02-01T09:00:00Z", "s1")
    tell(memory, "u", "I live in Boston.", "2024-03-01T09:00:00Z", "s2")
    tell(memory, "u", "I have a dog named Max.", "2024-04-01T09:00:00Z", "s3")
    return memory


def test_dry_run_reports_and_changes_nothing(family):
    facts, episodes = family.facts("u"), episode_count(family, "u")
    report = family.forget("u", {"text": "Lily"}, dry_run=True)
    assert report.dry_run and report.facts_deleted >= 1 and report.episodes_deleted == 1
    assert report.turn_ids == ("s1#0",) and "Lily" in report.entities
    assert family.facts("u") == facts and episode_count(family, "u") == episodes
    real = family.forget("u", {"text": "Lily"})
    assert (real.facts, real.episodes, real.entities) == (report.facts, report.episodes, report.entities)


def test_forgetting_a_name_removes_fact_turn_entity_and_keeps_the_rest(family):
    report = family.forget("u", {"text": "lily"})
    assert report.compacted and not report.dry_run
    text = all_text(family, "u", ["What is my daughter's name?", "Which school?", "Where do I live?", "my dog"])
    assert "lily" not in text.lower()
    assert "Boston" in text and "Max" in text
    names = [e.name for e in family.inspect().entities("u")]
    assert "Lily" not in names


@pytest.mark.parametrize("said", ["Hauptstraße", "hauptstraße", "Σωκράτης", "ΣΩΚΡΆΤΗΣ", "HAUPTSTRASSE", "hauptstrasse"])
def test_forgetting_text_finds_words_beyond_ascii_in_any_case(memory, said):
    """The store narrows with Cypher's toLower, the check after it with Python's case folding;
    a needle folded in Python ("ß" -> "ss", final "ς" -> "σ") once narrowed to nothing, and
    the user was told no turn held the words. "HAUPTSTRASSE" folds as "Hauptstraße" does, but
    Cypher cannot fold: it is also looked for as "hauptstraße" (`spellings`)."""
    tell(memory, "u", "I had coffee on Hauptstraße with my teacher Σωκράτης.", "2024-05-01T09:00:00Z", "s1")
    tell(memory, "u", "I live in Boston.", "2024-05-02T09:00:00Z", "s2")
    report = memory.forget("u", {"text": said}, dry_run=True)
    assert report.turn_ids == ("s1#0",), report
    memory.forget("u", {"text": said})
    assert [e.content for e in memory.inspect().episodes("u")] == ["I live in Boston."]


@pytest.mark.parametrize(("stored", "said"), [("İstanbul", "Istanbul"), ("İSTANBUL", "istanbul"), ("Istanbul", "İstanbul")])
def test_forgetting_text_finds_a_dotted_capital_i_either_way(memory, stored, said):
    """Cypher lowers "İ" to "i"; Python to "i" and a combining dot, so the turn the store found
    was refused by the check after it, and the user told no turn held the words."""
    tell(memory, "u", f"We moved to {stored} last year.", "2024-05-01T09:00:00Z", "s1")
    tell(memory, "u", "I live in Boston.", "2024-05-02T09:00:00Z", "s2")
    assert memory.forget("u", {"text": said}, dry_run=True).turn_ids == ("s1#0",)


def test_forgetting_text_with_several_runs_that_fold_finds_them_all(memory):
    """Each "ss" may be "ß" and each "st" a ligature: the store narrows on the longest part of
    the folded needle without such a run (spelling every run every way once made too many
    forms, and the one that mattered was cut)."""
    tell(memory, "u", "We met at the corner of Große Straße Essen.", "2024-05-01T09:00:00Z", "s1")
    tell(memory, "u", "I live in Boston.", "2024-05-02T09:00:00Z", "s2")
    assert memory.forget("u", {"text": "GROSSE STRASSE ESSEN"}, dry_run=True).turn_ids == ("s1#0",)


def test_no_forgotten_string_is_left_in_any_data_file(family, tmp_path):
    family.forget("u", {"text": "Lily"})
    data_dir = Path(family.settings.data_dir)
    files = {p: p.read_bytes() for p in data_dir.rglob("*") if p.is_file()}
    leaked = [str(p.relative_to(data_dir)) for p, b in files.items() if b"Lily" in b or b"lily" in b]
    assert not leaked, (leaked, sorted(str(p.relative_to(data_dir)) for p in files),
                        (data_dir / "appendonlydir" / "appendonly.aof.manifest").read_text())
    blobs = b"".join(files.values())
    for needle in (b"Lily", b"lily"):
        at = blobs.find(needle)
        assert at < 0, blobs[max(0, at - 120):at + 40]
    assert b"Boston" in blobs, "the scan must see stored text, or its silence proves nothing"
    audit = (data_dir / "forget_audit.jsonl").read_text()
    assert json.loads(audit.splitlines()[-1])["selector"] == "text"


def test_forgetting_a_move_takes_the_derived_home_and_reopens_the_old_one(memory):
    tell(memory, "u", "I live in Beijing.", "2024-03-10T09:00:00Z", "march")
    tell(memory, "u", "I moved to Shanghai last month.", "2024-07-10T09:00:00Z", "july")
    report = memory.forget("u", {"session_id": "july"})
    assert report.facts_deleted >= 2 and report.facts_reopened
    homes = [(f.object, f.status) for f in memory.facts("u") if f.predicate == "LIVES_IN"]
    assert homes == [("Beijing", "current")]
    assert "Shanghai" not in all_text(memory, "u", ["Where do I live?", "Where did I move?"])


def test_forgetting_an_entity_and_a_time_range(family):
    family.forget("u", {"entity": "Max"})
    assert "Max" not in all_text(family, "u", ["my dog", "pets"])
    family.forget("u", {"between": ["2024-02-15T00:00:00Z", "2024-03-15T00:00:00Z"]})
    assert "Boston" not in all_text(family, "u", ["Where do I live?"])
    assert "Lily" in all_text(family, "u", ["my daughter"])


def test_forget_all_needs_confirmation(family):
    with pytest.raises(InvalidInput, match="confirm"):
        family.forget("u", {"all": True})
    assert family.facts("u")
    report = family.forget("u", {"all": True}, confirm=True)
    assert report.episodes_deleted == 3 and "u" not in family.users()


@pytest.mark.parametrize(
    "selector, error",
    [({"colour": "red"}, "unknown selector"), ({"text": ""}, "non-empty"), ({"text": "a", "fact": "b"}, "exactly one"),
     ({"between": ["2024-02-01"]}, "start, end"), ({"between": ["2024-03-01", "2024-02-01"]}, "later"), ("Lily", "object")],
)
def test_bad_selectors_are_refused(family, selector, error):
    with pytest.raises(InvalidInput, match=error):
        family.forget("u", selector)


def test_a_selector_matching_nothing_is_an_empty_report(family):
    report = family.forget("u", {"text": "Zanzibar"})
    assert (report.facts_deleted, report.episodes_deleted, report.entities_deleted) == (0, 0, 0)
    assert len(family.facts("u")) >= 3


def test_expired_facts_leave_search_stay_in_history_until_purged(memory):
    memory.add_fact("u", "user", "stays_at", "Hotel Aurora", valid_at="2024-09-01", expires_at="2024-09-10",
                    single_valued=False)
    memory.add_fact("u", "user", "lives_in", "Boston", valid_at="2024-01-01")
    packet = memory.search("u", "Where am I staying? Hotel Aurora", now=NOW)
    assert "Aurora" not in " ".join(f.object for f in packet.facts)
    assert "Hotel Aurora" in [v.object for v in memory.history("u", "user").versions]
    assert memory.purge("u", now=NOW) == 1
    assert "Hotel Aurora" not in [v.object for v in memory.history("u", "user").versions]
    assert [f.object for f in memory.facts("u")] == ["Boston"]


def test_until_in_the_text_and_a_ttl_at_write_set_the_expiry(memory):
    from datetime import timedelta

    memory.write("u", [{"role": "user", "content": "I live in Berlin until Friday."}], "2024-05-01T09:00:00Z", "s1")
    [berlin] = [f for f in memory.facts("u", valid_at="2024-05-02") if f.object == "Berlin"]
    assert berlin.expires_at.date().isoformat() == "2024-05-04"
    assert any(f.object == "Berlin" for f in memory.search("u", "Where do I live?", now="2024-05-02").facts)
    assert not any(f.object == "Berlin" for f in memory.search("u", "Where do I live?", now="2024-05-10").facts)
    memory.write("u", [{"role": "user", "content": "I like opera."}], "2024-05-01T10:00:00Z", "s2", ttl=timedelta(days=7))
    [opera] = [f for f in memory.facts("u", valid_at="2024-05-02") if f.object == "opera"]
    assert opera.expires_at.date().isoformat() == "2024-05-08"
    assert memory.purge("u", now="2024-06-01") == 2
