"""Likes, dislikes and favourites.

Each thing liked has its own slot ``PREF:<thing>``, so "I don't like sushi
anymore" can supersede "I love sushi" while likes of different things coexist;
"my favourite X is Y" is a LIKES of Y in the slot ``FAVORITE:<X>``, so a new
favourite band supersedes the old one, and "Y used to be my favourite X" ends it. A reaction ("I love the photo", "love
that idea") states no preference and is dropped.
"""

from __future__ import annotations

import re

from graphmem.ingest.rules.drafts import LIKE, Draft, Rule, Sentence, match_span, says, subject_of
from graphmem.ingest.rules.grammar import NAME, rule, subject_rule
from graphmem.ingest.rules.hobbies import activity_name
from graphmem.ingest.rules.text import LIKE_STOP, own, strip_article, take_phrase, to_gerund

_TO = re.compile(r"to\s+", re.IGNORECASE)

# ------------------------------------------------------------------ patterns

LIKES = subject_rule("love[s]?", "like[s]?", "enjoy[s]?", "adore[s]?", "BE into", "BE obsessed with",
                     "BE passionate about", r"BE crazy about", "BE hooked on",
                     r"BE (?:a|an) (?:big\s+|huge\s+|massive\s+|great\s+)?fan of",
                     "HAVE loved", "HAVE liked", "HAVE enjoyed", "HAVE been into",
                     keywords=("love", "like", "enjoy", "adore", "into", "obsessed", "passionate", "crazy", "fan of", "hooked"))
FAVORITE = rule(
    rf"(?:\b(?P<my>my|our)|\b(?P<owner>{NAME})'s)\s+(?:all-time\s+|absolute\s+|new\s+)?favou?rite\s+"
    r"(?P<cat>[\w-]+(?:\s+[\w-]+){0,2}?)\s+(?:is|are|has\s+to\s+be)\s+(?:now\s+|currently\s+)?",
    ("favorite", "favourite"),
)
# the favourite in an aside: "my favourite author, Terry Pratchett, has a new book out", "Radiohead (my favourite band)"
_ASIDE_NAME = r"(?-i:[A-Z][\w.'-]*(?:\s+(?:[A-Z][\w.'-]*|of|the|de|van|von|da|le|la)){0,4})"
FAVORITE_ASIDE = rule(
    rf"\b(?P<my>my|our)\s+(?:all-time\s+|absolute\s+)?favou?rite\s+(?P<cat>[a-z-]+(?:\s+[a-z-]+)?),\s+(?P<thing>{_ASIDE_NAME})"
    r"(?=\s*(?:,|\)|\s[-\u2013\u2014]))"
    rf"|(?P<thing2>{_ASIDE_NAME})\s+\((?P<my2>my|our)\s+(?:all-time\s+|absolute\s+)?favou?rite\s+(?P<cat2>[a-z-]+(?:\s+[a-z-]+)?)\)",
    ("favorite", "favourite"))
# "Green used to be my favourite colour", "Adele is no longer my favourite singer": that favourite ends
FAVORITE_ENDED = rule(
    r"(?:^|[,;:]\s+|\bbut\s+)(?P<thing>[\w'-]+(?:\s+[\w'-]+){0,3}?)\s+(?:used\s+to\s+be|is\s+no\s+longer|"
    r"(?P<neg>isn't|is\s+not))\s+(?P<my>my|our)\s+(?:all-time\s+)?favou?rite\s+(?P<cat>[\w-]+)\b",
    ("favorite", "favourite"),
)
# the value first: "Pizza is my favourite food", "These days sushi is my favourite food", "Jazz is my favourite kind
# of music"; "Rugby has replaced cricket as my favourite sport" ends the old one too
FAVORITE_FIRST = rule(
    r"(?:^|[,;:]\s+|\s[-\u2013\u2014]+\s+|\bbut\s+|\b(?:these\s+days|nowadays|now|lately),?\s+)(?P<thing>(?!(?:it|this|that|what|which|who|"
    r"there|he|she|they|mine)\b)[\w'-]+(?:\s+[\w'-]+){0,3}?)\s+(?:is|are|has\s+become|have\s+become|'s\s+become|became|"
    r"has\s+been|have\s+been|'s\s+been)\s+"
    r"(?:(?:now|still|definitely|officially|easily|hands\s+down|by\s+far|without\s+a\s+doubt|without\s+question|"
    r"undoubtedly|absolutely|genuinely|honestly|really|always|long|currently)\s+)*"
    r"(?P<my>my|our)\s+(?:(?:new|all-time|absolute|undisputed|current)\s+)*(?:favou?rite|fave|top|number\s+one|go-to)\s+"
    r"(?P<cat>(?:(?:kind|type|sort|genre)\s+of\s+)?[\w-]+)\b(?!\s+(?:is|was|of(?!\s+all\s+time)|in|for|to)\b)",
    ("favorite", "favourite", "fave", "top", "number one", "go-to"))
