"""Hostile input never crashes and never costs stored data.

Every public verb that takes text gets Hypothesis-generated values: all of
Unicode including lone surrogates and control characters, empty and huge
strings, and the wrong types where the API takes dicts and lists. Each call
must either succeed or raise `GraphMemError`; afterwards a control fact and a
control session written first must still be there. One real `Memory` (real
FalkorDB, real MiniLM) serves the whole module.
"""

from __future__ import annotations

import json
from datetime import date, timedelta

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from graphmem import GraphMemError, InvalidInput, Memory
from graphmem.cli import app
from graphmem.retrieval.packet import MemoryPacket
from graphmem.parsing.text import check_id, check_name, clean_text, surrogate_at

USER = "hostile"
CONTROL = ("control subject", "owns", "control object 7f3a")
CONTROL_TURN = "My favourite colour is teal."

FUZZ = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)

def mostly(valid, hostile):
    """`valid` four times in five, so calls get past the first check and the
    hostile value meets the deeper layers (embedder, store, extraction)."""
    return st.sampled_from((valid, valid, valid, valid, hostile)).flatmap(lambda chosen: chosen)


# hostile: all of Unicode with lone surrogates and control characters, empty,
# huge, and the wrong types
surrogates = st.integers(0xD800, 0xDFFF).map(chr)
controls = st.integers(0, 0x1F).map(chr) | st.sampled_from(["\x7f", "\x85", "\x9f", "\u2028", "\ufeff", "\uffff"])
chars = st.characters() | surrogates | controls
short_text = st.lists(chars, max_size=40).map("".join)
huge_text = st.builds(lambda c, n: c * n, chars, st.sampled_from([1_001, 4_001, 20_001, 200_000]))
texts = short_text | huge_text | st.sampled_from(["", " ", "\x00", "I like \ud800 tea.", "\udcff"])
odd = st.none() | st.integers() | st.floats() | st.booleans() | st.binary(max_size=20) | st.lists(short_text, max_size=3)
odd = odd | st.dictionaries(short_text, short_text, max_size=2) | st.tuples(short_text)
values = texts | odd
bad_times = st.sampled_from(["", "\ud800", "0001-01-01", "last tuesday"]) | odd

# valid, but from all of Unicode (no surrogates; free text keeps its control characters)
visible = st.characters(exclude_categories=("Cc", "Cs", "Zl", "Zp"))
words = st.text(visible, min_size=1, max_size=30).filter(str.strip)
free_text = st.lists(st.characters(exclude_categories=("Cs",)) | controls, min_size=1, max_size=120).map("".join)
names = st.sampled_from(["me", "Beijing", "Lily", "control subject"]) | words
predicates = st.sampled_from(["likes", "lives in"]) | st.from_regex(r"[A-Za-z][A-Za-z0-9_ ]{0,20}", fullmatch=True)
good_times = st.sampled_from(["2024-03-10", "2024-03-10T09:00:00Z"]) | st.dates(min_value=date(1000, 1, 1))

name = mostly(names, values)
times = mostly(good_times, bad_times)
turn = st.fixed_dictionaries(
    {"role": mostly(st.sampled_from(["user", "assistant"]), values), "content": mostly(free_text, values)},
    optional={"id": mostly(words, values)},
)
turn = mostly(turn, st.dictionaries(st.sampled_from(["speaker", "content", "x"]) | short_text, values, max_size=3) | odd)
turns = mostly(st.lists(turn, min_size=1, max_size=3), odd | texts | st.lists(turn, max_size=0))
selector = mostly(
    st.sampled_from(["fact", "entity", "session_id", "text"]).flatmap(lambda k: st.fixed_dictionaries({k: name}))
    | st.fixed_dictionaries({"between": st.lists(times, min_size=2, max_size=2)}),
    st.dictionaries(st.sampled_from(["all", "between", "text"]) | short_text, values, min_size=1, max_size=2)
    | odd | texts,
)
numbers = st.sampled_from([0.5, 0.0, 1.0, -1, 2, float("nan"), float("inf"), True, "0.5", None])


@pytest.fixture(scope="module")
def mem(tmp_path_factory, embedder):
    with Memory(data_dir=tmp_path_factory.mktemp("hostile") / "gm", embedder=embedder) as memory:
        memory.add_fact(USER, *CONTROL, single_valued=False)
        memory.write(USER, [{"role": "user", "content": CONTROL_TURN}], "2024-01-01", session_id="control-session")
        yield memory


