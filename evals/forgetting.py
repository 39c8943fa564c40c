"""The forgetting eval: after `Memory.forget`, is the forgotten text gone and the rest still there?

Each item of the set (`evals/data/forgetting_set.json`) writes one to four
sessions for a fresh user, forgets with a selector, then asks questions:

- **forgotten absent**: no `forgotten` string occurs (case-insensitively) in the
  rendered packet of any question, nor in the facts `Memory.facts` returns (now
  and at each session time), and no packet cites a turn the forget removed;
- **kept present**: every `kept` string occurs in the packet of some question.

Kinds: `direct_fact`, `derived`, `entity`, `session`, `time_range` (hard
deletes, scored together) and `control` (near misses that must survive, scored
apart). A `baseline` run skips the forget and requires every forgotten *and*
kept string to be found: an item whose strings are not found before forgetting
proves nothing, so the set is checked with it. Offline: rule extraction and
MiniLM, on a temporary data dir unless one is given.

Example:
    >>> results = run()                       # the packaged set, temporary data dir
    >>> print_results(results)
    >>> results.ok
    True
"""

from __future__ import annotations

import json
import re
import tempfile
import time
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from importlib import resources
from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from graphmem.errors import GraphMemError
from graphmem.memory import Memory

__all__ = [
    "ForgettingItem",
    "ForgettingResults",
    "HARD_DELETE_KINDS",
    "KINDS",
    "load_set",
    "print_results",
    "run",
    "run_items",
]

Kind = Literal["direct_fact", "derived", "entity", "session", "time_range", "control"]
KINDS: tuple[str, ...] = get_args(Kind)
HARD_DELETE_KINDS: tuple[str, ...] = tuple(k for k in KINDS if k != "control")
SELECTOR_KEYS = frozenset({"fact", "entity", "session_id", "text", "between", "all"})
SET_FILE = "forgetting_set.json"
ASK_LIMIT = 25
PACKET_TOKENS = 100_000
Mode = Literal["forget", "baseline"]
Check = Literal["forgotten", "kept", "cited", "error"]


# ------------------------------------------------------------------ the set


