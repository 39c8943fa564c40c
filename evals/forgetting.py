"""The forgetting eval: after `Memory.forget`, is the forgotten text gone everywhere and the rest still there?

Each item of the set (`evals/data/forgetting_set.json`) writes one to four
sessions for a fresh user, then, for every `forgotten` string, runs six checks
twice: before forgetting (the baseline: the string must be findable, or the
item proves nothing) and after `Memory.forget` (it must be gone):

- **search**: the rendered packet of every `ask` question (after: nor may a
  packet cite a removed turn);
- **facts**: `Memory.facts` now and at each session time;
- **history**: `Memory.history` of every entity the user had;
- **graph**: every node and edge property, through `graphmem.graph.inspect`
  (`contains_text`: names, aliases, summaries, fact and turn text);
- **bytes**: a case-insensitive byte scan of every file under the data dir
  (forget compacts; the eval turns RDB string compression off so no compressed
  run hides a string);
- **cache**: the LLM cache (`<data dir>/llm_cache`): no file holds the string and
  no entry derives from a removed turn. With the offline rule extractor there is
  no cache and the check does not apply (`tests/forget/test_leftovers.py`
  covers it with a scripted LLM).

Search, graph and bytes must find every string before forgetting; facts,
history and cache apply to an item when they found one. `kept` strings must
be in the packet of some question after the forget.

Kinds: `direct_fact`, `derived`, `entity`, `session`, `time_range` (hard
deletes, scored together), `control` (near misses that must survive, scored
apart) and `expiry`: facts written with an expiry (`ttl_days` or "until ...")
and removed by `Memory.purge(now=purge_at)` instead of a forget. A purge keeps
the turns (evidence, by design), so for `expiry` the graph check excludes turn
text and search and bytes do not apply; facts, history, the graph (summaries,
names, facts) must hold nothing of it.

Each item runs as its own user and the user is dropped (and the files
compacted) before the next, so the byte scan sees one item at a time.
Offline: rule extraction and MiniLM, on a temporary data dir unless one is given.

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

from graphmem.schema.errors import GraphMemError
from graphmem.graph.llm_cache import LLMCache
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

Kind = Literal["direct_fact", "derived", "entity", "session", "time_range", "control", "expiry"]
KINDS: tuple[str, ...] = get_args(Kind)
HARD_DELETE_KINDS: tuple[str, ...] = tuple(k for k in KINDS if k not in ("control", "expiry"))
SELECTOR_KEYS = frozenset({"fact", "entity", "session_id", "text", "between", "all"})
SET_FILE = "forgetting_set.json"
ASK_LIMIT = 25
PACKET_TOKENS = 100_000
Mode = Literal["forget", "baseline"]
CheckName = Literal["search", "facts", "history", "graph", "bytes", "cache"]
CHECKS: tuple[str, ...] = get_args(CheckName)
MUST_FIND = ("search", "graph", "bytes")  # before forgetting, every string is in these
Check = Literal["search", "facts", "history", "graph", "bytes", "cache", "kept", "selector", "error"]
CACHE_DIR = "llm_cache"


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
    ttl_days: float | None = Field(default=None, gt=0)

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
    forget: dict[str, Any] | None = None
    purge_at: datetime | None = None
    forgotten: tuple[str, ...] = Field(min_length=1)
    ask: tuple[str, ...] = Field(min_length=1)
    kept: tuple[str, ...] = ()

    @field_validator("forget")
    @classmethod
    def _one_selector(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        if value is not None and len(value) != 1 or not set(value) <= SELECTOR_KEYS:
            raise ValueError(f"forget must have exactly one of {sorted(SELECTOR_KEYS)}, not {sorted(value)}")
        return value

    @model_validator(mode="after")
    def _consistent(self) -> "ForgettingItem":
        if (self.kind == "expiry") != (self.purge_at is not None) or (self.forget is None) == (self.kind != "expiry"):
            raise ValueError(f"{self.id}: an expiry item has purge_at and no forget; any other a forget")
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
    """Per check: True passed, False failed, None does not apply to this item."""

    model_config = ConfigDict(frozen=True)

    item_id: str
    kind: str
    checks: dict[str, bool | None] = Field(default_factory=dict)
    kept_ok: bool | None = None  # None: the item keeps nothing
    failures: tuple[Failure, ...] = ()
    deleted: dict[str, int] = Field(default_factory=dict)  # the forget report's counts
    forget_seconds: float | None = None

    @property
    def forgotten_ok(self) -> bool:
        return not any(f.check not in ("kept",) for f in self.failures)


class KindScore(BaseModel):
    """Items of one kind (or group): per check, how many passed of those it applies to."""

    model_config = ConfigDict(frozen=True)

    kind: str
    items: int = 0
    checks: dict[str, tuple[int, int]] = Field(default_factory=dict)  # check -> (passed, applicable)
    forgotten_passed: int = 0
    kept_passed: int = 0
    kept_total: int = 0

    @classmethod
    def of(cls, kind: str, outcomes: Iterable[ItemOutcome]) -> "KindScore":
        chosen = list(outcomes)
        kept = [o for o in chosen if o.kept_ok is not None]
        checks = {}
        for name in CHECKS:
            applied = [o.checks[name] for o in chosen if o.checks.get(name) is not None]
            checks[name] = (sum(applied), len(applied))
        return cls(
            kind=kind, items=len(chosen), checks=checks,
            forgotten_passed=sum(o.forgotten_ok for o in chosen),
            kept_passed=sum(bool(o.kept_ok) for o in kept), kept_total=len(kept),
        )


class ForgettingResults(BaseModel):
    """Per-kind scores per check, hard deletes and controls apart, and every failure with its reason."""

    model_config = ConfigDict(frozen=True)

    mode: Mode
    by_kind: tuple[KindScore, ...]
    hard_delete: KindScore
    control: KindScore
    total: KindScore
    failures: tuple[Failure, ...]
    outcomes: tuple[ItemOutcome, ...]
    seconds: float

    @property
    def ok(self) -> bool:
        return not self.failures


# ------------------------------------------------------------------ running


def run(path: str | Path | None = None, data_dir: str | Path | None = None, *, baseline: bool = False,
        embedder: Any = None, llm: LLMEndpoint | None = None) -> ForgettingResults:
    """Run the set at `path` (default: the packaged one) on `data_dir` (default: a temporary dir).

    `baseline=True` stops after the baseline: every string must be findable
    before anything is forgotten. With `llm`, turns are extracted by that
    OpenAI-compatible endpoint through the LLM cache under the data dir, so the
    cache check applies; without, the offline rules run and no cache exists.
    """
    items = load_set(path)
    if data_dir is not None:
        with _memory(data_dir, embedder, llm) as mem:
            return run_items(mem, items, baseline=baseline)
    with tempfile.TemporaryDirectory(prefix="graphmem-forgetting-") as tmp:
        with _memory(tmp, embedder, llm) as mem:
            return run_items(mem, items, baseline=baseline)


class LLMEndpoint(BaseModel):
    """Where the LLM extractor of a forgetting run sends its calls."""

    base_url: str
    model: str


def _memory(data_dir: str | Path, embedder: Any, llm: LLMEndpoint | None) -> Memory:
    if llm is None:
        from graphmem.ingest.rules import RuleExtractor

        return Memory(data_dir=data_dir, embedder=embedder, extractor=RuleExtractor())  # offline, whatever the env says
    from graphmem.ingest.llm import LLMExtractor

    extractor = LLMExtractor(llm.base_url, llm.model, cache_dir=Path(data_dir) / CACHE_DIR)
    return Memory(data_dir=data_dir, embedder=embedder, extractor=extractor)


def run_items(mem: Memory, items: Sequence[ForgettingItem], *, baseline: bool = False) -> ForgettingResults:
    """Run `items` on an open Memory, one fresh user each, dropped afterwards."""
    started = time.perf_counter()
    if mem.store.embedded:
        mem.store.execute("CONFIG", "SET", "rdbcompression", "no")
    outcomes = [run_item(mem, item, baseline=baseline) for item in items]
    return ForgettingResults(
        mode="baseline" if baseline else "forget",
        by_kind=tuple(KindScore.of(k, (o for o in outcomes if o.kind == k)) for k in KINDS),
        hard_delete=KindScore.of("hard delete", (o for o in outcomes if o.kind in HARD_DELETE_KINDS)),
        control=KindScore.of("control", (o for o in outcomes if o.kind == "control")),
        total=KindScore.of("all", outcomes),
        failures=tuple(f for o in outcomes for f in o.failures),
        outcomes=tuple(outcomes),
        seconds=round(time.perf_counter() - started, 2),
    )


class Observation(BaseModel):
    """Everything the checks read, at one moment (before or after the forget)."""

    model_config = ConfigDict(frozen=True)

    texts: dict[str, list[tuple[str, str]]]  # check -> (where, text) pairs a string is looked for in
    cited: frozenset[str] = frozenset()
    derived_cache_keys: tuple[str, ...] = ()
    has_cache: bool = False


def run_item(mem: Memory, item: ForgettingItem, *, baseline: bool = False) -> ItemOutcome:
    """Write, observe, forget or purge (unless baseline), observe again, judge one item."""
    user = item.user_id
    try:
        mem.drop_user(user)
        _write(mem, item)
        entities = [e.name for e in mem.inspect().entities(user)]
        before = observe(mem, item, entities, removed_texts=())
        report = None
        if not baseline:
            report, removed_texts = _remove(mem, item)
            after = observe(mem, item, entities, removed_texts=removed_texts)
        return judge(item, before, None if baseline else after, report)
    except Exception as exc:  # one broken item must not hide the others' results
        failure = Failure(item_id=item.id, kind=item.kind, check="error", reason=f"{type(exc).__name__}: {exc}")
        return ItemOutcome(item_id=item.id, kind=item.kind, kept_ok=False if item.kept else None,
                           failures=(failure,))
    finally:
        mem.drop_user(user)


def _write(mem: Memory, item: ForgettingItem) -> None:
    for session in item.sessions:
        turns = [turn.model_dump() for turn in session.turns]
        ttl = timedelta(days=session.ttl_days) if session.ttl_days else None
        mem.write(item.user_id, turns, session.session_time, session_id=session.session_id, ttl=ttl)


def _remove(mem: Memory, item: ForgettingItem) -> tuple[Any, tuple[str, ...]]:
    """Forget (or purge, for expiry items); the report and the removed turns' text."""
    if item.purge_at is not None:
        mem.purge(item.user_id, now=item.purge_at)
        return None, ()
    report = mem.forget(item.user_id, dict(item.forget), confirm=bool(item.forget.get("all")))
    removed = set(report.turn_ids)
    return report, tuple(t.content for s in item.sessions for t in s.turns if t.id in removed)


