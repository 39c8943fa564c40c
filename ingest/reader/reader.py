"""The learned reader: facts for sentences the rules did not read.

Per session (one `extract` call): every sentence of a user's turn that the
cheap prefilter lets through (`candidates`) is embedded in ONE batch, the
classifier names its topic and kind, and `objects` finds the value; facts
are drafted like the rules' drafts and dated by the same code (`rules.timing`),
so "in July" dates a move the same way whichever reader found it.

Precision before recall: the reader abstains on a sentence the rules already
read for that slot, on a topic below the calibrated threshold, on a question,
a hedge or plan, a statement about someone else, and when no value is found
for a sentence that should name one. The turn is stored either way.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from graphmem.ingest.extraction import ExtractedFact, Extraction, TurnContext
from graphmem.ingest.reader import objects
from graphmem.ingest.reader.classifier import Reading, SentenceClassifier, shipped
from graphmem.ingest.rules.drafts import FAMILY, HEALTH, HOME, LIKE, OWN, PET, WORK, Draft, Sentence
from graphmem.ingest.rules.entities import ASSISTANT_ROLES
from graphmem.ingest.rules.extractor import session_utc, statement_before_question, with_subject
from graphmem.ingest.rules.preferences import category
from graphmem.ingest.rules.text import normalise, split_sentences
from graphmem.ingest.rules.timing import add_group

__all__ = ["Reader", "candidates", "facts_for"]

MAX_PER_TURN = 3
MAX_PER_SESSION = 32
# an ending that names no value closes whatever single fact is open: only when the reading is very sure
NO_VALUE_SURE = 0.8
# an ending closes what was said before, so its topic must be surer than a statement's
ENDING_SURE = 0.8
# the rules read a value of the slot in the sentence: the reader may still end another, when this sure
BESIDE_RULES_SURE = 0.8
# a change with one value must be this sure to start (STARTED) rather than hold; an ending with at most
# one value needs a word that ends things (`_ENDING`) and a kind at least even odds
KIND_SURE = 0.75

# predicates each topic writes; the rules reading a sentence for one of them means the reader stays out
PREDICATES = {"residence": ("LIVES_IN", "MOVED_TO", "MOVED_FROM"), "work": ("WORKS_AT", "LEFT_JOB"),
              "study": ("STUDIES_AT", "GRADUATED_FROM"), "partner": ("PARTNER_OF", "MARRIED_TO"),
              "pet": ("HAS_PET",), "possession": ("OWNS",), "hobby": ("LIKES", "STARTED"),
              "favourite": ("LIKES",), "diet": ("DIET",)}
_ALL_PREDICATES = frozenset(p for ps in PREDICATES.values() for p in ps)
# what an ending that names no value ends: "we finalised the divorce" ends the one open marriage
_NO_VALUE = {"residence": "home", "work": "job", "study": "school", "partner": "relationship", "pet": "pet",
             "possession": "thing", "hobby": "hobby", "favourite": "favourite", "diet": "diet"}

_FIRST_PERSON = re.compile(r"\b(?:I|i|me|my|mine|myself|we|us|our|ours|im|ive)\b|\b(?:I|i|we|We)'", re.IGNORECASE)
# a diary sentence without its "I": "Said goodbye to ...", "Finally sold the car"
_NO_SUBJECT = re.compile(r"^(?:(?:just|finally|recently|also|then|so|now|officially)\s+)?(?:[A-Za-z]+ed|said|left|"
                         r"sold|got|took|went|quit|gave|made|found|lost|began|bought|met|broke|split|put|"
                         r"had|ran|swapped|traded)\b|^(?:just|finally|recently|officially)\s+\w+", re.IGNORECASE)
# a change said without "I" ("Things with Sam fizzled out", "The Audi's gone"): the classifier decides whose
_CHANGE = re.compile(r"\b(?:over|ended?|ending|out|off|gone|died|passed|stolen|split|finished|done|goodbye|"
                     r"farewell)\b", re.IGNORECASE)
# topic cue words, broad on purpose: the classifier decides, this only keeps small talk from being embedded
_CUE = re.compile(
    r"\b(?:live[ds]?|living|home|house|flat|apartment|condo|moved?|moving|rent\w*|based|settled|"
    r"job|work(?:s|ed)?|employ\w*|hired|company|boss|quit|laid|fired|retire\w*|resign\w*|role|position|career|"
    r"redundan\w*|stepped|"
    r"stud(?:y|ies|ying)|school|college|uni|university|degree|enrol+\w*|graduat\w*|student|course|phd|masters?|"
    r"dating|boyfriend|girlfriend|partner|husband|wife|married|marriage|divorc\w*|engaged|broke\s+up|split|"
    r"relationship|single|separated|"
    r"pets?|dog|cat|pup\w*|kitten|adopt\w*|rehom\w*|died|passed\s+away|"
    r"car|bike|phone|laptop|bought|sold|owns?|drive|stolen|traded|upgraded|"
    r"hobby|hobbies|fan|favou?rite|fave|number\s+one|top\s+spot|obsessed|hooked|took\s+up|gave\s+up|stopped|unwind|"
    r"diet|meat|" + "|".join(objects.DIET_WORDS) + "|" + "|".join(sorted(objects.ACTIVITIES - objects.COMMON_ACTIVITIES)) + "|"
    r"swapped|switched|replaced|anymore|any\s+more|no\s+longer|left|ended|end|goodbye|farewell|"
    r"[a-z]+ed\s+out|going\s+out|called|named)\b",
    re.IGNORECASE)
# a plan or a choice not yet made says nothing that holds: "I think I'll go with the X", "I'm looking into getting a Y"
_HEDGE = re.compile(r"\b(?:(?:I|we)\s+used\s+to|if|wish|would|could|might|should|maybe|perhaps|someday|considering|wondering|"
                    r"hoping|hope|plan(?:ning)?\s+to|going\s+to|gonna|want(?:ing)?\s+to|wanna|thinking\s+(?:about|of)|will|meaning\s+to|"
                    r"looking\s+(?:into|for|at)\s+(?:getting|buying|a|an|some)|shopping\s+for)\b|'d\b|'ll\b",
                    re.IGNORECASE)
_SOMEONE_ELSE = re.compile(
    r"^(?:(?:my|our)\s+(?:\w+\s+)?(?:sister|brother|mom|mum|mother|dad|father|parents?|friend|friends|boss|"
    r"colleague|coworker|neighbou?r|son|daughter|kids?|cousin|aunt|uncle|grandma|grandpa|roommate|flatmate)s?\b"
    r"|he\b|she\b|they\b|his\b|her\b|their\b|you\b|your\b)", re.IGNORECASE)
# a sentence that speaks to or about the listener is not the speaker's news: "I love that you chose pottery"
_TO_YOU = re.compile(r"\b(?:you|your|yours|you're|you've|u|ur)\b", re.IGNORECASE)
# words that end things, across topics: an ending the kind head is only fairly sure of needs one
_ENDING = re.compile(r"\b(?:left|leaving|quit|quitting|ended|end|over|done|divorc\w*|split|broke\s+up|died|passed|"
                     r"sold|stolen|gave\s+up|given\s+up|stopped|no\s+longer|anymore|any\s+more|finished|dropped|"
                     r"lost|rehom\w*|goodbye|farewell|behind|retired|fired|laid\s+off|let\s+go|resigned|moved\s+out|"
                     r"gone|separated|single|lasted|caved|graduated|retirement|quits)\b", re.IGNORECASE)
# a change of value: an ending word or one of these ("swapped X for Y", "since May I've been at Y")
_CHANGE_WORD = re.compile(r"\b(?:swapped|switched|replaced|traded|instead|now|moved|overt\w+|enrolled|joined|"
                          r"started|since|took|bought|got|adopted|new|rehom\w*|upgraded|transferred)\b", re.IGNORECASE)
# a negated statement asserts nothing ("I've never been fishing"); only an ending may be negated
# ("I don't live in Oslo anymore")
_NEGATED = re.compile(r"\b(?:not|never)\b|n't\b", re.IGNORECASE)
_CLAUSE_BREAK = re.compile(r"[,;:()]|\s[-\u2013\u2014]\s|\bbut\b")
_STILL_ENDING = re.compile(r"\b(?:anymore|any\s+more|no\s+longer|no\s+more)\b", re.IGNORECASE)
_MARRIED = re.compile(r"\b(?:married|marriage|husband|wife|spouse|divorc\w*|wedding)\b", re.IGNORECASE)
_FAVOURITE_OF = re.compile(r"\bfavou?rite\s+([a-z]+)", re.IGNORECASE)
_IN_PREP = re.compile(r"\b(?:in|at|for|with|to|from|called|named)\s+$", re.IGNORECASE)
_AFTER_OF = re.compile(r"\b(?:of|near|outside|from\s+the|view\s+of)\s+$", re.IGNORECASE)


@dataclass(frozen=True)
class Candidate:
    turn: int
    text: str


def _about_speaker(text: str) -> bool:
    return _FIRST_PERSON.search(text) is not None or _NO_SUBJECT.match(text) is not None or (
        _CHANGE.search(text) is not None)


def candidates(turn: TurnContext) -> list[str]:
    """Sentences of `turn` worth embedding: a user's, first person (or a change said
    without a subject), a topic cue, not a question (but the statement a question opens
    with), hedge or someone else's news."""
    if " ".join(turn.speaker.split()).casefold() in ASSISTANT_ROLES:
        return []
    out = []
    for text in split_sentences(normalise(turn.text)):
        if text.endswith("?"):  # "Now that we've settled in Cork, could you ...?": the statement the question opens with
            text = statement_before_question(text) or text
        if text.endswith("?") or len(text) > 300 or not _about_speaker(text) or not _CUE.search(text):
            continue
        if _HEDGE.search(text) or _SOMEONE_ELSE.match(text) or _TO_YOU.search(text):
            continue
        out.append(text)
        if len(out) == MAX_PER_TURN:
            break
    return out


