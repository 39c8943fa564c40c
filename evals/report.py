"""``DIR/report.md`` and its PNG plots, rendered from ``DIR/results.json`` alone.

The report is a list of sections, each a pure function ``(results) -> str``
(empty when it has nothing to say); :func:`render` joins them. The answer
stage adds its own (accuracy per category with CI bars, tokens against
accuracy) by appending to :data:`SECTIONS` or passing ``sections=``; plots go
through :data:`PLOTS` the same way. ``graphmem eval report DIR`` calls
:func:`write_report`, so a report can always be rebuilt from its results.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path

from graphmem.schema.errors import InvalidInput
from graphmem.evals.metrics import KS, SESSION_K

Section = Callable[[dict], str]
Plot = Callable[[dict, Path], str | None]

TABLE_COLUMNS = tuple(f"recall@{k}" for k in KS) + (f"session_any@{SESSION_K}", "gold_in_context", "tokens_mean",
                                                     "latency_ms_p50", "latency_ms_p95", "errors")


def _cell(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3f}" if value <= 1.0 else f"{value:.1f}"
    return str(value)


def retrieval_table(results: dict) -> str:
    """The retrieval figures of every system as a Markdown table (also what the CLI prints)."""
    head = "| system | " + " | ".join(TABLE_COLUMNS) + " |"
    rule = "|---|" + "---:|" * len(TABLE_COLUMNS)
    rows = [f"| {name} | " + " | ".join(_cell(fig.get(c)) for c in TABLE_COLUMNS) + " |"
            for name, fig in results.get("systems", {}).items()]
    return "\n".join([head, rule, *rows])


def conditions_section(results: dict) -> str:
    c = results.get("conditions", {})
    lines = ["## Conditions", ""]
    lines += [f"- **{key}**: {json.dumps(value) if isinstance(value, (dict, list)) else value}"
              for key, value in c.items()]
    return "\n".join(lines)


def retrieval_section(results: dict) -> str:
    if not any("recall@10" in fig for fig in results.get("systems", {}).values()):
        return ""
    return "\n".join([
        "## Retrieval (offline)", "",
        "recall@k: share of a question's gold turns among the first k distinct turn ids cited "
        "(an erroring question scores 0 and counts in `errors`); session_any@10: a gold session among the first "
        "10 sessions cited; gold_in_context: share of gold turns anywhere in the context; tokens: "
        f"{results.get('conditions', {}).get('token_estimate', 'estimate')}; latency: `context()` per question. "
        "full_context cites every turn it keeps, so only its tokens and gold_in_context mean anything.", "",
        retrieval_table(results), "",
        "![recall@k per system](recall_at_k.png)", "", "![tokens against recall@10](tokens_vs_recall.png)",
    ])


def ingest_section(results: dict) -> str:
    rows = [(n, f["ingest"]) for n, f in results.get("systems", {}).items() if "ingest" in f]
    if not rows:
        return ""
    lines = ["## Ingestion", "", "| system | episodes | seconds | LLM calls | errors |", "|---|---:|---:|---:|---:|"]
    lines += [f"| {n} | {i['episodes']} | {i['seconds']:.1f} | {i['llm_calls']} | {len(i['errors'])} |"
              for n, i in rows]
    return "\n".join(lines + ["", "Systems that share graphmem's graph report the ingestion of whichever ran first."])


def nested_section(results: dict) -> str:
    rows = [(n, f["nested_kv"]) for n, f in results.get("systems", {}).items() if "nested_kv" in f]
    if not rows:
        return ""
    depths = sorted({d for _, by in rows for d in by}, key=int)
    head = "| system | " + " | ".join(f"depth {d} value / chain" for d in depths) + " |"
    lines = ["## Nested key-value lookups", "", "Share of questions whose context holds the terminal value / "
             "every pair of the chain.", "", head, "|---|" + "---:|" * len(depths)]
    lines += [f"| {n} | " + " | ".join(f"{by[d]['value_found']:.2f} / {by[d]['chain_found']:.2f}" if d in by else "-"
                                       for d in depths) + " |" for n, by in rows]
    return "\n".join(lines)


SECTIONS: list[Section] = [conditions_section, retrieval_section, ingest_section, nested_section]


def render(results: dict, sections: Sequence[Section] | None = None) -> str:
    """The report's Markdown: the title, then every non-empty section."""
    c = results.get("conditions", {})
    parts = [f"# graphmem evaluation: {c.get('dataset', '?')} ({c.get('stage', '?')} stage)"]
    parts += [text for section in (sections or SECTIONS) if (text := section(results))]
    return "\n\n".join(parts) + "\n"


def plot_recall(results: dict, folder: Path) -> str | None:
    import matplotlib.pyplot as plt

    systems = {n: f for n, f in results.get("systems", {}).items() if f.get("recall@10") is not None}
    if not systems:
        return None
    fig, ax = plt.subplots(figsize=(8, 4))
    width = 0.8 / len(KS)
    for i, k in enumerate(KS):
        ax.bar([x + i * width for x in range(len(systems))], [f[f"recall@{k}"] for f in systems.values()], width,
               label=f"recall@{k}")
    ax.set_xticks([x + width for x in range(len(systems))], list(systems), rotation=30, ha="right")
    ax.set_ylim(0, 1)
    ax.set_ylabel("evidence recall")
    ax.legend()
    fig.tight_layout()
    fig.savefig(folder / "recall_at_k.png", metadata={"Software": None})
    plt.close(fig)
    return "recall_at_k.png"


def plot_tokens(results: dict, folder: Path) -> str | None:
    import matplotlib.pyplot as plt

    systems = {n: f for n, f in results.get("systems", {}).items()
               if f.get("recall@10") is not None and f.get("tokens_mean") is not None}
    if not systems:
        return None
    fig, ax = plt.subplots(figsize=(6, 4))
    for name, f in systems.items():
        ax.scatter(f["tokens_mean"], f["recall@10"])
        ax.annotate(name, (f["tokens_mean"], f["recall@10"]), fontsize=7)
    ax.set_xlabel("context tokens (mean)")
    ax.set_ylabel("recall@10")
    fig.tight_layout()
    fig.savefig(folder / "tokens_vs_recall.png", metadata={"Software": None})
    plt.close(fig)
    return "tokens_vs_recall.png"


PLOTS: list[Plot] = [plot_recall, plot_tokens]


def read_results(folder: Path) -> dict:
    path = Path(folder) / "results.json"
    if not path.is_file():
        raise InvalidInput(f"{path}: no such file (run `graphmem eval retrieval --out {folder}` first)")
    try:
        return json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"{path}: not JSON ({exc})") from exc


def write_results(folder: Path, results: dict) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "results.json"
    path.write_text(json.dumps(results, indent=1))
    return path


def write_report(folder: Path, sections: Sequence[Section] | None = None,
                 plots: Sequence[Plot] | None = None) -> Path:
    """Re-render ``folder/report.md`` and its plots from ``folder/results.json``."""
    import matplotlib

    matplotlib.use("Agg")
    results = read_results(folder)
    for plot in plots or PLOTS:
        plot(results, Path(folder))
    path = Path(folder) / "report.md"
    path.write_text(render(results, sections))
    return path
