"""Write-path speed: what ingesting a text costs beside embedding it once, and
how much faster the int8 ONNX embedder and the default one (fp32 on ONNX Runtime)
are than the fp32 PyTorch path.

Two kinds of text, because the costs differ: LoCoMo's short chat turns
(conv-42, ~130 characters a turn) and LongMemEval's long user/assistant turns
(the first conversations of the repo's 99-question sample, ~1,200 characters).
For each kind, in one run and on the same sessions:

- embed: the int8 ONNX embedder (`fast_embedder`) over every turn's "speaker: text", one call per
  session (the batches the write path makes), with the threads the write path picks
  (`threads_for`);
- speed-up: fp32 (sentence-transformers' PyTorch model) against int8 ONNX and against
  the default embedder's fp32 ONNX twin, all held
  to one intra-op thread, so the ratio compares the same work at the same thread count:
  left to choose, ONNX Runtime splits a session's batch over both cores where PyTorch
  barely does (idle, 17.7 s wall for 17.6 s CPU), and a wall ratio at "default"
  threads measured thread pools, not the embedders. The two take turns session by
  session (two passes), so load that comes and goes on a shared machine falls on
  both alike; with one pass of each in a row, the same code gave 1.52x CPU on short
  turns where interleaved it gave 1.91x;
- ingest: `Memory.write` of every session into a fresh embedded store with that
  embedder (rule extractor, offline). Embedding and ingesting take turns, three rounds,
  and the ratio is best over best: on an idle machine one embed and one ingest 27 minutes
  apart gave 1.46x and 1.93x for the same code (docs/benchmark-runs.md, whole run of 2026-12-04), and
  the embedding alone was best of two while the ingest ran once. Each round's wall ratio
  is printed too, so the spread shows.

It prints ingest/embed (target <= 1.5), the embedding speed-up (target >= 2),
the MiniLM-only turn recall@10 on the LoCoMo reporting split with each
embedder (target: within 0.01), and turns/s beside the figure measured before
the batched write path and the fast embedder (target >= 3x).
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import psutil

from bench.common import header
from bench.retrieval import CATEGORIES
from graphmem import Memory
from graphmem.embedding.embedder import Embedder, MiniLMEmbedder, fast_embedder, torch_threads, warmed
from graphmem.embedding.onnx_minilm import OnnxMiniLM
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


@dataclass(frozen=True)
class Cost:
    """Wall seconds and CPU seconds (this process, plus the embedded FalkorDB server's
    when it took part). On a shared machine the wall figure moves with other jobs'
    load; CPU seconds move much less, so both are printed."""

    wall: float
    cpu: float


def _server_cpu(mem: Memory | None) -> float:
    pid = mem.store.server_pid if mem is not None else None
    if not pid:
        return 0.0
    times = psutil.Process(pid).cpu_times()
    return times.user + times.system


def _measure(work, mem: Memory | None = None) -> Cost:
    wall, cpu, server = time.perf_counter(), time.process_time(), _server_cpu(mem)
    work()
    return Cost(time.perf_counter() - wall, time.process_time() - cpu + _server_cpu(mem) - server)


def embed_cost(embedder: Embedder, sessions: Sequence[tuple[str, Session]]) -> Cost:
    """One pass embedding every session's turns once."""
    return _measure(lambda: [embedder.embed(turn_texts(s)) for _, s in sessions])


def best(costs: Sequence[Cost]) -> Cost:
    """The least wall and the least CPU seconds (apart): load only ever adds to either."""
    return Cost(min(c.wall for c in costs), min(c.cpu for c in costs))


def ratio_costs(embedder: Embedder, sessions: Sequence[tuple[str, Session]], rounds: int = 3
                ) -> tuple[Cost, Cost, list[float]]:
    """(embedding once, ingesting), each the best of `rounds` passes taken in turns, so load that
    comes and goes falls on both alike, and each round's wall ratio ingest / embed."""
    pairs = [(embed_cost(embedder, sessions), ingest_cost(embedder, sessions)) for _ in range(rounds)]
    return best([e for e, _ in pairs]), best([i for _, i in pairs]), [i.wall / e.wall for e, i in pairs]


def speedup_costs(embedders: dict[str, Embedder], sessions: Sequence[tuple[str, Session]],
                  passes: int = 2) -> dict[str, Cost]:
    """The embedders taking turns on each session's turns, `passes` times; summed wall
    and CPU seconds of this thread (one intra-op thread runs on the calling thread)."""
    totals = {key: [0.0, 0.0] for key in embedders}
    with torch_threads(1):
        for _ in range(passes):
            for _, session in sessions:
                texts = turn_texts(session)
                for key, embedder in embedders.items():
                    wall, cpu = time.perf_counter(), time.thread_time()
                    embedder.embed(texts)
                    totals[key][0] += time.perf_counter() - wall
                    totals[key][1] += time.thread_time() - cpu
    return {key: Cost(*total) for key, total in totals.items()}


