"""`graphmem reembed --user U`: make a user's stored vectors again with the configured
embedder (`Memory.reembed`), after a change of model or backend.

A graph refuses vectors of a model other than the one it was built with; this is how
it moves to another one. It prints what was replaced.
"""

from __future__ import annotations

from typing import Annotated

import typer

from graphmem.cli_rebuild import DataDirOpt, JsonOpt, run_on_user


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
    run_on_user(user, data_dir, as_json, lambda mem: mem.reembed(user), report_lines)


def register(app: typer.Typer) -> None:
    app.command()(reembed)
