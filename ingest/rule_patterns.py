"""The vocabulary and compiled patterns of the rule extractor (`ingest.rules`).

Data only, plus the small text helpers the patterns need: every regex is
compiled once at import (compiling is pure, so this creates no shared state),
because the extractor runs on thousands of turns and must stay well above 200
turns/s. Patterns match a subject and a verb phrase up to where the object
starts; objects are cut out afterwards by `take_proper` / `take_phrase`, which
is simpler to get right than one regex per sentence shape.

Subjects: "I"/"we" (the speaker), "my sister [Anna]" (the named relative, else
"<speaker>'s sister"), or a capitalised name ("Caroline lives in Boston").
Pronouns other than I/we are never subjects: their referent is unknown here.
"""

from __future__ import annotations

import re
from typing import NamedTuple

# ------------------------------------------------------------------ vocabulary

STOP_NAMES = frozenset("""
i i'm i've i'll i'd im ive a an the this that these those it its it's he she they we you your yours my
mine our ours their his her me us them him what who why when where how which whose hey hi hello bye
goodbye thanks thank thx wow whoa yes yeah yep yup no nope nah oh ooh ah aw aww haha hah lol omg ok okay
sure well so and but or if then also just really great good nice cool awesome amazing congrats
congratulations sorry please definitely absolutely totally sounds glad love hope happy yesterday today
tomorrow tonight last next since mom dad anyway btw actually maybe let let's lets have had do did don't
can could would should will is are was were not any some all every each both even still now here there
dear mr mrs ms dr tv ugh hmm cheers take talk see keep speaking plus though although because as at in on
for with by from to of after before during once while until about wish right exactly honestly agreed
true indeed welcome gotcha same too tell check look guess been go got get being having can't didn't
isn't wasn't won't thats whats here's there's that's what's seems looks making getting going taking
everyone everybody someone somebody nobody people kids everything nothing something anyone life family
friends friend one two three first such many much more most other another lately recently
feels seems looks sounds smells tastes things stuff guys folks kinds days years times ways parents
hopefully luckily unfortunately sadly fortunately speaking almost especially besides instead otherwise
probably sometimes usually often literally seriously currently finally eventually apparently obviously
clearly basically personally surely certainly kinda sorta mon tue tues wed thu thur thurs fri sat sun woah
woohoo yay hooray gosh geez name
january february march april may june july august september october november december
monday tuesday wednesday thursday friday saturday sunday jan feb mar apr jun jul aug sep sept oct nov dec
""".split())

RELATIONS: dict[str, tuple[str, str, bool]] = {
    # word -> (predicate, canonical noun, single-valued)
    "daughter": ("HAS_DAUGHTER", "daughter", False), "son": ("HAS_SON", "son", False),
    "sister": ("HAS_SISTER", "sister", False), "sis": ("HAS_SISTER", "sister", False),
    "brother": ("HAS_BROTHER", "brother", False),
    "mother": ("HAS_MOTHER", "mother", True), "mom": ("HAS_MOTHER", "mother", True),
    "mum": ("HAS_MOTHER", "mother", True), "mama": ("HAS_MOTHER", "mother", True),
    "father": ("HAS_FATHER", "father", True), "dad": ("HAS_FATHER", "father", True),
    "papa": ("HAS_FATHER", "father", True),
    "child": ("HAS_CHILD", "child", False), "kid": ("HAS_CHILD", "child", False),
    "grandmother": ("HAS_GRANDMOTHER", "grandmother", False), "grandma": ("HAS_GRANDMOTHER", "grandmother", False),
    "grandfather": ("HAS_GRANDFATHER", "grandfather", False), "grandpa": ("HAS_GRANDFATHER", "grandfather", False),
    "husband": ("MARRIED_TO", "husband", True), "wife": ("MARRIED_TO", "wife", True),
    "spouse": ("MARRIED_TO", "spouse", True),
    "boyfriend": ("PARTNER_OF", "boyfriend", True), "girlfriend": ("PARTNER_OF", "girlfriend", True),
    "partner": ("PARTNER_OF", "partner", True), "fiance": ("PARTNER_OF", "fiance", True),
    "fiancé": ("PARTNER_OF", "fiance", True), "fiancee": ("PARTNER_OF", "fiancee", True),
    "fiancée": ("PARTNER_OF", "fiancee", True),
    "friend": ("FRIEND_OF", "friend", False),
}
REL_MODIFIERS = r"(?:little|big|older|younger|baby|eldest|oldest|youngest|twin|best|step|dear|lovely|new)"

