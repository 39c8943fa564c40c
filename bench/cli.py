"""CLI benchmark: how long `graphmem ...` takes as people run it, one fresh
process per call.

Builds a store once per run (`graphmem ingest` of the 7 LoCoMo conversations in
tests/data, 4,124 turns, offline, into a temporary dir; set
GRAPHMEM_BENCH_CLI_STORE to a dir to build it there once and reuse it), then
times each command three times (wall clock around the subprocess; the median is
printed) beside `python -c pass` from the same run: on a shared 2-core machine
the ratio says more than the seconds. CPU seconds (user + system of the child)
are printed too, as they move less with the load than wall time does.

`graphmem ingest (one turn, new dir)` is what a first write costs a fresh process:
the embedder's and the rules' start-up, the embedded server and the graph's
indexes, then one turn; each run writes into a data dir of its own.
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.common import header

ROOT = Path(__file__).resolve().parent.parent
LOCOMO = ROOT / "tests" / "data" / "locomo_dev7.json"
USER = "lc"
SEARCHED = "lc_conv-26"
RUNS = 3
TARGETS_S = {"graphmem facts": 1.5, "graphmem search (cold)": 3.0, "Memory.close": 0.3}
ONE_TURN = {"session_id": "s1", "session_time": "2024-03-01T10:00:00+00:00",
            "turns": [{"speaker": "user", "content": "I moved to Lisbon last week and started at Acme as a designer."}]}

OPEN_CLOSE = """
import json, sys, time
t0 = time.perf_counter()
from graphmem import Memory
t1 = time.perf_counter()
mem = Memory(data_dir=sys.argv[1])
t2 = time.perf_counter()
mem.close()
t3 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "open": t2 - t1, "close": t3 - t2}))
"""


def graphmem_command() -> list[str]:
    script = Path(sys.executable).parent / "graphmem"
    return [str(script)] if script.exists() else [sys.executable, "-m", "graphmem.cli"]


def child_env() -> dict[str, str]:
    return {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}


def run_once(argv: list[str]) -> tuple[float, float, str]:
    """(wall seconds, child CPU seconds, stdout) of one subprocess run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env=child_env(), check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {done.returncode}: {done.stderr[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


def median_run(argv: list[str]) -> tuple[float, float]:
    samples = [run_once(argv)[:2] for _ in range(RUNS)]
    return statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples)


def build_store(data_dir: Path) -> None:
    """Ingest the LoCoMo file through the CLI, unless a previous run left the store."""
    if (data_dir / ".bench-complete").exists():
        print(f"  reusing the store in {data_dir}")
        return
    start = time.perf_counter()
    _, _, out = run_once([*graphmem_command(), "ingest", str(LOCOMO), "--user", USER,
                          "--data-dir", str(data_dir), "--json"])
    summary = json.loads(out.strip().splitlines()[-1])
    (data_dir / ".bench-complete").write_text(out)
    print(f"  built: {summary['episodes']:,} turns into {len(summary['users'])} users "
          f"in {time.perf_counter() - start:.0f} s ({data_dir})")


def report(name: str, wall: float, cpu: float, baseline: float) -> None:
    target = TARGETS_S.get(name)
    goal = f"  target <= {target:.1f} s {'ok' if wall <= target else 'MISSED'}" if target else ""
    print(f"  {name:36} {wall:6.2f} s  {wall / baseline:6.1f}x python  cpu {cpu:5.2f} s{goal}")


def time_open_close(data_dir: Path) -> dict[str, float]:
    samples = [json.loads(run_once([sys.executable, "-c", OPEN_CLOSE, str(data_dir)])[2]) for _ in range(RUNS)]
    return {key: statistics.median(s[key] for s in samples) for key in samples[0]}


def time_cold_ingest(work: Path) -> tuple[float, float]:
    """Median (wall, CPU) of `graphmem ingest` of one turn, each run into a new data dir."""
    source = work / "one_turn.jsonl"
    source.write_text(json.dumps(ONE_TURN) + "\n")
    samples = [run_once([*graphmem_command(), "ingest", str(source), "--user", "cold",
                         "--data-dir", str(work / f"cold-{i}")])[:2] for i in range(RUNS)]
    return statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples)


def measure(data_dir: Path) -> dict[str, float]:
    gm, d = graphmem_command(), ["--data-dir", str(data_dir)]
    baseline, base_cpu = median_run([sys.executable, "-c", "pass"])
    report("python -c pass", baseline, base_cpu, baseline)
    figures = {"python -c pass": baseline}
    commands = {
        "graphmem --help": [*gm, "--help"],
        "graphmem users": [*gm, "users", *d],
        "graphmem facts": [*gm, "facts", "--user", SEARCHED, *d],
        "graphmem search (cold)": [*gm, "search", "What did Caroline research?", "--user", SEARCHED, *d],
    }
    for name, argv in commands.items():
        figures[name], cpu = median_run(argv)
        report(name, figures[name], cpu, baseline)
    with tempfile.TemporaryDirectory(prefix="graphmem-bench-cold-") as work:
        name = "graphmem ingest (one turn, new dir)"
        figures[name], cpu = time_cold_ingest(Path(work))
        report(name, figures[name], cpu, baseline)
    parts = time_open_close(data_dir)
    for key, label in (("import", "import graphmem.Memory"), ("open", "Memory open"), ("close", "Memory.close")):
        figures[label] = parts[key]
        print(f"  {label:36} {parts[key]:6.2f} s  {parts[key] / baseline:6.1f}x python"
              + (f"  target <= 0.3 s {'ok' if parts[key] <= 0.3 else 'MISSED'}" if key == "close" else ""))
    return figures


def run() -> dict[str, float]:
    header(f"cli: one process per command, median of {RUNS}, on the 4,124-turn LoCoMo store (user {SEARCHED})")
    fixed = os.environ.get("GRAPHMEM_BENCH_CLI_STORE")
    if fixed:
        Path(fixed).mkdir(parents=True, exist_ok=True)
        build_store(Path(fixed))
        return measure(Path(fixed))
    with tempfile.TemporaryDirectory(prefix="graphmem-bench-cli-") as tmp:
        build_store(Path(tmp) / "gm")
        return measure(Path(tmp) / "gm")


if __name__ == "__main__":
    run()
