"""The default embedder runs every call on the fp32 ONNX twin of the PyTorch model (for speed,
and so a process never imports PyTorch), and must give the vectors PyTorch gives, since the
stored vectors, the reader and the calibrated thresholds come from PyTorch."""

import numpy as np

from graphmem.embedding.embedder import MiniLMEmbedder
from graphmem.embedding.onnx_minilm import OnnxMiniLM

QUERIES = ["Where does Alice live now?", "What did Caroline research about adoption agencies last May?",
           "", "word " * 400]
SESSION = [f"user: I moved to {city} in {year} and my sister {name} came to visit." * (1 + i % 3)
           for i, (city, year, name) in enumerate(zip(["Lisbon", "Porto", "Oslo", "Kyoto"] * 10, range(1990, 2030),
                                                      ["Ingrid", "Ana", "Mei", "Sam", "Olu"] * 8))]


def test_queries_and_batches_run_on_onnx_fp32_with_pytorchs_vectors(embedder):
    torch_only = MiniLMEmbedder(onnx=False)
    for texts in [[text] for text in QUERIES] + [QUERIES * 2, SESSION]:
        ours, theirs = embedder.embed(texts), torch_only.embed(texts)
        assert ours.shape == (len(texts), 384) and ours.dtype == np.float32
        assert float((ours * theirs).sum(1).min()) > 0.99999
        assert np.abs(ours - theirs).max() < 1e-4
    twin = embedder._onnx_path()
    assert isinstance(twin, OnnxMiniLM) and twin.model_path.name == "model-fp32.onnx"
    assert torch_only._model is not None and torch_only._onnx_path() is None


def test_a_batch_agrees_with_single_queries(embedder):
    texts = QUERIES * 2 + SESSION
    batched = embedder.embed(texts)
    singles = np.vstack([embedder.embed([t]) for t in texts])
    assert np.abs(batched - singles).max() < 1e-4


NO_TORCH = """
import sys
from graphmem.embedding.embedder import MiniLMEmbedder
e = MiniLMEmbedder()
e.warm()
small = e.embed(["I moved to Lisbon."])
large = e.embed(["I moved to Lisbon."] * 200)
print("sentence_transformers" in sys.modules, "torch" in sys.modules, e._model is None, small.shape, large.shape)
"""


def test_a_process_never_imports_pytorch_once_the_twin_is_exported(embedder):
    """Importing sentence-transformers and PyTorch is ~5 s of a process's start; with the
    ONNX twin cached, no batch of any size needs them."""
    import subprocess
    import sys

    embedder._onnx_path()  # the ONNX twin exported and cached before the child looks for it
    out = subprocess.run([sys.executable, "-c", NO_TORCH], capture_output=True, text=True, check=True).stdout.split(" ", 3)
    assert out == ["False", "False", "True", "(1, 384) (200, 384)\n"], out


def test_a_twin_that_cannot_be_made_falls_back_to_pytorch_once_with_a_warning(tmp_path, monkeypatch, caplog):
    """Since every batch runs on the twin, a cache directory it cannot be exported into (or
    any export failure) must not stop writes: PyTorch embeds, and the export is not retried."""
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    monkeypatch.setenv("GRAPHMEM_CACHE_DIR", str(blocker))
    fallback = MiniLMEmbedder()
    with caplog.at_level("WARNING", logger="graphmem.embedding.embedder"):
        vectors = fallback.embed(SESSION)
    assert fallback._onnx_model is None and fallback._model is not None
    assert "could not be made or loaded" in caplog.text
    assert np.abs(vectors - MiniLMEmbedder(onnx=False).embed(SESSION)).max() < 1e-5
    fallback.embed(["again"])
    assert caplog.text.count("could not be made or loaded") == 1


def test_the_dimension_is_read_without_loading_the_model():
    from graphmem.embedding.embedder import pooled_dimension

    lazy = MiniLMEmbedder(onnx=False)
    assert lazy._model is None and lazy.dimension == 384
    assert pooled_dimension(lazy._path) == 384
    lazy.warm()
    assert lazy._model is not None and lazy._onnx_path() is None
    size = getattr(lazy._model, "get_embedding_dimension", None) or lazy._model.get_sentence_embedding_dimension
    assert size() == lazy.dimension


def test_a_model_without_a_readable_pooling_size_is_a_config_error(tmp_path):
    import pytest

    from graphmem.embedding.embedder import pooled_dimension
    from graphmem.schema.errors import ConfigError

    with pytest.raises(ConfigError, match="1_Pooling"):
        pooled_dimension(tmp_path)
    (tmp_path / "1_Pooling").mkdir()
    (tmp_path / "1_Pooling" / "config.json").write_text('{"pooling_mode_mean_tokens": true}')
    with pytest.raises(ConfigError, match="word_embedding_dimension"):
        pooled_dimension(tmp_path)
