"""`graphmem rebuild --user U`: derive a user's facts, entities, mentions and summaries
again from the stored turns with the current extractor (`Memory.rebuild`).

The turns are the source of truth and are not touched; run it after the rules
or the LLM prompt changed. It prints what was re-derived.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Optional

import typer

DataDirOpt = Annotated[Optional[Path], typer.Option("--data-dir", help="default: $GRAPHMEM_DATA_DIR or ~/.graphmem")]
JsonOpt = Annotated[bool, typer.Option("--json", help="print JSON")]


def report_lines(user: str, result) -> list[str]:
    """A `RebuildResult` as the lines the command prints; pure."""
    lines = [
        f"rebuilt {user}: {result.episodes} turns in {result.sessions} sessions re-extracted",
        f"facts: {result.facts_dropped} dropped, {result.facts_added} derived, {result.facts_merged} merged "
        "into a derived one",
        f"llm: {result.llm_calls} calls, {result.llm_cache_hits} answered from the cache",
    ]
    lines += [f"error: {e}" for e in result.errors]
    return lines


def rebuild(
    user: Annotated[str, typer.Option("--user", "-u", help="the user id whose memory to rebuild")],
    data_dir: DataDirOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Re-derive the user's facts, entities and summaries from the stored turns (the turns stay)."""
    run_on_user(user, data_dir, as_json, lambda mem: mem.rebuild(user), report_lines)


def run_on_user(user: str, data_dir: Path | None, as_json: bool, verb: Callable, lines: Callable) -> None:
    """Open the memory, run one maintenance `verb` on it and print its result: JSON, or `lines`
    (rebuild, reembed)."""
    from graphmem.cli import opened

    with opened(data_dir, read=True, user=user) as mem:  # a GraphMemError exits 2 with its message
        result = verb(mem)
    if as_json:
        typer.echo(result.model_dump_json(indent=2))
        return
    for line in lines(user, result):
        typer.echo(line)


def register(app: typer.Typer) -> None:
    app.command()(rebuild)
