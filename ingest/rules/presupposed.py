"""Presupposed facts: what a sentence takes for granted about the speaker while it asks
or says something else.

"My manager at Pinecrest Insurance just scheduled ...", "Winters here in St. Paul
are no joke", "How often should I rotate the tires on my Subaru Outback?": none
states "I work at / live in / own", yet each holds only if the speaker does. These
rules read noun phrases, never a subject and verb, so they are safe in a question
too (`QUESTION_RULES`; a question's assertions stay skipped): "Should I move to
Denver?" asserts nothing, but "my boss at X" is presupposed whether asked or said.

General shapes, each a word list rather than a sentence:
- "my/our [modifiers] <work noun> at <Org>" (boss, manager, coworkers, shift, team,
  ...) and "I'm/we're on the <kind of> team at <Org>" -> WORKS_AT; a dropped-subject "Working (the night shift) at <Org>" too;
- "my/our [modifiers] <study noun> at <School>" (prof, lecturer, thesis, degree,
  masters, campus, ...), "<kind> school at <School>", "an exam at <X College>"
  -> STUDIES_AT;
- "my/our [modifiers] <home noun> in <Place>" (place, flat, apartment, street,
  landlord, ...), "our <Place> flat", "here in <Place>" -> LIVES_IN;
- "my/our [old|new] <brand or model>" (cars, bikes, instruments, devices; `BRANDS`),
  "an old Yamaha upright my grandma left me" -> OWNS;
- "<diet> for two years now", "three months into keto", "as a vegan" -> DIET;
- "<Activity> has taken over my weekends / is my whole personality / has become my
  thing", "I spend most evenings knitting" -> LIKES the activity.

Only the speaker's own world counts: "my sister's boss at X" (a possessive inside
the phrase) and a clause about someone else ("he", "my brother", "Anna's") before
the phrase yield nothing.
"""

from __future__ import annotations

import re

from graphmem.ingest.rules.drafts import (
    HEALTH, HOME, LIKE, OWN, WORK, Draft, Rule, Sentence, employer_ok, match_span)
from graphmem.ingest.rules.grammar import RELS, STOP_NAMES, rule
from graphmem.ingest.rules.health import DIET_NORMAL, DIET_WORDS, DIETS
from graphmem.ingest.rules.hobbies import HOBBY_NOUNS, PASTIME_NAMES, activity_name
from graphmem.ingest.rules.text import REJECT_PLACE, strip_article, take_proper
from graphmem.ingest.rules.work import OCCUPATION_HEADS, SCHOOL_WORD

__all__ = ["BRAND", "BRANDS", "QUESTION_RULES", "RULES", "about_someone_else"]

# lowercase modifiers between "my" and the noun, never a possessive ("my sister's boss")
_FUNCTION = (r"(?:his|her|their|its|your|says|said|say|thinks|is|was|are|were|and|or|but|the|a|an|to|of|in|at|on|for|"
             r"with|that|who|which|has|have|had|will|would|can|could)")
_MODS = rf"(?:(?!{_FUNCTION}\b)(?!{RELS}\b)(?:[a-z][a-z-]*|\d+(?:st|nd|rd|th)?)\s+){{0,3}}?"
_POSS = r"\b(?P<poss>[Mm]y|[Oo]ur)\s+"

WORK_NOUNS = (
    "boss bosses manager managers supervisor supervisors coworker coworkers co-worker co-workers colleague "
    "colleagues workmate workmates team teammates department dept office desk shift shifts job workplace employer "
    "hr director ceo ward unit store branch rota contract internship position role post clients customers "
    "line manager team lead payroll onboarding probation commute").split()
STUDY_NOUNS = (
    "prof profs professor professors lecturer lecturers tutor tutors classmates class classes course courses "
    "module modules degree program programme major minor thesis dissertation advisor adviser seminar seminars "
    "lectures lecture exams exam finals midterms campus dorm halls semester term masters master's phd doctorate "
    "studies coursework cohort tuition scholarship student residency placement freshers committee").split() + [
    "freshers' week", "fresher's week", "freshers week", "freshers' fair", "orientation week", "orientation",
    "induction week", "welcome week", "first semester", "first term", "freshman year"]