PETS: dict[str, str] = {
    "dog": "dog", "puppy": "dog", "pup": "dog", "doggo": "dog", "puppies": "dog",
    "cat": "cat", "kitten": "cat", "kitty": "cat", "bird": "bird", "parrot": "parrot",
    "parakeet": "parakeet", "budgie": "budgie", "hamster": "hamster", "rabbit": "rabbit",
    "bunny": "rabbit", "bunnies": "rabbit", "guinea pig": "guinea pig", "fish": "fish",
    "goldfish": "goldfish", "turtle": "turtle", "tortoise": "tortoise", "snake": "snake",
    "lizard": "lizard", "gecko": "gecko", "horse": "horse", "pony": "pony", "ferret": "ferret",
    "chinchilla": "chinchilla", "hedgehog": "hedgehog",
}
NOT_A_PET_AFTER = frozenset(
    "allergy allergies food toy toys bed sitter walker walking person people lover lovers hair park show "
    "trainer training treats video videos costume tattoo mug shirt shelter breed breeds house tag".split()
)

OCCUPATION_HEADS = frozenset("""
nurse doctor physician teacher engineer developer programmer coder designer artist painter sculptor writer
author novelist poet journalist reporter lawyer attorney accountant chef cook baker barista waiter waitress
bartender pharmacist dentist therapist counselor counsellor psychologist psychiatrist worker scientist
researcher professor lecturer musician singer songwriter drummer guitarist photographer architect
electrician plumber carpenter mechanic firefighter officer soldier pilot attendant driver farmer
veterinarian vet manager consultant analyst entrepreneur freelancer cashier librarian paramedic surgeon
coach trainer dancer choreographer actor actress filmmaker editor translator realtor agent salesperson
intern receptionist secretary nanny tutor pastor priest streamer youtuber player athlete instructor
technician clerk assistant director producer ceo cto cfo founder co-founder cofounder specialist
administrator accountant economist banker broker investor marketer recruiter paralegal midwife
optometrist chemist biologist physicist mathematician statistician student guard goalkeeper pitcher
quarterback
""".split())
NOT_AN_OCCUPATION_START = frozenset(
    "good great bad terrible decent amazing huge big little proud lucky firm strong true total complete "
    "real bit lot fan friend mom dad mother father parent single people person night morning team huge".split()
)

DIETS = ("vegetarian", "vegan", "pescatarian", "pescetarian", "gluten-free", "dairy-free", "keto",
         "paleo", "plant-based", "kosher", "halal", "raw vegan")
DIET_NORMAL = {"pescetarian": "pescatarian"}
FOOD_HINT = re.compile(
    r"\b(?:spic|food|meat|dairy|milk|cheese|gluten|bread|sugar|sweet|egg|nut|fish|seafood|shellfish|pork|beef|"
    r"chicken|vegetable|veggie|fruit|carb|alcohol|wine|beer|booze|coffee|caffeine|chocolate|soy|wheat|sushi|"
    r"pizza|pasta|rice|salad|dessert|candy|curry|chil[ie]|pepper|garlic|onion|tofu|burger|fries|soda|"
    r"junk|snack|bacon|lamb|shrimp|lactose|peanut|wasabi|jalape|hot sauce|salsa|meal)",
    re.IGNORECASE,
)
SPICY_FOOD = frozenset({
    "spice", "spices", "spicy", "spicy food", "spicy foods", "spicy stuff", "spicy things", "spicy dishes",
    "spiciness", "hot food", "hot foods", "spicy meals", "spicy meal", "spicy dish",
})

# ------------------------------------------------------------ regex fragments

_CAP = r"[A-Z][a-z]+(?:-[A-Z][a-z]+)?"
_NOT_STOP = "(?!(?:" + "|".join(
    sorted((w.capitalize() for w in STOP_NAMES if "'" not in w), key=len, reverse=True)) + r")\b)"
