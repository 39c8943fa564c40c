"""Extraction benchmark: the rule extractor on the hand-labelled set, the
two-session timelines, and how many entities it makes of real conversations.

- precision / recall on ``tests/data/extraction_set.json``, tune and report part;
- the two-session timelines through `Memory.write` and `Memory.facts(valid_at=...)`:
  cases with the right now/then answer, on the tune set (``timeline_set.json``,
  rules may be fitted to it), the old holdouts (``timeline_holdout.json`` and ``timeline_holdout2.json``,
  seen, so tune data now) the third holdout (``timeline_holdout3.json``, seen, dev data now) and the dev4 and dev5 sets (``timeline_dev4.json``, ``timeline_dev5.json``, dev data);
- entities and facts per 1,000 turns on the LoCoMo and LongMemEval data in
  ``tests/data`` (distinct names per conversation, before resolution).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from bench.common import header
from graphmem import Memory
from graphmem.evals import extraction_set as xs
from graphmem.ingest.extraction import TurnContext
from graphmem.ingest.loaders import load_locomo, load_longmemeval
from graphmem.ingest.pipeline import CONTEXT_TURNS
from graphmem.ingest.rules import RuleExtractor

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"


def labelled() -> dict[str, xs.PartScore]:
    session_time, turns = xs.load_extraction_set(DATA / "extraction_set.json")
    scores = xs.score_extractions(turns, xs.extract_set(RuleExtractor(), turns, session_time))
    header(f"extraction: hand-labelled set, {len(turns)} turns (tests/data/extraction_set.json)")
    print(f"{'part':8} {'turns':>6} {'labelled':>9} {'stored':>7} {'right':>6} {'precision':>10} {'recall':>7}")
    for part in ("tune", "report", "all"):
        s = scores[part]
        print(f"{part:8} {s.turns:6d} {s.labelled:9d} {s.predicted:7d} {s.matched:6d} {s.precision:10.3f} {s.recall:7.3f}")
    return scores


# the old holdout was scored and read in two sessions: tune data since 2026-12-02 (the lead keeps a fresh one)
TIMELINE_SETS = (("tune", "timeline_set.json"), ("old holdout, now tune", "timeline_holdout.json"),
                 ("second holdout of 2026-12-02, seen since", "timeline_holdout2.json"),
                 ("third holdout of 2026-12-02, seen since (dev data)", "timeline_holdout3.json"),
                 ("dev4, written for issue 12's round (dev data)", "timeline_dev4.json"),
                 ("fourth holdout of 2026-12-02, scored before and after the fifth round, seen since", "timeline_holdout4.json"),
                 ("dev5, written for issue 12's sixth round (dev data)", "timeline_dev5.json"),
                 ("fifth holdout of 2026-12-02, scored before and after the sixth round, seen since", "timeline_holdout5.json"),
                 ("sixth holdout of 2026-12-03, scored twice, dev data from the eighth round", "timeline_holdout6.json"),
                 ("seventh holdout of 2026-12-03, scored twice, dev data from the ninth round", "timeline_holdout7.json"),
                 ("eighth holdout of 2026-12-03, scored blind twice, dev data from the tenth round", "timeline_holdout8.json"),
                 ("ninth holdout of 2026-12-03, scored blind twice, dev data from the eleventh round", "timeline_holdout9.json"))


def timelines() -> dict[str, dict[str, bool]]:
    """Right now/then answers per timeline set: tune data, seen holdouts and the kept one."""
    out = {}
    for part, filename in TIMELINE_SETS:
        tset = xs.load_timeline_set(DATA / filename)
        with tempfile.TemporaryDirectory() as tmp, Memory(data_dir=tmp) as mem:
            results = out[part] = xs.run_timeline(mem, tset)
        header(f"extraction: two-session timelines, {part} (tests/data/{filename}), offline")
        print(f"right now/then answer: {sum(results.values())} of {len(results)}")
        print("failing:", ", ".join(k for k, ok in results.items() if not ok) or "none")
    return out


def session_turns(session) -> list[TurnContext]:
    """The turns of a session as the write path gives them to an extractor, earlier turns as context."""
    said = [f"{t.speaker}: {t.content}" for t in session.turns]
    return [TurnContext(text=t.content, speaker=t.speaker, session_time=session.session_time, turn_id=t.id,
                        previous=tuple(said[max(0, i - CONTEXT_TURNS):i])) for i, t in enumerate(session.turns)]


def density() -> None:
    header("extraction: entities and facts per 1,000 turns (rule extractor, tests/data)")
    extractor = RuleExtractor()
    for name, conversations in (("LoCoMo dev7", load_locomo(DATA / "locomo_dev7.json")),
                                ("LongMemEval sample99", load_longmemeval(DATA / "longmemeval_oracle_sample99.json"))):
        per_conversation = []
        for conv in conversations:
            per_conversation.append([x for s in conv.sessions for x in extractor.extract(session_turns(s))])
        rate, entities, n = xs.entities_per_1000_turns(per_conversation)
        facts = sum(len(x.facts) for conv in per_conversation for x in conv)
        print(f"{name:22} {n:6,d} turns  {entities:6,d} entities = {rate:6.1f} per 1,000 turns  "
              f"{facts:5,d} facts = {1000 * facts / n:5.1f} per 1,000 turns")


def run() -> None:
    labelled()
    density()
    timelines()