def observe(mem: Memory, item: ForgettingItem, entities: Sequence[str], *, removed_texts: Sequence[str]) -> Observation:
    """Read every place a forgotten string could be: packets, facts, history, graph, files, cache."""
    user = item.user_id
    packets, cited = [], set()
    for question in item.ask:
        packet = mem.search(user, question, now=item.now, limit=ASK_LIMIT, budget_tokens=PACKET_TOKENS)
        packets.append((f"the packet for {question!r}", packet.to_prompt(budget_tokens=PACKET_TOKENS)))
        cited.update(packet.cited_turn_ids)
    moments = [None, *(s.session_time for s in item.sessions)]
    facts = {("Memory.facts", f"{f.fact} | {f.subject} | {f.object}") for m in moments for f in mem.facts(user, valid_at=m)}
    history = []
    for name in entities:
        try:
            versions = mem.history(user, name).versions
        except GraphMemError:  # the entity is gone
            continue
        history += [(f"Memory.history({name!r})", f"{v.fact} | {v.subject} | {v.object}") for v in versions]
    data_dir = Path(mem.settings.data_dir).expanduser()
    files = sorted(p for p in data_dir.rglob("*") if p.is_file())
    cache_dir = data_dir / CACHE_DIR
    cache = [_file_text(p, data_dir) for p in files if p.is_relative_to(cache_dir)]
    derived = LLMCache(cache_dir).derived_from(removed_texts) if removed_texts else ()
    return Observation(
        texts={"search": packets, "facts": sorted(facts), "history": history,
               "graph": _graph_texts(mem, item), "bytes": [_file_text(p, data_dir) for p in files], "cache": cache},
        cited=frozenset(cited), derived_cache_keys=derived, has_cache=cache_dir.is_dir(),
    )


