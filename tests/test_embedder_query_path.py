"""The default embedder's query path: a few texts go through the fp32 ONNX twin of
the PyTorch model (for speed), and must give the vectors PyTorch gives, since the
stored vectors and the calibrated thresholds come from PyTorch."""

import numpy as np

from graphmem.embedding.embedder import SMALL_BATCH, MiniLMEmbedder
from graphmem.embedding.onnx_minilm import OnnxMiniLM

QUERIES = ["Where does Alice live now?", "What did Caroline research about adoption agencies last May?",
           "", "word " * 400]


def test_a_query_runs_on_onnx_fp32_with_pytorchs_vectors(embedder):
    torch_only = MiniLMEmbedder(query_onnx=False)
    for text in QUERIES:
        ours = embedder.embed([text])
        theirs = torch_only.embed([text])
        assert ours.shape == (1, 384) and ours.dtype == np.float32
        assert float((ours * theirs).sum()) > 0.99999
        assert np.abs(ours - theirs).max() < 1e-4
    query = embedder._query_path()
    assert isinstance(query, OnnxMiniLM) and query.model_path.name == "model-fp32.onnx"


def test_a_batch_stays_on_pytorch_and_agrees_with_single_queries(embedder):
    texts = QUERIES * 2
    assert len(texts) > SMALL_BATCH
    batched = embedder.embed(texts)
    singles = np.vstack([embedder.embed([t]) for t in texts])
    assert np.abs(batched - singles).max() < 1e-4


def test_query_path_can_be_switched_off():
    torch_only = MiniLMEmbedder(query_onnx=False)
    torch_only.embed(["I live in Beijing."])
    assert torch_only._query_path() is None


LAZY = """
import sys
from graphmem.embedding.embedder import SMALL_BATCH, MiniLMEmbedder
e = MiniLMEmbedder()
small = e.embed(["I moved to Lisbon."] * SMALL_BATCH)
print("small", "sentence_transformers" in sys.modules, "torch" in sys.modules, small.shape)
large = e.embed(["I moved to Lisbon."] * (SMALL_BATCH + 1))
print("large", "sentence_transformers" in sys.modules, e._model is not None, large.shape)
"""


def test_pytorch_loads_only_for_a_batch_larger_than_the_query_path_takes(embedder):
    """A process that embeds only small batches (one turn, a few names, a question) never imports
    sentence-transformers or PyTorch, ~5 s of its start; the first larger batch loads them."""
    import subprocess
    import sys

    embedder._query_path()  # the ONNX twin exported and cached before the child looks for it
    out = subprocess.run([sys.executable, "-c", LAZY], capture_output=True, text=True, check=True).stdout.splitlines()
    assert out == [f"small False False ({SMALL_BATCH}, 384)", f"large True True ({SMALL_BATCH + 1}, 384)"], out


def test_the_dimension_is_read_without_loading_the_model():
    from graphmem.embedding.embedder import pooled_dimension

    lazy = MiniLMEmbedder()
    assert lazy._model is None and lazy.dimension == 384
    assert pooled_dimension(lazy._path) == 384
    lazy.warm()
    assert lazy._model is not None and lazy._query_path() is not None
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
