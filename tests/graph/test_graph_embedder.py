"""A graph remembers the embedder its vectors came from: another model is refused even at
the same dimension (its vectors cannot be compared), and each backend of the same model
that writes is recorded, so a graph holding fp32 and int8 vectors says so."""

import logging

import pytest

from graphmem import Memory
from graphmem.embedding.onnx_minilm import OnnxMiniLM
from graphmem.graph.cypher import Query
from graphmem.schema.errors import InvalidInput


def ours(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name.startswith("graphmem")]


class Renamed:
    """The real MiniLM under another model's name: what a user switching to another
    384-dimensional model looks like to the store."""

    name, dimension = "another-384-model", 384

    def __init__(self, inner):
        self.inner = inner

    def embed(self, texts):
        return self.inner.embed(texts)


def test_another_model_of_the_same_dimension_is_refused_and_nothing_is_lost(tmp_path, embedder):
    with Memory(data_dir=tmp_path / "gm", embedder=embedder) as mem:
        mem.add_fact("u1", "me", "lives_in", "Beijing", valid_at="2024-03-01")
    with Memory(data_dir=tmp_path / "gm", embedder=Renamed(embedder)) as mem:
        with pytest.raises(InvalidInput, match="all-MiniLM-L6-v2"):
            mem.add_fact("u1", "me", "lives_in", "Paris")
        with pytest.raises(InvalidInput, match="another-384-model"):
            mem.search("u1", "Where do I live?")
        assert [f.object for f in mem.facts("u1")] == ["Beijing"]
        assert mem.search("u2", "Where do I live?").abstain  # an unknown user has nothing to compare
        mem.add_fact("u2", "me", "lives_in", "Oslo")  # and a new graph takes the new model
        assert mem.inspect().embedding("u2").embedder == "another-384-model"


def test_each_backend_that_writes_is_recorded_and_a_second_one_is_logged(tmp_path, embedder, caplog):
    int8 = OnnxMiniLM(cache=tmp_path / "onnx")
    with Memory(data_dir=tmp_path / "gm", embedder=embedder) as mem:
        mem.add_fact("u1", "me", "lives_in", "Beijing", valid_at="2024-03-01")
        assert mem.inspect().embedding("u1").backends == ("torch",)
        assert mem.inspect().embedding("nobody") is None
    with Memory(data_dir=tmp_path / "gm", embedder=int8) as mem, caplog.at_level(logging.WARNING):
        assert mem.search("u1", "Where do I live?").facts[0].object == "Beijing"
        assert mem.inspect().embedding("u1").backends == ("torch",)  # a read writes no vectors
        assert not ours(caplog)
        mem.add_fact("u1", "me", "lives_in", "Shanghai", valid_at="2024-09-01")
        assert mem.inspect().embedding("u1").backends == ("torch", "onnx-int8")
        assert any("onnx-int8" in m and "torch" in m for m in ours(caplog))
    with Memory(data_dir=tmp_path / "gm", embedder=embedder) as mem:
        got = mem.inspect().embedding("u1")
        assert (got.embedder, got.dimension, got.backends) == ("all-MiniLM-L6-v2", 384, ("torch", "onnx-int8"))


def test_a_graph_from_before_backends_were_recorded_starts_its_list_without_a_warning(tmp_path, embedder, caplog):
    with Memory(data_dir=tmp_path / "gm", embedder=embedder) as mem:
        mem.add_fact("u1", "me", "lives_in", "Beijing")
        mem.store.run("u1", Query("MATCH (m:GraphmemMeta) REMOVE m.embedder_backends", {}))
    with Memory(data_dir=tmp_path / "gm", embedder=embedder) as mem, caplog.at_level(logging.WARNING):
        assert mem.inspect().embedding("u1").backends == ()
        mem.add_fact("u1", "me", "likes", "tea")
        assert mem.inspect().embedding("u1").backends == ("torch",)
        assert not ours(caplog)


def test_inspect_reads_the_backends_as_stored_now_not_as_first_seen(tmp_path, embedder):
    int8 = OnnxMiniLM(cache=tmp_path / "onnx")
    with Memory(data_dir=tmp_path / "gm", embedder=embedder) as first:
        first.add_fact("u1", "me", "lives_in", "Beijing")
        assert first.inspect().embedding("u1").backends == ("torch",)
        with Memory(data_dir=tmp_path / "gm", embedder=int8) as second:  # another client of the same store
            second.add_fact("u1", "me", "likes", "tea")
        assert first.inspect().embedding("u1").backends == ("torch", "onnx-int8")
