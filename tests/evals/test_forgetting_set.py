"""The forgetting set (evals/data/forgetting_set.json) and its runner."""

from __future__ import annotations

import json
import re
from collections import Counter
from datetime import UTC, datetime
from importlib import resources

import pytest
from typer.testing import CliRunner

from graphmem import Memory
from graphmem.evals.cli import eval_app
from graphmem.evals.forgetting import (
    CHECKS,
    HARD_DELETE_KINDS,
    KINDS,
    ForgettingItem,
    Observation,
    judge,
    load_set,
    run_items,
)
from graphmem.schema.models import check_user_id

ITEMS = load_set()
BY_ID = {item.id: item for item in ITEMS}
END_TO_END = ("derived_01", "direct_fact_01", "control_02", "expiry_01")  # a cascade, a name, a near miss, a purge


def _time(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def _turns(item: ForgettingItem):
    return [(session, turn) for session in item.sessions for turn in session.turns]


def _removed_by_selector(item: ForgettingItem) -> set[str] | None:
    """Turn ids the selector removes by itself (before any cascade); None when
    that depends on extracted facts (a text found only in fact wording)."""
    if item.forget is None:
        return None
    (key, value), = item.forget.items()
    turns = _turns(item)
    if key == "all":
        return {t.id for _, t in turns}
    if key == "session_id":
        return {t.id for s, t in turns if s.session_id == value}
    if key == "between":
        start, end = (_time(v) for v in value)
        return {t.id for s, t in turns if start <= s.session_time < end}
    if key == "entity":
        word = re.compile(rf"\b{re.escape(value)}\b", re.IGNORECASE)
        return {t.id for _, t in turns if word.search(t.content)}
    found = {t.id for _, t in turns if value.lower() in t.content.lower()}
    return found or None


# ------------------------------------------------------------------ the file


def test_the_set_is_packaged_json():
    raw = resources.files("graphmem.evals").joinpath("data", "forgetting_set.json").read_text(encoding="utf-8")
    data = json.loads(raw)
    assert isinstance(data["items"], list) and len(data["items"]) == len(ITEMS)


def test_counts_per_kind():
    counts = Counter(item.kind for item in ITEMS)
    assert len(ITEMS) >= 50
    assert set(counts) == set(KINDS)
    assert all(counts[kind] >= 8 for kind in (*HARD_DELETE_KINDS, "control")), counts
    assert counts["expiry"] >= 3, counts
    assert sum(counts[k] for k in HARD_DELETE_KINDS) + counts["control"] + counts["expiry"] == len(ITEMS)


@pytest.mark.parametrize("item", ITEMS, ids=lambda item: item.id)
def test_item_shape(item: ForgettingItem):
    check_user_id(item.user_id)
    assert item.id.startswith(item.kind)
    assert 1 <= len(item.sessions) <= 4
    for session in item.sessions:
        assert 1 <= len(session.turns) <= 4
        assert datetime(2023, 1, 1, tzinfo=UTC) <= session.session_time < datetime(2025, 1, 1, tzinfo=UTC)
        assert all(turn.speaker.strip() and turn.content.strip() for turn in session.turns)
    assert all(s.strip() for s in (*item.forgotten, *item.ask, *item.kept))
    if item.kind == "expiry":
        assert item.forget is None and item.purge_at > max(s.session_time for s in item.sessions)
        return
    (key, value), = item.forget.items()
    if key == "all":
        assert value is True and not item.kept
    elif key == "between":
        start, end = (_time(v) for v in value)
        assert start.tzinfo is not None and start < end
    else:
        assert key in ("text", "entity", "session_id") and isinstance(value, str) and value.strip()
    if item.kind == "control":
        assert item.kept, "a control exists to check what must survive"


@pytest.mark.parametrize("item", ITEMS, ids=lambda item: item.id)
def test_item_can_pass(item: ForgettingItem):
    """What must stay is said in a turn that nothing forgotten touches; what must
    go is said only in turns the selector removes (cascades aside)."""
    clean = [t.content.lower() for _, t in _turns(item)
             if not any(f.lower() in t.content.lower() for f in item.forgotten)]
    for kept in item.kept:
        assert any(kept.lower() in text for text in clean), f"{kept!r} is only in turns that must go"
    removed = _removed_by_selector(item)
    if removed is None:
        return
    assert removed, f"the selector {item.forget} removes no turn"
    left = [t.content.lower() for _, t in _turns(item) if t.id not in removed]
    for forgotten in item.forgotten:
        assert not any(forgotten.lower() in text for text in left), f"{forgotten!r} is in a turn the selector leaves"
    for kept in item.kept:
        assert any(kept.lower() in text for text in left), f"{kept!r} is only in turns the selector removes"


def test_bad_items_are_refused():
    good = BY_ID["control_01"].model_dump(mode="json")
    with pytest.raises(ValueError, match="exactly one"):
        ForgettingItem.model_validate({**good, "forget": {"txt": "Lily"}})
    with pytest.raises(ValueError, match="can never pass"):
        ForgettingItem.model_validate({**good, "kept": ["Lily Rose"]})
    with pytest.raises(ValueError):
        ForgettingItem.model_validate({**good, "kind": "other"})
    with pytest.raises(ValueError, match="purge_at"):
        ForgettingItem.model_validate({**good, "kind": "expiry"})


# ------------------------------------------------------------------ the runner


def test_baseline_finds_every_string(memory):
    """Before anything is forgotten, every forgotten and kept string is found:
    the items prove something."""
    results = run_items(memory, [BY_ID[i] for i in END_TO_END], baseline=True)
    assert results.ok, results.failures
    assert results.mode == "baseline" and results.hard_delete.items == 2 and results.control.items == 1
    assert all(results.hard_delete.checks[c] == (2, 2) for c in ("search", "graph", "bytes"))
    assert memory.users() == [], "each item's user is dropped after it"


def test_forgetting_end_to_end(memory):
    if not hasattr(Memory, "forget"):
        pytest.skip("Memory.forget is not implemented yet")
    results = run_items(memory, [BY_ID[i] for i in END_TO_END])
    assert results.ok, results.failures
    assert results.hard_delete.forgotten_passed == 2 and results.control.kept_passed == 1
    assert all(o.deleted.get("episodes_deleted", 0) >= 1 for o in results.outcomes if o.kind != "expiry")
    [expiry] = [o for o in results.outcomes if o.kind == "expiry"]
    assert expiry.checks["graph"] and expiry.checks["facts"] and expiry.checks["bytes"] is None
    assert all(results.hard_delete.checks[c] == (2, 2) for c in ("search", "graph", "bytes"))


def _observation(**texts: list[tuple[str, str]]) -> Observation:
    return Observation(texts={name: texts.get(name, []) for name in CHECKS}, has_cache=True)


@pytest.mark.parametrize("check", CHECKS)
def test_a_string_left_in_any_place_fails_that_check(check):
    """The judge is pure: a forgotten string left in one place fails exactly that check."""
    item = BY_ID["direct_fact_01"]
    before = _observation(**{name: [("x", "Lily")] for name in CHECKS})
    after = _observation(**{"search": [("x", "nurse")], check: [("x", "nurse ...Lily...")]})
    outcome = judge(item, before, after, None)
    assert outcome.checks[check] is False
    assert {f.check for f in outcome.failures} == {check}
    assert all(outcome.checks[c] for c in CHECKS if c != check)


def test_a_string_the_baseline_cannot_find_proves_nothing():
    item = BY_ID["direct_fact_01"]
    before = _observation(search=[("x", "Lily nurse")], graph=[("x", "Lily")])
    outcome = judge(item, before, None, None)
    assert [f.check for f in outcome.failures] == ["bytes"]
    assert outcome.checks["facts"] is None, "facts that never held it do not apply"


def test_a_question_naming_the_string_is_not_a_leak():
    item = BY_ID["direct_fact_01"]
    before = _observation(**{name: [("x", "Lily nurse")] for name in CHECKS})
    after = _observation(search=[(f"the packet for {item.ask[0]!r} Lily", "nothing relevant; nurse")])
    assert judge(item, before, after, None).failures == ()


def _small_set(tmp_path, items):
    path = tmp_path / "set.json"
    path.write_text(json.dumps({"items": [item.model_dump(mode="json") for item in items]}))
    return path


def test_cli_exit_codes(tmp_path, embedder):
    runner = CliRunner()
    good = _small_set(tmp_path, [BY_ID["control_08"]])
    result = runner.invoke(eval_app, ["forget", "--set", str(good), "--baseline"])
    assert result.exit_code == 0, result.output
    assert "no failures" in result.output and "control" in result.output

    unfound = BY_ID["control_08"].model_copy(update={"forgotten": ("never said",)})
    result = runner.invoke(eval_app, ["forget", "--set", str(_small_set(tmp_path, [unfound])), "--baseline", "--json"])
    assert result.exit_code == 1
    assert json.loads(result.output)["failures"][0]["check"] == "search"

    (tmp_path / "bad.json").write_text('{"items": [{"id": "x"}]}')
    result = runner.invoke(eval_app, ["forget", "--set", str(tmp_path / "bad.json")])
    assert result.exit_code == 2


def test_the_whole_set_with_an_llm_extractor_leaves_nothing_in_the_cache(tmp_path, embedder, scripted_llm):
    """The cache column at 100%: every item runs through the LLM path (replies
    computed by `rules_llm`), so cache entries exist for its turns and facts, and
    each forget must remove every entry that holds or rests on forgotten text."""
    from rules_llm import rules_handler

    from graphmem.evals.forgetting import LLMEndpoint, run

    scripted_llm.handler = rules_handler
    results = run(data_dir=tmp_path / "gm", embedder=embedder,
                  llm=LLMEndpoint(base_url=scripted_llm.url, model="scripted-model"))
    assert results.failures == (), results.failures
    passed, applies = results.hard_delete.checks["cache"]
    assert applies >= 40 and passed == applies, (passed, applies)
    assert results.ok
    assert len(scripted_llm.requests) >= len(ITEMS)
