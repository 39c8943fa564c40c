"""Re-embedding moves a memory to another embedder: every stored vector (turns, entity
names, facts, held-back candidates) is made again by the new model, the graph records the
new model and dimension, search works with it, and nothing else changes. One that stops
half way leaves a graph that is refused until it runs again."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from graphmem import Memory
from graphmem.cli import app
from graphmem.graph.cypher import Query
from graphmem.ingest import reembed as reembed_module
from graphmem.schema.errors import InvalidInput, NotFound

TURN_VECTORS = Query("MATCH (e:Episodic) RETURN e.speaker AS speaker, e.content AS content, e.content_embedding AS v", {})
FACT_VECTORS = Query("MATCH ()-[r:RELATES_TO]->() RETURN r.fact AS fact, r.fact_embedding AS v", {})
CANDIDATE_VECTORS = Query("MATCH ()-[r:CANDIDATE]->() RETURN r.fact AS fact, r.fact_embedding AS v", {})
ENTITY_VECTORS = Query("MATCH (n:Entity) RETURN n.name AS name, n.name_embedding AS v", {})
VECTOR_DIMS = Query("CALL db.indexes() YIELD label, types, options RETURN label, types, options", {})


class Permuted:
    """MiniLM with its vector's dimensions reversed: another 384-dimensional model whose
    vectors differ from MiniLM's (cosine between the two is far from 1)."""

    name, dimension = "permuted-minilm", 384

    def __init__(self, inner):
        self.inner = inner

    def embed(self, texts):
        return np.ascontiguousarray(np.asarray(self.inner.embed(texts))[:, ::-1])


class Truncated:
    """MiniLM's first 128 dimensions, renormalised: a model of another dimension."""

    name, dimension = "minilm-first-128", 128

    def __init__(self, inner):
        self.inner = inner

    def embed(self, texts):
        v = np.asarray(self.inner.embed(texts))[:, :128]
        return v / np.linalg.norm(v, axis=1, keepdims=True)


def remember(mem):
    mem.write("u", [{"role": "user", "content": "I live in Beijing."}], "2024-03-01", "s1")
    mem.write("u", [{"role": "user", "content": "I moved to Shanghai last month."}], "2024-07-10", "s2")
    mem.add_fact("u", "me", "likes", "green tea")
    held = mem.write("u", [{"role": "user", "content": "I'm avoiding spicy food this week."}], "2024-07-20", "s3")
    assert held.facts_candidate == 1  # the write gate holds it back: a CANDIDATE edge with a vector


def state(mem):
    """Everything but the vectors: facts with their times, and the turns."""
    facts = sorted((f.predicate, f.object, f.status, str(f.valid_at), str(f.invalid_at)) for f in mem.inspect().fact_versions("u"))
    return facts, sorted((e.uuid, e.content) for e in mem.inspect().episodes("u"))


def stop_at(monkeypatch, stopped_kind):
    """Re-embedding raises when it reaches `stopped_kind`'s vectors, as a killed run would stop."""
    real = reembed_module._replace

    def stops(store, user_id, kind, embed):
        if kind == stopped_kind:
            raise ConnectionError("killed half way")
        return real(store, user_id, kind, embed)

    monkeypatch.setattr(reembed_module, "_replace", stops)
    return real


def test_a_memory_moves_to_another_model_of_the_same_dimension(tmp_path, embedder):
    d = tmp_path / "gm"
    with Memory(data_dir=d, embedder=Permuted(embedder)) as old:
        remember(old)
        before = state(old)
    with Memory(data_dir=d, embedder=embedder) as mem:
        with pytest.raises(InvalidInput, match="permuted-minilm"):
            mem.search("u", "where do I live?")
        result = mem.reembed("u")
        assert (result.turns, result.facts, result.candidates) == (3, len(before[0]), 1)
        assert result.entities >= 4
        assert (result.previous_embedder, result.embedder) == ("permuted-minilm", embedder.name)
        assert state(mem) == before
        recorded = mem.inspect().embedding("u")
        assert (recorded.embedder, recorded.dimension, recorded.backends) == (embedder.name, 384, ("torch",))
        for rows, text in ((mem.store.run("u", TURN_VECTORS), lambda r: f"{r['speaker']}: {r['content']}"),
                           (mem.store.run("u", FACT_VECTORS), lambda r: r["fact"]),
                           (mem.store.run("u", CANDIDATE_VECTORS), lambda r: r["fact"]),
                           (mem.store.run("u", ENTITY_VECTORS), lambda r: r["name"])):
            expected = embedder.embed([text(r) for r in rows])
            assert np.allclose([r["v"] for r in rows], expected, atol=1e-5)  # not the permuted ones
        packet = mem.search("u", "Where do I live now?")
        assert [f.object for f in packet.facts if f.predicate == "LIVES_IN"][:1] == ["Shanghai"]
        assert mem.write("u", [{"role": "user", "content": "I adopted a cat."}], "2024-08-01").facts_added >= 1


