"""The write gate: should an extracted fact become a long-term (active) fact now, or
wait as a `candidate` until the user confirms it? (ARCHITECTURE §5, README "Write gate")

Pure. The write path collects the signals (`signals`) and asks `decide`:

- confidence: the extractor's, lowered when the clause hedges ("I think", "maybe");
- stability: a lasting state ("I live in Lyon", "I'm allergic to nuts") vs a passing
  one ("I'm tired today", "I'm staying at a hotel tonight"). Read from the relation,
  the object and the words of the clause the fact came from: a mood or bodily state,
  or a present-tense state with a "today / tonight / right now / this week" marker,
  is passing; a past event ("I adopted a dog today") is not, it stays true;
- importance: the extractor's (family and health facts matter more than a like);
- duplication: an open active fact with the same subject, relation and object exists,
  so this statement is evidence for it, not a new write (it merges, whatever its score).

score = 0.25 confidence + 0.55 stability + 0.20 importance; at or above `THRESHOLD`
the fact is active, below it a candidate. An explicit request ("remember that ...",
"from now on ...", "please note ...") is active at once. The weights are fixed by
hand (stability dominates by design); `THRESHOLD` was calibrated on the tune half of
tests/data/write_gate_set.json (`python -m bench gate`, which also reports the other half).
"""

from __future__ import annotations

import hashlib
import re
from typing import Literal

from pydantic import BaseModel, ConfigDict

WEIGHTS = {"confidence": 0.25, "stability": 0.55, "importance": 0.20}
THRESHOLD = 0.67
DUPLICATE = 0.9

MOODS = (
    "tired", "exhausted", "sleepy", "drowsy", "worn out", "knackered", "drained", "hungry", "starving", "thirsty",
    "sick", "ill", "unwell", "nauseous", "under the weather", "hungover", "jet-lagged", "jetlagged", "sore",
    "bored", "stressed", "anxious", "nervous", "excited", "happy", "sad", "upset", "angry", "annoyed", "grumpy",
    "cranky", "frustrated", "overwhelmed", "lonely", "restless", "cold", "freezing", "busy", "moody", "fed up",
    "in a good mood", "in a bad mood", "a headache", "a cold", "a fever", "a hangover",
    "a migraine", "sunburnt", "sunburned", "relaxed", "confused", "worried", "scared", "cheerful",
)
MOOD_RE = re.compile(r"\b(?:" + "|".join(re.escape(m) for m in sorted(MOODS, key=len, reverse=True)) + r")\b", re.I)
MOOD_RELATIONS = re.compile(r"FEEL|MOOD|EMOTION|STATE|SENSATION", re.I)
TRANSIENT = re.compile(
    r"\b(?:today|tonight|this (?:morning|afternoon|evening|week|weekend|month)|right now|at the moment|"
    r"at the minute|just now|for now|for the (?:day|night|weekend|week)|for a (?:few|couple of) (?:days|hours)|"
    r"till|until tomorrow|temporarily|for the time being|this time|these few days|all day)\b",
    re.I,
)
LASTING = re.compile(
    r"\b(?:always|since|for (?:\w+ )?(?:years|decades)|my whole life|all my life|every (?:day|week|morning|year)|"
    r"usually|permanently|for good|never|ever since|grew up|born)\b",
    re.I,
)
PAST = re.compile(
    r"\b(?:was|were|did|went|got|had|adopted|bought|moved|visited|met|started|finished|joined|left|saw|ran|"
    r"made|took|won|lost|found|became|married|graduated|quit|signed|(?!need)\w{2,}ed)\b",
    re.I,
)
HEDGES = re.compile(
    r"\b(?:maybe|perhaps|probably|might|(?-i:may)|i think|i guess|not sure|"
    r"(?<!\bthe\s)(?<!\ba\s)(?<!\bthis\s)(?<!\bthat\s)(?<!\bwhat\s)(?<!\bsame\s)(?<!\bany\s)(?<!\bsome\s)"
    r"(?<!favorite\s)(?<!favourite\s)(?:kind|sort) of|i suppose|possibly)\b",
    re.I)  # "may" only in lower case ("in May" is a month); "my favourite kind of music" is no hedge
