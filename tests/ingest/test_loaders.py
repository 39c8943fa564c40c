"""Dataset loaders against the real LoCoMo / LongMemEval files in tests/data."""

from __future__ import annotations

import inspect
import json
import re
import shutil
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest
from pydantic import ValidationError

from graphmem import Memory
from graphmem.schema.errors import InvalidInput
from graphmem.ingest.loaders import (
    Conversation,
    Question,
    Session,
    Turn,
    detect_format,
    load_any,
    load_jsonl,
    load_locomo,
    load_longmemeval,
    parse_locomo_time,
    parse_longmemeval_time,
)

DATA = Path(__file__).resolve().parent.parent / "data"
LOCOMO = DATA / "locomo_dev7.json"
LONGMEMEVAL = DATA / "longmemeval_oracle_sample99.json"
JSONL = DATA / "sample.jsonl"
TURN_ID = re.compile(r"D\d+:\d+")


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


@pytest.fixture(scope="module")
def locomo() -> dict[str, Conversation]:
    return {c.conversation_id: c for c in load_locomo(LOCOMO)}


@pytest.fixture(scope="module")
def longmemeval() -> list[Conversation]:
    return load_longmemeval(LONGMEMEVAL)


@pytest.fixture(scope="module")
def longmemeval_raw() -> list[dict]:
    return json.loads(LONGMEMEVAL.read_text(encoding="utf-8"))


# ---------------------------------------------------------------------- LoCoMo


def test_locomo_conversations_and_speakers(locomo):
    assert list(locomo) == ["conv-26", "conv-30", "conv-41", "conv-42", "conv-43", "conv-44", "conv-47"]
    assert locomo["conv-26"].speakers == ("Caroline", "Melanie")
    assert locomo["conv-30"].speakers == ("Jon", "Gina")
    assert locomo["conv-47"].speakers == ("James", "John")
    for conv in locomo.values():
        assert {t.speaker for s in conv.sessions for t in s.turns} == set(conv.speakers)


def test_locomo_session_counts_and_dates(locomo):
    # conv-26 carries dates for sessions 20-35 without their turns: those are not sessions.
    counts = {cid: len(c.sessions) for cid, c in locomo.items()}
    assert counts == {"conv-26": 19, "conv-30": 19, "conv-41": 32, "conv-42": 29, "conv-43": 29,
                      "conv-44": 28, "conv-47": 31}
    conv = locomo["conv-26"]
    assert [s.session_id for s in conv.sessions] == [f"session_{n}" for n in range(1, 20)]
    assert conv.sessions[0].session_time == utc(2023, 5, 8, 13, 56)
    assert conv.sessions[1].session_time == utc(2023, 5, 25, 13, 14)
    assert conv.sessions[-1].session_time == utc(2023, 10, 22, 9, 55)
    assert locomo["conv-41"].sessions[0].session_time == utc(2022, 12, 17, 11, 1)
    assert locomo["conv-47"].sessions[1].session_time == utc(2022, 3, 20, 21, 26)
    assert all(s.session_time.tzinfo is UTC for c in locomo.values() for s in c.sessions)


def test_locomo_turn_ids_kept(locomo):
    conv = locomo["conv-26"]
    first = conv.sessions[0].turns[0]
    assert first == Turn(speaker="Caroline", content="Hey Mel! Good to see you! How have you been?", id="D1:1")
    assert [t.id for t in conv.sessions[0].turns] == [f"D1:{i}" for i in range(1, 19)]
    assert sum(len(s.turns) for s in conv.sessions) == 419
    assert conv.sessions[-1].turns[-1].id == "D19:15"
    assert all(TURN_ID.fullmatch(t.id) for c in locomo.values() for s in c.sessions for t in s.turns)


def test_locomo_photo_caption_appended(locomo):
    turns = locomo["conv-26"].turns_by_id()
    assert turns["D1:5"].content == (
        "The transgender stories were so inspiring! I was so happy and thankful for all the support."
        " [shares a photo: a photo of a dog walking past a wall with a painting of a woman]"
    )
    assert "[shares a photo" not in turns["D1:1"].content


def test_locomo_question_counts(locomo):
    categories = Counter(q.category for c in locomo.values() for q in c.questions)
    assert categories == {1: 192, 2: 214, 3: 66, 4: 563, 5: 312}
    scored = [(c, q) for c in locomo.values() for q in c.questions if q.category != 5]
    # The data README's 1,032 counts only questions whose evidence, as written, names a
    # real turn; with "D8:6; D9:17" split, 1,033 do; two have no evidence at all.
    assert len(scored) == 1035
    resolvable = [q for c, q in scored if set(q.evidence) & set(c.turns_by_id())]
    assert len(resolvable) == 1033
    assert all(isinstance(q.answer, str) and q.answer for _, q in scored)
    assert locomo["conv-26"].questions[1].answer == "2022"  # an int in the file