class SetTurn(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    speaker: str = Field(min_length=1)
    content: str = Field(min_length=1)
    id: str = Field(min_length=1)


class SetSession(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    session_id: str = Field(min_length=1)
    session_time: datetime
    turns: tuple[SetTurn, ...] = Field(min_length=1)

    @field_validator("session_time")
    @classmethod
    def _aware(cls, value: datetime) -> datetime:
        if value.tzinfo is None:
            raise ValueError("session_time needs a UTC offset")
        return value


class ForgettingItem(BaseModel):
    """One case: sessions to write, what to forget, what must be gone, what must stay."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(pattern=r"^[A-Za-z0-9_-]{1,100}$")
    kind: Kind
    sessions: tuple[SetSession, ...] = Field(min_length=1)
    forget: dict[str, Any]
    forgotten: tuple[str, ...] = Field(min_length=1)
    ask: tuple[str, ...] = Field(min_length=1)
    kept: tuple[str, ...] = ()

    @field_validator("forget")
    @classmethod
    def _one_selector(cls, value: dict[str, Any]) -> dict[str, Any]:
        if len(value) != 1 or not set(value) <= SELECTOR_KEYS:
            raise ValueError(f"forget must have exactly one of {sorted(SELECTOR_KEYS)}, not {sorted(value)}")
        return value

    @model_validator(mode="after")
    def _consistent(self) -> "ForgettingItem":
        turn_ids = [t.id for s in self.sessions for t in s.turns]
        if len(set(turn_ids)) != len(turn_ids):
            raise ValueError(f"{self.id}: turn ids repeat")
        if len({s.session_id for s in self.sessions}) != len(self.sessions):
            raise ValueError(f"{self.id}: session ids repeat")
        for kept in self.kept:
            clash = [f for f in self.forgotten if f.lower() in kept.lower()]
            if clash:
                raise ValueError(f"{self.id}: kept {kept!r} contains forgotten {clash[0]!r}; it can never pass")
        return self

    @property
    def user_id(self) -> str:
        return f"forgetting_{self.id}"[:128]

    @property
    def now(self) -> datetime:
        """Questions are asked a day after the last session."""
        return max(s.session_time for s in self.sessions) + timedelta(days=1)


def load_set(path: str | Path | None = None) -> list[ForgettingItem]:
    """The items of a forgetting set; default: the one packaged with graphmem.

    Example:
        >>> len(load_set()) >= 50
        True
    """
    if path is None:
        raw = resources.files("graphmem.evals").joinpath("data", SET_FILE).read_text(encoding="utf-8")
    else:
        raw = Path(path).read_text(encoding="utf-8")
    data = json.loads(raw)
    items = data["items"] if isinstance(data, dict) else data
    loaded = [ForgettingItem.model_validate(item) for item in items]
    ids = [item.id for item in loaded]
    if len(set(ids)) != len(ids):
        raise ValueError("item ids repeat")
    return loaded


# ------------------------------------------------------------------ results


class Failure(BaseModel):
    model_config = ConfigDict(frozen=True)

    item_id: str
    kind: str
    check: Check
    reason: str


class ItemOutcome(BaseModel):
    model_config = ConfigDict(frozen=True)

    item_id: str
    kind: str
    forgotten_ok: bool
    kept_ok: bool | None  # None: the item keeps nothing
    failures: tuple[Failure, ...] = ()
    deleted: dict[str, int] = Field(default_factory=dict)  # the forget report's counts
    forget_seconds: float | None = None


class KindScore(BaseModel):
    """Items of one kind (or group): how many passed each check."""

    model_config = ConfigDict(frozen=True)

    kind: str
    items: int = 0
    forgotten_passed: int = 0
    kept_passed: int = 0
    kept_total: int = 0

    @classmethod
    def of(cls, kind: str, outcomes: Iterable[ItemOutcome]) -> "KindScore":
        chosen = list(outcomes)
        kept = [o for o in chosen if o.kept_ok is not None]
        return cls(
            kind=kind,
            items=len(chosen),
            forgotten_passed=sum(o.forgotten_ok for o in chosen),
            kept_passed=sum(bool(o.kept_ok) for o in kept),
            kept_total=len(kept),
        )


class ForgettingResults(BaseModel):
    """Per-kind scores, hard deletes and controls apart, and every failure with its reason."""

    model_config = ConfigDict(frozen=True)

    mode: Mode
    by_kind: tuple[KindScore, ...]
    hard_delete: KindScore
    control: KindScore
    failures: tuple[Failure, ...]
    outcomes: tuple[ItemOutcome, ...]
    seconds: float

    @property
    def ok(self) -> bool:
        return not self.failures


# ------------------------------------------------------------------ running


def run(path: str | Path | None = None, data_dir: str | Path | None = None, *, baseline: bool = False,
        embedder: Any = None) -> ForgettingResults:
    """Run the set at `path` (default: the packaged one) on `data_dir` (default: a temporary dir).

    `baseline=True` skips the forget and checks the set itself: every forgotten
    and kept string must be found before anything is forgotten.
    """
    items = load_set(path)
    if data_dir is not None:
        with _memory(data_dir, embedder) as mem:
            return run_items(mem, items, baseline=baseline)
    with tempfile.TemporaryDirectory(prefix="graphmem-forgetting-") as tmp:
        with _memory(tmp, embedder) as mem:
            return run_items(mem, items, baseline=baseline)


def _memory(data_dir: str | Path, embedder: Any) -> Memory:
    from graphmem.ingest.rules import RuleExtractor

    return Memory(data_dir=data_dir, embedder=embedder, extractor=RuleExtractor())  # offline, whatever the env says


def run_items(mem: Memory, items: Sequence[ForgettingItem], *, baseline: bool = False) -> ForgettingResults:
    """Run `items` on an open Memory, one fresh user each."""
    if not baseline and not hasattr(mem, "forget"):
        raise GraphMemError("this graphmem has no Memory.forget; run with baseline=True to check the set")
    started = time.perf_counter()
    outcomes = [run_item(mem, item, baseline=baseline) for item in items]
    return ForgettingResults(
        mode="baseline" if baseline else "forget",
        by_kind=tuple(KindScore.of(k, (o for o in outcomes if o.kind == k)) for k in KINDS),
        hard_delete=KindScore.of("hard delete", (o for o in outcomes if o.kind in HARD_DELETE_KINDS)),
        control=KindScore.of("control", (o for o in outcomes if o.kind == "control")),
        failures=tuple(f for o in outcomes for f in o.failures),
        outcomes=tuple(outcomes),
        seconds=round(time.perf_counter() - started, 2),
    )


def run_item(mem: Memory, item: ForgettingItem, *, baseline: bool = False) -> ItemOutcome:
    """Write, forget (unless baseline), ask, and judge one item."""
    try:
        return _judge(item, *_observe(mem, item, baseline), baseline=baseline)
    except Exception as exc:  # one broken item must not hide the others' results
        failure = Failure(item_id=item.id, kind=item.kind, check="error", reason=f"{type(exc).__name__}: {exc}")
        return ItemOutcome(item_id=item.id, kind=item.kind, forgotten_ok=False,
                           kept_ok=False if item.kept else None, failures=(failure,))


def _observe(mem: Memory, item: ForgettingItem, baseline: bool):
    """(packets by question, fact texts, cited turn ids, forget report or None)."""
    user = item.user_id
    mem.drop_user(user)
    for session in item.sessions:
        turns = [turn.model_dump() for turn in session.turns]
        mem.write(user, turns, session.session_time, session_id=session.session_id)
    report = None
    if not baseline:
        report = mem.forget(user, dict(item.forget), confirm=bool(item.forget.get("all")))
    packets: dict[str, str] = {}
    cited: set[str] = set()
    for question in item.ask:
        packet = mem.search(user, question, now=item.now, limit=ASK_LIMIT, budget_tokens=PACKET_TOKENS)
        packets[question] = packet.to_prompt(budget_tokens=PACKET_TOKENS)
        cited.update(packet.cited_turn_ids)
    moments = [None, *(s.session_time for s in item.sessions)]
    facts = {f"{f.fact} | {f.subject} | {f.object}" for m in moments for f in mem.facts(user, valid_at=m)}
    return packets, sorted(facts), cited, report


def _judge(item: ForgettingItem, packets: dict[str, str], facts: list[str], cited: set[str], report: Any,
           *, baseline: bool) -> ItemOutcome:
    failures: list[Failure] = []

    def fail(check: Check, reason: str) -> None:
        failures.append(Failure(item_id=item.id, kind=item.kind, check=check, reason=reason))

    for needle in item.forgotten:
        where = _where(needle, packets, facts)
        if where and not baseline:
            fail("forgotten", f"{needle!r} still found {where}")
        elif not where and baseline:
            fail("forgotten", f"{needle!r} not found before forgetting: the item proves nothing")
    if baseline and not _selects_something(item, facts):
        fail("forgotten", f"the selector {item.forget} matches no turn, fact or session")
    removed = set(getattr(report, "turn_ids", ()) or ())
    if removed & cited:
        fail("cited", f"packets cite removed turns {sorted(removed & cited)}")
    forgotten_ok = not failures
    for needle in item.kept:
        if not _where(needle, packets, []):
            fail("kept", f"{needle!r} in no packet of {list(item.ask)}")
    deleted = {} if report is None else {
        k: int(getattr(report, k, 0)) for k in ("facts_deleted", "episodes_deleted", "entities_deleted")}
    return ItemOutcome(
        item_id=item.id, kind=item.kind, forgotten_ok=forgotten_ok,
        kept_ok=not any(f.check == "kept" for f in failures) if item.kept else None,
        failures=tuple(failures), deleted=deleted,
        forget_seconds=None if report is None else float(getattr(report, "seconds", 0.0)),
    )


def _selects_something(item: ForgettingItem, facts: Sequence[str]) -> bool:
    """Baseline check that the selector can match: its text or entity occurs in a
    turn or a fact, its session exists, its range holds a session."""
    (key, value), = item.forget.items()
    turns = [t.content.lower() for s in item.sessions for t in s.turns]
    if key in ("text", "entity"):
        needle = str(value).lower()
        return any(needle in text for text in turns) or any(needle in f.lower() for f in facts)
    if key == "session_id":
        return any(s.session_id == value for s in item.sessions)
    if key == "between":
        start, end = (datetime.fromisoformat(str(v).replace("Z", "+00:00")) for v in value)
        return any(start <= s.session_time < end for s in item.sessions)
    return key == "all" or key == "fact"


def _where(needle: str, packets: dict[str, str], facts: Sequence[str]) -> str:
    """Where `needle` occurs (case-insensitively), with a little context; '' when nowhere."""
    pattern = re.compile(re.escape(needle), re.IGNORECASE)
    for question, text in packets.items():
        found = pattern.search(text)
        if found:
            return f"in the packet for {question!r}: ...{_context(text, found)}..."
    for fact in facts:
        found = pattern.search(fact)
        if found:
            return f"in Memory.facts: {fact!r}"
    return ""


def _context(text: str, found: re.Match[str], width: int = 60) -> str:
    return text[max(0, found.start() - width): found.end() + width].replace("\n", " | ")


# ------------------------------------------------------------------ printing


def _ratio(passed: int, total: int) -> str:
    return f"{passed}/{total} {100.0 * passed / total:5.1f}%" if total else "-"


def print_results(results: ForgettingResults) -> None:
    """A per-kind table (hard deletes, then controls), then the failures."""
    first = "forgotten found" if results.mode == "baseline" else "forgotten absent"
    print(f"forgetting eval ({results.mode}, {len(results.outcomes)} items, {results.seconds:.1f} s)")
    print(f"{'kind':<14}{'items':>6}  {first:<18}{'kept present':<18}")
    rows = [s for s in results.by_kind if s.kind != "control"] + [None, results.hard_delete, results.control]
    for score in rows:
        if score is None:
            print("-" * 56)
            continue
        print(f"{score.kind:<14}{score.items:>6}  {_ratio(score.forgotten_passed, score.items):<18}"
              f"{_ratio(score.kept_passed, score.kept_total):<18}")
    if results.failures:
        print(f"\n{len(results.failures)} failure(s):")
        for f in results.failures:
            print(f"  {f.item_id} [{f.check}] {f.reason}")
    else:
        print("\nno failures")
