"""Question parts and the user's own turns first: two rules for user-assistant memories.

**Question parts.** A question that names several things ("Which happened first,
the purchase of the coffee maker or the malfunction of the stand mixer?", "the
total cost of the food bowl, measuring cup, dental chews and flea collar") needs
a turn for each. BM25 over the whole question sums the parts' words, so the
part with the rarer or more repeated words fills the first ranks and the other
part's turn falls below 10. `parts` splits the question at coordination ("or",
"and", list commas) and at the links of two-event questions ("before", "after",
"since", "when", "between", ...); `parts_list` ranks the turns by BM25 for each
part alone and interleaves the parts' rankings (first of each part, then second
of each, ...) into one more RRF list, so every part's best turn ranks high. A
question of one part gets no list. In a memory where a ``user`` talks with an
assistant only the user's own turns are ranked (the self view's turns,
`retrieval.turn_views`): a part's words in an assistant's long answer say
little about what the user did. Cost: one BM25 scoring per part over the warm
index (sparse products), no embedding, no store query.

**Own turns first.** In such a memory the evidence of a question about the user
is what the user said: 191 of the 197 evidence turns of the LongMemEval sample
are the user's, while assistant answers are a fifth of the first 10 fused turns.
`own_turns_first` multiplies the fused RRF score of every turn the user did not
speak by `factor` (< 1) and re-sorts, so an assistant's answer outranks a user
turn only when its lists agree on it clearly. Memories of named speakers (no
``user`` turns) are left as they are.

Both run in the weighted-RRF fusion only (`SearchRecipe.query_parts`,
`SearchRecipe.other_turns`); a memory of named speakers is fused by the
learned scorer (`retrieval.learned_fusion`), which neither touches. Chosen on the
tuning half of the pooled LongMemEval questions (docs/retrieval-rounds.md,
seventh round).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import zip_longest
from typing import TYPE_CHECKING

import numpy as np

from graphmem.retrieval.tokenize import tokenize
from graphmem.retrieval.turn_views import TurnTable, self_mask, top_positions

if TYPE_CHECKING:  # bm25 imports scipy
    from graphmem.retrieval.bm25 import BM25Index
    from graphmem.retrieval.fusion import Scored

# Coordination, list commas and the clause links of questions about two events.
SPLIT = re.compile(r",|;|\?|\b(?:or|and|between|versus|vs\.?|before|after|since|when|while|until|then)\b", re.I)


def parts(text: str) -> list[str]:
    """The parts of `text` that hold a searchable word, when there are at least two; else [].

    Example:
        >>> parts("Which happened first, the purchase of the coffee maker or the malfunction of the stand mixer?")
        ['Which happened first', 'the purchase of the coffee maker', 'the malfunction of the stand mixer']
        >>> parts("What did I buy last week?")
        []
    """
    pieces = [p.strip() for p in SPLIT.split(text) if p and p.strip()]
    kept = [p for p in pieces if tokenize(p)]
    return kept if len(kept) >= 2 else []


def interleave(rankings: Sequence[Sequence[str]], n: int) -> list[str]:
    """The first of each ranking, then the second of each, ...; each id once, at most `n`.

    Example:
        >>> interleave([["a", "b", "c"], ["d", "a"]], 10)
        ['a', 'd', 'b', 'c']
    """
    out = dict.fromkeys(u for tier in zip_longest(*rankings) for u in tier if u is not None)
    return list(out)[:n]


def parts_list(table: TurnTable, index: BM25Index, text: str, n: int) -> list[str]:
    """The question's parts' BM25 rankings interleaved (`interleave`); in a memory with
    ``user`` turns over those turns only. Empty for a question of one part."""
    found = parts(text)
    if not found or not table.uuids:
        return []
    mask = self_mask(table)
    rankings = []
    for part in found:
        scores = index.scores(part)
        if mask is not None:
            scores = np.where(mask, scores, 0.0)
        rankings.append([table.uuids[i] for i in top_positions(scores, n)])
    return interleave(rankings, n)


def own_turns_first(scored: Sequence[Scored], table: TurnTable | None, factor: float) -> list[str]:
    """Turn ids by fused score, the score of a turn the memory's ``user`` did not speak
    multiplied by `factor`; the fused order unchanged when no turn (or every turn) is the user's,
    or `factor` is 1. Ties keep the fused order."""
    ids = [s.doc_id for s in scored]
    mask = self_mask(table) if table is not None and table.uuids else None
    if mask is None or factor == 1.0:
        return ids
    pos = table.position()
    adjusted = [s.score * (1.0 if (i := pos.get(s.doc_id)) is not None and mask[i] else factor) for s in scored]
    return [ids[i] for i in sorted(range(len(ids)), key=lambda i: -adjusted[i])]