NAME = rf"(?-i:{_NOT_STOP}{_CAP}(?:[ ]{_NOT_STOP}{_CAP})?)"
RELS = "(?:" + "|".join(sorted(RELATIONS, key=len, reverse=True)) + ")"
PET_WORDS = "(?:" + "|".join(sorted({w for p in PETS for w in (p, p + "s")}, key=len, reverse=True)) + ")"
DIET_WORDS = "(?:" + "|".join(re.escape(d) for d in sorted(DIETS, key=len, reverse=True)) + ")"

SUBJ = (
    rf"(?P<subj>\bI\b|\bwe\b|\bmy\s+(?:{REL_MODIFIERS}\s+)?(?P<srel>{RELS})\b(?:,?\s+(?P<srelname>{NAME})\b,?)?"
    rf"|\b(?P<sname>{NAME})\b)"
)
ADV = (
    r"(?:\s+(?:actually|now|currently|still|just|recently|finally|also|really|already|officially|even|both|"
    r"all|totally|absolutely|truly|honestly|definitely|mostly|usually|always|generally|basically|only|"
    r"originally|personally|happily|proudly|newly|severely|very|deathly|extremely|mildly|slightly|super|"
    r"so|seriously|kinda|(?:kind|sort)\s+of|pretty\s+much|a\s+bit|a\s+little))*"
)
_AUX = {
    "BE": r"(?:'m|'s|'re|\s+am|\s+is|\s+are)",
    "WAS": r"(?:\s+was|\s+were)",
    "HAVE": r"(?:'ve|'s|\s+have|\s+has)",
    "WILL": r"(?:'ll|\s+will)",
    "DONT": r"(?:\s+don't|\s+do\s+not|\s+doesn't|\s+does\s+not)",
}


def verb_phrase(*forms: str) -> str:
    """Alternatives like "BE living" or "HAVE been living", adverbs allowed between words.

    Example: verb_phrase("live[s]?", "BE living") matches " live", "'m living", " is now living".
    """
    alternatives = []
    for form in forms:
        parts = [ADV + _AUX.get(token, r"\s+" + token) for token in form.split()]
        alternatives.append("".join(parts))
    return "(?:" + "|".join(alternatives) + ")"


class Trigger(NamedTuple):
    """A compiled pattern and words one of which any match contains: checking the
    words is a substring test, far cheaper than running the regex on every sentence."""

    pattern: re.Pattern[str]
    keywords: tuple[str, ...]


def subject_rule(*forms: str, tail: str = r"\s+", keywords: tuple[str, ...] | None = None) -> Trigger:
    """A subject, one of the verb phrases `forms`, then `tail` (up to the object)."""
    pattern = re.compile(SUBJ + verb_phrase(*forms) + tail, re.IGNORECASE)
    return Trigger(pattern, keywords if keywords is not None else _form_keywords(forms))


def rule(pattern: str, keywords: tuple[str, ...] | frozenset[str] | dict[str, object] = ()) -> Trigger:
    return Trigger(re.compile(pattern, re.IGNORECASE), tuple(keywords))


_COMMON = frozenset("been from to in at of on with for a an the do can go doing getting started able".split())
_LITERAL = re.compile(r"([a-z'-]+)(?:\[[a-z]+\]\?|\(\?:[a-z|]+\)\?)?")


def _form_keywords(forms: tuple[str, ...]) -> tuple[str, ...]:
    """The longest literal word of each form ("live[s]?" -> "live"); () when a form
    has none, which means "always run"."""
    found = set()
    for form in forms:
        literals = [m[1] for token in form.split() if token not in _AUX and (m := _LITERAL.fullmatch(token))]
        if not literals:
            return ()
        specific = [word for word in literals if word not in _COMMON] or literals
        found.add(max(specific, key=len))
    return tuple(sorted(found))


# -------------------------------------------------------------- text helpers

SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+|\n+")
ABBREVIATION_END = re.compile(r"\b(?:Mr|Mrs|Ms|Dr|St|Jr|Sr|vs|etc|e\.g|i\.e|Mt|Ft|No)\.$", re.IGNORECASE)
APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "\u201c": '"', "\u201d": '"'})

