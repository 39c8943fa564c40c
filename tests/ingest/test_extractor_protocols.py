"""Extractor abilities are declared protocols: a custom extractor gets exactly the
steps it implements, and the built-in ones declare theirs."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from graphmem import Memory
from graphmem.graph import cypher as q
from graphmem.ingest.pipeline import IngestContext, build_episodes, create_episodes, embed_episodes, episode_text
from graphmem.ingest.turns import validate_session
from graphmem.schema import time as t
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
    # the rules record the turns they fail on (`test_rule_failure.py`) and nothing else
    assert isinstance(rules, Extractor) and [p for p in abilities if isinstance(rules, p)] == [RecordsErrors]
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
    (`pipeline._store_and_extract`): its failure must still leave them stored, and the
    next write of the session extracts them."""
    extractor = OutageExtractor()
    turns = [{"role": "user", "content": "Beijing"}]
    with Memory(data_dir=tmp_path / "gm", embedder=embedder, extractor=extractor) as mem:
        with pytest.raises(ConnectionError):
            mem.write("u", turns, "2024-03-01", session_id="s1")
        assert [e.content for e in mem.inspect().episodes("u")] == ["Beijing"]
        assert mem.facts("u") == []
        # the vector waits for the extracted mark (`create_episodes`); a failed write still stores it
        assert len(mem.store.run("u", q.episode_vectors())) == 1
        extractor.down = False
        again = mem.write("u", turns, "2024-03-01", session_id="s1")
        assert (again.episodes, again.facts_added) == (0, 1)
        assert [f.object for f in mem.facts("u")] == ["Beijing"]


def test_a_turn_stored_without_its_vector_gets_it_when_the_next_write_extracts_it(tmp_path, embedder):
    """A write that died between storing its episodes and marking them extracted
    leaves them without vectors (they are set with the mark); the next write of the
    session extracts them and sets the vectors then."""
    turns = [{"role": "user", "content": "Beijing"}, {"role": "user", "content": "Shanghai"}]
    with Memory(data_dir=tmp_path / "gm", embedder=embedder, extractor=CityExtractor()) as mem:
        session = validate_session(turns, "2024-03-01", "s1", max_turn_chars=mem.settings.max_turn_chars,
                                   max_turns=mem.settings.max_turns_per_write)
        episodes = build_episodes("u", session, t.now_utc())
        mem._open_graph("u")
        ctx = IngestContext(store=mem.store, embed=embedder.embed, extractor=mem.extractor)
        create_episodes(ctx, "u", episodes[:1], t.now_utc())  # the crash: vectors embedded, never written
        embed_episodes(ctx, episodes[:1])
        assert mem.store.run("u", q.episode_vectors()) == []
        again = mem.write("u", turns, "2024-03-01", session_id="s1")
        assert (again.episodes, again.episodes_skipped, again.facts_added) == (1, 0, 2)
        stored = {row["uuid"]: row["v"] for row in mem.store.run("u", q.episode_vectors())}
        assert set(stored) == {e.uuid for e in episodes}
        expected = embedder.embed([episode_text(episodes[0])])[0]
        assert np.allclose(stored[episodes[0].uuid], expected, atol=1e-5)


class TurnsWaitForOthers:
    """The memory's real embedder, except that embedding a write's turns ("speaker: text")
    waits until some other text is embedded, for at most `timeout` seconds."""

    def __init__(self, inner, timeout: float = 20.0) -> None:
        import threading

        self.inner, self.timeout = inner, timeout
        self.other = threading.Event()
        self.waited_out = False
        self.name, self.dimension = inner.name, inner.dimension

    def embed(self, texts):
        if texts and all(text.startswith("user: ") for text in texts):
            self.waited_out |= not self.other.wait(self.timeout)
        else:
            self.other.set()
        return self.inner.embed(texts)


def test_resolution_runs_while_the_turns_are_embedded(tmp_path, embedder):
    """A write resolves its entities and facts while its turns are still being embedded
    (`pipeline._store_and_extract`): the new entity names are embedded before the turns
    are. Before, resolution began only once the turns' vectors were back, and the turns'
    call here would wait out its timeout."""
    slow = TurnsWaitForOthers(embedder)
    with Memory(data_dir=tmp_path / "gm", embedder=slow, extractor=CityExtractor()) as mem:
        result = mem.write("u", [{"role": "user", "content": "Beijing"}, {"role": "user", "content": "Lhasa"}],
                           "2024-03-01")
        assert not slow.waited_out
        assert slow.other.is_set() and result.facts_added >= 1
        assert {f.object for f in mem.facts("u")} <= {"Beijing", "Lhasa"} and mem.facts("u")
        assert len(mem.store.run("u", q.episode_vectors())) == 2  # the turns still get their vectors


def test_the_turns_are_embedded_while_their_nodes_are_created(tmp_path, embedder, monkeypatch):
    """The turns' embedding starts without waiting for the query that creates their nodes
    (`pipeline._store_and_extract`): here creating the nodes waits until the turns are being
    embedded. When both ran on one thread, create first, it waited out its timeout."""
    import threading

    import graphmem.ingest.pipeline as pipeline

    embedding, waited_out = threading.Event(), []
    real_create, real_embed = pipeline.create_episodes, pipeline.embed_episodes

    def create_after_embedding_starts(*args, **kwargs):
        waited_out.append(not embedding.wait(20.0))
        return real_create(*args, **kwargs)

    def embed(*args, **kwargs):
        embedding.set()
        return real_embed(*args, **kwargs)

    monkeypatch.setattr(pipeline, "create_episodes", create_after_embedding_starts)
    monkeypatch.setattr(pipeline, "embed_episodes", embed)
    with Memory(data_dir=tmp_path / "gm", embedder=embedder, extractor=CityExtractor()) as mem:
        mem.write("u", [{"role": "user", "content": "Beijing"}], "2024-03-01")
        assert waited_out == [False]
        assert [f.object for f in mem.facts("u")] == ["Beijing"]
        assert len(mem.store.run("u", q.episode_vectors())) == 1


def test_a_storage_error_is_not_hidden_by_an_extractor_failure(tmp_path, embedder, monkeypatch):
    """Both sides of a write fail: the episodes' nodes could not be created and the extractor
    raised. The storage error is the one reported (the extractor's rides along as its context),
    as `pipeline._store_and_extract` promises, and no vector is set on nodes that do not exist."""
    import graphmem.ingest.pipeline as pipeline

    def store_down(*args, **kwargs):
        raise RuntimeError("store down while creating the episodes")

    monkeypatch.setattr(pipeline, "create_episodes", store_down)
    set_vectors = []
    monkeypatch.setattr(pipeline, "keep_vectors", lambda ctx, user, vectors: set_vectors.append(vectors))
    with Memory(data_dir=tmp_path / "gm", embedder=embedder, extractor=OutageExtractor()) as mem:
        with pytest.raises(RuntimeError, match="store down") as raised:
            mem.write("u", [{"role": "user", "content": "Beijing"}], "2024-03-01", session_id="s1")
        assert isinstance(raised.value.__context__, ConnectionError)
        assert set_vectors == []
