"""Changes from one value to another, whatever the topic: "switched from X to Y",
"moved from X to Y", "transferred from X to Y", "traded X for Y", "replaced X with Y".

The verb says only that X ended and Y began; the shape of X and Y says which
slot: a diet word (DIET), an activity (LIKES ends, STARTED begins), a thing
with a determiner ("my Dell laptop" -> OWNS), a name that reads as a school
(STUDIES_AT) or an organisation (WORKS_AT). When the shape says nothing sure
("switched from Deloitte to KPMG" could be a bank, a phone plan or a job), the
old value's endings are only kept if they close an open fact (``closes_only``)
and no new value is stored: precision before recall.
"""

from __future__ import annotations

import re

from graphmem.ingest.rules.drafts import (
    HEALTH, HOME, LIKE, OWN, WORK, Draft, Rule, Sentence, match_span, subject_of)
from graphmem.ingest.rules.grammar import is_region, subject_rule
from graphmem.ingest.rules.health import DIETS, DIET_NORMAL
from graphmem.ingest.rules.hobbies import HOBBY_NOUNS, activity_name
from graphmem.ingest.rules.pets import names_a_pet
from graphmem.ingest.rules.text import strip_article
from graphmem.ingest.rules.work import SCHOOL_WORD

__all__ = ["RULES"]

_VALUE = r"(?P<{0}>(?:(?:a|an|the|my|our)\s+)?[\w'.&-]+(?:\s+(?!(?:to|for|with|in|on|at|last|this|because|after|and)\b)[\w'.&-]+){{0,3}}?)"
_FROM_TO = subject_rule("switched", "HAVE switched", "changed", "HAVE changed", "moved", "HAVE moved", "transferred",
                        "HAVE transferred", "went", "HAVE gone", "converted", "HAVE converted",
                        tail=r"\s+from\s+" + _VALUE.format("old") + r"\s+to\s+" + _VALUE.format("new")
                             + r"(?=\s*(?:[,.;:!?]|$|\s+(?:in|on|last|this|after|because|when|since|at|and|but)\b))",
                        keywords=("from",))
_FOR = subject_rule("traded", "HAVE traded", "traded in", "HAVE traded in", "swapped", "HAVE swapped", "exchanged",
                    "HAVE exchanged", "replaced", "HAVE replaced",
                    tail=r"\s+" + _VALUE.format("old") + r"\s+(?:for|with)\s+" + _VALUE.format("new")
                         + r"(?=\s*(?:[,.;:!?]|$|\s+(?:in|on|last|this|after|because|when|since|and|but)\b))",
                    keywords=("traded", "swapped", "exchanged", "replaced"))

# names that read as a workplace, not a shop or a provider one is a customer of ("switched from Barclays Bank")
_WORKPLACE = re.compile(r"\b(?:Hospital|Clinic|School|Academy|Council|Ministry|Department|Labs?|Studios?|Agency|"
                        r"Institute|Foundation|Inc|Corp|Ltd|LLC|Group|Partners|Associates|Consulting|Solutions|"
                        r"Technologies|Systems|Logistics)\b")
_DIET_SET = frozenset(DIETS) | {"low-carb", "mediterranean", "paleo"}
_DETERMINED = re.compile(r"^(?:a|an|the|my|our)\s+", re.IGNORECASE)
_NOT_A_THING = frozenset("it this that them one mine job place home house time".split())


_ABBREVIATION = re.compile(r"(?:^|\s)(?:St|Dr|Mt|Mr|Mrs|Ms|Co|Inc|Ltd|Jr|Sr)\.$")


def _clip(value: str) -> str:
    """A value that ran up to the sentence's full stop loses it ("a Pixel 8." -> "a Pixel 8"), an abbreviation keeps it."""
    return value if not value.endswith(".") or _ABBREVIATION.search(value) else value[:-1]


def _diet(word: str) -> str | None:
    low = re.sub(r"\s+diet$", "", strip_article(word).lower())
    return DIET_NORMAL.get(low, low) if low in _DIET_SET else None


def _activity(word: str) -> str | None:
    words = strip_article(word).lower().split()
    if not words or len(words) > 3:
        return None
    return activity_name(" ".join(words)) if words[0].endswith("ing") or words[-1] in HOBBY_NOUNS else None


