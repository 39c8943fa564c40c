"""Write-behind: a thread that runs a sequence of write queries, in order, while the
caller prepares the next one (embeds its texts, formats its vectors).

Why: the FalkorDB server is another process. A bulk import that embeds a batch,
then waits for the server to write it, then embeds the next, leaves one of two
cores idle at every step; with the writes behind a thread, the server inserts
batch n (its vector-index inserts are most of its time) while Python embeds and
formats batch n+1. The socket wait releases the GIL, so the two overlap.

What stays as it was: the queries run one at a time, in the order given, on the
store's connection pool; the caller holds the user's lock around the whole
`with` block, and leaving the block waits for the last query. A failed query
stops the rest (later ones are dropped, not run) and its `StoreError` is raised
to the caller, at its next `put` or when the block ends. When the caller's own
code raises inside the block, the queries not yet started are dropped and the
caller's error propagates once the running one has finished, so nothing writes
after the lock is released. A Ctrl-C while the caller waits for the writer counts as
such an error.

Example:
    >>> with store.user_lock("alice"), QueryWriter(store, "alice") as writer:
    ...     for query in queries:
    ...         writer.put(query)
"""

from __future__ import annotations

import logging
import queue
import threading

from graphmem.graph.cypher import Query
from graphmem.graph.store import Store

DEPTH = 1
"""Queries prepared ahead of the one running: each can be megabytes of parameters."""

POLL_S = 0.1
"""How often an idle writer looks whether its caller gave up without saying done."""

_DONE = object()

log = logging.getLogger(__name__)


class _Formatted:
    """A parameter already in the text the FalkorDB client sends for it.

    Why: the client writes parameters into a ``CYPHER k=v`` header with
    `falkordb.helpers.stringify_param_value` (any other type goes in as
    ``str(value)``); done in the writer thread, that Python work (about a second
    at 10k facts) held the GIL while the caller formatted the next batch, and the
    server waited for both. Same function, same text, run by the caller.
    """

    __slots__ = ("text",)

    def __init__(self, value: object) -> None:
        from falkordb.helpers import stringify_param_value

        self.text = stringify_param_value(value)

    def __str__(self) -> str:
        return self.text


class QueryWriter:
    """Runs `put` queries on a thread, in order; see the module docstring."""

    def __init__(self, store: Store, user_id: str, depth: int = DEPTH) -> None:
        self._store, self._user_id = store, user_id
        self._queue: queue.Queue = queue.Queue(maxsize=depth)
        self._error: BaseException | None = None
        self._cancelled = False
        self._thread = threading.Thread(target=self._run, daemon=True, name=f"writer {user_id}")

    def __enter__(self) -> "QueryWriter":
        self._thread.start()
        return self

    def put(self, query: Query) -> None:
        """Queue `query` after the ones before it; blocks while `DEPTH` wait.

        Its parameters are put in the client's text form here, in the caller's
        thread (see `_Formatted`).

        :raises StoreError: an earlier query failed (nothing after it ran).
        """
        self._raise_failure()
        self._queue.put(Query(query.cypher, {key: _Formatted(value) for key, value in query.params.items()}))

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is not None:
            self._cancelled = True
        try:
            self._queue.put(_DONE)
            self._thread.join()
        except BaseException:  # Ctrl-C while waiting: stop, but never write behind the lock
            self._cancelled = True
            self._wait_for_thread()
            raise
        if exc_type is None:
            self._raise_failure()
        elif self._error is not None:
            log.warning("write behind for %r also failed: %s", self._user_id, self._error)

    def _wait_for_thread(self) -> None:
        """Join through further interrupts: the query running finishes, no other starts."""
        while self._thread.is_alive():
            try:
                self._thread.join()
            except KeyboardInterrupt:
                continue

    def _raise_failure(self) -> None:
        if self._error is not None:
            raise self._error

    def _run(self) -> None:
        while True:
            try:
                query = self._queue.get(timeout=POLL_S)
            except queue.Empty:
                if self._cancelled:  # the caller was interrupted before it could say done
                    return
                continue
            if query is _DONE:
                return
            if self._error is not None or self._cancelled:
                continue  # drain, so a waiting `put` never blocks for ever
            try:
                self._store.run(self._user_id, query)
            except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
                self._error = exc
