"""Work: employers, roles, new jobs, and leaving them.

WORKS_AT and WORKS_AS are single-valued: a new employer supersedes the old one.
Leaving ("quit", "left my job at", "was laid off from", "retired from") is a
LEFT_JOB event that ends the open WORKS_AT at that employer when it is named;
"no longer work at", "stopped working at" and "don't work at ... anymore" end
it without an event; "<employer> let me go / laid me off" is leaving too.
"""

from __future__ import annotations

import re

from graphmem.ingest.rules.drafts import (
    WORK, Draft, Rule, Sentence, article, employer_ok, match_span, subject_of, tail_object, take_org)
from graphmem.ingest.rules.grammar import ADV, NAME, rule, subject_rule
from graphmem.ingest.rules.text import PREP_STOP, Piece, own, strip_article, take_phrase

# ------------------------------------------------------------------ patterns

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

_JOB_NOUN = (
    r"\s+(?:a|an|my|the|this|his|her|their)?\s*(?:(?:new|dream|first|full-time|part-time|summer|great|good|better|"
    r"cool|paid|old|former|previous|day|corporate|teaching|office|current)\s+)*(?:job|position|role|internship|gig)\b"
)

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
# "I've been a data analyst at Tesco for three years": the perfect of "I'm a ..." still holds
I_AM_A = subject_rule("BE", "HAVE been", tail=ADV + r"\s+(?:a|an)\s+", keywords=(" a ", " an "))
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
END_WORK = subject_rule("no longer work[s]?", "BE no longer working", "stopped working", "HAVE stopped working",
                        "BE no longer employed", tail=r"\s+(?:at|for|by)\s+", keywords=("longer", "stopped"))
EMPLOYED_BY = subject_rule("BE employed", "HAVE been employed", tail=r"\s+by\s+", keywords=("employed",))
# "Contoso let me go in May", "Globex laid me off": the employer is the subject
LET_GO = rule(rf"\b(?P<org>{NAME})\s+(?:(?:just|finally|recently)\s+)?(?:let\s+me\s+go(?=\s*(?:[,.;!]|$|\s+(?:in|on|last|this|after)\b))|"
              r"laid\s+me\s+off|fired\s+me|made\s+me\s+redundant)\b", ("let me go", "laid me off", "fired me", "redundant"))
END_WITH = subject_rule("BE no longer (?:with|at)", "BE not (?:with|at)", tail=r"\s+(?=[A-Z])", keywords=("longer", "not"))
# "retired from the railway": a common noun after "the" is an employer for these verbs, not for "quit"
LEFT_THE = subject_rule("resigned from", "HAVE resigned from", "retired from", "HAVE retired from", "WAS fired from",
                        "got fired from", "WAS laid off from", "got laid off from", "HAVE been laid off from",
                        tail=r"\s+(?=the\s+[a-z])")
# "left" and "joined" need a name that reads as an organisation: "I left Paris" is a move
LEFT_NAMED = subject_rule("left", "HAVE left", "BE leaving", tail=r"\s+(?=[A-Z])", keywords=("left", "leaving"))
JOINED = subject_rule("joined", "HAVE joined", "BE joining", "will join", tail=r"\s+(?=[A-Z])", keywords=("join",))
STARTED_AT = subject_rule("started at", "HAVE started at", "began at", "BE starting at", "start at",
                          "WILL start at", tail=r"\s+(?=[A-Z])", keywords=("start", "began"))
NOW_AT = subject_rule("BE now at", "BE at", tail=r"\s+(?=[A-Z][^,.;!?]{0,60}\sas\s+an?\s)", keywords=(" as ",))
ORG_WORD = re.compile(
    r"\b(?:Bank|Hospital|Clinic|Health|Labs?|Studios?|Inc|Corp|Corporation|Ltd|LLC|Co|Company|Group|Partners|"
    r"Associates|Logistics|Systems|Technologies|Solutions|Consulting|Agency|Foundation|Institute|University|College|"
    r"School|Academy|Council|Ministry|Department|Services|Media|Press|Capital|Insurance|Pharma|Motors|Airlines?|"
    r"Union|Industries|Holdings|Software|Networks|Energy|Bakery|Restaurant|Hotel|Museum|Library)\b")
