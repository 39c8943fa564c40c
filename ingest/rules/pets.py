"""Pets: adopting, owning, naming and renaming them.

Named pets take the slot ``PET:<species>``, so "my dog is now called Rex"
supersedes the dog's old name while a cat and a dog coexist. A name given in
the next sentence by pronoun ("I adopted a pup. His name's Ned.") names the
last unnamed pet of the turn (`named_by_pronoun`).
"""

from __future__ import annotations

import re

from graphmem.ingest.rules.drafts import PET, Draft, Rule, Sentence, article, match_span, subject_of
from graphmem.ingest.rules.grammar import NAME, NAME_AT, RELATIONS, rule, subject_rule
from graphmem.ingest.rules.text import own

__all__ = ["PETS", "RULES", "last_unnamed", "named_by_pronoun", "names_a_pet"]

_NEXT_WORD = re.compile(r"\s+([\w-]+)")

# ------------------------------------------------------------------ patterns

PETS: dict[str, str] = {
    "dog": "dog", "puppy": "dog", "pup": "dog", "doggo": "dog", "puppies": "dog",
    "cat": "cat", "kitten": "cat", "kitty": "cat", "bird": "bird", "parrot": "parrot",
    "parakeet": "parakeet", "budgie": "budgie", "hamster": "hamster", "rabbit": "rabbit",
    "bunny": "rabbit", "bunnies": "rabbit", "guinea pig": "guinea pig", "fish": "fish",
    "goldfish": "goldfish", "turtle": "turtle", "tortoise": "tortoise", "snake": "snake",
    "lizard": "lizard", "gecko": "gecko", "horse": "horse", "pony": "pony", "ferret": "ferret",
    "chinchilla": "chinchilla", "hedgehog": "hedgehog",
    # breeds people name instead of the species
    "retriever": "dog", "labrador": "dog", "poodle": "dog", "beagle": "dog", "dachshund": "dog", "corgi": "dog",
    "husky": "dog", "terrier": "dog", "spaniel": "dog", "bulldog": "dog", "pug": "dog", "chihuahua": "dog",
    "rottweiler": "dog", "collie": "dog", "schnauzer": "dog", "tabby": "cat", "greyhound": "dog", "lab": "dog",
    "whippet": "dog", "lurcher": "dog", "shepherd": "dog", "alsatian": "dog", "pitbull": "dog", "dalmatian": "dog",
    "labradoodle": "dog", "cockapoo": "dog", "cavapoo": "dog", "goldendoodle": "dog", "doodle": "dog",
    "sheepdog": "dog", "setter": "dog", "mastiff": "dog", "pomeranian": "dog", "yorkie": "dog", "westie": "dog",
    "staffie": "dog", "shih tzu": "dog", "mutt": "dog", "siamese": "cat", "ragdoll": "cat",
    "persian": "cat", "bengal": "cat", "sphynx": "cat", "moggy": "cat", "tomcat": "cat", "cockatiel": "bird",
    "canary": "bird", "axolotl": "axolotl", "gerbil": "gerbil", "iguana": "lizard", "bearded dragon": "lizard",
    "tarantula": "tarantula", "betta": "betta", "hermit crab": "hermit crab", "cockatoo": "cockatoo",
    # not "mouse", "python", "chicken", "boxer": a computer mouse, a language, dinner and a sportsman are no pets
}
NOT_A_PET_AFTER = frozenset(
    "allergy allergies food toy toys bed sitter walker walking person people lover lovers hair park show "
    "trainer training treats video videos costume tattoo mug shirt shelter breed breeds house tag".split()
)