def ingest_cost(embedder: Embedder, sessions: Sequence[tuple[str, Session]]) -> Cost:
    with tempfile.TemporaryDirectory() as tmp, Memory(data_dir=tmp, embedder=embedder) as mem:
        mem.warm()  # the rules' patterns compile on first use: not inside the timed writes
        mem.write("warmup", [{"role": "user", "content": "I live in Oslo."}], "2024-01-01")
        return _measure(lambda: [mem.write(user, **session.write_args()) for user, session in sessions], mem)


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


def run() -> dict[str, float | list[float]]:
    # today's fp32 PyTorch path for every call: the default embedder would send
    # sessions of <= 4 turns through its fp32 ONNX query path
    fast, fp32 = fast_embedder(), warmed(MiniLMEmbedder(onnx=False))
    fast_one = OnnxMiniLM(threads=1)  # the same cached model, one intra-op thread
    default_one = OnnxMiniLM(int8=False, threads=1)  # the default embedder's fp32 ONNX twin
    header(f"write-path speed: embedder {type(fast).__name__} vs fp32 {type(fp32).__name__}")
    figures: dict[str, float | list[float]] = {}
    for kind, sessions in workloads().items():
        turns = sum(len(s.turns) for _, s in sessions)
        chars = sum(len(t.content) for _, s in sessions for t in s.turns)
        load = os.getloadavg()[0]
        costs = speedup_costs({"fp32": fp32, "int8": fast_one, "default": default_one}, sessions)
        embed_fp32, embed_one, embed_default = costs["fp32"], costs["int8"], costs["default"]
        embed_fast, ingest, rounds = ratio_costs(fast, sessions)
        rate = turns / ingest.wall
        before = BEFORE_TURNS_PER_S[kind]
        versus = f", {rate / before:.2f}x the {before:.1f} before" if before else ""
        print(f"  {kind}: {turns:,} turns ({chars / turns:,.0f} chars/turn), {len(sessions)} sessions, "
              f"load average {load:.1f} -> {os.getloadavg()[0]:.1f}")
        print(f"    one thread each, taking turns, 2 passes: embed fp32 {embed_fp32.wall:.2f} s wall / {embed_fp32.cpu:.2f} s CPU, int8 "
              f"{embed_one.wall:.2f} s / {embed_one.cpu:.2f} s = {embed_fp32.wall / embed_one.wall:.2f}x wall, "
              f"{embed_fp32.cpu / embed_one.cpu:.2f}x CPU speed-up (target >= 2); int8 with the write path's "
              f"threads {embed_fast.wall:.2f} s / {embed_fast.cpu:.2f} s")
        print(f"    the default embedder (fp32 on ONNX Runtime, same weights) {embed_default.wall:.2f} s / "
              f"{embed_default.cpu:.2f} s = {embed_fp32.wall / embed_default.wall:.2f}x wall, "
              f"{embed_fp32.cpu / embed_default.cpu:.2f}x CPU of fp32 PyTorch")
        print(f"    ingest {ingest.wall:.2f} s wall / {ingest.cpu:.2f} s CPU (with the FalkorDB server's) = "
              f"{ingest.wall / embed_fast.wall:.2f}x wall, {ingest.cpu / embed_fast.cpu:.2f}x CPU of embedding once "
              f"(target <= 1.5; best of {len(rounds)} each, taking turns; each round's wall ratio "
              f"{', '.join(f'{r:.2f}' for r in rounds)}); {rate:.1f} turns/s{versus} (target >= 3x)")
        figures |= {f"{kind}_ratio": ingest.wall / embed_fast.wall, f"{kind}_ratio_rounds": rounds, f"{kind}_ratio_cpu": ingest.cpu / embed_fast.cpu,
                    f"{kind}_speedup": embed_fp32.wall / embed_one.wall,
                    f"{kind}_speedup_cpu": embed_fp32.cpu / embed_one.cpu, f"{kind}_turns_per_s": rate,
                    f"{kind}_default_speedup": embed_fp32.wall / embed_default.wall}
    recall_fp32 = minilm_recall_at_10(fp32)
    recall_fast = recall_fp32 if fast is fp32 else minilm_recall_at_10(fast)
    print(f"  MiniLM turn recall@10, LoCoMo reporting split: fp32 {recall_fp32:.4f}, "
          f"{type(fast).__name__} {recall_fast:.4f}, difference {recall_fast - recall_fp32:+.4f} (target within 0.01)")
    recall_default = minilm_recall_at_10(MiniLMEmbedder())
    print(f"  the default embedder's (fp32 ONNX) {recall_default:.4f}, difference {recall_default - recall_fp32:+.4f}")
    figures |= {"recall_fp32": recall_fp32, "recall_fast": recall_fast, "recall_default": recall_default}
    return figures
