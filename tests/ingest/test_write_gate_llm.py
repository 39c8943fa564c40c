"""The write gate on the LLM path (scripted server): the model's confidence and the
turn's words decide; a rebuild replays the user's decisions from the cache, 0 calls."""

from __future__ import annotations

from llm_server import user_text

from graphmem import Memory
from graphmem.ingest.llm import LLMExtractor

REPLIES = {  # turn word -> (predicate, object, confidence, single_valued)
    "tired": ("FEELS", "tired", 0.9, False),
    "Lyon": ("LIVES_IN", "Lyon", 0.9, True),
    "Paris": ("LIVES_IN", "Paris", 0.25, True),
}


def fact(predicate: str, obj: str, confidence: float, single: bool) -> dict:
    return {"subject": "user", "predicate": predicate, "object": obj, "fact": f"user {predicate.lower()} {obj}.",
            "valid_at": None, "invalid_at": None, "expires_at": None, "single_valued": single, "slot": None,
            "importance": 0.5, "derived_from": [], "confidence": confidence}


def handler(request: dict):
    schema = request.get("response_format", {}).get("json_schema", {}).get("name", "")
    text = user_text(request)
    if schema.startswith("extract"):
        turn = text.split("CURRENT TURN:")[-1]
        found = [fact(*reply) for word, reply in REPLIES.items() if word in turn]
        return {"entities": [], "facts": found}
    if schema.startswith("resolve_entities"):
        return {"matches": [{"index": i, "same": False} for i in range(text.count(" vs "))]}
    if schema.startswith("resolve"):
        return {"decisions": [{"index": i, "action": "ADD", "target": None} for i in range(text.count("NEW FACT"))]}
    raise AssertionError(f"unexpected request {schema}")


def test_llm_facts_are_gated_by_confidence_and_stability(tmp_path, embedder, scripted_llm):
    scripted_llm.handler = handler
    extractor = LLMExtractor(scripted_llm.url, "scripted-model", cache_dir=tmp_path / "cache", retry_base_delay=0.01)
    with Memory(data_dir=tmp_path / "gm", embedder=embedder, extractor=extractor) as mem:
        first = mem.write("u", [{"role": "user", "content": "I live in Lyon."},
                                {"role": "user", "content": "I'm so tired today."}], "2024-03-01", "s1")
        assert (first.facts_added, first.facts_candidate) == (1, 1)
        second = mem.write("u", [{"role": "user", "content": "Paris, I guess."}], "2024-04-01", "s2")
        assert (second.facts_candidate, second.facts_superseded) == (1, 0)
        assert {(f.predicate, f.object) for f in mem.facts("u")} == {("LIVES_IN", "Lyon")}
        held = {c.object: c for c in mem.candidates("u")}
        assert set(held) == {"tired", "Paris"}
        assert "mood" in held["tired"].reason and held["Paris"].confidence == 0.25

        mem.confirm("u", held["Paris"].uuid)
        mem.reject("u", held["tired"].uuid)
        statuses = {v.object: v.status for v in mem.history("u", "user").versions}
        assert statuses == {"Lyon": "superseded", "Paris": "current"}

        calls = len(scripted_llm.requests)
        rebuilt = mem.rebuild("u")
        assert rebuilt.llm_calls == 0 and len(scripted_llm.requests) == calls
        assert {v.object: v.status for v in mem.history("u", "user").versions} == statuses
        assert mem.candidates("u") == []