def _draft(topic: str, kind: str, value: str, text: str, speaker: str, end: int) -> Draft:
    """One fact of `topic`: kind is the draft kind (state, event or end)."""
    span = (0, end)
    gone = kind == "end"
    if topic == "residence":
        return Draft(speaker, "LIVES_IN", value, f"{speaker} {'no longer lives' if gone else 'lives'} in {value}",
                     kind, HOME, True, span=span)
    if topic == "work":
        return Draft(speaker, "WORKS_AT", value, f"{speaker} {'no longer works' if gone else 'works'} at {value}",
                     kind, WORK, True, span=span)
    if topic == "study":
        return Draft(speaker, "STUDIES_AT", value,
                     f"{speaker} {'no longer studies' if gone else 'studies'} at {value}", kind, WORK, True, span=span)
    if topic == "partner":
        married = _MARRIED.search(text) is not None
        predicate = "MARRIED_TO" if married else "PARTNER_OF"
        said = f"is no longer {'married to' if married else 'with'}" if gone else (
            "is married to" if married else "is in a relationship with")
        return Draft(speaker, predicate, value, f"{speaker} {said} {value}", kind, FAMILY, True, span=span)
    if topic == "pet":
        species = objects.pet_species(text) or "pet"
        said = f"no longer has the {species} {value}" if gone else f"has a {species} named {value}"
        return Draft(speaker, "HAS_PET", value, f"{speaker} {said}", kind, PET, True, f"PET:{species}", span=span)
    if topic == "possession":
        return Draft(speaker, "OWNS", value, f"{speaker} {'no longer owns' if gone else 'owns'} {value}", kind, OWN,
                     span=span)
    if topic == "hobby":
        if kind == "event":
            return Draft(speaker, "STARTED", value, f"{speaker} took up {value}", "event", LIKE, span=span)
        return Draft(speaker, "LIKES", value, f"{speaker} {'no longer enjoys' if gone else 'enjoys'} {value}",
                     kind, LIKE, True, f"PREF:{value.lower()}", span=span)
    if topic == "favourite":
        m = _FAVOURITE_OF.search(text)
        cat = category(m[1]) if m else "thing"  # one slot per kind, as the rules have it: a band and a singer share one
        said = f"{value} is no longer {speaker}'s favourite {cat}" if gone else f"{speaker}'s favourite {cat} is {value}"
        return Draft(speaker, "LIKES", value, said, kind, LIKE, True, f"FAVORITE:{cat}" if m else f"PREF:{value.lower()}",
                     span=span)
    return Draft(speaker, "DIET", value, f"{speaker} is {'no longer ' if gone else ''}{value}", kind, HEALTH, True,
                 "DIET", span=span)


