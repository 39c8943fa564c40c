"""`graphmem ingest`: load a file, validate every session, then write them all.

Validation runs over the whole file before the store is opened, so a bad
session anywhere writes nothing, and the error names the file, the line (JSONL)
and the session.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graphmem.schema.errors import InvalidInput

INGEST_HELP = """Write every session of FILE into the memory of --user.

\b
Formats, told apart by content, not by name:
  LoCoMo       locomo10.json: a JSON list of conversations
  LongMemEval  longmemeval_{s_cleaned,m_cleaned,oracle}.json
  JSONL        one session per line, for example
    {"session_id": "s1", "session_time": "2024-03-01T09:30:00+00:00",
     "turns": [{"speaker": "user", "content": "I moved to Beijing.", "id": "s1:t1"}]}
  "role" (user, assistant, system, tool) may replace "speaker"; "id" is
  optional (default <session_id>:<index>); a session_time without a zone is
  UTC; blank lines are skipped.

\b
A file with several conversations (LoCoMo, LongMemEval) writes one user per
conversation, named <user>_<conversation id> (for example alice_conv-26); the
ids written are printed at the end (`graphmem users` lists them later).
Every session is checked before anything is written: one bad session and
nothing is stored.
"""


@dataclass(frozen=True)
class PlannedWrite:
    """One `Memory.write` call and where in the file it came from (a dataclass,
    not pydantic: `graphmem --help` imports this module and should stay light)."""

    user_id: str
    args: dict[str, Any]
    where: str


def sub_user(user: str, part: str) -> str:
    """One graph per conversation of a multi-conversation file: U_<conversation>."""
    return f"{user}_{re.sub(r'[^A-Za-z0-9_-]', '_', part)}"[:128]


def _jsonl_line_numbers(file: Path) -> list[int]:
    """1-based numbers of the non-blank lines: the loader's sessions, in order."""
    with file.open(encoding="utf-8-sig") as f:
        return [n for n, line in enumerate(f, start=1) if line.strip()]


def write_plan(user: str, file: Path) -> list[PlannedWrite]:
    """Every session in the file, in order, with the user it goes to."""
    from graphmem.ingest.loaders import detect_format, load_any

    fmt = detect_format(file)
    loaded = load_any(file)
    if fmt == "jsonl":
        lines = _jsonl_line_numbers(file)
        return [PlannedWrite(user_id=user, args=s.write_args(), where=f"{file}: line {n} (session {s.session_id!r})")
                for n, s in zip(lines, loaded, strict=True)]
    plan = []
    for conv in loaded:
        target = sub_user(user, conv.conversation_id) if len(loaded) > 1 else user
        plan += [PlannedWrite(user_id=target, args=s.write_args(),
                              where=f"{file}: {conv.conversation_id} (session {s.session_id!r})")
                 for s in conv.sessions]
    return plan


def validate_plan(plan: list[PlannedWrite]) -> None:
    """Run `Memory.write`'s own checks on every session; raise on the first bad one."""
    from graphmem.config import Settings
    from graphmem.ingest.turns import validate_session
    from graphmem.schema.models import check_user_id

    settings = Settings()
    for item in plan:
        try:
            check_user_id(item.user_id)
            validate_session(item.args["turns"], item.args["session_time"], item.args["session_id"],
                             max_turn_chars=settings.max_turn_chars, max_turns=settings.max_turns_per_write)
        except InvalidInput as exc:
            raise InvalidInput(f"{item.where}: {exc}; nothing was written") from exc


def snapshot(mem) -> None:
    """Fold the append-only log into a snapshot after a bulk write.

    Every write is a Cypher query appended to the AOF, and the embedded server
    replays them all when it next starts: on the 4,124-turn LoCoMo store, opening
    took 7.4 s from the log and 3.7 s from the snapshot (bench/cli.py store,
    loaded machine). Redis rewrites the log by itself only past 64 MB.
    """
    from graphmem.forgetting.pipeline import compact

    compact(mem.store, Path(mem.settings.data_dir).expanduser())


def ingest_file(file: Path, user: str, open_memory: Callable[[], AbstractContextManager], *,
                progress: bool) -> dict[str, Any]:
    """Validate the whole file, then write it; the summary lists the user ids written."""
    from tqdm import tqdm

    plan = write_plan(user, file)
    validate_plan(plan)
    totals: dict[str, int] = {}
    with open_memory() as mem:
        for item in tqdm(plan, desc="sessions", unit="session", disable=not progress):
            result = mem.write(item.user_id, **item.args)
            for key, value in result.model_dump(exclude={"errors", "episode_uuids"}).items():
                totals[key] = totals.get(key, 0) + value
        if mem.store.embedded:
            snapshot(mem)
    return {"users": sorted({item.user_id for item in plan}), "sessions": len(plan), **totals}