PET_WORDS = "(?:" + "|".join(sorted({w for p in PETS for w in (p, p + "s")}, key=len, reverse=True)) + ")"
_PET_PRE = r"(?P<pre>(?:[a-z-]+\s+){0,3}?)"
PET_HAVE = subject_rule(
    "have", "has", "HAVE got", "got", "HAVE gotten", "adopted", "HAVE adopted", "rescued", "HAVE rescued",
    "own[s]?", "bought", "brought home", "HAVE brought home", "welcomed", "HAVE welcomed", "took in", "HAVE taken in",
    "took home", "HAVE taken home",
    tail=rf"\s+{_PET_PRE}(?P<species>{PET_WORDS})\b(?![-'])(?:(?:\s+(?:named|called|(?:that\s+|whom\s+)?(?:we|I)\s+(?:call|called|"
         rf"named|'ve\s+named|have\s+named))|,)\s+(?P<pname>{NAME})\b)?",
    keywords=tuple(PETS),
)
# "we took in a stray we call Pumpkin", "adopted a rescue named Bramble": no species said, but a name makes it a pet
PET_NO_SPECIES = subject_rule(
    "adopted", "HAVE adopted", "rescued", "HAVE rescued", "took in", "HAVE taken in", "brought home", "HAVE brought home",
    "got", "HAVE got", "welcomed", "HAVE welcomed", "BE fostering", "fostered",
    tail=rf"\s+(?P<pre>(?:a|an|another)\s+(?:(?:little|sweet|tiny|scruffy|old|young|skinny|shy)\s+)?)(?P<species>stray|rescue)"
         rf",?\s+(?:(?:that|whom|who)\s+)?(?:named|called|(?:we|I)\s+(?:call|called|named|'ve\s+named|have\s+named))\s+"
         rf"(?P<pname>{NAME})\b",
    keywords=("stray", "rescue"))
_MY_PET = rf"\b(?P<poss>my|our)\s+{_PET_PRE}(?P<species>{PET_WORDS})"
_THE_PET = rf"\s+(?:my|our|the|his|her|their)\s+{_PET_PRE}(?P<species>{PET_WORDS})"
_PET_NAME = rf"(?P<pname>{NAME})\b"
PET_MY = rule(
    rf"{_MY_PET}\b(?:'s\s+name\s+is|\s+is\s+(?:called|named)|\s+(?:called|named)|,)?\s+{_PET_NAME}", PETS)
PET_IS = rule(rf"\b(?P<pname>{NAME})\s+is{_THE_PET.replace('the|his|her|their', 'the')}\b", PETS)
# the name first, the pet in an aside: "Biscuit, our beagle, keeps eating grass", "my cat (Mochi) hates the vet"
PET_ASIDE = rule(rf"\b(?P<pname>{NAME}),\s+(?:my|our)\s+{_PET_PRE}(?P<species>{PET_WORDS})\b(?=\s*(?:,|\)|\s[-\u2013\u2014]))", PETS)
PET_BRACKETED = rule(rf"{_MY_PET}\s+\((?P<pname>{NAME})\)", PETS)
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

# a pet that died, ran away or was given away is no longer had
GONE = re.compile(r",?\s+(?:(?:sadly|finally|recently|just)\s+)?(?:passed\s+away|passed|died|has\s+died|"
                  r"was\s+put\s+(?:down|to\s+sleep)|ran\s+away|went\s+missing|was\s+rehomed)\b", re.IGNORECASE)
PET_GONE = rule(rf"{_MY_PET}\b(?=,?\s+(?:(?:sadly|finally|recently|just)\s+)?(?:passed|died|has\s+died|was\s+put|"
                rf"ran\s+away|went\s+missing|was\s+rehomed))", PETS)
# "had to" before the base form says it happened: "we had to rehome our rabbit Clover" ends the rabbit as "rehomed" does
_LOST_BEFORE = re.compile(r"\b(?:lost|put\s+down|rehomed|re-homed|gave\s+away|had\s+to\s+(?:rehome|re-home|give\s+away|"
                          r"give\s+up|surrender))\s+$", re.IGNORECASE)
PET_LOST = subject_rule("lost", "HAVE lost", "had to put down", "rehomed", "HAVE rehomed", "gave away", "had to rehome",
                        "HAVE had to rehome", "had to re-home", "had to give up", "had to surrender",
                        tail=rf"{_THE_PET}\b(?:,?\s+{_PET_NAME})?", keywords=tuple(PETS))

# "we gave our parrot Kiwi away"
PET_GIVEN_AWAY = subject_rule("gave", "HAVE given", tail=rf"{_THE_PET}\b(?:,?\s+{_PET_NAME})?(?=\s+away\b)",
                              keywords=tuple(PETS))
