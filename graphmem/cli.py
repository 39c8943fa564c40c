"""`graphmem ...`: each command opens a Memory and calls the method of the same
name; a GraphMemError becomes a one-line error and exit code 2.

    graphmem ingest --user U FILE      LoCoMo, LongMemEval or JSONL sessions
    graphmem facts --user U [--valid-at T] [--known-at K] [--subject S] [--json]
    graphmem history --user U ENTITY_OR_FACT [--json]
    graphmem search --user U "QUESTION" [--now T] [--limit N] [--json]
    graphmem forget --user U (--text T | --entity E | --fact ID | --session-id S |
                    --between T0 T1 | --all --yes) [--dry-run] [--json]
    graphmem eval forget                 the forgetting set, offline
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


def _mount_evals() -> None:
    from graphmem.evals.cli import eval_app

    app.add_typer(eval_app, name="eval")

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


@app.command()
def search(
    query: Annotated[str, typer.Argument(help="the question")],
    user: UserOpt,
    now: Annotated[Optional[str], typer.Option(help="anchor for relative times; default now")] = None,
    limit: Annotated[int, typer.Option(help="facts and turns to return")] = 10,
    data_dir: DataDirOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """A dated memory packet for QUERY, or an abstention."""
    with opened(data_dir) as mem:
        packet = mem.search(user, query, now=now, limit=limit)
        typer.echo(packet.model_dump_json(indent=2) if as_json else packet.to_prompt())


@app.command()
def forget(
    user: UserOpt,
    text: Annotated[Optional[str], typer.Option(help="turns and facts containing this text")] = None,
    entity: Annotated[Optional[str], typer.Option(help="an entity name or uuid and everything about it")] = None,
    fact: Annotated[Optional[str], typer.Option(help="one fact uuid")] = None,
    session_id: Annotated[Optional[str], typer.Option(help="a whole session")] = None,
    between: Annotated[Optional[tuple[str, str]], typer.Option(help="turns said in [T0, T1)")] = None,
    all_: Annotated[bool, typer.Option("--all", help="the user's whole memory (needs --yes)")] = False,
    yes: Annotated[bool, typer.Option("--yes", help="confirm --all")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="show what would go; change nothing")] = False,
    data_dir: DataDirOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Delete what the selector names and everything that rests on it; then compact."""
    given = {"text": text, "entity": entity, "fact": fact, "session_id": session_id,
             "between": list(between) if between else None, "all": True if all_ else None}
    selector = {k: v for k, v in given.items() if v is not None}
    if all_ and not yes:
        typer.echo("error: --all deletes the user's whole memory; add --yes to confirm", err=True)
        raise typer.Exit(code=2)
    if len(selector) != 1:
        typer.echo("error: give exactly one of --text, --entity, --fact, --session-id, --between, --all", err=True)
        raise typer.Exit(code=2)
    with opened(data_dir) as mem:
        report = mem.forget(user, selector, dry_run=dry_run, confirm=yes)
    if as_json:
        typer.echo(report.model_dump_json(indent=2))
        return
    verb = "would remove" if report.dry_run else "removed"
    typer.echo(f"{verb}: {report.facts_deleted} facts, {report.episodes_deleted} turns, "
               f"{report.entities_deleted} entities; reopened {len(report.facts_reopened)} facts")
    for turn_id in report.turn_ids:
        typer.echo(f"  turn {turn_id}")
    for name in report.entities:
        typer.echo(f"  entity {name}")


_mount_evals()

if __name__ == "__main__":
    app()
