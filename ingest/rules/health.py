"""Health and diet: diets, allergies, intolerances, and foods eaten or avoided.

DIET is single-valued ("I went vegan" supersedes "I'm vegetarian"; "I'm no
longer vegan" ends it). AVOIDS and EATS share the slot ``DIET:<food>``, so "I
eat spicy food now" supersedes "I don't eat spicy food". Allergies are
many-valued: "allergic to peanuts and cats" is two facts.
"""

from __future__ import annotations

import re

from graphmem.ingest.rules.drafts import (
    DIETARY, HEALTH, QUANTITY, Draft, Rule, Sentence, article, match_span, subject_of)
from graphmem.ingest.rules.grammar import ADV, rule, subject_rule
from graphmem.ingest.rules.text import (
    MAX_OBJECT_CHARS, PREP_STOP, REJECT_OBJECT_START, strip_article, take_phrase)

# ------------------------------------------------------------------ patterns

DIETS = ("vegetarian", "vegan", "pescatarian", "pescetarian", "gluten-free", "dairy-free", "keto",
         "paleo", "plant-based", "kosher", "halal", "raw vegan", "veggie", "low-carb", "intermittent fasting",
         "carnivore", "whole30", "lactose-free")
DIET_NORMAL = {"pescetarian": "pescatarian", "veggie": "vegetarian"}
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

DIET_WORDS = "(?:" + "|".join(re.escape(d) for d in sorted(DIETS, key=len, reverse=True)) + ")"
DIET = subject_rule("BE", "HAVE been", "became", "HAVE become", "went", "HAVE gone", "turned", "HAVE turned",
                    "BE going",
                    tail=ADV + rf"\s+(?:(?:a|an|fully|strictly|mostly|completely)\s+)*(?P<diet>{DIET_WORDS})(?![\w-])",
                    keywords=DIETS)
DIET_ON = subject_rule("BE on", "follow[s]?", "eat", "HAVE been on", "started", "HAVE started",
                       tail=rf"\s+(?:a|an)\s+(?:strict\s+)?(?P<diet>{DIET_WORDS}|low-carb|mediterranean)\s+diet\b",
                       keywords=("diet",))
END_DIET = subject_rule("BE no longer", "stopped being", "quit being", "HAVE stopped being", "gave up being", "BE not",
                        "BE off", "went off", "came off", "HAVE come off", "HAVE gone off",
                        tail=rf"\s+(?:(?:a|an|the)\s+)?(?P<diet>{DIET_WORDS})(?![\w-])", keywords=DIETS)
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


# ------------------------------------------------------------------ handlers


def normalise_food(phrase: str) -> str:
    """ "a bit of spice", "spicy foods" -> "spicy food"; otherwise lowercased, articles gone."""
    food = strip_article(phrase.lower()).strip()
    return "spicy food" if food in SPICY_FOOD else food


# a diet said as a clause of its own, by the speaker about now: "I started eating fish again - pescatarian these days.",
# "Vegan now, fully." (a clause that is the diet word and "these days / now / nowadays", nothing else)
DIET_NOWADAYS = rule(rf"(?:^|[,;:]\s+|\s[-\u2013\u2014]+\s+)(?:(?:mostly|strictly|fully|basically|pretty\s+much)\s+)?"
                     rf"(?P<diet>{DIET_WORDS})\s+(?:these\s+days|nowadays|now)(?=\s*(?:[.,;!]|$))", DIETS)


