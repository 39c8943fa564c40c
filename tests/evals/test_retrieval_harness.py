"""The retrieval stage of the evaluation harness: real systems on a small slice of real data.

The slice: LoCoMo conv-30's first two sessions (44 turns) and its first
questions whose evidence lies in the first, written as a locomo10-format file, so the
CLI runs exactly as on the full file.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from graphmem.cli import app
from graphmem.schema.errors import InvalidInput
from graphmem.evals import nested_kv, splits
from graphmem.evals.metrics import QuestionRecord, recall_at, session_any_at, summarize
from graphmem.evals.report import read_results, render
from graphmem.evals.retrieval_run import load_dataset, run
from graphmem.evals.systems.base import Context, IngestStats, MemorySystem
from graphmem.evals.systems.full_context import fit_newest
from graphmem.evals.systems.registry import ABLATIONS, SYSTEM_NAMES, make_system
from graphmem.evals.systems.base import SystemConfig
from graphmem.ingest.loaders import load_locomo, load_longmemeval
from graphmem.retrieval.recipes import DEFAULT_RECIPE

DATA = Path(__file__).parent.parent / "data"
runner = CliRunner()
QUESTIONS = 2


@pytest.fixture(scope="module")
def small_locomo(tmp_path_factory) -> Path:
    record = next(r for r in json.loads((DATA / "locomo_dev7.json").read_text()) if r["sample_id"] == "conv-30")
    body = {k: v for k, v in record["conversation"].items()
            if not k.startswith("session_") or k.split("_")[1] in ("1", "2")}
    qa = [q for q in record["qa"] if q.get("category") in (1, 2, 3, 4)
          and all(e.startswith("D1:") for e in q["evidence"])][:6]
    path = tmp_path_factory.mktemp("data") / "locomo_small.json"
    path.write_text(json.dumps([record | {"conversation": body, "qa": qa}]))
    return path


# -- metrics on hand-made cases ------------------------------------------------------


def test_recall_counts_distinct_ids_up_to_k():
    assert recall_at(["a", "x", "a", "b"], {"a", "b"}, 2) == 0.5
    assert recall_at(["a", "x", "a", "b"], {"a", "b"}, 3) == 1.0
    assert recall_at([], {"a"}, 10) == 0.0
    assert session_any_at(["s2", "s2", "s1"], {"s1"}, 1) == 0.0
    assert session_any_at(["s2", "s2", "s1"], {"s1"}, 2) == 1.0
    with pytest.raises(ValueError):
        recall_at(["a"], set(), 5)


def test_an_error_scores_zero_and_is_counted():
    good = QuestionRecord(question_id="1", conversation_id="c", category="1", gold=("a",), gold_sessions=("s",),
                          cited=("a",), cited_sessions=("s",), tokens=10, latency_ms=5.0)
    bad = good.model_copy(update={"question_id": "2", "error": "boom", "tokens": 0})
    figures = summarize([good, bad])
    assert figures["errors"] == 1
    assert figures["recall@5"] == 0.5 and figures["session_any@10"] == 0.5
    assert figures["tokens_mean"] == 10 and figures["latency_ms_p50"] == 5.0


# -- datasets --------------------------------------------------------------------------


def test_nested_kv_is_deterministic_per_seed_and_its_chains_have_the_stated_depths():
    conv = nested_kv.generate(seed=3)
    assert conv == nested_kv.generate(seed=3)
    assert conv != nested_kv.generate(seed=4)
    turns = conv.turns_by_id()
    assert len(turns) == 140 and len(conv.sessions) == 4
    mapping = {t.content.split()[1]: t.content.split()[5].rstrip(".") for t in turns.values()}
    assert len(mapping) == 140
    depths = []
    for q in conv.questions:
        key, hops = q.question.split()[3], 0
        while mapping[key] in mapping:
            key, hops = mapping[key], hops + 1
        assert mapping[key] == q.answer
        assert hops == len(q.evidence) - 1 and q.category == f"depth {hops}"
        assert all(mapping[turns[e].content.split()[1]] for e in q.evidence)
        depths.append(hops)
    assert sorted(depths) == sorted([d for d in range(5) for _ in range(3)])


def test_locomo_split_is_tuning_three_reporting_four():
    convs = load_locomo(DATA / "locomo_dev7.json")
    assert [c.conversation_id for c in splits.select(convs, "tuning")] == ["conv-26", "conv-30", "conv-41"]
    assert [c.conversation_id for c in splits.select(convs, "reporting")] == ["conv-42", "conv-43", "conv-44", "conv-47"]
    assert splits.default_split(convs) == "reporting"
    with pytest.raises(InvalidInput, match="tuning, reporting, all"):
        splits.select(convs, "dev")


def test_longmemeval_limit_and_pool_keep_only_the_needed_sessions():
    path = DATA / "longmemeval_oracle_sample99.json"
    each = load_dataset("longmemeval", path, limit=3)
    assert [len(c.questions) for c in each.conversations] == [1, 1, 1]
    pooled = load_dataset("longmemeval", path, limit=3, pooled=True)
    (conv,) = pooled.conversations
    originals = load_longmemeval(path)[:3]
    assert [q.question_id for q in conv.questions] == [c.conversation_id for c in originals]
    assert {s.session_id for s in conv.sessions} == {s.session_id for c in originals for s in c.sessions}
    assert pooled.data_sha256 == each.data_sha256 and len(pooled.data_sha256) == 64


def test_a_limited_longmemeval_half_holds_only_that_halfs_questions():
    """The halves are drawn over the whole file, then --limit applies: halved after it, a
    question's half moved with the limit and a reporting run of 10 held a tuning question."""
    path = DATA / "longmemeval_oracle_sample99.json"
    tuning = {q.question_id for q in load_dataset("longmemeval", path, split="tuning", pooled=True)
              .conversations[0].questions}
    for limit in (10, 20, 40):
        reporting = load_dataset("longmemeval", path, split="reporting", pooled=True, limit=limit)
        ids = {q.question_id for q in reporting.conversations[0].questions}
        assert ids and not ids & tuning, limit


