"""The answer stage: ingest, retrieve, read, judge, for every system under one set of conditions.

    graphmem eval qa --dataset locomo --data locomo10.json --systems graphmem,rag \\
        --base-url http://localhost:8000/v1 --reader-model M --judge-model J --out DIR

For each system: ingest every conversation the selected questions need, get
each question's context, have the one reader prompt answer it ``runs`` times
(seeds ``seed .. seed+runs-1``), judge every answer, classify every wrong one
(write / retrieval / reader). The filesystem system answers through its tool
loop instead of a fixed context. LongMemEval answers are also written as
official hypothesis files; with ``official_script`` LongMemEval's own judge
replaces ours. Every LLM reply is cached under ``DIR/llm_cache`` as it
arrives, so a re-run makes no calls and an interrupted run resumes.
``DIR/results.json`` holds the conditions, each system's figures and every
per-question record; ``DIR/report.md`` renders them.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from tqdm import tqdm

from graphmem.schema.errors import GraphMemError, InvalidInput
from graphmem.evals import judge, reader, splits
from graphmem.evals.cost import Usage, load_prices, system_cost
from graphmem.evals.llm import EvalLLM, cache_dir_for
from graphmem.evals.qa_records import QARecord, answer_usage, differences, summarize
from graphmem.evals.stages import StoredEvidence, classify
from graphmem.evals.systems._common import embedder_conditions
from graphmem.evals.systems.base import Context, LLMEndpoint, MemorySystem, SystemConfig
from graphmem.evals.systems.filesystem_agent import FilesystemAgent, HasTools
from graphmem.ingest.loaders import Conversation, Question

DATASETS = ("locomo", "longmemeval", "nested_kv")
Factory = Callable[[str, SystemConfig], MemorySystem]


class QAConfig(BaseModel):
    """Everything a run depends on; all of it lands in ``conditions``."""

    model_config = ConfigDict(frozen=True)

    dataset: str
    data: Path | None = None
    systems: tuple[str, ...]
    base_url: str
    reader_model: str
    judge_model: str
    api_key: str = "not-needed"
    runs: int = Field(default=3, ge=1)
    seed: int = 0
    temperature: float = 0.0
    k: int = 10
    context_tokens: int = 8_000
    categories: tuple[str, ...] | None = None
    limit: int | None = Field(default=None, ge=1)
    split: str | None = None  # LoCoMo: tuning | reporting | all; default `splits.default_split`
    agent_max_calls: int = Field(default=8, ge=0)
    official_script: Path | None = None
    prices: Path | None = None
    calibrate: bool = True
    out: Path


# --- selecting the data --------------------------------------------------------


def load_dataset(config: QAConfig) -> tuple[list[Conversation], str]:
    """The conversations and the sha256 of the data file (of the generator's seed for nested_kv)."""
    if config.dataset not in DATASETS:
        raise InvalidInput(f"unknown dataset {config.dataset!r} (choose from {', '.join(DATASETS)})")
    if config.dataset == "nested_kv":
        from graphmem.evals.nested_kv import generate

        return [generate(seed=config.seed)], hashlib.sha256(f"nested_kv:{config.seed}".encode()).hexdigest()
    if config.data is None:
        raise InvalidInput(f"--data is required for {config.dataset}")
    from graphmem.ingest.loaders import load_locomo, load_longmemeval

    loader = load_locomo if config.dataset == "locomo" else load_longmemeval
    conversations = loader(config.data)
    return conversations, hashlib.sha256(Path(config.data).read_bytes()).hexdigest()


def default_categories(dataset: str) -> tuple[str, ...] | None:
    """LoCoMo: 1-4 (5, adversarial, only when asked for); others: all."""
    return ("1", "2", "3", "4") if dataset == "locomo" else None


def select(conversations: Sequence[Conversation], categories: Sequence[str] | None,
           limit: int | None) -> list[Conversation]:
    """Keep questions of ``categories`` (None: all), then the first ``limit`` in file
    order, and only the conversations they need, each holding only its kept questions (pure)."""
    kept: list[Conversation] = []
    left = limit
    for conv in conversations:
        questions = [q for q in conv.questions if categories is None or str(q.category) in categories]
        if left is not None:
            questions = questions[:left]
            left -= len(questions)
        if questions:
            kept.append(conv.model_copy(update={"questions": tuple(questions)}))
        if left == 0:
            break
    return kept


def safe_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name)


