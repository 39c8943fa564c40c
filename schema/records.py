"""What the read verbs return: facts with their subject, object and status, and
timelines of versions. Frozen, so a caller cannot mistake them for live rows."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

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
    confidence: float = 1.0
    scope: str = "user"

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
    """What one `Memory.write` stored and decided.

    The fact counts partition the extracted facts, except `facts_superseded`,
    which counts facts closed (one new fact can close several, or none):
    `facts_added` + `facts_merged` + `facts_ignored` + `facts_candidate` = facts
    extracted (an ending such as "no longer" counts as merged into the fact it ends).
    """

    model_config = ConfigDict(frozen=True)

    episodes: int = Field(0, description="turns stored as new episodes")
    episodes_skipped: int = Field(0, description="turns already stored and extracted (a repeated write)")
    entities_new: int = Field(0, description="entities created")
    entities_merged: int = Field(0, description="names resolved to an existing entity")
    facts_added: int = Field(0, description="new facts stored, whether or not they closed an older one")
    facts_merged: int = Field(0, description="restatements (and endings) folded into a stored fact")
    facts_superseded: int = Field(
        0, description="facts whose validity this write closed: older values, or a new fact placed before a later one"
    )
    facts_ignored: int = Field(0, description="extracted facts not stored (unresolvable, or the LLM said IGNORE)")
    facts_candidate: int = Field(0, description="facts the write gate held back as candidates (`Memory.candidates`)")
    facts_archived: int = Field(0, description="facts archived to stay within the per-user capacity")
    llm_calls: int = 0
    llm_cache_hits: int = 0
    llm_prompt_tokens: int = 0
    llm_completion_tokens: int = 0
    errors: tuple[str, ...] = Field((), description="extraction errors; the turns are still stored")
    episode_uuids: tuple[str, ...] = ()


class CandidateRecord(BaseModel):
    """A fact the write gate held back (`Memory.candidates`): out of search and of
    `facts()` until `confirm` makes it active or `reject` drops it."""

    model_config = ConfigDict(frozen=True)

    uuid: str
    subject: str
    predicate: str
    object: str
    fact: str
    status: Literal["candidate"] = "candidate"
    valid_at: datetime | None = None
    invalid_at: datetime | None = None
    created_at: datetime
    episodes: tuple[str, ...] = ()
    source_turn_ids: tuple[str, ...] = ()
    confidence: float = 1.0
    importance: float = 0.5
    scope: str = "user"
    write_score: float = Field(0.0, description="the gate's score; below the threshold, hence a candidate")
    reason: str = Field("", description="the gate's signals for this fact")


class GateResult(BaseModel):
    """What `Memory.confirm` / `Memory.reject` did to one candidate."""

    model_config = ConfigDict(frozen=True)

    candidate: str
    decision: Literal["confirmed", "rejected"]
    action: Literal["added", "merged", "superseded", "dropped"]
    fact_uuid: str | None = None
    closed: tuple[str, ...] = ()
