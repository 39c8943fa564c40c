"""Sentences and objects: where a sentence ends and where an object stops.

A pattern (`rules.grammar`) stops where the object starts; `take_phrase` and
`take_proper` cut the object out (up to punctuation, a conjunction, a
preposition or a time expression) and say None when what follows is a clause
rather than an object, so an unsure object is never stored.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from graphmem.ingest.rules.grammar import NOT_STOP, STOP_NAMES

SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+|\n+")
# a title before a name never ends a sentence ("Dr. Reyes", "St. Mary's"); initials and
# company suffixes ("U.S.", "Co.") end one only when a capital follows (the suffixes' dot was
# missing from SOFT_END until 2026-12-05, so "at Acme Co. now" was cut after "Co.")
TITLE_END = re.compile(r"(?:^|(?<=[\s(\"']))(?:Mr|Mrs|Ms|Mx|Dr|St|Mt|Ft|Prof|Rev|Sgt|Capt|Lt|Gen|Gov|Sen|Rep|No|vs|"
                       r"e\.g|i\.e|approx|incl)\.$", re.IGNORECASE)
# a middle initial ("Ursula K. Le Guin", "George R. R. Martin") ends no sentence before a name
MIDDLE_INITIAL = re.compile(r"\b[A-Z][a-z]+(?:\s[A-Z]\.)+$")
SOFT_END = re.compile(r"(?:\b(?:[A-Za-z]\.){2,}|\b(?:Co|Inc|Ltd|Corp|Jr|Sr|etc|Bros|Ave|Rd|Blvd|Dept|Univ)\.?)$")
STARTS_LOWER = re.compile(r"[a-z0-9]")
# "the U.S. Postal Service", "the U.K. office": after "the", initials modify the name that follows
_MODIFIER_INITIALS = re.compile(r"\bthe\s+(?:[A-Z]\.){2,}$")
APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "\u201c": '"', "\u201d": '"'})
# chat drops the apostrophe of "I'm" and "I've": "im a sophomore at Ohio State", "ive been there"; neither spelling
# is another English word, unlike "ill", "id", "hell" or "well", which stay as typed
_BARE_CONTRACTION = re.compile(r"\b([Ii])(m|ve)\b")


def normalise(text: str) -> str:
    """Turn text as the rules read it: curly quotes made straight and the apostrophe chat drops from "im"/"ive" put
    back, so every subject pattern that knows "I'm" reads "im" too."""
    return _BARE_CONTRACTION.sub(lambda m: f"I'{m[2]}", text.translate(APOSTROPHES))

PHRASE_STOP = re.compile(
    r"[,;:!?()\[\]\"\u2026]|(?<![\s(][A-Z])\.|\.(?![ ][A-Z])|\s*[-\u2013\u2014]+(?:\s|$)|\s+(?:and|but|because|cause|so|when|whenever|while|since|"
    r"which|that|who|whom|where|what|how|why|in\s+the\s+(?:future|meantime|end)|if|though|although|than|"
    r"until|unless|or|now|anymore|any\s+more|again|too|"
    r"lately|recently|already|these\s+days|nowadays|right\s+now|at\s+the\s+moment|at\s+all|a\s+lot|"
    r"so\s+much|very\s+much|as\s+well|together|anyway|haha|lol|every|each|sometimes|often|usually|always|"
    r"daily|weekly|nowadays|someday|one\s+day|soon|instead|back\s+(?=(?:in|on|around|during|when)\b)|"
    # when and how often, which no object includes: "baking bread on Sundays", "Iceland next summer"
    r"(?:next|last|this|every|each)\s+(?:week|weekend|month|year|summer|winter|spring|fall|autumn|morning|"
    r"evening|night|time|day|monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?|"
    r"on\s+(?:the\s+)?(?:weekends?|weekdays?|mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays)|"
    r"(?:at|during\s+the)\s+(?:night|weekends?)|in\s+the\s+(?:mornings?|evenings?|afternoons?)|"
    r"(?:for|over)\s+(?:a\s+few|several|many|two|three|four|five|six|seven|eight|nine|ten|\d+)\s+"
    r"(?:days|weeks|months|years|decades))\b",
    re.IGNORECASE,
)
PREP_STOP = re.compile(
    r"\s+(?:with|at|in|on|for|to|from|by|near|during|after|before|as|about|like|over|around|through|of)\b",
    re.IGNORECASE,
)
# "camping trips with my fam": the company is not part of the thing liked
LIKE_STOP = re.compile(r"\s+(?:for|like|as|because|with)\b", re.IGNORECASE)
FIRST_PERSON = re.compile(r"\b(?:[Mm]y|[Oo]ur)\b|\b(?:me|myself|us|ourselves|[Ww]e|I|i)(?P<tail>'m|'ve|'ll|'d|'re)?\b")
_NON_SPACE = re.compile(r"\S+")
LEADING_ARTICLE = re.compile(
    r"^(?:(?:a|an|the|some|any|this|that|these|those|another|new|brand[\s-]new|a\s+bit\s+of|a\s+little(?:\s+bit\s+of)?|"
    r"a\s+lot\s+of|lots\s+of|much|too\s+much|really)\s+)+",
    re.IGNORECASE,
)

REJECT_OBJECT_START = frozenset(
    "not is are was were be been it that this those these them him her you your yours his their theirs how what when "
    "where why who which whatever there here myself yourself itself something anything everything nothing one ones "
    "all both each being having seeing hearing knowing getting such so as to".split()
)
VAGUE = frozenset("it them this these those him he she they there here one ones".split())
DANGLING = frozenset("for to at in on with of the a an my our your by from about into some".split())
REJECT_PLACE = frozenset("home here there town the city a an my our your his her their this that it".split())
# an English noun phrase ends in its noun: one ending in one of these was cut short
# ("creating a safe, inviting place" -> "creating a safe") or names no thing ("a few")
UNSURE_END = frozenset("""
safe good great nice new old big small little beautiful amazing awesome happy sad huge tiny wonderful lovely
cool different special important hard easy positive supportive welcoming inclusive inviting strong creative
healthy real whole entire perfect best better own same other such local free simple full true few couple
several many more most less least lot bit much some any all every each both various certain
""".split())
# a noun phrase never starts with a preposition ("on 3/1"), is no light verb on its own ("going",
# "playing"), and ends before a frequency ("Singapore 3 times", "the store once"): such objects were cut wrong
OBJECT_PREPOSITIONS = frozenset("on in at to for with from by of into onto about during after before".split())
LIGHT_GERUNDS = frozenset("going playing doing getting making having taking trying being coming putting".split())
FREQUENCY_END = frozenset("once twice".split())
COUNT_WORDS = frozenset("two three four five six seven eight nine ten many several few couple".split()) | {
    str(n) for n in range(2, 100)}
QUANTITY_ONLY = frozenset("a an the few couple several many more most lot lots bit some any all of".split())


def split_sentences(text: str) -> list[str]:
    """Sentences of a chat turn; a title ("Dr.", "St.") does not end one, and
    initials or a company suffix ("U.S.", "Co.") only before a capital."""
    pieces: list[str] = []
    for piece in SENTENCE_END.split(text):
        piece = piece.strip()
        if not piece:
            continue
        if pieces and _continues(pieces[-1], piece):
            pieces[-1] = f"{pieces[-1]} {piece}"
        else:
            pieces.append(piece)
    return pieces


def _continues(prev: str, piece: str) -> bool:
    """Whether the split after `prev` fell inside a sentence (pure). Every ending looked for sits
    at the end of `prev`, so the bounded ones are searched for in its last characters only (a
    search from `pos` still sees the characters before it for `\\b` and lookbehinds), and the
    initials ones run only when `prev` ends in a capital and a dot: searching whole long turns
    was a sixth of the rules' time, with the same sentences."""
    end = len(prev)
    if TITLE_END.search(prev, max(0, end - 8)):  # "approx." is the longest title: 7 characters
        return True
    if SOFT_END.search(prev, max(0, end - 6)) and STARTS_LOWER.match(piece):  # "X.Y." or "Corp"; a longer chain ends in one
        return True
    if end < 2 or prev[-1] != "." or not "A" <= prev[-2] <= "Z":
        return False
    first = piece.split()[0].lower()
    return bool((MIDDLE_INITIAL.search(prev) and piece[:1].isupper() and first not in STOP_NAMES)
                or (_MODIFIER_INITIALS.search(prev) and first not in STOP_NAMES))