def test_locomo_category5_has_no_answer(locomo):
    adversarial = [q for c in locomo.values() for q in c.questions if q.category == 5]
    assert len(adversarial) == 312
    assert all(q.answer is None for q in adversarial)
    assert all(q.adversarial_answer for q in adversarial)
    # Two category-5 records also carry an "answer" key; it is still not a gold answer.
    bowl = next(q for q in adversarial if q.question == "Did Caroline make the black and white bowl in the photo?")
    assert (bowl.answer, bowl.adversarial_answer, bowl.evidence) == (None, "Yes", ("D5:8",))


def test_locomo_evidence_ids_normalised(locomo):
    questions = [q for c in locomo.values() for q in c.questions]
    assert all(TURN_ID.fullmatch(e) for q in questions for e in q.evidence)
    conv26 = {q.question: q for q in locomo["conv-26"].questions}
    assert conv26["When did Caroline go to the LGBTQ support group?"].evidence == ("D1:3",)
    assert any(q.evidence == ("D8:6", "D9:17") for q in conv26.values())  # was "D8:6; D9:17"
    assert any("D11:26" in q.evidence for q in locomo["conv-43"].questions)  # was "D:11:26"
    assert [q.question_id for q in locomo["conv-26"].questions[:2]] == ["conv-26:q0", "conv-26:q1"]


def test_locomo_question_time_is_last_session(locomo):
    for conv in locomo.values():
        assert {q.question_time for q in conv.questions} == {conv.sessions[-1].session_time}
    assert locomo["conv-26"].questions[0].question_time == utc(2023, 10, 22, 9, 55)


def _design_write(user_id, turns, session_time, session_id=None):
    """Memory.write as ARCHITECTURE §2 states it (until Memory.write exists to check too)."""


def test_write_args_fit_memory_write(locomo):
    session = locomo["conv-26"].sessions[0]
    args = session.write_args()
    inspect.signature(_design_write).bind("conv-26", **args)
    if hasattr(Memory, "write"):
        inspect.signature(Memory.write).bind(object(), "conv-26", **args)
    assert args["session_id"] == "session_1"
    assert args["session_time"] == utc(2023, 5, 8, 13, 56)
    assert args["turns"][0] == {"speaker": "Caroline", "content": "Hey Mel! Good to see you! How have you been?",
                                "id": "D1:1"}
    assert len(args["turns"]) == 18


@pytest.mark.parametrize(("text", "expected"), [
    ("1:56 pm on 8 May, 2023", utc(2023, 5, 8, 13, 56)),
    ("12:09 am on 13 September, 2023", utc(2023, 9, 13, 0, 9)),
    ("12:30 pm on 1 June, 2023", utc(2023, 6, 1, 12, 30)),
    ("1:56 pm on 8 May 2023", utc(2023, 5, 8, 13, 56)),
    ("8 May 2023, 1:56 pm", utc(2023, 5, 8, 13, 56)),  # dateparser fallback
])
def test_parse_locomo_time(text, expected):
    assert parse_locomo_time(text) == expected


@pytest.mark.parametrize("text", ["nonsense", "1:56 pm on 8 May", ""])
def test_parse_locomo_time_rejects(text):
    with pytest.raises(InvalidInput, match="LoCoMo date"):
        parse_locomo_time(text)


# ----------------------------------------------------------------- LongMemEval


def test_longmemeval_records(longmemeval, longmemeval_raw):
    assert len(longmemeval) == 99
    assert [c.conversation_id for c in longmemeval] == [r["question_id"] for r in longmemeval_raw]
    for conv, raw in zip(longmemeval, longmemeval_raw, strict=True):
        assert conv.speakers == ("user", "assistant")
        (question,) = conv.questions
        assert question.question_id == raw["question_id"]
        assert question.question == raw["question"]
        assert question.answer == str(raw["answer"])
        assert question.category == raw["question_type"]
        assert question.answer_session_ids == tuple(raw["answer_session_ids"])
        assert [s.session_id for s in conv.sessions] == raw["haystack_session_ids"]
        assert [[(t.speaker, t.content) for t in s.turns] for s in conv.sessions] == [
            [(t["role"], t["content"]) for t in s] for s in raw["haystack_sessions"]]
    assert sum(isinstance(r["answer"], int) for r in longmemeval_raw) == 8


