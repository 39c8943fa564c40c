"""The resolution prompts: batched ADD/MERGE/SUPERSEDE/IGNORE for new facts, and
same-entity-or-not for ambiguous entity pairs.

Why batched: resolution runs only for the few facts (and names) the rules and
embeddings could not settle, and one call for all of them costs far less than
one per fact. Why short references (E1, E2, ...) instead of fact ids: a model
copies "E2" reliably and a UUID less so; `to_decisions` maps them back and
rejects a reply that names a fact not offered for that new fact.

Two tasks share this module, each with its own context, response model,
render function and version (`PROMPT_VERSION`, `ENTITIES_PROMPT_VERSION`).
"""

from __future__ import annotations

from enum import StrEnum
from string import Template
from typing import Literal

from pydantic import BaseModel, ConfigDict, field_validator

from graphmem.ingest.prompts import ChatMessage, json_schema_format, load_text

PROMPT_VERSION = "resolve-v1"
ENTITIES_PROMPT_VERSION = "resolve-entities-v1"


# --- facts: context -------------------------------------------------------------


class ExistingFact(BaseModel):
    """A fact already in the graph that a new fact may repeat or contradict."""

    model_config = ConfigDict(frozen=True)

    id: str
    fact: str


class ResolveCandidate(BaseModel):
    """One new fact and the existing facts it was found close to."""

    model_config = ConfigDict(frozen=True)

    fact: str
    existing: tuple[ExistingFact, ...] = ()


class ResolveContext(BaseModel):
    """Every new fact to decide on in one call, in order."""

    model_config = ConfigDict(frozen=True)

    candidates: tuple[ResolveCandidate, ...]

    def references(self) -> dict[str, str]:
        """Fact id -> short reference (E1, E2, ...), in order of first appearance."""
        refs: dict[str, str] = {}
        for candidate in self.candidates:
            for existing in candidate.existing:
                refs.setdefault(existing.id, f"E{len(refs) + 1}")
        return refs


# --- facts: decision (what the caller gets) -----------------------------------


class ResolveAction(StrEnum):
    ADD = "ADD"
    MERGE = "MERGE"
    SUPERSEDE = "SUPERSEDE"
    IGNORE = "IGNORE"


class FactDecision(BaseModel):
    """What to do with one new fact; ``target_id`` is set for MERGE and SUPERSEDE only."""

    model_config = ConfigDict(frozen=True)

    action: ResolveAction
    target_id: str | None = None


# --- facts: response model ----------------------------------------------------


class FactDecisionOut(BaseModel):
    index: int
    action: Literal["ADD", "MERGE", "SUPERSEDE", "IGNORE"]
    target: str | None = None

    @field_validator("action", mode="before")
    @classmethod
    def _upper(cls, value: object) -> object:
        return value.strip().upper() if isinstance(value, str) else value


class ResolveResponse(BaseModel):
    decisions: list[FactDecisionOut]


def response_format() -> dict:
    """The ``response_format`` (strict json_schema) for `ResolveResponse`."""
    return json_schema_format(ResolveResponse, "resolve_response")


def render(ctx: ResolveContext) -> list[ChatMessage]:
    """The chat messages for one batched fact-resolution call; pure.

    Example:
        >>> ctx = ResolveContext(candidates=(ResolveCandidate(
        ...     fact="Ann lives in Oslo.", existing=(ExistingFact(id="f-9", fact="Ann lives in Rome."),)),))
        >>> "E1: Ann lives in Rome." in render(ctx)[1]["content"]
        True
    """
    refs = ctx.references()
    blocks = []
    for i, candidate in enumerate(ctx.candidates):
        lines = [f"NEW FACT {i}: {candidate.fact}", "EXISTING:"]
        lines += [f"  {refs[e.id]}: {e.fact}" for e in candidate.existing] or ["  (none)"]
        blocks.append("\n".join(lines))
    user = Template(load_text("resolve_v1.user.txt")).substitute(
        candidates="\n\n".join(blocks), count=len(ctx.candidates)
    )
    return [
        {"role": "system", "content": load_text("resolve_v1.system.txt")},
        {"role": "user", "content": user},
    ]