_GAVE_BEFORE = re.compile(r"\b(?:gave|given)\s+$", re.IGNORECASE)
_AWAY = re.compile(r"\s+away\b", re.IGNORECASE)
# the particle after the pet, as with "away": "we had to put our beagle Biscuit down", "we put Rex to sleep"; a
# pet put down for a nap, or a name put down as a reference, is still had: "had to" or "to sleep" says it died
_DOWN = r"\s+(?:down\b(?!\s+(?:for|as|on|with)\b)|to\s+sleep\b)"
_TO_SLEEP = r"\s+to\s+sleep\b"
PET_PUT_DOWN = subject_rule("had to put", "HAVE had to put", tail=rf"{_THE_PET}\b(?:,?\s+{_PET_NAME})?(?={_DOWN})",
                            keywords=tuple(PETS))
PET_PUT_TO_SLEEP = subject_rule("put", "HAVE put", tail=rf"{_THE_PET}\b(?:,?\s+{_PET_NAME})?(?={_TO_SLEEP})",
                                keywords=tuple(PETS))
_PUT_BEFORE = re.compile(r"\bput\s+$", re.IGNORECASE)
_PUT_DOWN = re.compile(r"\s+(?:down|to\s+sleep)\b", re.IGNORECASE)

# a pet by name alone: "Rex died in the spring", "we lost Biscuit", "we had to rehome Peanut", "I don't have Rio
# anymore". The name may be anyone's, so the ending only counts if it closes a pet of that name (closes_only)
_GONE_VERB = (r"(?:(?:sadly|finally|recently|just)\s+)?(?:passed\s+away|died|has\s+died|was\s+put\s+(?:down|to\s+sleep)|"
              r"ran\s+away|went\s+missing|was\s+rehomed)\b")
NAME_GONE = rule(rf"(?<![\w'])(?P<pname>{NAME})\s+{_GONE_VERB}", ("passed away", "died", "put down", "put to sleep",
                                                                  "ran away", "missing", "rehomed"))
NAME_LOST = subject_rule("lost", "HAVE lost", "had to put down", "had to rehome", "rehomed", "HAVE rehomed",
                         "had to give away", "gave away", "no longer have", "DONT have", "had to say goodbye to",
                         tail=rf"\s+(?={NAME}\b)",
                         keywords=("lost", "put down", "rehome", "give away", "gave away", "no longer have",
                                   "have", "goodbye"))
# the pet named in the sentence before, taken up by "mine"/"one": "What should the tank be for a leopard gecko?? got
# mine last week, her name is Mango", "Best food for a corgi? We adopted one in May."
PET_MINE = subject_rule("got", "HAVE got", "adopted", "HAVE adopted", "rescued", "HAVE rescued", "bought", "brought home",
                        "HAVE brought home", "took home", "HAVE had",
                        tail=r"\s+(?:mine|ours|one|ours)\b(?!\s+(?:of|for|from)\b)", keywords=("mine", "ours", "one"))
_PET_BEFORE = re.compile(rf"\b(?:(?:an?|the|my|our)\s+{_PET_PRE})?(?P<species>{PET_WORDS})\b(?![-'])", re.IGNORECASE)
NAME_PUT_DOWN = subject_rule("had to put", "HAVE had to put", tail=rf"\s+(?={NAME}{_DOWN})", keywords=("down", "sleep"))
NAME_PUT_TO_SLEEP = subject_rule("put", "HAVE put", tail=rf"\s+(?={NAME}{_TO_SLEEP})", keywords=("sleep",))
PET_PRONOUN_NAME = rule(
    rf"\b(?:(?:his|her|its|their)\s+name(?:'s|\s+is)|I\s+named\s+(?:him|her|it|them)|we\s+named\s+(?:him|her|it|them)|"
    rf"(?:he|she|it)(?:'s|\s+is)\s+(?:called|named))\s+(?P<pname>{NAME})\b",
    ("name", "called"),
)


# ------------------------------------------------------------------ handlers


