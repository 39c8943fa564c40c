"""Residence: where someone lives, lived, grew up or comes from, and moves.

"I moved to Boston" is a MOVED_TO event and the LIVES_IN state derived from it
(forgetting the move forgets the home too); "moved from X to Y" also ends
LIVES_IN X. LIVES_IN and IS_FROM are single-valued, so a new home supersedes
the old one; "no longer live in", "don't live in ... anymore" and "moved out of" end the
open LIVES_IN. "We left Austin and settled in Portland" is only the new home:
"left" names employers as often as places.
"""

from __future__ import annotations

import re
from dataclasses import replace

from graphmem.ingest.rules.drafts import HOME, PLAN, Draft, Handler, Rule, Sentence, match_span, subject_of
from graphmem.ingest.rules.grammar import DWELLINGS, STOP_NAMES, rule, subject_rule
from graphmem.ingest.rules.text import take_proper

# ------------------------------------------------------------------ patterns

_IN = r"\s+in\s+"
LIVES_IN = subject_rule("live[s]?", "BE living", "BE based", "BE residing", "HAVE been living", "HAVE lived",
                        "reside[s]?", "BE settled", tail=_IN)
LIVED_IN = subject_rule("lived", "used to live", "miss living", tail=_IN)
# "we'd been in Leeds from 2016 until ...", "I was in Denver between 2018 and 2020" (the present twin): a home only with
# an interval of half a year or more; "I'm in Paris" alone says where one is today
BE_IN = subject_rule("BE in", "HAVE been in", tail=r"\s+(?=[A-Z])", keywords=(" in ",))
GREW_UP = subject_rule("grew up", "WAS born and raised", "WAS raised", "WAS born", tail=_IN)
IS_FROM = subject_rule("BE from", "come[s]? from", tail=r"\s+")
MOVED = subject_rule(
    "moved", "HAVE moved", "relocated", "HAVE relocated",
    tail=r"(?:\s+(?:back|over|here|out|away|home|all\s+the\s+way))*(?:\s+from\s+(?P<src>[^,.;!?]{1,60}?))?\s+(?:to|into)\s+",
)
# "I live on St. John's Road in Cambridge", "we live on a boat in Seattle": the home is the place after "in"
LIVES_ON = subject_rule("live[s]?", "BE living", "HAVE been living", "HAVE lived",
                        tail=r"\s+on\s+[^,;:!?]{1,40}?\s+in\s+(?=[A-Z])", keywords=("live", "living", "lived"))
# "I live a couple of blocks off Lake Shore Drive in Chicago", "we live just outside the ring road in Leeds", "I live
# two streets from the seafront in Hove": where in the town comes first, the town is the name after "in"; "off" only
# before a name ("I live off toast in term time" says what one eats)
_WHERE_IN_TOWN = (r"(?:(?:right|just|about|roughly|only)\s+)?(?:(?:a|one|two|three|four|five|ten|a\s+few|a\s+couple(?:\s+of)?|"
                  r"\d+)\s+(?:blocks?|streets?|miles?|minutes?|mins?|doors?|roads?|stops?|km|kilometres?|kilometers?)\s+)?"
                  r"(?:off(?=\s+(?:the\s+)?(?-i:[A-Z]))|near|by|from|next\s+to|outside|behind|opposite|across\s+from|round\s+the\s+corner\s+"
                  r"from|around\s+the\s+corner\s+from|up\s+the\s+road\s+from|down\s+the\s+road\s+from|close\s+to|walking\s+distance\s+"
                  r"(?:of|from)|along|beside|above|below)\s+")
LIVES_NEAR = subject_rule("live[s]?", "BE living", "HAVE been living", "HAVE lived",
                          tail=rf"\s+{_WHERE_IN_TOWN}[^,;:!?]{{1,40}}?\s+in\s+(?=[A-Z])", keywords=("live", "living", "lived"))
# "I call Toronto home"
CALL_HOME = subject_rule("call", "now call", "HAVE called", tail=r"\s+(?=[A-Z][^,.;!?]{0,40}?\s+home\b)",
                         keywords=("home",))
SETTLED = subject_rule("settled", "HAVE settled", "settled down", "HAVE settled down", tail=_IN,
                       keywords=("settled",))
MOVED_FROM = subject_rule("moved", "HAVE moved", tail=r"(?:\s+(?:here|over|away))?\s+from\s+(?![^,.;!?]{0,60}\sto\s)")
MOVING = subject_rule("BE moving", "WILL move", "BE going to move", "BE gonna move", "BE relocating",
                      tail=r"(?:\s+back)?\s+to\s+", keywords=("mov", "relocat"))
