"""Plans: what someone intends to do, dated for the future.

"I'm planning to visit Japan next month" is PLANS "visit Japan" for next month;
"I'll" and "going to" are too common to mean a plan without a date in their
clause, so they need one.
"""

from __future__ import annotations

import re

from graphmem.ingest.rules.drafts import PLAN, Draft, Rule, Sentence, match_span, says, subject_of
from graphmem.ingest.rules.grammar import subject_rule
from graphmem.ingest.rules.text import own, strip_article, take_phrase, take_proper

# ------------------------------------------------------------------ patterns

PLANNING = subject_rule(
    "BE planning (?:to|on)", "plan[s]? (?:to|on)", "intend[s]? to", "BE intending to", "BE hoping to", "hope[s]? to",
    "BE thinking (?:about|of)", "BE considering", "BE looking to", "HAVE decided to", "decided to", "BE aiming to",
    "aim[s]? to", "BE planning",
)
PLAN_FUTURE = subject_rule("BE going to", "BE gonna", "WILL", keywords=("going to", "gonna", "will", "'ll"))
# "I'm heading to Vancouver next week": a trip, when its clause says when
TRIP = subject_rule("BE heading", "BE headed", "BE flying", "BE driving", "BE off", "BE travell?ing",
                    tail=r"(?:\s+(?:back|over|out|down|up))?\s+to\s+(?=[A-Z])",
                    keywords=("heading", "headed", "flying", "driving", "off", "travel"))


# ------------------------------------------------------------------ handlers


_PLAN_REJECT = frozenset("be have keep try need do make let tell send think say bet miss love like see check talk "
                         "chat catch text call get give show share ask wait sleep rest probably never always not "
                         "also just still really so too update definitely stay".split())
_DETERMINER = re.compile(r"(?:a|an|the|my|our|this|that|some)\b", re.IGNORECASE)


def plan(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "I'm planning to visit Japan next month" -> PLANS "visit Japan", for August."""
    obj = take_phrase(s.text, m.end(), s.limit(m.end()), 7)
    if obj is None or obj.name.split()[0].lower() in _PLAN_REJECT:
        return []
    said = own(obj.said, s.speaker)
    future = m.re is PLAN_FUTURE.pattern
    if future:
        left, right = s.clause(m.start(), obj.end)
        if not any(left <= span.start and span.end <= right for span in s.spans):
            return []  # "I'll" and "going to" are too common to mean a plan without a date
        said = f"go to {said}" if _DETERMINER.match(said) else said
    subj = subject_of(m, s)
    text = f"{subj} plans to {said}" if future else f"{says(m, s)} {said}"
    return [Draft(subj, "PLANS", strip_article(said), text, "plan", PLAN, span=match_span(m, obj.end))]


def trip(m: re.Match[str], s: Sentence) -> list[Draft]:
    dest = take_proper(s.text, m.end(), s.limit(m.end()), allow_lower=False)
    if dest is None:
        return []
    left, right = s.clause(m.start(), dest.end)
    if not any(left <= span.start and span.end <= right for span in s.spans):
        return []  # "I'm off to Paris!" may be today's errand; a trip plan names its date
    subj = subject_of(m, s)
    return [Draft(subj, "PLANS", f"go to {dest.name}", f"{subj} plans to go to {dest.said}", "plan", PLAN,
                  span=match_span(m, dest.end))]


RULES: tuple[Rule, ...] = (Rule(PLANNING, plan), Rule(PLAN_FUTURE, plan), Rule(TRIP, trip))
