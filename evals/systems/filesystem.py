"""Filesystem agent: each session a dated text file; the reader searches them with tools.

Files live under ``work_dir/files/<conversation>/<date>_<session>.txt``, one turn
per line as ``[<turn id>] <speaker>: <text>``. The answer stage gives the reader
model the functions of :meth:`FilesystemSystem.tools` (list, grep, read) through
OpenAI tool calling. For the retrieval stage, offline, the context is what a
grep of the question's content words finds (`graphmem.retrieval.tokenize`: the
same stopwords and stems as BM25), lines ranked by how many distinct question
words they hold, then file order; the first k lines.
"""

from __future__ import annotations

import re
import shutil
import time
from collections.abc import Callable
from pathlib import Path

from graphmem.evals.metrics import count_tokens
from graphmem.evals.systems._common import day, memory_id, sessions_in_time_order, stopwatch
from graphmem.evals.systems.base import Context, IngestStats, SystemConfig
from graphmem.ingest.loaders import Conversation, Question
from graphmem.retrieval.tokenize import tokenize

_LINE = re.compile(r"^\[([^\]]+)\] ")


def file_name(session_time, session_id: str) -> str:
    return f"{day(session_time)}_{re.sub(r'[^A-Za-z0-9_.-]', '_', session_id)}.txt"


def grep_rank(lines: list[tuple[str, str]], question: str) -> list[tuple[str, str]]:
    """(file, line) pairs holding a question content word, most distinct words first (pure)."""
    wanted = set(tokenize(question))
    scored = []
    for order, (name, line) in enumerate(lines):
        hits = len(wanted & set(tokenize(line)))
        if hits:
            scored.append((-hits, order, name, line))
    return [(name, line) for _, _, name, line in sorted(scored)]


class FilesystemSystem:
    has_provenance = True

    def __init__(self, name: str, config: SystemConfig) -> None:
        self.name = name
        self.config = config
        self.root = Path(config.work_dir) / "files"

    def folder(self, conversation_id: str) -> Path:
        return self.root / memory_id(conversation_id)

    def ingest(self, conversation: Conversation) -> IngestStats:
        start = time.perf_counter()
        folder = self.folder(conversation.conversation_id)
        shutil.rmtree(folder, ignore_errors=True)  # files of other data kept in the same --out were read as this one's
        folder.mkdir(parents=True)
        turns = 0
        for session in sessions_in_time_order(conversation):
            lines = [f"[{t.id}] {t.speaker}: {' '.join(t.content.split())}" for t in session.turns]
            (folder / file_name(session.session_time, session.session_id)).write_text("\n".join(lines) + "\n")
            turns += len(lines)
        return IngestStats(episodes=turns, seconds=time.perf_counter() - start)

    def tools(self, conversation_id: str) -> dict[str, Callable[..., str]]:
        """The answer stage's hook: list / grep / read over one conversation's files."""
        folder = self.folder(conversation_id)

        def list_files() -> str:
            return "\n".join(sorted(p.name for p in folder.glob("*.txt")))

        def grep(pattern: str) -> str:
            rx = re.compile(pattern, re.IGNORECASE)
            return "\n".join(f"{p.name}: {line}" for p in sorted(folder.glob("*.txt"))
                             for line in p.read_text().splitlines() if rx.search(line))

        def read(name: str) -> str:
            path = folder / Path(name).name
            return path.read_text() if path.is_file() else f"no such file: {name}"

        return {"list_files": list_files, "grep": grep, "read": read}

    def context(self, conversation_id: str, question: Question) -> Context:
        with stopwatch() as ms:
            folder = self.folder(conversation_id)
            lines = [(p.name, line) for p in sorted(folder.glob("*.txt")) for line in p.read_text().splitlines()]
            found = grep_rank(lines, question.question)[: self.config.k]
            elapsed = ms()
        text = "\n".join(f"{name}: {line}" for name, line in found)
        ids = tuple(dict.fromkeys(m.group(1) for _, line in found if (m := _LINE.match(line))))
        return Context(text=text, turn_ids=ids, tokens=count_tokens(text), latency_ms=elapsed)

    def close(self) -> None:
        pass
