"""The int8 ONNX MiniLM of the write path: exported offline from the packaged
weights into the cache once, close to the fp32 vectors, and batch-independent."""

import time

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphmem.embedding.onnx_minilm import OnnxMiniLM, token_batches
from graphmem.graph.cypher.query import VectorParam

TEXTS = [
    "I live in Beijing.",
    "What did Caroline research?",
    "Caroline: I went to a LGBTQ support group yesterday and it was so powerful.",
    "",
    "word " * 400,  # longer than the model's 256 tokens: truncated
]


@pytest.fixture(scope="module")
def onnx_model(tmp_path_factory):
    return OnnxMiniLM(cache=tmp_path_factory.mktemp("onnx-cache"))


def test_onnx_minilm_is_close_to_fp32(onnx_model, embedder):
    ours, theirs = onnx_model.embed(TEXTS), embedder.embed(TEXTS)
    assert ours.shape == theirs.shape == (len(TEXTS), 384) and ours.dtype == np.float32
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
    cosine = (ours * theirs).sum(1)
    # int8 per channel; recall is measured in bench/speed.py. The empty text (just the
    # special tokens) has no words to average over and moves most: 0.967 on a fresh
    # export on 2026-12-02, so it gets its own, looser bound.
    empty = TEXTS.index("")
    assert np.delete(cosine, empty).min() > 0.97 and cosine[empty] > 0.95
    # nearest neighbours agree: each text is closest to its own fp32 vector
    assert list((ours @ theirs.T).argmax(1)) == list(range(len(TEXTS)))


def test_onnx_minilm_embeds_one_text_as_in_a_batch(onnx_model):
    alone = onnx_model.embed([TEXTS[2]])[0]
    batched = onnx_model.embed(TEXTS)[2]  # sorted by length and padded beside others
    # Dynamic int8 scales activations per batch, so a vector moves a little with its
    # batch-mates; padding must not move it further than that.
    assert float(alone @ batched) > 0.99
    assert onnx_model.embed([]).shape == (0, 384)


@given(st.lists(st.integers(min_value=1, max_value=300), max_size=60), st.integers(min_value=1, max_value=600))
def test_token_batches_cover_every_text_once_within_the_budget(lengths, budget):
    batches = token_batches(lengths, budget)
    assert sorted(i for batch in batches for i in batch) == list(range(len(lengths)))
    for batch in batches:
        widths = [lengths[i] for i in batch]
        assert widths == sorted(widths)  # shortest first: padding only to the batch's own longest
        assert len(batch) == 1 or len(batch) * max(widths) <= budget


def test_many_small_batches_on_two_threads_keep_every_vector_in_its_place(onnx_model, monkeypatch):
    monkeypatch.setattr("graphmem.embedding.onnx_minilm.threads_for", lambda texts, cores: cores)  # an idle machine
    texts = [f"{name} moved to city number {i} in {1990 + i}." + " and then" * (i % 7) for i, name in
             enumerate(["Ada", "Bo", "Cy", "Di"] * 10)]
    cache = onnx_model.model_path.parent
    spread = OnnxMiniLM(cache=cache, tokens_per_batch=32, threads=2)
    in_turn = OnnxMiniLM(cache=cache, tokens_per_batch=32, threads=1)
    assert len(token_batches([len(t.split()) for t in texts], 32)) > 4
    many = spread.embed(texts)
    assert spread._pool is not None and in_turn._pool is None  # the pool ran the batches
    # the same batches run one after another: the thread pool only changes where they run
    assert np.abs(many - in_turn.embed(texts)).max() < 1e-6
    alone = np.stack([onnx_model.embed([text])[0] for text in texts])
    assert list((many @ alone.T).argmax(1)) == list(range(len(texts)))  # each vector in its text's place


