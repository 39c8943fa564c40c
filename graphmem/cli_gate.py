"""`graphmem candidates / confirm / reject`: the write gate's verbs (`Memory.candidates`,
`Memory.confirm`, `Memory.reject`).

    graphmem candidates --user U [--json]     facts held back, with score and reason
    graphmem confirm --user U UUID [--json]   the candidate becomes an active fact
    graphmem reject --user U UUID [--json]    the candidate is dropped

A bad id or an unknown candidate exits 2; `candidates` on a missing data dir exits 1.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Callable, Optional

import typer

UserOpt = Annotated[str, typer.Option("--user", "-u", help="user id (graph name)")]
UuidArg = Annotated[str, typer.Argument(help="the candidate's uuid (from `graphmem candidates`)")]
DataDirOpt = Annotated[Optional[Path], typer.Option("--data-dir", help="default: $GRAPHMEM_DATA_DIR or ~/.graphmem")]
JsonOpt = Annotated[bool, typer.Option("--json", help="print JSON instead of text")]


def register(app: typer.Typer, opened: Callable) -> None:
    """Add the three gate commands; `opened` is `graphmem.cli.opened`."""

    @app.command()
    def candidates(user: UserOpt, data_dir: DataDirOpt = None, as_json: JsonOpt = False) -> None:
        """Facts the write gate held back as candidates (out of search until confirmed)."""
        with opened(data_dir, read=True, user=user) as mem:
            found = mem.candidates(user)
        if as_json:
            typer.echo(json.dumps([c.model_dump(mode="json") for c in found], indent=2))
            return
        for c in found:
            typer.echo(f"{c.uuid}  {c.write_score:.2f}  {c.subject} -{c.predicate}-> {c.object}   ({c.fact})")
            typer.echo(f"    {c.reason}")

    def _decide(verb: str, user: str, uuid: str, data_dir: Path | None, as_json: bool) -> None:
        with opened(data_dir, read=True, user=user) as mem:
            result = getattr(mem, verb)(user, uuid)
        if as_json:
            typer.echo(result.model_dump_json(indent=2))
        else:
            tail = f" as fact {result.fact_uuid}" if result.fact_uuid else ""
            typer.echo(f"{result.decision} {result.candidate}: {result.action}{tail}")

    @app.command()
    def confirm(uuid: UuidArg, user: UserOpt, data_dir: DataDirOpt = None, as_json: JsonOpt = False) -> None:
        """Make a candidate an active fact (it supersedes what it contradicts only now)."""
        _decide("confirm", user, uuid, data_dir, as_json)

    @app.command()
    def reject(uuid: UuidArg, user: UserOpt, data_dir: DataDirOpt = None, as_json: JsonOpt = False) -> None:
        """Drop a candidate; a rebuild does not bring it back."""
        _decide("reject", user, uuid, data_dir, as_json)
