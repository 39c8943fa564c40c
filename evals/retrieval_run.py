"""The retrieval stage: run systems over a dataset, offline, and record every question.

Each system ingests each conversation once, then returns a context per
question (``MemorySystem.context``). Datasets:

- ``locomo``: conversations of the chosen split (`graphmem.evals.splits`),
  categories 1-4 (5, adversarial, has no evidence to find); gold = the
  question's ``evidence`` turn ids that exist in the conversation.
- ``longmemeval``: by default each question its own memory (the official
  setup); ``pool=True`` pools the sessions of all kept questions into one
  memory (deduplicated by session id), so other questions' sessions are
  distractors. Gold = the turns marked ``has_answer`` and the
  ``answer_session_ids``.
- ``nested_kv``: the generated task (`graphmem.evals.nested_kv`), no file.

``limit`` keeps the first N questions in file order and only the
conversations they need. Graphmem, its ablations and the Graphiti offline
route read one shared graph (they differ only in how they search), written by
whichever of them runs first. Systems run one after another. Ingestion runs in
this process: ``--workers`` (parallel ingestion) is not built yet.
"""

from __future__ import annotations

import hashlib
import os
import platform
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timezone
from importlib.metadata import version
from pathlib import Path

from pydantic import BaseModel, ConfigDict
from tqdm import tqdm

from graphmem.schema.errors import InvalidInput
from graphmem.evals import nested_kv, splits
from graphmem.evals.metrics import KS, TOKEN_ESTIMATE, QuestionRecord, summarize
from graphmem.evals.systems._common import embedder_conditions, error_text
from graphmem.evals.systems.base import Context, IngestStats, MemorySystem, SystemConfig
from graphmem.evals.systems.registry import GRAPH_SHARERS, check_names, make_system
from graphmem.ingest.loaders import Conversation, Question, load_locomo, load_longmemeval

DATASETS = ("locomo", "longmemeval", "nested_kv")
LOCOMO_CATEGORIES = (1, 2, 3, 4)
RETRIEVE_K = max(KS)
CONTEXT_TOKENS = 8_000
NO_RECALL = ("full_context",)

Factory = Callable[[str, SystemConfig], MemorySystem]


class Dataset(BaseModel):
    """The conversations to ingest, with the questions to ask of each, and how they were chosen."""

    model_config = ConfigDict(frozen=True)

    name: str
    conversations: tuple[Conversation, ...]
    data_sha256: str
    source: str
    split: str
    pooled: bool = False
    categories: tuple[str, ...] = ()

    @property
    def questions(self) -> int:
        return sum(len(c.questions) for c in self.conversations)


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def keep_first(conversations: Sequence[Conversation], limit: int | None) -> list[Conversation]:
    """The first `limit` questions in file order, and only the conversations they need (pure)."""
    if limit is None:
        return [c for c in conversations if c.questions]
    if limit < 1:
        raise InvalidInput("--limit must be at least 1")
    out, left = [], limit
    for conv in conversations:
        if left <= 0:
            break
        if conv.questions:
            out.append(conv.model_copy(update={"questions": conv.questions[:left]}))
            left -= len(out[-1].questions)
    return out


def pool(conversations: Sequence[Conversation], conversation_id: str) -> Conversation:
    """All sessions of `conversations` (first copy of each session id) and all their questions, one memory."""
    sessions = {}
    for conv in conversations:
        for session in conv.sessions:
            sessions.setdefault(session.session_id, session)
    ordered = sorted(sessions.values(), key=lambda s: s.session_time)
    questions = tuple(q for conv in conversations for q in conv.questions)
    return Conversation(conversation_id=conversation_id, speakers=("user", "assistant"), sessions=tuple(ordered),
                        questions=questions)


def load_dataset(name: str, data: Path | None, *, split: str | None = None, pooled: bool = False,
                 limit: int | None = None, seed: int = 0) -> Dataset:
    """Read (or generate) a dataset and choose its questions; see the module docstring.

    Raises InvalidInput for an unknown dataset or split, a missing file, or no question left.
    """
    dataset = _load(name, data, split=split, pooled=pooled, limit=limit, seed=seed)
    if not dataset.questions:
        raise InvalidInput(f"no questions left in {dataset.source} (split {dataset.split}, limit {limit})")
    return dataset


