"""A scripted LLM whose extraction replies are what the offline rules read in the
turn: the LLM path (prompts, cache, resolve calls) runs end to end on any text,
with replies computed from the request, never from a canned answer.

Resolve calls answer "different entity" and ADD: supersession then rests on the
slots the rules give, as on the offline path.
"""

from __future__ import annotations

import re
from datetime import datetime

from llm_server import user_text

from graphmem.ingest.extraction import TurnContext
from graphmem.ingest.rules import RuleExtractor

_RULES = RuleExtractor()
_FIELD = re.compile(r"^(SESSION TIME|SPEAKER): (.*)$", re.MULTILINE)


def _turn(prompt: str) -> TurnContext:
    fields = dict(_FIELD.findall(prompt))
    text = prompt.split("CURRENT TURN:\n", 1)[1].rsplit("\n\nAnswer with the JSON object only.", 1)[0]
    when = datetime.fromisoformat(fields["SESSION TIME"].replace("Z", "+00:00"))
    return TurnContext(text=text, speaker=fields["SPEAKER"], session_time=when)


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat().replace("+00:00", "Z") if moment is not None else None


def rules_handler(request: dict) -> dict:
    schema = request.get("response_format", {}).get("json_schema", {}).get("name", "")
    prompt = user_text(request)
    if schema.startswith("extract"):
        extraction = _RULES.extract([_turn(prompt)])[0]
        facts = [{**f.model_dump(exclude={"valid_at", "invalid_at", "expires_at"}),
                  "valid_at": _iso(f.valid_at), "invalid_at": _iso(f.invalid_at), "expires_at": _iso(f.expires_at)}
                 for f in extraction.facts]
        return {"entities": [e.model_dump() for e in extraction.entities], "facts": facts}
    if schema.startswith("resolve_entities"):
        return {"matches": [{"index": i, "same": False} for i in range(prompt.count(" vs "))]}
    return {"decisions": [{"index": i, "action": "ADD", "target": None} for i in range(prompt.count("NEW FACT"))]}
