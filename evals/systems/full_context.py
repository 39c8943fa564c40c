"""Full context: every session in time order with its date, cut from the oldest end to
the reader's budget (``SystemConfig.context_tokens``).

It cites every turn it keeps, newest first, so recall@k means nothing for it:
the retrieval table reports its tokens (and whether the gold turns survived the
cut, ``gold_in_context``) only.
"""

from __future__ import annotations

import time

from graphmem.evals.metrics import count_tokens
from graphmem.evals.systems._common import day, sessions_in_time_order, stopwatch
from graphmem.evals.systems.base import Context, IngestStats, SystemConfig
from graphmem.ingest.loaders import Conversation, Question, Session


def session_header(session: Session) -> str:
    return f"=== {session.session_id} ({day(session.session_time)}) ==="


def fit_newest(sessions: list[Session], budget: int) -> tuple[list[str], list[str]]:
    """Lines (oldest first) and kept turn ids (newest first) within `budget` tokens (pure)."""
    kept: list[str] = []
    ids: list[str] = []
    used = 0
    for session in reversed(sessions):
        block: list[str] = []
        for turn in reversed(session.turns):
            line = f"{turn.speaker}: {turn.content}"
            cost = count_tokens(line) + 1
            if used + cost + count_tokens(session_header(session)) + 1 > budget:
                break
            block.append(line)
            ids.append(turn.id)
            used += cost
        if not block:
            break
        used += count_tokens(session_header(session)) + 1
        kept = [session_header(session), *reversed(block), *kept]
        if len(block) < len(session.turns):
            break
    return kept, ids


class FullContextSystem:
    has_provenance = True

    def __init__(self, name: str, config: SystemConfig) -> None:
        self.name = name
        self.config = config
        self._sessions: dict[str, list[Session]] = {}

    def ingest(self, conversation: Conversation) -> IngestStats:
        start = time.perf_counter()
        self._sessions[conversation.conversation_id] = sessions_in_time_order(conversation)
        turns = sum(len(s.turns) for s in conversation.sessions)
        return IngestStats(episodes=turns, seconds=time.perf_counter() - start)

    def context(self, conversation_id: str, question: Question) -> Context:
        with stopwatch() as ms:
            sessions = self._sessions[conversation_id]
            lines, ids = fit_newest(sessions, self.config.context_tokens)
            text = "\n".join(lines)
            elapsed = ms()
        by_turn = {t.id: s.session_id for s in sessions for t in s.turns}
        return Context(text=text, turn_ids=tuple(ids), session_ids=tuple(dict.fromkeys(by_turn[i] for i in ids)),
                       tokens=count_tokens(text), latency_ms=elapsed)

    def close(self) -> None:
        self._sessions.clear()
