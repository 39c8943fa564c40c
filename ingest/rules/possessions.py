"""Possessions: what someone owns, bought or got new.

OWNS is many-valued; a bought or newly got thing is an event dated by its
clause; "sold", "got rid of", "gave away", "got stolen" end the open OWNS of
that thing, and trading one thing in for another ends one and starts the other. Pets ("I got a puppy") are left to the pets topic, and abstract "new"
things ("a new job", "a new perspective") are no possession.
"""

from __future__ import annotations

import re

from graphmem.ingest.rules.drafts import OWN, QUANTITY, Draft, Rule, Sentence, article, match_span, says, subject_of
from graphmem.ingest.rules.grammar import RELATIONS, STOP_NAMES, rule, subject_rule
from graphmem.ingest.rules.pets import names_a_pet
from graphmem.ingest.rules.text import PREP_STOP, Piece, own, strip_article, take_phrase, take_proper

# ------------------------------------------------------------------ patterns

OWNS = subject_rule("own[s]?", "bought", "HAVE bought", "purchased", "HAVE purchased")
SOLD = subject_rule("sold", "HAVE sold", "got rid of", "HAVE got rid of", "HAVE gotten rid of", "gave away",
                    "HAVE given away", keywords=("sold", "rid of", "gave away", "given away"))
# "I traded in my Volvo for a Mazda", "swapped my bike for a scooter": one thing ends, the other is had
TRADED = subject_rule("traded in", "traded", "HAVE traded in", "HAVE traded", "swapped", "HAVE swapped",
                      "exchanged", "HAVE exchanged", tail=r"\s+(?:in\s+)?(?=(?:my|our|the)\s)",
                      keywords=("traded", "swapped", "exchanged"))
# "my road bike got stolen", "our car was written off"
LOST_THING = rule(r"\b(?P<poss>my|our)\s+(?P<thing>(?:[\w-]+\s+){0,3}?[\w-]+)\s+(?:got|was|were|has\s+been|have\s+been)"
                  r"\s+(?:stolen|written\s+off|totall?ed)\b", ("stolen", "written off", "totaled", "totalled"))
# "I no longer have the Fiat", "I don't own a car anymore"
NO_LONGER_OWNS = subject_rule("no longer have", "no longer own", "DONT have", "DONT own", "BE no longer the owner of",
                              tail=r"\s+(?=(?:a|an|the|my|our)\s)", keywords=("no longer", "anymore", "any more"))
OWNS_NEW = subject_rule("got", "HAVE got", "HAVE gotten", "have", "has",
                        tail=r"\s+(?:myself\s+)?(?:a|an)\s+(?=(?:brand[\s-])?new\b)", keywords=("new",))


# a named make: "I drive a Subaru Outback", "I've got a Honda Civic that I use", "got myself a Toyota Prius"
OWNS_MAKE = subject_rule("drive[s]?", "BE driving", "HAVE got", "got", "got myself", "HAVE got myself", "bought myself",
                         "have", "has", "own[s]?", "picked up", "HAVE picked up",
                         tail=r"\s+(?:a|an|my|our)\s+(?:(?:old|new|brand-new|used|second-hand|secondhand|little|red|blue|"
                              r"black|white|silver|grey|gray|green)\s+)*(?=(?-i:[A-Z]))",
                         keywords=("drive", "driving", "got", "have", "has", "own", "picked up"))
_BARE_GOT = re.compile(r"(?<!'ve\s)(?<!have\s)(?<!has\s)(?<!'s\s)\bgot\s+(?:a|an|my|our)\b", re.IGNORECASE)
# a model named after the make: a number or a single capital ("Model 3", "Model S", "MT-07", "X5")
_MODEL = re.compile(r"(?:[ ](?:\d[\w-]*|[A-Z](?![a-z])[\w-]*))+")
# what may follow the make's name: the end of the clause or a word that starts another part of it
_AFTER_MAKE = re.compile(r"\s*(?:[,.;:!?)]|$)|\s+(?:that|which|I|we|and|but|in|at|for|from|with|since|now|these|"
                         r"last|this|to|because|so)\b")

# the kind of thing after its make: "a Laser dinghy", "a Fender guitar", "a Trek bike" (not "a Spanish class"); it
# lets the make be read, which names the thing as the other rules do
_KIND_AFTER_MAKE = re.compile(r"\s+(?P<kind>dinghy|boat|yacht|kayak|canoe|bike|car|van|truck|motorbike|motorcycle|scooter|"
                              r"guitar|bass|piano|keyboard|camera|laptop|phone|watch|console|drone|tent|caravan|"
                              r"surfboard|paddleboard|board)\b")

# ------------------------------------------------------------------ handlers


_NEW_REJECT = frozenset("job position role hobby friend friends idea project perspective outlook appreciation look "
                        "goal habit skill experience chapter beginning start life favorite challenge "
                        "record level addition member baby lease opportunity".split())


def owns(m: re.Match[str], s: Sentence) -> list[Draft]:
    quantity = QUANTITY.match(s.text, m.end())
    obj = take_phrase(s.text, quantity.end() if quantity else m.end(), s.limit(m.end()), 4, PREP_STOP)
    if obj is None:
        return []
    name = strip_article(own(obj.name, s.speaker))
    if not name or name.split()[-1].lower() in _NEW_REJECT | RELATIONS.keys() or names_a_pet(name.split()[-1]):
        return []  # "a new girlfriend" is no possession
    return [Draft(subject_of(m, s), "OWNS", name, f"{says(m, s)} {own(obj.said, s.speaker)}",
                  "event" if re.search(r"\b(?:bought|got|gotten|purchased)\b", m[0], re.I) else "state", OWN,
                  span=match_span(m, obj.end))]


