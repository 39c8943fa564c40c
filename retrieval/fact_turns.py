"""Fact hits pull their source turns up: a fact's best source turn ranks no lower than the fact.

A fact line found by its own words ("Caroline -LIVES_IN-> Shanghai") names the
turn it came from, but the turn list fuses that turn at a small weight
(`TurnList.FACTS`), so a turn whose fact ranks first may sit below the cut.
Here the fused turn list is rewritten so the best source turn of the fact at
rank i stands at rank ``i * stride`` or better. Opt-in through
``SearchRecipe.fact_turn_stride`` (0 is off); measured on the LoCoMo tuning split
(docs/retrieval-rounds.md).
"""

from __future__ import annotations

from collections.abc import Sequence

SOURCES_PER_FACT = 3


def pull_sources(ranked: Sequence[str], fact_sources: Sequence[str | None], stride: int = 1) -> list[str]:
    """`ranked` with the source turn of fact i moved up to position ``i * stride`` if it stood lower (pure).

    Example:
        >>> pull_sources(["a", "b", "c", "d"], ["d", None, "b"], stride=1)
        ['d', 'a', 'b', 'c']
    """
    if stride <= 0:
        return list(ranked)
    out = list(dict.fromkeys(ranked))
    for i, uuid in enumerate(fact_sources):
        if uuid is None:
            continue
        target = i * stride
        if uuid in out:
            if out.index(uuid) <= target:
                continue
            out.remove(uuid)
        out.insert(min(target, len(out)), uuid)
    return out


def pick_sources(episodes: Sequence[str], rank: dict[str, int], keep: int) -> list[str]:
    """A fact's `keep` most relevant source episodes: those the search ranked, best
    first, then the most recent. A fact restated 700 times cites a few turns, so
    its line cannot crowd the evidence out of the packet."""
    ranked = sorted((u for u in episodes if u in rank), key=rank.__getitem__)
    recent = [u for u in reversed(episodes) if u not in rank]
    return (ranked + recent)[:keep]
