"""The graph's nodes and edges, with Graphiti 0.31's property names (ARCHITECTURE §3).

These are plain data: no `save()`. `to_props()` gives the dict stored in FalkorDB
(times encoded by `schema.time.encode`, embeddings left out because the query
wraps them in ``vecf32``); `from_props()` reads one back. Extra graphmem fields
sit beside Graphiti's, so Graphiti's own search reads a graphmem graph unchanged.
"""

from __future__ import annotations

import hashlib
import re
import uuid as uuidlib
from datetime import datetime
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, model_validator

from graphmem.schema.errors import InvalidInput
from graphmem.schema import time as t

USER_ID_RE = re.compile(r"[A-Za-z0-9_-]{1,128}\Z")
PREDICATE_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_ ]{0,63}$")
DEFAULT_SCOPE = "user"
SCOPE_RE = re.compile(r"(user|(project|agent):[A-Za-z0-9_.-]{1,64})\Z")


def check_user_id(user_id: object) -> str:
    """A user id is a graph name, so it is whitelisted, never escaped.

    Example:
        >>> check_user_id("alice_01")
        'alice_01'
    """
    if not isinstance(user_id, str) or not USER_ID_RE.match(user_id):
        raise InvalidInput(
            f"user id {user_id!r} is invalid: use 1-128 characters from A-Z, a-z, 0-9, '_' and '-'"
        )
    return user_id


def check_scope(scope: object) -> str:
    """A scope is ``user`` (the default), ``project:<id>`` or ``agent:<id>`` (id: 1-64
    letters, digits, ``_ . -``). It is stored on episodes and facts and compared, never
    parsed further, so it is whitelisted.

    Example:
        >>> check_scope("project:apollo-2")
        'project:apollo-2'
    """
    if not isinstance(scope, str) or not SCOPE_RE.match(scope):
        raise InvalidInput(f"scope {scope!r} is invalid: use 'user', 'project:<id>' or 'agent:<id>' "
                           "(id: 1-64 characters from A-Z, a-z, 0-9, '_', '.' and '-')")
    return scope


def check_scopes(scopes: object) -> tuple[str, ...]:
    """A non-empty list of scopes (a bare string is refused, not split into letters)."""
    if isinstance(scopes, (str, bytes, dict)) or not isinstance(scopes, (list, tuple, set, frozenset)) or not scopes:
        raise InvalidInput(f"scopes must be a non-empty list of scopes, got {scopes!r}")
    return tuple(dict.fromkeys(check_scope(s) for s in scopes))


def scoped_slot(slot: str, scope: str) -> str:
    """Facts contradict each other only within one scope: a project's "lives in"
    never closes the user's. The user scope keeps the bare slot (stored graphs
    stay as they are)."""
    suffix = f"@{scope}"
    return slot if scope == DEFAULT_SCOPE or slot.endswith(suffix) else slot + suffix


def normalize_predicate(predicate: object) -> str:
    """'lives in' / 'lives_in' / 'LIVES_IN' -> 'LIVES_IN' (Graphiti's edge-name style)."""
    if not isinstance(predicate, str) or not PREDICATE_RE.match(predicate.strip()):
        raise InvalidInput(f"predicate {predicate!r} must be 1-64 letters, digits, spaces or '_'")
    return "_".join(predicate.strip().upper().split())


def new_uuid() -> str:
    return str(uuidlib.uuid4())


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def normalize_name(name: str) -> str:
    """The key entities are matched on: casefolded, inner whitespace collapsed."""
    return " ".join(name.casefold().split())


class GraphModel(BaseModel):
    """Shared conversion: datetime fields encode to strings, embeddings stay out."""

    model_config = ConfigDict(extra="ignore", validate_assignment=True)
    TIME_FIELDS: ClassVar[tuple[str, ...]] = ()
    VECTOR_FIELDS: ClassVar[tuple[str, ...]] = ()

    @model_validator(mode="before")
    @classmethod
    def _times_to_utc(cls, data: Any) -> Any:
        """Time fields (stored strings, dates, datetimes) -> aware UTC datetimes (`time.to_utc`).

        One call per model, not one per field: reading 5,000 facts made 90,000
        field-validator calls, a sixth of `facts()`'s time."""
        if not isinstance(data, dict):
            return data
        times = {name: data[name] for name in cls.TIME_FIELDS if data.get(name) is not None}
        if not times:
            return data
        return data | {name: t.decode(value) if isinstance(value, str) else t.to_utc(value, field=name)
                       for name, value in times.items()}

    def to_props(self) -> dict[str, Any]:
        props = self.model_dump(exclude=set(self.VECTOR_FIELDS))
        for name in self.TIME_FIELDS:
            props[name] = t.encode(props[name])
        return props

    @classmethod
    def from_props(cls, props: dict[str, Any]):
        return cls.model_validate(props)