TENTATIVE = re.compile(r"\b(?:thinking (?:about|of)|considering|wondering (?:about|whether|if))\b", re.I)
PLAN_RELATIONS = re.compile(r"PLAN|INTEND|CONSIDER|WANT|WISH|HOPE|WILL|GOING_TO|SCHEDULED", re.I)
EXPLICIT = re.compile(
    r"\b(?:remember (?:that|this)|please (?:remember|note)|note that|make a note|keep in mind|don'?t forget|"
    r"from now on|going forward|for future reference|for the record)\b",
    re.I,
)
CLAUSE = re.compile(r"[.!?;,]+|\s+but\s+|\s+although\s+|\s+while\s+", re.I)
PASSING_STABILITY, NEUTRAL_STABILITY, LASTING_STABILITY = 0.15, 0.75, 0.95
HEDGE_FACTOR = 0.6


class GateSignals(BaseModel):
    """What the gate weighs for one fact; each a share from 0 to 1."""

    model_config = ConfigDict(frozen=True)

    confidence: float
    stability: float
    importance: float
    duplication: float = 0.0
    explicit: bool = False


class GateVerdict(BaseModel):
    """``active``: write it now; ``candidate``: keep it aside until confirmed;
    ``restates``: an active fact says the same, merge into it. `reason` names the signals."""

    model_config = ConfigDict(frozen=True)

    status: Literal["active", "candidate", "restates"]
    score: float
    reason: str


def clause_of(text: str, words: str) -> str:
    """The clause of `text` that names `words` (a fact's object): markers elsewhere in
    the turn ("I'm tired today, but I work at Acme") do not count. Whole text if none does."""
    parts = [p for p in CLAUSE.split(text) if p and p.strip()]
    key = words.casefold().strip()
    if key:
        for part in parts:
            if key in part.casefold():
                return part
        for part in parts:
            if any(w in part.casefold() for w in key.split() if len(w) > 3):
                return part
    return text


def stability(turn: str, predicate: str, obj: str) -> tuple[float, str]:
    """How lasting the stated state is, 0-1, and why; pure. A plan ("I'm going to a
    conference this month") is dated by nature, so its time marker does not make it passing.

    Example:
        >>> stability("I'm so tired today.", "FEELS", "tired")[0] < 0.5
        True
        >>> stability("I adopted a puppy today!", "HAS_PET", "puppy")[0] > 0.5
        True
    """
    clause = clause_of(turn, obj)
    if LASTING.search(clause):
        return LASTING_STABILITY, "lasting marker"
    if MOOD_RELATIONS.search(predicate) or MOOD_RE.fullmatch(obj.strip()):
        return PASSING_STABILITY, "mood or bodily state"
    if PLAN_RELATIONS.search(predicate):
        return NEUTRAL_STABILITY, "plan"
    if TRANSIENT.search(clause) and not PAST.search(clause):
        if _BONDS.match(predicate) and possessed(clause, obj):
            return NEUTRAL_STABILITY, "a bond named by a possessive"
        if predicate == "LIKES" and _FAVOURITE.search(clause):
            return NEUTRAL_STABILITY, "a favourite, current until another replaces it"
        return PASSING_STABILITY, "present state with a passing time marker"
    return NEUTRAL_STABILITY, "state"


# "My wife Ingrid and I are staying in tonight", "the engine light came on in my Subaru today": the time marker
# dates what is said of them; the possessive names a lasting bond (a relative, a partner, a pet, a thing owned, a
# home, a job or a school), which holds whatever happens tonight; a friend is left as it was ("staying with my friend
# Kate for a few days" stays a candidate: who one stays with for days is as often an acquaintance)
_BONDS = re.compile(r"(?:MARRIED_TO|PARTNER_OF|HAS_(?:PET|SISTER|BROTHER|MOTHER|FATHER|SON|DAUGHTER|CHILD|"
                    r"GRANDMOTHER|GRANDFATHER)|OWNS|WORKS_AT|STUDIES_AT|LIVES_IN)$")