# "since our trip pad see ew has become my absolute favourite": the few words before "has become", any case
FAVORITE_BECAME = rule(
    r"(?<![\w'-])(?P<thing>(?:(?!(?:it|this|that|what|which|who|there|he|she|they|mine|our|my|the|to|of|in|on|at|and|but|since|"
    r"after|so|has|have|is|was|trip|then)\b)[\w'-]+\s+){0,2}(?!(?:it|this|that|what|which|who|there|he|she|they|mine|our|"
    r"my|the|to|of|in|on|at|and|but|since|after|so|has|have|is|was|trip|then)\b)[\w'-]+)\s+(?:has|have|'s)\s+"
    r"(?:(?:now|officially|quickly|firmly|easily|somehow)\s+)?become\s+(?P<my>my|our)\s+(?:(?:new|all-time|absolute|"
    r"undisputed|total)\s+)*(?:favou?rite|fave|number\s+one|go-to)(?:\s+(?P<cat>[a-z-]+))?\b", ("become",))
# a name with no kind of thing after: "Ever since ..., Susanna Clarke has been my absolute favourite", "Adele is still my
# number one"; only a capitalised name at a clause's start, and the phrase must end there ("my favourite part of ..." is not)
FAVORITE_NAMED = rule(
    r"(?:^|[,;:]\s+|\b(?:now|and|but|so|these\s+days|nowadays|lately),?\s+)(?P<thing>(?-i:[A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*){0,3}))"
    r"\s+(?:is|has\s+been|'s\s+been|"
    r"'s)\s+(?:(?:now|still|definitely|easily|always|officially)\s+)*(?P<my>my|our)\s+(?:(?:new|all-time|absolute|undisputed|"
    r"current)\s+)*(?:favou?rite|fave|number\s+one)(?P<cat>)(?=\s*(?:[,.;:!?]|$|\s+(?:now|these\s+days|by\s+far|of\s+all\s+time)\b))",
    ("favorite", "favourite", "fave", "number one"))
# "Jaws has been dethroned", "Radiohead got knocked off the top spot": the old favourite ends, the new one unsaid
FAVORITE_DETHRONED = rule(
    r"(?:^|[,;:]\s+|\bbut\s+|\bhonestly\s+)(?P<thing>[\w'-]+(?:\s+[\w'-]+){0,3}?)\s*(?:\s(?:has|have)\s+been|'s\s+been|\sgot|\swas|"
    r"\swere)\s+"
    r"(?:(?:officially|finally|well\s+and\s+truly)\s+)?(?:dethroned|knocked\s+off\s+(?:the\s+)?(?:top\s+spot|top|"
    r"number\s+one\s+spot|pedestal|throne)|bumped\s+(?:off|down)|overtaken|demoted|usurped)\b",
    ("dethroned", "knocked off", "bumped", "overtaken", "demoted", "usurped"))
# "I've gone right off pizza", "I used to think nothing could beat lasagne": no longer liked
LIKE_LOST = rule(
    r"\b(?:I|we)(?:'ve|\s+have)?\s+(?:(?:kind\s+of|sort\s+of|totally|completely|really)\s+)?(?:gone|went)\s+"
    r"(?:right\s+|completely\s+|totally\s+|a\s+bit\s+)?off\s+(?P<thing>[\w'-]+(?:\s+[\w'-]+)?)"
    r"|\bI\s+used\s+to\s+(?:think|say|believe|swear)\s+(?:that\s+)?(?:nothing|no\s+\w+)\s+(?:could|would|can|will)?\s*"
    r"(?:beat|top|touch|compare\s+(?:to|with)|come\s+close\s+to)\s+(?P<thing2>[\w'-]+(?:\s+[\w'-]+)?)", ("off", "used to"))