def control_facts(memory: Memory) -> list[str]:
    return [f.uuid for f in memory.facts(USER, subject=CONTROL[0]) if f.object == CONTROL[2]]


def assert_control_intact(memory: Memory) -> None:
    assert control_facts(memory), "the control fact was lost"
    kept = memory.forget(USER, {"session_id": "control-session"}, dry_run=True)
    assert kept.episodes_deleted == 1, "the control session was lost"


def either(call):
    """Run `call`; only success or a GraphMemError is acceptable."""
    try:
        result = call()
    except GraphMemError as exc:
        event(f"refused: {type(exc).__name__}")
        return None
    event("accepted")
    return result


# -- the rules, on their own -----------------------------------------------------


def test_lone_surrogates_are_refused_with_their_position():
    assert surrogate_at("I like \ud800 tea.") == 7
    assert surrogate_at("I like 🍵 tea.") is None
    for check in (clean_text, check_name, check_id):
        with pytest.raises(InvalidInput, match=r"lone surrogate \(U\+D800\) at character 7"):
            check("I like \ud800 tea.", "query", 100)


def test_free_text_loses_control_characters_but_keeps_line_breaks():
    assert clean_text(" a\x00b\x1b[31mc\td\ne\r\x7f\x9f ", "t", 100) == "ab[31mc\td\ne"
    assert clean_text(" keep ", "t", 100, strip=False) == " keep "
    with pytest.raises(InvalidInput, match="non-empty"):
        clean_text("\x00\x01 ", "t", 100)


def test_names_and_ids_refuse_control_characters_and_are_never_altered():
    assert check_name("  Li\tl\ny ", "n", 100) == "Li\tl\ny"
    assert check_id(" id 1 ", "i", 100) == " id 1 "
    with pytest.raises(InvalidInput, match="control character U\\+000A"):
        check_id("a\nb", "i", 100)
    for check in (check_name, check_id):
        for bad in ("Li\x1bly", "Li\x00ly", "a\x85b"):
            with pytest.raises(InvalidInput, match="control character"):
                check(bad, "n", 100)
        with pytest.raises(InvalidInput, match="must be a string, got int"):
            check(7, "n", 100)
        with pytest.raises(InvalidInput, match="limit is 100"):
            check("x" * 101, "n", 100)


# -- the examples, through the API and the CLI ---------------------------


def test_the_reported_sentence_is_refused_by_write_and_search(mem):
    with pytest.raises(InvalidInput, match="lone surrogate"):
        mem.write(USER, [{"role": "user", "content": "I like \ud800 tea."}], "2024-03-10")
    with pytest.raises(InvalidInput, match="lone surrogate"):
        mem.search(USER, "I like \ud800 tea.")
    with pytest.raises(InvalidInput, match="lone surrogate"):
        mem.write(USER, [{"role": "user", "content": "tea"}], "2024-03-10", session_id="s\udcff")
    assert_control_intact(mem)


def test_nul_and_escape_codes_are_removed_from_stored_turns(mem):
    mem.write("clean", [{"role": "user", "content": "I live in Lis\x00bon.\x1b"}], "2024-03-10", session_id="c1")
    packet = mem.search("clean", "Where do I live?", now="2024-04-01")
    assert "Lisbon" in {f.object for f in packet.facts}
    assert all("\x00" not in e.content and "\x1b" not in e.content for e in packet.episodes)


def test_names_and_ids_with_control_characters_are_refused(mem):
    with pytest.raises(InvalidInput, match="control character"):
        mem.write(USER, [{"speaker": "Ann\x1bBob", "content": "hi"}], "2024-03-10")
    with pytest.raises(InvalidInput, match="control character"):
        mem.write(USER, [{"role": "user", "content": "hi"}], "2024-03-10", session_id="s\n1")
    with pytest.raises(InvalidInput, match="control character"):
        mem.add_fact(USER, "me", "likes", "te\x00a")
    with pytest.raises(InvalidInput, match="control character"):
        mem.history(USER, "control\x00subject")
    with pytest.raises(InvalidInput, match="control character"):
        mem.forget(USER, {"entity": "control\x7fsubject"}, dry_run=True)
    assert_control_intact(mem)


