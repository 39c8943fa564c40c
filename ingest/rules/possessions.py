"""Possessions: what someone owns, bought or got new.

OWNS is many-valued; a bought or newly got thing is an event dated by its
clause; "sold", "got rid of", "gave away" end the open OWNS of that thing. Pets ("I got a puppy") are left to the pets topic, and abstract "new"
things ("a new job", "a new perspective") are no possession.
"""

from __future__ import annotations

import re

from graphmem.ingest.rules.drafts import OWN, QUANTITY, Draft, Rule, Sentence, match_span, says, subject_of
from graphmem.ingest.rules.grammar import subject_rule
from graphmem.ingest.rules.pets import names_a_pet
from graphmem.ingest.rules.text import PREP_STOP, own, strip_article, take_phrase

# ------------------------------------------------------------------ patterns

OWNS = subject_rule("own[s]?", "bought", "HAVE bought", "purchased", "HAVE purchased")
SOLD = subject_rule("sold", "HAVE sold", "got rid of", "HAVE got rid of", "HAVE gotten rid of", "gave away",
                    "HAVE given away", keywords=("sold", "rid of", "gave away", "given away"))
OWNS_NEW = subject_rule("got", "HAVE got", "HAVE gotten", "have", "has",
                        tail=r"\s+(?:myself\s+)?(?:a|an)\s+(?=(?:brand[\s-])?new\b)", keywords=("new",))


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
    if not name or name.split()[-1].lower() in _NEW_REJECT or names_a_pet(name.split()[-1]):
        return []
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


RULES: tuple[Rule, ...] = (Rule(OWNS_NEW, owns), Rule(OWNS, owns), Rule(SOLD, sold))