def _load(name: str, data: Path | None, *, split: str | None, pooled: bool, limit: int | None, seed: int) -> Dataset:
    if name not in DATASETS:
        raise InvalidInput(f"unknown dataset {name!r}; choose one of {', '.join(DATASETS)}")
    if name == "nested_kv":
        conv = nested_kv.generate(seed)
        sha = hashlib.sha256(conv.model_dump_json().encode()).hexdigest()
        kept = keep_first([conv], limit)
        depths = tuple(f"depth {d}" for d in nested_kv.DEPTHS)
        return Dataset(name=name, conversations=tuple(kept), data_sha256=sha, source=f"generated, seed {seed}",
                       split="all", categories=depths)
    if data is None:
        raise InvalidInput(f"--data is required for {name}")
    sha = file_sha256(Path(data))
    if name == "locomo":
        convs = load_locomo(data)
        chosen = split or splits.default_split(convs)
        convs = [c.model_copy(update={"questions": tuple(q for q in c.questions if q.category in LOCOMO_CATEGORIES)})
                 for c in splits.select(convs, chosen)]
        return Dataset(name=name, conversations=tuple(keep_first(convs, limit)), data_sha256=sha, source=str(data),
                       split=chosen, categories=tuple(str(c) for c in LOCOMO_CATEGORIES))
    chosen = split or "all"
    if chosen not in splits.SPLITS:
        raise InvalidInput(f"unknown split {chosen!r}; choose one of {', '.join(splits.SPLITS)}")
    if chosen != "all" and not pooled:
        raise InvalidInput("a LongMemEval --split (half of the questions) needs --pool")
    everything = load_longmemeval(data)
    # halves of the whole file's questions, then the limit: halved after it, a question's half
    # moved with --limit, and a "reporting" run of 10 held a tuning question
    halves = splits.question_halves(q.question_id for c in everything for q in c.questions)
    convs = keep_first(everything, limit)
    categories = tuple(sorted({str(q.category) for c in convs for q in c.questions}))
    if pooled and convs:
        convs = [keep_half(pool(convs, "longmemeval_pool"), chosen, halves)]
    return Dataset(name=name, conversations=tuple(convs), data_sha256=sha, source=str(data), split=chosen,
                   pooled=pooled, categories=categories)


def keep_half(conversation: Conversation, split: str, half: Mapping[str, str] | None = None) -> Conversation:
    """The pooled memory with only the questions of `split` (`half`: question id -> half, by
    default `splits.question_halves` of its own questions); every session stays, so the other
    half's sessions are still distractors (pure)."""
    if split == "all":
        return conversation
    half = half if half is not None else splits.question_halves(q.question_id for q in conversation.questions)
    return conversation.model_copy(update={"questions": tuple(q for q in conversation.questions
                                                              if half[q.question_id] == split)})


