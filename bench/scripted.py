"""A scripted LLM for benchmarks: extraction replies come from the rule
extractor run on the same turn; resolution answers ADD, entities 'not same'.

It exercises the real LLM path (prompts, HTTP, validation, cache, metering)
with replies a model could give, without a model.
"""

from __future__ import annotations

import re
from datetime import datetime

from graphmem.ingest.extraction import TurnContext
from graphmem.ingest.rules import RuleExtractor

_rules = RuleExtractor()
_FIELD = re.compile(r"^(SESSION TIME|SPEAKER): (.*)$", re.M)


def _user_text(request: dict) -> str:
    users = [m for m in request.get("messages", []) if m.get("role") == "user"]
    return str(users[-1].get("content", "")) if users else ""


def _extract(text: str) -> dict:
    fields = dict(_FIELD.findall(text))
    turn = text.split("CURRENT TURN:\n", 1)[-1].rsplit("\n\nAnswer with", 1)[0]
    when = datetime.fromisoformat(fields.get("SESSION TIME", "2024-01-01T00:00:00Z").replace("Z", "+00:00"))
    [found] = _rules.extract([TurnContext(text=turn, speaker=fields.get("SPEAKER", "user"), session_time=when)])
    facts = [
        f.model_dump(mode="json") | {"valid_at": f.valid_at.isoformat() if f.valid_at else None,
                                      "invalid_at": f.invalid_at.isoformat() if f.invalid_at else None,
                                      "expires_at": None}
        for f in found.facts
    ]
    return {"entities": [e.model_dump() for e in found.entities], "facts": facts}


def handler(request: dict):
    name = request.get("response_format", {}).get("json_schema", {}).get("name", "")
    text = _user_text(request)
    if name.startswith("extract"):
        return _extract(text)
    if name.startswith("resolve_entities"):
        return {"matches": [{"index": i, "same": False} for i in range(text.count(" vs "))]}
    return {"decisions": [{"index": i, "action": "ADD", "target": None} for i in range(text.count("NEW FACT"))]}