def test_pooled_longmemeval_halves_split_the_questions_and_keep_every_session():
    path = DATA / "longmemeval_oracle_sample99.json"
    whole = load_dataset("longmemeval", path, pooled=True)
    tune = load_dataset("longmemeval", path, pooled=True, split="tuning")
    report = load_dataset("longmemeval", path, pooled=True, split="reporting")
    ids = [{q.question_id for q in d.conversations[0].questions} for d in (whole, tune, report)]
    assert ids[1] | ids[2] == ids[0] and not ids[1] & ids[2]
    assert len(ids[1]) == 50 and len(ids[2]) == 49
    assert tune.conversations[0].sessions == whole.conversations[0].sessions == report.conversations[0].sessions
    assert tune.split == "tuning"
    assert splits.question_halves(reversed(sorted(ids[0]))) == splits.question_halves(sorted(ids[0]))
    with pytest.raises(InvalidInput, match="needs --pool"):
        load_dataset("longmemeval", path, split="tuning")
    with pytest.raises(InvalidInput, match="unknown split"):
        load_dataset("longmemeval", path, pooled=True, split="dev")


# -- systems ------------------------------------------------------------------------------


def test_unknown_system_names_list_the_valid_ones(tmp_path):
    with pytest.raises(InvalidInput) as err:
        make_system("graphmem:no_magic", SystemConfig(work_dir=tmp_path))
    assert "graphmem:no_bm25" in str(err.value) and "filesystem" in str(err.value)
    assert ABLATIONS["no_bm25"].turn_weights.keys() == DEFAULT_RECIPE.turn_weights.keys() - {"bm25", "self"}
    assert "self_vector" not in ABLATIONS["no_vectors"].turn_weights
    assert "vector" not in ABLATIONS["no_vectors"].fact_weights
    assert ABLATIONS["no_time"].time_filter is False and ABLATIONS["mmr"].reranker == "mmr"
    assert DEFAULT_RECIPE.query_parts > 0 and ABLATIONS["no_parts"].query_parts == 0
    assert DEFAULT_RECIPE.other_turns < 1 and ABLATIONS["no_own_first"].other_turns == 1
    assert DEFAULT_RECIPE.abstain_names == "stored" and ABLATIONS["mask_all_names"].abstain_names == "all"
    assert ABLATIONS["question_case_names"].abstain_names == "proper"
    assert DEFAULT_RECIPE.abstain_exchange and not ABLATIONS["single_turn_coverage"].abstain_exchange
    assert DEFAULT_RECIPE.abstain_window == 2 and ABLATIONS["no_wide_coverage"].abstain_window == 1


def test_full_context_cuts_from_the_oldest_end(small_locomo):
    conv = load_locomo(small_locomo)[0]
    lines, ids = fit_newest(list(conv.sessions), budget=120)
    assert ids[0] == conv.sessions[-1].turns[-1].id
    assert all(i.startswith("D2:") for i in ids) and len(ids) < len(conv.sessions[-1].turns)
    assert sum(len(line) for line in lines) / 4 <= 120