HOME_NOUNS = (
    "place flat apartment house home condo townhouse cottage bungalow loft rental street road neighbourhood "
    "neighborhood garden balcony backyard yard building block landlord landlady neighbours neighbors "
    "basement attic kitchen lease mortgage council terrace maisonette brownstone semi").split()
_KINDS_OF_SCHOOL = ("law medical med grad graduate nursing business art dental vet veterinary film drama music "
                    "culinary cooking design architecture engineering pharmacy journalism").split()


def _alt(words) -> str:
    return "(?:" + "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in sorted(words, key=len, reverse=True)) + ")"


# ------------------------------------------------------------------ brands and models people own

BRANDS = frozenset("""
Toyota Honda Subaru Ford Chevy Chevrolet Nissan Mazda Hyundai Kia Volkswagen VW Audi BMW Mercedes Volvo Tesla
Jeep Dodge Fiat Peugeot Renault Skoda Lexus Acura Porsche Jaguar Mitsubishi Suzuki Citroen Opel Vauxhall Buick
Cadillac Chrysler Prius Civic Corolla Camry Outback Forester Impreza Accord CR-V RAV4 Mustang Golf Jetta Polo
Miata Wrangler Beetle Tacoma Highlander Leaf Qashqai Fiesta Focus Clio Yaris
Harley Ducati Kawasaki Triumph Vespa Brompton Trek Cannondale Specialized
Yamaha Fender Gibson Steinway Kawai Roland Ibanez Epiphone Squier Casio Korg Stratocaster Telecaster
iPhone iPad MacBook iMac Pixel Galaxy Kindle Kobo ThinkPad Chromebook PlayStation PS4 PS5 Xbox Nintendo Switch
Roomba Dyson Vitamix KitchenAid Thermomix GoPro Canon Nikon Fujifilm Garmin Fitbit AirPods Peloton Nespresso
Instax Polaroid Lego Weber Traeger
""".split())
BRAND = _alt(BRANDS).replace("(?:", "(?-i:", 1)  # case-sensitive: "my Golf", not "my golf clubs"
# a model after the brand: capitalised or numbered ("Outback", "X1", "Paperwhite"), or the kind of thing it is
_KIND_OF_THING = ("upright grand piano guitar bass keyboard bike motorbike motorcycle scooter van truck car "
                  "hatchback wagon estate laptop phone camera watch console").split()
# a model's generation is one word of it: "Canon 5D Mark III", "Golf Mk 7"
MODEL_MARK = r"(?-i:\s+(?:Mark|Mk\.?)\s+(?:[IVX]{1,4}|\d{1,2}))"
_MODEL = rf"(?:{MODEL_MARK}|\s+(?:(?-i:[A-Z0-9][\w-]*)|{_alt(_KIND_OF_THING)})(?![\w']))" + "{0,2}"
_OWN_ADJ = r"(?:(?:old|new|trusty|beloved|ancient|little|first|second-hand|secondhand|used|\d{4})\s+){0,2}"
# "it's an old Yamaha upright my grandma left me", "a Casio keyboard I inherited"
_GIVER = rf"(?:{RELS}|grandad|granddad|gran|granny|nan|nana|nanna|aunt|auntie|uncle|godmother|godfather|cousin)"
_GIVEN = rf"\s+(?:that\s+)?(?:my\s+(?:[a-z]+\s+)?{_GIVER}\s+(?:left|gave|handed\s+down\s+to|passed\s+down\s+to|passed\s+on\s+to)\s+me|I\s+(?:inherited|own|bought|got))\b"

# ------------------------------------------------------------------ patterns

WORK_AT = rule(rf"{_POSS}{_MODS}(?P<noun>{_alt(WORK_NOUNS)})\s+(?:at|with)\s+(?=[A-Z])",
               ("my", "our"))
# "we're both on the checkout team at Shopify", "I'm on the night staff at Mercy": a member of a team at the place
ON_TEAM_AT = rule(rf"\b(?:I'm|I\s+am|we're|we\s+are)\s+(?:(?:both|all|still|now|currently)\s+)*on\s+the\s+{_MODS}"
                  r"(?P<noun>team|squad|crew|staff|rota|desk)\s+(?:at|with)\s+(?=[A-Z])", ("on the",))
