"""What a key limited to scopes may read and write: pure functions over the
scopes it holds (``None``: every scope, what a key without ``--scopes`` has).

Why one module: the HTTP routes, the browser (through those routes) and the MCP
tools decide the same way, so a scoped key sees the same lines whichever door
it comes in by.

- A read looks at the scopes the request asks for, or by default at the key's
  own scopes (a key for every scope keeps the verb's own default). Asking for a
  scope the key does not hold is refused (`Forbidden`, 403), never silently
  narrowed, so a caller cannot mistake "nothing there" for "not allowed".
- A write goes to the scope the request names (default ``user``); a scope the
  key does not hold is refused.
- Rows a verb returns whole (history, versions, turns) are filtered to the key's
  scopes (`visible`).
- The write gate's candidates are listed, confirmed and rejected only within the
  key's scopes (`visible_candidates`, `require_visible_candidate`).
- Verbs that act on the whole memory whatever the scope (forget, purge,
  restore, rebuild, drop) need a key for every scope (`require_every_scope`).

Example:
    >>> read_scopes(("project:apollo",), None, ("user",))
    ('project:apollo',)
    >>> read_scopes(None, None, ("user",))
    ('user',)
"""

from __future__ import annotations

from collections.abc import Sequence

from graphmem.schema.errors import Forbidden, NotFound
from graphmem.schema.models import DEFAULT_SCOPE, check_scope, check_scopes
from graphmem.schema.records import CandidateRecord, Timeline

Held = tuple[str, ...] | None


def _names(scopes: Sequence[str]) -> str:
    return ", ".join(scopes)


def read_scopes(held: Held, requested: Sequence[str] | None, default: tuple[str, ...] | None) -> tuple[str, ...] | None:
    """The scopes a read with this key looks at (None: every scope).

    :param held: the key's scopes; None for every scope.
    :param requested: the scopes the request names, or None.
    :param default: the verb's own default for a key of every scope (search:
        ``("user",)``; facts: None, every scope).
    :raises InvalidInput: a malformed scope or an empty list.
    :raises Forbidden: a requested scope the key does not hold.
    """
    chosen = check_scopes(requested) if requested is not None else None
    if held is None:
        return chosen if chosen is not None else default
    if chosen is None:
        return held
    outside = [s for s in chosen if s not in held]
    if outside:
        raise Forbidden(f"this key may read only the scopes {_names(held)}; not {_names(outside)}")
    return chosen


def write_scope(held: Held, requested: str | None) -> str:
    """The scope a write with this key goes to (default ``user``).

    :raises InvalidInput: a malformed scope.
    :raises Forbidden: a scope the key does not hold.
    """
    scope = check_scope(requested if requested is not None else DEFAULT_SCOPE)
    if held is not None and scope not in held:
        hint = "" if requested is not None else " (a write without a scope goes to user; name one)"
        raise Forbidden(f"this key may write only the scopes {_names(held)}; not {scope}{hint}")
    return scope


def visible(held: Held, scope: str) -> bool:
    """True when a row of `scope` may be shown to this key."""
    return held is None or scope in held


def visible_timeline(found: Timeline, held: Held, user_id: str, entity_or_fact: str) -> Timeline:
    """`found` (a `Memory.history`) with only the versions of the `held` scopes; when
    none is left, the NotFound an unknown entity gets, so nothing says it exists.

    :raises NotFound: no version of the held scopes.
    """
    if held is None:
        return found
    shown = tuple(v for v in found.versions if v.scope in held)
    if not shown:
        raise NotFound(f"no entity or fact {entity_or_fact!r} in {user_id!r}'s memory")
    return found.model_copy(update={"versions": shown})


def require_every_scope(held: Held, verb: str) -> None:
    """Refuse `verb` to a key limited to some scopes: it would act on the others too.

    :raises Forbidden: the key holds only some scopes.
    """
    if held is not None:
        raise Forbidden(f"{verb} acts on every scope of the memory; this key holds only {_names(held)}")


def visible_candidates(found: Sequence[CandidateRecord], held: Held) -> list[CandidateRecord]:
    """The write gate's candidates of the `held` scopes only."""
    return [c for c in found if visible(held, c.scope)]


def require_visible_candidate(found: Sequence[CandidateRecord], held: Held, user_id: str, uuid: str) -> None:
    """Before a scoped key confirms or rejects: a candidate of another scope gets the
    NotFound a missing one gets, so nothing says it exists.

    :raises NotFound: no candidate `uuid` in the held scopes.
    """
    if held is not None and not any(c.uuid == uuid for c in visible_candidates(found, held)):
        raise NotFound(f"no candidate {uuid!r} in {user_id!r}'s memory")
