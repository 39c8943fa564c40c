"""What every topic's handlers share: the sentence they read, the draft they return.

A handler gets a pattern's match and the `Sentence` it matched in and returns
`Draft`s: facts before their time is known (`rules.timing` dates them). The
helpers here are the few every topic needs: who the subject is, the subject
and verb in the third person, an object introduced by a preposition, an
organisation name.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

from graphmem.ingest.rules.grammar import ADV, ANYMORE, CLAUSE_BREAK, HYPOTHETICAL, RELATIONS, Trigger
from graphmem.ingest.rules.text import PREP_STOP, Piece, own, strip_article, take_phrase, take_proper
from graphmem.parsing.dates import TimeSpan, find_time_spans

# how much a fact of each kind matters to decay and capacity (ARCHITECTURE §7)
FAMILY, HEALTH, HOME, WORK, DIETARY, PET, FRIEND, LIKE, PLAN, OWN, EVENT = (
    0.9, 0.9, 0.8, 0.8, 0.7, 0.7, 0.6, 0.5, 0.5, 0.5, 0.4)


@dataclass(frozen=True)
class Draft:
    """A fact before its time is known. ``kind``: state (holds from), event (happens
    at), plan (is planned for) or end (stops holding at)."""

    subject: str
    predicate: str
    object: str
    text: str
    kind: str
    importance: float
    single_valued: bool = False
    slot: str | None = None
    span: tuple[int, int] = (0, 0)
    derived_from: tuple[int, ...] = ()
    dated: bool = True
    closes_only: bool = False  # an ending the graph keeps only if it closes an open fact
    ends_any: bool = False  # an ending naming no value ("I'm single again"): closes the one open fact of its kind
    bounded_only: bool = False  # kept only when its clause states its interval ("I worked at Acme from 2018 to 2022")
    min_days: int = 0  # and that interval, with its start, spans this many days ("I was in Denver" for a stay, not a trip)


_MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|"
          r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)")
_DATED_WORDS = re.compile(rf"\b(?:(?:from|between|since|until|till)\s+(?:about|around|roughly|early|mid|late)\s+"
                          rf"(?:{_MONTH}\.?\s+)?(?:19|20)\d\d|{_MONTH}\.?\s+(?:19|20)\d\d\s*"
                          r"(?:[-\u2013\u2014]|to|through|thru|till|until)\s)", re.IGNORECASE)


class Sentence:
    """One sentence, with its time expressions and clause breaks computed once."""

    def __init__(self, text: str, speaker: str, turn: str = "", before: str = "") -> None:
        self.text = text
        self.speaker = speaker
        self.turn = turn or text  # the whole turn: its words may say which slot a phrase is ("first-year ... at McGill")
        self.before = before  # the (two) sentences of the turn before this one ("... my wife. The divorce was finalised.")

    @cached_property
    def spans(self) -> tuple[TimeSpan, ...]:
        return tuple(find_time_spans(self.text))

    @cached_property
    def breaks(self) -> tuple[tuple[int, int], ...]:
        return tuple((m.start(), m.end()) for m in CLAUSE_BREAK.finditer(self.text))

    @cached_property
    def stops(self) -> tuple[int, ...]:
        """Where each time expression starts, and each time said roughly or as a range's bare half
        ("from about 2015", "oct 2017 – dec 2022", which the time expressions alone miss), in order."""
        return tuple(sorted({*(span.start for span in self.spans), *(m.start() for m in _DATED_WORDS.finditer(self.text))}))

    def limit(self, pos: int) -> int:
        """Where an object starting at `pos` must end: at the next time expression."""
        i = bisect_left(self.stops, pos)
        return self.stops[i] if i < len(self.stops) else len(self.text)

    def clause(self, start: int, end: int) -> tuple[int, int]:
        left = max((b_end for _, b_end in self.breaks if b_end <= start), default=0)
        right = min((b_start for b_start, _ in self.breaks if b_start >= end), default=len(self.text))
        return left, right

    def says_anymore(self, start: int, end: int) -> bool:
        """ "anymore" / "no more" after `end` in the clause: "I don't live in Paris anymore"."""
        return ANYMORE.search(self.text, end, self.clause(start, end)[1] + 12) is not None

    def hedged(self, start: int) -> bool:
        """A conditional, wish or negation earlier in the clause ("if I lived in Paris")."""
        left = max(self.clause(start, start)[0], start - 120)  # a hedge governs a few words, not a page
        return HYPOTHETICAL.search(self.text, left, start) is not None

    def drafts(self, rules: tuple[Rule, ...]) -> list[list[Draft]]:
        """Each rule's drafts in rule order, one list per match; a rule runs only when one of
        its keywords occurs in the lowercased sentence, or when it has none (`Prefilter`)."""
        groups = []
        for (pattern, _), handler, guarded in prefilter(rules).passing(self.text.lower()):
            for m in pattern.finditer(self.text):
                if not (guarded and self.hedged(m.start())):
                    drafts = handler(m, self)
                    if drafts:
                        groups.append(drafts)
        return groups


Handler = Callable[[re.Match[str], Sentence], list[Draft]]


class Rule(NamedTuple):
    """A topic's trigger with the handler that reads its match; ``guarded``: skip
    the match when the clause is hedged ("if I lived in Paris")."""

    trigger: Trigger
    handler: Handler
    guarded: bool = True


class Prefilter:
    """Which rules of a tuple may match a sentence: those with no keywords, and those
    one of whose keywords is a substring of the lowercased sentence, in rule order.

    Why an automaton: testing each rule's keywords in turn (``any(k in low for k in
    keywords)``) took ~2,000 substring tests and generator steps a sentence for ~180
    rules, the biggest Python cost of the rules. Aho-Corasick finds every keyword
    occurrence, overlapping ones included, in one pass over the sentence, so the rules
    that pass are exactly those the per-rule test passed (a property test checks it).
    Each keyword carries the set of rules naming it, as bits of an int.
    """

    def __init__(self, rules: Sequence[Rule]) -> None:
        import ahocorasick

        self.rules = tuple(rules)
        self.always = 0  # rules with no keywords, or an empty one ("" is in every string)
        masks: dict[str, int] = {}
        for i, rule in enumerate(self.rules):
            keywords = rule.trigger.keywords  # not the pattern: it compiles on first use
            if not keywords or "" in keywords:
                self.always |= 1 << i
            for keyword in keywords:
                masks[keyword] = masks.get(keyword, 0) | 1 << i
        masks.pop("", None)
        self._automaton = None
        if masks:
            self._automaton = ahocorasick.Automaton()
            for keyword, mask in masks.items():
                self._automaton.add_word(keyword, mask)
            self._automaton.make_automaton()

    def passing(self, low: str) -> Iterator[Rule]:
        """The rules that may match the sentence whose lowercased text is `low`."""
        mask = self.always
        if self._automaton is not None:
            for _, bits in self._automaton.iter(low):
                mask |= bits
        while mask:
            bit = mask & -mask
            yield self.rules[bit.bit_length() - 1]
            mask ^= bit


_PREFILTERS: dict[int, tuple[Sequence[Rule], Prefilter]] = {}


def prefilter(rules: Sequence[Rule]) -> Prefilter:
    """The `Prefilter` of `rules`, built on first use: rule tuples are module constants,
    so one is built per tuple (kept with it, so its id is never reused)."""
    entry = _PREFILTERS.get(id(rules))
    if entry is None or entry[0] is not rules:
        entry = _PREFILTERS[id(rules)] = (rules, Prefilter(rules))
    return entry[1]


# ------------------------------------------------------------------ helpers

_IRREGULAR_PAST = frozenset(
    "went got took left lost found bought became grew came gave made ran began quit put set cut split broke "
    "spoke met saw had did was were said knew thought felt kept sent spent won wrote".split())
_BE_HAVE = {"'m": "is", "am": "is", "'re": "is", "are": "is", "'ve": "has", "have": "has", "'ll": "will",
            "don't": "doesn't", "do": "does", "were": "was"}
_ADV_WORDS = frozenset(re.findall(r"[a-z']+", ADV))
QUANTITY = re.compile(r"(?:a\s+(?:little\s+)?bit\s+of|a\s+little|a\s+lot\s+of|lots\s+of|some|any|more|less)\s+",
                      re.IGNORECASE)


def _first_person(m: re.Match[str]) -> bool:
    """I or we; "İ" too, which the patterns' case-insensitive "I" matches and lowers to "i" and a dot."""
    return m["subj"].lower().replace("\u0307", "") in ("i", "we")