WORKING_AT = rule(r"^(?:still\s+)?working\s+(?:(?:the|a|an|my)\s+(?:[a-z-]+\s+){0,2}?shifts?\s+|nights\s+|weekends\s+|"
                  r"late\s+|full[\s-]time\s+|part[\s-]time\s+)?(?:at|for)\s+(?=[A-Z])", ("working",))
STUDY_AT = rule(rf"(?:{_POSS}|\b(?P<det>an?|the|of|in)\s+|^){_MODS}(?P<noun>{_alt(STUDY_NOUNS)}|{_alt(_KINDS_OF_SCHOOL)}\s+school)"
                r"\s+(?P<prep>at|in)\s+(?=[A-Z])", (*STUDY_NOUNS, "school"))
HOME_IN = rule(rf"{_POSS}{_MODS}(?P<noun>{_alt(HOME_NOUNS)})\s+(?:(?:here|over|out|up|down)\s+)?in\s+(?=[A-Z])",
               (" in ",))
PLACE_HOME = rule(rf"{_POSS}(?P<place>(?-i:(?:(?:St|Mt|Ft)\.\s)?[A-Z][a-z]+(?:\s[A-Z][a-z]+)?))\s+"
                  r"(?:flat|apartment|house|home|place|condo|rental|neighbou?rhood)\b", ("flat", "apartment", "house",
                                                                                         "home", "place", "condo",
                                                                                         "rental", "neighbo"))
HERE_IN = rule(r"\b(?:here|out\s+here|over\s+here|back\s+here|up\s+here|down\s+here)\s+in\s+(?=[A-Z])", ("here in",))
OWNS_BRAND = rule(rf"{_POSS}{_OWN_ADJ}(?P<thing>{BRAND}{_MODEL})(?![\w'-])", ("my", "our"))
OWNS_GIVEN = rule(rf"\ban?\s+{_OWN_ADJ}(?P<thing>{BRAND}{_MODEL}){_GIVEN}", ("me", " i "))
DIET_FOR = rule(rf"(?:^|[,;:]\s+|\bbeen\s+)(?P<diet>{DIET_WORDS})\s+(?:for|since)\s+(?:(?:a|an|about|almost|over|nearly|"
                r"like|the\s+last|the\s+past|two|three|four|five|six|seven|eight|nine|ten|\d+|few|couple\s+of|"
                r"several|many)\s+){0,3}(?:years?|months?|ages|a\s+while|a\s+decade|decades?|uni|university|"
                r"college|high\s+school|school|\d{4})\b", ("for", "since"))
DIET_INTO = rule(rf"\b(?:\w+\s+)?(?:days?|weeks?|months?|years?)\s+into\s+(?:being\s+|going\s+|eating\s+)?(?P<diet>{DIET_WORDS})\b",
                 (" into ",))
# "Day four of keto and ...", "week two of being vegan": a count of days on a diet; the diet word closes the phrase
# ("day two of the vegan festival" is an outing)
DIET_DAY_OF = rule(rf"\b(?:(?:day|week|month)\s+(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
                   r"thirteen|fourteen|fifteen|twenty|thirty)|(?:first|second|third|fourth|fifth|sixth)\s+(?:day|week|month))"
                   rf"\s+(?:of|on)\s+(?:my\s+|the\s+)?(?:being\s+|going\s+|eating\s+)?(?P<diet>{DIET_WORDS})(?:\s+diet)?"
                   r"(?=\s*(?:[,.;:!?]|$|\s+(?:and|but|so|done|down|complete|now|today|here|already)\b))",
                   tuple(DIETS))
# in a question only (statements are the health topic's): "I'm pescatarian, what's a good fish?"
DIET_I_AM = rule(rf"\b(?:I'm|I\s+am|I've\s+been|I\s+have\s+been)\s+(?:an?\s+)?(?:(?:strict|strictly|fully|mostly|now)\s+)?"
                 rf"(?P<diet>{DIET_WORDS})(?![\w-])", ("i'm", "i am", "been"))
