"""Abstention measured as `packet.abstain` itself, on the tuning and the reporting split.

Three kinds of question, each asked through `Memory.search` of a memory holding
one LoCoMo conversation:

- answerable: the conversation's own questions (categories 1-4 with a gold turn);
  abstaining on one is a miss;
- never said: `evals/data/never_said.json`, written questions about topics that
  occur nowhere in that conversation; abstaining is right;
- other memory: the conversation's questions asked of the next conversation's
  memory. Conversations share everyday topics, so this is a noisy negative,
  printed for orientation only.

The thresholds in `retrieval/abstention.py` were chosen on the tuning split
(conv-26, conv-30, conv-41) with the sweep this module prints there; the
reporting split (conv-42, conv-43, conv-44, conv-47) is only reported.
Target (issue 9): >= 60% of never-said questions abstain, <= 3% of answerable.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from bench.common import header
from graphmem import Memory
from graphmem.ingest.loaders import Conversation
from graphmem.retrieval import abstention

NEVER_SAID = Path(__file__).resolve().parent.parent / "evals" / "data" / "never_said.json"
TUNING = ("conv-26", "conv-30", "conv-41")
SWEEP_COVERAGE = (0.25, 0.3, 0.35, 0.4)
SWEEP_SIMILARITY = (0.35, 0.4, 0.45)


def ask_all(mem: Memory, conversations: Sequence[Conversation], user_of: Callable, cases_of: Callable) -> list[dict]:
    """One row per question: kind, split, abstained, and the two signals."""
    by_id = {c.conversation_id: c for c in conversations}
    rows = []
    for i, conv in enumerate(conversations):
        split = "tuning" if conv.conversation_id in TUNING else "reporting"
        other = conversations[(i + 1) % len(conversations)]
        for case in cases_of(conv):
            q = case.question
            rows.append(dict(kind="answerable", split=split, q=q.question, **_row(mem, user_of(conv), q.question, q.question_time)))
            rows.append(dict(kind="other memory", split=split, q=q.question, **_row(mem, user_of(other), q.question, q.question_time)))
    for item in json.loads(NEVER_SAID.read_text())["items"]:
        conv = by_id.get(item["conversation"])
        if conv is None:
            continue
        split = "tuning" if conv.conversation_id in TUNING else "reporting"
        rows.append(dict(kind="never said", split=split, q=item["question"],
                         **_row(mem, user_of(conv), item["question"], conv.sessions[-1].session_time)))
    return rows


def _row(mem: Memory, user: str, question: str, now) -> dict:
    packet = mem.search(user, question, now=now)
    return {"abstain": packet.abstain, "coverage": packet.topic_coverage, "masked": packet.masked_similarity}


def _rate(rows: list[dict], kind: str, split: str, decide=None) -> tuple[float, int]:
    chosen = [r for r in rows if r["kind"] == kind and r["split"] == split]
    if not chosen:
        return float("nan"), 0
    hits = [decide(r) if decide else r["abstain"] for r in chosen]
    return float(np.mean(hits)), len(chosen)


def calibrate(mem: Memory, conversations: Sequence[Conversation], user_of, cases_of) -> dict[str, float]:
    header("abstention: packet.abstain on answerable, never-said and other-memory questions")
    rows = ask_all(mem, conversations, user_of, cases_of)
    figures: dict[str, float] = {}
    for split in ("tuning", "reporting"):
        parts = []
        for kind in ("answerable", "never said", "other memory"):
            rate, n = _rate(rows, kind, split)
            figures[f"{split}:{kind}"] = rate
            parts.append(f"{kind} {rate:.1%} of {n}")
        print(f"  {split:9} abstains on: " + ", ".join(parts))
    print(f"  rule in use: coverage < {abstention.COVERAGE_BELOW} and similarity without names "
          f"< {abstention.MASKED_SIMILARITY_BELOW} (chosen on the tuning split)")
    for split in ("tuning", "reporting"):
        print(f"  sweep on the {split} split (answerable / never said abstaining):")
        for c in SWEEP_COVERAGE:
            cells = []
            for s in SWEEP_SIMILARITY:
                rule = lambda r, c=c, s=s: r["coverage"] is not None and r["coverage"] < c and r["masked"] < s  # noqa: E731
                a, _ = _rate(rows, "answerable", split, rule)
                n, _ = _rate(rows, "never said", split, rule)
                cells.append(f"s<{s:.2f}: {a:.1%} / {n:.1%}")
            print(f"    c<{c:.2f}  " + "   ".join(cells))
    return figures
