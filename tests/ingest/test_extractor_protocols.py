"""Extractor abilities are declared protocols: a custom extractor gets exactly the
steps it implements, and the built-in ones declare theirs."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from graphmem import Memory
from graphmem.ingest.extraction import (
    Cached,
    EntityResolver,
    ExtractedFact,
    Extraction,
    Extractor,
    FactResolver,
    Metered,
    RecordsErrors,
    TurnContext,
)
from graphmem.ingest.llm import LLMExtractor
from graphmem.ingest.prompts.resolve import FactDecision, ResolveAction, ResolveCandidate
from graphmem.ingest.rules import RuleExtractor


class CityExtractor:
    """Only `Extractor`: each turn's text is the city the speaker lives in."""

    name = "city-test"

    def extract(self, turns: Sequence[TurnContext]) -> list[Extraction]:
        return [
            Extraction(facts=[ExtractedFact(subject=t.speaker, predicate="LIVES_IN", object=t.text,
                                            fact=f"{t.speaker} lives in {t.text}.", single_valued=True)])
            for t in turns
        ]


class IgnoringResolver(CityExtractor):
    """`Extractor` + `FactResolver`: remembers what it was asked and ignores every new fact."""

    def __init__(self) -> None:
        self.asked: list[ResolveCandidate] = []

    def resolve(self, candidates: Sequence[ResolveCandidate]) -> list[FactDecision]:
        self.asked.extend(candidates)
        return [FactDecision(action=ResolveAction.IGNORE) for _ in candidates]


def _write_two(mem: Memory):
    first = mem.write("u", [{"role": "user", "content": "Beijing"}], "2024-03-01")
    second = mem.write("u", [{"role": "user", "content": "Shanghai"}], "2024-07-01")
    return first, second


def test_custom_extractor_with_only_extract_writes_and_supersedes(tmp_path, embedder):
    extractor = CityExtractor()
    assert isinstance(extractor, Extractor) and not isinstance(extractor, (FactResolver, Metered, RecordsErrors))
    with Memory(data_dir=tmp_path / "gm", embedder=embedder, extractor=extractor) as mem:
        first, second = _write_two(mem)
        current = [f.object for f in mem.facts("u")]
    assert first.facts_added == 1 and second.facts_superseded == 1
    assert current == ["Shanghai"]
    assert (second.llm_calls, second.errors) == (0, ())


def test_fact_resolver_decides_facts_with_candidates(tmp_path, embedder):
    extractor = IgnoringResolver()
    assert isinstance(extractor, FactResolver) and not isinstance(extractor, EntityResolver)
    with Memory(data_dir=tmp_path / "gm", embedder=embedder, extractor=extractor) as mem:
        first, second = _write_two(mem)
        current = [f.object for f in mem.facts("u")]
    assert [c.fact for c in extractor.asked] == ["user lives in Shanghai."]
    assert [e.fact for e in extractor.asked[0].existing] == ["user lives in Beijing."]
    assert (first.facts_added, second.facts_ignored, second.facts_superseded) == (1, 1, 0)
    assert current == ["Beijing"]


def test_builtin_extractors_declare_their_abilities():
    rules = RuleExtractor()
    llm = LLMExtractor("http://127.0.0.1:9/v1", "m")
    abilities = (FactResolver, EntityResolver, Metered, RecordsErrors, Cached)
    assert isinstance(rules, Extractor) and not any(isinstance(rules, p) for p in abilities)
    assert isinstance(llm, Extractor) and all(isinstance(llm, p) for p in abilities)


class OutageExtractor(CityExtractor):
    """Raises while `down`, as an extractor whose model endpoint is gone would."""

    down = True

    def extract(self, turns: Sequence[TurnContext]) -> list[Extraction]:
        if self.down:
            raise ConnectionError("extractor endpoint down")
        return super().extract(turns)


def test_an_extractor_failure_keeps_the_turns_and_the_next_write_extracts_them(tmp_path, embedder):
    """The episodes are stored on a second thread while the extractor runs
    (`extract_beside_storing`): its failure must still leave them stored, and the
    next write of the session extracts them."""
    extractor = OutageExtractor()
    turns = [{"role": "user", "content": "Beijing"}]
    with Memory(data_dir=tmp_path / "gm", embedder=embedder, extractor=extractor) as mem:
        with pytest.raises(ConnectionError):
            mem.write("u", turns, "2024-03-01", session_id="s1")
        assert [e.content for e in mem.inspect().episodes("u")] == ["Beijing"]
        assert mem.facts("u") == []
        extractor.down = False
        again = mem.write("u", turns, "2024-03-01", session_id="s1")
        assert (again.episodes, again.facts_added) == (0, 1)
        assert [f.object for f in mem.facts("u")] == ["Beijing"]
