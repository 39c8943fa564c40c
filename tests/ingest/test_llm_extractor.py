"""LLMExtractor against a real local OpenAI-compatible server with scripted replies.

Every test talks HTTP to 127.0.0.1 only (`ScriptedLLM`), through the real
`openai` client, so request shape, retries, errors and usage are the real ones.
"""

from __future__ import annotations

import json
import logging
import threading
from datetime import UTC, datetime

import pytest
from pydantic import ValidationError
from llm_server import ScriptedError, ScriptedLLM, ScriptedRaw, count_tokens, unused_port, user_text

from graphmem.schema.errors import ExtractionError, GraphMemError
from graphmem.ingest.extraction import Extraction, Extractor, TurnContext
from graphmem.ingest.llm import (
    EntityPair,
    ExistingFact,
    FactDecision,
    LLMExtractor,
    ResolveAction,
    ResolveCandidate,
)
from graphmem.graph.llm_cache import LLMCache, text_hash
from graphmem.ingest.metering import Meter, diff
from graphmem.ingest.prompts import extract, resolve, strip_fences

SESSION = datetime(2024, 5, 8, 13, 0, tzinfo=UTC)

OSLO_REPLY = {
    "entities": [{"name": "Ann", "entity_type": "Person"}, {"name": "Oslo", "entity_type": "Place"}],
    "facts": [
        {
            "subject": "Ann",
            "predicate": "lives in",
            "object": "Oslo",
            "fact": "Ann lives in Oslo.",
            "valid_at": "2024-05-07",
            "invalid_at": None,
            "expires_at": "2024-06-01T12:00:00+02:00",
            "single_valued": True,
            "slot": None,
            "importance": 0.9,
            "derived_from": [],
        },
        {
            "subject": "Ann",
            "predicate": "KNOWS_CITY",
            "object": "Oslo",
            "fact": "Ann knows Oslo.",
            "valid_at": "not a date",
            "invalid_at": "0024-05-01",
            "expires_at": None,
            "single_valued": False,
            "slot": None,
            "importance": 3.0,
            "derived_from": [0, 7],
        },
    ],
}


TEA_JSON = json.dumps(
    {"entities": [], "facts": [{"subject": "Ann", "predicate": "LIKES", "object": "tea", "fact": "Ann likes tea."}]}
)


@pytest.fixture
def scripted_llm():
    """A started `ScriptedLLM`; set ``.handler`` in the test."""
    with ScriptedLLM() as server:
        yield server


def make_extractor(server: ScriptedLLM, tmp_path=None, **kwargs) -> LLMExtractor:
    kwargs.setdefault("retry_base_delay", 0.01)
    kwargs.setdefault("timeout", 5)
    cache_dir = None if tmp_path is None else tmp_path / "llm_cache"
    return LLMExtractor(server.url, "test-model", cache_dir=cache_dir, **kwargs)


def turn(text: str, turn_id: str = "t1", previous: tuple[str, ...] = ()) -> TurnContext:
    return TurnContext(text=text, speaker="Ann", session_time=SESSION, turn_id=turn_id, previous=previous)


# --- extraction ---------------------------------------------------------------


def test_extraction_lands_in_the_domain_model(scripted_llm):
    scripted_llm.handler = lambda request: OSLO_REPLY
    extractor: Extractor = make_extractor(scripted_llm)  # Extractor is not runtime_checkable
    assert extractor.name == "llm:test-model:extract-v1"

    [result] = extractor.extract([turn("I moved to Oslo yesterday.")])

    assert [(e.name, e.entity_type) for e in result.entities] == [("Ann", "Person"), ("Oslo", "Place")]
    lives, knows = result.facts
    assert (lives.subject, lives.predicate, lives.object) == ("Ann", "LIVES_IN", "Oslo")
    assert lives.fact == "Ann lives in Oslo." and lives.single_valued and lives.importance == 0.9
    assert lives.valid_at == datetime(2024, 5, 7, tzinfo=UTC)
    assert lives.expires_at == datetime(2024, 6, 1, 10, 0, tzinfo=UTC)
    assert lives.expires_at.utcoffset().total_seconds() == 0
    assert lives.invalid_at is None
    # nonsense or unstorable dates become None, importance is clamped, dangling indexes dropped
    assert knows.valid_at is None and knows.invalid_at is None and knows.importance == 1.0 and knows.derived_from == [0]
    assert extractor.errors == []


