"""LoCoMo tuning / reporting split: figures are reported on data nothing was tuned on.

The repo's seven LoCoMo conversations (``tests/data/locomo_dev7.json``) split as

- TUNING = conv-26, conv-30, conv-41: graphmem's recipe weights and the naive
  RAG baseline's RRF k and weights may be chosen on these;
- REPORTING = conv-42, conv-43, conv-44, conv-47: the figures in the README.

``reporting`` is every conversation outside TUNING, so on the full official
``locomo10.json`` it also keeps conv-48, conv-49, conv-50. The default split is
``reporting`` for a LoCoMo file that holds a tuning conversation and ``all`` for
any other file (another dataset, or a LoCoMo file with none of these ids).

Example:
    >>> [c.conversation_id for c in select(load_locomo("tests/data/locomo_dev7.json"), "tuning")]
    ['conv-26', 'conv-30', 'conv-41']
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from typing import Literal

from graphmem.schema.errors import InvalidInput
from graphmem.ingest.loaders import Conversation

Split = Literal["tuning", "reporting", "all"]
SPLITS: tuple[str, ...] = ("tuning", "reporting", "all")
TUNING = ("conv-26", "conv-30", "conv-41")
REPORTING = ("conv-42", "conv-43", "conv-44", "conv-47")


def default_split(conversations: Sequence[Conversation]) -> Split:
    """``reporting`` when the file holds a tuning conversation, else ``all``."""
    return "reporting" if any(c.conversation_id in TUNING for c in conversations) else "all"


def select(conversations: Sequence[Conversation], split: str) -> list[Conversation]:
    """The conversations of `split`, in file order."""
    if split not in SPLITS:
        raise InvalidInput(f"unknown split {split!r}; choose one of {', '.join(SPLITS)}")
    if split == "all":
        return list(conversations)
    tuning = split == "tuning"
    return [c for c in conversations if (c.conversation_id in TUNING) == tuning]


def question_halves(question_ids: Iterable[str]) -> dict[str, str]:
    """Question id -> ``tuning`` or ``reporting``: half each, by the sha256 of the id.

    LongMemEval's sample has no conversations to split by, so its questions are
    split instead (all sessions still pooled): the ids ordered by their hash, the
    first half (rounded up) tuning. Deterministic for a given set of ids and
    independent of file order.

    Example:
        >>> question_halves(["a", "b", "c", "d"])
        {'a': 'reporting', 'b': 'reporting', 'c': 'tuning', 'd': 'tuning'}
    """
    ids = list(dict.fromkeys(question_ids))
    ordered = sorted(ids, key=lambda i: hashlib.sha256(i.encode()).hexdigest())
    tune = set(ordered[: (len(ordered) + 1) // 2])
    return {i: "tuning" if i in tune else "reporting" for i in ids}
