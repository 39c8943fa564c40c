"""drop_user erases from disk (graph, AOF, RDB, LLM cache); the audit log's hash is keyed."""

from __future__ import annotations

import hashlib
import hmac
import json
import stat
from pathlib import Path

from llm_server import user_text

from graphmem import Memory, Settings

PETS = {"u1": "Quetzalcoatl", "u2": "Brambleberry"}


def scan(data_dir: Path) -> bytes:
    return b"".join(p.read_bytes() for p in data_dir.rglob("*") if p.is_file())


def pet_handler(request: dict):
    schema = request.get("response_format", {}).get("json_schema", {}).get("name", "")
    turn = user_text(request).split("CURRENT TURN:")[-1]
    if schema.startswith("extract"):
        for pet in PETS.values():
            if pet in turn:
                fact = {"subject": "user", "predicate": "HAS_PET", "object": pet, "fact": f"user has a pet {pet}.",
                        "valid_at": "2024-03-10", "invalid_at": None, "expires_at": None, "single_valued": False,
                        "slot": None, "importance": 0.8, "derived_from": []}
                return {"entities": [{"name": pet, "entity_type": "Animal"}], "facts": [fact]}
        return {"entities": [], "facts": []}
    if schema.startswith("resolve_entities"):
        return {"matches": [{"index": i, "same": False} for i in range(turn.count(" vs "))]}
    return {"decisions": [{"index": i, "action": "ADD", "target": None} for i in range(turn.count("NEW FACT"))]}


def test_drop_user_leaves_none_of_their_words_in_any_file(tmp_path, embedder, scripted_llm):
    scripted_llm.handler = pet_handler
    data_dir = tmp_path / "gm"
    settings = Settings(data_dir=data_dir, llm_base_url=scripted_llm.url, llm_model="scripted-model")
    with Memory(settings=settings, embedder=embedder) as mem:
        for user, pet in PETS.items():
            mem.write(user, [{"role": "user", "content": f"My iguana is called {pet}."}], "2024-03-10", "s1")
            mem.add_fact(user, "user", "visited", f"{pet}ville", single_valued=False)
        assert all(pet.encode() in scan(data_dir) for pet in PETS.values())
        assert list((data_dir / "llm_cache").rglob("*.json"))
        assert mem.drop_user("u1") is True
        assert mem.users() == ["u2"] and mem.drop_user("u1") is False
        assert [f.object for f in mem.facts("u2") if f.predicate == "HAS_PET"] == ["Brambleberry"]
        blob = scan(data_dir)
        assert b"quetzalcoatl" not in blob.lower()
        assert b"Brambleberry" in blob and b"Brambleberryville" in blob
    [line] = [json.loads(x) for x in (data_dir / "forget_audit.jsonl").read_text().splitlines()]
    assert (line["user"], line["selector"], line["episodes"]) == ("u1", "all", 1)
    assert b"quetzalcoatl" not in scan(data_dir).lower(), "closing must not bring anything back"


def forget_max(data_dir: Path, embedder) -> str:
    with Memory(data_dir=data_dir, embedder=embedder) as mem:
        mem.write("u", [{"role": "user", "content": "I have a dog named Max."}], "2024-03-10", "s1")
        assert mem.forget("u", {"text": "Max"}).episodes_deleted == 1
    return json.loads((data_dir / "forget_audit.jsonl").read_text().splitlines()[-1])["value"]


def test_the_audit_hash_is_keyed_per_data_dir(tmp_path, embedder):
    one, two = forget_max(tmp_path / "a", embedder), forget_max(tmp_path / "b", embedder)
    plain = hashlib.sha256(b"Max").hexdigest()
    assert one.startswith("hmac-sha256:") and plain not in one and plain not in two
    assert one != two
    key_file = tmp_path / "a" / ".audit_key"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    key = bytes.fromhex(key_file.read_text())
    assert one == "hmac-sha256:" + hmac.new(key, b"Max", hashlib.sha256).hexdigest(), "the key holder can verify"
    assert plain.encode() not in scan(tmp_path / "a")
