"""Hobbies: activities taken up and given up.

"I started surfing", "I took up pottery" are STARTED events; "I gave up
running", "I quit tennis", "I don't play chess anymore", "I no longer paint" end the open LIKES of that activity (slot
``PREF:<activity>``, shared with the preferences topic), so "I love playing
tennis" followed by "I gave up tennis" reads as no longer liked. An activity is
a verb in -ing or a known hobby noun; food and habits ("gave up sugar", "quit
smoking") are left to the health topic.
"""

from __future__ import annotations

import re

from graphmem.ingest.rules.drafts import LIKE, WORK, Draft, Rule, Sentence, match_span, says, subject_of, take_org
from graphmem.ingest.rules.grammar import subject_rule
from graphmem.ingest.rules.text import PREP_STOP, Piece, own, strip_article, take_phrase, to_gerund

__all__ = ["KINDRED", "RULES", "activity_name", "kindred"]

# ------------------------------------------------------------------ patterns

HOBBY_NOUNS = frozenset("""
tennis golf yoga pilates chess football soccer basketball baseball volleyball hockey rugby cricket badminton
squash karate judo taekwondo boxing crossfit piano guitar violin drums cello ukulele flute saxophone
photography pottery ballet tango meditation archery fencing parkour crosswords sudoku jigsaws origami calligraphy
crochet embroidery netball lacrosse softball padel pickleball darts snooker zumba woodwork watercolours watercolors
choir
""".split())
# one pastime under several names: giving up "climbing" ends "bouldering" too (`kindred_endings`)
KINDRED = tuple(frozenset(f.split("|")) for f in """
running|jogging|trail running
climbing|bouldering|rock climbing|indoor climbing
cycling|biking|bike riding|road cycling|mountain biking
swimming|open-water swimming|open water swimming|wild swimming|sea swimming
hiking|hillwalking|hill walking|fell walking|trekking|rambling
singing|choir|singing in a choir
painting|watercolours|watercolors|watercolour painting|oil painting|painting watercolours
gaming|video games|playing video games
weightlifting|lifting|lifting weights|powerlifting
kayaking|canoeing|paddleboarding
woodworking|woodwork|carpentry
baking|baking bread|bread baking
gardening|allotment|the allotment
""".strip().splitlines())
_NOT_AN_ACTIVITY = frozenset("thinking feeling wondering going being having realizing noticing getting looking "
                             "trying hoping wanting missing doing dating seeing".split())
NOT_A_HOBBY = _NOT_AN_ACTIVITY | frozenset("eating drinking smoking vaping working talking using taking making "
                                            "seeing dating texting calling paying buying".split())
_PLAYING = re.compile(r"^(?:playing|doing|practi[cs]ing)\s+(?P<rest>\S+)$", re.IGNORECASE)

STARTED_DOING = subject_rule("started", "began", "HAVE started", "HAVE begun", tail=r"\s+(?=[a-z]+ing\b)")
TOOK_UP = subject_rule("took up", "HAVE taken up", "picked up", "HAVE picked up", "got into", "HAVE got into",
                       "HAVE gotten into", "started", "HAVE started", keywords=("up", "into", "start"))
# "I don't play chess anymore", "I no longer paint": the activity is no longer liked
NO_LONGER_DOES = subject_rule("DONT (?P<verb>[a-z]+)", "BE not (?P<ing>[a-z]+ing)", "no longer (?P<verb2>[a-z]+)",
                              "(?:barely|hardly|rarely|seldom|never\\s+really) (?P<verb3>[a-z]+)",
                              tail=r"(?=[\s,.;!?]|$)", keywords=("anymore", "any more", "no longer", "no more"))
# "I no longer enjoy hiking", "I've lost interest in the guitar", "I'm done with knitting": no longer liked
END_LIKE = subject_rule("no longer (?:enjoy|like|love)[s]?", "used to (?:love|like|enjoy)", "lost interest in", "HAVE lost interest in", "BE done with",
                        "BE no longer into", "BE no longer interested in", "BE not interested in",
                        "BE finished with", keywords=("no longer", "interest", "done with", "finished with", "used to"))
GAVE_UP = subject_rule("gave up", "HAVE given up", "quit", "HAVE quit", "stopped", "HAVE stopped",
                       keywords=("gave up", "given up", "quit", "stopped"))


# ------------------------------------------------------------------ handlers


# pastimes by name, whose place can be dropped: "hiking in the Peak District" is hiking, "going on road trips" is not going
PASTIME_NAMES = frozenset(n for f in KINDRED for n in f) | frozenset("""
skiing snowboarding surfing skating sailing rowing fishing golfing dancing knitting sewing quilting sketching drawing
camping birdwatching walking kayaking canoeing skateboarding boxing diving snorkelling snorkeling paddleboarding
""".split())


def kindred(name: str) -> frozenset[str]:
    """The other names of the pastime `name` ("climbing" -> bouldering, rock climbing, ...), empty if none:
    an ending of one closes an open fact stored under another (`ingest.facts.ended_fact`)."""
    low = " ".join(name.casefold().split())
    family = next((f for f in KINDRED if low in f), None)
    return family - {low} if family else frozenset()


def activity_name(phrase: str) -> str:
    """One name per activity: "playing tennis" -> "tennis", so liking and giving it up meet."""
    where = _WHERE.match(phrase)
    if where and where["act"].lower() in PASTIME_NAMES:
        phrase = where["act"]
    m = _PLAYING.match(phrase)
    return m["rest"].lower() if m and m["rest"].lower() in HOBBY_NOUNS else phrase


# where or with whom it is done is not the activity: "hiking in the Peak District" -> "hiking"
_WHERE = re.compile(r"^(?P<act>[a-z]+ing)\s+(?:in|at|around|near|along|through|round|across|up|down)\s+\S.*$")