def gold_of(conversation: Conversation, question: Question) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Gold turn ids that exist in the conversation, and gold session ids (pure)."""
    session_of = {t.id: s.session_id for s in conversation.sessions for t in s.turns}
    turns = tuple(e for e in question.evidence if e in session_of)
    sessions = question.answer_session_ids or tuple(dict.fromkeys(session_of[t] for t in turns))
    return turns, tuple(sessions)


def record_of(conversation: Conversation, question: Question, ctx: Context, nested: bool) -> QuestionRecord:
    gold, gold_sessions = gold_of(conversation, question)
    session_of = {t.id: s.session_id for s in conversation.sessions for t in s.turns}
    cited_sessions = tuple(dict.fromkeys(session_of[t] for t in ctx.turn_ids if t in session_of)) or ctx.session_ids
    extra = nested_kv.lookup_found(ctx.text, question, conversation) if nested else {}
    return QuestionRecord(
        question_id=question.question_id, conversation_id=conversation.conversation_id,
        category=str(question.category), gold=gold, gold_sessions=gold_sessions, cited=ctx.turn_ids,
        cited_sessions=cited_sessions, tokens=ctx.tokens, latency_ms=ctx.latency_ms, error=ctx.error, extra=extra,
    )


def _ingest(system: MemorySystem, conv: Conversation, bar: tqdm) -> tuple[IngestStats | None, str | None]:
    try:
        stats = system.ingest(conv)
    except Exception as exc:  # noqa: BLE001 - the conversation's questions become errors
        return None, f"ingest failed: {error_text(exc)}"
    finally:
        bar.update(sum(len(s.turns) for s in conv.sessions))
    return stats, None


def run_system(name: str, dataset: Dataset, config: SystemConfig, factory: Factory = make_system) -> dict:
    """Ingest every conversation, ask every question; the system's figures and records."""
    turns = sum(len(s.turns) for c in dataset.conversations for s in c.sessions)
    system = factory(name, config)
    records, ingests = [], []
    bar = tqdm(total=turns + dataset.questions, desc=name, unit="turn|q", leave=False)
    try:
        for conv in dataset.conversations:
            stats, failed = _ingest(system, conv, bar)
            if stats is not None:
                ingests.append(stats)
            for question in conv.questions:
                bar.update(1)
                if failed:
                    ctx = Context(text="", error=failed)
                else:
                    try:
                        ctx = system.context(conv.conversation_id, question)
                    except Exception as exc:  # noqa: BLE001 - an adapter that raises is an error too
                        ctx = Context(text="", error=error_text(exc))
                records.append(record_of(conv, question, ctx, dataset.name == "nested_kv"))
    finally:
        bar.close()
        system.close()
    return system_result(name, records, ingests, nested=dataset.name == "nested_kv")


def system_result(name: str, records: Sequence[QuestionRecord], ingests: Sequence[IngestStats], nested: bool) -> dict:
    """Figures (recomputable from `records`), ingestion totals and the records themselves."""
    out = summarize(records, recall=name not in NO_RECALL)
    out["ingest"] = {"episodes": sum(s.episodes for s in ingests), "seconds": sum(s.seconds for s in ingests),
                     "llm_calls": sum(s.llm_calls for s in ingests),
                     "errors": [e for s in ingests for e in s.errors][:50]}
    if nested:
        out["nested_kv"] = nested_kv.by_depth([r.extra for r in records])
    out["records"] = [r.model_dump(mode="json") for r in records]
    return out


def conditions(dataset: Dataset, systems: Sequence[str], config: SystemConfig) -> dict:
    return {
        "stage": "retrieval", "dataset": dataset.name, "source": dataset.source, "data_sha256": dataset.data_sha256,
        "split": dataset.split, "pooled": dataset.pooled, "questions": dataset.questions,
        "conversations": len(dataset.conversations), "categories": list(dataset.categories), "k": list(KS),
        "retrieve_k": config.k, "context_tokens": config.context_tokens, "token_estimate": TOKEN_ESTIMATE,
        "systems": list(systems), "embedder": embedder_conditions(), "graphmem_version": version("graphmem"),
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "machine": {"node": platform.node(), "platform": platform.platform(), "python": platform.python_version(),
                    "cpus": os.cpu_count()},
    }


def run(dataset: Dataset, systems: Sequence[str], out: Path, factory: Factory = make_system,
        k: int = RETRIEVE_K, context_tokens: int = CONTEXT_TOKENS,
        after_each: Callable[[dict], object] | None = None) -> dict:
    """Every system over `dataset`; returns the ``results.json`` content (the caller writes it).

    ``after_each(results)`` runs after every system, so a long run can save what it has.
    """
    names = list(systems) if factory is not make_system else check_names(list(systems))
    work = Path(out) / "work"
    base = SystemConfig(work_dir=work, k=k, context_tokens=context_tokens)
    results = {"conditions": conditions(dataset, names, base), "systems": {}}
    for name in names:
        options = {"graph_dir": str(work / "graphmem_graph")} if name in GRAPH_SHARERS else {}
        config = base.model_copy(update={"work_dir": work / name.replace(":", "_"), "options": options})
        results["systems"][name] = run_system(name, dataset, config, factory)
        if after_each is not None:
            after_each(results)
    return results
