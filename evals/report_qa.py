"""The answer stage's report: ``report.md`` and PNG plots, from ``results.json`` alone.

Every table carries the conditions it was measured under (reader, judge, its
name and calibration, runs, k, data hash), so a number never travels without
them. Plots (matplotlib, Agg): accuracy per category with 95% CI bars, and
answer tokens against accuracy. ``render(results)`` is pure text; only
`write_report` touches the disk.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def _pct(ci: dict[str, Any] | None) -> str:
    if not ci:
        return "-"
    return f"{100 * ci['mean']:.1f} [{100 * ci['low']:.1f}, {100 * ci['high']:.1f}]"


def _embedder(c: dict[str, Any]) -> str:
    e = c.get("embedder")  # results written before the embedder was recorded: fp32, the only one then used
    return f"{e['model']} ({e['backend']})" if e else "not recorded (fp32 sentence-transformers)"


def _conditions(c: dict[str, Any]) -> list[str]:
    r, j = c["reader"], c["judge"]
    return [
        "## Conditions", "",
        f"- dataset: {c['dataset']} ({c['questions']} questions, {c['conversations']} conversations; "
        f"categories {', '.join(c['categories'])}); data sha256 `{c['data_sha256'][:16]}`",
        f"- reader: `{r['model']}` prompt {r['prompt']}, temperature {r['temperature']}, seeds {r['seeds']}",
        f"- judge: **{j['name']}**, `{j['model']}` prompt {j['prompt']}",
        f"- endpoint {c['endpoint']}; runs {c['runs']}; k {c['k']}; reader budget {c['context_tokens']} tokens; "
        f"agent tool calls <= {c['agent_max_calls']}; graphmem {c['graphmem_version']}; {c['date']}",
        f"- embedder (every system): {_embedder(c)}",
        f"- LLM requests made by this run (reader, judge, agent; cache misses only): {c['llm_requests_this_run']}", "",
    ]


def _scores(results: dict[str, Any]) -> list[str]:
    c, metric = results["conditions"], results["conditions"]["metric"]
    has_f1 = metric == "J"
    diffs = results.get("paired_diff_vs_graphmem", {})
    head = f"| system | {metric} % (95% CI) |" + (" F1 % (95% CI) |" if has_f1 else "") + " Δ vs graphmem (paired) | questions | judge errors | errors | ingest errors |"
    lines = [f"## Answers — judge: {c['judge']['name']}", "", head, "|" + "---|" * (head.count("|") - 1)]
    for name, s in results["systems"].items():
        diff = _pct(diffs.get(name)) if name in diffs else "-"
        f1 = f" {_pct(s.get('F1'))} |" if has_f1 else ""
        lines.append(f"| {name} | {_pct(s[metric])} |{f1} {diff} | {s['questions']} | {s['judge_errors']} | {s['errors']} | {s.get('ingest_errors', 0)} |")
    cats = sorted({k for s in results["systems"].values() for k in s["by_category"]})
    lines += ["", f"### {metric} per category (%, 95% CI)", "", "| system | " + " | ".join(cats) + " |",
              "|---|" + "---|" * len(cats)]
    for name, s in results["systems"].items():
        lines.append(f"| {name} | " + " | ".join(_pct(s["by_category"].get(k, {}).get(metric)) for k in cats) + " |")
    return lines + [""]


def _stages(results: dict[str, Any]) -> list[str]:
    lines = ["## Where the wrong answers went wrong", "",
             "write = gold evidence never stored; retrieval = stored but not in the context; "
             "reader = in the context, answer wrong; unknown = the system cannot say what it stored.", "",
             "| system | wrong | write | retrieval | reader | unknown |", "|---|---|---|---|---|---|"]
    for name, s in results["systems"].items():
        st = s["stages"]
        lines.append(f"| {name} | {s['wrong']} | {st['write']} | {st['retrieval']} | {st['reader']} | {st['unknown']} |")
    return lines + [""]


def _cost(results: dict[str, Any]) -> list[str]:
    lines = ["## Cost (tokens from the endpoint's usage)", "",
             "| system | ingest calls | ingest prompt / completion tokens | calls per episode | prompt tokens per episode "
             "| ingest s | answer calls | answer prompt / completion tokens | $ |", "|---|---|---|---|---|---|---|---|---|"]
    for name, s in results["systems"].items():
        c = s["cost"]
        dollars = "-" if c["dollars"] is None else f"{c['dollars']:.4f}"
        lines.append(
            f"| {name} | {c['ingest']['calls']} | {c['ingest']['prompt_tokens']} / {c['ingest']['completion_tokens']} "
            f"| {c['ingest_calls_per_episode']:.2f} | {c['ingest_prompt_tokens_per_episode']:.0f} "
            f"| {c['ingest_seconds']:.1f} | {c['answer']['calls']} | {c['answer']['prompt_tokens']} / "
            f"{c['answer']['completion_tokens']} | {dollars} |")
    return lines + [""]


def _official(results: dict[str, Any]) -> list[str]:
    """LongMemEval's own script's accuracy per question type (mean over runs), when it judged."""
    reported = {n: s["official_script"] for n, s in results["systems"].items() if s.get("official_script")}
    if not reported:
        return []
    types = sorted({t for runs in reported.values() for r in runs for t in r["by_type"]})
    lines = ["## LongMemEval official script, accuracy per question type (%, mean over runs)", "",
             "| system | overall | " + " | ".join(types) + " |", "|---|---|" + "---|" * len(types)]
    for name, runs in reported.items():
        overall = sum(r["accuracy"] for r in runs) / len(runs)
        cells = [sum(r["by_type"].get(t, 0.0) for r in runs) / len(runs) for t in types]
        lines.append(f"| {name} | {100 * overall:.1f} | " + " | ".join(f"{100 * c:.1f}" for c in cells) + " |")
    return lines + [""]


def _calibration(results: dict[str, Any]) -> list[str]:
    cal = results.get("judge_calibration")
    if not cal:
        return ["## Judge calibration", "", "not run (--no-calibrate)", ""]
    return ["## Judge calibration", "",
            f"{cal['judge']} (`{cal['judge_model']}`) on the labelled set (evals/data/judge_calibration.json, "
            f"{cal['items']} items): agreement {100 * cal['agreement']:.1f}%, false positive rate "
            f"{100 * cal['false_positive_rate']:.1f}%, false negative rate {100 * cal['false_negative_rate']:.1f}%, "
            f"judge errors {cal['errors']}.", ""]


def render(results: dict[str, Any], plots: list[str] = ()) -> str:
    """The report's markdown (pure)."""
    lines = ["# graphmem evaluation — answer stage", ""]
    lines += _conditions(results["conditions"]) + _scores(results) + _official(results) + _calibration(results)
    lines += _stages(results) + _cost(results)
    lines += [f"![{p}]({p})" for p in plots]
    return "\n".join(lines) + "\n"