def _activity(s: Sentence, pos: int) -> Piece | None:
    """An activity right at `pos`: a verb in -ing or a hobby noun, of at most three words."""
    obj = take_phrase(s.text, pos, s.limit(pos), 3, PREP_STOP)
    if obj is None:
        return None
    words = obj.name.lower().split()
    gerund = words[0].endswith("ing") and words[0] not in NOT_A_HOBBY
    return obj if gerund or words[-1] in HOBBY_NOUNS else None


_FOR_SOMEONE = re.compile(r"\s+for\s+(?:the\s+)?(?-i:[A-Z])", re.IGNORECASE)


def started_doing(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "I started surfing five years ago" -> STARTED "surfing", dated."""
    obj = take_phrase(s.text, m.end(), s.limit(m.end()), 5, PREP_STOP)
    words = obj.name.lower().split() if obj else []
    if not words or words[0] in _NOT_AN_ACTIVITY or (words[0] == "working" and words[1:2] != ["out"]):
        return []  # "started working at Stripe" is a job, left to WORKS_AT
    if _FOR_SOMEONE.match(s.text, obj.end):
        return []  # "started roasting for Blue Bottle", "started cooking for Marcus": a service, a job, no pastime
    said = own(obj.said, s.speaker)
    return [Draft(subject_of(m, s), "STARTED", said, f"{says(m, s)} {said}", "event", LIKE,
                  span=match_span(m, obj.end))]


def took_up(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "I've taken up gardening", "I took up golf" -> STARTED the activity."""
    obj = _activity(s, m.end())
    if obj is None or (obj.name.lower().endswith("ing") and "start" in m[0].lower()):
        return []  # "started surfing" is read by STARTED_DOING
    name = activity_name(obj.name)
    return [Draft(subject_of(m, s), "STARTED", name, f"{says(m, s)} {own(obj.said, s.speaker)}", "event", LIKE,
                  span=match_span(m, obj.end))]


_FAN_OF = re.compile(r"^(?:following|supporting|watching|listening\s+to|reading)\s+(?P<what>[A-Z].*)$")


def gave_up(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "I gave up running" -> the LIKES of running ends."""
    obj = _activity(s, m.end())
    if obj is None:
        return []
    subj, name = subject_of(m, s), activity_name(obj.name)
    fan = _FAN_OF.match(obj.name)
    if fan:
        name = fan["what"]
    return [Draft(subj, "LIKES", name, f"{subj} gave up {obj.said}", "end", LIKE, True, f"PREF:{name.lower()}",
                  span=match_span(m, obj.end))]


def end_like(m: re.Match[str], s: Sentence) -> list[Draft]:
    """The LIKES of an activity ends; "I'm done with Walmart" (a name) ends work or studies
    there, whichever is open; "not interested in" needs "anymore"."""
    if re.search(r"\bnot\b", m[0], re.I) and not s.says_anymore(m.start(), m.end()):
        return []
    subj = subject_of(m, s)
    if "done" in m[0].lower() or "finished" in m[0].lower():
        org = take_org(s, m.end(), lower=False)
        if org is not None and org.name[:1].isupper():
            span = match_span(m, org.end)
            return [Draft(subj, p, org.name, f"{subj} is done with {org.said}", "end", WORK, True, span=span,
                          closes_only=True) for p in ("WORKS_AT", "STUDIES_AT")]
    obj = _activity(s, m.end())
    if obj is None or obj.name.lower().split()[0] in ("spending", "hanging"):
        return []  # "used to love spending time in the studio" names no activity
    name = activity_name(strip_article(obj.name))
    return [Draft(subj, "LIKES", name, f"{subj} no longer enjoys {obj.said}", "end", LIKE, True,
                  f"PREF:{name.lower()}", span=match_span(m, obj.end))]


_PLAY_VERBS = frozenset("play do practise practice".split())


def no_longer_does(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "I don't play chess anymore" (a hobby noun after play/do), "I don't paint anymore",
    "I no longer knit" (the verb alone, as an activity): LIKES of it ends. "don't"
    needs "anymore"; a verb with an object other than a hobby says nothing here."""
    verb = (m["verb"] or m["verb2"] or m["verb3"] or "").lower()
    negated = m["verb2"] is None
    if m["ing"]:
        verb = m["ing"].lower()
    rest = take_phrase(s.text, m.end() + 1, s.limit(m.end() + 1), 2, PREP_STOP)
    if verb in _PLAY_VERBS or (verb.endswith("ing") and verb[:-3] in _PLAY_VERBS):
        if rest is None or rest.name.lower().split()[-1] not in HOBBY_NOUNS:
            return []
        name, end = rest.name.lower().split()[-1], rest.end
    else:
        name, end = (verb if m["ing"] else verb + "ing" if verb.endswith("ing") else to_gerund(verb)), m.end()
        if rest is not None or name in NOT_A_HOBBY or verb in _NOT_A_VERB:
            return []  # "I don't eat meat anymore" has an object: the health topic's
    if negated and not s.says_anymore(m.start(), end):
        return []
    subj = subject_of(m, s)
    return [Draft(subj, "LIKES", name, f"{subj} no longer does {name}", "end", LIKE, True, f"PREF:{name}",
                  span=match_span(m, end))]


_NOT_A_VERB = frozenset("know think care mind live work study eat drink smoke go need want feel use talk speak "
                        "believe remember understand have own see hear get drive sleep wait try"
                        .split())

RULES: tuple[Rule, ...] = (Rule(STARTED_DOING, started_doing), Rule(TOOK_UP, took_up), Rule(GAVE_UP, gave_up),
                           Rule(NO_LONGER_DOES, no_longer_does), Rule(END_LIKE, end_like, False))
