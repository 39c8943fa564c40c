"""The filesystem agent's answer stage: the reader model searches the dated
session files with list / grep / read tools (OpenAI tool calling), at most
``max_calls`` tool calls, then answers.

Why: "just give the model grep over the transcripts" is the baseline a memory
system has to beat. The files and the tool functions come from the
filesystem system (`FilesystemSystem.tools(conversation_id)`: one file per
session named ``<date>_<session>.txt``, one ``[<turn id>] speaker: text`` line
per turn); this module only runs the loop. When the budget is spent, the model
is asked once more with no tools and must answer from what it has read.
The turn ids that appeared in tool results are the agent's context provenance.

Example:
    >>> agent = FilesystemAgent(llm, "m", max_calls=6)                         # doctest: +SKIP
    >>> agent.answer(system.tools("conv-26"), question).answer                 # doctest: +SKIP
    '7 May 2023'
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict

from graphmem.evals import reader
from graphmem.evals.llm import EvalLLM
from graphmem.ingest.loaders import Question

STAGE = "agent"
DEFAULT_MAX_CALLS = 8
_RESULT_CHARS = 6000
_TURN_ID = re.compile(r"\[([^\]\s]+:[^\]\s]+)\]")

TOOL_SPECS: list[dict[str, Any]] = [
    {"type": "function", "function": {
        "name": "list_files", "description": "List the session files, one per session, named <date>_<session>.txt.",
        "parameters": {"type": "object", "properties": {}, "required": []}}},
    {"type": "function", "function": {
        "name": "grep", "description": "Lines of all files matching a case-insensitive regular expression.",
        "parameters": {"type": "object", "properties": {"pattern": {"type": "string"}}, "required": ["pattern"]}}},
    {"type": "function", "function": {
        "name": "read", "description": "The whole text of one session file.",
        "parameters": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}},
]

_INSTRUCTIONS = (
    "The memory is a folder of dated conversation transcripts. Use the tools to find "
    "what you need (at most {n} tool calls), then answer."
)


@runtime_checkable
class HasTools(Protocol):
    """A system that offers list / grep / read over one conversation's files."""

    def tools(self, conversation_id: str) -> Mapping[str, Callable[..., str]]: ...


class AgentAnswer(BaseModel):
    model_config = ConfigDict(frozen=True)

    answer: str
    tool_calls: int
    turn_ids: tuple[str, ...]
    context: str


class FilesystemAgent:
    """The bounded tool loop; ``max_calls`` caps tool calls, not model turns."""

    def __init__(self, llm: EvalLLM, model: str, *, max_calls: int = DEFAULT_MAX_CALLS,
                 temperature: float = 0.0, seed: int | None = 0) -> None:
        self.llm = llm
        self.model = model
        self.max_calls = max_calls
        self.temperature = temperature
        self.seed = seed

    def answer(self, tools: Mapping[str, Callable[..., str]], question: Question) -> AgentAnswer:
        """Run the loop for one question and return the final answer."""
        messages = reader.render(_INSTRUCTIONS.format(n=self.max_calls), question.question, question.question_time)
        used, seen = 0, []
        while True:
            offer = TOOL_SPECS if used < self.max_calls else None
            reply = self.llm.chat(STAGE, self.model, messages, temperature=self.temperature, seed=self.seed,
                                  tools=offer)
            calls = reply.tool_calls[: self.max_calls - used] if offer else ()
            if not calls:
                break
            messages.append(reply.model_copy(update={"tool_calls": calls}).assistant_message())
            for call in calls:
                result = run_tool(tools, call.name, call.arguments)[:_RESULT_CHARS]
                seen.append(result)
                messages.append({"role": "tool", "tool_call_id": call.id, "content": result})
            used += len(calls)
        text = "\n".join(seen)
        ids = tuple(dict.fromkeys(_TURN_ID.findall(text)))
        return AgentAnswer(answer=reply.content.strip(), tool_calls=used, turn_ids=ids, context=text)


def run_tool(tools: Mapping[str, Callable[..., str]], name: str, arguments: str) -> str:
    """One tool's output, or an error text the model can read (never an exception)."""
    if name not in tools:
        return f"error: no tool {name!r} (tools: {', '.join(sorted(tools))})"
    try:
        args = json.loads(arguments or "{}")
        if not isinstance(args, dict):
            raise ValueError("arguments must be a JSON object")
        return tools[name](**args) or "(nothing)"
    except (ValueError, TypeError, re.error, OSError) as exc:
        return f"error: {type(exc).__name__}: {exc}"


__all__ = ["DEFAULT_MAX_CALLS", "STAGE", "TOOL_SPECS", "AgentAnswer", "FilesystemAgent", "HasTools", "run_tool"]