def _file_text(path: Path, data_dir: Path) -> tuple[str, str]:
    return f"file {path.relative_to(data_dir)}", path.read_bytes().decode("latin-1")


def _graph_texts(mem: Memory, item: ForgettingItem) -> list[tuple[str, str]]:
    """One line per node or edge property holding a forgotten string (turn text aside for expiry)."""
    lines = []
    for needle in item.forgotten:
        for hit in mem.inspect().contains_text(item.user_id, needle):
            if item.kind == "expiry" and hit.label == "Episodic":
                continue
            lines.append((f"the graph, {hit.element} {hit.label}.{hit.field} ({hit.uuid})", needle))
    return lines


def applicable(item: ForgettingItem, before: Observation) -> dict[str, bool]:
    """Pure: which checks apply to the item, from what the baseline found."""
    found = {name: any(_where(n, before.texts[name]) for n in item.forgotten) for name in CHECKS}
    if item.kind == "expiry":
        return {"search": False, "facts": found["facts"], "history": found["history"], "graph": found["graph"],
                "bytes": False, "cache": False}
    return {**found, "search": True, "graph": True, "bytes": True, "cache": before.has_cache and found["cache"]}


def judge(item: ForgettingItem, before: Observation, after: Observation | None, report: Any) -> ItemOutcome:
    """Pure: the baseline must find each string where it applies; after, no check may."""
    failures: list[Failure] = []

    def fail(check: Check, reason: str) -> None:
        failures.append(Failure(item_id=item.id, kind=item.kind, check=check, reason=reason))

    applies = applicable(item, before)
    must = ("facts", "graph") if item.kind == "expiry" else MUST_FIND
    for name in must:
        for needle in item.forgotten:
            if not _where(needle, before.texts[name]):
                fail(name, f"{needle!r} not found by {name} before forgetting: the item proves nothing")
    if item.forget is not None and not _selects_something(item, [text for _, text in before.texts["facts"]]):
        fail("selector", f"the selector {item.forget} matches no turn, fact or session")
    checks: dict[str, bool | None] = {name: (None if not applies[name] else True) for name in CHECKS}
    if after is not None:
        removed = set(getattr(report, "turn_ids", ()) or ())
        for name in CHECKS:
            if not applies[name]:
                continue
            for needle in item.forgotten:
                where = _where(needle, after.texts[name])
                if where:
                    checks[name] = False
                    fail(name, f"{needle!r} still found: {where}")
        if removed & after.cited:
            checks["search"] = False
            fail("search", f"packets cite removed turns {sorted(removed & after.cited)}")
        if after.derived_cache_keys:
            checks["cache"] = False
            fail("cache", f"{len(after.derived_cache_keys)} cache entries derive from removed turns")
    failed_before = {f.check for f in failures if "before forgetting" in f.reason}
    for name in failed_before & set(CHECKS):
        checks[name] = False
    final = after or before
    for needle in item.kept:
        if not _where(needle, final.texts["search"]):
            fail("kept", f"{needle!r} in no packet of {list(item.ask)}")
    deleted = {} if report is None else {
        k: int(getattr(report, k, 0)) for k in ("facts_deleted", "episodes_deleted", "entities_deleted")}
    return ItemOutcome(
        item_id=item.id, kind=item.kind, checks=checks,
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


def _where(needle: str, texts: Sequence[tuple[str, str]]) -> str:
    """Where `needle` occurs (case-insensitively), with a little context; '' when nowhere."""
    pattern = re.compile(re.escape(needle), re.IGNORECASE)
    for label, text in texts:
        found = pattern.search(text)
        if found:
            return f"in {label}: ...{_context(text, found)}..."
    return ""


def _context(text: str, found: re.Match[str], width: int = 60) -> str:
    snippet = text[max(0, found.start() - width): found.end() + width]
    return "".join(c if c.isprintable() else "." for c in snippet.replace("\n", " | "))


# ------------------------------------------------------------------ printing


def _ratio(passed: int, total: int) -> str:
    return f"{passed}/{total}" if total else "-"


def _pct(passed: int, total: int) -> str:
    return f"{100.0 * passed / total:.0f}%" if total else "-"


def print_results(results: ForgettingResults) -> None:
    """A per-kind table, a column per check (passed/applicable), then the failures."""
    what = "found before forgetting" if results.mode == "baseline" else "absent after forgetting"
    print(f"forgetting eval ({results.mode}, {len(results.outcomes)} items, {results.seconds:.1f} s); "
          f"per check, items whose forgotten strings are {what} / items it applies to")
    columns = [*CHECKS, "kept"]
    print(f"{'kind':<12}{'items':>6}" + "".join(f"{c:>10}" for c in columns))
    rows = [s for s in results.by_kind if s.kind != "control"] + [None, results.hard_delete, results.control,
                                                                   results.total]
    for score in rows:
        if score is None:
            print("-" * (18 + 10 * len(columns)))
            continue
        cells = [_ratio(*score.checks[c]) for c in CHECKS] + [_ratio(score.kept_passed, score.kept_total)]
        print(f"{score.kind:<12}{score.items:>6}" + "".join(f"{c:>10}" for c in cells))
    total = results.total
    cells = [_pct(*total.checks[c]) for c in CHECKS] + [_pct(total.kept_passed, total.kept_total)]
    print(f"{'all (%)':<12}{total.items:>6}" + "".join(f"{c:>10}" for c in cells))
    if results.failures:
        print(f"\n{len(results.failures)} failure(s):")
        for f in results.failures:
            print(f"  {f.item_id} [{f.check}] {f.reason}")
    else:
        print("\nno failures")