MAX_OBJECT_CHARS = 200  # objects are a few words; never scan the rest of a 20k-character "sentence"


class Piece(NamedTuple):
    """An object cut out of a sentence: the entity it names, the words as said, where it ends."""

    name: str
    said: str
    end: int


def take_phrase(
    text: str, pos: int, limit: int, max_words: int, extra_stop: re.Pattern[str] | None = None
) -> Piece | None:
    """The words from `pos` up to the first stop (punctuation, conjunction, time
    expression at `limit`); None when empty or longer than `max_words`, which
    means the pattern hit a clause rather than an object."""
    segment = " " + text[pos:min(limit, pos + MAX_OBJECT_CHARS)]  # the space lets a stop word at `pos` match
    cut = len(segment)
    for stop in (PHRASE_STOP, extra_stop):
        if stop is not None:
            m = stop.search(segment, 0, cut)
            if m:
                cut = m.start()
    found = list(_NON_SPACE.finditer(segment, 0, cut))
    while found and found[-1][0].lower() in DANGLING:
        found.pop()
    words = [m[0].rstrip("-\u2013\u2014") for m in found]
    if not words or not words[-1]:
        return None
    if not words or len(words) > max_words or not words[0][0].isalnum():
        return None
    if words[0].lower() in REJECT_OBJECT_START or any(w.lower() in VAGUE for w in words):
        return None
    if unsure_object(words):
        return None
    phrase = " ".join(words)
    return Piece(phrase, phrase, pos - 1 + found[-1].end())


