"""`GRAPHMEM_EMBEDDER_BACKEND` picks the embedder of everything not handed one: `Memory` (from
its settings), and through `default_embedder` the evaluation harness's systems and baselines,
the benchmarks and the reader."""

from typing import get_args

import pytest
from pydantic import ValidationError

from graphmem import Memory
from graphmem.config import Settings
from graphmem.embedding.embedder import (
    BACKENDS,
    MiniLMEmbedder,
    default_backend,
    default_embedder,
    fast_embedder,
    fp32_embedder,
)
from graphmem.embedding.onnx_minilm import OnnxMiniLM
from graphmem.evals.systems._common import embed_cached, embedder_conditions
from graphmem.schema.errors import ConfigError


def test_the_default_embedder_is_fp32_unless_the_setting_names_int8(monkeypatch, tmp_path):
    monkeypatch.delenv("GRAPHMEM_EMBEDDER_BACKEND", raising=False)
    assert default_backend() == "torch"
    assert default_embedder() is fp32_embedder() and isinstance(default_embedder(), MiniLMEmbedder)
    monkeypatch.setenv("GRAPHMEM_EMBEDDER_BACKEND", "onnx-int8")
    monkeypatch.setenv("GRAPHMEM_CACHE_DIR", str(tmp_path))  # the int8 export, if this process makes it
    assert default_backend() == "onnx-int8"
    assert default_embedder() is fast_embedder() and isinstance(default_embedder(), OnnxMiniLM)


def test_memory_and_the_default_embedder_follow_the_same_setting(monkeypatch, tmp_path):
    monkeypatch.setenv("GRAPHMEM_CACHE_DIR", str(tmp_path / "cache"))
    for backend in ("torch", "onnx-int8"):
        monkeypatch.setenv("GRAPHMEM_EMBEDDER_BACKEND", backend)
        with Memory(data_dir=tmp_path / backend) as mem:
            assert mem.embedder is default_embedder(), backend
    with Memory(data_dir=tmp_path / "explicit", settings=Settings(data_dir=tmp_path / "x", embedder_backend="torch")) as mem:
        assert mem.embedder is fp32_embedder()  # a Memory's own settings win over the environment


def test_the_embedding_layer_reads_the_setting_as_settings_does(monkeypatch):
    assert get_args(Settings.model_fields["embedder_backend"].annotation) == BACKENDS
    monkeypatch.delenv("GRAPHMEM_EMBEDDER_BACKEND", raising=False)
    assert default_backend() == Settings().embedder_backend == "torch"
    for backend in BACKENDS:
        monkeypatch.setenv("GRAPHMEM_EMBEDDER_BACKEND", backend)
        assert default_backend() == Settings().embedder_backend == backend
    monkeypatch.setenv("GRAPHMEM_EMBEDDER_BACKEND", "int4")
    with pytest.raises(ConfigError, match="int4"):
        default_backend()
    with pytest.raises(ValidationError):
        Settings()


def test_the_harness_vector_cache_and_conditions_follow_the_backend(monkeypatch, tmp_path):
    monkeypatch.setenv("GRAPHMEM_CACHE_DIR", str(tmp_path))
    text = ["Caroline: I went to a LGBTQ support group yesterday and it was so powerful."]
    vectors = {}
    for backend in ("torch", "onnx-int8", "torch"):
        monkeypatch.setenv("GRAPHMEM_EMBEDDER_BACKEND", backend)
        vectors[backend] = embed_cached(text)[0]
        assert (vectors[backend] == default_embedder().embed(text)[0]).all(), backend  # its own, not the other's
        assert embedder_conditions() == {"model": "all-MiniLM-L6-v2", "backend": backend}
    assert not (vectors["torch"] == vectors["onnx-int8"]).all()
