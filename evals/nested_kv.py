"""MemGPT's nested key-value task, generated from a seed (no ``--data`` needed).

140 key-value pairs of UUIDs. Hidden among them are chains: a chain of depth d
is d+1 pairs where each value is the next pair's key (depth 0: one plain pair),
so answering "what does K finally map to?" needs d further lookups. By default
3 chains per depth 0-4 (45 pairs); the other 95 pairs are distractors whose
keys and values appear nowhere else. Every pair is one turn
"Key <uuid> maps to value <uuid>.", shuffled and spread over a few dated
sessions, and also one structured fact (``Conversation.facts``: key MAPS_TO
value, citing its turn), which a system with a fact store imports as such
(graphmem: ``add_fact``), as MemGPT's task hands the pairs over as data. One question per chain; its evidence is the chain's turn ids (in
chain order) and its answer the terminal value.

Retrieval metric per depth (:func:`lookup_found`): does the context hold the
terminal value, and does it hold every pair of the chain.

Example:
    >>> conv = generate(seed=0)
    >>> len(conv.turns_by_id()), len(conv.questions)
    (140, 15)
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Sequence
from datetime import datetime, timedelta

from pydantic import BaseModel, ConfigDict

from graphmem.schema.errors import InvalidInput
from graphmem.ingest.loaders import Conversation, Question, Session, StatedFact, Turn
from graphmem.schema.time import UTC

PAIRS = 140
PREDICATE = "MAPS_TO"
DEPTHS = (0, 1, 2, 3, 4)
CHAINS_PER_DEPTH = 3
SESSIONS = 4
START = datetime(2024, 1, 8, 10, 0, tzinfo=UTC)


class Chain(BaseModel):
    """Keys k0..kd and the terminal value: k0 -> k1 -> ... -> kd -> value."""

    model_config = ConfigDict(frozen=True)

    depth: int
    keys: tuple[str, ...]
    value: str

    def pairs(self) -> list[tuple[str, str]]:
        targets = self.keys[1:] + (self.value,)
        return list(zip(self.keys, targets, strict=True))


def turn_text(key: str, value: str) -> str:
    return f"Key {key} maps to value {value}."


def question_text(key: str) -> str:
    return (f"What does key {key} finally map to? Follow the chain: when a value is itself a key, "
            "look that key up, until a value is not a key.")


def make_chains(rng: random.Random, depths: Sequence[int], per_depth: int) -> list[Chain]:
    def new() -> str:
        return str(uuid.UUID(int=rng.getrandbits(128), version=4))

    return [Chain(depth=d, keys=tuple(new() for _ in range(d + 1)), value=new()) for d in depths for _ in range(per_depth)]


def generate(seed: int = 0, pairs: int = PAIRS, depths: Sequence[int] = DEPTHS,
             chains_per_depth: int = CHAINS_PER_DEPTH, sessions: int = SESSIONS) -> Conversation:
    """The task as a `Conversation` (id ``nested_kv_<seed>``); the same seed gives the same task."""
    rng = random.Random(seed)
    chains = make_chains(rng, depths, chains_per_depth)
    chain_pairs = [p for c in chains for p in c.pairs()]
    if len(chain_pairs) > pairs:
        raise InvalidInput(f"{len(chain_pairs)} chain pairs do not fit in {pairs} pairs")
    filler = make_chains(rng, [0], pairs - len(chain_pairs))
    all_pairs = chain_pairs + [p for c in filler for p in c.pairs()]
    rng.shuffle(all_pairs)
    per_session = -(-len(all_pairs) // sessions)
    turn_of: dict[tuple[str, str], str] = {}
    built = []
    for s in range(sessions):
        chunk = all_pairs[s * per_session:(s + 1) * per_session]
        turns = []
        for i, pair in enumerate(chunk):
            turn_of[pair] = f"S{s + 1}:{i}"
            turns.append(Turn(speaker="user", content=turn_text(*pair), id=turn_of[pair]))
        built.append(Session(session_id=f"session_{s + 1}", session_time=START + timedelta(days=7 * s),
                             turns=tuple(turns)))
    asked = START + timedelta(days=7 * sessions)
    questions = tuple(
        Question(question_id=f"nkv{seed}_d{c.depth}_{i}", question=question_text(c.keys[0]), answer=c.value,
                 category=f"depth {c.depth}", evidence=tuple(turn_of[p] for p in c.pairs()), question_time=asked,
                 answer_session_ids=tuple(dict.fromkeys(turn_of[p].split(":")[0].replace("S", "session_")
                                                        for p in c.pairs())))
        for i, c in enumerate(chains)
    )
    facts = tuple(StatedFact(subject=k, predicate=PREDICATE, object=v, fact=turn_text(k, v), turn_id=turn_of[(k, v)])
                  for k, v in all_pairs)
    return Conversation(conversation_id=f"nested_kv_{seed}", speakers=("user",), sessions=tuple(built),
                        questions=questions, facts=facts)


def chain_values(question: Question, conversation: Conversation) -> list[str]:
    """Every key and value of the question's chain, from its evidence turns."""
    turns = conversation.turns_by_id()
    words = [turns[t].content.split() for t in question.evidence]
    return list(dict.fromkeys(w for parts in words for w in (parts[1], parts[5].rstrip("."))))


def lookup_found(text: str, question: Question, conversation: Conversation) -> dict[str, object]:
    """Per-question nested-lookup figures: the chain's depth, terminal value and whole chain in `text`."""
    depth = len(question.evidence) - 1
    return {"depth": depth, "value_found": bool(question.answer and question.answer in text),
            "chain_found": all(v in text for v in chain_values(question, conversation))}


def by_depth(extras: Sequence[dict[str, object]]) -> dict[str, dict[str, float]]:
    """Share of questions with the value / the whole chain in context, per depth (pure)."""
    out: dict[str, dict[str, float]] = {}
    for depth in sorted({int(e["depth"]) for e in extras}):
        rows = [e for e in extras if int(e["depth"]) == depth]
        out[str(depth)] = {"questions": len(rows),
                           "value_found": sum(bool(e["value_found"]) for e in rows) / len(rows),
                           "chain_found": sum(bool(e["chain_found"]) for e in rows) / len(rows)}
    return out
