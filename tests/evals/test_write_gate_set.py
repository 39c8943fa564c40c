"""The write gate's threshold is the one its calibration picks on the tune part of
tests/data/write_gate_set.json, and the report part's figures hold (`bench gate`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphmem.evals import write_gate_set as ws
from graphmem.ingest import write_gate
from graphmem.ingest.rules import RuleExtractor

DATA = Path(__file__).resolve().parents[1] / "data" / "write_gate_set.json"


@pytest.fixture(scope="module")
def scored():
    speaker, turns = ws.load(DATA)
    return {"labelled": ws.score_labelled(turns), "rules": ws.score_extracted(turns, speaker, RuleExtractor())}


def test_the_set_is_large_varied_and_split():
    _, turns = ws.load(DATA)
    kinds = {f["kind"] for t in turns for f in t["facts"]}
    assert len(turns) >= 120 and kinds == {"lasting", "event", "plan", "explicit", "passing", "hedged"}
    assert {t["split"] for t in turns} == {"tune", "report"}


def test_the_threshold_in_use_is_the_one_calibrated_on_the_tune_part(scored):
    tune = [s for part in scored.values() for s in ws.split(part, "tune")]
    assert ws.calibrate(tune) == write_gate.THRESHOLD


def test_report_part_precision_and_passing_states_stopped(scored):
    for source in ("labelled", "rules"):
        figures = ws.figures(ws.split(scored[source], "report"))
        assert figures.precision >= 0.9 and figures.held_back <= 0.1, (source, figures)
    assert ws.figures(ws.split(scored["labelled"], "report")).passing_stopped >= 0.9


def test_calibrate_finds_the_gap_between_the_classes():
    def fact(score: float, good: bool) -> ws.Scored:
        return ws.Scored(turn="t", split="tune", kind="x", should_activate=good, score=score, explicit=False, text="")

    assert ws.calibrate([fact(0.2, False), fact(0.3, False), fact(0.61, True), fact(0.8, True)]) == 0.46
