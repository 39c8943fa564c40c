"""The extraction prompt: one turn in, entities + facts + dates out, in one call.

Why one call: entities, facts and their dates come from the same reading of
the turn, so asking once costs a third of three calls and keeps them
consistent (a fact's subject is one of the entities). Relative dates are the
model's job; the prompt gives it the session time to resolve them against.

The response models (`ExtractResponse`, `ExtractedFactOut`, ...) are what the
model must return; `to_extraction` turns a validated response into the domain
`Extraction`, which is all the rest of ingestion sees.
"""

from __future__ import annotations

import logging
import re
from datetime import UTC, datetime
from string import Template

from pydantic import BaseModel, ConfigDict, Field

from graphmem.schema.errors import InvalidInput
from graphmem.ingest.extraction import ExtractedEntity, ExtractedFact, Extraction, TurnContext
from graphmem.ingest.prompts import ChatMessage, json_schema_format, load_text
from graphmem.schema.time import to_utc

PROMPT_VERSION = "extract-v1"
MAX_PREVIOUS_TURNS = 6
MAX_PREVIOUS_CHARS = 600

log = logging.getLogger("graphmem.ingest.llm")


class ExtractContext(BaseModel):
    """What the extraction prompt is rendered from (everything that affects the answer)."""

    model_config = ConfigDict(frozen=True)

    text: str
    speaker: str
    session_time: datetime
    previous: tuple[str, ...] = ()

    @classmethod
    def from_turn(cls, turn: TurnContext, max_previous: int = MAX_PREVIOUS_TURNS) -> ExtractContext:
        """The context for ``turn``: its last ``max_previous`` earlier turns, each cut short."""
        recent = turn.previous[-max_previous:] if max_previous > 0 else ()
        return cls(
            text=turn.text,
            speaker=turn.speaker,
            session_time=turn.session_time,
            previous=tuple(_shorten(p, MAX_PREVIOUS_CHARS) for p in recent),
        )


class ExtractedEntityOut(BaseModel):
    name: str
    entity_type: str = "Entity"


class ExtractedFactOut(BaseModel):
    """A fact as the model returns it; dates are ISO strings or null."""

    subject: str
    predicate: str
    object: str
    fact: str
    valid_at: str | None = None
    invalid_at: str | None = None
    expires_at: str | None = None
    single_valued: bool = False
    slot: str | None = None
    importance: float = 0.5
    derived_from: list[int] = Field(default_factory=list)
    confidence: float = Field(0.8, description="how sure you are that the turn states this fact, 0-1")


class ExtractResponse(BaseModel):
    """The whole reply of one extraction call."""

    entities: list[ExtractedEntityOut] = Field(default_factory=list)
    facts: list[ExtractedFactOut] = Field(default_factory=list)


RESPONSE_FORMAT_NAME = "extract_response"


def response_format() -> dict:
    """The ``response_format`` (strict json_schema) for `ExtractResponse`."""
    return json_schema_format(ExtractResponse, RESPONSE_FORMAT_NAME)


def _shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def render(ctx: ExtractContext) -> list[ChatMessage]:
    """The chat messages for one extraction call; pure.

    Example:
        >>> from datetime import UTC, datetime
        >>> msgs = render(ExtractContext(text="I moved to Oslo.", speaker="Ann",
        ...                              session_time=datetime(2024, 5, 1, tzinfo=UTC)))
        >>> [m["role"] for m in msgs], "2024-05-01T00:00:00Z" in msgs[1]["content"]
        (['system', 'user'], True)
    """
    previous = "\n".join(f"- {p}" for p in ctx.previous) or "(none)"
    user = Template(load_text("extract_v1.user.txt")).substitute(
        session_time=iso_utc(ctx.session_time),
        speaker=ctx.speaker,
        previous=previous,
        text=ctx.text,
    )
    return [
        {"role": "system", "content": load_text("extract_v1.system.txt")},
        {"role": "user", "content": user},
    ]


def iso_utc(moment: datetime) -> str:
    """``2024-05-01T00:00:00Z`` for an aware datetime (naive is taken as UTC)."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_utc(value: str | None) -> datetime | None:
    """An ISO 8601 string from the model as aware UTC; None for null or nonsense.

    Uses the store's own normalisation (`graphmem.schema.time.to_utc`): a date
    without a time is midnight UTC, a time without a zone is UTC, and a year
    the store cannot encode is dropped here rather than failing the write.

    Example:
        >>> parse_utc("2024-03-05"), parse_utc("2024-03-05T10:00:00+02:00").hour, parse_utc("soon")
        (datetime.datetime(2024, 3, 5, 0, 0, tzinfo=datetime.timezone.utc), 8, None)
    """
    if value is None or not value.strip():
        return None
    try:
        return to_utc(value.strip(), field="date from the model")
    except InvalidInput as exc:
        log.debug("date from the model dropped: %s", exc)
        return None


def normalize_predicate(predicate: str) -> str:
    """UPPER_SNAKE form: ``lives in`` -> ``LIVES_IN``."""
    return re.sub(r"[^0-9A-Za-z]+", "_", predicate).strip("_").upper()


def to_extraction(response: ExtractResponse) -> Extraction:
    """The domain `Extraction` for a validated response; pure.

    Facts with a blank subject, predicate or object are dropped, and
    ``derived_from`` indexes are renumbered to the facts kept (indexes that
    point nowhere or to the fact itself are dropped). Importance is clamped to [0, 1].
    """
    kept: dict[int, int] = {}
    for i, f in enumerate(response.facts):
        if f.subject.strip() and normalize_predicate(f.predicate) and f.object.strip():
            kept[i] = len(kept)
    facts = [_to_fact(response.facts[i], i, kept) for i in kept]
    entities = [
        ExtractedEntity(name=e.name.strip(), entity_type=e.entity_type.strip() or "Entity")
        for e in response.entities
        if e.name.strip()
    ]
    return Extraction(entities=entities, facts=facts)


def _to_fact(out: ExtractedFactOut, index: int, kept: dict[int, int]) -> ExtractedFact:
    subject, obj = out.subject.strip(), out.object.strip()
    return ExtractedFact(
        subject=subject,
        predicate=normalize_predicate(out.predicate),
        object=obj,
        fact=out.fact.strip() or f"{subject} {out.predicate.strip().lower()} {obj}.",
        valid_at=parse_utc(out.valid_at),
        invalid_at=parse_utc(out.invalid_at),
        expires_at=parse_utc(out.expires_at),
        single_valued=out.single_valued,
        slot=(out.slot or "").strip() or None,
        importance=min(1.0, max(0.0, out.importance)),
        confidence=min(1.0, max(0.0, out.confidence)),
        derived_from=sorted({kept[j] for j in out.derived_from if j in kept and j != index}),
    )


__all__ = [
    "PROMPT_VERSION",
    "ExtractContext",
    "ExtractResponse",
    "ExtractedEntityOut",
    "ExtractedFactOut",
    "parse_utc",
    "render",
    "response_format",
    "to_extraction",
]