PHRASE_STOP = re.compile(
    r"[,.;:!?()\[\]\"\u2026]|\s*[-\u2013\u2014]+(?:\s|$)|\s+(?:and|but|because|cause|so|when|whenever|while|since|"
    r"which|that|who|whom|where|what|how|why|in\s+the\s+(?:future|meantime|end)|if|though|although|than|"
    r"until|unless|or|now|anymore|any\s+more|again|too|"
    r"lately|recently|already|these\s+days|nowadays|right\s+now|at\s+the\s+moment|at\s+all|a\s+lot|"
    r"so\s+much|very\s+much|as\s+well|together|anyway|haha|lol|every|each|sometimes|often|usually|always|"
    r"daily|weekly|nowadays|someday|one\s+day|soon)\b",
    re.IGNORECASE,
)
PREP_STOP = re.compile(
    r"\s+(?:with|at|in|on|for|to|from|by|near|during|after|before|as|about|like|over|around|through|of)\b",
    re.IGNORECASE,
)
LIKE_STOP = re.compile(r"\s+(?:for|like|as|because)\b", re.IGNORECASE)
CLAUSE_BREAK = re.compile(
    r"[;:!?,]|\s[-\u2013\u2014]+\s|\s(?:but|because|although|though|while|whereas|so)\s"
    r"|\sand\s(?=(?:I|we|my|he|she|they|it|then)\b)",
    re.IGNORECASE,
)
HYPOTHETICAL = re.compile(
    r"\b(?:if|wish|would|could|might|should|unless|whether|not|never|hope|hoping|want|wanted|wanna|imagine|"
    r"dream|dreaming|maybe|perhaps|pretend|can't|cannot|don't|didn't|doesn't|won't|wouldn't|couldn't|"
    r"whenever|once)\b|'d\b",
    re.IGNORECASE,
)
ANYMORE = re.compile(r"\b(?:anymore|any\s+more|no\s+more)\b", re.IGNORECASE)
FIRST_PERSON = re.compile(r"\b(?:[Mm]y|[Oo]ur)\b|\b(?:me|myself|us|ourselves|[Ww]e|I|i)(?P<tail>'m|'ve|'ll|'d|'re)?\b")
_NON_SPACE = re.compile(r"\S+")
WORD = re.compile(r"[^\W\d_][\w'-]*")
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


def split_sentences(text: str) -> list[str]:
    """Sentences of a chat turn; an abbreviation ("Dr.", "St.") does not end one."""
    pieces: list[str] = []
    for piece in SENTENCE_END.split(text):
        piece = piece.strip()
        if not piece:
            continue
        if pieces and ABBREVIATION_END.search(pieces[-1]):
            pieces[-1] = f"{pieces[-1]} {piece}"
        else:
            pieces.append(piece)
    return pieces


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
    phrase = " ".join(words)
    return Piece(phrase, phrase, pos - 1 + found[-1].end())


_PWORD = r"(?:[A-Z][a-z]+(?:[A-Z][a-z]+)*|[A-Z]{2,}\b)"
_PROPER_RUN = re.compile(rf"(?P<the>the\s+)?(?P<run>{_PWORD}(?:(?:\s+(?:of|de|upon)\s+|[ ]|-){_NOT_STOP}{_PWORD})*)")


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


NAME_AT = re.compile(NAME)


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


def normalise_food(phrase: str) -> str:
    """ "a bit of spice", "spicy foods" -> "spicy food"; otherwise lowercased, articles gone."""
    food = strip_article(phrase.lower()).strip()
    return "spicy food" if food in SPICY_FOOD else food


# ------------------------------------------------------------------ triggers
# Each matches a subject and a verb up to where the object starts.

_IN = r"\s+in\s+"
_NAME_NEXT = rf"\s+(?={NAME})"
_PET_PRE = r"(?P<pre>(?:[a-z-]+\s+){0,3}?)"
_JOB_NOUN = (
    r"\s+(?:a|an|my|the|this|his|her|their)?\s*(?:(?:new|dream|first|full-time|part-time|summer|great|good|better|"
    r"cool|paid|old|former|previous|day|corporate|teaching|office|current)\s+)*(?:job|position|role|internship|gig)\b"
)

LIVES_IN = subject_rule("live[s]?", "BE living", "BE based", "BE residing", "HAVE been living", "HAVE lived",
                        "reside[s]?", "BE settled", tail=_IN)
