"""The abstention signals of one search, measured against the store and warm indexes.

`retrieval.abstention` holds the pure parts (which names a question writes, its topic
words, coverage, the decision); this module gathers what they read for one search:
the names to mask, the topic-word coverage over the user's turns and facts, and the
best similarity of the question with those names masked, which costs the store one
vector query per index. `retrieval.search` calls it; it calls nothing of the search.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from graphmem.graph.store import Store
from graphmem.retrieval import abstention
from graphmem.retrieval.index import UserIndexes
from graphmem.retrieval.query import QueryPlan
from graphmem.retrieval.recipes import SearchRecipe
from graphmem.retrieval.scoped import EVERY_SCOPE, ScopedView
from graphmem.retrieval.turn_vectors import nearest_turns


@dataclass(frozen=True)
class AskedQuestion:
    """What the search already knows of the question when it measures abstention.

    `names`: the known names masked and left out of the topic words (`names_to_mask`);
    `best`: the best similarity of the unmasked question to any candidate fact or turn;
    `masked_vector`: the masked question's embedding, None when masking left it unchanged
    (then the masked similarity is `best`)."""

    text: str
    names: Sequence[str]
    best: float
    masked_vector: list[float] | None = None


def names_to_mask(plan: QueryPlan, recipe: SearchRecipe, proper_keys: Collection[str] = frozenset()) -> list[str]:
    """The question's known names that abstention masks and leaves out of its topic words:
    every one (`abstain_names` "all"), the ones the graph stores spelt as proper names
    ("stored": `proper_keys`, `UserIndexes.proper_keys`), or the ones the question writes
    capitalised ("proper")."""
    if recipe.abstain_names == "all":
        return list(plan.entity_keys)
    if recipe.abstain_names == "stored":
        return [key for key in plan.entity_keys if key in proper_keys]
    return abstention.proper_names(plan.text, plan.entity_keys)


def measure(store: Store, user_id: str, idx: UserIndexes, question: AskedQuestion, recipe: SearchRecipe,
            view: ScopedView = EVERY_SCOPE) -> abstention.AbstainSignals:
    """Topic-word coverage (with `recipe.abstain_exchange`, of each turn read with its
    `recipe.abstain_window` neighbours on each side) and the best similarity of the question
    with its names masked, over the turns and facts of `view`'s scopes."""
    terms = abstention.topic_terms(question.text, question.names)
    if recipe.abstain_exchange and idx.turns is not None and len(idx.episodes):
        covered = max(abstention.exchange_coverage(idx.episodes, terms, idx.turns.near(recipe.abstain_window)),
                      abstention.coverage((idx.facts,), terms))
    else:
        covered = abstention.coverage((idx.episodes, idx.facts), terms)
    similarity = question.best
    if question.masked_vector is not None:
        vector = question.masked_vector
        turns = nearest_turns(store, user_id, idx, vector, 1, exact=recipe.exact_turn_vectors, view=view
                              ) if len(idx.episodes) else []
        rows = store.run(user_id, view.vector_facts(vector, 1), read_only=True)
        similarity = max([s for _, s in turns] + [r["similarity"] for r in rows], default=0.0)
    return abstention.AbstainSignals(coverage=covered, masked_similarity=similarity,
                                     documents=len(idx.episodes) + len(idx.facts))