def test_cli_turns_hostile_text_into_a_one_line_error(tmp_path, mem):
    runner = CliRunner()
    data_dir = str(tmp_path / "gm")
    good = {"session_id": "s0", "session_time": "2024-03-01", "turns": [{"role": "user", "content": "I like tea."}]}
    (tmp_path / "good.jsonl").write_text(json.dumps(good) + "\n")
    assert runner.invoke(app, ["ingest", str(tmp_path / "good.jsonl"), "--user", "u", "--data-dir", data_dir]).exit_code == 0
    searched = runner.invoke(app, ["search", "I like \udcff tea.", "--user", "u", "--data-dir", data_dir])
    assert searched.exit_code == 2, searched.output
    assert searched.output.strip().splitlines() == [searched.output.strip()]
    assert "lone surrogate" in searched.output
    session = {"session_id": "s1", "session_time": "2024-03-01", "turns": [{"role": "user", "content": "x"}]}
    line = json.dumps(session).replace('"x"', '"I like \\ud800 tea."')
    (tmp_path / "bad.jsonl").write_text(line + "\n")
    ingested = runner.invoke(app, ["ingest", str(tmp_path / "bad.jsonl"), "--user", "u", "--data-dir", data_dir])
    assert ingested.exit_code == 2, ingested.output
    assert "lone surrogate" in ingested.output and "Traceback" not in ingested.output


# -- fuzzing every verb ------------------------------------------------------------


@FUZZ
@given(turns=turns, session_time=times, session_id=st.none() | name)
def test_write_survives_anything(mem, turns, session_time, session_id):
    either(lambda: mem.write(USER, turns, session_time, session_id))
    assert_control_intact(mem)


@FUZZ
@given(query=mostly(free_text, values), now=st.none() | times, limit=st.sampled_from([1, 10, 0, 101, -1, True, 2.5, "3"]),
       budget=st.none() | numbers | st.integers(), recipe=mostly(st.none() | st.just("hybrid_mmr"), values))
def test_search_survives_anything(mem, query, now, limit, budget, recipe):
    packet = either(lambda: mem.search(USER, query, now=now, limit=limit, budget_tokens=budget, recipe=recipe))
    assert packet is None or isinstance(packet, MemoryPacket)
    assert_control_intact(mem)


@FUZZ
@given(subject=name, predicate=mostly(predicates, values), obj=name, fact=mostly(st.none() | free_text, values),
       valid_at=st.none() | times, episodes=mostly(st.lists(words, max_size=2), odd | texts),
       importance=mostly(st.floats(0, 1), numbers), single=mostly(st.just(False), st.sampled_from(["yes", None, 1])),
       embedding=mostly(st.none(), odd | st.lists(numbers, max_size=3)))
def test_add_fact_survives_anything(mem, subject, predicate, obj, fact, valid_at, episodes, importance, single,
                                    embedding):
    either(lambda: mem.add_fact(USER, subject, predicate, obj, fact=fact, valid_at=valid_at, episodes=episodes,
                                importance=importance, single_valued=single, embedding=embedding))
    assert_control_intact(mem)


@FUZZ
@given(name=name, when=st.none() | times)
def test_history_facts_and_restore_survive_anything(mem, name, when):
    either(lambda: mem.history(USER, name))
    either(lambda: mem.facts(USER, valid_at=when, subject=name))
    either(lambda: mem.restore(USER, name))
    assert_control_intact(mem)


@FUZZ
@given(selector=selector, confirm=st.booleans())
def test_forget_dry_run_survives_anything_and_changes_nothing(mem, selector, confirm):
    before = sorted(f.uuid for f in mem.facts(USER))
    either(lambda: mem.forget(USER, selector, dry_run=True, confirm=confirm))
    assert sorted(f.uuid for f in mem.facts(USER)) == before
    assert_control_intact(mem)


@FUZZ
@given(selector=selector)
def test_forget_survives_anything_and_takes_only_what_it_reports(mem, selector):
    control = control_facts(mem)
    report = either(lambda: mem.forget(USER, selector))
    if report is not None and set(control) & set(report.facts):
        mem.add_fact(USER, *CONTROL, single_valued=False)
    if report is not None and report.episodes:
        mem.write(USER, [{"role": "user", "content": CONTROL_TURN}], "2024-01-01", session_id="control-session")
    assert_control_intact(mem)


def test_ttl_of_the_wrong_type_is_refused(mem):
    with pytest.raises(InvalidInput, match="ttl"):
        mem.write(USER, [{"role": "user", "content": "hi"}], "2024-03-10", ttl=5)
    assert mem.write(USER, [{"role": "user", "content": "hello"}], "2024-03-10", ttl=timedelta(days=1)).episodes == 1
    assert_control_intact(mem)