def default_factory(name: str, config: SystemConfig) -> MemorySystem:
    """Graphiti's and Mem0's own LLM ingestion when an endpoint is set; the registry otherwise."""
    if config.llm is not None and name == "graphiti":
        from graphmem.evals.systems.graphiti_llm import GraphitiLLMSystem

        return GraphitiLLMSystem(name, config)
    if config.llm is not None and name == "mem0":
        from graphmem.evals.systems.mem0_llm import Mem0LLMSystem

        return Mem0LLMSystem(name, config)
    from graphmem.evals.systems.registry import make_system

    return make_system(name, config)


# --- one system ----------------------------------------------------------------


class _Answerer:
    """Reads and judges; shared by all systems so every answer meets the same prompts."""

    def __init__(self, config: QAConfig, llm: EvalLLM) -> None:
        self.config = config
        self.llm = llm

    def read(self, context: Context, question: Question, seed: int) -> tuple[str, Any]:
        messages = reader.render(context.text, question.question, question.question_time)
        reply = self.llm.chat("reader", self.config.reader_model, messages,
                              temperature=self.config.temperature, seed=seed)
        return reply.content.strip(), reply

    def judge(self, question: str, gold: str, answer: str, abstention: bool) -> tuple[bool | None, str]:
        messages = judge.render(question, gold, answer, abstention=abstention)
        reply = self.llm.chat("judge", self.config.judge_model, messages, temperature=0.0, seed=self.config.seed)
        return judge.parse_label(reply.content), reply.content


def _gold(question: Question) -> str:
    return question.answer if question.answer is not None else (question.adversarial_answer or "")


def _answer_one(answerer: _Answerer, system: MemorySystem, conv: Conversation, question: Question,
                context: Context, stored: set[str] | None, run: int, with_f1: bool) -> QARecord:
    config = answerer.config
    seed = config.seed + run
    base = dict(system=system.name, run=run, seed=seed, conversation_id=conv.conversation_id,
                question_id=question.question_id, category=str(question.category), question=question.question,
                gold=_gold(question), evidence=question.evidence, abstention=judge.is_abstention(question.question_id),
                context_turn_ids=context.turn_ids, context_tokens=context.tokens, context_error=context.error)
    try:
        if isinstance(system, HasTools):
            agent = FilesystemAgent(answerer.llm, config.reader_model, max_calls=config.agent_max_calls,
                                    temperature=config.temperature, seed=seed)
            before = answerer.llm.snapshot().stage("agent")
            found = agent.answer(system.tools(conv.conversation_id), question)
            spent = answerer.llm.snapshot().stage("agent") - before
            answer, tools = found.answer, found.tool_calls
            context = Context(text=found.context, turn_ids=found.turn_ids)
            base.update(context_turn_ids=found.turn_ids)
            usage = dict(answer_calls=spent.calls + spent.cache_hits, answer_cache_hits=spent.cache_hits,
                         prompt_tokens=spent.prompt_tokens, completion_tokens=spent.completion_tokens)
        else:
            answer, reply = answerer.read(context, question, seed)
            tools = 0
            usage = dict(answer_calls=1, answer_cache_hits=int(reply.cached),
                         prompt_tokens=reply.prompt_tokens, completion_tokens=reply.completion_tokens)
    except GraphMemError as exc:
        return QARecord(**base, answer_error=str(exc)[:300])
    label, raw = answerer.judge(question.question, base["gold"], answer, base["abstention"])
    stage = None
    if label is False:
        stage = str(classify(gold_turn_ids=question.evidence, gold_answer=question.answer,
                             context_turn_ids=context.turn_ids, context_text=context.text,
                             stored_turn_ids=stored))
    return QARecord(**base, **usage, answer=answer, label=label, judge_reply=raw[:200], tool_calls=tools,
                    f1=judge.token_f1(answer, base["gold"]) if with_f1 else None, stage=stage)