_OWNER = re.compile(r"^(?:(?:my|our|his|her|their|the|old|beloved|trusty)\s+)+", re.IGNORECASE)


def sold(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "I sold my motorbike" ends OWNS motorbike (pets are the pets topic's)."""
    obj = take_phrase(s.text, m.end(), s.limit(m.end()), 4, PREP_STOP)
    if obj is None:
        return []
    name = strip_article(_OWNER.sub("", obj.name))
    if not name or name.split()[-1].lower() in _NEW_REJECT or names_a_pet(name.split()[-1]):
        return []
    subj = subject_of(m, s)
    return [Draft(subj, "OWNS", name, f"{subj} no longer owns {own(obj.said, s.speaker)}", "end", OWN,
                  span=match_span(m, obj.end))]


def _thing(phrase: str) -> str | None:
    """The thing a phrase names, unless it is abstract or a pet."""
    name = strip_article(_OWNER.sub("", phrase))
    if not name or name.split()[-1].lower() in _NEW_REJECT or names_a_pet(name.split()[-1]):
        return None
    return name


_FOR_NEW = re.compile(r"\s+(?:for|with)\s+", re.IGNORECASE)


def traded(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "I traded in my Kawasaki for a Ducati": OWNS Kawasaki ends, OWNS Ducati starts."""
    old = take_phrase(s.text, m.end(), s.limit(m.end()), 4, PREP_STOP)
    if old is None or not _FOR_NEW.match(s.text, old.end):
        return []
    pos = _FOR_NEW.match(s.text, old.end).end()
    new = take_phrase(s.text, pos, s.limit(pos), 4, PREP_STOP)
    old_name, new_name = _thing(old.name), _thing(new.name) if new else None
    if old_name is None or new_name is None or not re.match(r"(?:a|an|the|my|our)\s", new.said, re.IGNORECASE):
        return []
    subj, span = subject_of(m, s), match_span(m, new.end)
    return [Draft(subj, "OWNS", old_name, f"{subj} no longer owns {own(old.said, s.speaker)}", "end", OWN, span=span),
            Draft(subj, "OWNS", new_name, f"{subj} got {own(new.said, s.speaker)}", "event", OWN, span=span)]


_ABSTRACT = frozenset("time energy patience money courage strength desire urge chance option interest space room "
                      "access reason need luxury feeling feelings problem issue clue idea".split())


def no_longer_owns(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "I no longer have the Fiat Panda" ends OWNS Fiat Panda; "don't have" needs "anymore"."""
    obj = take_phrase(s.text, m.end(), s.limit(m.end()), 4, PREP_STOP)
    name = _thing(obj.name) if obj else None
    if name is None or name.split()[-1].lower() in _ABSTRACT:
        return []
    if "longer" not in m[0].lower() and not s.says_anymore(m.start(), obj.end):
        return []
    subj = subject_of(m, s)
    return [Draft(subj, "OWNS", name, f"{subj} no longer owns {own(obj.said, s.speaker)}", "end", OWN,
                  span=match_span(m, obj.end))]


def lost_thing(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "My road bike got stolen" ends OWNS road bike."""
    name = _thing(m["thing"])
    if name is None:
        return []
    return [Draft(s.speaker, "OWNS", name, f"{s.speaker} no longer owns {name}", "end", OWN,
                  span=match_span(m, m.end()))]


def owns_make(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "I drive a Subaru Outback": OWNS a named make, only when nothing lowercase follows the
    name ("a Spanish class", "a Zoom call" name no thing owned)."""
    obj = take_proper(s.text, m.end(), s.limit(m.end()), allow_lower=False)
    if obj is None:
        return []
    if (model := _MODEL.match(s.text, obj.end, s.limit(m.end()))) is not None:  # "a Tesla Model 3", "a BMW X5"
        obj = Piece(obj.name + model[0], obj.said + model[0], model.end())
    elif _BARE_GOT.search(m[0]):
        return []  # "got a DUI", "got a Bachelor of Arts": bare "got" owns only a make with its model
    kind = _KIND_AFTER_MAKE.match(s.text, obj.end)
    if not _AFTER_MAKE.match(s.text, kind.end() if kind else obj.end) or obj.name.split()[0].lower() in STOP_NAMES or \
            names_a_pet(obj.name.split()[-1]):
        return []
    name = obj.name  # the make alone, as the other rules name it ("my Kawai", "sold the Laser")
    return [Draft(subject_of(m, s), "OWNS", name, f"{subject_of(m, s)} owns {article(name)} {name}",
                  "event" if re.search(r"\b(?:got|bought)\b", m[0], re.I) else "state", OWN,
                  span=match_span(m, obj.end))]


RULES: tuple[Rule, ...] = (Rule(OWNS_MAKE, owns_make), Rule(OWNS_NEW, owns), Rule(OWNS, owns), Rule(SOLD, sold), Rule(TRADED, traded),
                           Rule(NO_LONGER_OWNS, no_longer_owns),
                           Rule(LOST_THING, lost_thing))