def to_decisions(ctx: ResolveContext, response: ResolveResponse) -> list[FactDecision]:
    """One `FactDecision` per candidate, in order; pure.

    Raises ValueError when the reply does not answer every new fact exactly
    once or names a target that was not offered for that fact (a reply that
    cannot be trusted as a whole is treated as malformed).
    """
    refs = ctx.references()
    by_ref = {ref: fact_id for fact_id, ref in refs.items()}
    decided: dict[int, FactDecision] = {}
    for out in response.decisions:
        if not 0 <= out.index < len(ctx.candidates) or out.index in decided:
            raise ValueError(f"decision index {out.index} is out of range or repeated")
        decided[out.index] = _to_decision(out, ctx.candidates[out.index], refs, by_ref)
    missing = [i for i in range(len(ctx.candidates)) if i not in decided]
    if missing:
        raise ValueError(f"no decision for new facts {missing}")
    return [decided[i] for i in range(len(ctx.candidates))]


def _to_decision(
    out: FactDecisionOut, candidate: ResolveCandidate, refs: dict[str, str], by_ref: dict[str, str]
) -> FactDecision:
    action = ResolveAction(out.action)
    if action in (ResolveAction.ADD, ResolveAction.IGNORE):
        return FactDecision(action=action)
    offered = {refs[e.id] for e in candidate.existing}
    target = (out.target or "").strip()
    if target not in offered:
        raise ValueError(f"{action} of new fact {out.index} names {target!r}, not one of {sorted(offered)}")
    return FactDecision(action=action, target_id=by_ref[target])


# --- entities ------------------------------------------------------------------


class EntityPair(BaseModel):
    """Two entity names that might be the same entity."""

    model_config = ConfigDict(frozen=True)

    name_a: str
    name_b: str
    type_a: str = "Entity"
    type_b: str = "Entity"


class ResolveEntitiesContext(BaseModel):
    model_config = ConfigDict(frozen=True)

    pairs: tuple[EntityPair, ...]


class EntityMatchOut(BaseModel):
    index: int
    same: bool


class ResolveEntitiesResponse(BaseModel):
    matches: list[EntityMatchOut]


def entities_response_format() -> dict:
    """The ``response_format`` (strict json_schema) for `ResolveEntitiesResponse`."""
    return json_schema_format(ResolveEntitiesResponse, "resolve_entities_response")


def render_entities(ctx: ResolveEntitiesContext) -> list[ChatMessage]:
    """The chat messages for one batched entity-resolution call; pure."""
    lines = [
        f'PAIR {i}: "{p.name_a}" ({p.type_a}) vs "{p.name_b}" ({p.type_b})' for i, p in enumerate(ctx.pairs)
    ]
    user = Template(load_text("resolve_entities_v1.user.txt")).substitute(
        pairs="\n".join(lines), count=len(ctx.pairs)
    )
    return [
        {"role": "system", "content": load_text("resolve_entities_v1.system.txt")},
        {"role": "user", "content": user},
    ]


def to_matches(ctx: ResolveEntitiesContext, response: ResolveEntitiesResponse) -> list[bool]:
    """Same-entity answers, one per pair in order; ValueError unless every pair is answered once."""
    answers: dict[int, bool] = {}
    for out in response.matches:
        if not 0 <= out.index < len(ctx.pairs) or out.index in answers:
            raise ValueError(f"match index {out.index} is out of range or repeated")
        answers[out.index] = out.same
    missing = [i for i in range(len(ctx.pairs)) if i not in answers]
    if missing:
        raise ValueError(f"no answer for pairs {missing}")
    return [answers[i] for i in range(len(ctx.pairs))]


__all__ = [
    "ENTITIES_PROMPT_VERSION",
    "PROMPT_VERSION",
    "EntityPair",
    "ExistingFact",
    "FactDecision",
    "FactDecisionOut",
    "ResolveAction",
    "ResolveCandidate",
    "ResolveContext",
    "ResolveEntitiesContext",
    "ResolveEntitiesResponse",
    "ResolveResponse",
    "entities_response_format",
    "render",
    "render_entities",
    "to_decisions",
    "to_matches",
]
