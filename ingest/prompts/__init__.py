"""Prompts for the LLM tasks, one module per task (STYLE item 11).

Each module holds a typed context, the pydantic response model (named apart
from the domain models), a pure ``render(ctx) -> list[ChatMessage]`` and a
``PROMPT_VERSION`` that is recorded with what it produced and keys the cache.
The wording lives in versioned ``.txt`` files next to the modules, read with
importlib.resources, so a prompt change is a new file and a new version, never
a silent edit of cached behaviour.

This module holds what the tasks share: loading the text files, the
``response_format`` built from a response model, and reading a JSON reply.
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources
from typing import Any, Literal, TypedDict

from pydantic import BaseModel


class ChatMessage(TypedDict):
    """One chat message as the OpenAI chat API takes it."""

    role: Literal["system", "user", "assistant"]
    content: str


@cache
def load_text(name: str) -> str:
    """The text of prompt file ``name`` shipped in this package (read once)."""
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


_NAMED_SUBSCHEMAS = ("properties", "$defs")


def _strict(node: Any) -> Any:
    """Make a JSON schema fit OpenAI strict mode: closed objects, all keys required.

    Drops ``default`` and ``title`` keywords (strict mode rejects or ignores
    them) but never a property that happens to be called so.
    """
    if isinstance(node, list):
        return [_strict(v) for v in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _NAMED_SUBSCHEMAS:
            out[key] = {name: _strict(sub) for name, sub in value.items()}
        elif key not in ("default", "title"):
            out[key] = _strict(value)
    if out.get("type") == "object" and "properties" in out:
        out["additionalProperties"] = False
        out["required"] = list(out["properties"])
    return out


def json_schema_format(model: type[BaseModel], name: str) -> dict[str, Any]:
    """``response_format`` asking for JSON matching ``model`` (strict json_schema).

    Example:
        >>> from pydantic import BaseModel
        >>> class Out(BaseModel):
        ...     names: list[str]
        >>> json_schema_format(Out, "out")["json_schema"]["schema"]["required"]
        ['names']
    """
    schema = _strict(model.model_json_schema(mode="serialization"))
    return {"type": "json_schema", "json_schema": {"name": name, "strict": True, "schema": schema}}


JSON_OBJECT_FORMAT: dict[str, Any] = {"type": "json_object"}

_FENCE = re.compile(r"^\s*```[A-Za-z0-9_-]*\s*\n?(.*?)\n?\s*```\s*$", re.DOTALL)


def strip_fences(text: str) -> str:
    """The JSON inside a reply, with a surrounding ```json fence removed if present.

    Example:
        >>> strip_fences('```json\\n{"a": 1}\\n```')
        '{"a": 1}'
    """
    match = _FENCE.match(text)
    if match:
        return match.group(1).strip()
    start, end = text.find("{"), text.rfind("}")
    if start > 0 and end > start and not text[:start].strip().startswith(("{", "[")):
        return text[start : end + 1]
    return text.strip()


def parse_reply[M: BaseModel](text: str, model: type[M]) -> M:
    """Validate a reply as ``model``; raises ValueError (incl. ValidationError) if it is not."""
    data = json.loads(strip_fences(text))
    return model.model_validate(data)


__all__ = ["JSON_OBJECT_FORMAT", "ChatMessage", "json_schema_format", "load_text", "parse_reply", "strip_fences"]
