"""The memory packet: what search hands an agent, dated and traced to its turns.

It renders two ways: `to_prompt(budget_tokens)` for an LLM context (dated lines
with their sources, cut to a token budget, most relevant first) and
`model_dump()` for JSON. Token counts use the ~4 characters per token rule of
thumb for English; it is an estimate, stated as such, and the same everywhere.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

CHARS_PER_TOKEN = 4
FACTS_TITLE = "FACTS ([valid from -> until] fact (status) | source | confidence | scope | expires | reason):"
ENTITIES_TITLE = "ENTITIES (as of the question's time):"


def estimate_tokens(text: str) -> int:
    return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


def _day(moment: datetime | None) -> str:
    return moment.date().isoformat() if moment else "..."


class PacketFact(BaseModel):
    model_config = ConfigDict(frozen=True)

    uuid: str
    fact: str
    subject: str = ""
    predicate: str = ""
    object: str = ""
    valid_at: datetime | None
    invalid_at: datetime | None
    status: Literal["current", "superseded", "ended"]
    superseded_by: str | None = None
    superseded_by_fact: str | None = None
    source_turn_ids: tuple[str, ...] = Field((), description="the most relevant source turns, best first")
    sources_total: int = Field(0, description="how many turns stated the fact; may exceed source_turn_ids")
    score: float = 0.0
    confidence: float = Field(1.0, description="how sure the writer was (add_fact 1.0; extraction the extractor's)")
    scope: str = Field("user", description="the scope the fact was written in")
    expires: datetime | None = Field(None, description="when it leaves search (None: never)")
    reason: tuple[str, ...] = Field((), description="the signals that let it in (`retrieval.admission.REASONS`)")

    def line(self) -> str:
        """The packet form: fact / source / confidence / scope / expires / reason."""
        status = self.status
        if self.status == "superseded" and self.superseded_by_fact:
            status = f"superseded by: {self.superseded_by_fact}"
        sources = ", ".join(self.source_turn_ids) or "-"
        more = self.sources_total - len(self.source_turn_ids)
        if more > 0:
            sources += f" +{more} more"
        expires = _day(self.expires) if self.expires else "never"
        return (f"- [{_day(self.valid_at)} -> {_day(self.invalid_at)}] {self.fact} ({status}) | source: turns {sources}"
                f" | confidence {self.confidence:.2f} | scope {self.scope} | expires {expires}"
                f" | reason: {', '.join(self.reason) or '-'}")


CHAINS_TITLE = "CHAINS (each value looked up again until it is no key):"
STOP_TEXT = {
    "cycle": "not verified: the chain comes back to a key it passed",
    "branch": "not verified: the relation branches here (several next facts)",
    "depth": "not verified: stopped at the hop limit",
}


class PacketChain(BaseModel):
    """A lookup followed to its end (`retrieval.chains`): ``steps[0]`` is a packet
    fact, each next step's subject the previous step's object, all on one
    relation. ``verified_terminal``: no admitted fact on that relation has
    ``terminal`` as its subject, so it is the value, not another key."""

    model_config = ConfigDict(frozen=True)

    predicate: str
    steps: tuple[PacketFact, ...]
    terminal: str
    verified_terminal: bool
    stop: Literal["terminal", "cycle", "branch", "depth"]

    def line(self) -> str:
        hops = " -> ".join(f"{s.subject} {s.predicate} {s.object} (turns {', '.join(s.source_turn_ids) or '-'})"
                           for s in self.steps)
        if self.verified_terminal:
            end = f"verified terminal: no {self.predicate} fact about {self.terminal}"
        else:
            end = STOP_TEXT[self.stop]
        return f"- {hops} => {self.terminal} ({len(self.steps)} steps; {end})"


class PacketEntity(BaseModel):
    """An entity the question names or a packet fact cites, as of the query's time.

    ``summary``: in the current mode the stored summary (the entity's current
    facts), else the packet's facts about it; in the historical and as-of modes
    always the packet's facts, which were kept for that time, because the stored
    summary describes today. ``valid_at``/``invalid_at``: the span of the packet's
    facts that cite it (None/None when none does). ``known_since``: when graphmem
    first stored it (system time)."""

    model_config = ConfigDict(frozen=True)

    uuid: str = ""
    name: str
    summary: str = ""
    known_since: datetime | None = None
    valid_at: datetime | None = None
    invalid_at: datetime | None = None
    named_in_question: bool = False
    fact_uuids: tuple[str, ...] = Field((), description="the packet's facts that cite it, best first")

    def line(self) -> str:
        span = f"[{_day(self.valid_at)} -> {_day(self.invalid_at)}] " if self.fact_uuids else ""
        known = f" (known since {_day(self.known_since)})" if self.known_since else ""
        text = f": {self.summary}" if self.summary else ""
        return f"- {span}{self.name}{known}{text}"


class PacketEpisode(BaseModel):
    model_config = ConfigDict(frozen=True)

    turn_id: str
    session_time: datetime
    speaker: str
    content: str
    score: float = 0.0
    scope: str = "user"

    def line(self) -> str:
        return f"- [{_day(self.session_time)}] {self.speaker}: {self.content} (turn {self.turn_id})"


class MemoryPacket(BaseModel):
    """Facts with validity and status, entities, evidence turns, and an abstain signal.

    ``cited_turn_ids``: every source turn the packet cites, deduplicated, most
    relevant first. ``abstain``: nothing relevant was ever stored (``reason`` says why).
    """

    model_config = ConfigDict(frozen=True)

    query: str
    mode: Literal["current", "historical", "as_of"] = "current"
    facts: tuple[PacketFact, ...] = ()
    chains: tuple[PacketChain, ...] = Field((), description="lookups from packet facts followed to their end")
    entities: tuple[PacketEntity, ...] = ()
    episodes: tuple[PacketEpisode, ...] = ()
    abstain: bool = False
    reason: str = ""
    best_similarity: float = Field(0.0, description="best cosine of the question to any stored fact or turn")
    topic_coverage: float | None = Field(None, description="abstention signal: share of the question's topic words in the best turn or fact")
    masked_similarity: float | None = Field(None, description="abstention signal: best cosine of the question with its names masked")
    cited_turn_ids: tuple[str, ...] = ()
    tokens: int = 0
    timings_ms: dict[str, float] = Field(default_factory=dict)

    def to_prompt(self, budget_tokens: int = 1500) -> str:
        """Dated lines with sources, most relevant first, within `budget_tokens`.

        Entities come last: they restate what the facts say, so a tight budget
        drops them before any fact or evidence turn. A section's title comes only
        with a line of it, and the first line of a packet that does not abstain is
        kept even past the budget, as `packet_lines.fit` keeps it: a search cut to
        a small budget once answered with a packet holding a fact and an empty
        prompt, or a bare title."""
        if self.abstain:
            return f"MEMORY: nothing relevant was ever said ({self.reason})."
        sections = [
            (FACTS_TITLE, [f.line() for f in self.facts]),
            (CHAINS_TITLE, [c.line() for c in self.chains]),
            ("EVIDENCE TURNS:", [e.line() for e in self.episodes]),
            (ENTITIES_TITLE, [e.line() for e in self.entities]),
        ]
        out: list[str] = []
        used = 0
        for title, lines in sections:
            kept: list[str] = []
            cost = estimate_tokens(title) + 1
            for line in lines:
                cost += estimate_tokens(line) + 1
                if used + cost > budget_tokens and out + kept:
                    break
                kept.append(line)
                used, cost = used + cost, 0
            out += [title, *kept] if kept else []
        return "\n".join(out)
