"""Text -> search terms: casefold, split, drop stopwords, light stemming.

The same function tokenizes documents and queries, so whatever it does to a
word it does on both sides. It is pure and deterministic; its regexes and word
lists are built once at import and never change.

- Splitting keeps runs of Unicode letters and digits (``[^\\W_]+``), so
  "café", "naïve", "3pm" and "2023" survive and punctuation never does.
- Stopwords are a small English list: articles, pronouns, auxiliaries,
  prepositions, a few conjunctions and the fragments contractions leave
  ("don't" -> "don", "t"). Words that carry meaning in memory questions are
  kept on purpose: before, after, during, since, until, first, last, never,
  not, no, when, where, ...
- Stemming is a tiny Porter-like pass (see `stem`) with a minimum stem of
  three characters, so "lives"/"living"/"lived"/"live" all become "liv" and
  "painting"/"paints"/"painted" become "paint".
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["KEPT_WORDS", "MIN_STEM", "STOPWORDS", "stem", "tokenize", "tokenize_many"]

MIN_STEM = 3

_WORD = re.compile(r"[^\W_]+")
_DOUBLE_END = re.compile(r"([b-df-hj-km-npqrtv-z])\1$")  # doubled consonant, not l/s/z

STOPWORDS: frozenset[str] = frozenset(
    """
    a an the
    i me my mine myself you your yours yourself yourselves he him his himself
    she her hers herself it its itself we us our ours ourselves they them their
    theirs themselves this that these those what which who whom whose
    am is are was were be been being do does did doing have has had having
    will would shall should can could may might must
    of in on at to for with by from about into onto over under up down out off
    through between among against via per upon within without toward towards
    and or but nor so than then too very just also
    s t m d ll re ve
    """.split()
)

# Words a general-purpose list would drop but memory questions turn on.
KEPT_WORDS: frozenset[str] = frozenset(
    """
    before after during since until till first last never ever always not no
    again once when where why how still now ago
    """.split()
)


def stem(word: str) -> str:
    """Strip a plural and one common English suffix, keeping three characters.

    Steps: ``ies``/``ied`` -> ``y`` (and stop); else drop a plural ``s`` (not
    after ``s``, ``u`` or ``i``: "class", "campus", "analysis"); then drop one
    ``ing`` or ``ed``, undoubling a final consonant ("running" -> "run");
    finally drop a trailing ``e``, so "live" and "lives" meet "living".
    Words with digits or non-letters are returned unchanged.

    Example:
        >>> [stem(w) for w in ("lives", "living", "lived", "painting", "studies")]
        ['liv', 'liv', 'liv', 'paint', 'study']
    """
    if not word.isalpha() or len(word) <= MIN_STEM:
        return word
    if word.endswith(("ies", "ied")) and len(word) - 3 >= MIN_STEM:
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) - 1 >= MIN_STEM:
        word = word[:-1]
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= MIN_STEM:
            word = word[: -len(suffix)]
            if _DOUBLE_END.search(word) and len(word) > MIN_STEM:
                word = word[:-1]
            break
    return _drop_e(word)


def _drop_e(word: str) -> str:
    return word[:-1] if word.endswith("e") and len(word) - 1 >= MIN_STEM else word


def tokenize(text: str) -> list[str]:
    """Split `text` into stemmed, casefolded search terms without stopwords.

    Example:
        >>> tokenize("Where does she live? She lived in Lyon before 2020.")
        ['wher', 'liv', 'liv', 'lyon', 'befor', '2020']
    """
    return [stem(w) for w in _WORD.findall(text.casefold()) if w not in STOPWORDS]


def tokenize_many(texts: Iterable[str]) -> list[list[str]]:
    """`tokenize` each text; faster for a corpus, as each distinct word is stemmed once.

    Example:
        >>> tokenize_many(["Painting walls", "She paints"])
        [['paint', 'wall'], ['paint']]
    """
    stems: dict[str, str] = {}  # local memo: the function stays pure
    out = []
    for text in texts:
        words = [w for w in _WORD.findall(text.casefold()) if w not in STOPWORDS]
        out.append([stems.get(w) or stems.setdefault(w, stem(w)) for w in words])
    return out
