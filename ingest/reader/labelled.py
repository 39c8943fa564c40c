"""The labelled sentences the reader learns from (`data/sentences.tsv`).

Hand-written first-person sentences in many registers, each labelled with a
topic (the slot it speaks about, or ``none``) and a kind: ``holds`` states a
current value, ``ends`` says the value stopped, ``new`` says a new value
replaced the old one. ``none`` sentences (questions, plans, wishes, other
people's facts, small talk, assistant replies) teach the reader to abstain.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

DATA = Path(__file__).resolve().parent / "data" / "sentences.tsv"
TOPICS = ("residence", "work", "study", "partner", "pet", "possession", "hobby", "favourite", "diet", "none")
KINDS = ("holds", "ends", "new")


class Labelled(NamedTuple):
    topic: str
    kind: str
    text: str


@lru_cache(maxsize=1)
def load(path: Path = DATA) -> tuple[Labelled, ...]:
    """Every labelled sentence, in file order; a line that breaks the format fails loudly."""
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        topic, kind, text = line.split("\t")
        if topic not in TOPICS or (kind not in KINDS and not (topic == "none" and kind == "-")):
            raise ValueError(f"{path.name}:{number}: unknown label {topic!r}/{kind!r}")
        rows.append(Labelled(topic, kind, text.strip()))
    return tuple(rows)
