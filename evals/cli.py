"""`graphmem eval ...`: evaluations of graphmem itself, offline (mounted by graphmem.cli).

    graphmem eval forget [--set PATH] [--data-dir DIR] [--baseline] [--json]

Exit codes: 0 all passed, 1 something failed, 2 the eval could not run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from graphmem.errors import GraphMemError

eval_app = typer.Typer(help="Evaluate graphmem itself (offline, on a temporary data dir).", no_args_is_help=True)


@eval_app.callback()
def _evals() -> None:
    """Evaluate graphmem itself (offline, on a temporary data dir)."""


@eval_app.command("forget")
def forget(
    set_path: Annotated[
        Optional[Path],
        typer.Option("--set", exists=True, dir_okay=False, help="a forgetting set (JSON); default: the packaged one"),
    ] = None,
    data_dir: Annotated[
        Optional[Path], typer.Option("--data-dir", help="where to write; default: a temporary directory")
    ] = None,
    baseline: Annotated[
        bool, typer.Option("--baseline", help="check the set instead: forget nothing, every string must be found")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON instead of a table")] = False,
) -> None:
    """Write each item, forget with its selector, ask: forgotten text must be gone, kept text must stay."""
    from graphmem.evals.forgetting import print_results, run

    try:
        results = run(set_path, data_dir, baseline=baseline)
    except (GraphMemError, ValueError) as exc:  # ValueError: a malformed set (JSON or schema)
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(code=2) from exc
    if as_json:
        typer.echo(results.model_dump_json(indent=2))
    else:
        print_results(results)
    raise typer.Exit(code=0 if results.ok else 1)
