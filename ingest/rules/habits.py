"""Pastimes said as habits: "I go running most mornings", "I jog round the park every
morning", "I sing in a choir on Tuesday evenings", "I play chess online every night".

Nobody says "I like jogging" about a thing they do daily; they say how often they do it.
A pastime verb (or "go <verb>ing", "play <game>", "have been <pastime>ing") in the present, with a frequency in
the same clause, is a LIKES of the activity (slot ``PREF:<activity>``, the slot the
hobby and preference topics share, so "I haven't run since" can end it). Without a
frequency nothing is read ("I run a small bakery", "I paint the fence"); a verb followed
by an object other than a place or a game is not the pastime ("I draw the line").
"""

from __future__ import annotations

import re

from graphmem.ingest.rules.drafts import LIKE, Draft, Rule, Sentence, match_span
from graphmem.ingest.rules.grammar import rule
from graphmem.ingest.rules.hobbies import HOBBY_NOUNS, NOT_A_HOBBY
from graphmem.ingest.rules.presupposed import about_someone_else
from graphmem.ingest.rules.text import to_gerund

__all__ = ["RULES"]

# the pastime verbs, base form -> the activity's name
PASTIMES = {
    "jog": "jogging", "run": "running", "swim": "swimming", "cycle": "cycling", "bike": "biking", "hike": "hiking",
    "climb": "climbing", "boulder": "bouldering", "knit": "knitting", "crochet": "crochet", "bake": "baking",
    "paint": "painting", "sketch": "sketching", "draw": "drawing", "sing": "singing", "dance": "dancing",
    "surf": "surfing", "skate": "skating", "ski": "skiing", "snowboard": "snowboarding", "row": "rowing",
    "sail": "sailing", "fish": "fishing", "garden": "gardening", "golf": "golf", "box": "boxing", "kayak": "kayaking",
    "canoe": "canoeing", "meditate": "meditating", "journal": "journaling", "sew": "sewing", "quilt": "quilting",
    "skateboard": "skateboarding", "train": "training", "lift": "weightlifting", "spar": "sparring",
    "volunteer": "volunteering", "birdwatch": "birdwatching", "paddleboard": "paddleboarding", "scuba": "scuba diving",
}
_VERB = "(?:" + "|".join(sorted(PASTIMES, key=len, reverse=True)) + ")"
# the same pastimes said as what one has been doing: "I've been bouldering 4x a week"
_DOING = "(?:" + "|".join(sorted({g for g in PASTIMES.values() if g.endswith("ing") and " " not in g}, key=len,
                                 reverse=True)) + ")"
_ADVERBS = r"(?:(?:usually|often|still|always|generally|normally|regularly|also|religiously|try\s+to|like\s+to|love\s+to)\s+)*"
HABIT = rule(
    rf"\b(?:I|we)(?:\s+{_ADVERBS}(?:go\s+(?P<going>[a-z]+ing)|(?P<verb>{_VERB})|play\s+(?P<game>[a-z]+))"
    rf"|(?:'ve|\s+have)\s+{_ADVERBS}been\s+{_ADVERBS}(?P<doing>{_DOING}))(?=[\s,.;!?]|$)",
    ("every", "most", "each", "weekend", "week", "daily", "regularly", "mondays", "tuesdays", "wednesdays",
     "thursdays", "fridays", "saturdays", "sundays", "evenings", "mornings", "rain or shine", "religiously", "month"))
_FREQUENCY = re.compile(
    r"\b(?:every|most|each)\s+(?:single\s+)?(?:other\s+)?(?:day|morning|evening|night|afternoon|week|weekend|lunchtime|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\b|\b(?:on|at|over)\s+(?:the\s+)?weekends?\b"
    r"|\bon\s+(?:mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays)\b"
    r"|\bon\s+(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)\s+(?:evenings|mornings|nights|afternoons)\b"
    r"|\b(?:twice|once|(?:\d|two|three|four|five|six|seven)\s*(?:x|times)|a\s+few\s+times|a\s+couple\s+of\s+times)"
    r"\s+(?:a|per)\s+(?:week|month)\b|\b(?:daily|regularly|religiously)\b|\brain\s+or\s+shine\b", re.IGNORECASE)