_PET_PRE_REJECT = frozenset("has have had got is was are were and with to for of named called gets loves hot stuffed "
                            "toy plush robot corn sea sausage prairie top under".split())
_PET_DETERMINERS = frozenset("a an another one two three four five six some new the my our this his her their".split())


def _species(word: str) -> str:
    w = word.lower()
    return PETS.get(w) or PETS.get(w.removesuffix("s"), w.removesuffix("s"))


def _pet_ok(m: re.Match[str], s: Sentence, need_determiner: bool) -> bool:
    """Not "a hot dog", "my sister has a dog", "a dog allergy"."""
    pre = m["pre"].lower().split()
    if any(w in _PET_PRE_REJECT for w in pre):
        return False
    if need_determiner and pre and not (pre[0] in _PET_DETERMINERS or pre[0].isdigit()):
        return False
    after = _NEXT_WORD.match(s.text, m.end("species"))
    return not (after and after[1].lower() in NOT_A_PET_AFTER)


def _pet(subj: str, species: str, name: str, text: str, m: re.Match[str], kind: str = "state") -> Draft:
    """Named pets: one name per species slot, so a rename supersedes the old name."""
    return Draft(subj, "HAS_PET", name, text, kind, PET, True, f"PET:{species}", span=match_span(m, m.end()))


def pet_have(m: re.Match[str], s: Sentence) -> list[Draft]:
    if not _pet_ok(m, s, need_determiner=True):
        return []
    subj, species = subject_of(m, s), _species(m["species"])
    if m["pname"]:
        return [_pet(subj, species, m["pname"], f"{subj} has {article(species)} {species} named {m['pname']}", m)]
    said = own(f"{m['pre']}{m['species']}", s.speaker)
    return [Draft(subj, "HAS_PET", species, f"{subj} has {said}", "state", PET, span=match_span(m, m.end()))]


def pet_no_species(m: re.Match[str], s: Sentence) -> list[Draft]:
    """A named stray or rescue is a pet of no known species (slot ``PET:pet``)."""
    subj = subject_of(m, s)
    return [_pet(subj, "pet", m["pname"], f"{subj} has a pet named {m['pname']}", m)]


def pet_named(m: re.Match[str], s: Sentence) -> list[Draft]:
    if not _pet_ok(m, s, need_determiner=False):
        return []
    species, name = _species(m["species"]), m["pname"]
    if _LOST_BEFORE.search(s.text, max(0, m.start() - 40), m.start()) or (
            _GAVE_BEFORE.search(s.text, max(0, m.start() - 40), m.start()) and _AWAY.match(s.text, m.end())) or (
            _PUT_BEFORE.search(s.text, max(0, m.start() - 40), m.start()) and _PUT_DOWN.match(s.text, m.end())):
        return []  # "we lost our dog Biscuit", "we gave our dog Rex away", "we put our dog Rex down": read as endings
    if GONE.match(s.text, m.end()):
        return [_pet(s.speaker, species, name, f"{s.speaker} no longer has {species} {name}", m, "end")]
    return [_pet(s.speaker, species, name, f"{s.speaker} has {article(species)} {species} named {name}", m)]


