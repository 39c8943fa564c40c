"""Input models for the bulk verbs: one row of `Memory.add_facts`.

Why a model: an importer passes thousands of rows; a misspelt key
(``vaild_at``) must fail with the row named, not be silently ignored, and the
fields mirror `Memory.add_fact`'s arguments one for one, so a row means what
the same call would. The model checks shapes and types; `Memory` then applies
the same checks as `add_fact` (names, text, times, vector size) before
anything is written.

Example:
    >>> FactInput(subject="alice", predicate="lives_in", object="Beijing", valid_at="2024-03-01").single_valued
    True
"""

from __future__ import annotations

from datetime import date, datetime

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictFloat, StrictInt, StrictStr

TimeLike = datetime | date | StrictStr


class FactInput(BaseModel):
    """One fact to import; the fields are `Memory.add_fact`'s arguments."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    subject: StrictStr = Field(description="entity name, merged with an existing one of the same name")
    predicate: StrictStr = Field(description="e.g. lives_in; stored UPPER_SNAKE")
    object: StrictStr = Field(description="entity name, merged like subject")
    fact: StrictStr | None = Field(default=None, description="the sentence (default: built from the triple)")
    valid_at: TimeLike | None = Field(default=None, description="when it became true")
    invalid_at: TimeLike | None = Field(default=None, description="when it stopped being true")
    reference_time: TimeLike | None = Field(default=None, description="when it was said (default valid_at)")
    single_valued: StrictBool = Field(default=True, description="one value at a time: a new one closes the old")
    episodes: list[StrictStr] = Field(default_factory=list, description="uuids of the turns that said it")
    derived_from: list[StrictStr] = Field(default_factory=list, description="uuids of facts it was inferred from")
    importance: StrictFloat | StrictInt = Field(default=0.5, description="0 to 1, weighs decay and archiving")
    expires_at: TimeLike | None = Field(default=None, description="leaves search then; deleted by purge")
    confidence: StrictFloat | StrictInt = Field(default=1.0, description="0 to 1, how sure the importer is")
    scope: StrictStr = Field(default="user", description="user, project:<id> or agent:<id>")
    embedding: list[StrictFloat | StrictInt] | None = Field(default=None, description="the fact's vector")
