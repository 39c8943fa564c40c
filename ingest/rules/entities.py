"""Which names of a turn become entities, and of what type.

In a person's turn, every fact's subject and object is one (typed by its
predicate), and so is every proper noun that is not a sentence opener,
pronoun, month or weekday. An assistant's turn (role assistant, system, tool)
yields no facts, and only the names the people in the conversation said
before it: its lists of brands and places are not the user's world.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from graphmem.ingest.extraction import ExtractedEntity, ExtractedFact
from graphmem.ingest.rules.drafts import Sentence
from graphmem.ingest.rules.grammar import RELATIONS, STOP_NAMES

__all__ = ["ASSISTANT_ROLES", "entities", "mentioned_before", "proper_nouns"]

WORD = re.compile(r"[^\W\d_][\w'-]*")

_OBJECT_TYPES = {
    **dict.fromkeys(("LIVES_IN", "MOVED_TO", "MOVED_FROM", "LIVED_IN", "IS_FROM", "GREW_UP_IN", "BORN_IN",
                     "VISITED"), "Place"),
    **dict.fromkeys(("WORKS_AT", "STUDIES_AT", "GRADUATED_FROM"), "Organization"),
    **dict.fromkeys({pred for pred, _, _ in RELATIONS.values()}, "Person"),
    "HAS_PET": "Pet", "ATTENDED": "Event", "LEFT_JOB": "Organization",
}


def entities(sentences: list[Sentence], facts: list[ExtractedFact], speaker: str) -> list[ExtractedEntity]:
    """Proper nouns of the turn, then every fact's subject and object, each once."""
    types = {fact.subject: "Person" for fact in facts}
    for fact in facts:
        types.setdefault(fact.object, _OBJECT_TYPES.get(fact.predicate, "Entity"))
    found: dict[str, ExtractedEntity] = {}
    for name in proper_nouns([s.text for s in sentences], {speaker, *types}):
        found.setdefault(name.casefold(), ExtractedEntity(name=name, entity_type=types.get(name, "Entity")))
    for name, entity_type in types.items():
        known = found.get(name.casefold())
        if known is None or known.entity_type == "Entity":
            found[name.casefold()] = ExtractedEntity(name=known.name if known else name, entity_type=entity_type)
    return list(found.values())


ASSISTANT_ROLES = frozenset({"assistant", "system", "tool"})


def mentioned_before(sentences: list[Sentence], previous: Sequence[str]) -> list[ExtractedEntity]:
    """An assistant's turn states nothing about the user's world and its names are
    the assistant's (a list of brands, a history lesson): only names the people in
    the conversation said earlier (`previous`, "speaker: text" lines) become entities.

    The people must have said it *as a name*: the assistant's headings ("Running:",
    "Budget Hotels", "Include") are capitalised common words, and matching them to a
    user's lowercase "running" made them entities (about half of all entities on the
    LongMemEval sample were such assistant words)."""
    people = [line.split(": ", 1)[-1] for line in previous
              if line.split(": ", 1)[0].casefold() not in ASSISTANT_ROLES]
    named = set(proper_nouns(people, set()))
    said = {name.casefold() for name in named}
    if not said:
        return []
    found: dict[str, ExtractedEntity] = {}
    for name in proper_nouns([s.text for s in sentences], named):
        if name.casefold() in said:
            found.setdefault(name.casefold(), ExtractedEntity(name=name))
    return list(found.values())


def proper_nouns(texts: list[str], known: set[str]) -> list[str]:
    """Capitalised word runs that are not sentence starters, pronouns, months or weekdays.

    A single capitalised word opening a sentence counts only when it is known
    to be a name (`known`, or capitalised mid-sentence elsewhere in `texts`):
    "Painting helps me" names nothing, "Caroline lives here" does if Caroline is known.
    """
    runs = [run for text in texts for run in _capital_runs(text)]
    mid_sentence = {name for name, opens in runs if not opens}
    return [name for name, opens in runs if not opens or " " in name or name in known or name in mid_sentence]


def _capital_runs(text: str) -> list[tuple[str, bool]]:
    """(run, opens the sentence) for each run like "New York", "Bank of America"."""
    tokens = list(WORD.finditer(text))
    runs: list[tuple[str, bool]] = []
    current: list[str] = []
    opens, prev_end = False, 0
    for i, m in enumerate(tokens):
        if not current and not m[0][:1].isupper():  # most words: no run to extend, none to start
            opens, prev_end = i == 0, m.end()
            continue
        word = _bare(m[0])
        gap = text[prev_end:m.start()]
        adjacent = bool(current) and gap.isspace()
        if _is_capital(word) and adjacent:
            current.append(word)
        elif current and _is_capital(word) and gap.strip() == "&" and len(gap) <= 3:  # "Hartwell & Co"
            current += ["&", word]
        elif adjacent and word in ("of", "de", "the") and _joins(text, tokens, i):
            current.append(word)
        else:
            if current:
                runs.append((" ".join(current), opens))
            current = [word] if _is_capital(word) else []
            opens = i == 0
        prev_end = m.end()
    if current:
        runs.append((" ".join(current), opens))
    return runs


def _joins(text: str, tokens: list[re.Match[str]], i: int) -> bool:
    """ "of" / "of the" / "de" inside a name: "Bank of America", "Lord of the Rings"."""
    j = i + 1
    if tokens[i][0] == "of" and j < len(tokens) and tokens[j][0] == "the":
        j += 1
    if tokens[i][0] == "the" and (i == 0 or tokens[i - 1][0] != "of"):
        return False
    return j < len(tokens) and _is_capital(_bare(tokens[j][0])) and all(
        text[tokens[k].end():tokens[k + 1].start()].isspace() for k in range(i, j))


def _bare(word: str) -> str:
    return word.removesuffix("'s").rstrip("'-")


def _is_capital(word: str) -> bool:
    return len(word) > 1 and word[0].isupper() and word.lower() not in STOP_NAMES
