"""Fact resolution: ADD / MERGE / SUPERSEDE / IGNORE for each extracted fact.

Offline, the decision is structural (the rules of `graphmem.graph.fact_repository.insert_fact`):
a restatement of an open fact merges, a single-valued slot supersedes, anything
else is added. With an LLM, facts that have candidates in the graph (open facts
of the same slot, or the most similar facts) are decided in ONE batched call;
facts without candidates never cost a call. Sessions out of order are handled
by the same timeline planner either way.

Before any of that, the write gate (`ingest.write_gate`) decides per fact: active
facts go on as above; a candidate is held aside as a ``CANDIDATE`` edge (it closes
nothing) until `confirm`; a user's stored decision on the same turn's fact
(confirmed / rejected) wins over the gate, which is how a rebuild keeps them.

The facts are decided one after the other, each seeing what the ones before it
did, on the slots read once for the whole write (`ingest.session_facts`), which
writes the result back in a few queries at the end.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import NamedTuple

import numpy as np

from graphmem.graph import cypher as q
from graphmem.graph import fact_repository
from graphmem.graph.cypher import candidates as cq
from graphmem.ingest import write_gate
from graphmem.ingest.session_facts import SessionFacts
from graphmem.schema import time as t
from graphmem.schema.models import FactEdge
from graphmem.schema.supersession import plan_closures
from graphmem.graph.store import Store

SIMILAR_FACT = 0.75
SIMILAR_K = 3


@dataclass
class PlannedFact:
    """One extracted fact, its endpoints resolved, ready to be decided on."""

    edge: FactEdge
    embedding: np.ndarray
    single_valued: bool
    derived_from: list[int] = field(default_factory=list)
    ignore: bool = False
    ends: bool = False  # "I don't live in Paris anymore": closes the open fact
    closes_only: bool = False  # an ending dropped when it closes nothing
    ends_any: bool = False  # an ending that, matching nothing, closes the one open fact of its slot
    turn: str = ""  # the turn's text, for the write gate
    verdict: write_gate.GateVerdict | None = None
    object_name: str = ""  # the object as said, to find its clause in the turn
    gate_key: str = ""  # `write_gate.decision_key`: where a user's confirm/reject is found again


class Decided(NamedTuple):
    """What happened to one planned fact: the action, the fact it landed in, and
    how many facts (older ones, or itself when a later value exists) it closed."""

    action: str
    fact_uuid: str | None
    closed: int = 0


@dataclass
class FactOutcome:
    """Counts per action ("added", "merged", "superseded", "ignored", "candidate") plus
    "closed" (facts whose validity the write ended), and each plan's fact uuid
    (a candidate's uuid is not a fact's: None)."""

    counts: Counter
    fact_uuids: list[str | None]


def read_facts(store: Store, user_id: str, plans: Sequence[PlannedFact]) -> SessionFacts:
    """The stored facts deciding `plans` can touch: their slots, their endings' predicates."""
    active = [p for p in plans if not p.ignore]
    return SessionFacts.read(
        store, user_id,
        slots=[(p.edge.source_node_uuid, p.edge.slot) for p in active],
        kin=[(p.edge.source_node_uuid, _kin(p)) for p in active if p.ends],
    )


def candidates_for(plan: PlannedFact, facts: SessionFacts, nearest: Sequence[dict]) -> list[tuple[str, str]]:
    """(uuid, fact) of open facts in the same slot and of the most similar open facts
    (`nearest`: rows of `cypher.nearest_facts` for the plan's vector)."""
    seen: dict[str, str] = {}
    for edge in facts.slot((plan.edge.source_node_uuid, plan.edge.slot)):
        if edge.expired_at is None:
            seen[edge.uuid] = edge.fact
    for row in nearest:
        if row["similarity"] >= SIMILAR_FACT and row["scope"] == plan.edge.scope:  # never merge across scopes
            seen.setdefault(row["uuid"], row["fact"])
    return list(seen.items())


# an ending of one of these closes the open fact of any of them: "Tom and I split up" ends a marriage too,
# "I lost interest in photography" ends "I got into photography" (a STARTED the rules read as the hobby)
_ENDING_KIN = {"PARTNER_OF": ("PARTNER_OF", "MARRIED_TO"), "MARRIED_TO": ("MARRIED_TO", "PARTNER_OF"),
               "LIKES": ("LIKES", "STARTED")}
def _kin(plan: PlannedFact) -> tuple[str, ...]:
    return _ENDING_KIN.get(plan.edge.name, (plan.edge.name,))


