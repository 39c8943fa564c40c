"""The never-said set is what it claims: no 'absent' word occurs in its conversation.

Checked against the turns as graphmem stores them (photo captions included), so a
question in `evals/data/never_said.json` really asks about something never said.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from graphmem.ingest.loaders import load_locomo

ROOT = Path(__file__).resolve().parents[2]
ITEMS = json.loads((ROOT / "evals" / "data" / "never_said.json").read_text())["items"]


def test_never_said_words_are_absent_from_their_conversation():
    conversations = {c.conversation_id: c for c in load_locomo(ROOT / "tests" / "data" / "locomo_dev7.json")}
    found = []
    for item in ITEMS:
        text = " ".join(turn.content for turn in conversations[item["conversation"]].turns_by_id().values()).lower()
        found += [(item["question"], w) for w in item["absent"] if re.search(r"\b" + re.escape(w.lower()), text)]
    assert found == []


def test_never_said_set_is_large_enough_on_both_splits():
    tuning = {"conv-26", "conv-30", "conv-41"}
    assert len(ITEMS) >= 40
    assert sum(i["conversation"] in tuning for i in ITEMS) >= 20
    assert sum(i["conversation"] not in tuning for i in ITEMS) >= 30