# after the verb: a place, a time or a companion, never an object ("I run a bakery", "I paint the fence")
_AFTER_OK = re.compile(r"\s*(?:$|[,.;:!?]|(?:\d+\s*(?:x|times)|(?:two|four|five|six|seven)\s+times)\b|(?:in|at|on|round|around|along|with|to|before|after|every|most|each|twice|"
                       r"once|three|daily|regularly|religiously|outdoors|outside|indoors|online|competitively|"
                       r"a\s+(?:choir|club|band|team|league)|in\s+a|at\s+the|for\s+(?:an?\s+)?(?:hour|club|team|fun))\b)",
                       re.IGNORECASE)


def habit(m: re.Match[str], s: Sentence) -> list[Draft]:
    left, right = s.clause(m.start(), m.end())
    if not _FREQUENCY.search(s.text, m.end(), right) or about_someone_else(s, m.start()):
        return []
    if m["game"]:
        name = m["game"].lower()
        if name not in HOBBY_NOUNS:
            return []
    elif m["doing"]:
        if not _AFTER_OK.match(s.text, m.end()):
            return []  # "I've been running errands every day"
        name = m["doing"].lower()
    elif m["going"]:
        name = m["going"].lower()
        if name in NOT_A_HOBBY or name in ("shopping", "home", "out", "clubbing", "drinking", "partying", "nothing"):
            return []
    else:
        if not _AFTER_OK.match(s.text, m.end()):
            return []
        name = PASTIMES.get(m["verb"].lower()) or to_gerund(m["verb"].lower())
    return [Draft(s.speaker, "LIKES", name, f"{s.speaker} regularly does {name}", "state", LIKE, True, f"PREF:{name}",
                  span=match_span(m, m.end()), dated=False)]


# "I joined a climbing club in March", "signed up for pottery classes", "I've been learning the cello"
JOINED = rule(r"\b(?:I|we)(?:'ve|\s+have)?\s+(?:(?:just|recently|finally|also)\s+)*(?:joined|signed\s+up\s+(?:for|to)|enrolled\s+(?:in|on)|"
              r"started\s+going\s+to|started)\s+(?:a|an|the|my|our|a\s+local|the\s+local)?\s*(?P<act>[a-z-]+(?:\s+[a-z-]+)?)\s+"
              r"(?:club|class|classes|team|group|league|lessons|society|crew|meetup)\b",  # a course is studied (STUDIES), not a pastime
              ("joined", "signed up", "enrolled", "started"))
LEARNING = rule(r"\bI(?:'ve|\s+have|'m|\s+am)?\s+(?:(?:been|started|begun|now|just|finally|also)\s+)*learning\s+(?:(?:how\s+)?to\s+"
                r"(?:play\s+(?:the\s+)?)?)?(?:the\s+)?(?P<act>[a-z-]+)\b", ("learning",))
_CLUB_OF = {"book": "reading", "run": "running", "running": "running", "walking": "walking", "swim": "swimming",
            "cycling": "cycling", "climbing": "climbing", "chess": "chess", "choir": "singing", "dance": "dancing",
            "art": "painting", "pottery": "pottery", "yoga": "yoga", "hiking": "hiking", "rowing": "rowing",
            "knitting": "knitting", "craft": "crafting", "photography": "photography", "salsa": "dancing"}


def joined(m: re.Match[str], s: Sentence) -> list[Draft]:
    words = m["act"].lower().split()
    act = _CLUB_OF.get(words[-1]) or (words[-1] if words[-1] in HOBBY_NOUNS else None)
    if act is None and words[-1].endswith("ing") and words[-1] not in NOT_A_HOBBY:
        act = words[-1]
    if act is None and words[-1] in PASTIMES:
        act = PASTIMES[words[-1]]
    if act is None or about_someone_else(s, m.start()):
        return []
    return [Draft(s.speaker, "LIKES", act, f"{s.speaker} took up {act}", "state", LIKE, True, f"PREF:{act}",
                  span=match_span(m, m.end()))]


def learning(m: re.Match[str], s: Sentence) -> list[Draft]:
    word = m["act"].lower()
    act = word if word in HOBBY_NOUNS else PASTIMES.get(word)
    if act is None or about_someone_else(s, m.start()):
        return []
    return [Draft(s.speaker, "LIKES", act, f"{s.speaker} is learning {act}", "state", LIKE, True, f"PREF:{act}",
                  span=match_span(m, m.end()))]


RULES: tuple[Rule, ...] = (Rule(HABIT, habit), Rule(JOINED, joined), Rule(LEARNING, learning))
