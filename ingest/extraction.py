"""What an extractor sees and what it returns; shared by every extractor.

An extractor reads one turn at a time (with a little context) and returns the
entities it names and the facts it states, with dates already resolved against
the session time. Names are surface names; resolution against the graph
happens later (`ingest.entities`, `ingest.facts`).

What else an extractor can do is declared, not discovered: each optional
ability is a small runtime-checkable protocol (`FactResolver`,
`EntityResolver`, `Metered`, `RecordsErrors`, `Cached`), and the write path
asks ``isinstance(extractor, FactResolver)`` instead of probing attributes, so
a custom extractor opts in by implementing the method and a typo is visible
to a type checker.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    from graphmem.graph.llm_cache import LLMCache
    from graphmem.ingest.metering import Meter
    from graphmem.ingest.prompts.resolve import EntityPair, FactDecision, ResolveCandidate


class TurnContext(BaseModel):
    """One turn to extract from, with what is needed to resolve "I" and dates."""

    model_config = ConfigDict(frozen=True)

    text: str
    speaker: str = Field(description="who said it; first-person statements are about this speaker")
    session_time: datetime = Field(description="aware UTC; relative dates resolve against it")
    turn_id: str = ""
    previous: tuple[str, ...] = Field(default=(), description="earlier turns of the session, oldest first")


class ExtractedEntity(BaseModel):
    name: str
    entity_type: str = "Entity"


class ExtractedFact(BaseModel):
    """A fact as stated in one turn.

    ``predicate`` is UPPER_SNAKE (LIVES_IN, WORKS_AT, HAS_PET). ``slot`` groups
    facts that contradict each other when ``single_valued`` (e.g. the diet
    facts AVOIDS/EATS about spicy food share the slot ``DIET:spicy food``);
    None means the predicate itself is the slot. ``derived_from`` holds indexes
    of other facts of the same extraction this one was inferred from.
    """

    subject: str
    predicate: str
    object: str
    fact: str = Field(description="a self-contained sentence naming the subject")
    valid_at: datetime | None = None
    invalid_at: datetime | None = None
    single_valued: bool = False
    slot: str | None = None
    importance: float = 0.5
    expires_at: datetime | None = None
    derived_from: list[int] = Field(default_factory=list)
    confidence: float = Field(0.8, ge=0.0, le=1.0,
                              description="how sure the extractor is that the turn states this; shown on packet lines")
    closes_only: bool = Field(False, description="an ending kept only when it closes an open fact "
                                                 "(\"Rex died\" says nothing if no pet Rex is known)")
    ends_any: bool = Field(False, description="an ending whose value matches no open fact closes the one open fact "
                                              "of its slot, if there is exactly one (\"we finalised the divorce\")")


class Extraction(BaseModel):
    entities: list[ExtractedEntity] = Field(default_factory=list)
    facts: list[ExtractedFact] = Field(default_factory=list)


@runtime_checkable
class Extractor(Protocol):
    """Turns -> one Extraction per turn, in order."""

    name: str

    def extract(self, turns: Sequence[TurnContext]) -> list[Extraction]: ...


@runtime_checkable
class FactResolver(Protocol):
    """Decides ADD / MERGE / SUPERSEDE / IGNORE for new facts that have candidates
    in the graph; without one, the structural rules decide (`ingest.facts`)."""

    def resolve(self, candidates: Sequence[ResolveCandidate]) -> list[FactDecision]: ...


@runtime_checkable
class EntityResolver(Protocol):
    """Says whether ambiguous name pairs are the same entity; without one,
    an ambiguous pair stays two entities."""

    def resolve_entities(self, pairs: Sequence[EntityPair]) -> list[bool]: ...


@runtime_checkable
class Metered(Protocol):
    """Counts its calls and tokens, so a write can report what it cost."""

    meter: Meter


class Failure(Protocol):
    """One answer an extractor gave up on (`ingest.llm.LLMFailure` is one)."""

    stage: str
    turn_id: str
    message: str


@runtime_checkable
class RecordsErrors(Protocol):
    """Appends what it gave up on to ``errors``, so a write can list them."""

    errors: Sequence[Failure]


@runtime_checkable
class Cached(Protocol):
    """Keeps answers on disk (None: no cache); forgetting must delete them too."""

    cache: LLMCache | None
