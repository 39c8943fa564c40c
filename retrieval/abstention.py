"""Whether a packet should say "you never told me": the decision and its signals.

A real memory shares words and names with almost any question about its owner,
so "nothing is similar" (the old rule) never fires there: "What is Caroline's
blood type?" asked of a memory full of Caroline scores a best cosine of 0.57,
while answerable questions sit at 0.55 at their 5th percentile. Two signals
separate them, both blind to the names in the question:

- **coverage**: the share of the question's topic words (content words that are
  not question words, dates or names the memory knows), weighted by idf, that
  the single best stored fact, or turn **with the two turns before and after it**
  in its session, contains. An answer is often an exchange ("Did you take the test
  again?" / "Yes, third time now"), so its words can fall either side of one turn,
  or two when a reply and a follow-up come between ("I did!" / "And?" / "Fourth
  attempt"); a never-said topic word is in no turn, so a window cannot find it
  (issue 12, ninth round, one turn each side: on the tuning split three answerable
  questions stop abstaining; tenth round, two: two more; none of the never-said ones
  does either time; `SearchRecipe.abstain_window`). Never-said questions ask about
  a topic no turn holds ("blood", "dentist"), answerable ones mostly do.
- **masked similarity**: the best cosine to any stored turn or fact of the
  question with its names replaced by "someone", so a name shared with every
  turn cannot lift it. Paraphrased answerable questions keep a high one.

Only **proper names** are masked or left out of the topic words: a known name the
graph stores spelt as one ("Caroline", "LGBTQ"; `spelt_as_name`). The graph's entities
also hold common nouns ("car", "running", "dog": the offline rules name activities and
things, stored in lower case), and those are the topic itself: "When did Maria get in a
car accident?" masked as "... get in a someone accident?" and without "car" among its
topic words looked like a question about nothing stored, and abstained on the answer's
turn. Issue 12's ninth round told names apart by the question's case (`proper_names`,
now the ablation's): a question in lower case then masked every name, and one whose only
capital was "I" ("did I ever tell you maria's blood type?") masked none; the graph's
spelling does not depend on how the question is typed (eleventh round).

The packet abstains when both are low. The two thresholds were chosen on the
tuning split (LoCoMo conv-26, conv-30, conv-41 and their never-said questions in
`evals/data/never_said.json`) by `bench/abstention.py`, which also prints the
rates on the reporting split; README "Abstention" has the figures.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from graphmem.retrieval.bm25 import BM25Index, plain_idf
from graphmem.retrieval.tokenize import KEPT_WORDS, tokenize

COVERAGE_BELOW = 0.30
MASKED_SIMILARITY_BELOW = 0.40
SMALL_MEMORY = 50
SMALL_MEMORY_SIMILARITY_BELOW = 0.25

_QUESTION_WORDS = frozenset(
    tokenize(
        "what when where who whom whose which why how did does do is are was were likely would could "
        "ever kind type name many much long often tell know remember recall say said mention mentioned talk "
        "happen happened think describe explain anything something thing things"
    )
) | frozenset("what when where who whom whose which why how".split())
_TIME_WORDS = frozenset(
    tokenize(
        "january february march april may june july august september october november december "
        "jan feb mar apr jun jul aug sep sept oct nov dec monday tuesday wednesday thursday friday "
        "saturday sunday today yesterday tomorrow week weekend month year day morning evening night"
    )
)
_MODE_WORDS = frozenset(tokenize(" ".join(KEPT_WORDS)))
PLACEHOLDER = "someone"


@dataclass(frozen=True)
class AbstainSignals:
    """What the decision reads; `coverage` is 1.0 when the question has no topic word."""

    coverage: float
    masked_similarity: float
    documents: int = SMALL_MEMORY


def proper_names(query: str, keys: Iterable[str]) -> list[str]:
    """The known names (`keys`, normalised, as `QueryPlan.entity_keys`) that `query` writes
    with a capital letter: people and places, not the common nouns the graph also knows as
    entities (pure). A question with no capital after its first letter ("where does sarah
    live?") does not use case to tell names apart, so every key counts as a name there.

    Example:
        >>> proper_names("When did Maria get in a car accident?", ["maria", "car"])
        ['maria']
    """
    if not any(c.isupper() for c in query[1:]):
        return list(keys)
    out = []
    for key in keys:
        words = [re.escape(w) for w in re.findall(r"[^\W_]+", key)]
        if not words:
            continue
        pattern = r"\b" + r"[\W_]+".join(words) + r"\b"
        if any(any(c.isupper() for c in m.group(0)) for m in re.finditer(pattern, query, flags=re.IGNORECASE)):
            out.append(key)
    return out


def spelt_as_name(name: str) -> bool:
    """Whether a stored entity name is spelt as a proper name: it has a word that starts with a
    letter, and every such word holds a capital ("Sarah", "East Coast", "LGBTQ", "iPhone"), where
    the offline rules' common nouns and activities are stored in lower case ("car", "running",
    "trip to the East Coast", "5K charity run") (pure). Why from the stored spelling and not the
    question's: a question's case says little ("what did I tell you about sarah?" writes the
    pronoun, not the name, with a capital; "How many bikes do I own?" writes none), while the
    graph spells a name the way its turns did.

    Example:
        >>> [spelt_as_name(n) for n in ("Sarah", "East Coast", "car", "trip to the East Coast", "5K charity run")]
        [True, True, False, False, False]
    """
    words = re.findall(r"(?<![\w'’])[^\W\d_][\w'’-]*", name)
    return bool(words) and all(any(c.isupper() for c in w) for w in words)


def topic_terms(query: str, names: Iterable[str]) -> list[str]:
    """The question's content terms, without question words, time and mode words
    ("before", "still", "ago"), dates, numbers and known names."""
    named = {term for name in names for term in tokenize(name)}
    terms = dict.fromkeys(tokenize(query))
    skip = _QUESTION_WORDS | _TIME_WORDS | _MODE_WORDS | named
    return [t for t in terms if t not in skip and not t.isdigit()]


def coverage(indexes: Sequence[BM25Index], terms: Sequence[str]) -> float:
    """The best share of `terms`' idf mass that one document of any index contains."""
    if not terms:
        return 1.0
    best = 0.0
    for index in indexes:
        if len(index):
            best = max(best, index.best_coverage(terms))
    return best


