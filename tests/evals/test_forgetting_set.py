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
from graphmem.evals.forgetting import HARD_DELETE_KINDS, KINDS, ForgettingItem, load_set, run_items
from graphmem.schema.models import check_user_id

ITEMS = load_set()
BY_ID = {item.id: item for item in ITEMS}
END_TO_END = ("derived_01", "entity_01", "control_02")  # a cascade, an entity, a near miss


def _time(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def _turns(item: ForgettingItem):
    return [(session, turn) for session in item.sessions for turn in session.turns]


def _removed_by_selector(item: ForgettingItem) -> set[str] | None:
    """Turn ids the selector removes by itself (before any cascade); None when
    that depends on extracted facts (a text found only in fact wording)."""
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
    assert all(counts[kind] >= 8 for kind in KINDS), counts
    assert sum(counts[k] for k in HARD_DELETE_KINDS) + counts["control"] == len(ITEMS)


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


# ------------------------------------------------------------------ the runner


def test_baseline_finds_every_string(memory):
    """Before anything is forgotten, every forgotten and kept string is found:
    the items prove something."""
    results = run_items(memory, [BY_ID[i] for i in END_TO_END], baseline=True)
    assert results.ok, results.failures
    assert results.mode == "baseline" and results.hard_delete.items == 2 and results.control.items == 1


def test_forgetting_end_to_end(memory):
    if not hasattr(Memory, "forget"):
        pytest.skip("Memory.forget is not implemented yet")
    results = run_items(memory, [BY_ID[i] for i in END_TO_END])
    assert results.ok, results.failures
    assert results.hard_delete.forgotten_passed == 2 and results.control.kept_passed == 1
    assert all(o.deleted.get("episodes_deleted", 0) >= 1 for o in results.outcomes)


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
    assert json.loads(result.output)["failures"][0]["check"] == "forgotten"

    (tmp_path / "bad.json").write_text('{"items": [{"id": "x"}]}')
    result = runner.invoke(eval_app, ["forget", "--set", str(tmp_path / "bad.json")])
    assert result.exit_code == 2