def subject_of(m: re.Match[str], s: Sentence) -> str:
    """Who a statement is about: the speaker for I/we, a named or unnamed relative, a name."""
    if _first_person(m):
        return s.speaker
    if m["srel"]:
        return m["srelname"] or f"{s.speaker}'s {RELATIONS[m['srel'].lower()][1]}"
    return m["sname"] or s.speaker


def says(m: re.Match[str], s: Sentence, end: int | None = None) -> str:
    """Subject and verb in the third person: "I've always loved" -> "Mel has always loved"."""
    verb = s.text[m.end("subj"):m.end() if end is None else end].split()
    first_person = _first_person(m)
    for i, word in enumerate(verb):
        low = word.lower()
        if low in _ADV_WORDS and i + 1 < len(verb):
            if low in ("both", "all"):
                verb[i] = ""
            continue
        if first_person and low in _BE_HAVE:
            verb[i] = _BE_HAVE[low]
        elif first_person and low.isalpha() and not low.endswith("ed") and low not in _IRREGULAR_PAST | {
                "can", "will", "never", "used", "no"}:
            verb[i] = low + ("es" if low.endswith(("s", "sh", "ch", "x", "z", "o")) else "s") \
                if not re.search(r"[^aeiou]y$", low) else low[:-1] + "ies"
        break
    return " ".join([subject_of(m, s), *filter(None, verb)]).replace(" 's", "'s")


