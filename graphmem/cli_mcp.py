"""`graphmem mcp`: serve the memory to an agent over MCP (`graphmem.service.mcp`).

Registered by `graphmem.cli`; the `mcp` SDK and the store are imported inside the
command, so `graphmem --help` does not pay for them.
"""

from __future__ import annotations

import os
import signal
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer

from graphmem.schema.errors import GraphMemError

KEY_ENV = "GRAPHMEM_MCP_KEY"
DEFAULT_PORT = 8766


class Transport(str, Enum):
    stdio = "stdio"
    http = "http"


MCP_HELP = f"""Serve the memory to an agent over MCP (stdio or streamable HTTP).

Tools: add_memory, search_memory, list_facts, fact_history, forget (a dry run
unless confirm is true) and list_users.

\b
stdio (default): the agent starts this command itself. The users it may touch:
  --users alice,bob, else the key in ${KEY_ENV} (its users), else every user.
http: streamable HTTP at http://HOST:PORT/mcp; every request carries
  Authorization: Bearer <key> (`graphmem keys create`), and a key reaches only
  the users it covers, as with `graphmem serve`.
"""


def _fail(message: str) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code=2)


def mcp(
    transport: Annotated[Transport, typer.Option(help="stdio, or streamable HTTP")] = Transport.stdio,
    host: Annotated[str, typer.Option(help="http: the address to bind")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="http: the port")] = DEFAULT_PORT,
    users: Annotated[Optional[str], typer.Option(help="stdio: the only user ids the tools may touch, comma-separated")] = None,
    data_dir: Annotated[Optional[Path], typer.Option("--data-dir", help="default: $GRAPHMEM_DATA_DIR or ~/.graphmem")] = None,
) -> None:
    if transport is Transport.http and users is not None:
        raise _fail("--users is for stdio; over HTTP each request's key decides")
    try:
        scope = _stdio_scope(users, data_dir) if transport is Transport.stdio else None
        from graphmem.memory import Memory

        memory = Memory(data_dir=data_dir)
    except GraphMemError as exc:
        raise _fail(str(exc)) from exc
    # an agent stops a stdio server by closing its stdin, then SIGTERM: close the
    # store on either path, or the embedded redis-server would outlive us
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    code = 0
    try:
        if transport is Transport.http:
            from graphmem.service.mcp_http import serve_http

            serve_http(memory, host=host, port=port)
        else:
            from graphmem.service.mcp import build_server

            build_server(memory, lambda _ctx: scope).run("stdio")
    except KeyboardInterrupt:
        pass
    except GraphMemError as exc:
        typer.echo(f"error: {exc}", err=True)
        code = 2
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second signal must not cut the close short
        memory.close()
    _exit_now(code)


def _exit_now(code: int) -> None:
    """Leave without the interpreter's teardown.

    The MCP client gives a server 2 s after closing its stdin before it signals
    the process group. The store is closed by now, but finalising the modules of
    a process that loaded torch took 2-7 s on a loaded 2-core machine, so the
    clean path would often end in SIGTERM. Nothing left needs finalising.
    """
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def _stdio_scope(users: str | None, data_dir: Path | None):
    """The users a stdio server may touch: --users, else GRAPHMEM_MCP_KEY's key, else all."""
    from graphmem.service.mcp import FixedScope

    if users is not None:
        from graphmem.schema.models import check_user_id

        chosen = frozenset(check_user_id(u.strip()) for u in users.split(",") if u.strip())
        if not chosen:
            raise _fail("--users names no user id")
        return FixedScope(chosen)
    if os.environ.get(KEY_ENV):
        from graphmem.config import Settings
        from graphmem.service.mcp_http import key_scope

        settings = Settings() if data_dir is None else Settings(data_dir=data_dir)
        return key_scope(settings, os.environ[KEY_ENV])
    return FixedScope(None)
