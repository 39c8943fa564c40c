"""Small pieces every adapter shares: safe memory ids, dated turn lines, timing."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime

import numpy as np

from graphmem.ingest.loaders import Conversation, Session, Turn

_UNSAFE = re.compile(r"[^A-Za-z0-9_]")


def memory_id(conversation_id: str) -> str:
    """A user / group id of letters, digits and '_' only: Graphiti's FalkorDB
    full-text search finds nothing for group ids with '-' (README, known issues)."""
    return _UNSAFE.sub("_", conversation_id)[:128] or "_"


def day(moment: datetime | None) -> str:
    return moment.date().isoformat() if moment else "undated"


def turn_line(turn: Turn, session_time: datetime | None) -> str:
    """One dated turn as a context line: ``[2023-05-08] Caroline: ...``."""
    return f"[{day(session_time)}] {turn.speaker}: {turn.content}"


def sessions_in_time_order(conversation: Conversation) -> list[Session]:
    return sorted(conversation.sessions, key=lambda s: s.session_time)


def turn_index(conversation: Conversation) -> dict[str, tuple[Turn, Session]]:
    """Every turn id -> (turn, its session)."""
    return {t.id: (t, s) for s in conversation.sessions for t in s.turns}


@contextmanager
def stopwatch() -> Iterator[Callable[[], float]]:
    """``with stopwatch() as ms: ...; ms()`` -> elapsed milliseconds."""
    start = time.perf_counter()
    yield lambda: (time.perf_counter() - start) * 1000


def error_text(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:500]


_VECTORS: dict[str, dict[str, np.ndarray]] = {}  # backend -> text -> vector


def embedder_conditions() -> dict[str, str]:
    """The embedder every system of a run shares (`default_embedder`), for the run's conditions:
    figures from the fp32 and the int8 MiniLM differ (docs/benchmark-runs.md, "int8 as the default embedder"),
    so a results file says which one made it."""
    from graphmem.embedding.embedder import default_backend, embedder_for

    backend = default_backend()
    return {"model": embedder_for(backend).name, "backend": backend}


def embed_cached(texts: Sequence[str]) -> np.ndarray:
    """graphmem's MiniLM, remembering every text it embedded in this process: naive RAG
    and Mem0 embed the same "speaker: text" strings, and a run embeds them once. Kept per
    embedder, so a process that changes `GRAPHMEM_EMBEDDER_BACKEND` gets no other one's vectors."""
    from graphmem.embedding.embedder import default_backend, embedder_for

    backend = default_backend()
    embedder, known = embedder_for(backend), _VECTORS.setdefault(backend, {})
    todo = list(dict.fromkeys(t for t in texts if t not in known))
    if todo:
        known.update(zip(todo, embedder.embed(todo), strict=True))
    if not texts:
        return np.zeros((0, 384), dtype=np.float32)
    return np.stack([known[t] for t in texts])
