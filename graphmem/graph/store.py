"""The FalkorDB store: one connection, one graph per user, queries as parameters.

Embedded (falkordblite, the default) or a FalkorDB server (``falkordb_url``);
the Cypher is the same. This is the only module that talks to FalkorDB, and
the one place where redis/FalkorDB errors become `StoreError`.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import redis
from pydantic import BaseModel, ConfigDict

from graphmem.graph.embedded import QUERY_TIMEOUT_S, client_options, close_embedded, open_embedded, server_pid
from graphmem.schema.errors import ConfigError, InvalidInput, StoreError
from graphmem.graph.locking import UserLock
from graphmem.graph.cypher import Query, add_graph_backend, create_graph_meta, graph_meta
from graphmem.schema import time as t

INDEX_WAIT_SECONDS = 300.0
INDEX_STATUS = "CALL db.indexes() YIELD label, status RETURN label, status"
GRAPH_KEY_TYPE = "graphdata"  # what redis's TYPE says of a FalkorDB graph's key
from graphmem.schema.indexes import ACCESS_INDEX, all_indexes
from graphmem.schema.models import check_user_id

log = logging.getLogger(__name__)


class GraphEmbedding(BaseModel):
    """What a user's stored vectors were made with, as its GraphmemMeta node records it.

    `backends` lists every embedder backend that has written to the graph, in order
    ("torch", "onnx-int8", ...): the same model on two backends gives comparable but not
    equal vectors, so a graph written by both says so. Empty for graphs created before
    2026-12-05, which did not record it.
    """

    model_config = ConfigDict(frozen=True)

    dimension: int
    embedder: str | None = None
    backends: tuple[str, ...] = ()
    reembedding: str | None = None  # the model a re-embedding that has not finished was moving to


def is_missing_graph(exc: Exception) -> bool:
    """FalkorDB's answer to a read-only query on a graph that does not exist."""
    return "empty key" in str(exc)


@contextmanager
def translate_store_errors(action: str) -> Iterator[None]:
    """Backend errors -> StoreError, with the operation named."""
    try:
        yield
    except redis.exceptions.RedisError as exc:
        raise StoreError(f"{action} failed: {exc}") from exc
    except OSError as exc:
        raise StoreError(f"{action} failed: {exc}") from exc


def _connect_server(url: str, timeout_s: float = QUERY_TIMEOUT_S):
    from falkordb import FalkorDB

    if not url.startswith(("redis://", "rediss://", "unix://")):
        raise ConfigError(f"falkordb_url {url!r} must start with redis://, rediss:// or unix://")
    with translate_store_errors(f"connecting to FalkorDB at {url}"):
        db = FalkorDB.from_url(url, **client_options(timeout_s))
        db.connection.ping()
    return db