class EpisodicNode(GraphModel):
    """One conversation turn, kept verbatim as evidence."""

    TIME_FIELDS: ClassVar[tuple[str, ...]] = ("valid_at", "created_at")

    uuid: str = Field(default_factory=new_uuid)
    group_id: str
    name: str = Field(description="the source turn id (e.g. LoCoMo 'D3:7') or a generated one")
    content: str
    source: str = "message"
    source_description: str = ""
    valid_at: datetime = Field(description="when the conversation happened (session time)")
    created_at: datetime = Field(default_factory=t.now_utc)
    entity_edges: list[str] = Field(default_factory=list)
    session_id: str | None = None
    turn_index: int = 0
    speaker: str = ""
    content_hash: str = ""
    scope: str = DEFAULT_SCOPE


class EntityNode(GraphModel):
    """A person, place, thing or idea the conversation names."""

    TIME_FIELDS: ClassVar[tuple[str, ...]] = ("created_at",)
    VECTOR_FIELDS: ClassVar[tuple[str, ...]] = ("name_embedding",)

    uuid: str = Field(default_factory=new_uuid)
    group_id: str
    name: str
    normalized_name: str = ""
    summary: str = ""
    aliases: list[str] = Field(default_factory=list)
    entity_type: str = "Entity"
    name_embedding: list[float] | None = None
    created_at: datetime = Field(default_factory=t.now_utc)

    def model_post_init(self, _: Any) -> None:
        if not self.normalized_name:
            self.normalized_name = normalize_name(self.name)


class FactEdge(GraphModel):
    """A fact between two entities, with both time axes.

    ``valid_at``/``invalid_at``: when the fact holds in the world.
    ``created_at``/``expired_at``: when graphmem believed it.
    ``invalidated_by``: the uuid of the fact that closed this one; ``own_invalid_at``
    the end it had before that closure; ``interval_log`` the intervals it held before
    each later change, so *known at K* reads the one it had then.
    ``derived_from``: uuids of facts this one was inferred from (forgetting follows them).
    """

    TIME_FIELDS: ClassVar[tuple[str, ...]] = (
        "valid_at",
        "invalid_at",
        "created_at",
        "expired_at",
        "reference_time",
        "last_accessed_at",
        "expires_at",
        "archived_at",
        "own_invalid_at",
    )
    VECTOR_FIELDS: ClassVar[tuple[str, ...]] = ("fact_embedding",)

    uuid: str = Field(default_factory=new_uuid)
    group_id: str
    name: str = Field(description="the predicate, e.g. LIVES_IN")
    slot: str = Field(default="", description="facts of one slot contradict each other; default: name")
    fact: str
    fact_embedding: list[float] | None = None
    episodes: list[str] = Field(default_factory=list)
    valid_at: datetime | None = None
    invalid_at: datetime | None = None
    created_at: datetime = Field(default_factory=t.now_utc)
    expired_at: datetime | None = None
    reference_time: datetime | None = None
    source_node_uuid: str
    target_node_uuid: str
    derived_from: list[str] = Field(default_factory=list)
    invalidated_by: str | None = None
    own_invalid_at: datetime | None = Field(None, description="the end the fact had before a supersession closed "
                                                              "it (None: open); given back if the closing fact is forgotten")
    interval_log: list[str] | None = Field(default_factory=list, description=(
        "the interval and closer each later change replaced, '<changed_at>|<valid_at>|<invalid_at>|<closed by>' "
        "in change order (`time.interval_as_known`); empty or None: never changed, or stored before the log existed"))
    importance: float = 0.5
    access_count: int = 0
    last_accessed_at: datetime | None = None
    expires_at: datetime | None = None
    archived_at: datetime | None = None
    confidence: float = Field(1.0, description="how sure the writer was, 0-1 (add_fact: 1; extraction: the extractor's)")
    scope: str = Field(DEFAULT_SCOPE, description="user, project:<id> or agent:<id>; search reads only the scopes it is given")
    origin: str = Field("direct", description="'extracted' from episodes (a projection `rebuild` re-derives) "
                                              "or 'direct' (add_fact: kept by a rebuild)")

    def model_post_init(self, _: Any) -> None:
        if not self.slot:
            self.slot = self.name
        self.slot = scoped_slot(self.slot, self.scope)

    def order_key(self) -> datetime:
        """Where this fact starts on the timeline when ``valid_at`` is unknown: when it was
        said, or its own end when that came first ("Oslo until 2020", said in 2024, began
        before 2020; placed where it was said, it closed the home held since 2021).
        Twin: `cypher.facts.ORDER_KEY`."""
        if self.valid_at is not None:
            return self.valid_at
        said = self.reference_time or self.created_at
        end = self.invalid_at if self.invalidated_by is None else self.own_invalid_at
        return end if end is not None and end < said else said


class MentionsEdge(GraphModel):
    """(:Episodic)-[:MENTIONS]->(:Entity): which turns name which entities."""

    TIME_FIELDS: ClassVar[tuple[str, ...]] = ("created_at",)

    uuid: str = Field(default_factory=new_uuid)
    group_id: str
    created_at: datetime = Field(default_factory=t.now_utc)
