"""`graphmem ...`: each command opens a Memory and calls the method of the same
name; a GraphMemError becomes a one-line error.

    graphmem ingest --user U FILE      LoCoMo, LongMemEval or JSONL sessions
    graphmem users [--json]
    graphmem facts --user U [--valid-at T] [--known-at K] [--subject S] [--json]
    graphmem history --user U ENTITY_OR_FACT [--json]
    graphmem search --user U "QUESTION" [--now T] [--limit N] [--json]
    graphmem forget --user U (--text T | --entity E | --fact ID | --session-id S |
                    --between T0..T1 | --all) [--yes] [--dry-run] [--json]
    graphmem rebuild --user U [--json]   re-derive facts from the stored turns (cli_rebuild.py)
    graphmem reembed --user U [--json]   make the stored vectors again with the configured embedder (cli_reembed.py)
    graphmem candidates --user U         the write gate's held-back facts; confirm / reject UUID (cli_gate.py)
    graphmem eval forget                 the forgetting set, offline
    graphmem mcp [--transport http]      an MCP server (graphmem.cli_mcp)
    graphmem serve / graphmem keys ...   the HTTP service and its keys (cli_service.py)

Exit codes: 0 done; 1 a read (users, facts, history, search) found no data
directory (nothing is created); 2 bad input, or a deletion that needs --yes.

Imports are deferred into the commands: `--help`, `users` and `facts` must
not pay for the embedding model (torch) or the search stack.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn, Optional

import typer

from graphmem.cli_gate import register as register_gate
from graphmem.cli_ingest import INGEST_HELP, ingest_file
from graphmem.cli_service import register as register_service
from graphmem.cli_time import parse_between, parse_time
from graphmem.schema.errors import GraphMemError

if TYPE_CHECKING:
    from graphmem.memory import Memory

app = typer.Typer(help="graphmem: temporal knowledge-graph memory for LLM agents.", no_args_is_help=True)

EXIT_NO_DATA = 1
EXIT_BAD_INPUT = 2
TEXT_CONFIRM_TURNS = 5

UserOpt = Annotated[str, typer.Option("--user", "-u", help="user id (graph name)")]
DataDirOpt = Annotated[Optional[Path], typer.Option("--data-dir", help="default: $GRAPHMEM_DATA_DIR or ~/.graphmem")]
JsonOpt = Annotated[bool, typer.Option("--json", help="print JSON instead of a table")]
TIME_HELP = "ISO-8601 (2024-05-01, 2024-05-01T09:30), LongMemEval (2023/05/20 (Sat) 02:21) or LoCoMo (1:56 pm on 8 May, 2023)"


def _mount_evals() -> None:
    from graphmem.evals.cli import eval_app

    app.add_typer(eval_app, name="eval")


def fail(message: str, code: int = EXIT_BAD_INPUT) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code=code)


def missing_data_dir(data_dir: Path | None) -> Path | None:
    """The embedded data dir a read would open, if it does not exist (else None).

    A read must not create it: opening the embedded store would make the
    directory and a server's files, turning a typo into an empty memory.
    """
    from graphmem.config import Settings

    settings = Settings() if data_dir is None else Settings(data_dir=data_dir)
    if settings.falkordb_url:
        return None
    path = Path(settings.data_dir).expanduser()
    return None if path.is_dir() else path


@contextmanager
def opened(data_dir: Path | None, *, read: bool = False, user: str | None = None,
           embedder: object = None) -> Iterator["Memory"]:
    """A Memory on `data_dir`; for a read, exit 1 instead of creating a missing dir
    (a bad `user` id is reported first: it is wrong whatever the dir holds)."""
    try:
        if user is not None:
            from graphmem.schema.models import check_user_id

            check_user_id(user)
        if read and (missing := missing_data_dir(data_dir)) is not None:
            fail(f"no graphmem data at {missing} (nothing was created; `graphmem ingest` makes it)", EXIT_NO_DATA)
        from graphmem.memory import Memory

        with Memory(data_dir=data_dir, embedder=embedder) as mem:
            yield mem
    except GraphMemError as exc:
        fail(str(exc))


def time_option(value: str | None, option: str) -> datetime | None:
    try:
        return None if value is None else parse_time(value, option)
    except GraphMemError as exc:
        fail(str(exc))


@app.command(help=INGEST_HELP)
def ingest(
    file: Annotated[Path, typer.Argument(help="a LoCoMo, LongMemEval or JSONL file (see below)")],
    user: UserOpt,
    data_dir: DataDirOpt = None,
    as_json: JsonOpt = False,
) -> None:
    try:
        summary = ingest_file(file, user, lambda: opened(data_dir), progress=not as_json)
    except GraphMemError as exc:
        fail(str(exc))
    if as_json:
        typer.echo(json.dumps(summary))
        return
    counts = ", ".join(f"{k}={v}" for k, v in summary.items() if k not in ("users", "sessions") and v)
    typer.echo(f"{summary['sessions']} sessions into {len(summary['users'])} user(s): {counts}")
    typer.echo("users: " + " ".join(summary["users"]))


@app.command()
def users(data_dir: DataDirOpt = None, as_json: JsonOpt = False) -> None:
    """The user ids (graphs) in the data dir, one a line."""
    with opened(data_dir, read=True) as mem:
        found = mem.users()
    typer.echo(json.dumps(found) if as_json else "\n".join(found))


def when_text(value: datetime | None) -> str:
    """A date, with the time of day when it is not midnight UTC ('...' when open)."""
    if value is None:
        return "..."
    if (value.hour, value.minute, value.second, value.microsecond) == (0, 0, 0, 0):
        return value.date().isoformat()
    return value.strftime("%Y-%m-%d %H:%M")


def _print_facts(facts, as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps([f.model_dump(mode="json") for f in facts], indent=2))
        return
    for f in facts:
        span = f"{when_text(f.valid_at)} -> {when_text(f.invalid_at)}"
        typer.echo(f"{f.status:10} {span:34} {f.subject} -{f.predicate}-> {f.object}   ({f.fact})")


@app.command()
def facts(
    user: UserOpt,
    valid_at: Annotated[Optional[str], typer.Option(help=f"true at this time; default now. {TIME_HELP}")] = None,
    known_at: Annotated[Optional[str], typer.Option(help="as graphmem knew it then; default now")] = None,
    subject: Annotated[Optional[str], typer.Option(help="only facts about this entity")] = None,
    scope: Annotated[Optional[list[str]], typer.Option(help="only this scope (repeatable); default every scope")] = None,
    data_dir: DataDirOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Facts true at a time as known at a time."""
    valid, known = time_option(valid_at, "--valid-at"), time_option(known_at, "--known-at")
    with opened(data_dir, read=True, user=user) as mem:
        _print_facts(mem.facts(user, valid_at=valid, known_at=known, subject=subject, scopes=scope or None), as_json)


