"""The offline, deterministic extractor: regex rules over the sentences of a turn.

`RuleExtractor` is the default `Extractor` (ingest.extraction) when no LLM is
configured. It trades recall for precision and speed: it states only what a
sentence says in a shape it knows (residence and moves, work, studies, family
and partners, pets, possessions, likes and dislikes, diet and allergies,
plans, events attended) and it runs thousands of turns a second.

How a sentence becomes facts:
1. a question ("...?") states nothing and is skipped;
2. a trigger (`ingest.rule_patterns`) finds a subject and a verb; its handler
   here cuts out the object and drafts facts;
3. a draft takes the time expression of its own clause, or the nearest one
   before it ("Last month, I moved to ..."), resolved against the session time
   (`ingest.dates`); without one, it holds from the session time;
4. hedged statements ("if I lived in Paris", "I wish I had a dog") are
   skipped: if/wish/would/not/never/... earlier in the clause.

Negations end, they never assert: "I don't live in Paris anymore" yields
LIVES_IN Paris with ``valid_at=None`` and ``invalid_at`` = the session time
(or the date said), so fact resolution can close the open LIVES_IN Paris. A
bare "I don't live in Paris" (no "anymore"/"no longer") yields nothing: it may
correct something never said.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cached_property

from graphmem.schema.errors import InvalidInput
from graphmem.ingest import rule_patterns as P
from graphmem.parsing.dates import TimeRange, TimeSpan, find_time_spans, resolve
from graphmem.ingest.extraction import ExtractedEntity, ExtractedFact, Extraction, Extractor, TurnContext

__all__ = ["RuleExtractor", "extract_turn"]

FAMILY, HEALTH, HOME, WORK, DIETARY, PET, FRIEND, LIKE, PLAN, OWN, EVENT = (
    0.9, 0.9, 0.8, 0.8, 0.7, 0.7, 0.6, 0.5, 0.5, 0.5, 0.4)


class RuleExtractor(Extractor):
    """Regex rules, offline and deterministic: the same turns give the same facts.

    Example:
        >>> turn = TurnContext(text="I moved to Shanghai last month.", speaker="Caroline",
        ...                    session_time=datetime(2024, 7, 15, tzinfo=UTC))
        >>> [f.predicate for f in RuleExtractor().extract([turn])[0].facts]
        ['MOVED_TO', 'LIVES_IN']
    """

    name = "rules-v1"

    def extract(self, turns: Sequence[TurnContext]) -> list[Extraction]:
        """One Extraction per turn, in order."""
        return [extract_turn(turn) for turn in turns]


def extract_turn(turn: TurnContext) -> Extraction:
    """The entities and facts of one turn."""
    if not isinstance(turn, TurnContext):
        raise InvalidInput(f"expected a TurnContext, not {type(turn).__name__}")
    session = turn.session_time
    session = session.replace(tzinfo=UTC) if session.tzinfo is None else session.astimezone(UTC)  # naive = UTC
    speaker = " ".join(turn.speaker.split()) or "The speaker"
    sentences = [Sentence(text, speaker) for text in P.split_sentences(turn.text.translate(P.APOSTROPHES))]
    facts: list[ExtractedFact] = []
    seen: dict[tuple, int] = {}
    pet: str | None = None  # species of the last unnamed pet, for "I adopted a pup. His name's Ned."
    for sentence in sentences:
        if sentence.text.endswith("?"):
            continue
        groups = sentence.drafts()
        if pet is not None:
            groups += [[_pet(speaker, pet, m["pname"], f"{speaker} has {_a(pet)} {pet} named {m['pname']}", m)]
                       for m in P.PET_PRONOUN_NAME.pattern.finditer(sentence.text)]
        for drafts in groups:
            _add_group(drafts, sentence, session, facts, seen)
            pet = next((d.object for d in drafts if d.predicate == "HAS_PET" and d.slot is None), pet)
    return Extraction(entities=_entities(sentences, facts, speaker), facts=facts)


@dataclass(frozen=True)
class Draft:
    """A fact before its time is known. ``kind``: state (holds from), event (happens
    at), plan (is planned for) or end (stops holding at)."""

    subject: str
    predicate: str
    object: str
    text: str
    kind: str
    importance: float
    single_valued: bool = False
    slot: str | None = None
    span: tuple[int, int] = (0, 0)
    derived_from: tuple[int, ...] = ()
    dated: bool = True


class Sentence:
    """One sentence, with its time expressions and clause breaks computed once."""

    def __init__(self, text: str, speaker: str) -> None:
        self.text = text
        self.speaker = speaker

    @cached_property
    def spans(self) -> tuple[TimeSpan, ...]:
        return tuple(find_time_spans(self.text))

    @cached_property
    def breaks(self) -> tuple[tuple[int, int], ...]:
        return tuple((m.start(), m.end()) for m in P.CLAUSE_BREAK.finditer(self.text))

    def limit(self, pos: int) -> int:
        """Where an object starting at `pos` must end: at the next time expression."""
        return next((span.start for span in self.spans if span.start >= pos), len(self.text))

    def clause(self, start: int, end: int) -> tuple[int, int]:
        left = max((b_end for _, b_end in self.breaks if b_end <= start), default=0)
        right = min((b_start for b_start, _ in self.breaks if b_start >= end), default=len(self.text))
        return left, right

    def says_anymore(self, start: int, end: int) -> bool:
        """ "anymore" / "no more" after `end` in the clause: "I don't live in Paris anymore"."""
        return P.ANYMORE.search(self.text, end, self.clause(start, end)[1] + 12) is not None

    def hedged(self, start: int) -> bool:
        """A conditional, wish or negation earlier in the clause ("if I lived in Paris")."""
        left = max(self.clause(start, start)[0], start - 120)  # a hedge governs a few words, not a page
        return P.HYPOTHETICAL.search(self.text, left, start) is not None

    def drafts(self) -> list[list[Draft]]:
        """Each handler's drafts in rule order, one list per match."""
        groups, low = [], self.text.lower()
        for (pattern, keywords), handler, guarded in HANDLERS:
            if keywords and not any(k in low for k in keywords):
                continue
            for m in pattern.finditer(self.text):
                if not (guarded and self.hedged(m.start())):
                    drafts = handler(m, self)
                    if drafts:
                        groups.append(drafts)
        return groups


