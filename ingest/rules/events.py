"""Events and activities: places visited, events attended, activities taken up.

"I went to a concert last Saturday" is ATTENDED, "I visited Paris" VISITED,
both events dated by their clause; "I went hiking" is ATTENDED "hiking".
Activities taken up are the hobbies topic's.
"""

from __future__ import annotations

import re

from graphmem.ingest.rules.drafts import EVENT, Draft, Rule, Sentence, match_span, says, subject_of
from graphmem.ingest.rules.grammar import subject_rule
from graphmem.ingest.rules.text import PREP_STOP, own, strip_article, take_phrase

_SEE = re.compile(r"(?:see|watch)\s+", re.IGNORECASE)

# ------------------------------------------------------------------ patterns

ATTENDED = subject_rule(
    "went on a trip to", "took a trip to", "went to", "HAVE been to", "attended", "HAVE attended", "participated in",
    "HAVE participated in", "took part in", "HAVE taken part in", "competed in", "HAVE competed in", "performed at",
    "volunteered at", "HAVE volunteered at", "went on", "WAS at", "visited", "HAVE visited", "traveled to",
    "travelled to", "HAVE traveled to", "HAVE travelled to", "went back to", "spoke at",
    keywords=("went", "been", "attend", "particip", "part in", "compet", "perform", "volunteer", "was", "were",
              "visit", "travel", "trip", "spoke at"),
)
WENT_ACTIVITY = subject_rule("went", "HAVE gone", tail=r"\s+(?P<act>[a-z]+ing)\b")


# ------------------------------------------------------------------ handlers


_ATTEND_REJECT = re.compile(
    r"^(?:bed|sleep|work|home|school|it|that|this|there|here|a\s+loss|peace|ease|least|first|the\s+time|"
    r"the\s+moment|the\s+end|my\s+limit|get|grab|buy|pick|help|meet|play|hang|try|do|have|take|make|check|"
    r"the\s+bathroom|the\s+toilet|a\s+point|a\s+stage|a\s+place|a\s+time|war|visit|bring|find|talk|"
    # a change of hands or of home, not an outing: "the Focus went to a new owner", "Mochi went to live with my sister"
    r"live|stay|a\s+new\s+(?:owner|home|family)|new\s+owners|an?\s+(?:good|loving|forever|better)\s+home)\b",
    re.IGNORECASE,
)


def attended(m: re.Match[str], s: Sentence) -> list[Draft]:
    """Events and visits: "I went to a concert last Saturday", "I visited Paris"."""
    pos = m.end()
    see = _SEE.match(s.text, pos)
    obj = take_phrase(s.text, see.end() if see else pos, s.limit(pos), 6, PREP_STOP)
    if obj is None or _ATTEND_REJECT.match(obj.said):
        return []
    said = own(obj.said, s.speaker)
    proper = all(w[:1].isupper() for w in obj.said.split())
    visit = re.search(r"visit|travel|trip", m[0], re.I) or (proper and re.search(r"went|been", m[0], re.I))
    name = strip_article(said)
    verb = says(m, s) + (" to see" if see else "")
    return [Draft(subject_of(m, s), "VISITED" if visit else "ATTENDED", name, f"{verb} {said}", "event", EVENT,
                  span=match_span(m, obj.end))]


def went_doing(m: re.Match[str], s: Sentence) -> list[Draft]:
    act = m["act"].lower()
    if act in ("going", "being", "having", "missing", "nothing", "something", "everything", "anything", "thing",
               "king", "ring", "spring", "evening", "morning", "during", "bring"):
        return []
    return [Draft(subject_of(m, s), "ATTENDED", act, f"{says(m, s, m.start('act'))} {act}", "event", EVENT,
                  span=match_span(m, m.end()))]


RULES: tuple[Rule, ...] = (
    Rule(ATTENDED, attended), Rule(WENT_ACTIVITY, went_doing),
)
