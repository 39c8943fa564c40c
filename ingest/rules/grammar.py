"""The grammar every topic's patterns are built from: subjects, names, verb phrases.

Patterns match a subject and a verb phrase up to where the object starts;
objects are cut out afterwards (`rules.text`), which is simpler to get right
than one regex per sentence shape. Every regex is compiled once, because the
extractor runs on thousands of turns and must stay well above 200 turns/s: the
small shared ones at import, each rule's own on its first use (`Trigger`).

Subjects: "I"/"we" (the speaker), "my sister [Anna]" (the named relative, else
"<speaker>'s sister"), or a capitalised name ("Caroline lives in Boston").
Pronouns other than I/we are never subjects: their referent is unknown here.
The relatives a subject can name (`RELATIONS`) live here for that reason; the
family topic (`rules.family`) reads the same table.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator

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
    "spouse": ("MARRIED_TO", "spouse", True), "hubby": ("MARRIED_TO", "husband", True), "wifey": ("MARRIED_TO", "wife", True),
    "boyfriend": ("PARTNER_OF", "boyfriend", True), "girlfriend": ("PARTNER_OF", "girlfriend", True),
    "partner": ("PARTNER_OF", "partner", True), "fiance": ("PARTNER_OF", "fiance", True),
    "fiancé": ("PARTNER_OF", "fiance", True), "fiancee": ("PARTNER_OF", "fiancee", True),
    "fiancée": ("PARTNER_OF", "fiancee", True),
    "friend": ("FRIEND_OF", "friend", False),
}
REL_MODIFIERS = r"(?:little|big|older|younger|baby|eldest|oldest|youngest|twin|best|step|dear|lovely|new)"

# ------------------------------------------------------------ regex fragments

_CAP = r"[A-Z][a-z]+(?:-[A-Z][a-z]+)?"
NOT_STOP = "(?!(?:" + "|".join(
    sorted((w.capitalize() for w in STOP_NAMES if "'" not in w), key=len, reverse=True)) + r")\b)"
NAME = rf"(?-i:(?=[A-Z]){NOT_STOP}{_CAP}(?:[ ](?=[A-Z]){NOT_STOP}{_CAP})?)"
RELS = "(?:" + "|".join(sorted(RELATIONS, key=len, reverse=True)) + ")"

SUBJ = (
    rf"(?P<subj>\bI\b|\bwe\b|\bmy\s+(?:{REL_MODIFIERS}\s+)?(?P<srel>{RELS})\b(?:,?\s+(?P<srelname>{NAME})\b,?)?"
    rf"|\b(?P<sname>{NAME})\b)"
)
ADV = (
    r"(?:\s+(?:actually|now|currently|still|just|recently|finally|also|really|already|officially|even|both|"
    r"all|totally|absolutely|truly|honestly|definitely|mostly|usually|always|generally|basically|only|"
    r"originally|personally|happily|proudly|newly|severely|very|deathly|extremely|mildly|slightly|super|"
    r"so|seriously|kinda|since|(?:kind|sort)\s+of|pretty\s+much|a\s+bit|a\s+little))*"
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


_COMPILING = threading.Lock()
MADE: list["Trigger"] = []  # every rule's trigger, in the order the topic modules made them


class Trigger:
    """A rule's pattern and words one of which any match contains: checking the words is a
    substring test, far cheaper than running the regex on every sentence.

    The pattern compiles on first use, not at import. Why: the 218 rules' patterns took 1.9 s
    to compile (the 86 subject rules ~15,000 characters each), which every process that
    writes paid before its first turn, while a short write runs only the few rules its
    keywords let through. Handlers compare ``m.re is RULE.pattern``, so a pattern, once
    compiled, is the same object for every thread. Iterates as ``(pattern, keywords)``.
    """

    __slots__ = ("_source", "_compiled", "keywords")

    def __init__(self, pattern: str | re.Pattern[str] | None, keywords: tuple[str, ...]) -> None:
        """`pattern`: source text (compiled case-insensitively on first use) or a compiled pattern."""
        self._source = pattern if isinstance(pattern, str) else None
        self._compiled = None if isinstance(pattern, str) else pattern
        self.keywords = keywords
        if self._source is not None:
            MADE.append(self)

    @property
    def pattern(self) -> re.Pattern[str]:
        compiled = self._compiled
        if compiled is None and self._source is not None:
            fresh = re.compile(self._source, re.IGNORECASE)
            with _COMPILING:  # one winner, so `m.re is RULE.pattern` holds across threads
                if self._compiled is None:
                    self._compiled = fresh
                compiled = self._compiled
        return compiled

    def __iter__(self) -> Iterator:
        yield self.pattern
        yield self.keywords

    def __repr__(self) -> str:
        source = self._source if self._source is not None else getattr(self._compiled, "pattern", None)
        return f"Trigger({(source or '')[:40]!r}..., {self.keywords!r})"


def subject_rule(*forms: str, tail: str = r"\s+", keywords: tuple[str, ...] | None = None) -> Trigger:
    """A subject, one of the verb phrases `forms`, then `tail` (up to the object)."""
    return Trigger(SUBJ + verb_phrase(*forms) + tail, keywords if keywords is not None else _form_keywords(forms))


def rule(pattern: str, keywords: tuple[str, ...] | frozenset[str] | dict[str, object] = ()) -> Trigger:
    return Trigger(pattern, tuple(keywords))


def alt(phrases: str) -> str:
    """A word list written as readable phrases, one regex alternation: "a b|c d" -> (?:a\\s+b|c\\s+d),
    longest first so a phrase is never cut short by a shorter one it starts with."""
    items = [p.strip() for p in phrases.split("|") if p.strip()]
    return "(?:" + "|".join(sorted((re.sub(r"\s+", r"\\s+", p) for p in items), key=len, reverse=True)) + ")"


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


# ------------------------------------------------------------ clauses and hedges

CLAUSE_BREAK = re.compile(
    r"[;:!?,]|\s[-\u2013\u2014]+\s|\s(?:but|because|although|though|while|whereas|so)\s"
    r"|\sand\s(?=(?:now\s+)?(?:I|we|my|he|she|they|it|then)\b)",
    re.IGNORECASE,
)
HYPOTHETICAL = re.compile(
    r"\b(?:if|wish|would|could|might|should|unless|whether|not|never|hope|hoping|want|wanted|wanna|imagine|"
    r"dream|dreaming|maybe|perhaps|pretend|can't|cannot|don't|didn't|doesn't|won't|wouldn't|couldn't|"
    r"whenever|once)\b|'d\b(?!\s+(?:been|had|lived|moved|worked|gone|got|left|already|just|never)\b)",  # "we'd been": had
    re.IGNORECASE,
)
ANYMORE = re.compile(r"\b(?:anymore|any\s+more|no\s+more)\b", re.IGNORECASE)
NAME_AT = re.compile(NAME)

# ------------------------------------------------------------ homes

# what people live in, by the names British and American English give it ("a wee terrace in Cardiff",
# "a brownstone in Brooklyn", "a two-bed in Leeds"): every topic that reads a home uses this one list
DWELLINGS = alt("""
flat|apartment|studio|room|place|house|home|condo|cottage|bedsit|loft|basement|townhouse|bungalow|duplex|terrace|
terraced house|end terrace|end-of-terrace|semi|semi-detached|detached house|maisonette|cabin|farmhouse|rowhouse|
row house|brownstone|chalet|houseboat|narrowboat|one-bed|two-bed|three-bed|new-build|new build|walk-up|triplex|
granny flat|tenement
""")


# countries, states, provinces and large regions: places whatever the sentence says, unlike towns. "We traded Texas for
# Denver" is a move because Texas can only be a place; "traded Deloitte for KPMG" says nothing of where anyone lives
_REGION_NAMES = """
Alabama|Alaska|Arizona|Arkansas|California|Colorado|Connecticut|Delaware|Florida|Georgia|Hawaii|Idaho|Illinois|Indiana|
Iowa|Kansas|Kentucky|Louisiana|Maine|Maryland|Massachusetts|Michigan|Minnesota|Mississippi|Missouri|Montana|Nebraska|
Nevada|New Hampshire|New Jersey|New Mexico|New York State|North Carolina|North Dakota|Ohio|Oklahoma|Oregon|
Pennsylvania|Rhode Island|South Carolina|South Dakota|Tennessee|Texas|Utah|Vermont|Virginia|Washington State|
West Virginia|Wisconsin|Wyoming|
Alberta|British Columbia|Manitoba|New Brunswick|Newfoundland|Nova Scotia|Ontario|Quebec|Saskatchewan|Yukon|
England|Scotland|Wales|Northern Ireland|Cornwall|Yorkshire|Devon|Kent|Essex|Surrey|the Highlands|the Midlands|
the Midwest|the Bay Area|the South|the North|the Pacific Northwest|New England|the East Coast|the West Coast|
the Lake District|the Cotswolds|Bavaria|Tuscany|Provence|Brittany|Catalonia|Andalusia|Queensland|Victoria|
New South Wales|Tasmania|
Argentina|Australia|Austria|Belgium|Brazil|Bulgaria|Canada|Chile|China|Colombia|Croatia|Cyprus|Czechia|
the Czech Republic|Denmark|Ecuador|Egypt|Estonia|Ethiopia|Finland|France|Germany|Ghana|Greece|Hungary|Iceland|India|
Indonesia|Ireland|Israel|Italy|Jamaica|Japan|Kenya|Latvia|Lebanon|Lithuania|Luxembourg|Malaysia|Malta|Mexico|Morocco|
the Netherlands|Holland|New Zealand|Nigeria|Norway|Pakistan|Peru|the Philippines|Poland|Portugal|Romania|Russia|
Scotland|Serbia|Singapore|Slovakia|Slovenia|South Africa|South Korea|Korea|Spain|Sri Lanka|Sweden|Switzerland|Taiwan|
Tanzania|Thailand|Turkey|Uganda|Ukraine|the UK|the US|the USA|the States|the United States|the United Kingdom|Britain|
Uruguay|Vietnam|Zimbabwe|Dubai|the UAE
"""
REGIONS = frozenset(" ".join(n.split()).casefold() for n in _REGION_NAMES.replace("\n", "").split("|") if n.strip())


def is_region(name: str) -> bool:
    """Whether `name` ("Texas", "the Midwest", "Midwest") is a country, state or large region."""
    low = " ".join(name.split()).casefold()
    return low in REGIONS or f"the {low}" in REGIONS
