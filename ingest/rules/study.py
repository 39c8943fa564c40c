"""Study: subjects, schools, classes and graduating.

STUDIES_AT is single-valued (one school at a time); GRADUATED_FROM is an event
that ends the open STUDIES_AT at that school, and dropping out of one ends it too.
"I'm a psychology student" is read by the work topic's "I'm a <role>" rule.
"""

from __future__ import annotations

import re

from graphmem.ingest.rules.drafts import (
    WORK, Draft, Rule, Sentence, article, match_span, says, subject_of, tail_object, take_org)
from graphmem.ingest.rules.grammar import rule, subject_rule
from graphmem.ingest.rules.text import PREP_STOP, REJECT_OBJECT_START, Piece, take_phrase, take_proper

_AT = re.compile(r"at\s", re.IGNORECASE)

# ------------------------------------------------------------------ patterns

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
GRADUATED = subject_rule("graduated from", "HAVE graduated from", r"got my (?:[\w'-]+\s+)?degree from",
                         r"earned my (?:[\w'-]+\s+)?degree from", "finished (?:uni|university|college|school) at",
                         "HAVE finished (?:uni|university|college|school) at",
                         keywords=("graduated", "degree from", "finished"))
DROPPED_OUT = subject_rule("dropped out of", "HAVE dropped out of", "withdrew from", "HAVE withdrawn from",
                           keywords=("dropped out", "withdr"))


# "I finished my degree at Leeds", "completed my master's at UCL": the studies there are over
_DEGREE_WORDS = r"(?:degree|studies|course|master's|masters|phd|ph\.d\.|bachelor's|diploma|programme|program|doctorate)"
FINISHED = subject_rule("finished", "HAVE finished", "completed", "HAVE completed",
                        tail=rf"\s+(?:my|a|an|the)\s+(?:[\w'-]+\s+){{0,2}}?{_DEGREE_WORDS}\s+(?:at|in)\s+",
                        keywords=("finished", "completed"))
# "I started a master's at King's College London", "I'm doing a PhD at Stanford"
BEGAN_DEGREE = subject_rule("started", "HAVE started", "began", "HAVE begun", "BE starting", "BE doing",
                            "BE pursuing", "enrolled in",
                            tail=rf"\s+(?:a|an|my)\s+(?:[\w'-]+\s+){{0,2}}?{_DEGREE_WORDS}(?:\s+in\s+[\w-]+(?:\s+[\w-]+)?)?"
                                 rf"\s+at\s+", keywords=("start", "began", "begun", "doing", "pursuing", "enrolled"))
# "I'm not a student at St. Andrews anymore", "I no longer study at UCL"
END_STUDY = subject_rule(r"BE no longer (?:a|an) (?:[\w-]+\s+)?student at", r"BE not (?:a|an) (?:[\w-]+\s+)?student at",
                         "no longer study at", "no longer studies at", "DONT study at", "BE not studying at",
                         "BE no longer studying at", "stopped studying at", "HAVE stopped studying at",
                         keywords=("student at", "study at", "studies at", "studying at"))

# "my undergrad is at Uppsala University", "masters is from UCL" (a CV's "undergrad was Uppsala University, fall 2018
# through summer 2021", through the present twin): the speaker's degree ("my", or opening a clause) names the school
DEGREE_AT = rule(r"(?:^|(?<=[,;:.!?-]\s)|\bmy\s+)(?<!'s\s)(?:undergrad(?:uate)?|bachelor'?s|master'?s|masters|phd|doctorate|mba|bsc|msc)\s+"
                 r"(?:degree\s+)?(?:is|'s)\s+(?:at\s+|from\s+)?(?=[A-Z])",
                 ("undergrad", "bachelor", "master", "phd", "doctorate", "mba", "bsc", "msc"))

# ------------------------------------------------------------------ handlers


_STUDY_REJECT = frozenset("for hard a an the with about late together abroad online remotely every all at in here "
                          "there my your lot so really".split())
_SCHOOL = re.compile(r"\b(?:University|College|School|Institute|Academy|Uni|Conservatory|Polytechnic)\b")


def _studies_at(subj: str, school: Piece, m: re.Match[str]) -> Draft:
    return Draft(subj, "STUDIES_AT", school.name, f"{subj} studies at {school.said}", "state", WORK, True,
                 span=match_span(m, school.end))