def test_a_memory_moves_to_a_model_of_another_dimension(tmp_path, embedder):
    d = tmp_path / "gm"
    with Memory(data_dir=d, embedder=embedder) as old:
        remember(old)
    small = Truncated(embedder)
    with Memory(data_dir=d, embedder=small) as mem:
        result = mem.reembed("u")
        assert (result.previous_dimension, result.dimension) == (384, 128)
        dims = {(row["label"], prop): row["options"][prop]["dimension"] for row in mem.store.run("u", VECTOR_DIMS)
                for prop, kinds in row["types"].items() if "VECTOR" in kinds}
        assert dims == {("Episodic", "content_embedding"): 128, ("Entity", "name_embedding"): 128,
                        ("RELATES_TO", "fact_embedding"): 128}
        assert {len(r["v"]) for r in mem.store.run("u", TURN_VECTORS)} == {128}
        packet = mem.search("u", "Where do I live now?")  # the vector indexes answer at 128
        assert "I moved to Shanghai last month." in [e.content for e in packet.episodes]
        assert mem.inspect().embedding("u").dimension == 128


def test_a_reembedding_that_stops_half_way_is_refused_until_it_runs_again(tmp_path, embedder, monkeypatch):
    d = tmp_path / "gm"
    with Memory(data_dir=d, embedder=Permuted(embedder)) as old:
        remember(old)
    with Memory(data_dir=d, embedder=embedder) as mem:
        real = stop_at(monkeypatch, "facts")
        with pytest.raises(ConnectionError):
            mem.reembed("u")
        for model in (embedder, Permuted(embedder)):  # turns of one model, facts of the other: neither may read
            with Memory(data_dir=d, embedder=model) as either, pytest.raises(InvalidInput, match="graphmem reembed"):
                either.search("u", "where do I live?")
        monkeypatch.setattr(reembed_module, "_replace", real)
        assert mem.reembed("u").turns == 3
        assert mem.search("u", "Where do I live now?").facts


def test_reembed_of_an_unknown_user_is_not_found(tmp_path, embedder):
    with Memory(data_dir=tmp_path / "gm", embedder=embedder) as mem, pytest.raises(NotFound):
        mem.reembed("nobody")
    assert "nobody" not in Memory(data_dir=tmp_path / "gm", embedder=embedder).users()


def test_the_cli_reembeds_with_the_configured_embedder_and_says_what_it_did(tmp_path, embedder):
    d = tmp_path / "gm"
    with Memory(data_dir=d, embedder=Permuted(embedder)) as old:
        remember(old)
    runner = CliRunner()
    done = runner.invoke(app, ["reembed", "--user", "u", "--data-dir", str(d)], catch_exceptions=False)
    assert done.exit_code == 0, done.output
    assert done.output.splitlines()[0] == (
        f"re-embedded u with {embedder.name} (384 dimensions); before: permuted-minilm (384 dimensions)")
    again = json.loads(runner.invoke(app, ["reembed", "--user", "u", "--data-dir", str(d), "--json"]).output)
    assert (again["turns"], again["previous_embedder"]) == (3, embedder.name)
    missing = runner.invoke(app, ["reembed", "--user", "nobody", "--data-dir", str(d)])
    assert missing.exit_code != 0 and "no memory" in missing.output


def test_a_stopped_reembedding_to_another_dimension_can_be_undone_with_the_old_model(tmp_path, embedder, monkeypatch):
    """The stopped run had dropped the 384-dimensional indexes; running again with the old
    model must make them anew, though the graph's record never left 384."""
    d = tmp_path / "gm"
    with Memory(data_dir=d, embedder=embedder) as mem:
        remember(mem)
    real = stop_at(monkeypatch, "entities")
    with Memory(data_dir=d, embedder=Truncated(embedder)) as small, pytest.raises(ConnectionError):
        small.reembed("u")
    monkeypatch.setattr(reembed_module, "_replace", real)
    with Memory(data_dir=d, embedder=embedder) as mem:
        assert mem.reembed("u").dimension == 384
        dims = {row["label"]: row["types"] for row in mem.store.run("u", VECTOR_DIMS)}
        assert all("VECTOR" in str(dims[label]) for label in ("Episodic", "Entity", "RELATES_TO"))
        assert "I moved to Shanghai last month." in [e.content for e in mem.search("u", "Where do I live now?").episodes]
