"""Ingestion benchmark: the LoCoMo conversations shipped in tests/data, offline
(rule extractor) and through the LLM path against a local scripted server.

Offline prints turns/s, entity and fact counts and peak memory. The LLM run
answers extraction calls with what the rule extractor finds in the same turn
(so the graph is comparable) and resolution calls with ADD; it prints LLM calls
and prompt tokens per episode, which is what the prompt design controls.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from bench.common import header, peak_rss_mb
from graphmem import Memory
from graphmem.ingest.loaders import load_locomo

ROOT = Path(__file__).resolve().parent.parent
LOCOMO = ROOT / "tests" / "data" / "locomo_dev7.json"


def counts(mem: Memory, users: list[str]) -> tuple[int, int, int]:
    """Entities, facts (any status) and current facts over the users, read through `mem.inspect()`."""
    ins = mem.inspect()
    totals = [ins.counts(u) for u in users]
    current = sum(1 for u in users for f in ins.facts(u, include_expired=True) if f.expired_at is None)
    return sum(c.entities for c in totals), sum(c.facts for c in totals), current


def ingest_all(mem: Memory, conversations, limit_sessions: int | None = None) -> tuple[int, float, list[str]]:
    turns, users = 0, []
    start = time.perf_counter()
    for conv in conversations:
        user = conv.conversation_id.replace("-", "_")
        users.append(user)
        for session in conv.sessions[:limit_sessions]:
            mem.write(user, **session.write_args())
            turns += len(session.turns)
    return turns, time.perf_counter() - start, users


def offline() -> dict[str, float]:
    conversations = load_locomo(LOCOMO)
    header(f"ingest offline: {len(conversations)} LoCoMo conversations, rule extractor")
    with tempfile.TemporaryDirectory() as tmp, Memory(data_dir=tmp) as mem:
        mem.warm()  # the model and the rules' patterns load on first use: not inside the timed writes
        mem.write("warmup", [{"role": "user", "content": "I live in Oslo."}], "2024-01-01")
        turns, elapsed, users = ingest_all(mem, conversations)
        entities, facts, current = counts(mem, users)
    rate = turns / elapsed
    print(f"  {turns:,} turns in {elapsed:.1f} s = {rate:.1f} turns/s (target >= 40)")
    print(f"  {entities:,} entities, {facts:,} facts ({current:,} current), peak RSS {peak_rss_mb():.0f} MB")
    return {"turns_per_s": rate, "entities": entities, "facts": facts}


def scripted_llm(sessions_per_conversation: int = 4) -> dict[str, float]:
    sys.path.insert(0, str(ROOT / "tests"))
    from llm_server import ScriptedLLM

    from graphmem.ingest.llm import LLMExtractor
    from bench.scripted import handler

    conversations = load_locomo(LOCOMO)
    header(f"ingest through the LLM path (scripted local server), first {sessions_per_conversation} sessions each")
    with ScriptedLLM(handler) as server, tempfile.TemporaryDirectory() as tmp:
        extractor = LLMExtractor(server.url, "scripted-model", cache_dir=Path(tmp) / "cache")
        with Memory(data_dir=Path(tmp) / "gm", extractor=extractor) as mem:
            turns, elapsed, _ = ingest_all(mem, conversations, sessions_per_conversation)
        totals = extractor.meter.snapshot().total
    calls = totals.calls / turns
    tokens = totals.prompt_tokens / turns
    print(f"  {turns:,} episodes, {totals.calls:,} LLM calls = {calls:.2f} calls/episode (target <= 2), "
          f"{tokens:.0f} prompt tokens/episode, {totals.completion_tokens / turns:.0f} completion tokens/episode")
    return {"llm_calls_per_episode": calls, "prompt_tokens_per_episode": tokens}


def run() -> None:
    offline()
    scripted_llm()