LIVED_IN = subject_rule("lived", "used to live", tail=_IN)
GREW_UP = subject_rule("grew up", "WAS born and raised", "WAS raised", "WAS born", tail=_IN)
IS_FROM = subject_rule("BE from", "come[s]? from", tail=r"\s+")
MOVED = subject_rule(
    "moved", "HAVE moved", "relocated", "HAVE relocated",
    tail=r"(?:\s+(?:back|over|here|out|away|all\s+the\s+way))?(?:\s+from\s+(?P<src>[^,.;!?]{1,60}?))?\s+(?:to|into)\s+",
)
MOVED_FROM = subject_rule("moved", "HAVE moved", tail=r"(?:\s+(?:here|over|away))?\s+from\s+(?![^,.;!?]{0,60}\sto\s)")
MOVING = subject_rule("BE moving", "WILL move", "BE going to move", "BE gonna move", "BE relocating",
                      tail=r"(?:\s+back)?\s+to\s+", keywords=("mov", "relocat"))
END_LIVES = subject_rule("no longer live[s]?", "BE no longer living", tail=_IN)
END_LIVES_ANYMORE = subject_rule("DONT live", "BE not living", tail=_IN)
MOVED_OUT = subject_rule("moved out of", "HAVE moved out of", "moved away from", "HAVE moved away from")

WORKS_AT = subject_rule("work[s]?", "BE working", "HAVE been working", "HAVE worked", "BE employed", "BE interning",
                        "intern[s]?", tail=r"\s+(?P<prep>at|for)\s+")
JOB = subject_rule("got", "HAVE got", "HAVE gotten", "landed", "HAVE landed", "started", "HAVE started", "found",
                   "accepted", "took", "HAVE taken", "have", "has", "scored", tail=_JOB_NOUN,
                   keywords=("job", "position", "role", "internship", "gig"))
STARTED_WORKING = subject_rule("started working", "began working", "HAVE started working", "started work",
                               "BE starting work", tail=r"\s+(?:at|for)\s+", keywords=("work",))
HIRED = subject_rule("WAS hired", "got hired", "HAVE been hired", tail=r"\s+(?:by|at)\s+")
WORKS_AS = subject_rule("work[s]? as", "BE working as", "HAVE been working as", "HAVE worked as", "became",
                        "HAVE become", "BE employed as", tail=r"\s+(?:a|an)\s+")
I_AM_A = subject_rule("BE", tail=ADV + r"\s+(?:a|an)\s+", keywords=(" a ", " an "))
LEFT_JOB = subject_rule(
    "quit", "HAVE quit", "left", "HAVE left", "lost", "HAVE lost", "resigned from", "HAVE resigned from",
    "retired from", "HAVE retired from", "WAS fired from", "got fired from", "WAS laid off from",
    "got laid off from", "HAVE been laid off from", "WAS let go from", "HAVE been let go from", tail=_JOB_NOUN,
    keywords=("job", "position", "role", "post"),
)
LEFT_ORG = subject_rule(
    "quit", "HAVE quit", "resigned from", "HAVE resigned from", "retired from", "HAVE retired from",
    "WAS fired from", "got fired from", "WAS laid off from", "got laid off from", "HAVE been laid off from",
)
END_WORK = subject_rule("no longer work[s]?", "BE no longer working", tail=r"\s+(?:at|for)\s+")
END_WORK_ANYMORE = subject_rule("DONT work", "BE not working", tail=r"\s+(?:at|for)\s+")

_DEGREE = r"(?:a|an|my)\s+(?:degree|master's|masters|phd|bachelor's|diploma|course)"
STUDY = subject_rule("study", "studies", "BE studying", "HAVE been studying", "BE majoring in", "major[s]? in",
                     rf"BE doing {_DEGREE} in", rf"BE pursuing {_DEGREE} in", rf"BE getting {_DEGREE} in",
                     keywords=("stud", "major", "degree", "master", "phd", "bachelor", "diploma", "course"))
ENROLLED = subject_rule("BE enrolled (?:at|in)", "go(?:es)? to", "attend[s]?", "BE attending",
                        keywords=("enrolled", "attend", "go to", "goes to"))
CLASS = subject_rule(
    "BE taking", "took", "HAVE taken", "signed up for", "HAVE signed up for", "enrolled in", "HAVE enrolled in",
    "BE doing", "started", "HAVE started", "joined", "HAVE joined",
    tail=r"\s+(?P<det>a|an|some|the|my|this)\s+(?P<topic>(?:[\w-]+\s+){1,3}?)"
         r"(?P<noun>class|classes|course|courses|lessons|workshop)\b",
    keywords=("class", "course", "lesson", "workshop"),
)
GRADUATED = subject_rule("graduated from", "HAVE graduated from")