def study(m: re.Match[str], s: Sentence) -> list[Draft]:
    subj, limit = subject_of(m, s), s.limit(m.end())
    if _AT.match(s.text, m.end()):
        school = tail_object(s, m.end() - 1, "at", allow_phrase=False)
        return [_studies_at(subj, school, m)] if school else []
    topic = take_phrase(s.text, m.end(), limit, 4, PREP_STOP)
    if topic is None or topic.name.split()[0].lower() in _STUDY_REJECT:
        return []
    drafts = [Draft(subj, "STUDIES", topic.name.lower(), f"{says(m, s)} {topic.said}", "state", WORK,
                    span=match_span(m, topic.end))]
    school = tail_object(s, topic.end, "at|in", allow_phrase=False)
    return drafts + ([_studies_at(subj, school, m)] if school else [])


def degree_at(m: re.Match[str], s: Sentence) -> list[Draft]:
    school = take_proper(s.text, m.end(), s.limit(m.end()), allow_lower=False)
    if school is None or not _SCHOOL.search(school.name):
        return []
    # a degree's school is where one studied when: kept only with a stated interval ("my MBA is from Harvard" is held)
    return [Draft(s.speaker, "STUDIES_AT", school.name, f"{s.speaker} studies at {school.said}", "state", WORK, True,
                  span=match_span(m, school.end), bounded_only=True)]


def enrolled(m: re.Match[str], s: Sentence) -> list[Draft]:
    school = take_proper(s.text, m.end(), s.limit(m.end()), allow_lower=False)
    if school is None or ("enrolled" not in m[0].lower() and not _SCHOOL.search(school.name)):
        return []
    return [_studies_at(subject_of(m, s), school, m)]


_CLASS_FILLER = frozenset("new few online free couple lot of bunch more other extra weekly evening".split())


def took_class(m: re.Match[str], s: Sentence) -> list[Draft]:
    topic = " ".join(w for w in m["topic"].split() if w.lower() not in _CLASS_FILLER)
    if not topic or topic.split()[0].lower() in REJECT_OBJECT_START:
        return []
    noun = m["noun"].lower()
    said = f"{topic} {noun}" if noun in ("classes", "courses", "lessons") else f"{article(topic)} {topic} {noun}"
    kind = "state" if re.search(r"taking|doing", m[0], re.IGNORECASE) else "event"
    return [Draft(subject_of(m, s), "STUDIES", topic.lower(), f"{says(m, s, m.start('det'))} {said}", kind, WORK,
                  span=match_span(m, m.end()))]


def graduated(m: re.Match[str], s: Sentence) -> list[Draft]:
    school = take_org(s, m.end())
    if school is None:
        return []
    subj, span = subject_of(m, s), match_span(m, school.end)
    return [Draft(subj, "GRADUATED_FROM", school.name, f"{subj} graduated from {school.said}", "event", WORK,
                  span=span),
            Draft(subj, "STUDIES_AT", school.name, f"{subj} no longer studies at {school.said}", "end", WORK, True,
                  span=span, derived_from=(0,))]


def dropped_out(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "I dropped out of Delft University" ends STUDIES_AT there (a school by name only)."""
    school = take_org(s, m.end(), lower=False)
    if school is None or not _SCHOOL.search(school.name):
        return []
    subj = subject_of(m, s)
    return [Draft(subj, "STUDIES_AT", school.name, f"{subj} no longer studies at {school.said}", "end", WORK, True,
                  span=match_span(m, school.end))]


def finished(m: re.Match[str], s: Sentence) -> list[Draft]:
    school = take_org(s, m.end(), lower=False)
    if school is None:
        return []
    subj = subject_of(m, s)
    return [Draft(subj, "STUDIES_AT", school.name, f"{subj} no longer studies at {school.said}", "end", WORK, True,
                  span=match_span(m, school.end))]


def began_degree(m: re.Match[str], s: Sentence) -> list[Draft]:
    school = take_org(s, m.end(), lower=False)
    return [_studies_at(subject_of(m, s), school, m)] if school else []


def end_study(m: re.Match[str], s: Sentence) -> list[Draft]:
    school = take_org(s, m.end(), lower=False)
    low = m[0].lower()
    if school is None or ("longer" not in low and "stopped" not in low and not s.says_anymore(m.start(), school.end)):
        return []
    subj = subject_of(m, s)
    return [Draft(subj, "STUDIES_AT", school.name, f"{subj} no longer studies at {school.said}", "end", WORK, True,
                  span=match_span(m, school.end))]


RULES: tuple[Rule, ...] = (
    Rule(GRADUATED, graduated), Rule(DROPPED_OUT, dropped_out), Rule(FINISHED, finished),
    Rule(END_STUDY, end_study, False), Rule(BEGAN_DEGREE, began_degree),
    Rule(STUDY, study), Rule(ENROLLED, enrolled), Rule(CLASS, took_class), Rule(DEGREE_AT, degree_at),
)
