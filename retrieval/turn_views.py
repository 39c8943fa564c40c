"""The speaker view: turn candidate lists of the speakers a question names.

The plain BM25 and MiniLM lists rank every turn of the memory against the
whole question. A question that names someone who speaks in the memory ("What
did Melanie paint?") is most often answered in that person's own turns, so two
more lists rank the named speakers' turns alone: BM25 over just those turns
(`TurnList.SPEAKER`), where the other speaker's turns that merely share a word
cannot crowd them out, and the MiniLM list filtered to them
(`TurnList.SPEAKER_VECTOR`).

The self view does the same for a first-person question ("What did I buy?")
in a memory where the user (speaker ``user``) talks with an assistant: the
user's own turns by BM25 (`TurnList.SELF`) and the MiniLM list filtered to
them (`TurnList.SELF_VECTOR`), so long assistant answers that share the
question's words cannot crowd out what the user said. In the default recipe
(docs/retrieval-rounds.md: chosen on the tuning half of the pooled
LongMemEval questions; it never fires on LoCoMo, whose speakers are named). Chosen on the LoCoMo tuning split (docs/retrieval-rounds.md); a session view (the best turns of the best sessions)
was measured there too and not kept.

Pure functions over arrays aligned with the episode BM25 index; `TurnTable`
is built once per user with the warm indexes (`retrieval.index`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

from datetime import datetime

import numpy as np

from graphmem.schema import time as t
from graphmem.schema.models import normalize_name


SELF_SPEAKERS = ("user",)


@dataclass(frozen=True)
class TurnTable:
    """Session id, normalised speaker and session time of each turn, in the episode index's document order.

    `sessions` holds "" and `turn_index` None for a turn stored without one; `turn_index` empty
    means storage order is turn order (a table built by hand)."""

    uuids: tuple[str, ...]
    sessions: tuple[str, ...]
    speakers: np.ndarray
    members: Mapping[str, tuple[int, ...]]
    times: tuple[datetime | None, ...] = ()
    turn_index: tuple[int | None, ...] = ()

    @classmethod
    def of(cls, doc_ids: Sequence[str], rows: Sequence[Mapping]) -> TurnTable:
        by_uuid = {r["uuid"]: r for r in rows}
        sessions = tuple(str(by_uuid[u].get("session_id") or "") for u in doc_ids)
        speakers = np.array([normalize_name(by_uuid[u].get("speaker") or "") for u in doc_ids], dtype=object)
        members: dict[str, list[int]] = defaultdict(list)
        for i, s in enumerate(sessions):
            members[s].append(i)
        times = tuple(t.decode(by_uuid[u].get("session_time")) for u in doc_ids)
        order = tuple(None if (i := by_uuid[u].get("turn_index")) is None else int(i) for u in doc_ids)
        return cls(tuple(doc_ids), sessions, speakers, {s: tuple(m) for s, m in members.items()}, times, order)

    def position(self) -> dict[str, int]:
        """Turn uuid -> document position; built once per table (a search asks for it several times)."""
        return self._positions

    @cached_property
    def _positions(self) -> dict[str, int]:
        return {u: i for i, u in enumerate(self.uuids)}

    @cached_property
    def adjacent(self) -> np.ndarray:
        """Each turn's previous and next turn of its session by turn index (positions, -1 at a
        session's ends), shape (turns, 2); built once per table. Storage order need not be turn
        order (the index lists turns as the store returns them): turns stored with indexes 2, 0, 1
        give rows [2, -1], [-1, 2], [1, 0]. Abstention reads a turn with these
        (`abstention.exchange_coverage`)."""
        return self.near(1)

    def near(self, width: int) -> np.ndarray:
        """Each turn's `width` previous and `width` next turns of its session by turn index
        (positions, -1 past a session's ends), shape (turns, 2 * width): columns 0..width-1 the
        previous turns, nearest first, then the next ones, nearest first; built once per table
        and width. A question asked, answered, then followed up spans three turns: abstention
        reads a turn with these (`abstention.exchange_coverage`, `SearchRecipe.abstain_window`).

        A turn stored without a session or without a turn index has no neighbours and is no
        one's: sessionless turns are not one conversation, and a turn of unknown place cannot be
        said to come before or after another (it used to sort as index 0, first of its session)."""
        if width not in self._near:
            out = np.full((len(self.uuids), 2 * width), -1, dtype=np.int64)
            order = self.turn_index or tuple(range(len(self.uuids)))
            for session, members in self.members.items():
                if not session:
                    continue
                ranked = sorted((i for i in members if order[i] is not None), key=lambda i: (order[i], i))
                for d in range(1, width + 1):
                    for before, after in zip(ranked, ranked[d:]):
                        out[after, d - 1], out[before, width + d - 1] = before, after
            self._near[width] = out
        return self._near[width]

    @cached_property
    def _near(self) -> dict[int, np.ndarray]:
        return {}

    @cached_property
    def own_turns(self) -> np.ndarray:
        """Which turns the memory's user (`SELF_SPEAKERS`) spoke; built once per table."""
        return np.isin(self.speakers, list(SELF_SPEAKERS))


def top_positions(scores: np.ndarray, n: int) -> list[int]:
    """Positions of the `n` best positive scores, best first, ties in document order."""
    n = min(n, len(scores))
    if n <= 0:
        return []
    idx = np.argpartition(-scores, n - 1)[:n]
    idx = idx[np.argsort(-scores[idx], kind="stable")]
    return [int(i) for i in idx if scores[i] > 0]


def speaker_turns(table: TurnTable, bm25_scores: np.ndarray, entity_keys: Sequence[str], n: int) -> list[str]:
    """The named speakers' own turns ranked by BM25; empty when the question names no speaker."""
    names = [k for k in entity_keys if k]
    if not names:
        return []
    mask = np.isin(table.speakers, names)
    if not mask.any():
        return []
    return [table.uuids[i] for i in top_positions(np.where(mask, bm25_scores, 0.0), n)]


def speaker_vector_turns(table: TurnTable, vector_list: Sequence[str], entity_keys: Sequence[str]) -> list[str]:
    """The MiniLM list's turns spoken by the named speakers, in its order."""
    names = [k for k in entity_keys if k]
    if not names:
        return []
    pos = table.position()
    return [u for u in vector_list if u in pos and table.speakers[pos[u]] in names]


def self_mask(table: TurnTable, selves: Sequence[str] = SELF_SPEAKERS) -> np.ndarray | None:
    """Which turns the memory's own user spoke; None when none or all of them did
    (then a list of them would only repeat the plain one)."""
    mask = table.own_turns if tuple(selves) == SELF_SPEAKERS else np.isin(table.speakers, list(selves))
    return mask if mask.any() and not mask.all() else None


def self_turns(table: TurnTable, bm25_scores: np.ndarray, n: int, selves: Sequence[str] = SELF_SPEAKERS) -> list[str]:
    """The user's own turns ranked by BM25; empty when the user speaks none or every turn."""
    mask = self_mask(table, selves)
    if mask is None:
        return []
    return [table.uuids[i] for i in top_positions(np.where(mask, bm25_scores, 0.0), n)]


def self_vector_turns(table: TurnTable, vector_list: Sequence[str], selves: Sequence[str] = SELF_SPEAKERS) -> list[str]:
    """The MiniLM list's turns the user spoke, in its order; empty as `self_turns` is."""
    mask = self_mask(table, selves)
    if mask is None:
        return []
    pos = table.position()
    return [u for u in vector_list if u in pos and mask[pos[u]]]


def view_lists(idx, plan, lists: Mapping, recipe, bm25_scores: np.ndarray) -> dict:
    """The speaker and self lists `recipe.turn_weights` names, from the lists already
    drawn and the question's BM25 scores over every turn (`retrieval.search`)."""
    from graphmem.retrieval.recipes import TurnList

    weights = recipe.turn_weights
    table = idx.turns
    if table is None or not table.uuids:
        return {}
    out: dict = {}
    if plan.first_person and TurnList.SELF in weights:
        out[TurnList.SELF] = self_turns(table, bm25_scores, recipe.candidates)
    if plan.first_person and TurnList.SELF_VECTOR in weights:
        out[TurnList.SELF_VECTOR] = self_vector_turns(table, lists.get(TurnList.VECTOR, []))
    if not plan.entity_keys:
        return {k: v for k, v in out.items() if v}
    if TurnList.SPEAKER in weights:
        out[TurnList.SPEAKER] = speaker_turns(table, bm25_scores, plan.entity_keys,
                                              recipe.candidates)
    if TurnList.SPEAKER_VECTOR in weights:
        out[TurnList.SPEAKER_VECTOR] = speaker_vector_turns(table, lists.get(TurnList.VECTOR, []), plan.entity_keys)
    return {k: v for k, v in out.items() if v}