def test_filesystem_tools_list_grep_and_read(tmp_path, small_locomo):
    conv = load_locomo(small_locomo)[0]
    system = make_system("filesystem", SystemConfig(work_dir=tmp_path))
    system.ingest(conv)
    tools = system.tools(conv.conversation_id)
    assert tools["list_files"]().splitlines() == ["2023-01-20_session_1.txt", "2023-01-29_session_2.txt"]
    assert "[D1:2] Jon:" in tools["grep"]("banker")
    assert tools["read"]("2023-01-29_session_2.txt").startswith("[D2:1] ")


class Failing:
    """A system that ingests but fails on every other question."""

    has_provenance = True

    def __init__(self, name, config):
        self.name, self.asked = name, 0

    def ingest(self, conversation):
        return IngestStats(episodes=1, seconds=0.0)

    def context(self, conversation_id, question):
        self.asked += 1
        if self.asked % 2:
            raise RuntimeError("search backend down")
        return Context(text="x", turn_ids=question.evidence, tokens=1, latency_ms=1.0)

    def close(self):
        pass


def test_an_erroring_system_is_counted_in_errors(tmp_path, small_locomo):
    assert isinstance(Failing("f", None), MemorySystem)
    with pytest.raises(InvalidInput, match="no questions"):
        load_dataset("locomo", small_locomo)  # conv-30 is a tuning conversation: not in the default split
    dataset = load_dataset("locomo", small_locomo, split="all", limit=QUESTIONS)
    results = run(dataset, ["failing"], tmp_path, factory=Failing)
    figures = results["systems"]["failing"]
    assert figures["errors"] == QUESTIONS // 2
    assert figures["recall@10"] == 0.5
    assert [r["error"] is not None for r in figures["records"]] == [True, False] * (QUESTIONS // 2)


def _servers_under(folder: Path) -> list[int]:
    """Live redis-server processes whose working directory is inside `folder`."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and "redis-server" in (proc / "cmdline").read_text() \
                    and str(folder) in str((proc / "cwd").readlink()) and " Z " not in (proc / "stat").read_text():
                found.append(int(proc.name))
        except OSError:
            continue
    return found


def _recomputed(records: list[dict]) -> dict[str, float]:
    with_gold = [r for r in records if r["gold"]]
    ok = [r for r in records if not r["error"]]
    out = {}
    for k in (5, 10, 25):
        out[f"recall@{k}"] = np.mean([
            0 if r["error"] else len(set(r["gold"]) & set(list(dict.fromkeys(r["cited"]))[:k])) / len(set(r["gold"]))
            for r in with_gold])
    out["session_any@10"] = np.mean([
        0 if r["error"] else float(bool(set(r["gold_sessions"]) & set(list(dict.fromkeys(r["cited_sessions"]))[:10])))
        for r in records if r["gold_sessions"]])
    out["tokens_mean"] = np.mean([r["tokens"] for r in ok])
    out["latency_ms_p95"] = np.percentile([r["latency_ms"] for r in ok], 95)
    out["errors"] = len(records) - len(ok)
    return out


def test_every_system_answers_and_the_figures_recompute_from_the_records(tmp_path, small_locomo):
    out = tmp_path / "run"
    names = ["graphmem", "rag", "mem0", "graphiti", "full_context", "filesystem", "graphmem:no_graph"]
    result = runner.invoke(app, ["eval", "retrieval", "--dataset", "locomo", "--data", str(small_locomo), "--split",
                                 "all", "--systems", ",".join(names), "--limit", str(QUESTIONS), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "| graphiti |" in result.output
    results = read_results(out)
    assert results["conditions"]["questions"] == QUESTIONS and len(results["conditions"]["data_sha256"]) == 64
    for name in names:
        figures = results["systems"][name]
        records = figures["records"]
        assert len(records) == QUESTIONS and figures["errors"] == 0, (name, records)
        assert all(r["tokens"] > 0 and r["cited"] for r in records), name
        expected = _recomputed(records)
        for key, value in expected.items():
            if name == "full_context" and "@" in key:
                assert figures[key] is None
            else:
                assert figures[key] == pytest.approx(value), (name, key)
    assert results["systems"]["graphmem"]["recall@25"] > 0
    assert not _servers_under(out), "an embedded FalkorDB server outlived the run (Graphiti's connection)"
    report = (out / "report.md").read_text()
    (out / "report.md").unlink()
    (out / "recall_at_k.png").unlink()
    rerun = runner.invoke(app, ["eval", "report", str(out)])
    assert rerun.exit_code == 0, rerun.output
    assert (out / "report.md").read_text() == report == render(results)
    assert (out / "recall_at_k.png").stat().st_size > 0


def test_nested_kv_run_reports_per_depth(tmp_path):
    dataset = load_dataset("nested_kv", None, seed=1)
    results = run(dataset, ["filesystem"], tmp_path)
    figures = results["systems"]["filesystem"]
    by_depth = figures["nested_kv"]
    assert sorted(by_depth) == ["0", "1", "2", "3", "4"] and all(v["questions"] == 3 for v in by_depth.values())
    records = figures["records"]
    for depth, row in by_depth.items():
        mine = [r["extra"] for r in records if r["extra"]["depth"] == int(depth)]
        assert row["value_found"] == sum(e["value_found"] for e in mine) / len(mine)
    assert by_depth["0"]["value_found"] == 1.0  # the question names the key: an exact lookup


def test_nested_kv_pairs_are_also_structured_facts_citing_their_turns():
    conv = nested_kv.generate(seed=2)
    turns = conv.turns_by_id()
    assert len(conv.facts) == 140
    for fact in conv.facts:
        assert turns[fact.turn_id].content == nested_kv.turn_text(fact.subject, fact.object) == fact.fact
        assert fact.predicate == nested_kv.PREDICATE


def test_graphmem_follows_every_nested_kv_chain_to_its_terminal_value(tmp_path):
    """Acceptance (issue 14, part 5): the packet holds the terminal value at every
    depth 0-4, because search follows MAPS_TO chains and marks the end verified."""
    dataset = load_dataset("nested_kv", None, seed=1)
    results = run(dataset, ["graphmem"], tmp_path)
    by_depth = results["systems"]["graphmem"]["nested_kv"]
    assert sorted(by_depth) == ["0", "1", "2", "3", "4"]
    assert all(row["value_found"] == 1.0 and row["chain_found"] == 1.0 for row in by_depth.values()), by_depth


def test_report_of_a_missing_dir_is_a_clean_error(tmp_path):
    result = runner.invoke(app, ["eval", "report", str(tmp_path)])
    assert result.exit_code == 2 and "no such file" in result.output


def test_every_registered_name_builds(tmp_path):
    assert set(SYSTEM_NAMES) >= {"graphmem", "graphiti", "mem0", "full_context", "rag", "filesystem"}
    assert {f"graphmem:{a}" for a in ABLATIONS} <= set(SYSTEM_NAMES)


def test_bm25_and_minilm_systems_rank_by_their_list_alone(tmp_path, small_locomo):
    """The harness's `bm25` and `minilm` rows are the naive RAG corpus ranked by one list each."""
    from graphmem.embedding.embedder import default_embedder
    from graphmem.evals.baselines import build_corpus, rank_bm25, rank_minilm

    conv = load_locomo(small_locomo)[0]
    question = conv.questions[0]
    corpus = build_corpus(conv.turns_by_id().values(), default_embedder().embed)
    vector = default_embedder().embed([question.question])[0]
    expected = {"bm25": rank_bm25(corpus, question.question), "minilm": rank_minilm(corpus, vector)}
    for name, ranked in expected.items():
        system = make_system(name, SystemConfig(work_dir=tmp_path / name, k=10))
        system.ingest(conv)
        assert list(system.context(conv.conversation_id, question).turn_ids) == ranked[:10]
        system.close()
    with pytest.raises(ValueError, match="unknown ranker"):
        make_system("rag", SystemConfig(work_dir=tmp_path, options={"ranker": "bm52"}))


def test_a_run_records_its_embedder_and_refuses_a_graph_another_embedder_wrote(tmp_path, small_locomo, monkeypatch):
    monkeypatch.setenv("GRAPHMEM_CACHE_DIR", str(tmp_path / "cache"))

    def run_with(backend: str, out: Path) -> dict:
        monkeypatch.setenv("GRAPHMEM_EMBEDDER_BACKEND", backend)
        result = runner.invoke(app, ["eval", "retrieval", "--dataset", "locomo", "--data", str(small_locomo),
                                     "--split", "all", "--systems", "graphmem,rag", "--limit", "1", "--out", str(out)])
        assert result.exit_code == 0, result.output
        return read_results(out)

    first = run_with("onnx-int8", tmp_path / "a")
    assert first["conditions"]["embedder"] == {"model": "all-MiniLM-L6-v2", "backend": "onnx-int8"}
    assert '"backend": "onnx-int8"' in render(first)
    assert first["systems"]["graphmem"]["errors"] == 0
    assert run_with("onnx-int8", tmp_path / "a")["systems"]["graphmem"]["errors"] == 0  # its own graph: reused

    # fp32 on the int8 graph would search int8 turn vectors with fp32 questions: every question errors, saying why
    mixed = run_with("torch", tmp_path / "a")
    assert mixed["conditions"]["embedder"]["backend"] == "torch"
    (record,) = mixed["systems"]["graphmem"]["records"]
    assert mixed["systems"]["graphmem"]["errors"] == 1 and "onnx-int8" in record["error"], record
    assert mixed["systems"]["rag"]["errors"] == 0  # a system that keeps no graph is unaffected
    assert run_with("torch", tmp_path / "b")["systems"]["graphmem"]["errors"] == 0
    # fp32's markers keep the digest they had before the backend counted, so older run dirs are still reused
    from graphmem.evals.systems.graphmem_system import conversation_hash

    (conv,) = load_locomo(small_locomo)
    (marker,) = (tmp_path / "b" / "work" / "graphmem_graph" / "ingested").glob("*.json")
    saved = json.loads(marker.read_text())
    assert saved["sha256"] == hashlib.sha256(f"{conversation_hash(conv)}|rules".encode()).hexdigest()
    marker.write_text(json.dumps({k: v for k, v in saved.items() if k != "ingest_id"}))  # as written before
    assert run_with("torch", tmp_path / "b")["systems"]["graphmem"]["errors"] == 0

    # the tools that read a run's graph (`fit_fusion collect`, `graphiti_probe`) refuse it the same way
    from graphmem.evals.systems.graphmem_system import SharedGraph

    never = conv.model_copy(update={"conversation_id": "never-ingested"})
    for backend, refused in (("onnx-int8", None), ("torch", "another extractor or embedder")):
        monkeypatch.setenv("GRAPHMEM_EMBEDDER_BACKEND", backend)
        graph = SharedGraph(tmp_path / "a" / "work" / "graphmem_graph")
        try:
            if refused:
                with pytest.raises(SystemExit, match=refused):
                    graph.require(conv)
            else:
                graph.require(conv)
            with pytest.raises(SystemExit, match="holds no ingestion"):
                graph.require(never)
        finally:
            graph.memory.close()


def test_a_rerun_into_the_same_out_starts_mem0_and_the_files_afresh(small_locomo, tmp_path):
    """Mem0's offline store and the filesystem agent's files were kept in `--out`: a second run
    held every memory twice (R@25 0.929 -> 0.786), or another dataset's files."""
    (conversation,) = load_dataset("locomo", small_locomo, split="all").conversations
    config = SystemConfig(work_dir=tmp_path / "work", k=25)
    counts = []
    for _ in range(2):
        mem0 = make_system("mem0", config.model_copy(update={"work_dir": tmp_path / "work" / "mem0"}))
        mem0.ingest(conversation)
        found = mem0.mem0.get_all(filters={"user_id": _memory_id(conversation.conversation_id)}, top_k=10_000)
        files = make_system("filesystem", config.model_copy(update={"work_dir": tmp_path / "work" / "fs"}))
        stale = files.folder(conversation.conversation_id)
        stale.mkdir(parents=True, exist_ok=True)
        (stale / "left-from-other-data.txt").write_text("[X:1] someone: hi\n")
        files.ingest(conversation)
        counts.append((len(found["results"] if isinstance(found, dict) else found),
                       sorted(p.name for p in stale.iterdir())))
        mem0.close()
    assert counts[0] == counts[1] and counts[0][0] == sum(len(s.turns) for s in conversation.sessions)
    assert "left-from-other-data.txt" not in counts[0][1]


def _memory_id(conversation_id: str) -> str:
    from graphmem.evals.systems._common import memory_id

    return memory_id(conversation_id)


def test_graphmem_searches_with_the_k_every_system_gets(small_locomo, tmp_path, monkeypatch):
    """It searched with at least 25 whatever k was, so in the answer stage (k 10) its reader
    saw 2.5x the context of every other system's."""
    (conversation,) = load_dataset("locomo", small_locomo, split="all").conversations
    system = make_system("graphmem", SystemConfig(work_dir=tmp_path / "gm", k=3,
                                                  options={"graph_dir": str(tmp_path / "graph")}))
    try:
        system.ingest(conversation)
        asked = []
        real = system.graph.memory.search
        monkeypatch.setattr(system.graph.memory, "search", lambda *a, **kw: asked.append(kw["limit"]) or real(*a, **kw))
        context = system.context(conversation.conversation_id, conversation.questions[0])
        assert asked == [3] and context.error is None
    finally:
        system.close()
