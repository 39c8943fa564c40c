"""`graphmem reembed --user U`: make a user's stored vectors again with the configured
embedder (`Memory.reembed`), after a change of model or backend.

A graph refuses vectors of a model other than the one it was built with; this is how
it moves to another one. It prints what was replaced.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

DataDirOpt = Annotated[Optional[Path], typer.Option("--data-dir", help="default: $GRAPHMEM_DATA_DIR or ~/.graphmem")]
JsonOpt = Annotated[bool, typer.Option("--json", help="print JSON")]


def report_lines(user: str, result) -> list[str]:
    """A `ReembedResult` as the lines the command prints; pure."""
    before = f"{result.previous_embedder or 'an unnamed model'} ({result.previous_dimension} dimensions)"
    return [
        f"re-embedded {user} with {result.embedder} ({result.dimension} dimensions); before: {before}",
        f"vectors: {result.turns} turns, {result.entities} entities, {result.facts} facts, "
        f"{result.candidates} held-back candidates",
    ]


def reembed(
    user: Annotated[str, typer.Option("--user", "-u", help="the user id whose vectors to make again")],
    data_dir: DataDirOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Make the user's stored vectors again with the configured embedder (turns and facts stay)."""
    from graphmem.cli import opened

    with opened(data_dir, read=True, user=user) as mem:  # a GraphMemError exits 2 with its message
        result = mem.reembed(user)
    if as_json:
        typer.echo(result.model_dump_json(indent=2))
        return
    for line in report_lines(user, result):
        typer.echo(line)


def register(app: typer.Typer) -> None:
    app.command()(reembed)