def test_calls_from_several_threads_at_once_give_each_its_own_vectors(onnx_model, monkeypatch):
    """`embed` runs inference unlocked, so a write's turns (many batches, on the workers) and
    its resolver's names (one batch, on the caller's thread) overlap: each call must still get
    exactly the vectors it gets alone."""
    import threading

    from graphmem.embedding import onnx_minilm

    monkeypatch.setattr(onnx_minilm, "threads_for", lambda texts, load=None, cores=None: 2)
    calls = [[f"turn {i} of call {c}: we talked about the {('harbour', 'garden', 'exam')[i % 3]}"
              for i in range(40 if c % 2 == 0 else 3)] for c in range(6)]
    alone = [onnx_model.embed(texts) for texts in calls]
    together: dict[int, np.ndarray] = {}
    start = threading.Barrier(len(calls))

    def run(c):
        start.wait()
        together[c] = onnx_model.embed(calls[c])

    threads = [threading.Thread(target=run, args=(c,)) for c in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for c, vectors in enumerate(alone):
        np.testing.assert_array_equal(together[c], vectors)


def test_the_export_is_cached_and_reused(onnx_model, tmp_path_factory):
    cached = list(onnx_model_cache(onnx_model))
    assert [p.name for p in cached] == ["model-int8.onnx"]  # no temporary file left beside it
    before = cached[0].stat().st_mtime_ns
    OnnxMiniLM(cache=cached[0].parent)
    assert cached[0].stat().st_mtime_ns == before


def test_the_export_has_no_where_over_the_attention_scores(onnx_model):
    import onnx

    # the SDPA export masked the scores with Where, 15% of the time on long turns
    # in every layer (12 such nodes); eager builds its additive mask once, outside the layers
    nodes = onnx.load(str(onnx_model.model_path)).graph.node
    assert not [n.name for n in nodes if n.op_type == "Where" and "/layer." in n.name]
    assert any(n.op_type == "MatMulInteger" for n in nodes)


def onnx_model_cache(model):
    return sorted(model.model_path.parent.iterdir())


def test_vector_parameter_keeps_float32_values():
    values = np.random.default_rng(1).standard_normal(384).astype(np.float32)
    values /= np.linalg.norm(values)
    text = str(VectorParam(values.tolist()))
    parsed = np.array([float(x) for x in text[1:-1].split(",")])
    assert np.abs(parsed - values).max() < 1e-7
    assert len(text) < len(repr(values.tolist())) * 0.7


def test_thread_count_drops_to_one_for_queries_and_busy_machines():
    from graphmem.embedding.embedder import threads_for

    assert threads_for(1, load=0.0, cores=2) == 1  # a query
    assert threads_for(500, load=0.3, cores=2) == 2  # idle: every core
    assert threads_for(500, load=1.0, cores=2) == 1  # others hold every core but ours
    assert threads_for(500, load=2.0, cores=8) == 8
    assert threads_for(500, load=0.0, cores=1) == 1


def test_other_load_is_the_machine_less_this_process():
    from graphmem.embedding.embedder import others_in_cores

    assert others_in_cores(machine_busy=3.0, own=1.0, elapsed=2.0) == 1.0
    assert others_in_cores(machine_busy=0.5, own=0.9, elapsed=1.0) == 0.0  # sampling skew, never negative
    assert others_in_cores(machine_busy=1.0, own=0.0, elapsed=0.0) == 0.0


def _spin(seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


def test_other_load_leaves_out_this_process_and_sees_another():
    """Our own busy core must not count as load (it made a 2-core ingest embed on one
    thread), another process's must."""
    import subprocess
    import sys

    from graphmem.embedding.embedder import OtherLoad

    sample = OtherLoad(window=0.0)
    sample()
    _spin(1.5)
    while_we_work = sample()
    child = subprocess.Popen([sys.executable, "-c", "import time\nend = time.monotonic() + 1.5\nwhile time.monotonic() < end: pass"])
    sample()
    child.wait()
    while_another_works = sample()
    assert while_another_works - while_we_work >= 0.4