FAVORITE_REPLACED = rule(
    r"(?:^|[,;:]\s+|\bbut\s+)(?P<thing>[\w'-]+(?:\s+[\w'-]+){0,3}?)\s+(?:has|have)\s+replaced\s+"
    r"(?P<old>[\w'-]+(?:\s+[\w'-]+){0,3}?)\s+as\s+(?P<my>my|our)\s+(?:all-time\s+)?favou?rite\s+(?P<cat>[\w-]+)\b",
    ("replaced",))
DISLIKES = subject_rule("hate[s]?", "dislike[s]?", "detest[s]?", "can't stand", "cannot stand", "DONT like",
                        "DONT enjoy", r"BE not (?:a|an) (?:big\s+|huge\s+)?fan of", "BE not into", "DONT care for",
                        keywords=("hate", "dislike", "detest", "stand", "like", "enjoy", "fan of", "into", "care for"))


# ------------------------------------------------------------------ handlers


_VERB_REJECT = frozenset("see hear know think say help be have get make keep try do chat talk share imagine "
                         "believe remind tell give hear read_about".split())
_REACTION = re.compile(
    r"^(?:the|your|that|this)\s+(?:photo|pic|pics|picture|pictures|painting|colou?rs?|idea|way|fact|thought|"
    r"feeling|sound|vibe|vibes|energy|support|attitude|name|look|details?|story|message|video|quote|spirit|"
    r"design|shot|view|smile|enthusiasm|passion|sound|part|moment|pics)\b|^(?:idea|way|fact)\b",
    re.IGNORECASE,
)


_NO_THING = frozenset({"spending time", "spending quality time", "hanging out", "time", "it", "that"})
_BASE_VERB = re.compile(r"\s+(?:like|love|enjoy|adore|hate|dislike|detest)\b", re.IGNORECASE)


def _preference(predicate: str, m: re.Match[str], s: Sentence, owner: str | None = None) -> list[Draft]:
    """LIKES/DISLIKES: one slot per thing liked, so "I don't like sushi anymore" can
    supersede "I love sushi" while likes of different things coexist."""
    if owner is None and m["sname"] and _BASE_VERB.match(s.text, m.end("subj")):
        return []  # a name takes "likes": "Toys like the Kong", "Countries like Poland" compare, they state nothing
    pos, limit = m.end(), s.limit(m.end())
    to = _TO.match(s.text, pos) if predicate == "LIKES" and owner is None else None
    obj = take_phrase(s.text, to.end() if to else pos, limit, 6, LIKE_STOP)
    if obj is None or _REACTION.match(obj.said) or obj.name.lower() in _NO_THING:
        return []
    said = own(obj.said, s.speaker)
    if to:
        verb, *rest = said.split()
        if verb.lower() in _VERB_REJECT:
            return []
        name, said = activity_name(" ".join([to_gerund(verb), *rest])), f"to {said}"
    else:
        name = activity_name(strip_article(said))
    if owner is not None:
        subj, text = owner, f"{owner}'s favorite {m['cat']} is {said}"
    else:
        subj, text = subject_of(m, s), f"{says(m, s)} {said}"
    slot = f"FAVORITE:{category(m['cat'])}" if owner is not None else f"PREF:{name.lower()}"
    return [Draft(subj, predicate, name, text, "state", LIKE, True, slot, span=match_span(m, obj.end))]


_WHEN_WORDS = re.compile(r"\s+(?:now|these\s+days|currently|lately|right\s+now|at\s+the\s+moment|nowadays)$",
                         re.IGNORECASE)


_KIND_OF = re.compile(r"^(?:kind|type|sort|genre)\s+of\s+", re.IGNORECASE)


def category(said: str) -> str:
    """ "band these days" -> "band": one favourite per category, whenever it is said."""
    cat = " ".join(_KIND_OF.sub("", _WHEN_WORDS.sub("", said)).lower().split())
    return _SAME_CATEGORY.get(cat, cat)