def plot(results: dict[str, Any], out: Path) -> list[str]:
    """accuracy per category with CI bars; answer tokens against accuracy. Returns the file names."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    metric, systems = results["conditions"]["metric"], results["systems"]
    cats = sorted({k for s in systems.values() for k in s["by_category"]})
    fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(cats) * max(1, len(systems)) / 2), 4))
    width = 0.8 / max(1, len(systems))
    for i, (name, s) in enumerate(systems.items()):
        cis = [s["by_category"].get(k, {}).get(metric) or {"mean": 0, "low": 0, "high": 0} for k in cats]
        means = [c["mean"] for c in cis]
        err = [[c["mean"] - c["low"] for c in cis], [c["high"] - c["mean"] for c in cis]]
        ax.bar([x + i * width for x in range(len(cats))], means, width, yerr=err, capsize=3, label=name)
    ax.set_xticks([x + width * (len(systems) - 1) / 2 for x in range(len(cats))], cats)
    ax.set_ylabel(f"{metric} (95% CI)")
    ax.set_ylim(0, 1)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out / "accuracy_by_category.png", dpi=100)
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(5, 4))
    for name, s in systems.items():
        tokens = s["cost"]["answer"]["prompt_tokens"] / max(1, s["answers"])
        ax.errorbar(tokens, s[metric]["mean"], yerr=[[s[metric]["mean"] - s[metric]["low"]],
                    [s[metric]["high"] - s[metric]["mean"]]], fmt="o", capsize=3, label=name)
    ax.set_xlabel("reader prompt tokens per answer")
    ax.set_ylabel(metric)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out / "tokens_vs_accuracy.png", dpi=100)
    plt.close(fig)
    return ["accuracy_by_category.png", "tokens_vs_accuracy.png"]


def write_report(out: Path, results: dict[str, Any] | None = None) -> Path:
    """Render ``out/report.md`` (and its PNGs) from ``results`` or ``out/results.json``."""
    results = results if results is not None else json.loads((out / "results.json").read_text())
    path = out / "report.md"
    path.write_text(render(results, plot(results, out)))
    return path


__all__ = ["plot", "render", "write_report"]
