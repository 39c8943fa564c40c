"""The one interface every compared system implements, and the records it returns.

A system ingests a whole conversation (its sessions in time order) into a memory
of its own, then answers ``context(question)`` with the text a reader model would
get and, where the system has provenance, the dataset turn ids that text rests on
(most relevant first). The harness (retrieval stage, answer stage) only ever
talks to this interface, so graphmem, Graphiti proper, Mem0, full context, naive
RAG and the filesystem agent are measured under one set of conditions.

Example:
    >>> system = make_system("rag", SystemConfig(work_dir=Path("/tmp/x")))
    >>> stats = system.ingest(conversation)
    >>> ctx = system.context(conversation.conversation_id, conversation.questions[0])
    >>> ctx.turn_ids[:3]
    ('D8:29', 'D10:15', 'D15:13')
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from graphmem.ingest.loaders import Conversation, Question


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class LLMEndpoint(_Frozen):
    """An OpenAI-compatible endpoint; None everywhere means the offline route."""

    base_url: str
    model: str
    api_key: str = "not-needed"
    temperature: float = 0.0
    seed: int | None = 0


class SystemConfig(_Frozen):
    """What every system gets, identically.

    ``work_dir`` is the system's own scratch directory (its graph, vector store,
    files); ``llm`` is the endpoint for systems that extract with an LLM (None:
    their offline route); ``context_tokens`` is the reader's budget (full
    context cuts from the oldest end to fit it); ``k`` is how many items a
    retriever returns; ``options`` carries per-system settings (ablation name,
    tuned RRF k and weights, tool-call budget).
    """

    work_dir: Path
    llm: LLMEndpoint | None = None
    context_tokens: int = 8_000
    k: int = 10
    options: dict[str, object] = Field(default_factory=dict)


class IngestStats(_Frozen):
    """Cost of ingesting one conversation (LLM figures from the endpoint's usage)."""

    episodes: int
    seconds: float
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    errors: tuple[str, ...] = ()


class Context(_Frozen):
    """What a system hands the reader for one question.

    ``turn_ids``: distinct dataset turn ids the context cites, most relevant
    first (empty when the system has no provenance); ``session_ids`` likewise.
    ``error`` is set (and text empty) when the system failed on this question:
    the harness counts it as an error, never as an empty result.
    """

    text: str
    turn_ids: tuple[str, ...] = ()
    session_ids: tuple[str, ...] = ()
    tokens: int = 0
    latency_ms: float = 0.0
    error: str | None = None


@runtime_checkable
class MemorySystem(Protocol):
    """One compared system. ``name`` is its command-line name (``graphmem:no_bm25``)."""

    name: str
    has_provenance: bool

    def ingest(self, conversation: Conversation) -> IngestStats: ...

    def context(self, conversation_id: str, question: Question) -> Context: ...

    def close(self) -> None: ...