# ------------------------------------------------------------------ assembly


def _add_group(drafts: list[Draft], s: Sentence, session: datetime, facts: list[ExtractedFact], seen: dict) -> None:
    """Finish drafts into facts; a repeat is not added again, and a fact derived
    from it points at the earlier copy."""
    index: list[int] = []
    for draft in drafts:
        fact = _finish(draft, _when(draft, s, session), session, [index[i] for i in draft.derived_from])
        expires = _until(draft, s, session)
        if expires is not None and draft.kind != "end":
            fact = fact.model_copy(update={"expires_at": expires})
        key = (fact.subject.lower(), fact.predicate, fact.object.lower(), fact.valid_at, fact.invalid_at)
        if key not in seen:
            seen[key] = len(facts)
            facts.append(fact)
        index.append(seen[key])


def _when(draft: Draft, s: Sentence, session: datetime) -> TimeRange | None:
    """The range of the time expression that belongs to the draft, if any."""
    if not draft.dated or not s.spans:
        return None
    left, right = s.clause(*draft.span)
    inside = [span for span in s.spans if span.start >= left and span.end <= right]
    # a fronted expression ("Last month, I moved ...") counts if it opens the sentence;
    # for a state only "since ..." does: "Yesterday, at the theater, Sam loves theater" is no start date
    opening = [span for span in s.spans[:1] if span.end <= draft.span[0] and s.clause(span.start, span.end)[0] == 0
               and (draft.kind != "state" or span.expression.lower().startswith("since"))]
    for span in inside or opening:
        if UNTIL.match(span.expression):
            continue
        found = resolve(span.expression, session, "future" if draft.kind == "plan" else "past")
        if found is not None:
            return found
    return None


UNTIL = re.compile(r"^\s*(until|till|til)\b", re.I)


def _until(draft: Draft, s: Sentence, session: datetime) -> datetime | None:
    """'... until Friday': the fact holds until then, so it expires then (ARCHITECTURE §7)."""
    if not s.spans:
        return None
    left, right = s.clause(*draft.span)
    for span in s.spans:
        if span.start >= left and span.end <= right and UNTIL.match(span.expression):
            found = resolve(UNTIL.sub("", span.expression).strip() or span.expression, session, "future")
            if found is not None:
                return found.end or found.start
    return None


def _finish(draft: Draft, when: TimeRange | None, session: datetime, derived: list[int]) -> ExtractedFact:
    """States hold from `when` (else the session), events happen at it, plans are
    for it, endings close at it; the sentence names the resolved date."""
    text = draft.text
    if when is not None:
        if when.open_ended or draft.kind in ("state", "end"):
            text += f" (since {when.label()})"
        else:
            text += f" {'on' if when.granularity == 'day' else 'in'} {when.label()}"
    moment = when.start if when is not None else session
    return ExtractedFact(
        subject=draft.subject, predicate=draft.predicate, object=draft.object,
        fact=text[0].upper() + text[1:] + ".",
        valid_at=None if draft.kind == "end" else moment,
        invalid_at=moment if draft.kind == "end" else None,
        single_valued=draft.single_valued, slot=draft.slot, importance=draft.importance, derived_from=derived,
    )


_OBJECT_TYPES = {
    **dict.fromkeys(("LIVES_IN", "MOVED_TO", "MOVED_FROM", "LIVED_IN", "IS_FROM", "GREW_UP_IN", "BORN_IN",
                     "VISITED"), "Place"),
    **dict.fromkeys(("WORKS_AT", "STUDIES_AT", "GRADUATED_FROM"), "Organization"),
    **dict.fromkeys({pred for pred, _, _ in P.RELATIONS.values()}, "Person"),
    "HAS_PET": "Pet", "ATTENDED": "Event", "LEFT_JOB": "Organization",
}


def _entities(sentences: list[Sentence], facts: list[ExtractedFact], speaker: str) -> list[ExtractedEntity]:
    """Proper nouns of the turn, then every fact's subject and object, each once."""
    types = {fact.subject: "Person" for fact in facts}
    for fact in facts:
        types.setdefault(fact.object, _OBJECT_TYPES.get(fact.predicate, "Entity"))
    found: dict[str, ExtractedEntity] = {}
    for name in P.proper_nouns([s.text for s in sentences], {speaker, *types}):
        found.setdefault(name.casefold(), ExtractedEntity(name=name, entity_type=types.get(name, "Entity")))
    for name, entity_type in types.items():
        known = found.get(name.casefold())
        if known is None or known.entity_type == "Entity":
            found[name.casefold()] = ExtractedEntity(name=known.name if known else name, entity_type=entity_type)
    return list(found.values())


# ------------------------------------------------------------------ handlers

Handler = Callable[[re.Match[str], Sentence], list[Draft]]
_IRREGULAR_PAST = frozenset(
    "went got took left lost found bought became grew came gave made ran began quit put set cut split broke "
    "spoke met saw had did was were said knew thought felt kept sent spent won wrote".split())
_BE_HAVE = {"'m": "is", "am": "is", "'re": "is", "are": "is", "'ve": "has", "have": "has", "'ll": "will",
            "don't": "doesn't", "do": "does", "were": "was"}
