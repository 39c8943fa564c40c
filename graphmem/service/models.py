"""Request bodies, and the few responses the Python API returns as bare values.

Everything else a route returns is the pydantic model `Memory` itself returns
(`WriteResult`, `MemoryPacket`, `FactRecord`, `Timeline`, `ForgetReport`, ...):
one definition, not two. Request models only shape the JSON; every value is
still checked by `Memory`, whose `InvalidInput` becomes a 422 with its message.
Times are ISO-8601 strings (``2024-05-01``, ``2024-05-01T09:30:00+02:00``; no
zone = UTC), parsed by `Memory` like every other caller's.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from graphmem.retrieval.packet import MemoryPacket

TIME = "ISO-8601 date or datetime; no zone = UTC"


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Turn(_Body):
    role: str | None = Field(None, description="user, assistant, system or tool (or give speaker)")
    speaker: str | None = Field(None, description="who spoke, e.g. a name; default the role")
    content: str
    id: str | None = Field(None, description="the turn's own id, cited by packets (default <session_id>#<index>)")

    def as_dict(self) -> dict[str, Any]:
        return self.model_dump(exclude_none=True)


class WriteRequest(_Body):
    turns: list[Turn]
    session_time: str = Field(description=f"when the session happened; {TIME}")
    session_id: str | None = None


class SearchRequest(_Body):
    query: str
    now: str | None = Field(None, description=f"anchor for relative times; default the wall clock. {TIME}")
    as_of: str | None = Field(None, description=f"ask about this moment. {TIME}")
    known_at: str | None = Field(None, description=f"answer as graphmem knew things then. {TIME}")
    limit: int = 10
    recipe: str | None = Field(None, description="a search recipe name (graphmem.retrieval.recipes)")
    budget_tokens: int | None = Field(None, description="cut the packet (and its prompt) to this many tokens")


class SearchResponse(MemoryPacket):
    """The packet, plus the text an agent puts in its prompt (`MemoryPacket.to_prompt`)."""

    prompt: str


class ForgetRequest(_Body):
    selector: dict[str, Any] = Field(
        description='exactly one of {"fact": uuid}, {"entity": name}, {"session_id": id}, {"text": "..."}, '
                    '{"between": [t0, t1]}, {"all": true} (needs confirm)'
    )
    dry_run: bool = Field(True, description="only report what would go (the default); false deletes")
    confirm: bool = Field(False, description='required for {"all": true}')


class PurgeRequest(_Body):
    now: str | None = Field(None, description=f"delete facts expired by then; default the wall clock. {TIME}")


class PurgeResult(BaseModel):
    facts_purged: int


class RestoreRequest(_Body):
    fact_uuid: str


class RestoreResult(BaseModel):
    restored: bool = Field(description="false when the user or fact does not exist")


class DropResult(BaseModel):
    dropped: bool = Field(description="false when the user had no memory")


class Health(BaseModel):
    status: str


class ErrorBody(BaseModel):
    """Every error the service returns: the error's type and a message, no trace."""

    error: str
    detail: Any
