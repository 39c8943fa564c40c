"""Write-path speed: what ingesting a text costs beside embedding it once, and
how much faster the int8 ONNX embedder is than the fp32 PyTorch path.

Two kinds of text, because the costs differ: LoCoMo's short chat turns
(conv-42, ~130 characters a turn) and LongMemEval's long user/assistant turns
(the first conversations of the repo's 99-question sample, ~1,200 characters).
For each kind, in one run and on the same sessions:

- embed: the int8 ONNX embedder (`fast_embedder`) over every turn's "speaker: text", one call per
  session (the batches the write path makes), best of two;
- fp32: the same with sentence-transformers' fp32 PyTorch model;
- ingest: `Memory.write` of every session into a fresh embedded store with that
  embedder (rule extractor, offline).

It prints ingest/embed (target <= 1.5), the embedding speed-up (target >= 2),
the MiniLM-only turn recall@10 on the LoCoMo reporting split with each
embedder (target: within 0.01), and turns/s beside the figure measured before
the batched write path and the fast embedder (target >= 3x).
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from bench.common import header
from bench.retrieval import CATEGORIES
from graphmem import Memory
from graphmem.embedding.embedder import Embedder, default_embedder, fast_embedder
from graphmem.evals.baselines import build_corpus, rank_minilm
from graphmem.evals.metrics import distinct, recall_at
from graphmem.evals.splits import select
from graphmem.ingest.loaders import Conversation, Session, load_locomo, load_longmemeval

ROOT = Path(__file__).resolve().parent.parent
LOCOMO = ROOT / "tests" / "data" / "locomo_dev7.json"
LONGMEMEVAL = ROOT / "tests" / "data" / "longmemeval_oracle_sample99.json"
SHORT_CONVERSATION = "conv-42"
LONG_CONVERSATIONS = 20

# turns/s of this benchmark on main before the batched write path and the fast
# embedder (commit b97bab2, 2026-12-01, `python -m bench speed`, 2 cores shared with
# other jobs, load average ~8: the ratios printed in one run are the figures to trust).
BEFORE_TURNS_PER_S = {"short": 4.7, "long": 6.7}


def workloads() -> dict[str, list[tuple[str, Session]]]:
    """kind -> (user, session) in write order."""
    short = next(c for c in load_locomo(LOCOMO) if c.conversation_id == SHORT_CONVERSATION)
    long = load_longmemeval(LONGMEMEVAL)[:LONG_CONVERSATIONS]
    return {"short": _sessions([short]), "long": _sessions(long)}


def _sessions(conversations: Sequence[Conversation]) -> list[tuple[str, Session]]:
    return [(c.conversation_id.replace("-", "_"), s) for c in conversations for s in c.sessions]


def turn_texts(session: Session) -> list[str]:
    return [f"{turn.speaker}: {turn.content}" for turn in session.turns]


def embed_seconds(embedder: Embedder, sessions: Sequence[tuple[str, Session]], repeats: int = 2) -> float:
    """Best of `repeats` passes embedding every session's turns once."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for _, session in sessions:
            embedder.embed(turn_texts(session))
        best = min(best, time.perf_counter() - start)
    return best


def ingest_seconds(embedder: Embedder, sessions: Sequence[tuple[str, Session]]) -> float:
    with tempfile.TemporaryDirectory() as tmp, Memory(data_dir=tmp, embedder=embedder) as mem:
        mem.write("warmup", [{"role": "user", "content": "I live in Oslo."}], "2024-01-01")
        start = time.perf_counter()
        for user, session in sessions:
            mem.write(user, **session.write_args())
        return time.perf_counter() - start


def minilm_recall_at_10(embedder: Embedder) -> float:
    """Mean turn recall@10 of cosine over raw turns, LoCoMo reporting split, categories 1-4."""
    scores = []
    for conversation in select(load_locomo(LOCOMO), "reporting"):
        corpus = build_corpus(conversation.turns_by_id().values(), embedder.embed)
        questions = [q for q in conversation.questions if q.evidence and q.category in CATEGORIES]
        vectors = embedder.embed([q.question for q in questions])
        for question, vector in zip(questions, vectors):
            scores.append(recall_at(distinct(rank_minilm(corpus, vector)), set(question.evidence), 10))
    return float(np.mean(scores))


def run() -> dict[str, float]:
    fast, fp32 = fast_embedder(), default_embedder()
    header(f"write-path speed: embedder {type(fast).__name__} vs fp32 {type(fp32).__name__}")
    figures: dict[str, float] = {}
    for kind, sessions in workloads().items():
        turns = sum(len(s.turns) for _, s in sessions)
        chars = sum(len(t.content) for _, s in sessions for t in s.turns)
        embed_fp32 = embed_seconds(fp32, sessions)
        embed_fast = embed_seconds(fast, sessions)
        ingest = ingest_seconds(fast, sessions)
        rate = turns / ingest
        before = BEFORE_TURNS_PER_S[kind]
        versus = f", {rate / before:.2f}x the {before:.1f} before" if before else ""
        print(f"  {kind}: {turns:,} turns ({chars / turns:,.0f} chars/turn), {len(sessions)} sessions")
        print(f"    embed fp32 {embed_fp32:.2f} s, embed {embed_fast:.2f} s = {embed_fp32 / embed_fast:.2f}x "
              f"speed-up (target >= 2)")
        print(f"    ingest {ingest:.2f} s = {ingest / embed_fast:.2f}x embedding once (target <= 1.5); "
              f"{rate:.1f} turns/s{versus} (target >= 3x)")
        figures |= {f"{kind}_ratio": ingest / embed_fast, f"{kind}_speedup": embed_fp32 / embed_fast,
                    f"{kind}_turns_per_s": rate}
    recall_fp32 = minilm_recall_at_10(fp32)
    recall_fast = recall_fp32 if fast is fp32 else minilm_recall_at_10(fast)
    print(f"  MiniLM turn recall@10, LoCoMo reporting split: fp32 {recall_fp32:.4f}, "
          f"{type(fast).__name__} {recall_fast:.4f}, difference {recall_fast - recall_fp32:+.4f} (target within 0.01)")
    figures |= {"recall_fp32": recall_fp32, "recall_fast": recall_fast}
    return figures
