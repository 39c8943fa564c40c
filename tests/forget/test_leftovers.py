"""Forgetting leaves nothing behind: LLM-cache entries of the resolve stages, unreadable
cache files, and expired text in entity summaries after a purge."""

from __future__ import annotations

import json
from pathlib import Path

from llm_server import user_text

from graphmem import Memory, Settings
from graphmem.graph.llm_cache import LLMCache, text_hash

PET = "Quetzalcoatl"


def handler(request: dict):
    """Extraction names the pet in every turn that does; resolve answers ADD."""
    schema = request.get("response_format", {}).get("json_schema", {}).get("name", "")
    turn = user_text(request).split("CURRENT TURN:")[-1]
    if schema.startswith("extract"):
        facts = []
        if PET in turn:
            text = f"user has a pet iguana {PET}." if "iguana" in turn else f"user has a pet {PET}."
            facts = [{"subject": "user", "predicate": "HAS_PET", "object": PET, "fact": text,
                      "valid_at": "2024-03-10", "invalid_at": None, "expires_at": None, "single_valued": False,
                      "slot": None, "importance": 0.8, "derived_from": []}]
        return {"entities": [{"name": PET, "entity_type": "Animal"}] if facts else [], "facts": facts}
    if schema.startswith("resolve_entities"):
        return {"matches": [{"index": i, "same": False} for i in range(turn.count(" vs "))]}
    return {"decisions": [{"index": i, "action": "ADD", "target": None} for i in range(turn.count("NEW FACT"))]}


def stages(cache: LLMCache) -> dict[str, int]:
    found: dict[str, int] = {}
    for entry in cache.entries():
        found[entry.prompt_version] = found.get(entry.prompt_version, 0) + 1
    return found


def test_forget_drops_resolve_entries_and_unreadable_files(tmp_path, embedder, scripted_llm):
    scripted_llm.handler = handler
    data_dir = tmp_path / "gm"
    settings = Settings(data_dir=data_dir, llm_base_url=scripted_llm.url, llm_model="scripted-model")
    with Memory(settings=settings, embedder=embedder) as mem:
        mem.write("u", [{"role": "user", "content": f"My pet is called {PET}."}], "2024-03-10", "s1")
        mem.write("u", [{"role": "user", "content": f"{PET} is an iguana, you know."}], "2024-03-11", "s2")
        mem.write("u", [{"role": "user", "content": "I live in Boston."}], "2024-03-12", "s3")
        cache = LLMCache(data_dir / "llm_cache")
        assert stages(cache).get("resolve-v1", 0) >= 1, "the second pet fact must have been resolved"
        resolve = [e for e in cache.entries() if e.prompt_version == "resolve-v1"]
        turn_hashes = {text_hash(f"My pet is called {PET}."), text_hash(f"{PET} is an iguana, you know.")}
        assert all(turn_hashes.isdisjoint(e.text_hashes) for e in resolve), "keyed by facts, not turns"
        corrupt = data_dir / "llm_cache" / "ab" / ("ab" + "0" * 62 + ".json")
        corrupt.parent.mkdir(exist_ok=True)
        corrupt.write_text('{"key": "half written, about ' + PET)
        stray = data_dir / "llm_cache" / "ab" / ".tmp-crashed.json"
        stray.write_text(json.dumps({"note": PET}))

        report = mem.forget("u", {"text": PET})
        assert report.episodes_deleted == 2
        assert stages(cache).get("resolve-v1", 0) == 0
        assert not corrupt.exists() and not stray.exists()
        assert report.cache_entries_deleted >= 3 + len(resolve)
        left = list(cache.entries())
        assert left, "entries of the kept turn stay: the forget is not a cache wipe"
        assert all(text_hash("I live in Boston.") in e.text_hashes for e in left if e.prompt_version == "extract-v1")
    blob = b"".join(p.read_bytes() for p in (data_dir / "llm_cache").rglob("*") if p.is_file())
    assert PET.encode().lower() not in blob.lower()


def test_a_purge_rebuilds_summaries_and_drops_what_only_the_expired_fact_held(memory):
    memory.add_fact("u", "user", "stays_at", "Hotel Aurora", fact="User stays at the Hotel Aurora.",
                    valid_at="2024-09-01", expires_at="2024-09-10", single_valued=False)
    memory.write("u", [{"role": "user", "content": "I live in Boston."}], "2024-09-02T09:00:00Z", "s1")
    ins = memory.inspect()
    assert memory.purge("u", now="2024-09-15T00:00:00Z") == 1
    assert ins.contains_text("u", "Aurora") == []
    [user] = [e for e in ins.entities("u") if e.name == "user"]
    assert "Boston" in user.summary
    assert "Hotel Aurora" not in [v.object for v in memory.history("u", "user").versions]


def test_summaries_leave_out_facts_whose_expiry_passed(memory):
    memory.add_fact("u", "user", "stays_at", "Hotel Aurora", fact="User stays at the Hotel Aurora.",
                    valid_at="2024-09-01", expires_at="2024-09-10", single_valued=False)
    memory.write("u", [{"role": "user", "content": "I live in Boston."}], "2024-09-02T09:00:00Z", "s1")
    [user] = [e for e in memory.inspect().entities("u") if e.name == "user"]
    assert "Boston" in user.summary and "Aurora" not in user.summary
