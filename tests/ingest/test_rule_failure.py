"""A turn a rule fails on is stored, reported in `WriteResult.errors`, and does not cost
the session's other turns their facts (before, the write raised the rule's exception,
as a dotted capital "I" as the subject once made it)."""

from __future__ import annotations

import graphmem.ingest.rules.extractor as rules


def test_a_rule_failure_is_listed_and_the_rest_of_the_session_is_read(memory, monkeypatch):
    real = rules.extract_turn

    def failing(turn):
        if "Glasgow" in turn.text:
            raise RuntimeError("a rule broke")
        return real(turn)

    monkeypatch.setattr(rules, "extract_turn", failing)
    result = memory.write("u", [{"role": "user", "content": "I moved to Glasgow."},
                                {"role": "user", "content": "I work at Initech."}], "2024-05-01")
    assert result.errors == ("rules 2024-05-01T00:00Z#0: RuntimeError: a rule broke",)
    assert ("WORKS_AT", "Initech") in {(f.predicate, f.object) for f in memory.facts("u")}
    assert sorted(e.content for e in memory.inspect().episodes("u")) == ["I moved to Glasgow.", "I work at Initech."]
