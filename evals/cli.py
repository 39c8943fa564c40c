"""`graphmem eval ...`: evaluations of graphmem itself, offline (mounted by graphmem.cli).

    graphmem eval forget [--set PATH] [--data-dir DIR] [--baseline] [--json] [--llm-base-url URL --llm-model M]
    graphmem eval retrieval --dataset locomo|longmemeval|nested_kv [--data PATH] --systems LIST
                            [--limit N] [--split tuning|reporting|all] [--pool] --out DIR
    graphmem eval report DIR
    graphmem eval qa --dataset D --data PATH --systems LIST --base-url URL --reader-model M --judge-model J --out DIR

Exit codes: 0 all passed, 1 something failed, 2 the eval could not run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from graphmem.schema.errors import GraphMemError

eval_app = typer.Typer(help="Evaluate graphmem itself (offline, on a temporary data dir).", no_args_is_help=True)


@eval_app.callback()
def _evals() -> None:
    """Evaluate graphmem itself (offline, on a temporary data dir)."""


@eval_app.command("forget")
def forget(
    set_path: Annotated[
        Optional[Path],
        typer.Option("--set", exists=True, dir_okay=False, help="a forgetting set (JSON); default: the packaged one"),
    ] = None,
    data_dir: Annotated[
        Optional[Path], typer.Option("--data-dir", help="where to write; default: a temporary directory")
    ] = None,
    baseline: Annotated[
        bool, typer.Option("--baseline", help="check the set instead: forget nothing, every string must be found")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON instead of a table")] = False,
    llm_base_url: Annotated[
        Optional[str], typer.Option("--llm-base-url", help="extract with this OpenAI-compatible endpoint (checks the LLM cache)")
    ] = None,
    llm_model: Annotated[Optional[str], typer.Option("--llm-model", help="the model name for --llm-base-url")] = None,
) -> None:
    """Write each item, forget with its selector, ask: forgotten text must be gone, kept text must stay."""
    from graphmem.evals.forgetting import LLMEndpoint, print_results, run

    if (llm_base_url is None) != (llm_model is None):
        typer.echo("error: --llm-base-url and --llm-model go together", err=True)
        raise typer.Exit(code=2)
    llm = LLMEndpoint(base_url=llm_base_url, model=llm_model) if llm_base_url else None
    try:
        results = run(set_path, data_dir, baseline=baseline, llm=llm)
    except (GraphMemError, ValueError) as exc:  # ValueError: a malformed set (JSON or schema)
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(code=2) from exc
    if as_json:
        typer.echo(results.model_dump_json(indent=2))
    else:
        print_results(results)
    raise typer.Exit(code=0 if results.ok else 1)


@eval_app.command("retrieval")
def retrieval(
    dataset: Annotated[str, typer.Option("--dataset", help="locomo | longmemeval | nested_kv")],
    systems: Annotated[str, typer.Option("--systems", help="comma-separated, e.g. graphmem,rag,mem0,graphmem:no_bm25")],
    out: Annotated[Path, typer.Option("--out", help="where results.json, report.md and the systems' work dirs go")],
    data: Annotated[Optional[Path], typer.Option("--data", help="the dataset file (not needed for nested_kv)")] = None,
    limit: Annotated[Optional[int], typer.Option("--limit", help="keep the first N questions (file order)")] = None,
    split: Annotated[
        Optional[str], typer.Option("--split", help="LoCoMo: tuning | reporting | all (default: reporting for the "
                                    "repo's conversations, else all); pooled LongMemEval: tuning | reporting "
                                    "half of the questions (every session still pooled) | all (default)")
    ] = None,
    pool: Annotated[bool, typer.Option("--pool", help="LongMemEval: all sessions in one memory (distractors)")] = False,
    seed: Annotated[int, typer.Option("--seed", help="nested_kv generator seed")] = 0,
) -> None:
    """Offline retrieval stage: evidence recall@k, session any@10, tokens, latency, errors per system."""
    from graphmem.evals.report import retrieval_table, write_report, write_results
    from graphmem.evals.retrieval_run import load_dataset, run

    try:
        chosen = load_dataset(dataset, data, split=split, pooled=pool, limit=limit, seed=seed)
        results = run(chosen, [s.strip() for s in systems.split(",") if s.strip()], out,
                      after_each=lambda partial: write_results(out, partial))
    except GraphMemError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(code=2) from exc
    write_results(out, results)
    write_report(out)
    c = results["conditions"]
    typer.echo(f"{c['dataset']} ({c['split']} split{', pooled' if c['pooled'] else ''}): {c['questions']} questions, "
               f"{c['conversations']} memories, data sha256 {c['data_sha256'][:12]}")
    typer.echo(retrieval_table(results))
    typer.echo(f"results: {out / 'results.json'}; report: {out / 'report.md'}")


@eval_app.command("report")
def report(folder: Annotated[Path, typer.Argument(help="a directory holding results.json")]) -> None:
    """Re-render DIR/report.md and its plots from DIR/results.json."""
    import importlib

    from graphmem.evals.report import read_results, write_report

    try:
        stage = read_results(folder).get("conditions", {}).get("stage")
        if stage == "retrieval":
            path = write_report(folder)
        else:
            path = importlib.import_module("graphmem.evals.report_qa").write_report(folder)
    except (GraphMemError, ImportError, KeyError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(code=2) from exc
    typer.echo(f"wrote {path}")


@eval_app.command("qa")
def qa(
    dataset: Annotated[str, typer.Option("--dataset", help="locomo | longmemeval | nested_kv")],
    systems: Annotated[str, typer.Option("--systems", help="comma-separated: graphmem,graphiti,mem0,full_context,rag,filesystem")],
    base_url: Annotated[str, typer.Option("--base-url", help="the OpenAI-compatible endpoint (reader, judge, ingestion)")],
    reader_model: Annotated[str, typer.Option("--reader-model", help="model that answers (and ingests, for LLM systems)")],
    judge_model: Annotated[str, typer.Option("--judge-model", help="model that judges (or the official script's model name)")],
    out: Annotated[Path, typer.Option("--out", help="where results.json, report.md and the LLM cache go")],
    data: Annotated[Optional[Path], typer.Option("--data", help="the dataset file (not needed for nested_kv)")] = None,
    runs: Annotated[int, typer.Option("--runs", min=1, help="answer-stage repeats with seeds seed..seed+runs-1")] = 3,
    seed: Annotated[int, typer.Option("--seed")] = 0,
    temperature: Annotated[float, typer.Option("--temperature")] = 0.0,
    k: Annotated[int, typer.Option("--k", min=1, help="items a retriever returns")] = 10,
    context_tokens: Annotated[int, typer.Option("--context-tokens", help="the reader's context budget")] = 8000,
    categories: Annotated[
        Optional[str], typer.Option("--categories", help="comma-separated categories; LoCoMo default 1,2,3,4")
    ] = None,
    limit: Annotated[Optional[int], typer.Option("--limit", min=1, help="the first N questions in file order")] = None,
    split: Annotated[Optional[str], typer.Option(
        "--split", help="LoCoMo: tuning | reporting | all (default: reporting when the file holds the tuning conversations)")] = None,
    max_tool_calls: Annotated[int, typer.Option("--max-tool-calls", min=0, help="filesystem agent's bound")] = 8,
    official_script: Annotated[
        Optional[Path], typer.Option("--official-script", help="LongMemEval's src/evaluation/evaluate_qa.py")
    ] = None,
    prices: Annotated[Optional[Path], typer.Option("--prices", help='JSON {model: {"prompt": $/1M, "completion": $/1M}}')] = None,
    api_key_env: Annotated[str, typer.Option("--api-key-env", help="environment variable holding the API key")] = "OPENAI_API_KEY",
    calibrate: Annotated[bool, typer.Option("--calibrate/--no-calibrate", help="run the judge on the labelled set")] = True,
) -> None:
    """Answer stage: every system's context through one reader and one judge; writes results.json and report.md."""
    import os

    from graphmem.evals.qa_run import QAConfig, run_qa

    try:
        config = QAConfig(
            dataset=dataset, data=data, systems=tuple(s.strip() for s in systems.split(",") if s.strip()),
            base_url=base_url, reader_model=reader_model, judge_model=judge_model,
            api_key=os.environ.get(api_key_env) or "not-needed", runs=runs, seed=seed, temperature=temperature, k=k,
            context_tokens=context_tokens, limit=limit, split=split, agent_max_calls=max_tool_calls,
            categories=tuple(c.strip() for c in categories.split(",")) if categories else None,
            official_script=official_script, prices=prices, calibrate=calibrate, out=out,
        )
        results = run_qa(config)
    except (GraphMemError, ValueError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(code=2) from exc
    metric = results["conditions"]["metric"]
    for name, entry in results["systems"].items():
        ci = entry[metric]
        typer.echo(f"{name:24s} {metric} {100 * ci['mean']:5.1f} [{100 * ci['low']:.1f}, {100 * ci['high']:.1f}]"
                   f"  ({results['conditions']['judge']['name']})")
    typer.echo(f"wrote {out / 'results.json'} and {out / 'report.md'}")