def run_system(name: str, conversations: Sequence[Conversation], config: QAConfig, answerer: _Answerer,
               factory: Factory) -> tuple[list[QARecord], dict[str, Any]]:
    """Ingest, retrieve and answer for one system; its records and ingestion figures."""
    endpoint = LLMEndpoint(base_url=config.base_url, model=config.reader_model, api_key=config.api_key,
                           temperature=config.temperature, seed=config.seed)
    sys_config = SystemConfig(work_dir=config.out / "work" / safe_name(name), llm=endpoint, k=config.k,
                              context_tokens=config.context_tokens,
                              options={"llm_cache_dir": str(cache_dir_for(config.out)),
                                       "max_calls": config.agent_max_calls})
    with_f1 = config.dataset != "longmemeval"
    records: list[QARecord] = []
    ingest = {"episodes": 0, "seconds": 0.0, "calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "errors": []}
    system = factory(name, sys_config)
    try:
        total = sum(len(c.questions) for c in conversations)
        with tqdm(total=total, desc=name, unit="q", leave=False) as bar:
            for conv in conversations:
                stats = system.ingest(conv)
                for key, value in (("episodes", stats.episodes), ("seconds", stats.seconds),
                                   ("calls", stats.llm_calls), ("prompt_tokens", stats.prompt_tokens),
                                   ("completion_tokens", stats.completion_tokens)):
                    ingest[key] += value
                ingest["errors"].extend(stats.errors)
                stored = system.stored_turn_ids(conv.conversation_id) if isinstance(system, StoredEvidence) else None
                for question in conv.questions:
                    context = Context(text="") if isinstance(system, HasTools) else system.context(
                        conv.conversation_id, question)
                    for run in range(config.runs):
                        records.append(_answer_one(answerer, system, conv, question, context, stored, run, with_f1))
                    bar.update(1)
    finally:
        system.close()
    return records, ingest


# --- the whole run ---------------------------------------------------------------


def pick_split(dataset: str, requested: str | None, conversations: Sequence[Conversation]
               ) -> tuple[str, list[Conversation]]:
    """The split the run reports on and its conversations (pure). LoCoMo defaults as the
    retrieval stage does (`splits.default_split`: the reporting conversations of a file that
    holds the tuning ones, on which graphmem's fusion and RAG's RRF k were fitted); the other
    datasets have no conversation split here and take `all`."""
    if dataset != "locomo":
        if requested not in (None, "all"):
            raise InvalidInput(f"--split applies to LoCoMo only; {dataset} runs on all its questions")
        return "all", list(conversations)
    split = requested or splits.default_split(conversations)
    return split, splits.select(conversations, split)


def ledger_key(name: str, sha: str, conversations: Sequence[Conversation], config: QAConfig) -> str:
    """What an ingestion cost belongs to: the system, the data, the conversations ingested and
    the model. Keyed by the system alone, a run on fewer conversations (a smaller --limit)
    replayed the cost of the first run's larger ingestion."""
    ids = hashlib.sha256("\x1f".join(sorted(c.conversation_id for c in conversations)).encode()).hexdigest()[:12]
    return f"{name} data={sha[:12]} conversations={ids} model={config.reader_model}"


def _ingest_ledger(out: Path, name: str, measured: dict[str, Any]) -> dict[str, Any]:
    """Ingestion cost as first measured: a re-run replays cached replies (0 calls),
    but the cost of the memory is what the cold run spent (`name`: its `ledger_key`)."""
    path = out / "ingest_cost.json"
    ledger = json.loads(path.read_text()) if path.exists() else {}
    previous = ledger.get(name)
    if previous is not None and measured["calls"] == 0 and previous["calls"] > 0:
        return {**measured, **{k: previous[k] for k in ("calls", "prompt_tokens", "completion_tokens")},
                "replayed_from_cache": True}
    ledger[name] = measured
    path.write_text(json.dumps(ledger, indent=2))
    return {**measured, "replayed_from_cache": False}


def _official(config: QAConfig, records: list[QARecord], conversations: Sequence[Conversation]
              ) -> tuple[list[QARecord], dict[str, list[dict[str, Any]]]]:
    """Write official hypothesis files; with the official script, its labels replace ours.

    Returns the records and, per system, what the script reported per run
    (accuracy and accuracy per question type).
    """
    types = {q.question_id: str(q.category) for c in conversations for q in c.questions}
    out: list[QARecord] = []
    reported: dict[str, list[dict[str, Any]]] = {}
    for system, run in sorted({(r.system, r.run) for r in records}):
        mine = [r for r in records if r.system == system and r.run == run]
        path = judge.write_hypotheses(config.out / "hypotheses" / f"{safe_name(system)}.run{run}.jsonl",
                                      {r.question_id: r.answer for r in mine})
        if config.official_script is None:
            out.extend(mine)
            continue
        result = judge.run_official_script(config.official_script, config.judge_model, path, Path(config.data),
                                           base_url=config.base_url, api_key=config.api_key, question_types=types)
        reported.setdefault(system, []).append({"run": run, "accuracy": result.accuracy, "by_type": result.by_type,
                                                "result_file": result.result_file})
        for r in mine:
            label = result.labels.get(r.question_id)
            stage = (r.stage or "unknown") if label is False else None
            out.append(r.model_copy(update={"label": label, "judge_reply": "official script", "stage": stage}))
    return out, reported


def conditions(config: QAConfig, sha: str, conversations: Sequence[Conversation]) -> dict[str, Any]:
    from importlib.metadata import version

    questions = [q for c in conversations for q in c.questions]
    return {
        "stage": "answer", "dataset": config.dataset, "data": str(config.data) if config.data else None,
        "data_sha256": sha, "questions": len(questions), "conversations": len(conversations),
        "categories": sorted({str(q.category) for q in questions}), "k": config.k,
        "context_tokens": config.context_tokens, "reader": {"model": config.reader_model,
        "prompt": reader.PROMPT_VERSION, "temperature": config.temperature, "seeds": [config.seed + r for r in range(config.runs)]},
        "judge": {"model": config.judge_model, "prompt": judge.PROMPT_VERSION,
                  "name": "LongMemEval official script" if config.official_script else judge.OUR_JUDGE,
                  "temperature": 0.0, "seed": config.seed},
        "endpoint": config.base_url, "runs": config.runs, "temperature": config.temperature, "seed": config.seed,
        "limit": config.limit, "agent_max_calls": config.agent_max_calls, "embedder": embedder_conditions(),
        "graphmem_version": version("graphmem"), "date": datetime.now(UTC).isoformat(timespec="seconds"),
    }


def run_qa(config: QAConfig, factory: Factory | None = None) -> dict[str, Any]:
    """Run the answer stage and write ``results.json`` and the report; returns the results."""
    if config.official_script is not None and config.dataset != "longmemeval":
        raise InvalidInput("--official-script is LongMemEval's judge; use it with --dataset longmemeval")
    prices = load_prices(config.prices)
    all_conversations, sha = load_dataset(config)
    split, all_conversations = pick_split(config.dataset, config.split, all_conversations)
    conversations = select(all_conversations, config.categories or default_categories(config.dataset), config.limit)
    if not conversations:
        raise InvalidInput("no questions selected (check --limit and the categories)")
    config.out.mkdir(parents=True, exist_ok=True)
    metric = "accuracy" if config.dataset == "longmemeval" else "J"
    with EvalLLM(config.base_url, api_key=config.api_key, cache_dir=cache_dir_for(config.out)) as llm:
        answerer = _Answerer(config, llm)
        records, systems = [], {}
        for name in config.systems:
            mine, ingest = run_system(name, conversations, config, answerer, factory or default_factory)
            records.extend(mine)
            systems[name] = {"ingest": _ingest_ledger(config.out, ledger_key(name, sha, conversations, config), ingest)}
        official: dict[str, list[dict[str, Any]]] = {}
        if config.dataset == "longmemeval":
            records, official = _official(config, records, conversations)
        calibration = _calibrate(answerer) if config.calibrate else None
        requests = llm.snapshot().total.calls
    for name, entry in systems.items():
        mine = [r for r in records if r.system == name]
        entry.update(summarize(mine, metric=metric, with_f1=metric == "J", seed=config.seed))
        ing = entry["ingest"]
        entry["ingest_errors"] = len(ing.get("errors") or ())  # a memory that failed to build is no empty result
        entry["cost"] = system_cost(
            Usage(calls=ing["calls"], prompt_tokens=ing["prompt_tokens"], completion_tokens=ing["completion_tokens"]),
            {config.reader_model: answer_usage(mine)}, config.reader_model, ing["seconds"], ing["episodes"], prices,
        ).model_dump() | {"ingest_calls_per_episode": ing["calls"] / ing["episodes"] if ing["episodes"] else 0.0,
                          "ingest_prompt_tokens_per_episode":
                              ing["prompt_tokens"] / ing["episodes"] if ing["episodes"] else 0.0}
        entry["judge_calibration"] = calibration
        if name in official:
            entry["official_script"] = official[name]
    results = {
        "conditions": conditions(config, sha, conversations) | {"metric": metric, "llm_requests_this_run": requests,
                                                                  "split": split},
        "systems": systems,
        "paired_diff_vs_graphmem": differences(records, seed=config.seed),
        "judge_calibration": calibration,
        "records": [r.model_dump(mode="json") for r in records],
    }
    (config.out / "results.json").write_text(json.dumps(results, indent=2, default=str))
    from graphmem.evals.report_qa import write_report

    write_report(config.out, results)
    return results


def _calibrate(answerer: _Answerer) -> dict[str, Any]:
    """Our judge over the labelled set (cached like every call); its rates."""
    items = judge.load_calibration()
    rates = judge.calibrate(lambda q, g, c, abstention: answerer.judge(q, g, c, abstention)[0], items)
    return rates.model_dump() | {"judge_model": answerer.config.judge_model, "judge": judge.OUR_JUDGE}


__all__ = ["DATASETS", "QAConfig", "default_categories", "default_factory", "load_dataset", "run_qa", "select"]