END_LIVES = subject_rule("no longer live[s]?", "BE no longer living", tail=_IN)
END_LIVES_ANYMORE = subject_rule("DONT live", "BE not living", tail=_IN)
MOVED_OUT = subject_rule("moved out of", "HAVE moved out of", "moved away from", "HAVE moved away from")
HOME_IS = rule(r"\b(?:my|our)\s+(?:new\s+)?(?:home|house|place|flat|apartment)\s+is\s+(?:now\s+)?(?:in\s+)?",
               ("home", "house", "place", "flat", "apartment"))
# the place first: "Chicago is my home now", "Boston is where I live", "St. Albans is home these days"
_PLACE = r"(?P<{}>(?-i:(?:(?:St|Mt|Ft)\.\s)?[A-Z][a-z]+(?:[\s-][A-Z][a-z]+)?))"
PLACE_IS_HOME = rule(rf"(?:^|[,;:]\s+|\b(?:now|but|so)\s+){_PLACE.format('place')}(?:\s+is|'s)\s+(?:now\s+)?(?:(?:my|our)\s+(?:new\s+)?)?home\b"
                     rf"|(?:^|[,;:]\s+){_PLACE.format('where')}(?:\s+is|'s)\s+where\s+(?:I|we)\s+(?:now\s+)?live\b"
                     # "the council in Leith, where I live, ...": the place, then an aside that says it is home
                     rf"|\b(?:in|to|from|around|near|of)\s+{_PLACE.format('aside')},\s+where\s+(?:I|we)\s+(?:now\s+|currently\s+|still\s+)?"
                     rf"live\b", ("home", "live"))
# "a tiny flat in Queens", "the east side of Austin": the place is the name after the dwelling
_DWELLING = re.compile(
    rf"(?:a|an|the|my|our|this|that)\s+(?:[\w-]+\s+){{0,3}}?(?:{DWELLINGS}|dorm|neighbou?rhood|suburb|side|part|area|town|"
    r"village|city)\s+(?:in|of)\s+",
    re.IGNORECASE)


# ------------------------------------------------------------------ handlers

def place(predicate: str, template: str, kind: str = "state", single: bool = False, lower: bool = False,
          anymore: bool = False) -> Handler:
    """Handler for "<subject> <verb> <place>" rules."""
    def handle(m: re.Match[str], s: Sentence) -> list[Draft]:
        obj = take_proper(s.text, m.end(), s.limit(m.end()), allow_lower=False)
        dwelling = _DWELLING.match(s.text, m.end()) if obj is None else None
        if dwelling is not None:
            obj = take_proper(s.text, dwelling.end(), s.limit(dwelling.end()), allow_lower=False)
        elif obj is None and lower:
            obj = take_proper(s.text, m.end(), s.limit(m.end()), allow_lower=True)
        if obj is None or (anymore and not s.says_anymore(m.start(), obj.end)):
            return []
        subj = subject_of(m, s)
        return [Draft(subj, predicate, obj.name, template.format(s=subj, o=obj.said), kind, HOME, single,
                      span=match_span(m, obj.end))]
    return handle


def been_in(m: re.Match[str], s: Sentence) -> list[Draft]:
    return [replace(d, bounded_only=True, min_days=180) for d in place("LIVES_IN", "{s} lives in {o}", single=True)(m, s)]


def grew_up(m: re.Match[str], s: Sentence) -> list[Draft]:
    born = "born" in m[0].lower() and "raised" not in m[0].lower()
    return place("BORN_IN" if born else "GREW_UP_IN", "{s} was born in {o}" if born else "{s} grew up in {o}")(m, s)


def moved(m: re.Match[str], s: Sentence) -> list[Draft]:
    """A move is an event, and the residence it starts is derived from it
    ("moved to Boston", "moved into a new flat in Leeds")."""
    dest = take_proper(s.text, m.end(), s.limit(m.end()), allow_lower=False)
    dwelling = _DWELLING.match(s.text, m.end()) if dest is None else None
    if dwelling is not None:
        dest = take_proper(s.text, dwelling.end(), s.limit(dwelling.end()), allow_lower=False)
    if dest is None:
        return []
    subj, span = subject_of(m, s), match_span(m, dest.end)
    drafts = [Draft(subj, "MOVED_TO", dest.name, f"{subj} moved to {dest.said}", "event", HOME, span=span)]
    src = take_proper(s.text, m.start("src"), m.end("src"), allow_lower=False) if m["src"] else None
    if src is not None:  # the old home ends before the new one supersedes it
        drafts.append(Draft(subj, "LIVES_IN", src.name, f"{subj} no longer lives in {src.said}", "end", HOME, True,
                            span=span, derived_from=(0,)))
    return drafts + [Draft(subj, "LIVES_IN", dest.name, f"{subj} lives in {dest.said}", "state", HOME, True, span=span,
                           derived_from=(0,))]


