"""What the read verbs return: facts with their subject, object and status, and
timelines of versions. Frozen, so a caller cannot mistake them for live rows."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict

Status = Literal["current", "superseded", "ended"]


class FactRecord(BaseModel):
    """One fact as the caller sees it, dated on both axes."""

    model_config = ConfigDict(frozen=True)

    uuid: str
    subject: str
    predicate: str
    object: str
    fact: str
    valid_at: datetime | None
    invalid_at: datetime | None
    created_at: datetime
    expired_at: datetime | None
    status: Status
    superseded_by: str | None = None
    superseded_by_fact: str | None = None
    episodes: tuple[str, ...] = ()
    source_turn_ids: tuple[str, ...] = ()
    derived_from: tuple[str, ...] = ()
    expires_at: datetime | None = None
    importance: float = 0.5
    access_count: int = 0
    last_accessed_at: datetime | None = None
    archived_at: datetime | None = None

    def range_text(self) -> str:
        """'2024-03-01 -> 2024-06-01', with '...' for an open end."""
        start = self.valid_at.date().isoformat() if self.valid_at else "..."
        end = self.invalid_at.date().isoformat() if self.invalid_at else "..."
        return f"{start} -> {end}"


class Timeline(BaseModel):
    """The versions of an entity's facts or of one fact slot, oldest first."""

    model_config = ConfigDict(frozen=True)

    subject: str
    versions: tuple[FactRecord, ...]


class AddFactResult(BaseModel):
    """What `Memory.add_fact` did: the decision and the facts it touched."""

    model_config = ConfigDict(frozen=True)

    action: Literal["added", "merged", "superseded"]
    fact_uuid: str
    closed: tuple[str, ...] = ()


class WriteResult(BaseModel):
    """What one `Memory.write` stored and decided."""

    model_config = ConfigDict(frozen=True)

    episodes: int = 0
    episodes_skipped: int = 0
    entities_new: int = 0
    entities_merged: int = 0
    facts_added: int = 0
    facts_merged: int = 0
    facts_superseded: int = 0
    facts_ignored: int = 0
    facts_archived: int = 0
    llm_calls: int = 0
    llm_cache_hits: int = 0
    llm_prompt_tokens: int = 0
    llm_completion_tokens: int = 0
    errors: tuple[str, ...] = ()
    episode_uuids: tuple[str, ...] = ()