_ADV_WORDS = frozenset(re.findall(r"[a-z']+", P.ADV))


def _subject(m: re.Match[str], s: Sentence) -> str:
    """Who a statement is about: the speaker for I/we, a named or unnamed relative, a name."""
    if m["subj"].lower() in ("i", "we"):
        return s.speaker
    if m["srel"]:
        return m["srelname"] or f"{s.speaker}'s {P.RELATIONS[m['srel'].lower()][1]}"
    return m["sname"]


def _says(m: re.Match[str], s: Sentence, end: int | None = None) -> str:
    """Subject and verb in the third person: "I've always loved" -> "Mel has always loved"."""
    verb = s.text[m.end("subj"):m.end() if end is None else end].split()
    first_person = m["subj"].lower() in ("i", "we")
    for i, word in enumerate(verb):
        low = word.lower()
        if low in _ADV_WORDS and i + 1 < len(verb):
            if low in ("both", "all"):
                verb[i] = ""
            continue
        if first_person and low in _BE_HAVE:
            verb[i] = _BE_HAVE[low]
        elif first_person and low.isalpha() and not low.endswith("ed") and low not in _IRREGULAR_PAST | {
                "can", "will", "never", "used", "no"}:
            verb[i] = low + ("es" if low.endswith(("s", "sh", "ch", "x", "z", "o")) else "s") \
                if not re.search(r"[^aeiou]y$", low) else low[:-1] + "ies"
        break
    return " ".join([_subject(m, s), *filter(None, verb)]).replace(" 's", "'s")


_AT = re.compile(r"at\s", re.IGNORECASE)
_AND = re.compile(r"\s+(?:and|or|&)\b", re.IGNORECASE)
_TO = re.compile(r"to\s+", re.IGNORECASE)
_SEE = re.compile(r"(?:see|watch)\s+", re.IGNORECASE)
_NEXT_WORD = re.compile(r"\s+([\w-]+)")