_ARTICLE = re.compile(r"^(?:(?:a|an|the|my|our|his|her|their)\s+)+")


def _words(name: str) -> str:
    return " " + _ARTICLE.sub("", " ".join(name.casefold().replace("\u2019", "'").split())) + " "


_INITIALISM = re.compile(r"(?:[A-Z]\.?){2,6}")
_NOT_INITIALLED = frozenset("of the and & for de la le du von van".split())


def is_initialism(name: str | None) -> bool:
    """ "TCS", "UCT", "U.C.L.": a name said by its initials (pure)."""
    return bool(name) and _INITIALISM.fullmatch(name.strip()) is not None


def initials(name: str) -> str:
    """The initials of a capitalised name, small words skipped (pure): "University of Cape Town" -> "UCT",
    "Tata Consultancy Services" -> "TCS"; "" when a word is not capitalised (no name said by initials)."""
    words = [w for w in name.replace("-", " ").split() if w.casefold() not in _NOT_INITIALLED]
    if len(words) < 2 or not all(w[:1].isupper() for w in words):
        return ""
    return "".join(w[0] for w in words)


def ended_fact(rows: Sequence[dict], plan: PlannedFact) -> FactEdge | None:
    """The open fact an ending closes (pure): same subject, predicate (or its kin, any
    slot: "Rex died" knows no species), open before the end; the same object, else
    the one open fact whose object holds the ending's words whole ("gave up climbing"
    ends "rock climbing", "stopped hiking" ends "hiking in the mountains"), else the one
    open fact of the slot the ending names ("our dog died" ends the dog Rex, ``PET:dog``),
    else, for an ending marked `ends_any` (the learned reader's, whose value may be
    missing or said differently: "we finalised the divorce"), the one open fact of its
    predicate and kin when there is exactly one."""
    target = plan.edge.target_node_uuid
    open_ = open_before(rows, plan.edge.invalid_at)
    exact = [e for e, _ in open_ if e.target_node_uuid == target]
    if exact:
        return exact[0]
    said = _words(plan.object_name) if plan.object_name else ""
    only = open_[0][0] if plan.ends_any and len(open_) == 1 else None
    if len(said.split()) == 0:
        return only
    holding = [e for e, row in open_ if e.name == plan.edge.name and said in _words(str(row.get("object") or ""))]
    if len(holding) == 1:
        return holding[0]
    if not holding:  # of the kin: "the divorce from Anil" (read as a partner's ending) ends MARRIED_TO "Anil Mehta"
        kin = [e for e, row in open_ if e.name in _kin(plan) and said in _words(str(row.get("object") or ""))]
        if len({e.target_node_uuid for e in kin}) == 1:
            return next((e for e in kin if e.name == plan.edge.name), kin[0])
    if not holding and is_initialism(plan.object_name):  # "made redundant from TCS" ends "Tata Consultancy Services"
        holding = [e for e, row in open_ if e.name == plan.edge.name
                   and initials(str(row.get("object") or "")) == plan.object_name.strip(".").replace(".", "")]
        if len(holding) == 1:
            return holding[0]
    if not holding and plan.edge.name == "LIKES":  # a pastime under another name: "packed in climbing" ends "bouldering"
        from graphmem.ingest.rules.hobbies import kindred  # on first need: reading facts never loads the rules

        other = {_words(n) for n in kindred(plan.object_name)}
        # of the kin too: "took up bouldering" was read as STARTED alone; one object, whichever kin predicates hold it
        found = [(e, row) for e, row in open_ if e.name in _kin(plan)
                 and any(n in _words(str(row.get("object") or "")) for n in other)]
        if len({e.target_node_uuid for e, _ in found}) == 1:
            return next((e for e, _ in found if e.name == "LIKES"), found[0][0])
    # the ending names the slot's kind: "our dog died" ends the one open pet of the slot PET:dog
    kind = [e for e, _ in open_ if e.name == plan.edge.name and ":" in e.slot
            and _words(e.slot.split(":", 1)[1]) == said]
    return kind[0] if len(kind) == 1 else only


def apply_ending(facts: SessionFacts, plan: PlannedFact) -> Decided | None:
    """Close the open fact this ending ends (`ended_fact`) at the stated end; None if there is none.

    The fact stays believed (no expiry, no successor): its validity is over,
    so it reads as 'ended'.
    """
    rows = facts.kin_rows((plan.edge.source_node_uuid, _kin(plan)))
    edge = ended_fact(rows, plan)
    if edge is None:
        return None
    for other in also_ended(rows, edge, plan):  # "I'm into X" read as LIKES and STARTED: one ending ends both
        facts.end(other.uuid, plan.edge.invalid_at, plan.edge.episodes)
    facts.end(edge.uuid, plan.edge.invalid_at, plan.edge.episodes)
    return Decided("merged", edge.uuid)