def unsure_object(words: list[str]) -> bool:
    """True for an object the rules cannot be sure of: one that ends in an adjective
    or a quantity word, or holds nothing but quantity words."""
    low = [w.lower().strip(".,!?'\"") for w in words]
    return (low[-1] in UNSURE_END or all(w in QUANTITY_ONLY for w in low) or low[0] in OBJECT_PREPOSITIONS
            or (len(low) == 1 and low[0] in LIGHT_GERUNDS) or low[-1] in FREQUENCY_END
            or (len(low) > 1 and low[-1] == "times" and low[-2] in COUNT_WORDS))


# letters beyond ASCII ("Kraków", "Zürich", "Łódź"): Latin-1 and Latin Extended-A; before, a name was cut at its first
# accent ("Krak")
_UPPER = "A-ZÀ-ÖØ-Þ\u0100-\u017f"
_LOWER = "a-zß-öø-ÿ\u0100-\u017f"
_PWORD = rf"(?:[{_UPPER}][{_LOWER}]+(?:[{_UPPER}][{_LOWER}]+)*|(?:[A-Z]\.){{2,}}(?![A-Za-z])|[A-Z]{{2,}}\b)"  # "U.S. Postal Service"
_TITLE = r"(?:St|Mt|Ft|Dr)\.?[ ]"  # "St. Mary's Hospital", "Mt. Sinai"
_RUN_TAIL = rf"(?:(?:'s(?=[ ]+[A-Z]))?(?:\s+(?:of|de|upon|&)\s+|[ ]|-){NOT_STOP}{_PWORD})*"
# a possessive inside a name ("Queen's University") or ending one after a title ("St. Jude's")
# and a name that is a possessive ("King's", "McDonald's") when nothing it could own follows
_NAME_POSSESSIVE = (r"(?:'s(?=\s*[,.;:!?)]|\s*$|\s+(?:in|on|at|last|this|and|but|for|since|after|before|back|when|so|"
                    r"because|until|now|two|three|four|five|a\s+(?:year|month|week)|years|months|weeks|ago)\b))?")
# "U of T", "U of Manitoba": a university by its initial
_U_OF = rf"U[ ]of[ ][A-Z](?:[a-z]+|[A-Z]*)\b(?:[ ]{NOT_STOP}{_PWORD})*"
_PROPER_RUN = re.compile(rf"(?P<the>the\s+)?(?P<run>{_U_OF}|{_TITLE}{_PWORD}{_RUN_TAIL}(?:'s\b)?|{_PWORD}{_RUN_TAIL}{_NAME_POSSESSIVE})")


def take_proper(text: str, pos: int, limit: int, allow_lower: bool = True) -> Piece | None:
    """A place or organisation name at `pos`.

    Capitalised runs ("New York City", "the Netherlands", "Bank of America")
    are taken whole; a lowercase name ("boston") only if it does not start
    with a determiner, since "a small town" names no particular place.
    """
    m = _PROPER_RUN.match(text, pos, limit)
    if m and m["run"].split()[0].lower() not in STOP_NAMES:
        return Piece(m["run"], m[0], m.end())
    if not allow_lower:
        return None
    piece = take_phrase(text, pos, limit, 3, PREP_STOP)
    if piece is None or piece.name.split()[0].lower() in REJECT_PLACE or not piece.name[0].isalpha():
        return None
    return piece


def strip_article(phrase: str) -> str:
    """ "a new car" -> "car": the entity an object phrase names."""
    return LEADING_ARTICLE.sub("", phrase).strip() or phrase


_CONTRACTED = {"'m": "is", "'ve": "has", "'ll": "will", "'d": "would", "'re": "is"}


def own(phrase: str, speaker: str) -> str:
    """First-person words of the speaker's phrase, made self-contained: "my kids" -> "Mel's kids"."""
    def swap(m: re.Match[str]) -> str:
        word = m[0].lower()
        if word in ("my", "our"):
            return f"{speaker}'s"
        return speaker + (" " + _CONTRACTED[m["tail"].lower()] if m["tail"] else "")
    return FIRST_PERSON.sub(swap, phrase)


def to_gerund(verb: str) -> str:
    """ "paint" -> "painting", "hike" -> "hiking", "swim" -> "swimming"."""
    v = verb.lower()
    if v.endswith("ing") or len(v) <= 2:
        return v + ("" if v.endswith("ing") else "ing")
    if v.endswith("ie"):
        return v[:-2] + "ying"
    if v.endswith("e") and not v.endswith(("ee", "ye", "oe")):
        return v[:-1] + "ing"
    vowel_groups = re.findall(r"[aeiou]+", v)
    if len(vowel_groups) == 1 and re.search(r"[^aeiou][aeiou][^aeiouwxy]$", v):
        return v + v[-1] + "ing"
    return v + "ing"

