"""What the analysis verbs return: frozen pydantic records that flatten to dicts.

Why a ``to_records()`` on every result: analysts put results in a DataFrame or a
plot; a list of plain dicts is what both take, without graphmem depending on
pandas.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from html import escape
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict

from graphmem.schema.records import Status

ChangeKind = Literal["started", "ended", "superseded", "appeared"]
MAX_HTML_ROWS = 200


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, datetime):
        return value.isoformat(sep=" ", timespec="minutes").removesuffix(" 00:00+00:00").removesuffix("+00:00")
    if isinstance(value, float):
        return f"{value:.3f}"
    if isinstance(value, (tuple, list)):
        return ", ".join(_cell(v) for v in value)
    return str(value)


def html_table(records: Sequence[dict[str, Any]], columns: Sequence[str] | None = None,
               max_rows: int = MAX_HTML_ROWS) -> str:
    """Pure: dict rows as an HTML table (what Jupyter shows for a result), text escaped.

    Example:
        >>> html_table([{"a": 1}])
        '<table><thead><tr><th>a</th></tr></thead><tbody><tr><td>1</td></tr></tbody></table>'
    """
    columns = list(columns or (records[0].keys() if records else ()))
    head = "".join(f"<th>{escape(c)}</th>" for c in columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{escape(_cell(row.get(c)))}</td>" for c in columns) + "</tr>"
        for row in records[:max_rows]
    )
    more = f"<p>... {len(records) - max_rows} more rows</p>" if len(records) > max_rows else ""
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{more}"


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True)


class _Table(_Record):
    """A result holding rows; ``to_records()`` flattens them for a DataFrame."""

    ROWS: ClassVar[str]

    def to_records(self) -> list[dict[str, Any]]:
        return [row.model_dump() for row in getattr(self, self.ROWS)]

    def __len__(self) -> int:
        return len(getattr(self, self.ROWS))

    def _repr_html_(self) -> str:
        """Jupyter shows a result as its table."""
        return html_table(self.to_records())


class Change(_Record):
    """One change between two dates.

    ``started``/``ended``: a fact's validity began/ended in the window.
    ``superseded``: a fact ended because a newer one replaced it: ``object`` and
    ``fact`` are the old value, ``new_object`` and ``new_fact`` the new one (the
    new fact is not listed again as ``started``). ``appeared``: an entity was
    first seen (in a fact or a turn) in the window; ``subject`` is its name.
    """

    kind: ChangeKind
    at: datetime | None
    subject: str
    predicate: str | None = None
    object: str | None = None
    fact: str | None = None
    new_object: str | None = None
    new_fact: str | None = None
    fact_uuid: str | None = None
    new_fact_uuid: str | None = None
    source_turn_ids: tuple[str, ...] = ()


class Diff(_Table):
    """What changed after `t1` up to and including `t2`, as known at `known_at` (None = now)."""

    t1: datetime
    t2: datetime
    known_at: datetime | None = None
    changes: tuple[Change, ...] = ()

    ROWS: ClassVar[str] = "changes"

    def of_kind(self, kind: ChangeKind) -> list[Change]:
        return [c for c in self.changes if c.kind == kind]


class TimelineEntry(_Record):
    """One version of one fact about the entity: its validity and what graphmem believed when."""

    uuid: str
    role: Literal["subject", "object"]
    subject: str
    predicate: str
    object: str
    fact: str
    start: datetime | None
    end: datetime | None
    known_from: datetime
    known_until: datetime | None
    status: Status
    superseded_by: str | None = None
    superseded_by_fact: str | None = None
    source_turn_ids: tuple[str, ...] = ()


class EntityTimeline(_Table):
    """Every fact version about `entity`, by start of validity (open starts first)."""

    entity: str
    entries: tuple[TimelineEntry, ...] = ()

    ROWS: ClassVar[str] = "entries"


class Community(_Record):
    """A group of related entities, labelled by its most central member.

    ``members`` are names, most central first (``centrality``: the member's
    weighted degree inside the group over the group's largest).
    """

    uuid: str
    rank: int
    label: str
    label_uuid: str
    members: tuple[str, ...]
    member_uuids: tuple[str, ...]
    centrality: tuple[float, ...]
    graph_version: int
    created_at: datetime | None = None

    @property
    def size(self) -> int:
        return len(self.members)


class Communities(_Table):
    """The communities of a user's current graph, largest first, computed at `graph_version`."""

    user_id: str
    graph_version: int = 0
    recomputed: bool = False
    groups: tuple[Community, ...] = ()

    ROWS: ClassVar[str] = "groups"

    def to_records(self) -> list[dict[str, Any]]:
        return [g.model_dump() | {"size": g.size} for g in self.groups]

    def of(self, entity: str) -> Community | None:
        """The community holding the entity named `entity`, if any."""
        return next((g for g in self.groups if entity in g.members), None)
