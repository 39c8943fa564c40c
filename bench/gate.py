"""Write-gate benchmark on tests/data/write_gate_set.json (hand-labelled turns).

For the labelled facts (the gate alone, as an LLM extractor would hand them over)
and for the offline rules extractor's facts: precision of what becomes active, the
share of should-be-active facts held back as candidates, the share of passing
states stopped; tune and report part. Also the threshold `calibrate` picks on the
tune part (both sources), to check against `write_gate.THRESHOLD`.
"""

from __future__ import annotations

from pathlib import Path

from bench.common import header
from graphmem.evals import write_gate_set as ws
from graphmem.ingest import write_gate
from graphmem.ingest.rules import RuleExtractor

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "write_gate_set.json"


def _row(source: str, part: str, f: ws.GateFigures) -> str:
    return (f"{source:9} {part:7} {f.facts:6d} {f.labelled:9d} {f.activated:7d} {f.precision:10.3f} "
            f"{f.held_back:10.3f} {f.passing:8d} {f.passing_stopped:16.3f}")


def run() -> dict:
    speaker, turns = ws.load(DATA)
    sources = {"labelled": ws.score_labelled(turns), "rules": ws.score_extracted(turns, speaker, RuleExtractor())}
    tune = [s for scored in sources.values() for s in ws.split(scored, "tune")]
    picked = ws.calibrate(tune)
    header(f"write gate: {len(turns)} hand-labelled turns (tests/data/write_gate_set.json)")
    print(f"threshold in use {write_gate.THRESHOLD:.2f}; calibrate() on the tune part picks {picked:.2f}")
    print(f"{'source':9} {'part':7} {'facts':>6} {'labelled':>9} {'active':>7} {'precision':>10} "
          f"{'held back':>10} {'passing':>8} {'passing stopped':>16}")
    out = {"threshold": write_gate.THRESHOLD, "calibrated": picked}
    for source, scored in sources.items():
        for part in ("tune", "report"):
            figures = ws.figures(ws.split(scored, part))
            out[f"{source}/{part}"] = figures
            print(_row(source, part, figures))
    return out


if __name__ == "__main__":
    run()