def also_ended(rows: Sequence[dict], edge: FactEdge, plan: PlannedFact) -> list[FactEdge]:
    """The other open facts (pure) of the ending's kin predicates about the very object `edge` holds
    ("gave up photography" closes LIKES and STARTED photography; a break-up PARTNER_OF and MARRIED_TO),
    and a pastime's other names that are open as LIKES too ("dropped out of the choir" ends the choir
    and the singing that were read of one sentence)."""
    open_ = open_before(rows, plan.edge.invalid_at)
    same = [e for e, _ in open_ if e.uuid != edge.uuid and e.target_node_uuid == edge.target_node_uuid]
    if edge.name != "LIKES":
        return same
    from graphmem.ingest.rules.hobbies import kindred  # on first need: reading facts never loads the rules

    ended = next((str(row.get("object") or "") for e, row in open_ if e.uuid == edge.uuid), "")
    names = {_words(n) for n in kindred(ended)} if ended else set()
    taken = {e.uuid for e in same} | {edge.uuid}
    return same + [e for e, row in open_ if e.uuid not in taken and e.name == "LIKES"
                   and _words(str(row.get("object") or "")) in names]


def open_before(rows: Sequence[dict], end: datetime) -> list[tuple[FactEdge, dict]]:
    """The facts of `rows` still believed and not ended, begun before `end` (pure), with their rows."""
    return [(e, row) for row in rows
            if (e := fact_repository.edge_from_row(row)).expired_at is None and e.invalid_at is None
            and e.order_key() < end]


def apply_structural(facts: SessionFacts, plan: PlannedFact, now: datetime) -> Decided:
    """Endings close their open fact. One that finds none is kept as a record of its
    own that closes nothing (it would otherwise supersede whatever value holds at the
    session time), or dropped when the extractor marked it `closes_only`."""
    if plan.ends:
        ended = apply_ending(facts, plan)
        if ended is not None:
            return ended
        if plan.closes_only:
            return Decided("ignored", None)
    result = facts.insert(plan.edge, plan.embedding.tolist(), single_valued=plan.single_valued and not plan.ends,
                          now=now)
    return Decided(result.action, result.fact_uuid, len(result.closed))


def apply_decision(facts: SessionFacts, plan: PlannedFact, action: str, target: str | None, now: datetime
                   ) -> Decided:
    """Carry out an LLM decision; falls back to the structural rule for ADD. The
    target must have been read (`SessionFacts.include`)."""
    if action == "IGNORE":
        return Decided("ignored", None)
    if action == "MERGE" and target:
        facts.merge(target, plan.edge.episodes, plan.edge.valid_at)
        return Decided("merged", target)
    if action == "SUPERSEDE" and target:
        existing = [edge] if (edge := facts.get(target)) is not None else []
        facts.create(plan.edge, plan.embedding.tolist())
        closures = plan_closures(existing, plan.edge, now)
        for closure in closures:
            facts.close(closure)
        return Decided("superseded" if closures else "added", plan.edge.uuid, len(closures))
    return apply_structural(facts, plan, now)


def gate_plans(store: Store, user_id: str, plans: Sequence[PlannedFact], facts: SessionFacts) -> list[str]:
    """Per plan: "write" (active now), "candidate" (held for confirmation),
    "confirmed" / "rejected" (the user decided on this turn's fact before: a rebuild);
    "write" for ignored plans. A confirmed fact is placed by the structural rules, as
    `confirm` placed it, so replaying it asks no LLM."""
    keys = sorted({p.gate_key for p in plans if p.gate_key and not p.ignore})
    decided = {r["key"]: r["decision"] for r in store.run(user_id, cq.decisions(keys), read_only=True)} if keys else {}
    fates = []
    for plan in plans:
        decision = decided.get(plan.gate_key)
        if plan.ignore:
            fates.append("write")
        elif decision in ("confirmed", "rejected"):
            fates.append(decision)
        else:
            verdict = gate(facts, plan)
            plan.verdict = verdict
            fates.append("candidate" if verdict.status == "candidate" else "write")
    return fates


