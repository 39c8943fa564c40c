"""Per-user write locks that hold across threads, processes and service workers.

A write reads a fact slot, decides (merge, supersede, place on the timeline) and
writes; two writers of one user interleaving those steps leave two current
homes. A `threading.RLock` only serializes the threads of one process, so the
lock also lives in the store itself: a redis key ``graphmem:lock:<user>`` set
with ``SET NX PX`` and released by a token-checked Lua script (redis-py's
`redis.lock.Lock`), on the same redis-server that holds the graphs. Embedded
clients of one data dir share that server, and so do service workers pointed at
one ``GRAPHMEM_FALKORDB_URL``, so one mechanism covers both.

The key has a time to live, renewed every `RENEW_EVERY` seconds while it is
held, so a writer that dies (``kill -9``) blocks the others for at most
`LOCK_TTL` seconds.

Why the ttl is long and the renewal frequent: the key's expiry runs on the
server's wall clock, and a stalled server runs no command, renewals included,
while that clock goes on. Stalls are ordinary: a FalkorDB write holds the
server's global lock while it commits (redis's latency monitor, event
``module-acquire-GIL``: up to 3.2 s while importing 2,000 facts at load 5 on 2
cores), and an ``appendfsync always`` fsync under I/O load or a descheduled
server adds to it. A stall longer than the ttl left since the
last renewal loses the lock, and the next writer queued behind the stall
enters. No renewal can help during a stall; only the margin, ttl minus the
renewal interval, does. It was 20 s (30 s ttl renewed every 10 s); a whole
``make bench`` lost ``graphmem:lock:bench_forget_4`` at the end of an import,
with the signature a stalled server gives (a failed release and no renewal
error: the renewal failed as the release began). It is now 119 s.

A long ttl would make a crash expensive (waiters wait for a dead holder's key
to expire), so the token names its holder: host, boot time, pid and the
process's start time, then a random part. A waiter that finds the key held by
a process of its own machine that no longer runs (the pid is gone, or reused
by a process started at another time) deletes the key, checking the token in
the same script, and takes the lock at once (the token also names the pid
namespace, so a process in another container is never judged by our pids).
Embedded clients always share a machine, so after a ``kill -9`` the next
writer waits a poll, not the ttl. A holder on another machine (a shared
``GRAPHMEM_FALKORDB_URL``) or a live but hung one is waited for: its key
expires after `LOCK_TTL`.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import uuid
from functools import lru_cache

import psutil
import redis
from redis.exceptions import LockNotOwnedError
from redis.lock import Lock

from graphmem.schema.errors import StoreError

LOCK_TTL = 120.0
RENEW_EVERY = 1.0
LOCK_WAIT = 600.0
POLL = 0.01
CHECK_HOLDER_EVERY = 0.2  # seconds between looks at who holds the key, while waiting

# delete the key only if it still holds the token the waiter judged dead
_DELETE_IF = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0"

log = logging.getLogger(__name__)


def lock_key(user_id: str) -> str:
    return f"graphmem:lock:{user_id}"


@lru_cache(maxsize=1)
def _machine() -> str:
    """Host, boot and pid namespace: a pid names a process only within one namespace
    (two containers may share a host name and a kernel)."""
    try:
        space = os.readlink("/proc/self/ns/pid")
    except OSError:
        space = "-"
    return f"{socket.gethostname()}|{psutil.boot_time():.0f}|{space}"


def _process(pid: int) -> str:
    return f"{pid}|{psutil.Process(pid).create_time():.2f}"


def holder_token() -> str:
    """A token naming this process (machine, boot, pid namespace, pid, start time), unique per take."""
    return f"{_machine()}|{_process(os.getpid())}|{uuid.uuid4().hex}"


def holder_is_dead(token: str) -> bool:
    """Whether `token` names a process of this machine that no longer runs. Anything
    else (another machine, another boot, a token of another form, a live process)
    is not known dead."""
    parts = token.split("|")
    if len(parts) != 6 or "|".join(parts[:3]) != _machine() or not parts[3].isdigit():
        return False
    try:
        return _process(int(parts[3])) != "|".join(parts[3:5])
    except psutil.NoSuchProcess:
        return True
    except psutil.Error:
        return False


class UserLock:
    """Held by one thread of one client at a time; reentrant for that thread.

    The in-process `RLock` is taken first (threads queue on it, not on redis);
    the redis lock is taken when the outermost holder enters and released when
    it leaves.

    Example:
        >>> with store.user_lock("alice"):
        ...     ...  # read the slot, decide, write
    """

    def __init__(self, client: redis.Redis, user_id: str, *, ttl: float = LOCK_TTL, wait: float = LOCK_WAIT) -> None:
        self._local = threading.RLock()
        self._depth = 0
        self._ttl, self._wait, self._client = ttl, wait, client
        self._renewed = 0.0  # monotonic time the key's expiry was last set, for the report of a loss
        self._shared = Lock(client, lock_key(user_id), timeout=ttl, sleep=POLL, thread_local=False)
        self._stop: threading.Event | None = None

    def __enter__(self) -> "UserLock":
        self._local.acquire()
        try:
            if self._depth == 0:
                self._acquire_shared()
        except BaseException:
            self._local.release()
            raise
        self._depth += 1
        return self

    def __exit__(self, *_: object) -> None:
        self._depth -= 1
        try:
            if self._depth == 0:
                self._release_shared()
        finally:
            self._local.release()

    def _acquire_shared(self) -> None:
        deadline = time.monotonic() + self._wait
        next_look = time.monotonic() + CHECK_HOLDER_EVERY
        token = holder_token()  # once per take: it reads /proc, and the loop polls every 10 ms
        try:
            while not self._shared.acquire(blocking=False, token=token):
                if time.monotonic() >= deadline:
                    raise StoreError(f"another writer held {self._shared.name!r} for longer than {self._wait} s")
                if time.monotonic() >= next_look:
                    self._take_from_dead_holder()
                    next_look = time.monotonic() + CHECK_HOLDER_EVERY
                time.sleep(POLL)
        except redis.exceptions.RedisError as exc:
            raise StoreError(f"taking the write lock {self._shared.name!r} failed: {exc}") from exc
        self._renewed = time.monotonic()
        self._stop = threading.Event()
        threading.Thread(target=self._renew, args=(self._stop,), daemon=True, name=f"renew {self._shared.name}").start()

    def _take_from_dead_holder(self) -> None:
        held = self._client.get(self._shared.name)
        token = held.decode() if isinstance(held, bytes) else held
        if token and holder_is_dead(token) and self._client.eval(_DELETE_IF, 1, self._shared.name, token):
            log.warning("took %s from a writer that died holding it (%s)", self._shared.name, token)

    def _renew(self, stop: threading.Event) -> None:
        """Push the expiry back every `RENEW_EVERY` s (a third of a shorter ttl) until released."""
        while not stop.wait(min(RENEW_EVERY, self._ttl / 3)):
            sent = time.monotonic()
            try:
                self._shared.reacquire()
                self._renewed = sent
            except redis.exceptions.RedisError as exc:
                if not stop.is_set():  # else released while this woke up: nothing is wrong
                    log.error("could not renew %s, another writer may enter after its ttl: %s", self._shared.name, exc)
                return

    def _release_shared(self) -> None:
        if self._stop is not None:
            self._stop.set()
            self._stop = None
        try:
            self._shared.release()
        except LockNotOwnedError:
            # never a race: the key was ours until this moment, so it expired or
            # was taken while this writer was still inside its critical section
            log.error("lost %s while holding it (last renewed %.1f s before the release, ttl %.0f s): "
                      "another writer may have written this user at the same time",
                      self._shared.name, time.monotonic() - self._renewed, self._ttl)
        except redis.exceptions.RedisError as exc:
            # the server could not be asked: the key expires by its ttl
            log.warning("releasing %s: %s", self._shared.name, exc)