def moved_from(m: re.Match[str], s: Sentence) -> list[Draft]:
    src = take_proper(s.text, m.end(), s.limit(m.end()), allow_lower=False)
    if src is None:
        return []
    subj, span = subject_of(m, s), match_span(m, src.end)
    return [Draft(subj, "MOVED_FROM", src.name, f"{subj} moved from {src.said}", "event", HOME, span=span),
            Draft(subj, "LIVES_IN", src.name, f"{subj} no longer lives in {src.said}", "end", HOME, True, span=span,
                  derived_from=(0,))]


def call_home(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "I call Toronto home" -> LIVES_IN Toronto; the name must run up to "home"."""
    obj = take_proper(s.text, m.end(), s.limit(m.end()), allow_lower=False)
    if obj is None or not re.match(r"\s+home\b", s.text[obj.end:]):
        return []
    subj = subject_of(m, s)
    return [Draft(subj, "LIVES_IN", obj.name, f"{subj} lives in {obj.said}", "state", HOME, True,
                  span=match_span(m, obj.end))]


def home_is(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "My home is in Austin these days" -> LIVES_IN Austin."""
    obj = take_proper(s.text, m.end(), s.limit(m.end()), allow_lower=False)
    if obj is None:
        return []
    return [Draft(s.speaker, "LIVES_IN", obj.name, f"{s.speaker} lives in {obj.said}", "state", HOME, True,
                  span=match_span(m, obj.end))]


def place_is_home(m: re.Match[str], s: Sentence) -> list[Draft]:
    name = m["place"] or m["where"] or m["aside"]
    if name.split()[0].lower() in STOP_NAMES:
        return []  # "This is home", "Here is where I live"
    return [Draft(s.speaker, "LIVES_IN", name, f"{s.speaker} lives in {name}", "state", HOME, True,
                  span=match_span(m, m.end()))]


def moving(m: re.Match[str], s: Sentence) -> list[Draft]:
    dest = take_proper(s.text, m.end(), s.limit(m.end()), allow_lower=False)
    if dest is None:
        return []
    subj = subject_of(m, s)
    return [Draft(subj, "PLANS", f"move to {dest.name}", f"{subj} plans to move to {dest.said}", "plan", PLAN,
                  span=match_span(m, dest.end))]


# endings first: "we moved out of Austin and settled in Portland" closes Austin before Portland supersedes it,
# so the ending still finds its open fact (an ending that finds none is stored as a fact of its own)
RULES: tuple[Rule, ...] = (
    Rule(END_LIVES, place("LIVES_IN", "{s} no longer lives in {o}", "end", True, lower=True)),
    Rule(END_LIVES_ANYMORE, place("LIVES_IN", "{s} no longer lives in {o}", "end", True, lower=True, anymore=True)),
    Rule(MOVED_OUT, place("LIVES_IN", "{s} no longer lives in {o}", "end", True)),
    Rule(MOVED, moved), Rule(MOVED_FROM, moved_from), Rule(MOVING, moving),
    Rule(LIVES_IN, place("LIVES_IN", "{s} lives in {o}", single=True, lower=True)),
    Rule(LIVED_IN, place("LIVED_IN", "{s} used to live in {o}")), Rule(BE_IN, been_in),
    Rule(GREW_UP, grew_up),
    Rule(IS_FROM, place("IS_FROM", "{s} is from {o}", single=True)),
    Rule(HOME_IS, home_is),
    Rule(LIVES_ON, place("LIVES_IN", "{s} lives in {o}", single=True)),
    Rule(LIVES_NEAR, place("LIVES_IN", "{s} lives in {o}", single=True)),
    Rule(CALL_HOME, call_home), Rule(PLACE_IS_HOME, place_is_home, False), Rule(SETTLED, place("LIVES_IN", "{s} lives in {o}", single=True)),
)