def test_request_carries_prompt_model_and_response_format(scripted_llm):
    scripted_llm.handler = lambda request: {"entities": [], "facts": []}
    extractor = make_extractor(scripted_llm)

    extractor.extract([turn("I moved to Oslo.", previous=("Hi!", "Where do you live now?"))])

    [request] = scripted_llm.requests
    assert request["model"] == "test-model"
    fmt = request["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["strict"] is True
    schema = fmt["json_schema"]["schema"]
    assert set(schema["properties"]) == {"entities", "facts"}
    assert set(schema["$defs"]["ExtractedFactOut"]["required"]) >= {"subject", "predicate", "object", "valid_at"}
    prompt = user_text(request)
    assert "SESSION TIME: 2024-05-08T13:00:00Z" in prompt
    assert "SPEAKER: Ann" in prompt
    assert "CURRENT TURN:\nI moved to Oslo." in prompt
    assert "- Where do you live now?" in prompt
    assert request["messages"][0]["role"] == "system" and "UPPER_SNAKE" in request["messages"][0]["content"]


def test_each_turn_gets_its_own_reply(scripted_llm):
    def handler(request):
        city = "Oslo" if "Oslo" in user_text(request).split("CURRENT TURN:")[1] else "Rome"
        return {
            "entities": [{"name": city, "entity_type": "Place"}],
            "facts": [{"subject": "Ann", "predicate": "VISITED", "object": city, "fact": f"Ann visited {city}."}],
        }

    scripted_llm.handler = handler
    extractor = make_extractor(scripted_llm)

    results = extractor.extract([turn("I was in Oslo.", "t1"), turn("Then Rome.", "t2", previous=("I was in Oslo.",))])

    assert [r.facts[0].object for r in results] == ["Oslo", "Rome"]
    assert [r.entities[0].name for r in results] == ["Oslo", "Rome"]
    assert len(scripted_llm.requests) == 2


@pytest.mark.parametrize(
    "reply",
    [
        f"```json\n{TEA_JSON}\n```",
        f"Here you go: {TEA_JSON}",
    ],
    ids=["fenced", "prefixed"],
)
def test_json_object_mode_accepts_fenced_replies(scripted_llm, reply):
    scripted_llm.handler = lambda request: reply
    extractor = make_extractor(scripted_llm, json_mode="json_object")

    [result] = extractor.extract([turn("I like tea.")])

    assert scripted_llm.requests[0]["response_format"] == {"type": "json_object"}
    assert [(f.predicate, f.object) for f in result.facts] == [("LIKES", "tea")]
    assert extractor.errors == []


# --- cache ----------------------------------------------------------------------


def test_second_run_on_same_cache_dir_sends_nothing(scripted_llm, tmp_path):
    scripted_llm.handler = lambda request: OSLO_REPLY
    turns = [turn("I moved to Oslo yesterday.", "t1"), turn("Nice city.", "t2")]
    first = make_extractor(scripted_llm, tmp_path).extract(turns)
    assert len(scripted_llm.requests) == 2

    scripted_llm.handler = lambda request: ScriptedError(500, "must not be asked again")
    second_extractor = make_extractor(scripted_llm, tmp_path)
    second = second_extractor.extract(turns)

    assert len(scripted_llm.requests) == 2
    assert second == first
    stats = second_extractor.meter.snapshot().stage("extract")
    assert (stats.calls, stats.cache_hits) == (0, 2)


def test_cache_entries_hold_hashes_not_text_and_can_be_forgotten(scripted_llm, tmp_path):
    scripted_llm.handler = lambda request: {"entities": [], "facts": []}
    extractor = make_extractor(scripted_llm, tmp_path)
    extractor.extract([turn("My secret is 4711.", "t1"), turn("I like tea.", "t2")])

    files = list((tmp_path / "llm_cache").rglob("*.json"))
    assert len(files) == 2
    assert not any("4711" in f.read_text() for f in files)
    cache = LLMCache(tmp_path / "llm_cache")
    assert any(text_hash("My secret is 4711.") in e.text_hashes for e in cache.entries())

    assert cache.forget_texts(["My secret is 4711."]) == 1
    make_extractor(scripted_llm, tmp_path).extract([turn("My secret is 4711.", "t1"), turn("I like tea.", "t2")])
    assert len(scripted_llm.requests) == 3  # only the forgotten turn was asked again


def test_changed_prompt_input_is_a_cache_miss(scripted_llm, tmp_path):
    scripted_llm.handler = lambda request: {"entities": [], "facts": []}
    make_extractor(scripted_llm, tmp_path).extract([turn("I like tea.")])
    make_extractor(scripted_llm, tmp_path).extract([turn("I like tea.", previous=("Hello",))])
    assert len(scripted_llm.requests) == 2


# --- malformed replies -------------------------------------------------------------


@pytest.mark.parametrize(
    "reply",
    ["this is not json", {"facts": [{"subject": "Ann"}]}, {"facts": "none"}],
    ids=["not-json", "missing-fields", "wrong-type"],
)
def test_malformed_reply_gives_empty_extraction_and_records_error(scripted_llm, tmp_path, caplog, reply):
    scripted_llm.handler = lambda request: reply
    extractor = make_extractor(scripted_llm, tmp_path)

    with caplog.at_level(logging.WARNING, logger="graphmem.ingest.llm"):
        results = extractor.extract([turn("I moved to Oslo.", "turn-42")])

    assert results == [Extraction()]
    [error] = extractor.errors
    assert error.turn_id == "turn-42" and error.stage == "extract" and "malformed" in error.message
    assert extractor.meter.snapshot().stage("extract").failures == 1
    assert any("malformed" in r.getMessage() for r in caplog.records)
    assert len(scripted_llm.requests) == 1  # a bad reply is not retried ...
    make_extractor(scripted_llm, tmp_path).extract([turn("I moved to Oslo.", "turn-42")])
    assert len(scripted_llm.requests) == 2  # ... and not cached


@pytest.mark.parametrize(
    "raw",
    [
        "garbage",
        '{"id": "x"}',
        '{"choices": []}',
        '{"choices": [{"index": 0, "message": {"role": "assistant", "content": null}}]}',
    ],
    ids=["body-not-json", "no-choices", "empty-choices", "null-content"],
)
def test_broken_200_response_is_a_malformed_reply(scripted_llm, raw):
    scripted_llm.handler = lambda request: ScriptedRaw(raw)
    extractor = make_extractor(scripted_llm)

    assert extractor.extract([turn("I moved to Oslo.", "t9")]) == [Extraction()]

    assert [e.turn_id for e in extractor.errors] == ["t9"]
    stats = extractor.meter.snapshot().stage("extract")
    assert (stats.calls, stats.failures) == (1, 1) and len(scripted_llm.requests) == 1


def test_one_bad_turn_does_not_spoil_the_others(scripted_llm):
    scripted_llm.handler = lambda request: "{oops" if "bad" in user_text(request) else OSLO_REPLY
    extractor = make_extractor(scripted_llm)

    good, bad = extractor.extract([turn("I moved to Oslo.", "t1"), turn("bad turn", "t2")])

    assert len(good.facts) == 2 and bad == Extraction()
    assert [e.turn_id for e in extractor.errors] == ["t2"]


# --- retries and endpoint errors ---------------------------------------------------


@pytest.mark.parametrize("status", [500, 503, 429])
def test_retries_transient_errors_then_succeeds(scripted_llm, status):
    replies = iter([ScriptedError(status), ScriptedError(status), OSLO_REPLY])
    scripted_llm.handler = lambda request: next(replies)
    extractor = make_extractor(scripted_llm)

    [result] = extractor.extract([turn("I moved to Oslo.")])

    assert len(result.facts) == 2
    assert len(scripted_llm.requests) == 3
    stats = extractor.meter.snapshot().stage("extract")
    assert (stats.calls, stats.retries, stats.failures) == (3, 2, 0)


@pytest.mark.parametrize("status", [400, 401, 404, 422])
def test_client_errors_are_not_retried(scripted_llm, status):
    scripted_llm.handler = lambda request: ScriptedError(status, "model does not support this")
    extractor = make_extractor(scripted_llm)

    with pytest.raises(ExtractionError, match=f"HTTP {status}") as info:
        extractor.extract([turn("I moved to Oslo.")])

    assert len(scripted_llm.requests) == 1
    assert info.value.__cause__ is not None  # translated with `from exc`
    assert extractor.meter.snapshot().stage("extract").failures == 1


def test_gives_up_after_max_retries(scripted_llm):
    scripted_llm.handler = lambda request: ScriptedError(502)
    extractor = make_extractor(scripted_llm, max_retries=2)

    with pytest.raises(ExtractionError, match="HTTP 502.*3 attempts"):
        extractor.extract([turn("I moved to Oslo.")])

    assert len(scripted_llm.requests) == 3


def test_endpoint_down_raises_extraction_error():
    base_url = f"http://127.0.0.1:{unused_port()}/v1"
    extractor = LLMExtractor(base_url, "test-model", max_retries=2, timeout=2, retry_base_delay=0.01)

    with pytest.raises(ExtractionError, match="unreachable") as info:
        extractor.extract([turn("I moved to Oslo.")])

    assert isinstance(info.value, GraphMemError) and base_url in str(info.value)
    stats = extractor.meter.snapshot().stage("extract")
    assert (stats.calls, stats.failures) == (3, 1)


def test_timeout_is_retried_then_raises(scripted_llm):
    release = threading.Event()

    def slow(request):
        release.wait(2)
        return OSLO_REPLY

    scripted_llm.handler = slow
    extractor = make_extractor(scripted_llm, max_retries=1, timeout=0.2)
    try:
        with pytest.raises(ExtractionError, match="timed out"):
            extractor.extract([turn("I moved to Oslo.")])
    finally:
        release.set()
    assert len(scripted_llm.requests) == 2


# --- metering --------------------------------------------------------------------


def test_meter_counts_equal_what_the_server_sent(scripted_llm, tmp_path):
    scripted_llm.handler = lambda request: OSLO_REPLY if "Oslo" in user_text(request) else {"entities": [], "facts": []}
    meter = Meter()
    extractor = make_extractor(scripted_llm, tmp_path, meter=meter)
    before = meter.snapshot()

    extractor.extract([turn("I moved to Oslo.", "t1"), turn("It rains.", "t2")])
    extractor.extract([turn("I moved to Oslo.", "t1")])  # cache hit

    stats = diff(before, meter.snapshot()).stage("extract")
    sent = scripted_llm.responses
    assert stats.calls == len(scripted_llm.requests) == 2
    assert stats.prompt_tokens == sum(r["usage"]["prompt_tokens"] for r in sent) > 0
    assert stats.completion_tokens == sum(r["usage"]["completion_tokens"] for r in sent)
    assert stats.completion_tokens == count_tokens(json.dumps(OSLO_REPLY)) + count_tokens(
        json.dumps({"entities": [], "facts": []})
    )
    assert stats.cache_hits == 1 and stats.failures == 0 and stats.latency_s > 0


def test_meter_is_thread_safe_and_diff_is_per_stage():
    meter = Meter()
    meter.record_call("resolve", prompt_tokens=5)
    before = meter.snapshot()

    def work():
        for _ in range(1000):
            meter.record_call("extract", prompt_tokens=2, completion_tokens=1, latency_s=0.001)
            meter.record_cache_hit("extract")

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    delta = diff(before, meter.snapshot())
    assert delta.stage("extract").calls == 8000 and delta.stage("extract").prompt_tokens == 16000
    assert delta.stage("extract").cache_hits == 8000
    assert delta.stage("resolve").calls == 0 and meter.snapshot().stage("resolve").prompt_tokens == 5
    assert meter.snapshot().total.calls == 8001
    with pytest.raises(ValidationError):
        before.stage("resolve").calls = 9  # snapshots are frozen


# --- resolution ------------------------------------------------------------------


def test_resolve_decisions_are_parsed_in_one_call(scripted_llm, tmp_path):
    scripted_llm.handler = lambda request: {
        "decisions": [
            {"index": 1, "action": "supersede", "target": "E2"},
            {"index": 0, "action": "MERGE", "target": "E1"},
            {"index": 2, "action": "ADD", "target": None},
            {"index": 3, "action": "IGNORE", "target": None},
        ]
    }
    extractor = make_extractor(scripted_llm, tmp_path)
    candidates = [
        ResolveCandidate(fact="Ann likes tea.", existing=(ExistingFact(id="f-tea", fact="Ann enjoys tea."),)),
        ResolveCandidate(fact="Ann lives in Oslo.", existing=(ExistingFact(id="f-rome", fact="Ann lives in Rome."),)),
        ResolveCandidate(fact="Ann has a cat.", existing=()),
        ResolveCandidate(fact="Ann likes things.", existing=(ExistingFact(id="f-tea", fact="Ann enjoys tea."),)),
    ]

    decisions = extractor.resolve(candidates)

    assert decisions == [
        FactDecision(action=ResolveAction.MERGE, target_id="f-tea"),
        FactDecision(action=ResolveAction.SUPERSEDE, target_id="f-rome"),
        FactDecision(action=ResolveAction.ADD),
        FactDecision(action=ResolveAction.IGNORE),
    ]
    [request] = scripted_llm.requests
    assert request["response_format"]["json_schema"]["name"] == "resolve_response"
    prompt = user_text(request)
    assert "NEW FACT 1: Ann lives in Oslo." in prompt and "E2: Ann lives in Rome." in prompt
    assert extractor.resolve(candidates) == decisions and len(scripted_llm.requests) == 1  # cached
    assert extractor.resolve([]) == [] and len(scripted_llm.requests) == 1


@pytest.mark.parametrize(
    "decisions",
    [
        [{"index": 0, "action": "SUPERSEDE", "target": "E9"}],  # target not offered
        [],  # no decision
        [{"index": 0, "action": "ADD", "target": None}, {"index": 0, "action": "ADD", "target": None}],
        [{"index": 0, "action": "DELETE", "target": None}],
    ],
    ids=["unknown-target", "missing", "repeated", "bad-action"],
)
def test_unusable_resolve_reply_falls_back_to_add(scripted_llm, decisions):
    scripted_llm.handler = lambda request: {"decisions": decisions}
    extractor = make_extractor(scripted_llm)
    rome = ExistingFact(id="f1", fact="Ann lives in Rome.")
    candidate = ResolveCandidate(fact="Ann lives in Oslo.", existing=(rome,))

    assert extractor.resolve([candidate]) == [FactDecision(action=ResolveAction.ADD)]
    assert [e.stage for e in extractor.errors] == ["resolve"]
    assert extractor.meter.snapshot().stage("resolve").failures == 1


def test_resolve_entities_batched(scripted_llm):
    scripted_llm.handler = lambda request: {
        "matches": [{"index": 1, "same": False}, {"index": 0, "same": True}]
    }
    extractor = make_extractor(scripted_llm)
    pairs = [EntityPair(name_a="NYC", name_b="New York City", type_a="Place", type_b="Place"),
             EntityPair(name_a="Paris", name_b="Paris, Texas")]

    assert extractor.resolve_entities(pairs) == [True, False]
    [request] = scripted_llm.requests
    assert '"NYC" (Place) vs "New York City" (Place)' in user_text(request)
    assert request["response_format"]["json_schema"]["name"] == "resolve_entities_response"
    assert extractor.meter.snapshot().stage("resolve_entities").calls == 1
    assert extractor.resolve_entities([]) == []


def test_resolve_entities_malformed_means_not_same(scripted_llm):
    scripted_llm.handler = lambda request: {"matches": [{"index": 0, "same": True}]}
    extractor = make_extractor(scripted_llm)
    pairs = [EntityPair(name_a="Ann", name_b="Anne"), EntityPair(name_a="Bob", name_b="Rob")]

    assert extractor.resolve_entities(pairs) == [False, False]
    assert extractor.errors[0].stage == "resolve_entities"


# --- prompts are pure and versioned ------------------------------------------------


def test_prompts_render_deterministically_from_versioned_files():
    ctx = extract.ExtractContext.from_turn(turn("I moved to Oslo.", previous=tuple(f"turn {i}" for i in range(10))))
    assert extract.render(ctx) == extract.render(ctx)
    assert ctx.previous == tuple(f"turn {i}" for i in range(4, 10))
    assert extract.PROMPT_VERSION == "extract-v1"
    assert resolve.PROMPT_VERSION == "resolve-v1" and resolve.ENTITIES_PROMPT_VERSION == "resolve-entities-v1"
    assert strip_fences("```\n{}\n```") == "{}"
    # response models are distinct from the domain models
    assert extract.ExtractedFactOut.__name__ != "ExtractedFact"
