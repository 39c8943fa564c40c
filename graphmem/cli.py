"""`graphmem ...`: each command opens a Memory and calls the method of the same
name; a GraphMemError becomes a one-line error and exit code 2.

    graphmem ingest --user U FILE      LoCoMo, LongMemEval or JSONL sessions
    graphmem facts --user U [--valid-at T] [--known-at K] [--subject S] [--json]
    graphmem history --user U ENTITY_OR_FACT [--json]
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Optional

import typer
from tqdm import tqdm

from graphmem.errors import GraphMemError
from graphmem.memory import Memory

app = typer.Typer(help="graphmem: temporal knowledge-graph memory for LLM agents.", no_args_is_help=True)

UserOpt = Annotated[str, typer.Option("--user", "-u", help="user id (graph name)")]
DataDirOpt = Annotated[Optional[Path], typer.Option("--data-dir", help="default: $GRAPHMEM_DATA_DIR or ~/.graphmem")]
JsonOpt = Annotated[bool, typer.Option("--json", help="print JSON instead of a table")]


@contextmanager
def opened(data_dir: Path | None) -> Iterator[Memory]:
    try:
        with Memory(data_dir=data_dir) as mem:
            yield mem
    except GraphMemError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(code=2) from exc


def sub_user(user: str, part: str) -> str:
    """One graph per conversation of a multi-conversation file: U_<conversation>."""
    return f"{user}_{re.sub(r'[^A-Za-z0-9_-]', '_', part)}"[:128]


def write_plan(user: str, file: Path) -> list[tuple[str, dict]]:
    """(user id, write kwargs) for every session in the file, in order."""
    from graphmem.ingest.loaders import Conversation, load_any

    loaded = load_any(file)
    plan: list[tuple[str, dict]] = []
    for item in loaded:
        if isinstance(item, Conversation):
            target = sub_user(user, item.conversation_id) if len(loaded) > 1 else user
            plan += [(target, session.write_args()) for session in item.sessions]
        else:
            plan.append((user, item.write_args()))
    return plan


@app.command()
def ingest(
    file: Annotated[Path, typer.Argument(help="a LoCoMo, LongMemEval or JSONL file")],
    user: UserOpt,
    data_dir: DataDirOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Write every session of FILE; a file with several conversations gets one user per conversation."""
    with opened(data_dir) as mem:
        plan = write_plan(user, file)
        totals: dict[str, int] = {}
        users = set()
        for target, args in tqdm(plan, desc="sessions", unit="session", disable=as_json):
            result = mem.write(target, **args)
            users.add(target)
            for key, value in result.model_dump(exclude={"errors", "episode_uuids"}).items():
                totals[key] = totals.get(key, 0) + value
        summary = {"users": sorted(users), "sessions": len(plan), **totals}
        if as_json:
            typer.echo(json.dumps(summary))
        else:
            typer.echo(f"{len(plan)} sessions into {len(users)} user(s): " + ", ".join(
                f"{k}={v}" for k, v in totals.items() if v))


def _print_facts(facts, as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps([f.model_dump(mode="json") for f in facts], indent=2))
        return
    for f in facts:
        typer.echo(f"{f.status:10} {f.range_text():26} {f.subject} -{f.predicate}-> {f.object}   ({f.fact})")


@app.command()
def facts(
    user: UserOpt,
    valid_at: Annotated[Optional[str], typer.Option(help="true at this time (ISO-8601); default now")] = None,
    known_at: Annotated[Optional[str], typer.Option(help="as graphmem knew it then; default now")] = None,
    subject: Annotated[Optional[str], typer.Option(help="only facts about this entity")] = None,
    data_dir: DataDirOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Facts true at a time as known at a time."""
    with opened(data_dir) as mem:
        _print_facts(mem.facts(user, valid_at=valid_at, known_at=known_at, subject=subject), as_json)


@app.command()
def history(
    entity_or_fact: Annotated[str, typer.Argument(help="an entity name or uuid, or a fact uuid")],
    user: UserOpt,
    data_dir: DataDirOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Every version of an entity's facts, or of one fact's slot."""
    with opened(data_dir) as mem:
        _print_facts(mem.history(user, entity_or_fact).versions, as_json)


if __name__ == "__main__":
    app()