def _a(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def _span(m: re.Match[str], end: int) -> tuple[int, int]:
    return m.start(), max(end, m.end())


def _tail(s: Sentence, pos: int, lead: str, allow_phrase: bool = True) -> P.Piece | None:
    """An object introduced by `lead` ("at", "as a") right after `pos`."""
    m = re.compile(rf"\s+(?:{lead})\s+", re.IGNORECASE).match(s.text, pos)
    if not m:
        return None
    limit = s.limit(m.end())
    return P.take_proper(s.text, m.end(), limit, allow_lower=False) or (
        P.take_phrase(s.text, m.end(), limit, 4, P.PREP_STOP) if allow_phrase else None)


def place(predicate: str, template: str, kind: str = "state", single: bool = False, lower: bool = False,
          anymore: bool = False) -> Handler:
    """Handler for "<subject> <verb> <place>" rules."""
    def handle(m: re.Match[str], s: Sentence) -> list[Draft]:
        obj = P.take_proper(s.text, m.end(), s.limit(m.end()), allow_lower=lower)
        if obj is None or (anymore and not s.says_anymore(m.start(), obj.end)):
            return []
        subj = _subject(m, s)
        return [Draft(subj, predicate, obj.name, template.format(s=subj, o=obj.said), kind, HOME, single,
                      span=_span(m, obj.end))]
    return handle


def grew_up(m: re.Match[str], s: Sentence) -> list[Draft]:
    born = "born" in m[0].lower() and "raised" not in m[0].lower()
    return place("BORN_IN" if born else "GREW_UP_IN", "{s} was born in {o}" if born else "{s} grew up in {o}")(m, s)


def moved(m: re.Match[str], s: Sentence) -> list[Draft]:
    """A move is an event, and the residence it starts is derived from it."""
    dest = P.take_proper(s.text, m.end(), s.limit(m.end()), allow_lower=False)
    if dest is None:
        return []
    subj, span = _subject(m, s), _span(m, dest.end)
    drafts = [Draft(subj, "MOVED_TO", dest.name, f"{subj} moved to {dest.said}", "event", HOME, span=span),
              Draft(subj, "LIVES_IN", dest.name, f"{subj} lives in {dest.said}", "state", HOME, True, span=span,
                    derived_from=(0,))]
    src = P.take_proper(s.text, m.start("src"), m.end("src"), allow_lower=False) if m["src"] else None
    if src is not None:
        drafts.append(Draft(subj, "LIVES_IN", src.name, f"{subj} no longer lives in {src.said}", "end", HOME, True,
                            span=span, derived_from=(0,)))
    return drafts


def moved_from(m: re.Match[str], s: Sentence) -> list[Draft]:
    src = P.take_proper(s.text, m.end(), s.limit(m.end()), allow_lower=False)
    if src is None:
        return []
    subj, span = _subject(m, s), _span(m, src.end)
    return [Draft(subj, "MOVED_FROM", src.name, f"{subj} moved from {src.said}", "event", HOME, span=span),
            Draft(subj, "LIVES_IN", src.name, f"{subj} no longer lives in {src.said}", "end", HOME, True, span=span,
                  derived_from=(0,))]


def moving(m: re.Match[str], s: Sentence) -> list[Draft]:
    dest = P.take_proper(s.text, m.end(), s.limit(m.end()), allow_lower=False)
    if dest is None:
        return []
    subj = _subject(m, s)
    return [Draft(subj, "PLANS", f"move to {dest.name}", f"{subj} plans to move to {dest.said}", "plan", PLAN,
                  span=_span(m, dest.end))]


_WORK_REJECT = frozenset("home night nights weekends myself least times once first all hard remote remotely "
                         "living it the moment".split())


def _org(s: Sentence, pos: int, lower: bool = True) -> P.Piece | None:
    limit = s.limit(pos)
    obj = P.take_proper(s.text, pos, limit, allow_lower=False) or (
        P.take_phrase(s.text, pos, limit, 4, P.PREP_STOP) if lower else None)
    if obj is None or P.strip_article(obj.name).split()[0].lower() in _WORK_REJECT:
        return None
    return P.Piece(P.strip_article(obj.name), P.own(obj.said, s.speaker), obj.end)


def _works_at(subj: str, org: P.Piece, m: re.Match[str], prep: str = "at") -> Draft:
    return Draft(subj, "WORKS_AT", org.name, f"{subj} works {prep} {org.said}", "state", WORK, True,
                 span=_span(m, org.end))


def _works_as(subj: str, role: P.Piece, m: re.Match[str]) -> Draft:
    name = P.strip_article(role.name)
    return Draft(subj, "WORKS_AS", name, f"{subj} works as {_a(name)} {name}", "state", WORK, True,
                 span=_span(m, role.end))


def works_at(m: re.Match[str], s: Sentence) -> list[Draft]:
    prep = (m.groupdict().get("prep") or "at").lower()
    org = _org(s, m.end())
    if org is None:
        return []
    subj = _subject(m, s)
    drafts = [_works_at(subj, org, m, "for" if prep == "for" else "at")]
    role = _tail(s, org.end, r"as\s+(?:a|an)")
    return drafts + ([_works_as(subj, role, m)] if role else [])


def hired(m: re.Match[str], s: Sentence) -> list[Draft]:
    org = _org(s, m.end(), lower=False)
    return [_works_at(_subject(m, s), org, m)] if org else []


def new_job(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "I got a job as a nurse at Mercy Hospital": a role, a workplace, or both."""
    subj, drafts, pos = _subject(m, s), [], m.end()
    role = _tail(s, pos, r"as\s+(?:a|an)", allow_phrase=True)
    if role is not None:
        drafts.append(_works_as(subj, role, m))
        pos = role.end
    org = _tail(s, pos, "at|with|for")
    if org is not None and org.name.split()[0].lower() not in _WORK_REJECT:
        drafts.append(_works_at(subj, P.Piece(P.strip_article(org.name), P.own(org.said, s.speaker), org.end), m))
    return drafts


def works_as(m: re.Match[str], s: Sentence) -> list[Draft]:
    role = P.take_phrase(s.text, m.end(), s.limit(m.end()), 4, P.PREP_STOP)
    if role is None or role.name.split()[0].lower() in P.NOT_AN_OCCUPATION_START:
        return []
    if "bec" in m[0].lower() and role.name.split()[-1].lower() not in P.OCCUPATION_HEADS:
        return []  # "became a mom" is not a job
    subj = _subject(m, s)
    org = _tail(s, role.end, "at|for")
    return [_works_as(subj, role, m)] + ([_works_at(subj, org, m)] if org else [])


def i_am_a(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "I'm a nurse at Mercy" (a job from a known head noun), "I'm a psychology student"."""
    role = P.take_phrase(s.text, m.end(), s.limit(m.end()), 4, P.PREP_STOP)
    if role is None:
        return []
    words = role.name.lower().split()
    if words[-1] not in P.OCCUPATION_HEADS or words[0] in P.NOT_AN_OCCUPATION_START:
        return []
    subj = _subject(m, s)
    if words[-1] != "student":
        org = _tail(s, role.end, "at|for", allow_phrase=False)  # "a guard for the team" names no employer
        return [_works_as(subj, role, m)] + ([_works_at(subj, org, m)] if org else [])
    drafts = []
    if len(words) > 1:
        topic = " ".join(role.name.split()[:-1])
        drafts.append(Draft(subj, "STUDIES", topic, f"{subj} studies {topic}", "state", WORK, span=_span(m, role.end)))
    school = _tail(s, role.end, "at|in", allow_phrase=False)
    if school is not None:
        drafts.append(Draft(subj, "STUDIES_AT", school.name, f"{subj} studies at {school.said}", "state", WORK, True,
                            span=_span(m, school.end)))
    return drafts


_LEFT_VERBS = (("resign", "resigned from"), ("retire", "retired from"), ("fired", "was fired from"),
               ("laid off", "was laid off from"), ("let go", "was let go from"), ("quit", "quit"),
               ("left", "left"), ("lost", "lost"))


def left_job(m: re.Match[str], s: Sentence) -> list[Draft]:
    """Leaving a job is an event; it ends WORKS_AT at the employer, when named."""
    low = m[0].lower()
    verb = next(v for key, v in _LEFT_VERBS if key in low)
    subj, named_org = _subject(m, s), m.re is P.LEFT_ORG.pattern
    org = _org(s, m.end(), lower=False) if named_org else _tail(s, m.end(), "at|with|from|in")
    if org is not None:
        org = P.Piece(P.strip_article(org.name), P.own(org.said, s.speaker), org.end)
    if org is None:
        return [] if named_org else [Draft(subj, "LEFT_JOB", "job", f"{subj} {verb} a job", "event", WORK,
                                           span=_span(m, m.end()))]
    said = org.said if named_org else f"the job at {org.said}"
    span = _span(m, org.end)
    return [Draft(subj, "LEFT_JOB", org.name, f"{subj} {verb} {said}", "event", WORK, span=span),
            Draft(subj, "WORKS_AT", org.name, f"{subj} no longer works at {org.said}", "end", WORK, True, span=span,
                  derived_from=(0,))]


def end_work(m: re.Match[str], s: Sentence) -> list[Draft]:
    org = _org(s, m.end())
    if org is None or (m.re is P.END_WORK_ANYMORE.pattern and not s.says_anymore(m.start(), org.end)):
        return []
    subj = _subject(m, s)
    return [Draft(subj, "WORKS_AT", org.name, f"{subj} no longer works at {org.said}", "end", WORK, True,
                  span=_span(m, org.end))]


_STUDY_REJECT = frozenset("for hard a an the with about late together abroad online remotely every all at in here "
                          "there my your lot so really".split())
_SCHOOL = re.compile(r"\b(?:University|College|School|Institute|Academy|Uni|Conservatory|Polytechnic)\b")


def _studies_at(subj: str, school: P.Piece, m: re.Match[str]) -> Draft:
    return Draft(subj, "STUDIES_AT", school.name, f"{subj} studies at {school.said}", "state", WORK, True,
                 span=_span(m, school.end))


def study(m: re.Match[str], s: Sentence) -> list[Draft]:
    subj, limit = _subject(m, s), s.limit(m.end())
    if _AT.match(s.text, m.end()):
        school = _tail(s, m.end() - 1, "at", allow_phrase=False)
        return [_studies_at(subj, school, m)] if school else []
    topic = P.take_phrase(s.text, m.end(), limit, 4, P.PREP_STOP)
    if topic is None or topic.name.split()[0].lower() in _STUDY_REJECT:
        return []
    drafts = [Draft(subj, "STUDIES", topic.name.lower(), f"{_says(m, s)} {topic.said}", "state", WORK,
                    span=_span(m, topic.end))]
    school = _tail(s, topic.end, "at|in", allow_phrase=False)
    return drafts + ([_studies_at(subj, school, m)] if school else [])


def enrolled(m: re.Match[str], s: Sentence) -> list[Draft]:
    school = P.take_proper(s.text, m.end(), s.limit(m.end()), allow_lower=False)
    if school is None or ("enrolled" not in m[0].lower() and not _SCHOOL.search(school.name)):
        return []
    return [_studies_at(_subject(m, s), school, m)]


_CLASS_FILLER = frozenset("new few online free couple lot of bunch more other extra weekly evening".split())


def took_class(m: re.Match[str], s: Sentence) -> list[Draft]:
    topic = " ".join(w for w in m["topic"].split() if w.lower() not in _CLASS_FILLER)
    if not topic or topic.split()[0].lower() in P.REJECT_OBJECT_START:
        return []
    noun = m["noun"].lower()
    said = f"{topic} {noun}" if noun in ("classes", "courses", "lessons") else f"{_a(topic)} {topic} {noun}"
    kind = "state" if re.search(r"taking|doing", m[0], re.IGNORECASE) else "event"
    return [Draft(_subject(m, s), "STUDIES", topic.lower(), f"{_says(m, s, m.start('det'))} {said}", kind, WORK,
                  span=_span(m, m.end()))]


def graduated(m: re.Match[str], s: Sentence) -> list[Draft]:
    school = _org(s, m.end())
    if school is None:
        return []
    subj = _subject(m, s)
    return [Draft(subj, "GRADUATED_FROM", school.name, f"{subj} graduated from {school.said}", "event", WORK,
                  span=_span(m, school.end))]
def _relative(owner: str, rel_word: str, name: str | None, m: re.Match[str], dated: bool = False) -> list[Draft]:
    """HAS_SISTER / MARRIED_TO / FRIEND_OF ... for "my sister Anna", "Anna is my sister"."""
    predicate, noun, single = P.RELATIONS[rel_word.lower()]
    if name is None and predicate == "FRIEND_OF":
        return []  # "I have a friend" names nobody
    if name == owner:
        return []
    obj = name or f"{owner}'s {noun}"
    if predicate == "MARRIED_TO":
        text = f"{owner} is married to {obj}" if name else f"{owner} has a {noun}"
    elif predicate == "PARTNER_OF":
        text = f"{owner}'s {noun} is {obj}" if name else f"{owner} has a {noun}"
    elif predicate == "FRIEND_OF":
        text = f"{owner} is friends with {obj}"
    else:
        text = f"{owner} has {_a(noun)} {noun} named {name}" if name else f"{owner} has {_a(noun)} {noun}"
    importance = FRIEND if predicate == "FRIEND_OF" else FAMILY
    return [Draft(owner, predicate, obj, text, "state", importance, single, span=_span(m, m.end()), dated=dated)]


def family_named(m: re.Match[str], s: Sentence) -> list[Draft]:
    if m[0].rstrip(m["name"]).rstrip().endswith(",") and _AND.match(s.text, m.end()):
        return []  # "my girlfriend, Toby and I": a list, not "my girlfriend, Toby,"
    return _relative(s.speaker if m["my"] else m["owner"], m["rel"], m["name"], m)


def family_have(m: re.Match[str], s: Sentence) -> list[Draft]:
    return _relative(_subject(m, s), m["rel"], m["name"], m)


def partner(m: re.Match[str], s: Sentence) -> list[Draft]:
    name = P.NAME_AT.match(s.text, m.end())
    if name is None:
        return []
    subj, low = _subject(m, s), m[0].lower()
    ended = m.re is P.BREAKUP.pattern
    married = "marri" in low or "divorc" in low or "separat" in low
    predicate = "MARRIED_TO" if married else "PARTNER_OF"
    if ended:
        text = f"{subj} is no longer {'married to' if married else 'in a relationship with'} {name[0]}"
    else:
        text = f"{subj} is {'married to' if married else 'engaged to' if 'engaged' in low else 'dating'} {name[0]}"
    return [Draft(subj, predicate, name[0], text, "end" if ended else "state", FAMILY, True, span=_span(m, name.end()))]


_PET_PRE_REJECT = frozenset("has have had got is was are were and with to for of named called gets loves hot stuffed "
                            "toy plush robot corn sea sausage prairie top under".split())
_PET_DETERMINERS = frozenset("a an another one two three four five six some new the my our this his her their".split())


def _species(word: str) -> str:
    w = word.lower()
    return P.PETS.get(w) or P.PETS.get(w.removesuffix("s"), w.removesuffix("s"))


def _pet_ok(m: re.Match[str], s: Sentence, need_determiner: bool) -> bool:
    """Not "a hot dog", "my sister has a dog", "a dog allergy"."""
    pre = m["pre"].lower().split()
    if any(w in _PET_PRE_REJECT for w in pre):
        return False
    if need_determiner and pre and not (pre[0] in _PET_DETERMINERS or pre[0].isdigit()):
        return False
    after = _NEXT_WORD.match(s.text, m.end("species"))
    return not (after and after[1].lower() in P.NOT_A_PET_AFTER)


def _pet(subj: str, species: str, name: str, text: str, m: re.Match[str]) -> Draft:
    """Named pets: one name per species slot, so a rename supersedes the old name."""
    return Draft(subj, "HAS_PET", name, text, "state", PET, True, f"PET:{species}", span=_span(m, m.end()))


def pet_have(m: re.Match[str], s: Sentence) -> list[Draft]:
    if not _pet_ok(m, s, need_determiner=True):
        return []
    subj, species = _subject(m, s), _species(m["species"])
    if m["pname"]:
        return [_pet(subj, species, m["pname"], f"{subj} has {_a(species)} {species} named {m['pname']}", m)]
    said = P.own(f"{m['pre']}{m['species']}", s.speaker)
    return [Draft(subj, "HAS_PET", species, f"{subj} has {said}", "state", PET, span=_span(m, m.end()))]


def pet_named(m: re.Match[str], s: Sentence) -> list[Draft]:
    if not _pet_ok(m, s, need_determiner=False):
        return []
    species, name = _species(m["species"]), m["pname"]
    return [_pet(s.speaker, species, name, f"{s.speaker} has {_a(species)} {species} named {name}", m)]


def pet_renamed(m: re.Match[str], s: Sentence) -> list[Draft]:
    if not _pet_ok(m, s, need_determiner=False):
        return []
    subj = _subject(m, s) if "subj" in m.re.groupindex else s.speaker
    species, name = _species(m["species"]), m["pname"]
    return [_pet(subj, species, name, f"{subj}'s {species} is now called {name}", m)]


_NEW_REJECT = frozenset("job position role hobby friend friends idea project perspective outlook appreciation look "
                        "goal habit skill experience chapter beginning start life favorite challenge "
                        "record level addition member baby lease opportunity".split())


def owns(m: re.Match[str], s: Sentence) -> list[Draft]:
    quantity = _QUANTITY.match(s.text, m.end())
    obj = P.take_phrase(s.text, quantity.end() if quantity else m.end(), s.limit(m.end()), 4, P.PREP_STOP)
    if obj is None:
        return []
    name = P.strip_article(P.own(obj.name, s.speaker))
    if not name or name.split()[-1].lower() in _NEW_REJECT or _species(name.split()[-1]) in P.PETS.values():
        return []
    return [Draft(_subject(m, s), "OWNS", name, f"{_says(m, s)} {P.own(obj.said, s.speaker)}",
                  "event" if re.search(r"\b(?:bought|got|gotten|purchased)\b", m[0], re.I) else "state", OWN,
                  span=_span(m, obj.end))]


_VERB_REJECT = frozenset("see hear know think say help be have get make keep try do chat talk share imagine "
                         "believe remind tell give hear read_about".split())
_REACTION = re.compile(
    r"^(?:the|your|that|this)\s+(?:photo|pic|pics|picture|pictures|painting|colou?rs?|idea|way|fact|thought|"
    r"feeling|sound|vibe|vibes|energy|support|attitude|name|look|details?|story|message|video|quote|spirit|"
    r"design|shot|view|smile|enthusiasm|passion|sound|part|moment|pics)\b|^(?:idea|way|fact)\b",
    re.IGNORECASE,
)


def _preference(predicate: str, m: re.Match[str], s: Sentence, owner: str | None = None) -> list[Draft]:
    """LIKES/DISLIKES: one slot per thing liked, so "I don't like sushi anymore" can
    supersede "I love sushi" while likes of different things coexist."""
    pos, limit = m.end(), s.limit(m.end())
    to = _TO.match(s.text, pos) if predicate == "LIKES" and owner is None else None
    obj = P.take_phrase(s.text, to.end() if to else pos, limit, 6, P.LIKE_STOP)
    if obj is None or _REACTION.match(obj.said):
        return []
    said = P.own(obj.said, s.speaker)
    if to:
        verb, *rest = said.split()
        if verb.lower() in _VERB_REJECT:
            return []
        name, said = " ".join([P.to_gerund(verb), *rest]), f"to {said}"
    else:
        name = P.strip_article(said)
    if owner is not None:
        subj, text = owner, f"{owner}'s favorite {m['cat']} is {said}"
    else:
        subj, text = _subject(m, s), f"{_says(m, s)} {said}"
    return [Draft(subj, predicate, name, text, "state", LIKE, True, f"PREF:{name.lower()}", span=_span(m, obj.end))]


def likes(m: re.Match[str], s: Sentence) -> list[Draft]:
    return _preference("LIKES", m, s)


def dislikes(m: re.Match[str], s: Sentence) -> list[Draft]:
    return _preference("DISLIKES", m, s)


def favorite(m: re.Match[str], s: Sentence) -> list[Draft]:
    if m["cat"].split()[-1].lower() in ("part", "thing", "moment", "memory", "bit", "one", "time", "way"):
        return []  # "my favorite part was ..." reacts to something, it is no preference
    return _preference("LIKES", m, s, owner=s.speaker if m["my"] else m["owner"])


def _diet_name(word: str) -> str:
    low = word.lower()
    return P.DIET_NORMAL.get(low, low)


def diet(m: re.Match[str], s: Sentence) -> list[Draft]:
    subj, name = _subject(m, s), _diet_name(m["diet"])
    on_a = m.re is P.DIET_ON.pattern or name in ("keto", "paleo")
    text = f"{subj} is on {_a(name)} {name} diet" if on_a else f"{subj} is {name}"
    return [Draft(subj, "DIET", name, text, "state", HEALTH, True, "DIET", span=_span(m, m.end()))]


def end_diet(m: re.Match[str], s: Sentence) -> list[Draft]:
    low = m[0].lower()
    if re.search(r"\bnot\b", low) and not s.says_anymore(m.start(), m.end()):
        return []
    subj, name = _subject(m, s), _diet_name(m["diet"])
    return [Draft(subj, "DIET", name, f"{subj} is no longer {name}", "end", HEALTH, True, "DIET",
                  span=_span(m, m.end()))]


_ALLERGY_STOP = re.compile(r"[.;!?()]|\s[-\u2013\u2014]+\s|\s+(?:but|because|so|which|that|since|when|if|though|"
                           r"although|now|anymore|too|as)\b", re.IGNORECASE)
_LIST_SEP = re.compile(r",\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+", re.IGNORECASE)


def allergy(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "allergic to peanuts, shellfish and cats" -> one ALLERGIC_TO per item."""
    segment = s.text[m.end():min(s.limit(m.end()), m.end() + P.MAX_OBJECT_CHARS)]
    stop = _ALLERGY_STOP.search(segment)
    segment = segment[:stop.start()] if stop else segment
    subj, drafts = _subject(m, s), []
    for item in _LIST_SEP.split(segment):
        words = item.split()
        if not words or len(words) > 3 or words[0].lower() in P.REJECT_OBJECT_START:
            continue
        name = P.strip_article(" ".join(words)).lower()
        drafts.append(Draft(subj, "ALLERGIC_TO", name, f"{subj} is allergic to {name}", "state", HEALTH,
                            span=_span(m, m.end() + len(segment))))
    return drafts


def allergy_noun(m: re.Match[str], s: Sentence) -> list[Draft]:
    subj, item = _subject(m, s), m["item"].lower()
    if item.split()[0] in P.REJECT_OBJECT_START:
        return []
    return [Draft(subj, "ALLERGIC_TO", item, f"{subj} has {_a(item)} {item} allergy", "state", HEALTH,
                  span=_span(m, m.end()))]


def lactose(m: re.Match[str], s: Sentence) -> list[Draft]:
    subj = _subject(m, s)
    return [Draft(subj, "INTOLERANT_TO", "lactose", f"{subj} is lactose intolerant", "state", HEALTH,
                  span=_span(m, m.end()))]


_QUANTITY = re.compile(r"(?:a\s+(?:little\s+)?bit\s+of|a\s+little|a\s+lot\s+of|lots\s+of|some|any|more|less)\s+",
                       re.IGNORECASE)
_EAT_REJECT = frozenset("breakfast lunch dinner out well healthy healthier clean right something anything "
                        "everything much more less too enough it that".split())


def _food(predicate: str, m: re.Match[str], s: Sentence) -> list[Draft]:
    """AVOIDS/EATS share the slot DIET:<food>, so "I eat spicy food now" supersedes
    "I don't eat spicy food"; verbs other than eat/drink need a food word."""
    quantity = _QUANTITY.match(s.text, m.end())
    obj = P.take_phrase(s.text, quantity.end() if quantity else m.end(), s.limit(m.end()), 4, P.PREP_STOP)
    if obj is None:
        return []
    if not re.search(r"\b(?:eat|eats|eating|drink)\b", m[0], re.I) and not P.FOOD_HINT.search(obj.said):
        return []
    food = P.normalise_food(obj.said)
    if not food or food.split()[0] in _EAT_REJECT:
        return []
    subj = _subject(m, s)
    verb = "avoids" if predicate == "AVOIDS" else "eats"
    return [Draft(subj, predicate, food, f"{subj} {verb} {food}", "state", DIETARY, True, f"DIET:{food}",
                  span=_span(m, obj.end))]


def avoids(m: re.Match[str], s: Sentence) -> list[Draft]:
    return _food("AVOIDS", m, s)


def eats(m: re.Match[str], s: Sentence) -> list[Draft]:
    return _food("EATS", m, s)


_PLAN_REJECT = frozenset("be have keep try need do make let tell send think say bet miss love like see check talk "
                         "chat catch text call get give show share ask wait sleep rest probably never always not "
                         "also just still really so too update definitely stay".split())
_DETERMINER = re.compile(r"(?:a|an|the|my|our|this|that|some)\b", re.IGNORECASE)


def plan(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "I'm planning to visit Japan next month" -> PLANS "visit Japan", for August."""
    obj = P.take_phrase(s.text, m.end(), s.limit(m.end()), 7)
    if obj is None or obj.name.split()[0].lower() in _PLAN_REJECT:
        return []
    said = P.own(obj.said, s.speaker)
    future = m.re is P.PLAN_FUTURE.pattern
    if future:
        left, right = s.clause(m.start(), obj.end)
        if not any(left <= span.start and span.end <= right for span in s.spans):
            return []  # "I'll" and "going to" are too common to mean a plan without a date
        said = f"go to {said}" if _DETERMINER.match(said) else said
    subj = _subject(m, s)
    text = f"{subj} plans to {said}" if future else f"{_says(m, s)} {said}"
    return [Draft(subj, "PLANS", P.strip_article(said), text, "plan", PLAN, span=_span(m, obj.end))]


_ATTEND_REJECT = re.compile(
    r"^(?:bed|sleep|work|home|school|it|that|this|there|here|a\s+loss|peace|ease|least|first|the\s+time|"
    r"the\s+moment|the\s+end|my\s+limit|get|grab|buy|pick|help|meet|play|hang|try|do|have|take|make|check|"
    r"the\s+bathroom|the\s+toilet|a\s+point|a\s+stage|a\s+place|a\s+time|war|visit|bring|find|talk)\b",
    re.IGNORECASE,
)


def attended(m: re.Match[str], s: Sentence) -> list[Draft]:
    """Events and visits: "I went to a concert last Saturday", "I visited Paris"."""
    pos = m.end()
    see = _SEE.match(s.text, pos)
    obj = P.take_phrase(s.text, see.end() if see else pos, s.limit(pos), 6, P.PREP_STOP)
    if obj is None or _ATTEND_REJECT.match(obj.said):
        return []
    said = P.own(obj.said, s.speaker)
    proper = all(w[:1].isupper() for w in obj.said.split())
    visit = re.search(r"visit|travel|trip", m[0], re.I) or (proper and re.search(r"went|been", m[0], re.I))
    name = P.strip_article(said)
    verb = _says(m, s) + (" to see" if see else "")
    return [Draft(_subject(m, s), "VISITED" if visit else "ATTENDED", name, f"{verb} {said}", "event", EVENT,
                  span=_span(m, obj.end))]


_NOT_AN_ACTIVITY = frozenset("thinking feeling wondering going being having realizing noticing getting looking "
                             "trying hoping wanting missing doing".split())


def started_doing(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "I started surfing five years ago" -> STARTED "surfing", dated."""
    obj = P.take_phrase(s.text, m.end(), s.limit(m.end()), 5, P.PREP_STOP)
    words = obj.name.lower().split() if obj else []
    if not words or words[0] in _NOT_AN_ACTIVITY or (words[0] == "working" and words[1:2] != ["out"]):
        return []  # "started working at Stripe" is a job, left to WORKS_AT
    said = P.own(obj.said, s.speaker)
    return [Draft(_subject(m, s), "STARTED", said, f"{_says(m, s)} {said}", "event", LIKE, span=_span(m, obj.end))]


def went_doing(m: re.Match[str], s: Sentence) -> list[Draft]:
    act = m["act"].lower()
    if act in ("going", "being", "having", "missing", "nothing", "something", "everything", "anything", "thing",
               "king", "ring", "spring", "evening", "morning", "during", "bring"):
        return []
    return [Draft(_subject(m, s), "ATTENDED", act, f"{_says(m, s, m.start('act'))} {act}", "event", EVENT,
                  span=_span(m, m.end()))]


HANDLERS: tuple[tuple[P.Trigger, Handler, bool], ...] = (
    # (trigger, handler, skip when hedged)
    (P.MOVED, moved, True), (P.MOVED_FROM, moved_from, True), (P.MOVING, moving, True),
    (P.LIVES_IN, place("LIVES_IN", "{s} lives in {o}", single=True, lower=True), True),
    (P.LIVED_IN, place("LIVED_IN", "{s} used to live in {o}"), True),
    (P.GREW_UP, grew_up, True),
    (P.IS_FROM, place("IS_FROM", "{s} is from {o}", single=True), True),
    (P.END_LIVES, place("LIVES_IN", "{s} no longer lives in {o}", "end", True, lower=True), True),
    (P.END_LIVES_ANYMORE, place("LIVES_IN", "{s} no longer lives in {o}", "end", True, lower=True, anymore=True), True),
    (P.MOVED_OUT, place("LIVES_IN", "{s} no longer lives in {o}", "end", True), True),
    (P.LEFT_JOB, left_job, True), (P.LEFT_ORG, left_job, True),
    (P.END_WORK, end_work, True), (P.END_WORK_ANYMORE, end_work, True),
    (P.JOB, new_job, True), (P.WORKS_AT, works_at, True), (P.STARTED_WORKING, works_at, True),
    (P.HIRED, hired, True), (P.WORKS_AS, works_as, True), (P.I_AM_A, i_am_a, True),
    (P.STUDY, study, True), (P.ENROLLED, enrolled, True), (P.CLASS, took_class, True),
    (P.GRADUATED, graduated, True),
    (P.FAMILY_NAMED, family_named, False), (P.FAMILY_IS, family_named, False), (P.FAMILY_HAVE, family_have, True),
    (P.MARRIED, partner, True), (P.BREAKUP, partner, True),
    *((pattern, pet_renamed, True) for pattern in P.PET_RENAMES),
    (P.PET_MY, pet_named, False), (P.PET_IS, pet_named, False), (P.PET_HAVE, pet_have, True),
    (P.DIET, diet, True), (P.DIET_ON, diet, True), (P.END_DIET, end_diet, True), (P.LACTOSE, lactose, True),
    (P.ALLERGY, allergy, True), (P.ALLERGY_NOUN, allergy_noun, True),
    (P.AVOIDS, avoids, True), (P.EATS, eats, True),
    (P.LIKES, likes, True), (P.FAVORITE, favorite, True), (P.DISLIKES, dislikes, True),
    (P.OWNS_NEW, owns, True), (P.OWNS, owns, True),
    (P.PLAN, plan, True), (P.PLAN_FUTURE, plan, True),
    (P.ATTENDED, attended, True), (P.WENT_ACTIVITY, went_doing, True), (P.STARTED_DOING, started_doing, True),
)