def nowadays(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "- pescatarian these days.": the speaker's diet, from the session on."""
    name = _diet_name(m["diet"])
    return [Draft(s.speaker, "DIET", name, f"{s.speaker} is {name}", "state", HEALTH, True, "DIET",
                  span=(m.start("diet"), m.end()))]


def _diet_name(word: str) -> str:
    low = word.lower()
    return DIET_NORMAL.get(low, low)


def diet(m: re.Match[str], s: Sentence) -> list[Draft]:
    subj, name = subject_of(m, s), _diet_name(m["diet"])
    on_a = m.re is DIET_ON.pattern or name in ("keto", "paleo")
    text = f"{subj} is on {article(name)} {name} diet" if on_a else f"{subj} is {name}"
    return [Draft(subj, "DIET", name, text, "state", HEALTH, True, "DIET", span=match_span(m, m.end()))]


def end_diet(m: re.Match[str], s: Sentence) -> list[Draft]:
    low = m[0].lower()
    if re.search(r"\bnot\b", low) and not s.says_anymore(m.start(), m.end()):
        return []
    subj, name = subject_of(m, s), _diet_name(m["diet"])
    return [Draft(subj, "DIET", name, f"{subj} is no longer {name}", "end", HEALTH, True, "DIET",
                  span=match_span(m, m.end()))]


_ALLERGY_STOP = re.compile(r"[.;!?()]|\s[-\u2013\u2014]+\s|\s+(?:but|because|so|which|that|since|when|if|though|"
                           r"although|now|anymore|too|as)\b", re.IGNORECASE)
_LIST_SEP = re.compile(r",\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+", re.IGNORECASE)


def allergy(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "allergic to peanuts, shellfish and cats" -> one ALLERGIC_TO per item."""
    segment = s.text[m.end():min(s.limit(m.end()), m.end() + MAX_OBJECT_CHARS)]
    stop = _ALLERGY_STOP.search(segment)
    segment = segment[:stop.start()] if stop else segment
    subj, drafts = subject_of(m, s), []
    for item in _LIST_SEP.split(segment):
        words = item.split()
        if not words or len(words) > 3 or words[0].lower() in REJECT_OBJECT_START:
            continue
        name = strip_article(" ".join(words)).lower()
        drafts.append(Draft(subj, "ALLERGIC_TO", name, f"{subj} is allergic to {name}", "state", HEALTH,
                            span=match_span(m, m.end() + len(segment))))
    return drafts


def allergy_noun(m: re.Match[str], s: Sentence) -> list[Draft]:
    subj, item = subject_of(m, s), m["item"].lower()
    if item.split()[0] in REJECT_OBJECT_START:
        return []
    return [Draft(subj, "ALLERGIC_TO", item, f"{subj} has {article(item)} {item} allergy", "state", HEALTH,
                  span=match_span(m, m.end()))]


def lactose(m: re.Match[str], s: Sentence) -> list[Draft]:
    subj = subject_of(m, s)
    return [Draft(subj, "INTOLERANT_TO", "lactose", f"{subj} is lactose intolerant", "state", HEALTH,
                  span=match_span(m, m.end()))]


_EAT_REJECT = frozenset("breakfast lunch dinner out well healthy healthier clean right something anything "
                        "everything much more less too enough it that".split())


def _food(predicate: str, m: re.Match[str], s: Sentence) -> list[Draft]:
    """AVOIDS/EATS share the slot DIET:<food>, so "I eat spicy food now" supersedes
    "I don't eat spicy food"; verbs other than eat/drink need a food word."""
    quantity = QUANTITY.match(s.text, m.end())
    obj = take_phrase(s.text, quantity.end() if quantity else m.end(), s.limit(m.end()), 4, PREP_STOP)
    if obj is None:
        return []
    eat_verb = re.search(r"\b(?:eat|eats|eating|drink)\b", m[0], re.I)
    if not eat_verb and not FOOD_HINT.search(obj.said):
        return []
    first = obj.said.split()[0].lower()
    if not eat_verb and first.endswith("ing") and first not in _HABITS:
        return []  # "I quit fishing" gives up a hobby (the hobbies topic), not a food
    food = normalise_food(obj.said)
    if not food or food.split()[0] in _EAT_REJECT:
        return []
    subj = subject_of(m, s)
    verb = "avoids" if predicate == "AVOIDS" else "eats"
    return [Draft(subj, predicate, food, f"{subj} {verb} {food}", "state", DIETARY, True, f"DIET:{food}",
                  span=match_span(m, obj.end))]


_HABITS = frozenset("smoking drinking vaping snacking eating binging".split())


def avoids(m: re.Match[str], s: Sentence) -> list[Draft]:
    return _food("AVOIDS", m, s)


def eats(m: re.Match[str], s: Sentence) -> list[Draft]:
    return _food("EATS", m, s)


RULES: tuple[Rule, ...] = (
    Rule(END_DIET, end_diet), Rule(DIET, diet), Rule(DIET_ON, diet), Rule(DIET_NOWADAYS, nowadays), Rule(LACTOSE, lactose),
    Rule(ALLERGY, allergy), Rule(ALLERGY_NOUN, allergy_noun),
    Rule(AVOIDS, avoids), Rule(EATS, eats),
)
