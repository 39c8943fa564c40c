"""The rules' keyword prefilter (`rules.drafts.Prefilter`): one Aho-Corasick pass per
sentence must pass exactly the rules the per-rule substring test passed,
``not keywords or any(k in low for k in keywords)``, in rule order; anything else
would silently change what the rules extract."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.ingest.rules.drafts import Prefilter, Rule, prefilter
from graphmem.ingest.rules.extractor import HANDLERS, QUESTION_HANDLERS
from graphmem.ingest.rules.grammar import Trigger
from graphmem.ingest.rules.text import APOSTROPHES, split_sentences

LOCOMO = Path(__file__).resolve().parent.parent / "data" / "locomo_dev7.json"
KEYWORDS = sorted({k for rules in (HANDLERS, QUESTION_HANDLERS) for r in rules for k in r.trigger.keywords})


def substring_test(rules, low: str) -> list:
    """The prefilter as it was: each rule's keywords tested in turn."""
    return [r for r in rules if not r.trigger.keywords or any(k in low for k in r.trigger.keywords)]


def passing(rules, low: str) -> list:
    return list(prefilter(rules).passing(low))


def fake_rules(keyword_sets: list[tuple[str, ...]]) -> tuple[Rule, ...]:
    """Rules that only carry keywords: the prefilter reads nothing else."""
    return tuple(Rule(Trigger(None, keywords), handler=i) for i, keywords in enumerate(keyword_sets))


# sentences built from the real keywords run together, cut short and mixed with other text,
# so that keywords overlap, nest ("mov" in "moved"), end where another starts, or are cut off
_PIECE = st.one_of(st.sampled_from(KEYWORDS), st.sampled_from(KEYWORDS).map(lambda k: k[1:]),
                   st.sampled_from(KEYWORDS).map(lambda k: k[:-1]), st.text(max_size=6),
                   st.sampled_from([" ", "'", ", ", "é", "İ", "ß"]))
SENTENCES = st.lists(_PIECE, max_size=12).map("".join)


@settings(max_examples=400, deadline=None)
@given(SENTENCES)
def test_the_real_rules_pass_exactly_the_rules_the_substring_test_passed(text):
    low = text.lower()
    for rules in (HANDLERS, QUESTION_HANDLERS):
        assert passing(rules, low) == substring_test(rules, low)


_WORD = st.text(alphabet="abmo' ", min_size=0, max_size=4)  # a tiny alphabet: many overlaps and repeats


@settings(max_examples=400, deadline=None)
@given(st.lists(st.lists(_WORD, max_size=4).map(tuple), max_size=12), st.text(alphabet="abmo' x", max_size=30))
def test_any_rules_pass_exactly_as_with_the_substring_test(keyword_sets, low):
    """Rules without keywords always pass, and so do rules with an empty keyword ("" is in
    every string); keywords shared by several rules, nested in or overlapping each other."""
    rules = fake_rules(keyword_sets)
    assert list(Prefilter(rules).passing(low)) == substring_test(rules, low)


def test_every_locomo_sentence_passes_the_same_rules():
    data = json.loads(LOCOMO.read_text(encoding="utf-8"))
    sentences = [s.lower() for conversation in data for key, turns in conversation["conversation"].items()
                 if key.startswith("session_") and isinstance(turns, list)
                 for t in turns for s in split_sentences(t["text"].translate(APOSTROPHES))]
    assert len(sentences) > 4000
    passed = 0
    for low in sentences[:4000]:
        for rules in (HANDLERS, QUESTION_HANDLERS):
            expected = substring_test(rules, low)
            assert passing(rules, low) == expected, low
            passed += len(expected)
    assert passed > len(sentences)  # the sentences do reach rules: the comparison is not of empty lists


def test_a_sentence_with_no_keyword_runs_only_the_rules_without_keywords():
    rules = fake_rules([("moved",), (), ("live", "home"), ("",)])
    assert [r.handler for r in Prefilter(rules).passing("nothing to see")] == [1, 3]
    assert [r.handler for r in Prefilter(rules).passing("we moved home")] == [0, 1, 2, 3]


def test_one_prefilter_per_rule_tuple():
    """Built once per tuple; another tuple (a test's patched rules) gets its own."""
    assert prefilter(HANDLERS) is prefilter(HANDLERS)
    others = tuple(Rule(Trigger(t.pattern, ()), h, g) for t, h, g in HANDLERS)
    assert prefilter(others) is not prefilter(HANDLERS)
    assert list(prefilter(others).passing("")) == list(others)