# a favourite film and a favourite movie are one favourite; so are a favourite band and a favourite singer
# (one answer to "who do you listen to most")
_SAME_CATEGORY = {"movie": "film", "flick": "film", "tv show": "show", "series": "show", "tv series": "show",
                  "programme": "show", "program": "show", "group": "artist", "track": "song", "tune": "song",
                  "dish": "food", "meal": "food", "novel": "book", "read": "book", "video game": "game",
                  "footy team": "team", "club": "team", "football team": "team", "singer": "artist",
                  "musician": "artist", "band": "artist", "rapper": "artist", "songwriter": "artist",
                  "singer-songwriter": "artist", "music artist": "artist", "act": "artist", "album": "album", "drink": "drink",
                  "beverage": "drink", "writer": "author", "novelist": "author", "authors": "author", "writers": "author"}


def likes(m: re.Match[str], s: Sentence) -> list[Draft]:
    return _preference("LIKES", m, s)


def dislikes(m: re.Match[str], s: Sentence) -> list[Draft]:
    return _preference("DISLIKES", m, s)


def favorite(m: re.Match[str], s: Sentence) -> list[Draft]:
    if m["cat"].split()[-1].lower() in ("part", "thing", "moment", "memory", "bit", "one", "time", "way"):
        return []  # "my favorite part was ..." reacts to something, it is no preference
    return _preference("LIKES", m, s, owner=s.speaker if m["my"] else m["owner"])


