"""Validate what `Memory.write` is given, before anything touches the graph.

All checks run first, so bad input raises `InvalidInput` with nothing half
written. Text follows `graphmem.parsing.text`: content loses control characters other
than tab and line breaks; a speaker holding one, a turn or session id holding
any control character, and any lone surrogate are refused. Limits
(configurable through Settings): a turn's content is at most `max_turn_chars`
characters (default 20,000) and one write holds at most `max_turns_per_write`
turns (default 2,000).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict

from graphmem.schema.errors import InvalidInput
from graphmem.schema import time as t
from graphmem.schema.models import content_hash
from graphmem.parsing.text import check_id, check_name, clean_text

ROLES = frozenset({"user", "assistant", "system", "tool"})
MAX_SPEAKER_CHARS = 128
MAX_ID_CHARS = 256
EPISODE_NAMESPACE = uuid.UUID("6f1e0c52-3b1a-4c55-9a7e-5b0b9d1f3c2a")


class TurnIn(BaseModel):
    model_config = ConfigDict(frozen=True)

    speaker: str
    content: str
    turn_id: str | None = None


class SessionIn(BaseModel):
    """A validated write: turns, aware UTC session time, optional session id."""

    model_config = ConfigDict(frozen=True)

    turns: tuple[TurnIn, ...]
    session_time: datetime
    session_id: str | None = None
    scope: str = "user"
    turn_indexes: tuple[int, ...] | None = None  # a rebuilt session whose turns were partly forgotten

    def index_of(self, position: int) -> int:
        """The stored turn index of the turn at `position` (equal unless rebuilt with gaps)."""
        return self.turn_indexes[position] if self.turn_indexes is not None else position

    def key(self) -> str:
        """What identifies the session for idempotency: its id, else its time."""
        return self.session_id if self.session_id is not None else t.encode(self.session_time)


def _turn(raw: Any, index: int, max_chars: int) -> TurnIn:
    where = f"turn {index}"
    if not isinstance(raw, dict):
        raise InvalidInput(f"{where}: expected an object with 'role' or 'speaker' and 'content'")
    unknown = set(raw) - {"role", "speaker", "content", "id"}
    if unknown:
        raise InvalidInput(f"{where}: unknown keys {sorted(map(repr, unknown))}")
    role = raw.get("role")
    if "role" in raw and "speaker" not in raw and not (isinstance(role, str) and role in ROLES):
        raise InvalidInput(f"{where}: unknown role {role!r}; expected one of {sorted(ROLES)}")
    speaker = raw.get("speaker", role)
    if speaker is None:
        raise InvalidInput(f"{where}: 'role' or 'speaker' must be a non-empty string of at most {MAX_SPEAKER_CHARS}")
    speaker = check_name(speaker, f"{where}: 'role' or 'speaker'", MAX_SPEAKER_CHARS)
    content = clean_text(raw.get("content"), f"{where}: 'content'", max_chars, strip=False)
    turn_id = raw.get("id")
    if turn_id is not None:
        turn_id = check_id(turn_id, f"{where}: 'id'", MAX_ID_CHARS)
    return TurnIn(speaker=speaker, content=content, turn_id=turn_id)


def validate_session(
    turns: Any, session_time: Any, session_id: Any, *, max_turn_chars: int, max_turns: int
) -> SessionIn:
    """Check every turn and the session time; raise InvalidInput on the first problem."""
    if session_time is None:
        raise InvalidInput("session_time is required: event time comes from it, never from the wall clock")
    when = t.to_utc(session_time, field="session_time")
    if isinstance(turns, (str, bytes, dict)) or not isinstance(turns, Sequence):
        raise InvalidInput("turns must be a list of {'role'|'speaker', 'content', 'id'?} objects")
    if not turns:
        raise InvalidInput("turns is empty")
    if len(turns) > max_turns:
        raise InvalidInput(f"{len(turns):,} turns in one write; the limit is {max_turns:,}")
    if session_id is not None:
        session_id = check_id(session_id, "session_id", MAX_ID_CHARS)
    parsed = tuple(_turn(raw, i, max_turn_chars) for i, raw in enumerate(turns))
    ids = [p.turn_id for p in parsed if p.turn_id is not None]
    if len(ids) != len(set(ids)):
        raise InvalidInput("turn ids repeat within one write")
    return SessionIn(turns=parsed, session_time=when, session_id=session_id)


def episode_uuid(user_id: str, session: SessionIn, index: int, text: str) -> str:
    """Deterministic: the same turn of the same session always gets the same uuid."""
    key = f"{user_id}\x1f{session.key()}\x1f{index}\x1f{content_hash(text)}"
    if session.scope != "user":  # the same turn in two scopes is two episodes; user-scope uuids stay as they were
        key += f"\x1f{session.scope}"
    return str(uuid.uuid5(EPISODE_NAMESPACE, key))


def short_time(moment: datetime) -> str:
    """A session time as a short, exact id part: `2024-07-10T00:00Z`, with
    seconds (`...T00:00:30Z`) or microseconds only when the time has them."""
    moment = t.to_utc(moment)
    if moment.microsecond:
        return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ" if moment.second else "%Y-%m-%dT%H:%MZ")


def turn_name(session: SessionIn, index: int) -> str:
    """The turn id a packet cites: the caller's own id, else `<session id>#<index>`,
    or `<short session time>#<index>` (`2024-07-10T00:00Z#0`) when the session has
    no id. Stable: the same turn of the same session always gets the same id."""
    turn = session.turns[index]
    if turn.turn_id is not None:
        return turn.turn_id
    return f"{session.session_id if session.session_id is not None else short_time(session.session_time)}#{index}"
