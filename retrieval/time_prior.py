"""The time prior: turns of the sessions dated within the time the question names.

"What did I buy last weekend?" is answered in a session held last weekend, but
BM25 and MiniLM rank every turn alike whatever its date. When the question
names a time (`retrieval.query` resolves it to a range against the question's
``now``), one more candidate list ranks the turns of the sessions dated in
that range: BM25 over just those turns, then the MiniLM list's turns of those
sessions. Measured on the LoCoMo tuning split (docs/retrieval-rounds.md);
``SearchRecipe.time_prior`` is the list's RRF weight (1.0 in the default recipe; 0 turns it off);
``SearchRecipe.time_prior_window`` (opt-in) grows it when the named time holds few sessions.

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


def window_weight(weight: float, sessions: int, scale: float) -> float:
    """The time list's RRF weight when the named time holds `sessions` dated sessions: `weight`
    times max(1, scale / sessions), so a narrow window ("10 days ago", a date) that holds one to a
    few sessions outweighs a list that merely shares words, while a wide one ("the past three
    months", dozens of sessions) keeps `weight`. `scale` 0 (or no dated session) is `weight` (pure;
    `SearchRecipe.time_prior_window`, opt-in: issue 12's twelfth round gained no tuning question, docs/retrieval-rounds.md).

    Example:
        >>> window_weight(1.0, 2, 10.0), window_weight(1.0, 40, 10.0), window_weight(1.0, 2, 0.0)
        (5.0, 1.0, 1.0)
    """
    if scale <= 0 or sessions <= 0:
        return weight
    return weight * max(1.0, scale / sessions)


def window_sessions(table: TurnTable, start: datetime | None, end: datetime | None) -> int:
    """How many sessions hold a turn dated within [start, end) (`in_range`, its slack); 0 without
    a range or dates."""
    if (start is None and end is None) or not table.times:
        return 0
    mask = in_range(table.times, start, end)
    return len({table.sessions[i] for i in np.flatnonzero(mask)})


def until(start: datetime | None, end: datetime | None, now: datetime | None
          ) -> tuple[datetime | None, datetime | None] | None:
    """The range cut at `now`: a question asked at `now` about "this weekend" or "next month"
    can only be answered by what was said before `now`, and no session dated after it is
    what the named time refers to. None when the whole range lies after `now` (pure).

    Example:
        >>> from datetime import datetime as d
        >>> until(d(2023, 5, 6), d(2023, 5, 8), d(2023, 5, 3)) is None
        True
        >>> until(d(2023, 5, 1), d(2023, 6, 1), d(2023, 5, 3))
        (datetime.datetime(2023, 5, 1, 0, 0), datetime.datetime(2023, 5, 3, 0, 0))
    """
    if now is None:
        return start, end
    if start is not None and start > now:
        return None
    return start, now if end is None or end > now else end


def time_range(idx, plan, now: datetime | None = None) -> tuple[datetime | None, datetime | None] | None:
    """The range the time list reads (cut at `now` when given, `until`), or None when the
    question names no time or there are no turns."""
    if idx.turns is None or not plan.time_words or plan.mode != "as_of":
        return None
    return until(plan.range_start, plan.range_end, now)


def time_weight(idx, plan, weight: float, scale: float, now: datetime | None = None) -> float:
    """`window_weight` for the sessions dated in the question's named time (`time_range`); with
    `scale` 0 (the default recipe) `weight`, without counting them."""
    cut = time_range(idx, plan, now) if scale > 0 else None
    return weight if cut is None else window_weight(weight, window_sessions(idx.turns, *cut), scale)


def time_list(idx, plan, vector_list: Sequence[str], n: int, bm25_scores: np.ndarray | None,
              now: datetime | None = None) -> list[str]:
    """`dated_turns` for a question that names a time (`plan.time_words`); else empty.
    `bm25_scores`: the question's scores over every turn (None: there are no turns).
    With `now`, the range is cut there first (`until`; `SearchRecipe.time_prior_until_now`)."""
    cut = time_range(idx, plan, now) if bm25_scores is not None else None
    if cut is None:
        return []
    return dated_turns(idx.turns, bm25_scores, vector_list, cut[0], cut[1], n)
