"""Roles outside the lexicon: "I'm a backend dev at Zalando", "I'm a QA tester with Ocado".

`work.i_am_a` reads "I'm a <role> at <Org>" only when the role's last word is one of
~150 listed occupations, so every blind holdout brought a role it did not list ("dev",
"data wrangler", "sous-chef"). Here the construction itself carries the meaning: a
short lowercase noun phrase after "I'm a/an", then "at/with/for" and a capitalised
organisation, is an affiliation. What kind is read from the phrase's head noun by its
class, not by listing it: a student word (student, fresher, sophomore, "second-year")
is study; an agent noun (-er, -or, -ist, -ian, -ant, -ent, -eer, -ee) or a clipped job
word (dev, eng, admin, exec, rep) is work; a head that names a customer, a member, a
skill level or a guest ("a regular at", "a beginner at Excel", "a speaker at PyCon") is
neither, however it ends. An unclassified head yields nothing: precision first.

The same shape opens a self-introduction that drops its "I'm a": "Second-year chem eng
student at the University of Cape Town here." (`introduced_at` puts the subject back.)
"""

from __future__ import annotations

import re

from graphmem.ingest.rules.drafts import WORK, Draft, Rule, Sentence, match_span, take_org
from graphmem.ingest.rules.grammar import STOP_NAMES, rule
from graphmem.ingest.rules.work import _NOT_AN_EMPLOYER_NAME, NOT_AN_OCCUPATION_START, OCCUPATION_HEADS

__all__ = ["RULES", "introduced_at", "role_kind"]

STUDY_HEADS = frozenset("""student fresher freshman sophomore undergrad undergraduate postgrad postgraduate grad phd
first-year second-year third-year fourth-year final-year""".split())
# clipped or foreign-looking job words that carry no agent suffix
CLIPPED_ROLES = frozenset("""dev devs eng admin exec rep temp sub doc medic vet intern apprentice postdoc fellow associate
lead swe sre pm ux ui qa hr it ops sales cook chef nurse nanny""".split())
_CLIPPED_ENDS = ("admin", "dev", "eng")  # "sysadmin", "webdev", "swe-eng"
_AGENT = re.compile(r"[a-z]{2,}(?:er|or|ist|ian|ant|ent|eer|ee)$")
# heads of the agent shape that name no job or school place: a customer, a member, a skill level, a guest, a fan
NOT_ROLES = frozenset("""
customer client patient regular member guest visitor fan supporter subscriber follower user owner holder shareholder
stakeholder tenant resident neighbour neighbor parent volunteer donor sponsor applicant candidate interviewee
participant attendee entrant competitor contestant finalist winner runner-up speaker panelist panellist presenter
exhibitor delegate beginner newbie noob novice learner amateur rookie pro expert natural genius whiz whizz wizard
master nerd geek addict lover believer sucker admirer reader listener viewer watcher gamer shopper diner passenger
traveller traveler commuter tourist outsider newcomer stranger foreigner teenager survivor sufferer mess wreck
disaster failure liability nightmare pain regularer
""".split())
_ROLE_WORD = r"(?:[a-z][a-z-]*|[A-Z]{2,4})"
# "I'm a backend dev at", "I've been a line cook with": up to four role words, then the preposition and a capital. The
# speaker's own role only: a subject pattern that also reads "my brother is ..." cost ~2 CPU s per 50k sentences, since
# " at " passes the prefilter in most of them
ROLE_AT = rule(rf"\b(?-i:I)(?:'m|\s+am|'ve\s+been|\s+have\s+been)(?:\s+(?:now|currently|still|also|just|actually|"
               rf"officially|basically))*\s+(?:a|an)\s+(?-i:(?P<role>{_ROLE_WORD}(?:\s+{_ROLE_WORD}){{0,3}}))"
               r"\s+(?P<prep>at|with|for)\s+(?=(?:the\s+)?(?-i:[A-Z]))", ("i'm", "i am", "i've been", "i have been"))


def role_kind(role: str) -> str | None:
    """ "study", "work" or None for a role phrase ("backend dev" -> work, "chem eng student" -> study,
    "regular" -> None); pure. The head is the last word; a modifier that says no role ("a big fan", "a bit")
    makes it none."""
    words = role.lower().split()
    if not words or words[0] in NOT_AN_OCCUPATION_START or any(w in STOP_NAMES for w in words):
        return None
    head = words[-1]
    if head in STUDY_HEADS:
        return "study"
    if head in NOT_ROLES:
        return None
    if head in OCCUPATION_HEADS or head in CLIPPED_ROLES or head.endswith(_CLIPPED_ENDS) or _AGENT.fullmatch(head):
        return "work"
    return None


def role_at(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "I'm a backend dev at Zalando" -> WORKS_AT Zalando; "I'm a chem eng student at UCT" -> STUDIES_AT UCT.
    Roles the occupation list knows are left to `work.i_am_a`, which reads them the same way."""
    role = m["role"]
    kind = role_kind(role)
    head = role.lower().split()[-1]
    if kind is None or (kind == "work" and head in OCCUPATION_HEADS) or head == "student":
        return []
    org = take_org(s, m.end(), lower=False)
    if org is None or _NOT_AN_EMPLOYER_NAME.search(org.name):
        return []
    subj, span = s.speaker, match_span(m, org.end)
    if kind == "study":
        return [Draft(subj, "STUDIES_AT", org.name, f"{subj} studies at {org.said}", "state", WORK, True, span=span)]
    return [Draft(subj, "WORKS_AT", org.name, f"{subj} works at {org.said}", "state", WORK, True, span=span)]


# "Second-year chem eng student at the University of Cape Town here.", "Backend dev at Monzo here, quick one"
_INTRODUCED_AT = re.compile(rf"(?P<who>[A-Za-z][a-z-]*(?:\s+{_ROLE_WORD}){{0,3}})\s+(?P<tail>(?:at|with)\s+(?:the\s+)?"
                            r"[A-Z][^.!?,;:]{1,60}?)\s+here\b(?=\s*(?:[.,!:;-]|$))")


def introduced_at(text: str) -> str | None:
    """The self-introduction with its "I'm a" put back, or None when `text` opens with none: the words
    before "at <Org> here" must be a role by `role_kind` ("Sarah at Acme here" is a name, left alone)."""
    m = _INTRODUCED_AT.match(text)
    if m is None or role_kind(m["who"]) is None:
        return None
    who = m["who"][0].lower() + m["who"][1:]
    return f"I'm {'an' if who[0] in 'aeiou' else 'a'} {who} {m['tail']}{text[m.end():]}"


RULES: tuple[Rule, ...] = (Rule(ROLE_AT, role_at),)
