"""The extraction-set scorer and the two hand-written sets it reads."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from graphmem.evals import extraction_set as xs
from graphmem.ingest.extraction import ExtractedEntity, ExtractedFact, Extraction
from graphmem.schema.records import FactRecord

DATA = Path(__file__).resolve().parents[1] / "data"
WHEN = datetime(2024, 5, 10, tzinfo=UTC)


def turn(facts, part="tune", text="x") -> xs.LabelledTurn:
    return xs.LabelledTurn(id="t", part=part, style="chat", speaker="Ann", text=text, facts=facts)


def fact(subject, predicate, obj, ends=False) -> ExtractedFact:
    return ExtractedFact(subject=subject, predicate=predicate, object=obj, fact="-",
                         valid_at=None if ends else WHEN, invalid_at=WHEN if ends else None)


def test_precision_and_recall_per_part_count_each_match_once():
    turns = [turn((("Ann", "LIVES_IN", "Oslo"), ("Ann", "WORKS_AT", "Acme|Acme Inc"))),
             turn((("Ann", "LIVES_IN", "Paris", "end"),), part="report"),
             turn((), part="report")]
    got = [Extraction(facts=[fact("ann", "LIVES_IN", "the Oslo."), fact("Ann", "LIVES_IN", "Oslo"),
                             fact("Ann", "WORKS_AT", "Acme Inc")]),
           Extraction(facts=[fact("Ann", "LIVES_IN", "Paris")]),     # an assertion, not the ending said
           Extraction(facts=[fact("Ann", "PLANS", "few")])]
    scores = xs.score_extractions(turns, got)
    assert (scores["tune"].matched, scores["tune"].predicted, scores["tune"].labelled) == (2, 3, 2)
    assert (scores["tune"].precision, scores["tune"].recall) == (2 / 3, 1.0)
    assert (scores["report"].precision, scores["report"].recall) == (0.0, 0.0)
    assert scores["all"].turns == 3 and scores["all"].matched == 2
    assert xs.mistakes(turns, got, "report") == [
        "t missed Ann | LIVES_IN | Paris | end", "t wrong  Ann | LIVES_IN | Paris", "t wrong  Ann | PLANS | few"]


def test_entities_are_counted_once_per_conversation():
    one = Extraction(entities=[ExtractedEntity(name="Oslo"), ExtractedEntity(name="the oslo")])
    rate, entities, turns = xs.entities_per_1000_turns([[one, one], [one, Extraction()]])
    assert (entities, turns, rate) == (2, 4, 500.0)


def record(predicate, obj) -> FactRecord:
    return FactRecord(uuid="u", subject="Ann", predicate=predicate, object=obj, fact="-", valid_at=WHEN,
                      invalid_at=None, created_at=WHEN, expired_at=None, status="current")


def test_a_timeline_passes_only_with_the_right_then_and_now():
    case = xs.TimelineCase(id="c", speaker="Ann", first="-", second="-", predicates=("LIVES_IN",),
                           then="Leeds", now="Bristol")
    leeds, bristol = record("LIVES_IN", "Leeds"), record("LIVES_IN", "Bristol")
    assert xs.timeline_passes(case, [leeds], [bristol])
    assert not xs.timeline_passes(case, [leeds], [bristol, leeds])          # the old home still open
    assert not xs.timeline_passes(case, [leeds, bristol], [bristol])        # the new one too early
    assert not xs.timeline_passes(case, [leeds], [record("VISITED", "Bristol")])
    ended = case.model_copy(update={"now": None})
    assert xs.timeline_passes(ended, [leeds], []) and not xs.timeline_passes(ended, [], [])


def test_the_sets_are_big_enough_and_use_the_extractor_s_vocabulary():
    _, turns = xs.load_extraction_set(DATA / "extraction_set.json")
    parts = {p: [t for t in turns if t.part == p] for p in ("tune", "report")}
    assert len(turns) >= 150 and all(len(v) >= 60 for v in parts.values())
    assert {t.style for t in parts["report"]} >= {"chat", "email", "diary", "third", "assistant"}
    assert len({t.id for t in turns}) == len(turns)
    assert all(len(f) == 3 or (len(f) == 4 and f[3] == "end") for t in turns for f in t.facts)
    assert all(f[1].isupper() for t in turns for f in t.facts)
    tset = xs.load_timeline_set(DATA / "timeline_set.json")
    assert len(tset.cases) >= 15 and tset.then_at < tset.second_time < tset.now_at


@pytest.mark.parametrize("filename", ["timeline_holdout.json", "timeline_holdout2.json", "timeline_holdout3.json",
                                      "timeline_holdout4.json", "timeline_holdout5.json",
                                      "timeline_holdout6.json", "timeline_holdout7.json",
                                      "timeline_holdout8.json", "timeline_holdout9.json"])
def test_the_holdout_timelines_carry_their_own_dates(filename):
    tset = xs.load_timeline_set(DATA / filename)
    assert len(tset.cases) == 15 and len({c.id for c in tset.cases}) == 15
    for case in tset.cases:
        first, second, then, now = tset.dates(case)
        assert first <= then < second < now and case.then_question and case.now_question