def restates_active(facts: SessionFacts, plan: PlannedFact) -> bool:
    """An open active fact with the same subject, relation and object exists."""
    return any(e.name == plan.edge.name and e.target_node_uuid == plan.edge.target_node_uuid
               and e.expired_at is None and e.invalid_at is None
               for e in facts.slot((plan.edge.source_node_uuid, plan.edge.slot)))


def gate(facts: SessionFacts, plan: PlannedFact) -> write_gate.GateVerdict:
    duplication = 0.0 if plan.ends else float(restates_active(facts, plan))
    found, why = write_gate.signals(plan.turn, plan.edge.name, plan.object_name or plan.edge.fact,
                                    confidence=plan.edge.confidence, importance=plan.edge.importance,
                                    duplication=duplication)
    return write_gate.decide(found, why)


def hold(store: Store, user_id: str, plan: PlannedFact, now: datetime) -> str:
    """Keep `plan` as a candidate (or add its turn to the same candidate); its uuid."""
    edge = plan.edge
    same = store.run(user_id, cq.same_candidate(edge.source_node_uuid, edge.name, edge.target_node_uuid, edge.scope))
    if same:
        store.run(user_id, cq.add_candidate_episodes(same[0]["uuid"], edge.episodes))
        return same[0]["uuid"]
    verdict = plan.verdict
    extra = {"status": "candidate", "single_valued": plan.single_valued, "ends": plan.ends, "gate_key": plan.gate_key,
             "write_score": verdict.score if verdict else 0.0, "gate_reason": verdict.reason if verdict else "",
             "held_at": t.encode(now)}
    store.run(user_id, cq.create_candidate(edge, plan.embedding.tolist(), extra))
    return edge.uuid


def resolve_facts(
    store: Store, user_id: str, plans: Sequence[PlannedFact], *, now: datetime, llm=None
) -> FactOutcome:
    """Gate, decide and write every planned fact, in order; derived facts point at their sources."""
    counts: Counter = Counter()
    facts = read_facts(store, user_id, plans)
    fates = gate_plans(store, user_id, plans, facts)
    decisions: dict[int, tuple[str, str | None]] = {}
    if llm is not None:
        decisions = _ask_llm(store, user_id, plans, llm, facts, skip={i for i, f in enumerate(fates) if f != "write"})
        facts.include(target for action, target in decisions.values() if action in ("MERGE", "SUPERSEDE") and target)
    uuids: list[str | None] = []
    for i, plan in enumerate(plans):
        if plan.ignore or fates[i] == "rejected":
            counts["ignored"] += 1
            uuids.append(None)
            continue
        sources = [uuids[j] for j in plan.derived_from if 0 <= j < len(uuids) and uuids[j]]
        if sources:
            plan.edge.derived_from = sources
        if fates[i] == "candidate":
            hold(store, user_id, plan, now)
            counts["candidate"] += 1
            uuids.append(None)
            continue
        if fates[i] == "confirmed":
            decided = apply_structural(facts, plan, now)
        elif i in decisions:
            decided = apply_decision(facts, plan, *decisions[i], now)
        else:
            decided = apply_structural(facts, plan, now)
        counts[decided.action] += 1
        counts["closed"] += decided.closed
        uuids.append(decided.fact_uuid)
    facts.write(now)
    return FactOutcome(counts=counts, fact_uuids=uuids)


def _ask_llm(
    store: Store, user_id: str, plans: Sequence[PlannedFact], llm, facts: SessionFacts, skip: set[int] = frozenset()
) -> dict[int, tuple[str, str | None]]:
    from graphmem.ingest.prompts.resolve import ExistingFact, ResolveCandidate

    asked: list[int] = []
    candidates = []
    todo = [i for i, plan in enumerate(plans) if not plan.ignore and i not in skip]
    nearest: dict[int, list[dict]] = {i: [] for i in todo}
    if todo:  # one vector query for every plan (the graph is as it was before this write)
        query = q.nearest_facts_each([plans[i].embedding.tolist() for i in todo], SIMILAR_K)
        for row in store.run(user_id, query, read_only=True):
            nearest[todo[row["i"]]].append(row)
    for i in todo:
        plan = plans[i]
        found = candidates_for(plan, facts, nearest[i])
        if found:
            asked.append(i)
            existing = tuple(ExistingFact(id=uuid, fact=fact) for uuid, fact in found)
            candidates.append(ResolveCandidate(fact=plan.edge.fact, existing=existing))
    if not candidates:
        return {}
    decisions = llm.resolve(candidates)
    return {i: (d.action.value, d.target_id) for i, d in zip(asked, decisions)}