DIET_AS = rule(rf"\bas\s+an?\s+(?P<diet>vegan|vegetarian|veggie|pescatarian|pescetarian)\b", ("as a",))
# "my keto diet", "our vegan meal plan": the diet the speaker keeps, named by what it is
DIET_MY = rule(rf"{_POSS}(?:(?:new|strict|current|whole|usual)\s+)?(?P<diet>{DIET_WORDS})\s+(?:diet|lifestyle|journey|meal\s+plan|"
               r"eating\s+plan|way\s+of\s+eating)\b(?!\s+(?:group|club|forum|friends?|community|books?|blog|page|chat|class|"
               r"cookbook|recipes?|buddies|account|channel|thread|challenge)\b)", tuple(DIETS))
_ACT = (r"(?P<act>(?:[A-Za-z]+\s+)?[A-Za-z]+ing(?:\s+[a-z]+)?|(?i:" + _alt(HOBBY_NOUNS) + r"))")
HOBBY_TAKEN_OVER = rule(
    rf"^{_ACT}\s+keeps\s+me\s+(?:sane|going|grounded|busy|happy|balanced)\b"
    rf"|(?:^|[,;:]\s+|\b(?:so|and|but|now|these\s+days)\s+){_ACT.replace('act>', 'act3>')}\s+(?:has|'s|is)\s+(?:(?:pretty\s+much|basically|completely|totally|kind\s+of|sort\s+of|really|become|"
    r"now|officially)\s+)*(?:taken\s+over\s+my|become\s+my|been\s+my|my\s+(?:whole\s+|entire\s+|new\s+|latest\s+|"
    r"favou?rite\s+)?(?:personality|life|thing|obsession|jam|passion|happy\s+place|therapy|escape|hobby))\b"
    r"|^{0}\s+(?:has|'s)\s+become\s+(?:my|our)\s+(?:[a-z]+\s+)?(?:thing|obsession|hobby|routine|ritual)\b".format(_ACT.replace("act>", "act2>")),
    ("taken over", "my", "become", "keeps me"))
SPEND_DOING = rule(r"\bI\s+spend\s+(?:most|all|many|every|a\s+lot\s+of|my)\s+(?:[a-z]+\s+)?(?:evenings|weekends|nights|"
                   r"mornings|afternoons|free\s+time|spare\s+time|days|time|sundays|saturdays)\s+(?P<act>[a-z]+ing)\b",
                   ("spend",))
BEEN_DOING = rule(r"\bI(?:'ve|\s+have)\s+been\s+(?P<act>[a-z]+ing)\s+(?:most|every|nearly\s+every|almost\s+every)\s+"
                  r"(?:morning|evening|day|night|weekend|week)s?\b", ("been",))

# "my pottery class", "our Tuesday running club", "my first climbing session": a pastime the speaker does
_PASTIMES = _alt(sorted(HOBBY_NOUNS | PASTIME_NAMES))
HOBBY_GROUP = rule(rf"{_POSS}(?:(?:weekly|regular|usual|first|new|evening|morning|lunchtime|local|beginners'?|"
                   r"monday|tuesday|wednesday|thursday|friday|saturday|sunday)\s+){0,2}"
                   rf"(?P<act>{_PASTIMES})\s+(?:class|classes|club|group|lessons?|sessions?|practice|meetup|course|crew|buddies|"
                   r"partner|coach|instructor|teacher)\b", ("class", "club", "group", "lesson", "session", "practice",
                                                            "meetup", "course", "crew", "buddies", "partner", "coach",
                                                            "instructor", "teacher"))
# "As a nurse at St. Jude's, I ...", "as a second-year at Leeds": a role at a place, said of oneself in passing
AS_ROLE_AT = rule(rf"(?:^|[,;:]\s+|\b(?:I'm|I\s+am|I've\s+been)\s+(?:(?:currently|now|here|writing|asking|speaking|"
                  rf"working|employed|based)\s+)?)as\s+(?:a|an|the)\s+(?:[a-z-]+\s+){{0,2}}?(?P<role>{_alt(OCCUPATION_HEADS)}|student|first-year|"
                  r"second-year|third-year|final-year|fresher|freshman|sophomore|undergrad|postgrad|grad\s+student)"
                  r"\s+(?:at|for|with)\s+(?=[A-Z])", ("as a", "as an", "as the"))
