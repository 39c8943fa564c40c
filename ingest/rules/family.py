"""Family and relationships: relatives, partners, spouses, friends, and break-ups.

"my sister Anna", "Anna is my sister", "I have a brother named Tom" name a
relative (HAS_SISTER, HAS_BROTHER, ...; the words are `grammar.RELATIONS`, which
subjects read too). MARRIED_TO and PARTNER_OF are single-valued; "broke up
with", "divorced", "separated from" end the open one.
"""

from __future__ import annotations

import re

from graphmem.ingest.rules.drafts import (
    FAMILY, FRIEND, Draft, Rule, Sentence, article, match_span, subject_of)
from graphmem.ingest.rules.grammar import NAME, NAME_AT, REL_MODIFIERS, RELATIONS, RELS, SUBJ, rule, subject_rule

_AND = re.compile(r"\s+(?:and|or|&)\b", re.IGNORECASE)

# ------------------------------------------------------------------ patterns

_NAME_NEXT = rf"\s+(?={NAME})"
# a title before the name is no part of who it is: "my husband, Dr. Anil Mehta,", "my wife Prof. Ruth Okafor"
_TITLE = r"(?:(?-i:Dr|Prof|Mr|Mrs|Ms|Mx|Rev|Capt|Sgt|Lt|Col|Maj|Sir|Dame)\.?\s+)?"
FAMILY_NAMED = rule(
    rf"(?:\b(?P<my>my|our)|\b(?P<owner>{NAME})'s)\s+(?:{REL_MODIFIERS}\s+)?(?P<rel>{RELS})"
    rf"(?:'s\s+name\s+is|\s+is\s+(?:called|named)|\s+(?:called|named)|,)?\s+{_TITLE}(?P<name>{NAME})\b",
    RELATIONS,
)
FAMILY_IS = rule(
    rf"\b(?P<name>{NAME})\s+is\s+(?:(?P<my>my|our)|(?P<owner>{NAME})'s)\s+(?:{REL_MODIFIERS}\s+)?(?P<rel>{RELS})\b",
    RELATIONS,
)
FAMILY_HAVE = rule(
    SUBJ + rf"(?:\s+have|\s+has|'ve\s+got|\s+have\s+got|'s\s+got)\s+(?:a|an|one)\s+(?:{REL_MODIFIERS}\s+)?"
    rf"(?P<rel>{RELS})\b(?!-)(?:\s+(?:named|called)\s+(?P<name>{NAME}))?",
    RELATIONS,
)
MARRIED = subject_rule("BE married to", "married", "HAVE married", "got married to", "HAVE been married to",
                       "BE engaged to", "got engaged to", "HAVE got engaged to", "BE dating", "started dating",
                       "HAVE been dating", "BE in a relationship with", tail=_NAME_NEXT,
                       keywords=("married", "engaged", "dating", "relationship"))
# "Harry and I broke up", "Nico and I are officially over": the other one is named first
BROKE_UP_WITH_ME = rule(
    rf"\b(?P<other>{NAME})\s+and\s+I\s+(?:(?:have|had|just|finally|officially|recently)\s+)*(?:broke\s+up|"
    rf"broken\s+up|split\s+up|split(?!\s+(?:the|a|an|our|my|it|up\s+the|\w+ing)\b)|separated|divorced|got\s+divorced|"
    rf"called\s+it\s+quits|are\s+(?:\w+\s+)?over|(?:are|'re)\s+no\s+longer\s+together|"
    rf"(?:aren't|are\s+not|'re\s+not)\s+together\s+(?:anymore|any\s+more)|ended\s+things)\b",
    ("broke", "broken", "split", "separated", "divorced", "quits", "over", "together", "ended"))
# the other one ends it, or is named as past: "Emma broke up with me", "Sofia is my ex", "Ravi isn't my boyfriend anymore"
_PARTNER_WORDS = r"(?:boyfriend|girlfriend|partner|husband|wife|fianc[eé]e?|spouse)"
ENDED_BY_OTHER = rule(
    rf"\b(?P<other>{NAME})\s+(?:(?:just|finally)\s+)?(?:broke\s+up\s+with|dumped|divorced|left|split\s+up\s+with)\s+me\b"
    rf"|\b(?P<ex>{NAME})(?:\s+is|'s)\s+(?:now\s+)?my\s+ex(?:-?{_PARTNER_WORDS})?\b"
    rf"|\b(?P<was>{NAME})(?:\s+is\s+no\s+longer|'s\s+no\s+longer|\s+isn't|\s+is\s+not|'s\s+not)\s+my\s+"
    rf"(?P<rel>{_PARTNER_WORDS})\b",
    ("broke up with me", "dumped me", "divorced me", "left me", "with me", " ex", "longer my", "not my", "isn't my"))