def pet_gone(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "Our old dog passed away", "we lost our cat Mochi": the pet is no longer had."""
    if not _pet_ok(m, s, need_determiner=False):
        return []
    subj = subject_of(m, s) if "subj" in m.re.groupindex else s.speaker
    species, name = _species(m["species"]), m.groupdict().get("pname")
    if name:
        return [_pet(subj, species, name, f"{subj} no longer has {species} {name}", m, "end")]
    return [Draft(subj, "HAS_PET", species, f"{subj} no longer has a {species}", "end", PET,
                  span=match_span(m, m.end()))]


def _pet_by_name(m: re.Match[str], s: Sentence, subj: str, name: str, end: int) -> list[Draft]:
    before = s.text[max(0, m.start() - 25):m.start()].lower().split()
    if before and (names_a_pet(before[-1]) or before[-1].strip(",") in RELATIONS):
        return []  # "our dog Rex died": PET_GONE reads it, with the species; "my grandpa Joe died" is family
    return [Draft(subj, "HAS_PET", name, f"{subj} no longer has the pet {name}", "end", PET, True,
                  span=match_span(m, end), closes_only=True)]


def name_gone(m: re.Match[str], s: Sentence) -> list[Draft]:
    return _pet_by_name(m, s, s.speaker, m["pname"], m.end())


def name_lost(m: re.Match[str], s: Sentence) -> list[Draft]:
    name = NAME_AT.match(s.text, m.end())
    if name is None:
        return []
    low = m[0].lower()
    if "have" in low and "longer" not in low and not s.says_anymore(m.start(), name.end()):
        return []  # "I don't have Rio" may correct; "anymore" makes it an ending
    return _pet_by_name(m, s, subject_of(m, s), name[0], name.end())


def pet_renamed(m: re.Match[str], s: Sentence) -> list[Draft]:
    if not _pet_ok(m, s, need_determiner=False):
        return []
    subj = subject_of(m, s) if "subj" in m.re.groupindex else s.speaker
    species, name = _species(m["species"]), m["pname"]
    return [_pet(subj, species, name, f"{subj}'s {species} is now called {name}", m)]


def pet_mine(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "got mine last week, her name is Mango" after a sentence about a leopard gecko: the speaker's gecko Mango
    (unnamed, the species alone, when no name follows): the last pet the two sentences before name."""
    before, last = s.before, None
    for last in _PET_BEFORE.finditer(before):
        pass
    if last is None or (last["species"].lower()[-1:] != "s" if last["pre"] is None  # "a gecko", "axolotls"
                        else not _pet_ok(last, Sentence(before, s.speaker), need_determiner=False)):
        return []
    subj, species = subject_of(m, s), _species(last["species"])
    named = PET_PRONOUN_NAME.pattern.search(s.text, m.end())
    if named:
        return [_pet(subj, species, named["pname"], f"{subj} has {article(species)} {species} named {named['pname']}", m)]
    return [Draft(subj, "HAS_PET", species, f"{subj} has {article(species)} {species}", "state", PET,
                  span=match_span(m, m.end()))]


def names_a_pet(word: str) -> bool:
    """ "puppy", "cats": a word the pet rules read, so the possessions topic leaves it alone."""
    return _species(word) in PETS.values()


def named_by_pronoun(s: Sentence, species: str | None) -> list[list[Draft]]:
    """ "His name's Ned" after an unnamed pet of `species` earlier in the turn."""
    if species is None:
        return []
    return [[_pet(s.speaker, species, m["pname"], f"{s.speaker} has {article(species)} {species} named {m['pname']}",
                  m)] for m in PET_PRONOUN_NAME.pattern.finditer(s.text)]


def last_unnamed(drafts: list[Draft], species: str | None) -> str | None:
    """The species of an unnamed pet among `drafts`, else `species` (the one before)."""
    return next((d.object for d in drafts if d.predicate == "HAS_PET" and d.slot is None), species)


RULES: tuple[Rule, ...] = (
    *(Rule(pattern, pet_renamed) for pattern in PET_RENAMES),
    Rule(PET_GONE, pet_gone, False), Rule(PET_LOST, pet_gone), Rule(PET_GIVEN_AWAY, pet_gone),
    Rule(PET_MY, pet_named, False), Rule(PET_IS, pet_named, False), Rule(PET_ASIDE, pet_named, False),
    Rule(PET_BRACKETED, pet_named, False), Rule(PET_HAVE, pet_have), Rule(PET_NO_SPECIES, pet_no_species),
    Rule(NAME_GONE, name_gone, False), Rule(NAME_LOST, name_lost, False),
    Rule(PET_PUT_DOWN, pet_gone), Rule(PET_PUT_TO_SLEEP, pet_gone), Rule(NAME_PUT_DOWN, name_lost, False),
    Rule(NAME_PUT_TO_SLEEP, name_lost, False), Rule(PET_MINE, pet_mine),
)
# noun phrases hold in a question too: "is my cat Juniper ill?"
QUESTION_RULES: tuple[Rule, ...] = (Rule(PET_MY, pet_named, False), Rule(PET_ASIDE, pet_named, False),
                                    Rule(PET_BRACKETED, pet_named, False))