# where a clause starts: the subject of the clause that holds a value says whose value it is
_CLAUSE_START = re.compile(r"[,;:()]|\s[-\u2013\u2014]\s|\b(?:but|and|so|because|cause|when|while|since|after|before|"
                           r"though|although|until|once|whereas)\b", re.IGNORECASE)
_WITH_ME = re.compile(r"\band\s+(?:I|me|we)\b|\b(?:with|for)\s+(?:me|us)\b", re.IGNORECASE)


def _someone_elses(text: str, value: objects.Value) -> bool:
    """The clause holding `value` opens with someone else: "I stayed in Leeds when my sister moved to York" (York
    is hers). `candidates` only checks the sentence's start; "my parents and I moved to Tucson" is the speaker's too."""
    start = max((m.end() for m in _CLAUSE_START.finditer(text, 0, value.start)), default=0)
    clause = text[start:value.start].strip()
    return _SOMEONE_ELSE.match(clause) is not None and _WITH_ME.search(clause) is None


def _named(text: str, topic: str) -> list[objects.Value]:
    found = objects.values(text, topic)
    return [v for i, v in enumerate(found) if (i == 0 or not _AFTER_OF.search(text[:v.start]))
            and not _someone_elses(text, v)]


def _clause_of(text: str, found: list[objects.Value]) -> str:
    """The clause(s) holding the values: from the break before the first to the break after the last."""
    if not found:
        return text
    start = max((m.end() for m in _CLAUSE_BREAK.finditer(text, 0, found[0].start)), default=0)
    after = _CLAUSE_BREAK.search(text, found[-1].start + len(found[-1].name))
    return text[start:after.start() if after else len(text)]