def test_longmemeval_evidence_points_at_answer_turns(longmemeval, longmemeval_raw):
    total = 0
    for conv, raw in zip(longmemeval, longmemeval_raw, strict=True):
        turns = conv.turns_by_id()
        marked = {f"{sid}:{i}" for sid, s in zip(raw["haystack_session_ids"], raw["haystack_sessions"])
                  for i, t in enumerate(s) if t.get("has_answer")}
        evidence = conv.questions[0].evidence
        assert evidence and set(evidence) == marked
        for turn_id in evidence:
            sid, index = turn_id.rsplit(":", 1)
            raw_turn = raw["haystack_sessions"][raw["haystack_session_ids"].index(sid)][int(index)]
            assert turns[turn_id].content == raw_turn["content"] and raw_turn["has_answer"] is True
        total += len(evidence)
    assert total == 197


def test_longmemeval_dates(longmemeval):
    conv = next(c for c in longmemeval if c.conversation_id == "gpt4_2655b836")
    # File order is kept even where it is not date order.
    assert [(s.session_id, s.session_time) for s in conv.sessions] == [
        ("answer_4be1b6b4_2", utc(2023, 4, 10, 17, 50)),
        ("answer_4be1b6b4_3", utc(2023, 4, 10, 14, 47)),
        ("answer_4be1b6b4_1", utc(2023, 4, 10, 17, 15)),
    ]
    assert conv.questions[0].question_time == utc(2023, 4, 10, 23, 7)
    assert conv.sessions[0].turns[0].id == "answer_4be1b6b4_2:0"
    first = longmemeval[0]
    assert first.questions[0].question_time == utc(2023, 5, 28, 6, 58)
    assert all(q.question_time.tzinfo is UTC for c in longmemeval for q in c.questions)


def test_parse_longmemeval_time():
    assert parse_longmemeval_time("2023/05/20 (Sat) 02:21") == utc(2023, 5, 20, 2, 21)
    assert parse_longmemeval_time("2023/05/20 02:21") == utc(2023, 5, 20, 2, 21)
    for bad in ("20 May 2023", "2023/02/30 (Thu) 10:00"):
        with pytest.raises(InvalidInput, match="LongMemEval date"):
            parse_longmemeval_time(bad)


# ----------------------------------------------------------------------- JSONL


def test_load_jsonl_sample():
    sessions = load_jsonl(JSONL)
    assert [s.session_id for s in sessions] == ["s1", "s2", "s3"]
    assert [s.session_time for s in sessions] == [
        utc(2024, 3, 1, 9, 30), utc(2024, 6, 15, 10, 0), utc(2024, 9, 2, 7, 5)]  # +08:00 and naive -> UTC
    assert sessions[0].turns[0] == Turn(speaker="user", content="I just moved to Beijing for a new job at Acme.",
                                        id="s1:t1")
    assert [(t.speaker, t.id) for t in sessions[1].turns] == [("user", "s2:0"), ("assistant", "s2:1")]
    assert sessions[2].write_args()["turns"] == [
        {"speaker": "user", "content": "I left Acme and now work at Globex in Shanghai.", "id": "s3:t1"}]


@pytest.mark.parametrize(("bad_line", "problem"), [
    ('{"session_id": "x", "session_time": "2024-01-01", "turns": [', "not valid JSON"),
    ('{"session_id": "x", "session_time": "2024-01-01", "turns": [{"speaker": "u"}]}', "missing 'content'"),
    ('{"session_id": "x", "session_time": "yesterday", "turns": []}', "ISO-8601"),
    ('["not", "an", "object"]', "expected a JSON object"),
    ('{"session_id": "x", "session_time": "2024-01-01", "turns": [{"role": "robot", "content": "hi"}]}',
     "unknown role 'robot'"),
    ('{"session_id": "x", "session_time": 1709251200, "turns": []}', "'session_time'"),
])
def test_load_jsonl_reports_line_number(tmp_path, bad_line, problem):
    path = tmp_path / "bad.jsonl"
    good = JSONL.read_text(encoding="utf-8").splitlines()[0]
    path.write_text(f"{good}\n\n{bad_line}\n{good}\n", encoding="utf-8")
    with pytest.raises(InvalidInput, match=rf"line 3: .*{re.escape(problem)}") as info:
        load_jsonl(path)
    assert str(info.value).count(str(path)) == 1, info.value


# ------------------------------------------------------------------ detection


@pytest.mark.parametrize(("path", "expected"), [(LOCOMO, "locomo"), (LONGMEMEVAL, "longmemeval"), (JSONL, "jsonl")])
def test_detect_format_reads_content_not_name(tmp_path, path, expected):
    assert detect_format(path) == expected
    disguised = tmp_path / ("data.jsonl" if expected != "jsonl" else "data.json")
    shutil.copyfile(path, disguised)
    assert detect_format(disguised) == expected