SCHOOL_WORD = re.compile(r"\b(?:University|College|Uni|Polytechnic|Conservatory)\b|\bU\s+of\s+[A-Z]")  # "U of T"
_NOT_AN_EMPLOYER_NAME = re.compile(r"\b(?:Club|Gym|Team|League|Choir|Band|Society|Community|Facebook|Instagram|"
                                   r"TikTok|Twitter|Reddit|Discord|Slack)\b")
END_WORK_ANYMORE = subject_rule("DONT work", "BE not working", tail=r"\s+(?:at|for)\s+")
# "I was at Siemens from 2013 until 2021" (read as "I am at ...", `intervals.present_twin`): where one worked or
# studied, kept only with an interval of a year or more; "I'm at Starbucks" alone says where one is
BE_AT = subject_rule("BE at", "HAVE been at", tail=r"\s+(?:the\s+(?=[A-Z]))?(?=[A-Z])", keywords=(" at ",))


# ------------------------------------------------------------------ handlers


def _employer_after(s: Sentence, pos: int, lead: str, allow_phrase: bool = True) -> Piece | None:
    """An employer introduced by `lead` ("at", "for") right after `pos`, if the rules can be sure of it."""
    org = tail_object(s, pos, lead, allow_phrase)
    return org if org is not None and employer_ok(org) else None


def _works_at(subj: str, org: Piece, m: re.Match[str], prep: str = "at") -> Draft:
    return Draft(subj, "WORKS_AT", org.name, f"{subj} works {prep} {org.said}", "state", WORK, True,
                 span=match_span(m, org.end))


def _works_as(subj: str, role: Piece, m: re.Match[str]) -> Draft:
    name = strip_article(role.name)
    return Draft(subj, "WORKS_AS", name, f"{subj} works as {article(name)} {name}", "state", WORK, True,
                 span=match_span(m, role.end))


def works_at(m: re.Match[str], s: Sentence) -> list[Draft]:
    prep = (m.groupdict().get("prep") or "at").lower()
    org = take_org(s, m.end())
    if org is None:
        return []
    subj = subject_of(m, s)
    drafts = [_works_at(subj, org, m, "for" if prep == "for" else "at")]
    role = tail_object(s, org.end, r"as\s+(?:a|an)")
    return drafts + ([_works_as(subj, role, m)] if role else [])


def been_at(m: re.Match[str], s: Sentence) -> list[Draft]:
    org = take_org(s, m.end(), lower=False)
    if org is None:
        return []
    subj = subject_of(m, s)
    school = SCHOOL_WORD.search(org.name) is not None
    said = f"{subj} {'studies' if school else 'works'} at {org.said}"
    return [Draft(subj, "STUDIES_AT" if school else "WORKS_AT", org.name, said, "state", WORK, True,
                  span=match_span(m, org.end), bounded_only=True, min_days=365)]


def hired(m: re.Match[str], s: Sentence) -> list[Draft]:
    org = take_org(s, m.end(), lower=False)
    return [_works_at(subject_of(m, s), org, m)] if org else []