def drafts_for(text: str, reading: Reading, speaker: str, others: frozenset[str] = frozenset()
               ) -> tuple[list[Draft], bool]:
    """Drafts for one classified sentence, and whether its ending named no known value
    (the graph then closes the one open fact of the slot, if there is exactly one).
    `others`: names of the people in the conversation, never a slot's value."""
    topic, kind = reading.topic, reading.kind
    if topic not in PREDICATES:
        return [], False
    found = [v for v in _named(text, topic) if v.name.casefold() not in others]
    if _NEGATED.search(_clause_of(text, found)) and not (kind == "ends" and _STILL_ENDING.search(text)):
        return [], False
    if kind != "holds" and len(found) >= 2 and not (_ENDING.search(text) or _CHANGE_WORD.search(text)):
        kind = "holds"  # two values and no word of change: a list ("painting and pottery"), not a swap
    if kind == "new" and len(found) == 1 and _ENDING.search(text) and not _CHANGE_WORD.search(text):
        kind = "ends"  # "Graduated in July, so that's me done with Imperial": a word that ends and none that starts
    if kind == "ends" and len(found) < 2:
        if _ENDING.search(text) is None:
            kind = "holds"  # no word that ends anything: the sentence states its value
        elif reading.kind_p < 0.5 or reading.topic_p < ENDING_SURE:
            return [], False
    elif kind == "new" and len(found) < 2 and reading.kind_p < KIND_SURE:
        kind = "holds"  # one new value said unsurely is still that value now: single-valued slots supersede
    if kind == "holds":
        if not found:
            return [], False
        value = next((v for v in found if _IN_PREP.search(text[:v.start])), found[0])
        return [_draft(topic, "state", value.name, text, speaker, value.start + len(value.name))], False
    if kind == "ends" and len(found) < 2:  # an ending that names two values of the slot is a change
        if not found:
            if min(reading.topic_p, reading.kind_p) < NO_VALUE_SURE:
                return [], False
            return [_draft(topic, "end", _NO_VALUE[topic], text, speaker, len(text))], True
        v = found[0]
        return [_draft(topic, "end", v.name, text, speaker, v.start + len(v.name))], True
    if not found:
        return [], False
    old, new = objects.swap_order(text, found) if len(found) > 1 else ([], found[0])
    ends = [_draft(topic, "end", v.name, text, speaker, v.start + len(v.name)) for v in old]
    start = _draft(topic, "event" if topic == "hobby" else "state", new.name, text, speaker,
                   new.start + len(new.name))
    return ends + [start], False