# "I'm not with Jake anymore", "I'm no longer with Jake": a relationship ending (an employer needs "at")
NOT_WITH = subject_rule("BE not with", "BE no longer with", "BE not together with", "BE no longer together with",
                        tail=_NAME_NEXT, keywords=("with",))
# a new partner: "I'm seeing Chloe", "I've started dating Hana", "I'm with Daniel now"
# a person described before the name: "seeing a lovely guy called Idris", "dating this girl named Mia from work"
# (person nouns only: "seeing a doctor called Patel" is a consultation)
_SOMEONE_NAMED = (r"(?:someone|(?:a|this|an)\s+(?:[a-z-]+\s+){0,2}?(?:guy|girl|man|woman|lad|bloke|chap|fella|fellow|"
                  r"lass|person|someone))\s+(?:named|called)")
SEEING = subject_rule("BE seeing", "HAVE been seeing", "started seeing", "HAVE started seeing", "HAVE started dating",
                      "BE going out with", "started going out with", *(f"{verb} {_SOMEONE_NAMED}" for verb in (
                          "BE seeing", "HAVE been seeing", "started seeing", "HAVE started seeing", "BE dating",
                          "HAVE been dating", "started dating", "HAVE started dating")),
                      tail=_NAME_NEXT, keywords=("seeing", "dating", "going out"))
WITH_NOW = subject_rule("BE with", "BE together with", tail=rf"\s+(?={NAME}\s+now\b)", keywords=("now",))
# the couple as the subject: "Sam and I are together", "me and Marco have been together since 2019", "Daniel and I
# are married" (a place or time after "together" says where they were, not that they are a couple)
COUPLE = rule(
    rf"\b(?:(?P<first>{NAME})\s+and\s+(?:I|me)|me\s+and\s+(?P<second>{NAME}))\s+(?:are|'re|have\s+been|'ve\s+been|"
    rf"got|are\s+getting)\s+(?:(?:happily|finally|officially|still)\s+)?(?P<how>together|married|engaged)"
    rf"(?=\s*(?:$|[,.;!?]|\s(?:for|since|now|again|from|between|until|till|and|but|so)\b))",
    ("together", "married", "engaged"))
BREAKUP = subject_rule("broke up with", "HAVE broken up with", "split up with", "divorced", "HAVE divorced",
                       "got divorced from", "BE divorced from", "separated from", "HAVE separated from",
                       tail=_NAME_NEXT)


# ------------------------------------------------------------------ handlers


def _relative(owner: str, rel_word: str, name: str | None, m: re.Match[str], dated: bool = False) -> list[Draft]:
    """HAS_SISTER / MARRIED_TO / FRIEND_OF ... for "my sister Anna", "Anna is my sister"."""
    predicate, noun, single = RELATIONS[rel_word.lower()]
    if name is None and predicate == "FRIEND_OF":
        return []  # "I have a friend" names nobody
    if name == owner:
        return []
    obj = name or f"{owner}'s {noun}"
    if predicate == "MARRIED_TO":
        text = f"{owner} is married to {obj}" if name else f"{owner} has a {noun}"
    elif predicate == "PARTNER_OF":
        text = f"{owner}'s {noun} is {obj}" if name else f"{owner} has a {noun}"
    elif predicate == "FRIEND_OF":
        text = f"{owner} is friends with {obj}"
    else:
        text = f"{owner} has {article(noun)} {noun} named {name}" if name else f"{owner} has {article(noun)} {noun}"
    importance = FRIEND if predicate == "FRIEND_OF" else FAMILY
    return [Draft(owner, predicate, obj, text, "state", importance, single, span=match_span(m, m.end()), dated=dated)]


_DIED = re.compile(r",?\s+(?:(?:sadly|recently|just)\s+)?(?:passed\s+away|passed|died|has\s+died)\b", re.IGNORECASE)


def family_named(m: re.Match[str], s: Sentence) -> list[Draft]:
    if m[0].rstrip(m["name"]).rstrip().endswith(",") and _AND.match(s.text, m.end()):
        return []  # "my girlfriend, Toby and I": a list, not "my girlfriend, Toby,"
    drafts = _relative(s.speaker if m["my"] else m["owner"], m["rel"], m["name"], m)
    if drafts and _DIED.match(s.text, m.end()):  # "my wife Helen passed away": that marriage is over
        d = drafts[0]
        return [Draft(d.subject, d.predicate, d.object, f"{d.object} ({d.subject}'s {m['rel'].lower()}) died", "end",
                      d.importance, d.single_valued, span=d.span)]
    return drafts


