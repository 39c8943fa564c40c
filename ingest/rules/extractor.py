"""`RuleExtractor`: the topics' rules run over the sentences of each turn.

The registry is `TOPICS`, in the order their rules run: a turn's facts come
out in that order, and a repeat keeps the first copy, so adding a topic at the
end never changes what the others yield.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime

import numpy as np

from graphmem.ingest.extraction import ExtractedFact, Extraction, Extractor, TurnContext
from graphmem.ingest.rules import (
    changes, events, family, habits, health, hobbies, idioms, implied, pets, plans, possessions, preferences, presupposed,
    residence, roles, study, work)
from graphmem.ingest.rules.drafts import Draft, Rule, Sentence
from graphmem.ingest.rules.entities import ASSISTANT_ROLES, entities, mentioned_before
from graphmem.ingest.rules import grammar
from graphmem.ingest.rules.grammar import NAME, STOP_NAMES
from graphmem.ingest.rules.intervals import TWIN_MIN_DAYS, present_twin
from graphmem.ingest.rules.text import normalise, split_sentences
from graphmem.ingest.rules.timing import add_group, said_in_past, stated_interval
from graphmem.schema.errors import InvalidInput

__all__ = ["HANDLERS", "TOPICS", "RuleExtractor", "extract_turn", "with_subject"]

TOPICS = (residence, work, study, family, pets, health, preferences, possessions, plans, events, hobbies, changes,
          idioms, presupposed, implied, habits, roles)
HANDLERS: tuple[Rule, ...] = tuple(r for topic in TOPICS for r in topic.RULES)
# a question asserts nothing, but what its noun phrases take for granted holds: "is my cat Juniper ill?",
# "how do I clean my Honda Civic?", "my boss at Acme wants ...?" (`rules.presupposed`)
QUESTION_HANDLERS: tuple[Rule, ...] = (*family.QUESTION_RULES, *pets.QUESTION_RULES, *preferences.QUESTION_RULES,
                                       *presupposed.QUESTION_RULES, *implied.QUESTION_RULES)


@dataclass(frozen=True)
class RuleFailure:
    """A turn the rules failed on (`ingest.extraction.Failure`)."""

    stage: str
    turn_id: str
    message: str


class RuleExtractor(Extractor):
    """Regex rules, offline and deterministic: the same turns give the same facts.

    Example:
        >>> turn = TurnContext(text="I moved to Shanghai last month.", speaker="Caroline",
        ...                    session_time=datetime(2024, 7, 15, tzinfo=UTC))
        >>> [f.predicate for f in RuleExtractor().extract([turn])[0].facts]
        ['MOVED_TO', 'LIVES_IN']
    """

    name = "rules-v1"

    def __init__(self, *, learned: bool = True, embed: Callable[[Sequence[str]], np.ndarray] | None = None) -> None:
        """:param learned: add the learned reader (`graphmem.ingest.reader`) where the rules read nothing;
        :param embed: its embedder (the memory's own; None: the default MiniLM, loaded on first need)."""
        self.errors: list[RuleFailure] = []  # `RecordsErrors`: the turns a rule failed on, listed in `WriteResult.errors`
        self.reader = None
        if learned:
            from graphmem.ingest.reader import Reader

            self.reader = Reader(embed)

    def warm(self) -> None:
        """Compile every rule's pattern now (a server's start-up), those the handlers use
        directly too; otherwise each compiles on its first use (`grammar.Trigger`)."""
        for trigger in tuple(grammar.MADE):
            trigger.pattern  # noqa: B018 - compiles it

    def extract(self, turns: Sequence[TurnContext]) -> list[Extraction]:
        """One Extraction per turn, in order: the rules', plus what the learned reader
        reads in sentences the rules left alone (one embedding batch per call).

        A turn a rule fails on (a bug, as "İ" as a subject was) gives no facts and is listed in
        `errors`, as a malformed LLM reply is: the turn is stored and the session's other
        turns are read (before, the whole write raised the rule's own exception).

        :raises InvalidInput: an item is not a `TurnContext`.
        """
        ruled = [self._read(turn) for turn in turns]
        return self.reader.add(turns, ruled) if self.reader is not None else ruled

    def _read(self, turn: TurnContext) -> Extraction:
        try:
            return extract_turn(turn)
        except InvalidInput:
            raise
        except Exception as exc:  # noqa: BLE001 - a rule's failure must not lose the write; it is listed instead
            self.errors.append(RuleFailure(stage="rules", turn_id=turn.turn_id, message=f"{type(exc).__name__}: {exc}"))
            return Extraction()


def extract_turn(turn: TurnContext) -> Extraction:
    """The entities and facts of one turn.

    :raises InvalidInput: `turn` is not a `TurnContext`.
    """
    if not isinstance(turn, TurnContext):
        raise InvalidInput(f"expected a TurnContext, not {type(turn).__name__}")
    session = session_utc(turn)
    speaker = " ".join(turn.speaker.split()) or "The speaker"
    pieces = split_sentences(normalise(turn.text))
    whole = " ".join(pieces)
    sentences = [Sentence(with_subject(ended_up(text)), speaker, whole, " ".join(pieces[max(0, i - 2):i]))
                 for i, text in enumerate(pieces)]
    if speaker.casefold() in ASSISTANT_ROLES:
        return Extraction(entities=mentioned_before(sentences, turn.previous))
    facts: list[ExtractedFact] = []
    seen: dict[tuple, int] = {}
    pet: str | None = None  # species of the last unnamed pet, for "I adopted a pup. His name's Ned."
    for sentence in sentences:
        read = [(said, list(not_restarted(groups)), place) for said, groups, place in _readings(sentence, speaker, pet)]
        intervals = {}  # id(draft) -> its stated interval, each computed once
        for said, groups, place in read:
            spans = [d.span for drafts in groups for d in drafts]
            intervals |= {id(d): stated_interval(d, said, session, spans, _said_in_past(sentence, d, place))
                          if d.kind == "state" and d.dated else None  # the only drafts an interval dates
                          for drafts in groups for d in drafts}
        stated = [(said, d, place, intervals[id(d)]) for said, groups, place in read for drafts in groups for d in drafts
                  if intervals[id(d)] is not None]
        # "I worked at Acme until 2022, then joined Initech": Initech starts where the twin's Acme ended
        ended = [(place(d.span[1]), st) for said, d, place, st in stated]
        read = _bounded_once(read, {d.object.casefold() for said, d, _, _ in stated if said.text != sentence.text},
                             intervals)
        for said, groups, place in read:
            for drafts in groups:
                add_group(drafts, said, session, facts, seen, ended if said.text == sentence.text else (),
                          [intervals.get(id(d)) for d in drafts])
                if not any(d.bounded_only for d in drafts):  # a pet of the twin's past is no "his name's ..." antecedent
                    pet = pets.last_unnamed(drafts, pet)
    return Extraction(entities=entities(sentences, facts, speaker), facts=facts)


def _said_in_past(sentence: Sentence, draft: Draft, place: Callable[[int], int]) -> bool:
    """Whether the sentence, as said, puts the draft in the past or the perfect: its clause up to the
    draft's end ("we had our beagle Biscuit": the match starts at the pet)."""
    start, end = place(draft.span[0]), place(draft.span[1])
    return said_in_past(sentence.text, sentence.clause(start, end)[0], end)


def _bounded_once(read: list, bounded: set[str], intervals: dict[int, object]) -> list:
    """The readings with the sentence's own undated reading of a value its twin bounds kept only
    with an interval (so: dropped): "we had our beagle Biscuit for eleven years, 2011 through 2022"
    is no dog had today."""
    if not bounded:
        return read
    first = read[0][0]

    def keep(d):
        return replace(d, bounded_only=True) if d.object.casefold() in bounded and intervals.get(id(d)) is None else d

    return [(said, [[keep(d) for d in drafts] for drafts in groups], place) if said is first else (said, groups, place)
            for said, groups, place in read]


def _readings(sentence: Sentence, speaker: str, pet: str | None
              ) -> list[tuple[Sentence, list[list[Draft]], Callable[[int], int]]]:
    """(sentence read, its draft groups, position in it -> position in `sentence`): a question's
    statement, or the sentence and its present twin ("I owned a Civic from 2015 to 2020" read
    as "I own ...", its drafts kept only with their interval)."""
    same = lambda pos: pos  # noqa: E731
    if sentence.text.endswith("?"):
        read = [(sentence, sentence.drafts(QUESTION_HANDLERS), same)]
        head = statement_before_question(sentence.text)
        if head is not None:  # "I was in Bratislava between 2016 and 2019, does that count ...?"
            said = Sentence(head, speaker, sentence.turn, sentence.before)
            read += [(said, said.drafts(HANDLERS), same), *_twin(said, speaker)]
        return read
    return [(sentence, sentence.drafts(HANDLERS) + pets.named_by_pronoun(sentence, pet), same), *_twin(sentence, speaker)]


def _twin(sentence: Sentence, speaker: str) -> list[tuple[Sentence, list[list[Draft]], Callable[[int], int]]]:
    """The present twin's reading, if the sentence has one: every draft kept only with its interval."""
    twin = present_twin(sentence.text)
    if twin is None:
        return []
    said = Sentence(twin.text, speaker, sentence.turn, sentence.before)
    groups = [[replace(d, bounded_only=True, min_days=max(d.min_days, TWIN_MIN_DAYS.get(d.predicate, 0)))
               for d in group] for group in said.drafts(HANDLERS)]
    return [(said, groups, twin.original)]


# "I'm pescatarian, what's a good fish?", "My Vespa won't start, any ideas?": a statement, then a question about it
_TAG_QUESTION = re.compile(
    r"(?:,|\s[-\u2013\u2014]+|;)\s+(?:so\s+|and\s+|but\s+)?(?=(?:what|what's|whats|how|any|anyone|anybody|can|could|should|"
    r"would|is|are|do|does|did|which|where|where's|why|who|when|(?:[\w-]+\s+){0,2}?(?:ideas|thoughts|tips|advice|"
    r"suggestions|recommendations|recs)|help|right|ok|okay|is\s+that|is\s+this|or)\b)", re.IGNORECASE)
_ASKS = re.compile(r"^(?:what|what's|whats|how|any|can|could|should|would|will|is|are|am|do|does|did|which|where|why|who|"
                   r"when|have|has|was|were|shall|may|might|isn't|aren't|don't|doesn't|didn't|wouldn't|shouldn't|"
                   r"won't|can't|need|wondering|if|whether)\b", re.IGNORECASE)


def statement_before_question(text: str) -> str | None:
    """The statement a question opens with, when it asks its question after a comma or dash:
    "I'm pescatarian, what's a good fish for a beginner?" -> "I'm pescatarian." (None if the
    first clause asks too: "Is it normal, or should I worry?")."""
    tag = _TAG_QUESTION.search(text)
    if tag is None:
        return None
    head = text[:tag.start()].strip()
    if len(head.split()) < 2 or _ASKS.match(head):
        return None
    return head + "."


def not_restarted(groups: list[list]) -> list[list]:
    """A sentence that ends something does not also begin it: "I moved on from Fernhill", "the lease on
    our Lyon flat ran out" drop the states other rules read of the same object in that sentence."""
    ended = {(d.predicate, d.object.lower()) for drafts in groups for d in drafts if d.kind == "end"}
    if not ended:
        return groups
    kept = [[d for d in drafts if d.kind != "state" or (d.predicate, d.object.lower()) not in ended] for drafts in groups]
    return [drafts for drafts in kept if drafts]


def session_utc(turn: TurnContext) -> datetime:
    """The turn's session time as aware UTC (naive = UTC): what every draft is dated against."""
    session = turn.session_time
    return session.replace(tzinfo=UTC) if session.tzinfo is None else session.astimezone(UTC)


# diary and chat drop the "I": "Got laid off from Contoso", "Just moved to Leeds", "Born in Sapporo"
_NO_SUBJECT = re.compile(
    r"(?:(?:just|finally|recently|also|then|today|yesterday|so|pretty\s+much|basically|more\s+or\s+less|mostly|all\s+but|"
    r"kind\s+of|sort\s+of)\s+)?(?:[a-z]{3,}ed\s+(?P<conj>and|&)\s+)?(?:got|had|moved|started|stopped|quit|left|bought|sold|"
    r"adopted|visited|graduated|joined|went|finished|broke|signed|took|relocated|retired|resigned|began|"
    r"rescued|landed|accepted|transferred|picked|handed|wrapped|dropped|enrolled|switched|ditched|swapped|traded|"
    r"upgraded|cleared|deferred|rehomed|dumped|packed)\b",
    re.IGNORECASE,
)
_NO_SUBJECT_BE = re.compile(r"(?:born|raised)\s+(?:and\s+raised\s+)?in\b", re.IGNORECASE)
# diary and chat drop "I'm" too: "Doing a part-time MSc at Birkbeck", "Working nights at the depot"; not a gerund that is
# the subject of its sentence ("Working from home is great", "Living in NYC can be lonely")
_NO_SUBJECT_ING = re.compile(r"(?:(?:currently|still|now|also)\s+)?(?:doing|studying|working|teaching|training|renting|"
                             r"living|volunteering|freelancing|nursing)\b", re.IGNORECASE)
# and "I've": "been bouldering 4x a week", "been at Google two years", "been vegan since March" (not "Been there,
# done that", "Been a while since ...", "Been ages")
_NO_SUBJECT_BEEN = re.compile(r"(?:(?:just|also|still|honestly|mostly)\s+)?been\s+(?![a-z]+ed\b)(?!(?:there|here|ages|forever|"
                              r"a\s+while|a\s+long|so\s+long|too\s+long|a\s+minute|a\s+bit|a\s+rough|a\s+weird|quiet|busy|"
                              r"crazy|nuts|hectic|great|good|bad|fun|rough|weird|mad|wild|such|so|too|really|pretty)\b)\w",
                              re.IGNORECASE)
# and the whole "I'm" of a self-introduction: "Vegetarian here.", "Charge nurse here, ..." ("Same here" names no one)
_INTRODUCED_HERE = re.compile(r"(?P<who>[A-Za-z][a-z-]*(?:\s+[a-z-]+){0,2})\s+here\b(?=\s*(?:[.,!:;-]|$))")
# a clause ending in "here" that is no self-introduction: "Success is almost here", "Looky here", "Come here"
_NOT_WHO = frozenset("is are was were be been am almost nearly finally right over back out up down still all in it get "
                     "come stay look looky lookie sit stand from not never will".split())
_GERUND_SUBJECT = re.compile(r"^[^,;:]*?\s(?:is|was|are|were|have\s+been|has\s+been|can\s+be|could\s+be|makes|made|takes|took|feels|felt|gets|"
                             r"got|seems|sounds|isn't|wasn't|will\s+be|would\s+be|means)\b", re.IGNORECASE)


# chat puts "me" first in a joint subject: "me and Tomasz split up", "so me and Dee moved to Leeds": the subject the
# rules read is "Tomasz and I" (not "me and the kids" or "between me and Tom")
_ME_AND = re.compile(rf"(?P<pre>^|[,;:]\s+|\b(?i:so|and|but|then|well)\s+)(?<!between\s)[Mm]e\s+(?:and|&)\s+(?P<name>{NAME})\s+"
                     r"(?=(?:(?:just|finally|recently|officially|have|had|both|then)\s+)*[a-z]+(?:ed|t|ke|ew)\b)")
_FIRST_PERSON_START = re.compile(r"(?:[\w']+[,:]?\s+){0,3}?(?:[Ii]|[Ww]e)\b")  # chat writes "i" too
# "I sold the Volvo and bought a Mazda", "we moved out of X and now live in Y": the second verb shares the "I"
_SHARED_SUBJECT = re.compile(
    r"(?<=\s)(?P<conj>and|but|then)\s+(?=(?:then\s+)?(?:took|bought|joined|started|moved|got|adopted|sold|left|"
    r"quit|began|picked|switched|relocated|settled|stopped|dropped|went|traded|swapped|retired|finished|passed|"
    r"transferred|enrolled|rehomed|divorced|(?:have|has)\s+been)\b|"
    r"now\s+(?:live|work|study)\b)")


# "ended up rehoming Kiwi", "we wound up selling the flat": the gerund after "end up" happened, so it is read as its
# past tense, which the topics' endings and changes know ("rehomed Kiwi", "sold the flat")
_ENDED_UP = re.compile(r"\b(?:ended|wound|end|ending)\s+up\s+(?P<verb>[a-z]{2,}ing)\b", re.IGNORECASE)
_IRREGULAR_PAST = {"selling": "sold", "giving": "gave", "leaving": "left", "quitting": "quit", "getting": "got",
                   "taking": "took", "putting": "put", "buying": "bought", "breaking": "broke", "splitting": "split",
                   "finding": "found", "losing": "lost", "letting": "let", "going": "went", "making": "made",
                   "having": "had", "being": "was", "doing": "did", "trading": "traded", "swapping": "swapped",
                   "dropping": "dropped", "stopping": "stopped", "shutting": "shut", "sending": "sent", "running": "ran"}


def past_of_gerund(gerund: str) -> str:
    """ "rehoming" -> "rehomed", "adopting" -> "adopted", "selling" -> "sold" (pure): the stem plus "-ed" is right for
    a verb whose gerund dropped a final "e" or kept its stem whole; the common irregular ones are listed."""
    low = gerund.lower()
    return _IRREGULAR_PAST.get(low, low[:-3] + "ed")


def ended_up(text: str) -> str:
    """The sentence with "ended up <verb>ing" said as "<verb>ed" (pure)."""
    return _ENDED_UP.sub(lambda m: past_of_gerund(m["verb"]), text) if "up" in text else text


def with_subject(text: str) -> str:
    """The sentence with its dropped "I" put back, so the subject rules can read it:
    at its start ("Got laid off ...", "Born in ...") and after "and" when the
    sentence is about the speaker ("I gave up running and took up swimming")."""
    if m := _NO_SUBJECT.match(text):
        # "Finally defended and graduated from ETH": the dropped "I" is the subject of both verbs
        text = text if m["conj"] is None else f"{text[:m.end('conj')]} I{text[m.end('conj'):]}"
        text = f"I {text[0].lower()}{text[1:]}"
    elif _NO_SUBJECT_BE.match(text):
        text = f"I was {text[0].lower()}{text[1:]}"
    elif _NO_SUBJECT_ING.match(text) and not _GERUND_SUBJECT.match(text):
        text = f"I'm {text[0].lower()}{text[1:]}"
    elif (introduced := roles.introduced_at(text)) is not None:
        text = introduced
    elif _NO_SUBJECT_BEEN.match(text):
        text = f"I've {text[0].lower()}{text[1:]}"
    elif (m := _INTRODUCED_HERE.match(text)) and m["who"].split()[0].casefold() not in STOP_NAMES and not any(
            w in _NOT_WHO for w in m["who"].casefold().split()):
        text = f"I'm {text[:m.end('who')]}{text[m.end():]}"  # its case kept: "Sarah here" is a name
    if "e and " in text or "e & " in text:  # a substring test first: the pattern is slow on every sentence
        text = _ME_AND.sub(lambda m: f"{m['pre']}{m['name']} and I ", text)
    if _FIRST_PERSON_START.match(text):
        text = _SHARED_SUBJECT.sub(lambda m: f"{m['conj']} I ", text)
    return text