def test_detect_format_any_key_order(tmp_path):
    path = tmp_path / "lme.json"
    record = {"question": "q?", "answer": "a", "question_id": "x", "question_type": "t",
              "question_date": "2023/05/20 (Sat) 02:21", "haystack_session_ids": [], "haystack_dates": [],
              "haystack_sessions": [], "answer_session_ids": []}
    path.write_text(json.dumps([record], indent=2), encoding="utf-8")
    assert detect_format(path) == "longmemeval"
    (conv,) = load_any(path)
    assert conv.conversation_id == "x" and conv.sessions == ()


def test_load_any_dispatches():
    assert all(isinstance(c, Conversation) for c in load_any(LOCOMO))
    assert len(load_any(LONGMEMEVAL)) == 99
    assert all(isinstance(s, Session) for s in load_any(JSONL))


# ----------------------------------------------------------------- bad inputs


@pytest.mark.parametrize("func", [load_locomo, load_longmemeval, load_jsonl, detect_format, load_any])
def test_missing_file(tmp_path, func):
    missing = tmp_path / "nope.json"
    with pytest.raises(InvalidInput, match="no such file") as info:
        func(missing)
    assert str(missing) in str(info.value)


@pytest.mark.parametrize("content", ["[1, 2, 3]", '[{"foo": 1}]', '["a", null]'])
def test_json_list_of_garbage(tmp_path, content):
    path = tmp_path / "garbage.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InvalidInput, match="neither LoCoMo"):
        detect_format(path)
    for loader in (load_locomo, load_longmemeval):
        with pytest.raises(InvalidInput, match=r"record 0") as info:
            loader(path)
        assert str(path) in str(info.value)


@pytest.mark.parametrize("content", ['{"a": 1}', "not json at all", '{"qa": []'])
def test_not_a_dataset(tmp_path, content):
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InvalidInput):
        detect_format(path)
    with pytest.raises(InvalidInput, match="JSON"):
        load_locomo(path)


def test_locomo_malformed_record_names_place(tmp_path):
    record = json.loads(LOCOMO.read_text(encoding="utf-8"))[0]
    del record["conversation"]["session_3_date_time"]
    path = tmp_path / "broken.json"
    path.write_text(json.dumps([record]), encoding="utf-8")
    with pytest.raises(InvalidInput, match=r"conv-26: session_3: missing 'session_3_date_time'"):
        load_locomo(path)
    record["conversation"]["session_3_date_time"] = "sometime in May"
    path.write_text(json.dumps([record]), encoding="utf-8")
    with pytest.raises(InvalidInput, match=r"conv-26: session_3: .*sometime in May"):
        load_locomo(path)


def test_longmemeval_malformed_record_names_place(tmp_path, longmemeval_raw):
    record = dict(longmemeval_raw[0])
    record["haystack_dates"] = record["haystack_dates"][:1]
    path = tmp_path / "broken.json"
    path.write_text(json.dumps([record]), encoding="utf-8")
    with pytest.raises(InvalidInput, match=r"09ba9854_abs: .*differ in length"):
        load_longmemeval(path)


def test_empty_sessions_are_dropped(tmp_path, longmemeval_raw):
    record = json.loads(LOCOMO.read_text(encoding="utf-8"))[0]
    record["conversation"]["session_2"] = []
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps([record]), encoding="utf-8")
    (conv,) = load_locomo(path)
    assert [s.session_id for s in conv.sessions][:2] == ["session_1", "session_3"]
    assert len(conv.sessions) == 18
    lme = dict(longmemeval_raw[0])
    lme["haystack_sessions"] = [[], *lme["haystack_sessions"][1:]]
    path = tmp_path / "lme.json"
    path.write_text(json.dumps([lme]), encoding="utf-8")
    (conv,) = load_longmemeval(path)
    assert [s.session_id for s in conv.sessions] == lme["haystack_session_ids"][1:]


def test_models_are_frozen_and_utc():
    session = Session(session_id="s", session_time=datetime(2024, 1, 1, 12), turns=())
    assert session.session_time == utc(2024, 1, 1, 12) and session.session_time.tzinfo is UTC
    with pytest.raises(ValidationError):
        session.session_id = "other"
    plus8 = datetime.fromisoformat("2024-01-01T20:00:00+08:00")
    question = Question(question_id="q", question="?", answer=None, category=1, evidence=(), question_time=plus8)
    assert question.question_time.utcoffset() is not None and question.question_time.tzinfo is UTC
    assert question.question_time == utc(2024, 1, 1, 12)