def _proper(word: str) -> bool:
    return all(w[:1].isupper() or w.lower() in ("of", "and", "&", "the", "de") for w in word.split()) and word[:1].isupper()


_TRIP = re.compile(r"\b(?:holiday|vacation|trip|break|getaway|honeymoon|tour|itinerary|flights?|this\s+(?:summer|year|winter)|"
                   r"next\s+(?:summer|year|winter))\b", re.IGNORECASE)


def _home_swap(subj: str, old: str, new: str, s: Sentence, span: tuple[int, int]) -> list[Draft]:
    """ "We traded Texas for Denver": a region on one side makes the swap a change of home, unless the
    turn is about a trip ("swapped France for Spain this summer")."""
    if _TRIP.search(s.turn):
        return []
    return [Draft(subj, "LIVES_IN", old, f"{subj} no longer lives in {old}", "end", HOME, True, span=span,
                  closes_only=True),
            Draft(subj, "LIVES_IN", new, f"{subj} lives in {new}", "state", HOME, True, span=span)]


def change(m: re.Match[str], s: Sentence) -> list[Draft]:
    old, new = _clip(m["old"]), _clip(m["new"])
    verb = s.text[m.end("subj"):m.start("old")].lower()
    relocating = re.search(r"\b(?:moved|went|gone|converted)\b", verb) is not None
    subj, span = subject_of(m, s), match_span(m, m.end())
    if (d_old := _diet(old)) and (d_new := _diet(new)):
        return [Draft(subj, "DIET", d_old, f"{subj} is no longer {d_old}", "end", HEALTH, True, "DIET", span=span),
                Draft(subj, "DIET", d_new, f"{subj} is {d_new}", "state", HEALTH, True, "DIET", span=span)]
    if (a_old := _activity(old)) and (a_new := _activity(new)):
        return [Draft(subj, "LIKES", a_old, f"{subj} gave up {a_old}", "end", LIKE, True, f"PREF:{a_old.lower()}",
                      span=span),
                Draft(subj, "STARTED", a_new, f"{subj} took up {a_new}", "event", LIKE, span=span)]
    if not relocating and (is_region(old) or is_region(new)) and _proper(strip_article(old)) and _proper(strip_article(new)):
        return _home_swap(subj, strip_article(old), strip_article(new), s, span)
    if _proper(old) and _proper(new):
        school = SCHOOL_WORD.search(old) or SCHOOL_WORD.search(new) or re.search(r"\bState\b", f"{old} {new}")
        if relocating:
            return []  # "moved from Leeds to York" is the residence topic's
        if school:
            return [Draft(subj, "STUDIES_AT", old, f"{subj} no longer studies at {old}", "end", WORK, True, span=span),
                    Draft(subj, "STUDIES_AT", new, f"{subj} studies at {new}", "state", WORK, True, span=span)]
        if _WORKPLACE.search(old) and _WORKPLACE.search(new):
            return [Draft(subj, "WORKS_AT", old, f"{subj} no longer works at {old}", "end", WORK, True, span=span),
                    Draft(subj, "WORKS_AT", new, f"{subj} works at {new}", "state", WORK, True, span=span)]
        return [Draft(subj, p, old, f"{subj} left {old} for {new}", "end", WORK, True, span=span, closes_only=True)
                for p in ("WORKS_AT", "STUDIES_AT")]
    if _DETERMINED.match(old) and _DETERMINED.match(new) and not relocating and "changed" not in verb:
        o_name, n_name = strip_article(_DETERMINED.sub("", old)), strip_article(_DETERMINED.sub("", new))
        if any(n.split()[-1].lower() in _NOT_A_THING or names_a_pet(n.split()[-1]) for n in (o_name, n_name)):
            return []
        return [Draft(subj, "OWNS", o_name, f"{subj} no longer owns {o_name}", "end", OWN, span=span),
                Draft(subj, "OWNS", n_name, f"{subj} got {n_name}", "event", OWN, span=span)]
    return []


RULES: tuple[Rule, ...] = (Rule(_FROM_TO, change), Rule(_FOR, change))