FAMILY_NAMED = rule(
    rf"(?:\b(?P<my>my|our)|\b(?P<owner>{NAME})'s)\s+(?:{REL_MODIFIERS}\s+)?(?P<rel>{RELS})"
    rf"(?:'s\s+name\s+is|\s+is\s+(?:called|named)|\s+(?:called|named)|,)?\s+(?P<name>{NAME})\b",
    RELATIONS,
)
FAMILY_IS = rule(
    rf"\b(?P<name>{NAME})\s+is\s+(?:(?P<my>my|our)|(?P<owner>{NAME})'s)\s+(?:{REL_MODIFIERS}\s+)?(?P<rel>{RELS})\b",
    RELATIONS,
)
FAMILY_HAVE = rule(
    SUBJ + rf"(?:\s+have|\s+has|'ve\s+got|\s+have\s+got|'s\s+got)\s+(?:a|an|one)\s+(?:{REL_MODIFIERS}\s+)?"
    rf"(?P<rel>{RELS})\b(?!-)(?:\s+(?:named|called)\s+(?P<name>{NAME}))?",
    RELATIONS,
)
MARRIED = subject_rule("BE married to", "married", "HAVE married", "got married to", "HAVE been married to",
                       "BE engaged to", "got engaged to", "HAVE got engaged to", "BE dating", "started dating",
                       "HAVE been dating", "BE in a relationship with", tail=_NAME_NEXT,
                       keywords=("married", "engaged", "dating", "relationship"))
BREAKUP = subject_rule("broke up with", "HAVE broken up with", "split up with", "divorced", "HAVE divorced",
                       "got divorced from", "BE divorced from", "separated from", "HAVE separated from",
                       tail=_NAME_NEXT)

PET_HAVE = subject_rule(
    "have", "has", "HAVE got", "got", "HAVE gotten", "adopted", "HAVE adopted", "rescued", "HAVE rescued",
    "own[s]?", "bought", "brought home", "welcomed",
    tail=rf"\s+{_PET_PRE}(?P<species>{PET_WORDS})\b(?![-'])(?:(?:\s+(?:named|called)|,)\s+(?P<pname>{NAME})\b)?",
    keywords=tuple(PETS),
)
_MY_PET = rf"\b(?P<poss>my|our)\s+{_PET_PRE}(?P<species>{PET_WORDS})"
_THE_PET = rf"\s+(?:my|our|the|his|her|their)\s+{_PET_PRE}(?P<species>{PET_WORDS})"
_PET_NAME = rf"(?P<pname>{NAME})\b"
PET_MY = rule(
    rf"{_MY_PET}\b(?:'s\s+name\s+is|\s+is\s+(?:called|named)|\s+(?:called|named)|,)?\s+{_PET_NAME}", PETS)
PET_IS = rule(rf"\b(?P<pname>{NAME})\s+is{_THE_PET.replace('the|his|her|their', 'the')}\b", PETS)
PET_RENAMES = (
    subject_rule("renamed", "HAVE renamed", "re-named", "decided to rename", "HAVE decided to rename",
                 tail=rf"{_THE_PET}\s+(?:to\s+)?{_PET_NAME}"),
    subject_rule("changed", "HAVE changed", tail=rf"{_THE_PET}'s\s+name\s+to\s+{_PET_NAME}"),
    subject_rule("call", "now call", tail=rf"{_THE_PET}\s+{_PET_NAME}\s+now\b"),
    subject_rule("now call", tail=rf"{_THE_PET}\s+{_PET_NAME}"),
    rule(rf"{_MY_PET}(?:\s+is|'s)\s+now\s+(?:called|named)\s+{_PET_NAME}", PETS),
    rule(rf"{_MY_PET}'s\s+(?:new\s+)?name\s+is\s+now\s+{_PET_NAME}", PETS),
    rule(rf"{_MY_PET}'s\s+new\s+name\s+is\s+{_PET_NAME}", PETS),
    rule(rf"{_MY_PET}(?:\s+is|'s)\s+(?:called|named)\s+{_PET_NAME}\s+now\b", PETS),
)

