"""The time prior: turns of the sessions dated within the time the question names.

"What did I buy last weekend?" is answered in a session held last weekend, but
BM25 and MiniLM rank every turn alike whatever its date. When the question
names a time (`retrieval.query` resolves it to a range against the question's
``now``), one more candidate list ranks the turns of the sessions dated in
that range: BM25 over just those turns, then the MiniLM list's turns of those
sessions. Measured on the LoCoMo tuning split (README, "Retrieval ablation");
``SearchRecipe.time_prior`` is the list's RRF weight (1.0 in the default recipe; 0 turns it off).

Pure functions over `TurnTable` (`retrieval.turn_views`).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

import numpy as np

from graphmem.retrieval.turn_views import TurnTable, top_positions

SLACK = timedelta(days=1)


def in_range(times: Sequence[datetime | None], start: datetime | None, end: datetime | None,
             slack: timedelta = SLACK) -> np.ndarray:
    """A mask of the session times within [start - slack, end + slack); an open end is unbounded."""
    lo = start - slack if start is not None else None
    hi = end + slack if end is not None else None
    return np.array([x is not None and (lo is None or x >= lo) and (hi is None or x < hi) for x in times], dtype=bool)


def dated_turns(table: TurnTable, bm25_scores: np.ndarray, vector_list: Sequence[str],
                start: datetime | None, end: datetime | None, n: int) -> list[str]:
    """The turns of sessions dated in the range: by BM25, then the rest of the MiniLM list's; empty without a range."""
    if (start is None and end is None) or not table.times:
        return []
    mask = in_range(table.times, start, end)
    if not mask.any() or mask.all():
        return []
    by_words = [table.uuids[i] for i in top_positions(np.where(mask, bm25_scores, 0.0), n)]
    pos = table.position()
    by_meaning = [u for u in vector_list if u in pos and mask[pos[u]]]
    return list(dict.fromkeys(by_words + by_meaning))[:n]


def time_list(idx, plan, vector_list: Sequence[str], n: int, bm25_scores: np.ndarray | None) -> list[str]:
    """`dated_turns` for a question that names a time (`plan.time_words`); else empty.
    `bm25_scores`: the question's scores over every turn (None: there are no turns)."""
    if idx.turns is None or bm25_scores is None or not plan.time_words or plan.mode != "as_of":
        return []
    return dated_turns(idx.turns, bm25_scores, vector_list, plan.range_start, plan.range_end, n)