def article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def match_span(m: re.Match[str], end: int) -> tuple[int, int]:
    return m.start(), max(end, m.end())


def tail_object(s: Sentence, pos: int, lead: str, allow_phrase: bool = True) -> Piece | None:
    """An object introduced by `lead` ("at", "as a") right after `pos`."""
    m = re.compile(rf"\s+(?:{lead})\s+", re.IGNORECASE).match(s.text, pos)
    if not m:
        return None
    limit = s.limit(m.end())
    return take_proper(s.text, m.end(), limit, allow_lower=False) or (
        take_phrase(s.text, m.end(), limit, 4, PREP_STOP) if allow_phrase else None)


ORG_REJECT = frozenset("home night nights weekends myself least times once first all hard remote remotely "
                       "living it the moment".split())
# "working as a paramedic for six years", "work for a living": a span of time or a purpose, no employer
_NOT_AN_EMPLOYER_END = frozenset("year years month months week weeks day days hour hours while ages decade decades "
                                 "living fun free now moment time".split())


def employer_ok(org: Piece) -> bool:
    """An employer (or school) name the rules can be sure of."""
    words = strip_article(org.name).lower().split()
    return bool(words) and words[0] not in ORG_REJECT and words[-1] not in _NOT_AN_EMPLOYER_END


def take_org(s: Sentence, pos: int, lower: bool = True) -> Piece | None:
    """An employer or school at `pos`: a proper name, else (`lower`) a short phrase."""
    limit = s.limit(pos)
    obj = take_proper(s.text, pos, limit, allow_lower=False) or (
        take_phrase(s.text, pos, limit, 4, PREP_STOP) if lower else None)
    if obj is None or not employer_ok(obj):
        return None
    return Piece(strip_article(obj.name), own(obj.said, s.speaker), obj.end)