def _ended(other: str, m: re.Match[str], s: Sentence, married: bool = False) -> list[Draft]:
    text = f"{s.speaker} is no longer {'married to' if married else 'in a relationship with'} {other}"
    return [Draft(s.speaker, "MARRIED_TO" if married else "PARTNER_OF", other, text, "end", FAMILY, True,
                  span=match_span(m, m.end()))]


def ended_by_other(m: re.Match[str], s: Sentence) -> list[Draft]:
    if m["was"] and not s.says_anymore(m.start(), m.end()) and "longer" not in m[0].lower():
        return []  # "Ravi is not my boyfriend" may correct a mistake; "anymore" makes it an ending
    other = m["other"] or m["ex"] or m["was"]
    low = m[0].lower()
    return _ended(other, m, s, married="divorc" in low or bool(m["rel"] and m["rel"].lower() in ("husband", "wife")))


def not_with(m: re.Match[str], s: Sentence) -> list[Draft]:
    name = NAME_AT.match(s.text, m.end())
    if name is None or (not s.says_anymore(m.start(), name.end()) and "longer" not in m[0].lower()):
        return []
    subj, span = subject_of(m, s), match_span(m, name.end())
    if "together" in m[0].lower():
        return [Draft(subj, "PARTNER_OF", name[0], f"{subj} is no longer in a relationship with {name[0]}", "end",
                      FAMILY, True, span=span)]
    # "I'm no longer with Acme" leaves an employer, "I'm not with Jake anymore" a partner: whichever is open ends
    return [Draft(subj, "PARTNER_OF", name[0], f"{subj} is no longer with {name[0]}", "end", FAMILY, True, span=span,
                  closes_only=True),
            Draft(subj, "WORKS_AT", name[0], f"{subj} no longer works at {name[0]}", "end", FAMILY, True, span=span,
                  closes_only=True)]


def seeing(m: re.Match[str], s: Sentence) -> list[Draft]:
    name = NAME_AT.match(s.text, m.end())
    if name is None:
        return []
    subj = subject_of(m, s)
    return [Draft(subj, "PARTNER_OF", name[0], f"{subj} is dating {name[0]}", "state", FAMILY, True,
                  span=match_span(m, name.end()))]


def couple(m: re.Match[str], s: Sentence) -> list[Draft]:
    name = m["first"] or m["second"]
    married = m["how"].lower() == "married"
    said = f"{s.speaker} is {'married to' if married else 'engaged to' if m['how'].lower() == 'engaged' else 'with'} {name}"
    return [Draft(s.speaker, "MARRIED_TO" if married else "PARTNER_OF", name, said, "state", FAMILY, True,
                  span=match_span(m, m.end()))]


def family_have(m: re.Match[str], s: Sentence) -> list[Draft]:
    return _relative(subject_of(m, s), m["rel"], m["name"], m)


def partner(m: re.Match[str], s: Sentence) -> list[Draft]:
    name = NAME_AT.match(s.text, m.end())
    if name is None:
        return []
    subj, low = subject_of(m, s), m[0].lower()
    ended = m.re is BREAKUP.pattern
    married = "marri" in low or "divorc" in low or "separat" in low
    predicate = "MARRIED_TO" if married else "PARTNER_OF"
    if ended:
        text = f"{subj} is no longer {'married to' if married else 'in a relationship with'} {name[0]}"
    else:
        text = f"{subj} is {'married to' if married else 'engaged to' if 'engaged' in low else 'dating'} {name[0]}"
    return [Draft(subj, predicate, name[0], text, "end" if ended else "state", FAMILY, True,
                  span=match_span(m, name.end()))]


def broke_up_with_me(m: re.Match[str], s: Sentence) -> list[Draft]:
    other, low = m["other"], m[0].lower()
    married = "divorc" in low or "separat" in low
    predicate = "MARRIED_TO" if married else "PARTNER_OF"
    text = f"{s.speaker} is no longer {'married to' if married else 'in a relationship with'} {other}"
    return [Draft(s.speaker, predicate, other, text, "end", FAMILY, True, span=match_span(m, m.end()))]


RULES: tuple[Rule, ...] = (
    Rule(FAMILY_NAMED, family_named, False), Rule(FAMILY_IS, family_named, False), Rule(FAMILY_HAVE, family_have),
    Rule(BREAKUP, partner), Rule(BROKE_UP_WITH_ME, broke_up_with_me), Rule(ENDED_BY_OTHER, ended_by_other, False),
    Rule(NOT_WITH, not_with, False), Rule(MARRIED, partner), Rule(SEEING, seeing), Rule(WITH_NOW, seeing),
    Rule(COUPLE, couple),
)
# noun phrases hold in a question too: "what should I get my wife Aisha?"
QUESTION_RULES: tuple[Rule, ...] = (Rule(FAMILY_NAMED, family_named, False),)
