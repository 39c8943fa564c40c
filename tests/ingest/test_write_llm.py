"""Memory.write through the LLM path, against a local scripted OpenAI-compatible server."""

from __future__ import annotations

import json

from llm_server import count_tokens, user_text

from graphmem import Memory, Settings
from graphmem.ingest.llm import LLMExtractor


def fact(city: str, valid_at: str) -> dict:
    return {"subject": "user", "predicate": "LIVES_IN", "object": city, "fact": f"user lives in {city}.",
            "valid_at": valid_at, "invalid_at": None, "expires_at": None, "single_valued": True, "slot": None,
            "importance": 0.8, "derived_from": []}


def handler(request: dict):
    schema = request.get("response_format", {}).get("json_schema", {}).get("name", "")
    text = user_text(request)
    if schema.startswith("extract"):
        turn = text.split("CURRENT TURN:")[-1]
        if "GARBLED" in turn:
            return "this is {not json"
        for city, when in (("Beijing", "2024-03-10"), ("Shanghai", "2024-06-01")):
            if city in turn:
                return {"entities": [{"name": city, "entity_type": "Place"}], "facts": [fact(city, when)]}
        return {"entities": [], "facts": []}
    if schema.startswith("resolve_entities"):
        return {"matches": [{"index": i, "same": False} for i in range(text.count(" vs "))]}
    if schema.startswith("resolve"):
        count = text.count("NEW FACT")
        return {"decisions": [{"index": i, "action": "SUPERSEDE", "target": "E1"} for i in range(count)]}
    raise AssertionError(f"unexpected request {schema}")


def write_both(mem: Memory):
    first = mem.write("u", [{"role": "user", "content": "I live in Beijing."}], "2024-03-10T09:00:00Z", "s1")
    second = mem.write("u", [{"role": "user", "content": "I moved to Shanghai."}], "2024-07-10T09:00:00Z", "s2")
    return first, second


def cities(mem: Memory) -> dict[str, str]:
    return {v.object: v.status for v in mem.history("u", "user").versions if v.predicate == "LIVES_IN"}


def test_llm_extraction_lands_in_the_graph_and_a_contradiction_supersedes(tmp_path, embedder, scripted_llm):
    scripted_llm.handler = handler
    settings = Settings(data_dir=tmp_path / "gm", llm_base_url=scripted_llm.url, llm_model="scripted-model")
    with Memory(settings=settings, embedder=embedder) as mem:
        assert isinstance(mem.extractor, LLMExtractor)
        first, second = write_both(mem)
        assert cities(mem) == {"Beijing": "superseded", "Shanghai": "current"}
        assert [f.object for f in mem.facts("u", valid_at="2024-04-01")] == ["Beijing"]
    # second write: extraction, one entity check (Beijing~Shanghai is ambiguous), one fact resolution
    assert (first.llm_calls, second.llm_calls) == (1, 3)
    sent = [count_tokens(m["content"]) for r in scripted_llm.requests for m in r["messages"]]
    assert first.llm_prompt_tokens + second.llm_prompt_tokens == sum(sent)
    assert first.llm_completion_tokens > 0
    assert (tmp_path / "gm" / "llm_cache").is_dir()


def test_a_second_run_is_served_from_the_cache_with_zero_calls(tmp_path, embedder, scripted_llm):
    scripted_llm.handler = handler

    def extractor():
        return LLMExtractor(scripted_llm.url, "scripted-model", cache_dir=tmp_path / "cache", retry_base_delay=0.01)

    with Memory(data_dir=tmp_path / "one", embedder=embedder, extractor=extractor()) as mem:
        write_both(mem)
        expected = cities(mem)
    calls = len(scripted_llm.requests)
    with Memory(data_dir=tmp_path / "two", embedder=embedder, extractor=extractor()) as mem:
        first, second = write_both(mem)
        assert cities(mem) == expected
    assert len(scripted_llm.requests) == calls
    assert first.llm_calls == second.llm_calls == 0
    assert second.llm_cache_hits == 3


def test_a_malformed_reply_keeps_the_episode_and_records_the_error(tmp_path, embedder, scripted_llm):
    scripted_llm.handler = handler
    extractor = LLMExtractor(scripted_llm.url, "scripted-model", cache_dir=tmp_path / "cache", retry_base_delay=0.01)
    with Memory(data_dir=tmp_path / "gm", embedder=embedder, extractor=extractor) as mem:
        result = mem.write("u", [{"role": "user", "content": "GARBLED words"},
                                 {"role": "user", "content": "I live in Beijing."}], "2024-03-10T09:00:00Z", "s1")
        assert result.episodes == 2
        assert len(result.errors) == 1 and "extract" in result.errors[0]
        episodes = sorted(mem.inspect().episodes("u"), key=lambda e: e.turn_index)
        assert [e.content for e in episodes] == ["GARBLED words", "I live in Beijing."]
        assert [f.object for f in mem.facts("u")] == ["Beijing"]
    assert json.dumps(result.model_dump(mode="json"))