def _overlap(a: str, b: str) -> bool:
    """One names the other: "Dell" and "Dell laptop" are the same value said twice."""
    a, b = a.casefold(), b.casefold()
    return a in b or b in a


_SAID_BY = re.compile(r"^([^:\n]{1,40}):")


def _people(turn: TurnContext) -> frozenset[str]:
    """The speakers of the session so far ("Caroline: ..." in `previous`), first names too."""
    names = {turn.speaker, *(m[1] for line in turn.previous if (m := _SAID_BY.match(line)))}
    return frozenset(n.casefold() for name in names for n in (name.strip(), name.strip().split()[0] if name.strip() else ""))


def facts_for(turn: TurnContext, text: str, reading: Reading, ruled: Extraction) -> list[ExtractedFact]:
    """The facts one sure reading adds to `ruled`'s: none about a value the rules already
    read in this sentence, and no new value of a slot the rules gave a value in it."""
    speaker = " ".join(turn.speaker.split()) or "The speaker"
    sentence = with_subject(text)
    drafts, any_value = drafts_for(sentence, reading, speaker, _people(turn))
    low = text.casefold()
    read = [f for f in ruled.facts if f.object.casefold() in low]  # an ending that only closes counts as read too
    said = [f for f in read if not f.closes_only]
    stated = {f.predicate for f in said if f.valid_at is not None}
    beside = reading.topic_p >= BESIDE_RULES_SURE  # an ending beside a value the rules read needs more certainty
    drafts = [d for d in drafts if not any(_overlap(f.object, d.object) for f in read)
              and not (d.predicate in stated and (d.kind != "end" or not beside))]
    if not drafts:
        return []
    made: list[ExtractedFact] = []
    add_group(drafts, Sentence(sentence, speaker), session_utc(turn), made, {})
    sure = round(min(0.8, reading.topic_p), 2)
    return [f.model_copy(update={"confidence": sure, "closes_only": f.invalid_at is not None and f.valid_at is None,
                                 "ends_any": any_value and f.invalid_at is not None and f.valid_at is None})
            for f in made]


class Reader:
    """Adds the learned reading to the rules' extractions of one session.

    :param embed: texts -> unit rows, the memory's own embedder (MiniLM);
        None loads the default one on first use.
    """

    def __init__(self, embed: Callable[[Sequence[str]], np.ndarray] | None = None,
                 model: SentenceClassifier | None = None) -> None:
        self._embed = embed
        self._model = model

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if self._embed is None:
            from graphmem.embedding.embedder import default_embedder

            self._embed = default_embedder().embed
        return np.asarray(self._embed(list(texts)), dtype=np.float32)

    @property
    def model(self) -> SentenceClassifier:
        if self._model is None:
            self._model = shipped()
        return self._model

    def add(self, turns: Sequence[TurnContext], ruled: Sequence[Extraction]) -> list[Extraction]:
        found = [Candidate(i, text) for i, turn in enumerate(turns) for text in candidates(turn)]
        found = found[:MAX_PER_SESSION]
        if not found:
            return list(ruled)
        readings = self.model.read(self.embed([c.text for c in found]))
        out = list(ruled)
        for c, reading in zip(found, readings):
            if not self.model.sure(reading):
                continue
            new = facts_for(turns[c.turn], c.text, reading, out[c.turn])
            if new:
                out[c.turn] = out[c.turn].model_copy(update={"facts": [*out[c.turn].facts, *new]})
        return out