class Store:
    """A FalkorDB database holding one graph per user.

    Example:
        >>> store = Store.open(data_dir=Path("/tmp/gm"))
        >>> store.run("alice", Query("RETURN 1 AS one", {}))
        [{'one': 1}]
    """

    def __init__(self, db, *, embedded: bool, url: str | None = None) -> None:
        self._db = db
        self.embedded = embedded
        self._url = url
        self._indexed: set[str] = set()
        self._locks: dict[str, UserLock] = {}
        self._guard = threading.Lock()

    @classmethod
    def open(cls, *, data_dir: Path | None = None, falkordb_url: str | None = None,
             timeout_s: float = QUERY_TIMEOUT_S) -> "Store":
        """`timeout_s`: how long one query may take before it fails with `StoreError`
        (never resent: see `graphmem.graph.embedded.client_options`)."""
        if falkordb_url:
            return cls(_connect_server(falkordb_url, timeout_s), embedded=False, url=falkordb_url)
        if data_dir is None:
            raise ConfigError("an embedded store needs a data directory")
        store = cls(open_embedded(Path(data_dir).expanduser(), timeout_s=timeout_s), embedded=True)
        store.execute("GRAPH.CONFIG", "SET", "MAX_INFO_QUERIES", "0")  # see `no_query_telemetry`
        return store

    @property
    def url(self) -> str:
        """Where other clients (Graphiti, redis-cli) reach this database."""
        if self.embedded:
            return "unix://" + self._db.client.socket_file
        return self._url or ""

    @property
    def server_pid(self) -> int | None:
        return server_pid(self._db) if self.embedded else None

    def run(self, user_id: str, query: Query, *, read_only: bool = False, missing_ok: bool = False
            ) -> list[dict[str, Any]]:
        """Run one query on the user's graph; rows come back as dicts.

        `missing_ok` (read-only queries): a graph that does not exist, or that another client
        dropped a moment ago, reads as no rows instead of a `StoreError`. Not the default: a
        writer's read under the user's lock that finds the graph gone has lost its lock, and
        must stop rather than write a bare graph anew.
        """
        graph = self._db.select_graph(check_user_id(user_id))
        if user_id not in self._indexed:
            self._await_indexes(user_id, graph)
        with translate_store_errors(f"query on graph {user_id!r}"):
            if read_only:
                try:
                    result = graph.ro_query(query.cypher, query.params)
                except redis.exceptions.ResponseError as exc:
                    if missing_ok and is_missing_graph(exc):
                        return []
                    raise
            else:
                result = graph.query(query.cypher, query.params)
        names = [column[1] if isinstance(column, (list, tuple)) else column for column in result.header]
        return [dict(zip(names, row)) for row in result.result_set]

    def _await_indexes(self, user_id: str, graph) -> None:
        """Wait (once per graph and process) until the graph's indexes are built.

        A server that loads a graph from disk rebuilds its indexes in the
        background; until then a vector or full-text query fails with "Invalid
        arguments for procedure" (seen after ~10 s on a 2,234-turn graph), so
        the first query of a process waits here instead. Bounded by
        `INDEX_WAIT_SECONDS`, then it goes on and lets the query report. A graph
        stored before facts had access records gets their index here.
        """
        deadline = time.monotonic() + INDEX_WAIT_SECONDS
        with translate_store_errors(f"listing the indexes of {user_id!r}"):
            if user_id not in self._db.list_graphs():
                return
            rows: list = []
            while time.monotonic() < deadline:
                try:
                    rows = graph.ro_query(INDEX_STATUS).result_set
                except redis.exceptions.ResponseError as exc:
                    if is_missing_graph(exc):  # dropped by another client since it was listed
                        return
                    raise
                if not any("UNDER CONSTRUCTION" in str(status) for _, status in rows):
                    break
                time.sleep(0.1)
            if "FactAccess" not in {label for label, _ in rows}:  # a graph stored before access records
                self._indexed.add(user_id)
                self._create_index(user_id, ACCESS_INDEX)
        self._indexed.add(user_id)

    def users(self) -> list[str]:
        with translate_store_errors("listing graphs"):
            return sorted(self._db.list_graphs())

    def has_graph(self, user_id: str) -> bool:
        """Asked of the server each time (one TYPE), never remembered: another process or
        service worker sharing this FalkorDB may have dropped the graph since. TYPE, not
        EXISTS: on a shared server another key may carry a user's name."""
        with translate_store_errors(f"looking up graph {check_user_id(user_id)!r}"):
            kind = self._db.connection.type(user_id)
        return (kind.decode() if isinstance(kind, bytes) else kind) == GRAPH_KEY_TYPE

    def user_lock(self, user_id: str) -> UserLock:
        """The lock that serializes writes to one user across threads, processes
        and service workers sharing this FalkorDB (see `graphmem.graph.locking`)."""
        with self._guard:
            if user_id not in self._locks:
                self._locks[user_id] = UserLock(self._db.connection, check_user_id(user_id))
            return self._locks[user_id]

    @contextmanager
    def locked_graph(self, user_id: str) -> Iterator[bool]:
        """The user's lock for a verb on an existing graph, and whether the graph exists once it
        is held. An unknown user is told without taking the lock; a graph another client dropped
        while this one waited reads False too, so the verb ends as for an unknown user instead of
        its writes making the graph anew."""
        if not self.has_graph(user_id):
            yield False
            return
        with self.user_lock(user_id):
            yield self.has_graph(user_id)

    def ensure_graph(self, user_id: str, *, dimension: int, embedder: str, backend: str | None = None) -> int:
        """Create the user's graph with its indexes once; return its embedding size.

        A graph records the embedder it was built with (model name and dimension) and
        every backend that wrote to it. Writing with another model is refused rather
        than mixing vectors that cannot be compared, even when the dimension matches;
        writing with the same model on a new backend is allowed, recorded, and logged.

        The record is read each call (one query), not kept: when another process dropped
        the graph, a kept record made this one write into a bare graph, without its
        indexes or record. Writers call this again under the user's lock, where no
        drop can come between the check and the write.
        """
        check_user_id(user_id)
        known = self.stored_embedding(user_id)
        if known is not None and (backend is None or backend in known.backends):
            return self._check_embedding(user_id, known, dimension, embedder).dimension
        with self.user_lock(user_id):
            known = self.stored_embedding(user_id)
            if known is None:
                for statement in all_indexes(dimension):
                    self._create_index(user_id, statement)
                self.run(user_id, create_graph_meta(dimension, embedder, t.now_utc(), backend))
                known = GraphEmbedding(dimension=dimension, embedder=embedder, backends=(backend,) if backend else ())
            else:
                self._check_embedding(user_id, known, dimension, embedder)
                if backend and backend not in known.backends:
                    self.run(user_id, add_graph_backend(backend))
                    if known.backends:
                        log.warning("graph %r was written with the %s backend(s) of %s; %s vectors are now added beside them",
                                    user_id, ", ".join(known.backends), embedder, backend)
                    known = known.model_copy(update={"backends": (*known.backends, backend)})
        return known.dimension

    def check_embedding(self, user_id: str, *, dimension: int, embedder: str) -> None:
        """Refuse to compare an embedder's vectors with a graph another embedder built
        (reads call this; an unknown user passes, having nothing to compare)."""
        known = self.stored_embedding(user_id)
        if known is not None:
            self._check_embedding(user_id, known, dimension, embedder)

    def stored_embedding(self, user_id: str) -> GraphEmbedding | None:
        """What the user's GraphmemMeta node says now (read, not cached); None without a graph."""
        rows = self.run(user_id, graph_meta(), read_only=True, missing_ok=True) if self.has_graph(user_id) else []
        if not rows:
            return None
        row = rows[0]
        return GraphEmbedding(dimension=int(row["embedding_dim"]), embedder=row["embedder"],
                              backends=tuple(row["backends"] or ()), reembedding=row.get("reembedding"))

    @staticmethod
    def _check_embedding(user_id: str, known: GraphEmbedding, dimension: int, embedder: str) -> GraphEmbedding:
        if known.reembedding:
            raise InvalidInput(
                f"graph {user_id!r} was being re-embedded with {known.reembedding!r} and that stopped half way, so it "
                f"holds vectors of two models: run `graphmem reembed --user {user_id}` (Memory.reembed) again"
            )
        if known.dimension != dimension:
            raise InvalidInput(
                f"graph {user_id!r} holds {known.dimension}-dimensional embeddings of {known.embedder or 'an unnamed model'!r}; "
                f"this embedder ({embedder!r}) makes {dimension}: give Memory(embedder=...) one that makes "
                f"{known.embedder or 'those'} vectors"
            )
        if known.embedder and known.embedder != embedder:
            raise InvalidInput(
                f"graph {user_id!r} holds vectors of the embedder {known.embedder!r}; {embedder!r} vectors cannot be "
                f"compared with them: give Memory(embedder=...) one that makes {known.embedder!r} vectors"
            )
        return known

    def _create_index(self, user_id: str, statement: str) -> None:
        try:
            self.run(user_id, Query(statement, {}))
        except StoreError as exc:
            if "already indexed" not in str(exc).lower():
                raise

    def drop_if_empty(self, user_id: str) -> bool:
        """Delete the user's graph if it holds no node at all; True when it did.

        Why: a write query makes its graph when the key is missing (a read-only one does not),
        and no check before it can rule out another client's drop in between: redis scripts
        may not call GRAPH.QUERY. So a write that raced a drop leaves an empty graph under the
        user's name, listed by `users`, the erasure undone in name. Decided under the user's
        lock, where no writer is half way through making a graph; a graph with any node (its
        record, say) is another client's new memory and stays.
        """
        any_node = Query("MATCH (n) RETURN 1 AS one LIMIT 1", {})
        if self.run(user_id, any_node, read_only=True, missing_ok=True):
            return False  # the common case (a rebuild or forget took the facts): no wait for its lock
        with self.locked_graph(user_id) as exists:
            if not exists or self.run(user_id, any_node, read_only=True):
                return False
            with translate_store_errors(f"deleting empty graph {user_id!r}"):
                self._db.select_graph(user_id).delete()
            self._indexed.discard(user_id)
        self.clear_telemetry(user_id)
        return True

    def drop(self, user_id: str) -> bool:
        """Delete a user's whole graph; True when there was one."""
        check_user_id(user_id)
        self._indexed.discard(user_id)
        if user_id not in self.users():
            return False
        with translate_store_errors(f"deleting graph {user_id!r}"):
            self._db.select_graph(user_id).delete()
        self.clear_telemetry(user_id)
        return True

    # no_query_telemetry: FalkorDB keeps recent queries with their parameters (user
    # text) in a per-graph stream, flushed a few seconds after each query, so a
    # forget's DEL can be undone by a late flush and the text reach the data
    # files. The embedded server we own records none (MAX_INFO_QUERIES 0).

    def clear_telemetry(self, user_id: str) -> None:
        """Delete FalkorDB's per-graph query telemetry (``telemetry{<graph>}``).

        FalkorDB records some queries, parameters included, in a stream next to
        the graph; after a deletion that stream would still hold the forgotten
        text, on disk too.
        """
        self.execute("DEL", f"telemetry{{{check_user_id(user_id)}}}")

    def execute(self, *command: Any) -> Any:
        """A raw server command (BGREWRITEAOF, SAVE, ...) for maintenance paths."""
        with translate_store_errors(f"server command {command[0]}"):
            return self._db.connection.execute_command(*command)

    def close(self) -> None:
        """Release the connection; an embedded server stops with its last client.

        Closing twice is harmless, and closing never raises: it runs from
        ``__exit__`` and at interpreter exit.
        """
        db, self._db = self._db, None
        if db is None:
            return
        if self.embedded:
            close_embedded(db)
            return
        close = getattr(db, "close", None)
        if close is not None:
            try:
                close()
            except Exception:  # noqa: BLE001 - closing must not raise
                pass
