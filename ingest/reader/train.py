"""`python -m graphmem.ingest.reader.train`: refit ``data/weights.npz`` from ``data/sentences.tsv``.

Embeds the labelled sentences with the fp32 MiniLM (`fp32_embedder`, whatever
GRAPHMEM_EMBEDDER_BACKEND says: the shipped weights were fitted on fp32 vectors), fits both heads,
calibrates the threshold and writes the weights with the data file's hash, so
a test can tell when the shipped weights no longer match the sentences.
"""

from __future__ import annotations

from graphmem.embedding.embedder import fp32_embedder
from graphmem.ingest.reader import classifier, labelled


def main() -> None:
    rows = labelled.load()
    vectors = fp32_embedder().embed([r.text for r in rows])
    model = classifier.fit(rows, vectors, classifier.data_sha())
    classifier.save(model)
    print(f"{len(rows)} sentences, threshold {model.threshold:.2f} -> {classifier.WEIGHTS}")


if __name__ == "__main__":
    main()