OWNS = subject_rule("own[s]?", "bought", "HAVE bought", "purchased", "HAVE purchased")
OWNS_NEW = subject_rule("got", "HAVE got", "HAVE gotten", "have", "has",
                        tail=r"\s+(?:myself\s+)?(?:a|an)\s+(?=(?:brand[\s-])?new\b)", keywords=("new",))
LIKES = subject_rule("love[s]?", "like[s]?", "enjoy[s]?", "adore[s]?", "BE into", "BE obsessed with",
                     "BE passionate about", r"BE crazy about",
                     r"BE (?:a|an) (?:big\s+|huge\s+|massive\s+|great\s+)?fan of",
                     "HAVE loved", "HAVE liked", "HAVE enjoyed", "HAVE been into",
                     keywords=("love", "like", "enjoy", "adore", "into", "obsessed", "passionate", "crazy", "fan of"))
FAVORITE = rule(
    rf"(?:\b(?P<my>my|our)|\b(?P<owner>{NAME})'s)\s+(?:all-time\s+|absolute\s+|new\s+)?favou?rite\s+"
    r"(?P<cat>[\w-]+(?:\s+[\w-]+){0,2}?)\s+(?:is|are|has\s+to\s+be)\s+",
    ("favorite", "favourite"),
)
DISLIKES = subject_rule("hate[s]?", "dislike[s]?", "detest[s]?", "can't stand", "cannot stand", "DONT like",
                        "DONT enjoy", r"BE not (?:a|an) (?:big\s+|huge\s+)?fan of", "BE not into", "DONT care for",
                        keywords=("hate", "dislike", "detest", "stand", "like", "enjoy", "fan of", "into", "care for"))

DIET = subject_rule("BE", "HAVE been", "became", "HAVE become", "went", "HAVE gone", "turned", "HAVE turned",
                    "BE going",
                    tail=ADV + rf"\s+(?:(?:a|an|fully|strictly|mostly|completely)\s+)*(?P<diet>{DIET_WORDS})(?![\w-])",
                    keywords=DIETS)
DIET_ON = subject_rule("BE on", "follow[s]?", "eat", "HAVE been on", "started", "HAVE started",
                       tail=rf"\s+(?:a|an)\s+(?:strict\s+)?(?P<diet>{DIET_WORDS}|low-carb|mediterranean)\s+diet\b",
                       keywords=("diet",))
END_DIET = subject_rule("BE no longer", "stopped being", "quit being", "HAVE stopped being", "gave up being", "BE not",
                        tail=rf"\s+(?:(?:a|an)\s+)?(?P<diet>{DIET_WORDS})(?![\w-])", keywords=DIETS)
ALLERGY = subject_rule("BE allergic to", "BE intolerant (?:to|of)", "HAVE (?:an|a) allergy to", "HAVE allergies to",
                       "HAVE got (?:an|a) allergy to")
ALLERGY_NOUN = subject_rule(
    "have", "has", "HAVE got",
    tail=r"\s+(?:a|an)\s+(?:(?:severe|serious|mild|bad|slight|deadly|life-threatening|terrible)\s+)?"
         r"(?P<item>[\w-]+(?:\s+[\w-]+)?)\s+allerg(?:y|ies)\b",
    keywords=("allerg",),
)
LACTOSE = subject_rule("BE", tail=ADV + r"\s+lactose[\s-]intolerant\b", keywords=("lactose",))
AVOIDS = subject_rule(
    "DONT eat", "DONT drink", "can't eat", "cannot eat", "can't have", "cannot have", "can't handle",
    "cannot handle", "can't tolerate", "never eat", "no longer eat", "avoid eating", "avoid[s]?",
    "stay[s]? away from", "stopped eating", "HAVE stopped eating", "gave up", "HAVE given up", "cut out",
    "HAVE cut out", "quit eating", "quit", "HAVE quit", "BE avoiding", "try to avoid", "DONT do",
    keywords=("eat", "drink", "handle", "tolerate", "avoid", "away from", "gave up", "given up", "cut out", "quit",
              "have", "do"),
)
EATS = subject_rule("eat[s]?", "BE eating", "started eating", "HAVE started eating", "can eat", "can handle",
                    "can tolerate", "BE able to handle", "BE able to eat", "BE okay with", "BE ok with", "BE fine with",
                    keywords=("eat", "handle", "tolerate", "ok with", "okay with", "fine with"))