def exchange_coverage(index: BM25Index, terms: Sequence[str], adjacent: np.ndarray) -> float:
    """The best share of `terms`' idf mass (plain idf, as `BM25Index.best_coverage`) that one
    document holds together with its `adjacent` ones (per document, the positions of its
    neighbours, -1 for none; `TurnTable.adjacent`) (pure).

    Example:
        >>> index = BM25Index.build(["a", "b", "c"], ["did you take the test", "yes again", "tea"])
        >>> round(exchange_coverage(index, ["test", "again"], np.array([[-1, 1], [0, -1], [-1, -1]])), 2)
        1.0
    """
    n_docs = len(index)
    if not terms:
        return 1.0
    if not n_docs:
        return 0.0
    weights = index.term_weights
    found = np.zeros(n_docs)
    total = 0.0
    for term in dict.fromkeys(terms):
        present = np.zeros(n_docs + 1, dtype=bool)  # the last slot stands for "no neighbour" (-1)
        ids = index.term_ids([term])
        if ids:
            present[weights.indices[weights.indptr[ids[0]]:weights.indptr[ids[0] + 1]]] = True
        mass = plain_idf(int(present.sum()), n_docs)
        total += mass
        near = present[:n_docs].copy()
        for column in range(adjacent.shape[1]):
            near |= present[adjacent[:, column]]
        found += near * mass
    return float(found.max() / total) if total > 0 else 0.0


def mask_names(query: str, names: Iterable[str]) -> str:
    """`query` with every known name (and its possessive) replaced by a placeholder.

    Example:
        >>> mask_names("What is Caroline's blood type?", ["caroline"])
        'What is someone blood type?'
    """
    masked = query
    for name in sorted(names, key=len, reverse=True):
        words = [re.escape(w) for w in re.findall(r"[^\W_]+", name)]
        if words:
            pattern = r"\b" + r"[\W_]+".join(words) + r"(?:'s|’s)?\b"
            masked = re.sub(pattern, PLACEHOLDER, masked, flags=re.IGNORECASE)
    return masked


def decide(signals: AbstainSignals) -> tuple[bool, str]:
    """(abstain, reason): abstain only when both signals say nothing stored is about this.

    A memory of a few turns has too small a vocabulary for missing words to mean
    much ("What foods do I dislike?" against "I can't stand cilantro"), so below
    `SMALL_MEMORY` stored turns and facts the similarity must also be very low
    (0.25, set on graphmem's own forgetting set; LoCoMo memories are ten times larger).
    """
    similarity_below = MASKED_SIMILARITY_BELOW if signals.documents >= SMALL_MEMORY else SMALL_MEMORY_SIMILARITY_BELOW
    if signals.coverage < COVERAGE_BELOW and signals.masked_similarity < similarity_below:
        return True, (
            f"nothing stored is about this (topic-word coverage {signals.coverage:.2f} < {COVERAGE_BELOW}, "
            f"similarity without names {signals.masked_similarity:.2f} < {similarity_below})"
        )
    return False, ""
