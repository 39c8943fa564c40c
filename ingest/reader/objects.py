"""The value a sentence gives its slot, found from the sentence's shape, not its wording.

The classifier says which slot a sentence speaks about and whether a value
holds, ends or replaces another; this module finds the value(s) in it:

- names: capitalised runs ("Hood River", "St. Mary's Hospital", "Mt. Sinai"),
  the run at the sentence's start only when it is clearly a name ("Leeds's
  been ...", not "Said goodbye ..."); a name right after "called"/"named" first;
- things: a brand run with its model ("Kia EV6", "iPhone 15"), else the noun
  phrase after a/an/my/the ("my old laptop" -> "laptop");
- activities: a verb in -ing or a known activity noun ("pottery", "the cello");
- diets: a lexicon.

Values come in sentence order. For a swap ("X for Y", "from X to Y", "X ...
now Y") the last is the new value and the earlier ones ended; when the first
value is the grammatical subject of a verb of overtaking ("Y has replaced X"),
the first is the new one.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from graphmem.ingest.rules.grammar import RELATIONS, STOP_NAMES
from graphmem.ingest.rules.health import DIET_NORMAL, DIETS
from graphmem.ingest.rules.hobbies import HOBBY_NOUNS, activity_name
from graphmem.ingest.rules.pets import PETS
from graphmem.ingest.rules.text import LIGHT_GERUNDS, UNSURE_END

__all__ = ["ACTIVITIES", "COMMON_ACTIVITIES", "Value", "values", "swap_order", "pet_species", "NAMED_TOPICS"]

NAMED_TOPICS = frozenset({"residence", "work", "study", "partner", "pet", "favourite"})


class Value(NamedTuple):
    name: str
    start: int


_WORD = r"(?:[A-Z][a-z]+(?:[A-Z][a-z]+)*|[A-Z]{2,}\d*|[A-Z][a-z]*\d+[A-Za-z]*|(?:[A-Z]\.){2,})"
_TITLE = r"(?:St|Mt|Ft|Dr)\.?\s"
_JOIN = r"(?:\s+(?:of|de|del|da|upon|la|le|the)\s+|\s*&\s*|\s|-)"
_NAME_RUN = re.compile(rf"(?<![\w'])(?:{_TITLE})?{_WORD}(?:'s(?=\s+[A-Z]))?(?:{_JOIN}(?:{_TITLE})?{_WORD}(?:'s(?=\s+[A-Z]))?)*")
_MODEL = r"(?:\s+(?:[A-Z][\w-]*|\d[\w-]*|[a-z]?\d+[\w-]*))"
_BRAND_RUN = re.compile(rf"(?<![\w'])(?:[A-Z][\w-]*|[a-z][A-Z][\w-]*)(?:{_MODEL}){{0,3}}")
_CALLED = re.compile(r"\b(?:called|named|name's|name\s+is)\s+(?P<name>[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)")
# a capitalised first word reads as a name only before these ("Leeds is home", "Juniper's gone")
_NAME_AFTER_START = re.compile(r"(?:'s\b|\s+(?:is|was|has|had|have|and|are|were|will|became|used)\b|,)")
_ING = re.compile(r"\b([a-z]{3,}ing)\b", re.IGNORECASE)
_NOT_ACTIVITY = LIGHT_GERUNDS | frozenset(
    "thing things something nothing anything everything morning evening during being seeing feeling thinking "
    "wondering realizing living working studying dating moving eating building king ring spring string wedding "
    "ceiling bring sing sting wing evening meeting outing shopping planning looking hoping wanting missing "
    "saying telling asking trying using taking giving leaving selling buying owning renting driving riding "
    "keeping staying settling coming starting stopping quitting finishing amazing interesting boring exciting "
    "relaxing amazing annoying ongoing incoming upcoming darling pudding during".split())
_MORE_ACTIVITIES = frozenset("""
knitting crochet crocheting embroidery sewing quilting baking cooking gardening painting drawing sketching hiking running
reading writing gaming camping volunteering photography
jogging cycling swimming surfing skiing snowboarding climbing bouldering kayaking canoeing rowing sailing
diving fishing hunting birdwatching woodworking calligraphy origami dance dancing singing skating rollerblading
weightlifting lifting triathlon marathons marathon karaoke chess poker bridge scrabble sudoku crosswords
""".split()) | HOBBY_NOUNS
ACTIVITIES = _MORE_ACTIVITIES
# activities so common in chat that they are no cue to embed a sentence for ("I was writing an email")
COMMON_ACTIVITIES = frozenset("reading writing gaming cooking running dance dancing".split())
_THING = re.compile(r"\b(?:a|an|my|our|the|his|her)\s+((?:[\w-]+\s+){0,2}?[\w-]+)(?=\s*(?:[,.;:!?]|$|'s\b|\s+(?:"
                    r"and|but|for|with|to|from|at|in|on|got|is|was|that|which|because|since|last|this|yesterday|"
                    r"today|now|again|anymore|died|broke|gone)\b))", re.IGNORECASE)
_THING_STOP = frozenset("way time lot bit while week month year day job place home life car's one ones ago "
                        "thing things stuff own other same".split())
_OVERTAKE = re.compile(r"\b(?:overt(?:ook|aken|akes)|replaced|replaces|took\s+over|taken\s+over|beat|beaten|"
                       r"dethroned|edged\s+out|knocked|displaced|usurped|supplanted)\b", re.IGNORECASE)
# the new value of a change follows "to", "for", "with", "into", "now": "switched to a pescatarian diet"
_NEW_MARK = re.compile(r"\b(?:to|into|for|with|now)\s+(?:(?:a|an|the|my|our)\s+)?(?:[\w-]+\s+)?$", re.IGNORECASE)
_VOCATIVE = re.compile(r"\s*[,!]")
_AS_A = re.compile(r"\bas\s+(?:an?\s+)?$", re.IGNORECASE)
_PLACE_BEFORE = re.compile(r"\b(?:in|from|to|at|near|back\s+in|of)\s+$", re.IGNORECASE)
_FIRST_PERSON = re.compile(r"\b(?:I|i|we|We|my|My|our|Our|me)\b")
DIET_WORDS = tuple(sorted(set(DIETS) | {"low-carb", "mediterranean", "carnivore", "vegetarianism", "veganism"},
                           key=len, reverse=True))
_DIET = re.compile(r"\b(" + "|".join(re.escape(d) for d in DIET_WORDS) + r")\b", re.IGNORECASE)
_NOT_A_NAME = frozenset(w.capitalize() for w in RELATIONS) | frozenset(
    "I I'm I've Mom Dad Mum God Christmas Easter Covid Lol Omg Ok Okay Uni College University School".split())


def _names(text: str) -> list[Value]:
    out = []
    for m in _NAME_RUN.finditer(text):
        name = m[0].strip()
        first = name.split()[0]
        if first.lower() in STOP_NAMES or first in _NOT_A_NAME or first.rstrip("'s") in _NOT_A_NAME or (
                first.lower() in PETS or first.lower()[:-1] in PETS):  # "Pets have a way ...", "Dogs are ..."
            continue
        if m.start() == 0 or text[:m.start()].strip() in ("", '"', "-"):
            if " " not in name and not _NAME_AFTER_START.match(text, m.end()):
                continue
            if first.lower().endswith(("ing", "ed")) and " " not in name:
                continue
        if _VOCATIVE.match(text, m.end()) and len(text[:m.start()].split()) <= 2:
            continue  # "Thanks, Nate!", "Nate, after ...": the listener, not a value
        if _AS_A.search(text, max(0, m.start() - 10), m.start()):
            continue  # "a new job as a Financial Analyst": a role, not a name
        out.append(Value(name, m.start()))
    return out


def _called(text: str) -> list[Value]:
    return [Value(m["name"], m.start("name")) for m in _CALLED.finditer(text)
            if m["name"].split()[0].lower() not in STOP_NAMES]


def pet_species(text: str) -> str | None:
    low = text.lower()
    found = [(m.start(), PETS[w]) for w in PETS for m in re.finditer(rf"\b{re.escape(w)}s?\b", low)]
    return min(found)[1] if found else None


def _things(text: str) -> list[Value]:
    brands = [Value(m[0], m.start()) for m in _BRAND_RUN.finditer(text)
              if m.start() > 0 and m[0].split()[0].lower() not in STOP_NAMES and m[0] not in _NOT_A_NAME]
    if brands:
        return brands
    out = []
    for m in _THING.finditer(text):
        words = m[1].lower().split()
        if words[-1] in _THING_STOP or words[-1] in UNSURE_END or words[-1] in STOP_NAMES:
            continue
        out.append(Value(words[-1] if len(words) > 1 and words[0] in UNSURE_END else " ".join(words), m.start(1)))
    return out


_GERUND_SUBJECT = re.compile(r"^([A-Z][a-z]{2,}ing)(?='s\b|\s+(?:is|was|has|keeps|helps|gives|makes)\b)")


def _activities(text: str) -> list[Value]:
    """Known activities anywhere; any other -ing word only as the sentence's subject
    ("Whittling is how I relax"): "I love experimenting" names no hobby."""
    out = []
    for m in re.finditer(r"\b[\w-]+\b", text):
        if m[0].lower() in _MORE_ACTIVITIES:
            out.append(Value(activity_name(m[0].lower()), m.start()))
    subject = _GERUND_SUBJECT.match(text)
    if subject and subject[1].lower() not in _NOT_ACTIVITY and not out:
        out.append(Value(subject[1].lower(), 0))
    return out


def _diets(text: str) -> list[Value]:
    return [Value(DIET_NORMAL.get(m[1].lower(), m[1].lower()), m.start()) for m in _DIET.finditer(text)]


def values(text: str, topic: str) -> list[Value]:
    """The slot values `text` names for `topic`, in sentence order, each once."""
    if topic in ("partner", "pet"):
        found = _called(text) or [v for v in _names(text) if not _PLACE_BEFORE.search(text, max(0, v.start - 12), v.start)]
        found = [v for v in found if " " not in v.name or topic == "partner"]
    elif topic in ("residence", "work", "study"):
        found = _names(text)
    elif topic == "favourite":
        found = _names(text) or _activities(text)
    elif topic == "possession":
        found = _things(text)
    elif topic == "hobby":
        found = _activities(text)
    elif topic == "diet":
        found = _diets(text)
    else:
        found = []
    seen, out = set(), []
    for v in sorted(found, key=lambda v: v.start):
        if v.name.lower() not in seen:
            seen.add(v.name.lower())
            out.append(v)
    return out


def swap_order(text: str, found: list[Value]) -> tuple[list[Value], Value]:
    """(ended values, new value) of a change: the one value after "to"/"for"/"with"/"into"/"now"
    when exactly one is; else the last, unless the first is the subject of an overtaking
    verb ("Fleet Foxes have overtaken ...")."""
    marked = [v for v in found if _NEW_MARK.search(text, max(0, v.start - 30), v.start)]
    if len(marked) == 1:
        return [v for v in found if v is not marked[0]], marked[0]
    first = found[0]
    before = text[:first.start]
    verb = _OVERTAKE.search(text, first.start + len(first.name), found[1].start) if len(found) > 1 else None
    if verb and not _FIRST_PERSON.search(before) and not _FIRST_PERSON.search(text, first.start, verb.start()):
        return found[1:], first
    return found[:-1], found[-1]