PLAN = subject_rule(
    "BE planning (?:to|on)", "plan[s]? (?:to|on)", "intend[s]? to", "BE intending to", "BE hoping to", "hope[s]? to",
    "BE thinking (?:about|of)", "BE considering", "BE looking to", "HAVE decided to", "decided to", "BE aiming to",
    "aim[s]? to", "BE planning",
)
PLAN_FUTURE = subject_rule("BE going to", "BE gonna", "WILL", keywords=("going to", "gonna", "will", "'ll"))
ATTENDED = subject_rule(
    "went on a trip to", "took a trip to", "went to", "HAVE been to", "attended", "HAVE attended", "participated in",
    "HAVE participated in", "took part in", "HAVE taken part in", "competed in", "HAVE competed in", "performed at",
    "volunteered at", "HAVE volunteered at", "went on", "WAS at", "visited", "HAVE visited", "traveled to",
    "travelled to", "HAVE traveled to", "HAVE travelled to", "went back to", "spoke at",
    keywords=("went", "been", "attend", "particip", "part in", "compet", "perform", "volunteer", "was", "were",
              "visit", "travel", "trip", "spoke at"),
)
WENT_ACTIVITY = subject_rule("went", "HAVE gone", tail=r"\s+(?P<act>[a-z]+ing)\b")
STARTED_DOING = subject_rule("started", "began", "HAVE started", "HAVE begun", tail=r"\s+(?=[a-z]+ing\b)")
PET_PRONOUN_NAME = rule(
    rf"\b(?:(?:his|her|its|their)\s+name(?:'s|\s+is)|I\s+named\s+(?:him|her|it|them)|we\s+named\s+(?:him|her|it|them)|"
    rf"(?:he|she|it)(?:'s|\s+is)\s+(?:called|named))\s+(?P<pname>{NAME})\b",
    ("name", "called"),
)


# ------------------------------------------------------------------ entities


def proper_nouns(texts: list[str], known: set[str]) -> list[str]:
    """Capitalised word runs that are not sentence starters, pronouns, months or weekdays.

    A single capitalised word opening a sentence counts only when it is known
    to be a name (`known`, or capitalised mid-sentence elsewhere in `texts`):
    "Painting helps me" names nothing, "Caroline lives here" does if Caroline is known.
    """
    runs = [run for text in texts for run in _capital_runs(text)]
    mid_sentence = {name for name, opens in runs if not opens}
    return [name for name, opens in runs if not opens or " " in name or name in known or name in mid_sentence]


def _capital_runs(text: str) -> list[tuple[str, bool]]:
    """(run, opens the sentence) for each run like "New York", "Bank of America"."""
    tokens = list(WORD.finditer(text))
    runs: list[tuple[str, bool]] = []
    current: list[str] = []
    opens, prev_end = False, 0
    for i, m in enumerate(tokens):
        word = _bare(m[0])
        adjacent = bool(current) and text[prev_end:m.start()].isspace()
        if _is_capital(word) and adjacent:
            current.append(word)
        elif adjacent and word in ("of", "de", "the") and _joins(text, tokens, i):
            current.append(word)
        else:
            if current:
                runs.append((" ".join(current), opens))
            current = [word] if _is_capital(word) else []
            opens = i == 0
        prev_end = m.end()
    if current:
        runs.append((" ".join(current), opens))
    return runs


def _joins(text: str, tokens: list[re.Match[str]], i: int) -> bool:
    """ "of" / "of the" / "de" inside a name: "Bank of America", "Lord of the Rings"."""
    j = i + 1
    if tokens[i][0] == "of" and j < len(tokens) and tokens[j][0] == "the":
        j += 1
    if tokens[i][0] == "the" and (i == 0 or tokens[i - 1][0] != "of"):
        return False
    return j < len(tokens) and _is_capital(_bare(tokens[j][0])) and all(
        text[tokens[k].end():tokens[k + 1].start()].isspace() for k in range(i, j))


def _bare(word: str) -> str:
    return word.removesuffix("'s").rstrip("'-")


def _is_capital(word: str) -> bool:
    return len(word) > 1 and word[0].isupper() and word.lower() not in STOP_NAMES
