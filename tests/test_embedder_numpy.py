"""The numpy MiniLM the CLI searches with gives sentence-transformers' vectors."""

import numpy as np

from graphmem.embedding.minilm_numpy import NumpyMiniLM

TEXTS = [
    "I live in Beijing.",
    "What did Caroline research?",
    "Caroline: I went to a LGBTQ support group yesterday and it was so powerful.",
    "",
    "word " * 400,  # longer than the model's 256 tokens: truncated the same way
]


def test_numpy_minilm_matches_sentence_transformers(embedder):
    ours = NumpyMiniLM().embed(TEXTS)
    theirs = embedder.embed(TEXTS)
    assert ours.shape == theirs.shape == (len(TEXTS), 384) and ours.dtype == np.float32
    assert np.abs(ours - theirs).max() < 1e-5
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)


def test_numpy_minilm_embeds_one_text_as_in_a_batch():
    model = NumpyMiniLM()
    alone = model.embed([TEXTS[2]])[0]
    batched = model.embed(TEXTS)[2]  # padded beside longer texts
    assert np.abs(alone - batched).max() < 1e-5
    assert model.embed([]).shape == (0, 384)