def new_job(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "I got a job as a nurse at Mercy Hospital": a role, a workplace, or both."""
    subj, drafts, pos = subject_of(m, s), [], m.end()
    role = tail_object(s, pos, r"as\s+(?:a|an)", allow_phrase=True)
    if role is not None:
        drafts.append(_works_as(subj, role, m))
        pos = role.end
    org = _employer_after(s, pos, "at|with|for")
    if org is not None:
        drafts.append(_works_at(subj, Piece(strip_article(org.name), own(org.said, s.speaker), org.end), m))
    return drafts


def works_as(m: re.Match[str], s: Sentence) -> list[Draft]:
    role = take_phrase(s.text, m.end(), s.limit(m.end()), 4, PREP_STOP)
    if role is None or role.name.split()[0].lower() in NOT_AN_OCCUPATION_START:
        return []
    if "bec" in m[0].lower() and role.name.split()[-1].lower() not in OCCUPATION_HEADS:
        return []  # "became a mom" is not a job
    subj = subject_of(m, s)
    org = _employer_after(s, role.end, "at|for")
    return [_works_as(subj, role, m)] + ([_works_at(subj, org, m)] if org else [])


# where in a workplace a role is done, between the role and its employer: "on the wards", "on nights", "in A&E"
_SPOT = re.compile(r"\s+(?:on|in)\s+(?:the\s+)?(?:[a-z&-]+\s+){0,2}?(?:wards?|shifts?|nights|days|desk|floor|unit|team|"
                   r"department|frontline|front\s+line|line|A&E|ICU|ER|theatres?|kitchen|tills?)\b")


def i_am_a(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "I'm a nurse at Mercy" (a job from a known head noun), "I'm a psychology student"."""
    role = take_phrase(s.text, m.end(), s.limit(m.end()), 4, PREP_STOP)
    if role is None:
        return []
    words = role.name.lower().split()
    if words[-1] not in OCCUPATION_HEADS or words[0] in NOT_AN_OCCUPATION_START:
        return []
    subj = subject_of(m, s)
    if words[-1] != "student":
        spot = _SPOT.match(s.text, role.end)  # "a pharmacist on the wards at X": where in the workplace, then the employer
        org = _employer_after(s, spot.end() if spot else role.end, "at|for", allow_phrase=False)  # "a guard for the team"
        return [_works_as(subj, role, m)] + ([_works_at(subj, org, m)] if org else [])
    drafts = []
    if len(words) > 1:
        topic = " ".join(role.name.split()[:-1])
        drafts.append(Draft(subj, "STUDIES", topic, f"{subj} studies {topic}", "state", WORK,
                            span=match_span(m, role.end)))
    school = tail_object(s, role.end, "at|in", allow_phrase=False)
    if school is not None:
        drafts.append(Draft(subj, "STUDIES_AT", school.name, f"{subj} studies at {school.said}", "state", WORK, True,
                            span=match_span(m, school.end)))
    return drafts


_LEFT_VERBS = (("resign", "resigned from"), ("retire", "retired from"), ("fired", "was fired from"),
               ("laid off", "was laid off from"), ("let go", "was let go from"), ("quit", "quit"),
               ("left", "left"), ("lost", "lost"))


def left_job(m: re.Match[str], s: Sentence) -> list[Draft]:
    """Leaving a job is an event; it ends WORKS_AT at the employer, when named."""
    low = m[0].lower()
    verb = next(v for key, v in _LEFT_VERBS if key in low)
    subj, named_org = subject_of(m, s), m.re is not LEFT_JOB.pattern
    org = take_org(s, m.end(), lower=m.re is LEFT_THE.pattern) if named_org else _employer_after(
        s, m.end(), "at|with|from|in")
    if org is not None:
        org = Piece(strip_article(org.name), own(org.said, s.speaker), org.end)
    if org is None:
        return [] if named_org else [Draft(subj, "LEFT_JOB", "job", f"{subj} {verb} a job", "event", WORK,
                                           span=match_span(m, m.end()))]
    if named_org and SCHOOL_WORD.search(org.name):
        return _left_school_or_work(subj, org, match_span(m, org.end))
    said = org.said if named_org else f"the job at {org.said}"
    span = match_span(m, org.end)
    return [Draft(subj, "LEFT_JOB", org.name, f"{subj} {verb} {said}", "event", WORK, span=span),
            Draft(subj, "WORKS_AT", org.name, f"{subj} no longer works at {org.said}", "end", WORK, True, span=span,
                  derived_from=(0,))]


def _named_employer(s: Sentence, pos: int, need_org_word: bool) -> Piece | None:
    org = take_org(s, pos, lower=False)
    if org is None or _NOT_AN_EMPLOYER_NAME.search(org.name) or (need_org_word and not ORG_WORD.search(org.name)):
        return None
    return org


def _left_school_or_work(subj: str, org: Piece, span: tuple[int, int]) -> list[Draft]:
    """ "I quit Arizona State University", "I left McGill University": a student or an employee left it; each
    ending counts only if it closes what is open (closes_only)."""
    return [Draft(subj, "STUDIES_AT", org.name, f"{subj} no longer studies at {org.said}", "end", WORK, True,
                  span=span, closes_only=True),
            Draft(subj, "WORKS_AT", org.name, f"{subj} no longer works at {org.said}", "end", WORK, True, span=span,
                  closes_only=True)]


def left_named(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "I left Fernhill Bank", "after eight years I am leaving Hartwell & Co."."""
    org = _named_employer(s, m.end(), need_org_word=True)
    if org is None:
        org = _named_employer(s, m.end(), need_org_word=False)
        if org is None or not employer_ok(org) or not org.name.endswith("'s"):
            return []
        return _left_school_or_work(subject_of(m, s), org, match_span(m, org.end))  # "I left St. Mary's": if open
    subj, span = subject_of(m, s), match_span(m, org.end)
    if SCHOOL_WORD.search(org.name):
        return _left_school_or_work(subj, org, span)
    return [Draft(subj, "LEFT_JOB", org.name, f"{subj} left {org.said}", "event", WORK, span=span),
            Draft(subj, "WORKS_AT", org.name, f"{subj} no longer works at {org.said}", "end", WORK, True, span=span,
                  derived_from=(0,))]


def let_go(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "Contoso let me go": the speaker left the job at Contoso."""
    org = m["org"]
    if _NOT_AN_EMPLOYER_NAME.search(org):
        return []
    span = match_span(m, m.end())
    return [Draft(s.speaker, "LEFT_JOB", org, f"{s.speaker} was let go from {org}", "event", WORK, span=span),
            Draft(s.speaker, "WORKS_AT", org, f"{s.speaker} no longer works at {org}", "end", WORK, True, span=span,
                  derived_from=(0,))]


def joined(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "I joined Globex in February", "I've started at Van Dijk Logistics as an operations manager"."""
    org = _named_employer(s, m.end(), need_org_word=False)
    if org is None:
        return []
    subj = subject_of(m, s)
    role = tail_object(s, org.end, r"as\s+(?:a|an)")
    return [_works_at(subj, org, m)] + ([_works_as(subj, role, m)] if role else [])


def now_at(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "I'm now at Meridian Health as a nurse practitioner": "at" alone is a place, "as a" makes it a job."""
    org = _named_employer(s, m.end(), need_org_word=False)
    role = tail_object(s, org.end, r"as\s+(?:a|an)") if org else None
    if role is None:
        return []
    subj = subject_of(m, s)
    return [_works_at(subj, org, m), _works_as(subj, role, m)]


def end_work(m: re.Match[str], s: Sentence) -> list[Draft]:
    org = take_org(s, m.end(), lower=m.re is not END_WITH.pattern)
    if org is not None and m.re is END_WITH.pattern and re.search(r"\bwith\s*$", m[0], re.I) and not ORG_WORD.search(
            org.name):
        return []  # "I'm not with Jake anymore" is a relationship (family topic), not an employer
    if org is None or (m.re is not END_WORK.pattern and not s.says_anymore(m.start(), org.end)
                       and "longer" not in m[0].lower()):
        return []
    subj = subject_of(m, s)
    return [Draft(subj, "WORKS_AT", org.name, f"{subj} no longer works at {org.said}", "end", WORK, True,
                  span=match_span(m, org.end))]


RULES: tuple[Rule, ...] = (
    Rule(LEFT_JOB, left_job), Rule(LEFT_ORG, left_job), Rule(LEFT_THE, left_job), Rule(LEFT_NAMED, left_named),
    Rule(END_WORK, end_work), Rule(END_WORK_ANYMORE, end_work), Rule(END_WITH, end_work),
    Rule(JOINED, joined), Rule(STARTED_AT, joined), Rule(NOW_AT, now_at),
    Rule(LET_GO, let_go),
    Rule(JOB, new_job), Rule(WORKS_AT, works_at), Rule(BE_AT, been_at), Rule(EMPLOYED_BY, works_at), Rule(STARTED_WORKING, works_at),
    Rule(HIRED, hired), Rule(WORKS_AS, works_as), Rule(I_AM_A, i_am_a),
)