# "X is my favourite band right now", "my favourite show at the moment is Y": a favourite is a ranking, and the time
# marker says it is the current one (the one a later favourite replaces), not that the liking passes tonight
_FAVOURITE = re.compile(r"\bfavou?rites?\b", re.I)


def possessed(clause: str, obj: str) -> bool:
    """`obj` is named in `clause` as the speaker's ("my wife Ingrid", "our flat in Leeds", "my Subaru Outback")."""
    words = obj.strip()
    if not words:
        return False
    return re.search(rf"\b(?:my|our)\s+(?:[\w'-]+\s+){{0,2}}{re.escape(words)}\b", clause, re.IGNORECASE) is not None


def hedged(clause: str, predicate: str) -> bool:
    """The speaker is unsure. "Thinking of" / "considering" is the plan itself for a plan
    relation ("considering adopting a dog" is a sure fact about a plan), a hedge otherwise."""
    return HEDGES.search(clause) is not None or (
        TENTATIVE.search(clause) is not None and not PLAN_RELATIONS.search(predicate))


def is_explicit(turn: str) -> bool:
    """The user asked for it to be kept ("remember that ...", "from now on ...")."""
    return EXPLICIT.search(turn) is not None


def signals(turn: str, predicate: str, obj: str, *, confidence: float, importance: float,
            duplication: float = 0.0) -> tuple[GateSignals, str]:
    """The signals for a fact stated in `turn`, and the stability reason; pure."""
    clause = clause_of(turn, obj)
    unsure = hedged(clause, predicate)
    value, why = stability(turn, predicate, obj)
    sure = confidence * (HEDGE_FACTOR if unsure else 1.0)
    found = GateSignals(confidence=sure, stability=value, importance=importance, duplication=duplication,
                        explicit=is_explicit(turn))
    return found, why + (", hedged" if unsure else "")


def score(s: GateSignals) -> float:
    """The weighted write score, 0-1 (duplication and explicitness act in `decide`)."""
    w = WEIGHTS
    return round(w["confidence"] * s.confidence + w["stability"] * s.stability + w["importance"] * s.importance, 4)


def decide(s: GateSignals, why: str = "", threshold: float = THRESHOLD) -> GateVerdict:
    """The gate's verdict for one fact; pure.

    Example:
        >>> decide(GateSignals(confidence=0.8, stability=0.15, importance=0.5)).status
        'candidate'
        >>> decide(GateSignals(confidence=0.8, stability=0.15, importance=0.5, explicit=True)).status
        'active'
    """
    value = score(s)
    detail = f"score {value:.2f} (confidence {s.confidence:.2f}, stability {s.stability:.2f}: {why or 'given'}, " \
             f"importance {s.importance:.2f})"
    if s.duplication >= DUPLICATE:
        return GateVerdict(status="restates", score=value, reason="restates an active fact; " + detail)
    if s.explicit:
        return GateVerdict(status="active", score=value, reason="explicit request; " + detail)
    if value >= threshold:
        return GateVerdict(status="active", score=value, reason=detail)
    return GateVerdict(status="candidate", score=value, reason=f"below {threshold:.2f}: " + detail)


def decision_key(episode: str, subject: str, predicate: str, obj: str) -> str:
    """Identity of one extracted fact of one turn that survives a rebuild (entity and
    fact uuids do not): the turn's uuid and the fact's normalised subject, relation
    and object, hashed so the key holds no text."""
    parts = [episode, " ".join(subject.casefold().split()), predicate.upper(), " ".join(obj.casefold().split())]
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()
