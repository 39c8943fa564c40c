"""Abstention calibration: how similar is the best stored text to a question that
was answered in this memory, and to one that was asked of another memory?

Positives: LoCoMo questions (categories 1-4) asked to their own conversation.
Negatives: the same questions asked to a different conversation's user, where
(mostly) nothing relevant was ever said. Both are imperfect (conversations share
everyday topics), so the threshold is set low: abstaining on an answerable
question costs more than answering with weak evidence.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from bench.common import header
from graphmem import Memory
from graphmem.ingest.loaders import Conversation
from graphmem.retrieval.search import ABSTAIN_SIMILARITY

THRESHOLDS = (0.15, 0.2, ABSTAIN_SIMILARITY, 0.3, 0.35, 0.4)


def best_similarities(mem: Memory, conversations: Sequence[Conversation], user_of, cases_of, shift: int) -> np.ndarray:
    out = []
    for i, conv in enumerate(conversations):
        target = conversations[(i + shift) % len(conversations)]
        for case in cases_of(conv):
            packet = mem.search(user_of(target), case.question.question, now=case.question.question_time)
            out.append(packet.best_similarity)
    return np.asarray(out)


def calibrate(mem: Memory, conversations: Sequence[Conversation], user_of, cases_of) -> dict[str, float]:
    header("abstention: best similarity, own memory vs another conversation's memory")
    own = best_similarities(mem, conversations, user_of, cases_of, 0)
    other = best_similarities(mem, conversations, user_of, cases_of, 1)
    print(f"  own memory   ({len(own)} q): p5 {np.percentile(own, 5):.2f}  p50 {np.percentile(own, 50):.2f}")
    print(f"  other memory ({len(other)} q): p50 {np.percentile(other, 50):.2f}  p95 {np.percentile(other, 95):.2f}")
    figures = {}
    for tau in THRESHOLDS:
        wrong, right = float(np.mean(own < tau)), float(np.mean(other < tau))
        mark = "  <- in use" if tau == ABSTAIN_SIMILARITY else ""
        print(f"  threshold {tau:.2f}: abstains on {wrong:.1%} of answerable, {right:.1%} of other-memory questions{mark}")
        figures[f"false_abstain@{tau}"] = wrong
        figures[f"other_abstain@{tau}"] = right
    return figures
