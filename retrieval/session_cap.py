"""A per-session cap on the top turns, so the first turns cover more sessions.

The fused turn list often spends its first places on one session (a long
session on the question's topic), while the evidence of a multi-session
question sits in others. Here, within the first `window` places, a session
keeps at most `cap` turns; its further turns wait until the window is full.
Opt-in through ``SearchRecipe.session_cap`` (0 is off); measured on the LoCoMo
tuning split (docs/retrieval-rounds.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def cap_sessions(ranked: Sequence[str], session_of: Mapping[str, str], cap: int, window: int) -> list[str]:
    """`ranked` with at most `cap` turns of any one session in its first `window` places (pure);
    a turn of unknown session counts as its own session.

    Example:
        >>> cap_sessions(["a1", "a2", "a3", "b1"], {"a1": "A", "a2": "A", "a3": "A", "b1": "B"}, cap=2, window=3)
        ['a1', 'a2', 'b1', 'a3']
    """
    if cap <= 0:
        return list(ranked)
    head: list[str] = []
    waiting: list[str] = []
    counts: dict[str, int] = {}
    rest = iter(dict.fromkeys(ranked))
    for uuid in rest:
        session = session_of.get(uuid, uuid)
        if counts.get(session, 0) < cap:
            counts[session] = counts.get(session, 0) + 1
            head.append(uuid)
            if len(head) >= window:
                break
        else:
            waiting.append(uuid)
    return head + waiting + list(rest)
