"""Request bodies, and the few responses the Python API returns as bare values.

Everything else a route returns is the pydantic model `Memory` itself returns
(`WriteResult`, `MemoryPacket`, `FactRecord`, `Timeline`, `ForgetReport`, ...):
one definition, not two. Request models only shape the JSON; every value is
still checked by `Memory`, whose `InvalidInput` becomes a 422 with its message.
Times are ISO-8601 strings (``2024-05-01``, ``2024-05-01T09:30:00+02:00``; no
zone = UTC), parsed by `Memory` like every other caller's.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from graphmem.retrieval.packet import MemoryPacket

TIME = "ISO-8601 date or datetime; no zone = UTC"
MAX_TIME_CHARS = 64
Time = Annotated[str, Field(min_length=1, max_length=MAX_TIME_CHARS, description=TIME)]


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
    turns: list[Turn] = Field(min_length=1)
    session_time: Time = Field(description=f"when the session happened; {TIME}")
    session_id: str | None = None
    scope: str | None = Field(None, description="the scope the turns and their facts belong to: user (the "
                                                "default), project:<id> or agent:<id>")


class SearchRequest(_Body):
    query: str = Field(min_length=1)
    now: Time | None = Field(None, description=f"anchor for relative times; default the wall clock. {TIME}")
    as_of: Time | None = Field(None, description=f"ask about this moment. {TIME}")
    known_at: Time | None = Field(None, description=f"answer as graphmem knew things then. {TIME}")
    limit: int = Field(10, ge=1, le=100)
    recipe: str | None = Field(None, description="a search recipe name (graphmem.retrieval.recipes)")
    budget_tokens: int | None = Field(None, ge=1, description="cut the packet (and its prompt) to this many tokens")
    scopes: list[str] | None = Field(None, min_length=1, max_length=32,
                                     description="the scopes to read; default [\"user\"], or every scope of a key "
                                                 "limited to scopes")


class SearchResponse(MemoryPacket):
    """The packet, plus the text an agent puts in its prompt (`MemoryPacket.to_prompt`)."""

    prompt: str


class ForgetRequest(_Body):
    selector: dict[str, Any] = Field(
        min_length=1, max_length=1,
        description='exactly one of {"fact": uuid}, {"entity": name}, {"session_id": id}, {"text": "..."}, '
                    '{"between": [t0, t1]}, {"all": true} (needs confirm)'
    )
    dry_run: bool = Field(True, description="only report what would go (the default); false deletes")
    confirm: bool = Field(False, description='required for {"all": true}')


class PurgeRequest(_Body):
    now: Time | None = Field(None, description=f"delete facts expired by then; default the wall clock. {TIME}")


class PurgeResult(BaseModel):
    facts_purged: int


class RestoreRequest(_Body):
    fact_uuid: str = Field(min_length=1)


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