@app.command()
def history(
    entity_or_fact: Annotated[str, typer.Argument(help="an entity name or uuid, or a fact uuid")],
    user: UserOpt,
    data_dir: DataDirOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Every version of an entity's facts, or of one fact's slot."""
    with opened(data_dir, read=True, user=user) as mem:
        _print_facts(mem.history(user, entity_or_fact).versions, as_json)


def query_embedder():
    """MiniLM in numpy for the one query a search embeds: the same vectors as
    sentence-transformers (tests/test_embedder_numpy.py) without importing torch,
    which is most of a cold search. One BLAS thread: a single short query gains
    nothing from two and loses much when the cores are busy."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    from graphmem.embedding.minilm_numpy import NumpyMiniLM

    return NumpyMiniLM()


@app.command()
def search(
    query: Annotated[str, typer.Argument(help="the question")],
    user: UserOpt,
    now: Annotated[Optional[str], typer.Option(help=f"anchor for relative times; default now. {TIME_HELP}")] = None,
    limit: Annotated[int, typer.Option(help="facts and turns to return")] = 10,
    scope: Annotated[Optional[list[str]], typer.Option(help="a scope to read (repeatable); default user")] = None,
    data_dir: DataDirOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """A dated memory packet for QUERY, or an abstention. --json adds the prompt text as "prompt"."""
    anchor = time_option(now, "--now")
    with opened(data_dir, read=True, user=user, embedder=query_embedder()) as mem:
        packet = mem.search(user, query, now=anchor, limit=limit, scopes=scope or ["user"])
        if as_json:
            typer.echo(json.dumps({**packet.model_dump(mode="json"), "prompt": packet.to_prompt()}, indent=2))
        else:
            typer.echo(packet.to_prompt())


def _selector(text, entity, fact, session_id, between, all_) -> dict:
    given = {"text": text, "entity": entity, "fact": fact, "session_id": session_id,
             "between": [t.isoformat() for t in parse_between(between)] if between else None,
             "all": True if all_ else None}
    selector = {k: v for k, v in given.items() if v is not None}
    if len(selector) != 1:
        fail("give exactly one of --text, --entity, --fact, --session-id, --between, --all")
    return selector


def _check_confirmed(mem: "Memory", user: str, selector: dict, yes: bool) -> None:
    """A text selector that would delete more than a handful of turns needs --yes."""
    if yes or "text" not in selector:
        return
    preview = mem.forget(user, selector, dry_run=True)
    if preview.episodes_deleted > TEXT_CONFIRM_TURNS:
        fail(f"--text {selector['text']!r} would remove {preview.episodes_deleted} turns and "
             f"{preview.facts_deleted} facts; check with --dry-run, then add --yes")


@app.command()
def forget(
    user: UserOpt,
    text: Annotated[Optional[str], typer.Option(help="turns and facts containing this text as whole words")] = None,
    entity: Annotated[Optional[str], typer.Option(help="an entity name or uuid and everything about it")] = None,
    fact: Annotated[Optional[str], typer.Option(help="one fact uuid")] = None,
    session_id: Annotated[Optional[str], typer.Option(help="a whole session")] = None,
    between: Annotated[Optional[str], typer.Option(help="turns said in [T0, T1), written T0..T1")] = None,
    all_: Annotated[bool, typer.Option("--all", help="the user's whole memory (needs --yes)")] = False,
    yes: Annotated[bool, typer.Option("--yes", help=f"confirm --all, or --text removing > {TEXT_CONFIRM_TURNS} turns")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="show what would go; change nothing")] = False,
    data_dir: DataDirOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Delete what the selector names and everything that rests on it; then compact."""
    try:
        selector = _selector(text, entity, fact, session_id, between, all_)
    except GraphMemError as exc:
        fail(str(exc))
    if all_ and not yes:
        fail("--all deletes the user's whole memory; add --yes to confirm")
    with opened(data_dir, read=True, user=user) as mem:
        if not dry_run:
            _check_confirmed(mem, user, selector, yes)
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
register_service(app)
from graphmem.cli_rebuild import register as register_rebuild  # noqa: E402
register_rebuild(app)
from graphmem.cli_reembed import register as register_reembed  # noqa: E402
register_reembed(app)
register_gate(app, opened)
from graphmem.cli_mcp import MCP_HELP, mcp  # noqa: E402
app.command(help=MCP_HELP)(mcp)

if __name__ == "__main__":
    app()
