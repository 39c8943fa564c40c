"""`graphmem serve` and `graphmem keys ...`: run the HTTP service, manage its keys.

    graphmem serve [--host 127.0.0.1] [--port 8765] [--workers N] [--data-dir D]
    graphmem keys create (--users alice,bob | --admin) [--scopes user,project:x] [--data-dir D]
    graphmem keys list [--json] [--data-dir D]
    graphmem keys revoke KEY_ID [--data-dir D]

Keys live in ``<data dir>/api_keys.json`` (hashed) and ``GRAPHMEM_API_KEYS``
(`graphmem.service.keys`). Imports of FastAPI and uvicorn are deferred into the
commands, so `graphmem --help` stays fast.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Annotated, Optional

import typer

from graphmem.schema.errors import GraphMemError

keys_app = typer.Typer(help="API keys for `graphmem serve` (stored hashed under the data dir).",
                       no_args_is_help=True)
DataDirOpt = Annotated[Optional[Path], typer.Option("--data-dir", help="default: $GRAPHMEM_DATA_DIR or ~/.graphmem")]
LOOPBACK = {"127.0.0.1", "::1", "localhost"}


def _fail(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code=2)


def _settings(data_dir: Path | None):
    from graphmem.config import Settings

    return Settings() if data_dir is None else Settings(data_dir=data_dir)


def _key_store(data_dir: Path | None):
    from graphmem.service.keys import KeyStore

    try:
        return KeyStore.from_settings(_settings(data_dir))
    except GraphMemError as exc:
        _fail(str(exc))


def _items(value: str | None) -> list[str]:
    return [v.strip() for v in (value or "").split(",") if v.strip()]


@keys_app.command("create")
def keys_create(
    users: Annotated[Optional[str], typer.Option(help="comma-separated user ids the key may act for")] = None,
    admin: Annotated[bool, typer.Option("--admin", help="a key for every user")] = False,
    scopes: Annotated[Optional[str], typer.Option(help=(
        "comma-separated memory scopes the key may read and write (user, project:<id>, agent:<id>); "
        "default every scope"))] = None,
    data_dir: DataDirOpt = None,
) -> None:
    """Make a key; the key itself is printed alone on the last line, once."""
    if admin == (users is not None):
        _fail("give exactly one of --users alice,bob or --admin")
    scope = None if admin else _items(users)
    try:
        key, token = _key_store(data_dir).create(scope, None if scopes is None else _items(scopes))
    except GraphMemError as exc:
        _fail(str(exc))
    covers = "all users (admin)" if key.admin else ", ".join(key.users or ())
    within = "every scope" if key.scopes is None else "scopes " + ", ".join(key.scopes)
    typer.echo(f"created key {key.id} for {covers}, {within}; it is shown once, store it now:")
    typer.echo(token)


@keys_app.command("list")
def keys_list(as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
              data_dir: DataDirOpt = None) -> None:
    """The keys (ids, users, creation time, scopes); never the keys themselves."""
    try:
        keys = _key_store(data_dir).list()
    except GraphMemError as exc:
        _fail(str(exc))
    if as_json:
        typer.echo(json.dumps([k.model_dump(mode="json") for k in keys], indent=2))
        return
    for k in keys:
        covers = "*" if k.admin else ",".join(k.users or ())
        within = "" if k.scopes is None else "  scopes " + ",".join(k.scopes)
        typer.echo(f"{k.id:14} {k.source:4} {k.created_at:%Y-%m-%d %H:%M} {covers}{within}")


@keys_app.command("revoke")
def keys_revoke(key_id: Annotated[str, typer.Argument(help="the id `graphmem keys list` shows")],
                data_dir: DataDirOpt = None) -> None:
    """Delete a key; requests carrying it get 401 from the next one on, in every worker."""
    try:
        _key_store(data_dir).revoke(key_id)
    except GraphMemError as exc:
        _fail(str(exc))
    typer.echo(f"revoked {key_id}")


def serve(
    host: Annotated[str, typer.Option(help="interface to bind; loopback by default")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="TCP port")] = 8765,
    workers: Annotated[int, typer.Option(min=1, help="uvicorn worker processes sharing the data dir or server")] = 1,
    data_dir: DataDirOpt = None,
    log_level: Annotated[str, typer.Option(help="uvicorn log level")] = "info",
) -> None:
    """Serve the HTTP API (/v1, /docs, /browse); requests carry Authorization: Bearer <key>."""
    import uvicorn

    if data_dir is not None:
        os.environ["GRAPHMEM_DATA_DIR"] = str(data_dir)  # the workers read their Settings from the environment
    keys = _key_store(data_dir)
    try:
        known = keys.list()
    except GraphMemError as exc:
        _fail(str(exc))
    if not known:
        typer.echo("warning: no API keys yet, every request will get 401; run `graphmem keys create`", err=True)
    if host not in LOOPBACK:
        typer.echo(f"warning: binding {host}: the API is reachable from other machines", err=True)
    uvicorn.run("graphmem.service.app:create_app", factory=True, host=host, port=port, workers=workers,
                log_level=log_level)


def register(app: typer.Typer) -> None:
    """Add `serve` and the `keys` group to the main CLI."""
    app.command()(serve)
    app.add_typer(keys_app, name="keys")