def favorite_aside(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "my favourite author, Terry Pratchett, ..." -> LIKES Terry Pratchett in the slot FAVORITE:author."""
    thing, raw = (m["thing"] or m["thing2"]).strip(), m["cat"] or m["cat2"]
    if raw.split()[-1].lower() in ("part", "thing", "moment", "memory", "bit", "one", "time", "way", "place"):
        return []
    cat = category(raw)
    return [Draft(s.speaker, "LIKES", thing, f"{s.speaker}'s favorite {cat} is {thing}", "state", LIKE, True,
                  f"FAVORITE:{cat}", span=(m.start(), m.end()))]


def favorite_ended(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "Green used to be my favourite colour" ends LIKES green in the slot FAVORITE:colour;
    "X isn't my favourite Y" only with "anymore"."""
    if m["neg"] and not s.says_anymore(m.start("thing"), m.end()):
        return []
    thing = strip_article(m["thing"])
    if thing.split()[0].lower() in _NOT_A_THING or _REACTION.match(m["thing"]):
        return []
    name = activity_name(thing)
    return [Draft(s.speaker, "LIKES", name, f"{name} is no longer {s.speaker}'s favorite {m['cat']}", "end", LIKE,
                  True, f"FAVORITE:{category(m['cat'])}", span=(m.start("thing"), m.end()))]


_WHEN_FIRST = re.compile(r"^(?:(?:these\s+days|nowadays|now|lately|currently|honestly|actually|okay|ok|well|so|and|but|"
                         r"right\s+now|officially|definitely|seriously|then|anyway),?\s+)+", re.IGNORECASE)


# "my top / number one / go-to <kind>" is a favourite only for a kind of thing one has favourites of
# ("my top pick", "my number one goal", "my go-to when I'm stressed" are not)
_TOP_KINDS = frozenset("""
film films movie movies show shows series band bands song songs album albums artist artists singer singers book books
novel novels author authors writer food foods dish dishes meal snack snacks drink drinks restaurant restaurants team
teams club game games sport sports player players podcast podcasts genre place city cafe bar
""".split())
_TOP = re.compile(r"\b(?:top|number\s+one|go-to)\s+(?:[\w-]+\s+)?$", re.IGNORECASE)


def favorite_first(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "Pizza is my favourite food" -> LIKES pizza in the slot FAVORITE:food."""
    if _TOP.search(s.text, 0, m.start("cat")) and m["cat"].lower() not in _TOP_KINDS:
        return []
    thing = strip_article(_WHEN_FIRST.sub("", m["thing"]))
    if not thing or thing.split()[0].lower() in _NOT_A_THING or _REACTION.match(m["thing"]):
        return []
    if m["cat"].split()[-1].lower() in ("part", "thing", "moment", "memory", "bit", "one", "time", "way"):
        return []
    name, cat = activity_name(thing), category(m["cat"])
    return [Draft(s.speaker, "LIKES", name, f"{s.speaker}'s favorite {cat} is {name}", "state", LIKE, True,
                  f"FAVORITE:{cat}", span=(m.start("thing"), m.end()))]


def favorite_became(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "Piranesi has become my all-time favourite book", "pad see ew has become my absolute
    favourite": the new favourite, in its category's slot when one is said."""
    thing = strip_article(_WHEN_FIRST.sub("", m["thing"]))
    if not thing or thing.split()[0].lower() in _NOT_A_THING or thing.lower() in STOP_WORDS_FAV:
        return []
    name = activity_name(thing)
    cat = category(m["cat"]) if m["cat"] else None  # FAVORITE_NAMED's is always empty
    slot = f"FAVORITE:{cat}" if cat else f"PREF:{name.lower()}"
    return [Draft(s.speaker, "LIKES", name, f"{name} is {s.speaker}'s favorite{' ' + cat if cat else ''}", "state",
                  LIKE, True, slot, span=(m.start("thing"), m.end()))]


STOP_WORDS_FAV = frozenset("everything nothing something anything one".split())


def favorite_dethroned(m: re.Match[str], s: Sentence) -> list[Draft]:
    thing = strip_article(_WHEN_FIRST.sub("", m["thing"]))
    if not thing or thing.split()[0].lower() in _NOT_A_THING:
        return []
    name = activity_name(thing)
    return [Draft(s.speaker, "LIKES", name, f"{name} is no longer {s.speaker}'s favorite", "end", LIKE, True,
                  f"PREF:{name.lower()}", span=(m.start("thing"), m.end()), closes_only=True)]


def like_lost(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "I've gone off pizza": the open LIKES of it ends, if there is one (closes_only)."""
    raw = (m["thing"] or m["thing2"]).split()
    if raw[0].lower() in _NOT_A_THING or raw[0].lower() in ("the", "a", "an", "my", "our", "it", "on", "to", "at", "and"):
        return []  # "gone off the idea", "went off to uni": no liking ends
    thing = " ".join(raw)
    words = raw
    if len(words) > 1 and words[1].lower() in ("since", "after", "because", "for", "when", "now", "anymore", "and", "but",
                                               "ever", "lately", "recently", "completely", "totally"):
        thing = words[0]
    name = activity_name(thing)
    return [Draft(s.speaker, "LIKES", name, f"{s.speaker} no longer likes {name}", "end", LIKE, True,
                  f"PREF:{name.lower()}", span=match_span(m, m.end()), closes_only=True)]


def favorite_replaced(m: re.Match[str], s: Sentence) -> list[Draft]:
    new, old = strip_article(m["thing"]), strip_article(m["old"])
    if not new or not old or new.split()[0].lower() in _NOT_A_THING:
        return []
    cat, span = category(m["cat"]), (m.start("thing"), m.end())
    return [Draft(s.speaker, "LIKES", activity_name(old), f"{old} is no longer {s.speaker}'s favorite {cat}", "end",
                  LIKE, True, f"FAVORITE:{cat}", span=span),
            Draft(s.speaker, "LIKES", activity_name(new), f"{s.speaker}'s favorite {cat} is {new}", "state", LIKE,
                  True, f"FAVORITE:{cat}", span=span)]


_NOT_A_THING = frozenset("it this that he she they there what which who i we you".split())

RULES: tuple[Rule, ...] = (Rule(FAVORITE_ENDED, favorite_ended), Rule(FAVORITE_REPLACED, favorite_replaced, False),
                           Rule(FAVORITE_BECAME, favorite_became, False), Rule(FAVORITE_DETHRONED, favorite_dethroned, False),
                           Rule(FAVORITE_NAMED, favorite_became, False),
                           Rule(LIKE_LOST, like_lost, False),
                           Rule(LIKES, likes), Rule(FAVORITE, favorite), Rule(FAVORITE_FIRST, favorite_first, False),
                           Rule(FAVORITE_ASIDE, favorite_aside, False),
                           Rule(DISLIKES, dislikes))
# "my favourite X is Y" and "Y is my favourite X" hold in a question too: "Sushi is my favourite food, where's good?"
QUESTION_RULES: tuple[Rule, ...] = (Rule(FAVORITE, favorite), Rule(FAVORITE_FIRST, favorite_first, False),
                                    Rule(FAVORITE_ASIDE, favorite_aside, False))