# "Since going vegan I sleep better", "ever since I went keto": the diet the speaker took up and keeps
SINCE_GOING = rule(rf"\b(?:since|ever\s+since)\s+(?:going|becoming|turning|switching\s+to|I\s+went|I\s+became|I\s+turned|"
                   rf"I\s+switched\s+to|I\s+started)\s+(?:fully\s+|strictly\s+)?(?P<diet>{DIET_WORDS})(?![\w-])",
                   ("since",))

# ------------------------------------------------------------------ someone else's world

_OTHER = re.compile(rf"\b(?:he|she|they|his|her|their|him|them)\b|\b(?:my|our)\s+(?:[a-z]+\s+)?(?:{RELS}|friend|"
                    r"friends|neighbou?r|roommate|flatmate|colleague|coworker|boss|kids|son's|daughter's)\b"
                    r"|\b(?!(?:It|That|What|Let|There|Here|He|She|Who|Where|How)'s)[A-Z][a-z]+'s\b", re.IGNORECASE)
_NOT_ABOUT_ME_BEFORE = 60
_I_SUBJECT = re.compile(r"(?<![\w'])(?:I|we)(?:'ve|'m|'re|\s+(?:have|am|are|had|just|finally|now|then|[a-z]+ed))\b")


def about_someone_else(s: Sentence, start: int) -> bool:
    """A phrase at `start` is about someone else's world: "my brother says his boss at X",
    "Anna's flat in Leeds" (a third person or relative in the same clause before it)."""
    left = max(s.clause(start, start)[0], start - _NOT_ABOUT_ME_BEFORE)
    last = None
    for last in _OTHER.finditer(s.text, left, start):
        pass
    # "On my GP's advice I've switched to ...": the other person is in an adjunct, the speaker is the subject after it
    if last is None:
        return False
    me = _I_SUBJECT.search(s.text, last.end(), min(len(s.text), start + 20))
    return me is None or me.start() >= start


# "I quit my job at X", "someone stole my Brompton", "I finished my degree at Leeds", "my old boss at X":
# the phrase names what is ending or over, which the ending rules read; it presupposes nothing that still holds
_ENDED_BEFORE = re.compile(
    r"\b(?:quit|quitting|left|leaving|leave|sold|selling|sell|lost|losing|stole|stolen|steal|replaced|replacing|replace|"
    r"finished|finishing|finish|completed|graduated|ended|ending|gave\s+up|giving\s+up|got\s+rid\s+of|rid\s+of|"
    r"moved\s+out\s+of|moving\s+out\s+of|traded|trading|swapped|crashed|wrote\s+off|totall?ed|miss|missed|missing|"
    r"from|dropped\s+out\s+of|out\s+of|notice\s+at|last\s+day\s+at|retired|resigned|fired|laid\s+off|"
    r"used\s+to|was|were|(?<!'ve\s)(?<!have\s)(?<!has\s)had|gave\s+away|donated|scrapped|broke|wrecked|killed|died)\s+(?:\w+\s+){0,2}$",
    re.IGNORECASE)
_FORMER = re.compile(r"\b(?:old|former|ex|ex-|previous|last|past|first)\b", re.IGNORECASE)


def ended_here(s: Sentence, m: re.Match[str], former_counts: bool = True) -> bool:
    """The noun phrase at `m` is the object of an ending ("I quit my job at X") or names a former
    one ("my old boss at X", with `former_counts`)."""
    left = max(s.clause(m.start(), m.start())[0], m.start() - 40)
    if _ENDED_BEFORE.search(s.text, left, m.start()):
        return True
    return former_counts and _FORMER.search(m[0]) is not None


_TRAVEL = re.compile(r"\b(?:visit|visiting|trip|vacation|holiday|holidays|travel|travelling|traveling|stay|staying|"
                     r"conference|week|weekend|few\s+days|tour|touring|honeymoon|layover|hotel|airbnb)\b", re.IGNORECASE)


# ------------------------------------------------------------------ handlers

def _proper_at(s: Sentence, pos: int):
    return take_proper(s.text, pos, s.limit(pos), allow_lower=False)


_STUDENT_MODS = re.compile(r"\b(?:dissertation|thesis|phd|doctoral|academic|personal|course|module|research|masters|"
                           r"master's|project|studio|seminar|lab)\s+(?:supervisor|advisor|adviser|tutor|mentor)s?\b",
                           re.IGNORECASE)


def works_at(m: re.Match[str], s: Sentence) -> list[Draft]:
    if _STUDENT_MODS.search(m[0]):
        return _studies_at_org(m, s)
    org = _proper_at(s, m.end())
    if org is None or not employer_ok(org) or about_someone_else(s, m.start()) or ended_here(s, m) or SCHOOL_WORD.search(org.name) and (
            m.groupdict().get("noun") or "").lower() in ("team", "office", "department", "dept"):
        return []
    name = strip_article(org.name)
    return [Draft(s.speaker, "WORKS_AT", name, f"{s.speaker} works at {org.said}", "state", WORK, True,
                  span=match_span(m, org.end), dated=False)]


def _studies_at_org(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "my dissertation supervisor at King's College": the speaker studies there."""
    school = _proper_at(s, m.end())
    if school is None or not employer_ok(school) or about_someone_else(s, m.start()) or ended_here(s, m):
        return []
    name = strip_article(school.name)
    return [Draft(s.speaker, "STUDIES_AT", name, f"{s.speaker} studies at {school.said}", "state", WORK, True,
                  span=match_span(m, school.end), dated=False)]


# a committee is a student's only when the turn is about a thesis ("It goes to my committee at Imperial"), else a board
_THESIS = re.compile(r"\b(?:thesis|dissertation|phd|doctoral|doctorate|viva|defen[cs]e)\b", re.IGNORECASE)


def studies_at(m: re.Match[str], s: Sentence) -> list[Draft]:
    if m["noun"].lower() == "committee" and not _THESIS.search(s.turn or s.text):
        return []
    school = _proper_at(s, m.end())
    if school is None or not employer_ok(school) or about_someone_else(s, m.start()) or ended_here(s, m):
        return []
    mine = m["poss"] is not None and m["prep"].lower() == "at"
    if not mine and not (SCHOOL_WORD.search(school.name) or " school" in m["noun"].lower()):
        return []  # "an exam at Harvard": only a name that reads as a school
    if not mine and not s.text.endswith("?") and not re.search(r"\b(?:I|I'm|I've|my|we|our)\b", s.text):
        return []
    name = strip_article(school.name)
    return [Draft(s.speaker, "STUDIES_AT", name, f"{s.speaker} studies at {school.said}", "state", WORK, True,
                  span=match_span(m, school.end), dated=False)]


def _home(m: re.Match[str], s: Sentence, name: str, end: int) -> list[Draft]:
    if name.split()[0].lower() in REJECT_PLACE | STOP_NAMES or about_someone_else(s, m.start()) or ended_here(s, m):
        return []
    return [Draft(s.speaker, "LIVES_IN", name, f"{s.speaker} lives in {name}", "state", HOME, True,
                  span=match_span(m, end), dated=False)]


def home_in(m: re.Match[str], s: Sentence) -> list[Draft]:
    place = _proper_at(s, m.end())
    return [] if place is None else _home(m, s, strip_article(place.name), place.end)


def place_home(m: re.Match[str], s: Sentence) -> list[Draft]:
    return _home(m, s, m["place"], m.end())


def here_in(m: re.Match[str], s: Sentence) -> list[Draft]:
    if _TRAVEL.search(s.text):
        return []  # "the food here in Rome is great, on day three of our trip"
    return home_in(m, s)


_REPLICA = re.compile(r"(?:\s+[\w-]+){0,2}?\s+(?:model|kit|toy|replica|poster|figure|figurine|miniature|lego|"
                      r"scale\s+model|die-cast|diecast)s?\b", re.IGNORECASE)


def owns_brand(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "my Subaru Outback", "an old Yamaha upright my grandma left me": owned. "my" says whose it is, so someone
    else named earlier in the clause does not make it theirs ("shooting a friend's wedding on my Canon")."""
    mine = m.groupdict().get("poss") is not None
    if (not mine and about_someone_else(s, m.start())) or ended_here(s, m, former_counts=False) or _REPLICA.match(s.text, m.end()):
        return []
    thing = " ".join(m["thing"].split())
    return [Draft(s.speaker, "OWNS", thing, f"{s.speaker} owns {thing}", "state", OWN,
                  span=match_span(m, m.end()), dated=False)]


def diet(m: re.Match[str], s: Sentence) -> list[Draft]:
    if about_someone_else(s, m.start()) or ended_here(s, m, former_counts=False):
        return []
    low = m["diet"].lower()
    name = DIET_NORMAL.get(low, low)
    return [Draft(s.speaker, "DIET", name, f"{s.speaker} is {name}", "state", HEALTH, True, "DIET",
                  span=match_span(m, m.end()), dated=False)]


_NOT_AN_ACTIVITY = frozenset("nothing something everything anything morning evening spring king thing ceiling "
                             "building wedding ring wing sibling darling pudding during being feeling thinking "
                             "working meeting commuting parenting dating".split())


def likes_activity(m: re.Match[str], s: Sentence) -> list[Draft]:
    act = (m.groupdict().get("act") or m.groupdict().get("act2") or m.groupdict().get("act3") or "").strip()
    words = act.lower().split()
    while words[:1] and words[0] in ("so", "and", "but", "now", "then"):  # ", so running is my thing now"
        words.pop(0)
    if not words or any(w in _NOT_AN_ACTIVITY or w in STOP_NAMES for w in words):
        return []
    if not any(w.endswith("ing") or w in HOBBY_NOUNS for w in words):
        return []
    name = activity_name(" ".join(words))
    return [Draft(s.speaker, "LIKES", name, f"{s.speaker} enjoys {name}", "state", LIKE, True, f"PREF:{name}",
                  span=match_span(m, m.end()), dated=False)]


def hobby_group(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "my pottery class", "our running club": the speaker does the pastime (nobody else's: "my son's")."""
    return [] if about_someone_else(s, m.start()) else likes_activity(m, s)


_FIRST_PERSON = re.compile(r"\b(?:I|I'm|I've|I'd|me|my|My|we|We|our|Our)\b")
_STUDENT_ROLES = frozenset("student first-year second-year third-year final-year fresher freshman sophomore undergrad "
                           "postgrad".split())


def as_role_at(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "As a nurse at St. Jude's, I ..." -> WORKS_AT; "as a second-year at Leeds" -> STUDIES_AT; only in the speaker's
    own sentence (a first person in it) and never of someone else's role ("she joined as a nurse at X")."""
    role = " ".join(m["role"].lower().split())
    if not _FIRST_PERSON.search(s.text) or about_someone_else(s, m.start()):
        return []
    if role in _STUDENT_ROLES or role == "grad student":
        return _studies_at_org(m, s)
    org = _proper_at(s, m.end())
    if org is None or not employer_ok(org) or ended_here(s, m, former_counts=False):
        return []
    name = strip_article(org.name)
    return [Draft(s.speaker, "WORKS_AT", name, f"{s.speaker} works at {org.said}", "state", WORK, True,
                  span=match_span(m, org.end), dated=False)]


RULES: tuple[Rule, ...] = (
    Rule(WORK_AT, works_at, False), Rule(ON_TEAM_AT, works_at, False), Rule(WORKING_AT, works_at, False), Rule(STUDY_AT, studies_at, False),
    Rule(HOME_IN, home_in, False), Rule(PLACE_HOME, place_home, False), Rule(HERE_IN, here_in, False),
    Rule(OWNS_BRAND, owns_brand, False), Rule(OWNS_GIVEN, owns_brand, False),
    Rule(DIET_FOR, diet, False), Rule(DIET_INTO, diet, False), Rule(DIET_AS, diet, False), Rule(DIET_DAY_OF, diet, False),
    Rule(DIET_MY, diet, False),
    Rule(HOBBY_TAKEN_OVER, likes_activity, False), Rule(SPEND_DOING, likes_activity, False),
    Rule(BEEN_DOING, likes_activity, False), Rule(HOBBY_GROUP, hobby_group, False), Rule(AS_ROLE_AT, as_role_at, False),
    Rule(SINCE_GOING, diet, False),
)
QUESTION_RULES = (*RULES, Rule(DIET_I_AM, diet))
