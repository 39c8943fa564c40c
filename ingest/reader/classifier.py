"""Topic and kind of a sentence from its MiniLM vector: two logistic regressions.

Why two heads and not one over topic x kind: a few hundred sentences spread
over 27 joint labels leaves some with five examples, while the kind words
("left", "now", "no longer") are shared across topics and learn better pooled.

The weights are fitted by `graphmem.ingest.reader.train` and shipped as
``data/weights.npz`` (with the hash of the sentence file they came from), so
reading costs one matrix product and no training at import; scikit-learn is
needed only to refit. The threshold is calibrated at fit time on the labelled
set by 5-fold cross-validation: the lowest topic probability at which held-out
calls of a topic (not ``none``) are right at least `PRECISION` of the time.
Precision before recall: a sentence the reader is unsure of says nothing.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from graphmem.ingest.reader.labelled import DATA, Labelled

WEIGHTS = Path(__file__).resolve().parent / "data" / "weights.npz"
PRECISION = 0.9
_C = 8.0


@dataclass(frozen=True)
class Reading:
    """What the classifier says of one sentence."""

    topic: str
    topic_p: float
    kind: str
    kind_p: float


@dataclass(frozen=True)
class Head:
    """A fitted multinomial logistic regression: classes, weights, intercepts."""

    classes: tuple[str, ...]
    coef: np.ndarray
    intercept: np.ndarray

    def proba(self, vectors: np.ndarray) -> np.ndarray:
        z = vectors @ self.coef.T + self.intercept
        z = np.exp(z - z.max(axis=1, keepdims=True))
        return z / z.sum(axis=1, keepdims=True)


@dataclass(frozen=True)
class SentenceClassifier:
    topic: Head
    kind: Head
    threshold: float
    source_sha: str = ""

    def read(self, vectors: np.ndarray) -> list[Reading]:
        if len(vectors) == 0:
            return []
        tp, kp = self.topic.proba(vectors), self.kind.proba(vectors)
        ti, ki = tp.argmax(axis=1), kp.argmax(axis=1)
        return [Reading(self.topic.classes[a], float(tp[n, a]), self.kind.classes[b], float(kp[n, b]))
                for n, (a, b) in enumerate(zip(ti, ki))]

    def sure(self, reading: Reading) -> bool:
        return reading.topic != "none" and reading.topic_p >= self.threshold


def data_sha(path: Path = DATA) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def save(model: SentenceClassifier, path: Path = WEIGHTS) -> None:
    np.savez_compressed(path, topic_classes=np.array(model.topic.classes), topic_coef=model.topic.coef,
                        topic_intercept=model.topic.intercept, kind_classes=np.array(model.kind.classes),
                        kind_coef=model.kind.coef, kind_intercept=model.kind.intercept,
                        threshold=np.array(model.threshold), source_sha=np.array(model.source_sha))


@lru_cache(maxsize=1)
def shipped(path: Path = WEIGHTS) -> SentenceClassifier:
    """The fitted weights shipped with the package."""
    with np.load(path) as z:
        def head(name: str) -> Head:
            return Head(tuple(str(c) for c in z[f"{name}_classes"]), z[f"{name}_coef"].astype(np.float32),
                        z[f"{name}_intercept"].astype(np.float32))
        return SentenceClassifier(head("topic"), head("kind"), float(z["threshold"]), str(z["source_sha"]))


# ------------------------------------------------------------------ fitting (scikit-learn)


def _model():
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(C=_C, max_iter=5000)


def _head(model) -> Head:
    return Head(tuple(str(c) for c in model.classes_), model.coef_.astype(np.float32),
                model.intercept_.astype(np.float32))


def calibrate(topics: np.ndarray, vectors: np.ndarray, folds: int = 5) -> float:
    """The lowest probability at which held-out topic calls reach `PRECISION` (see module doc)."""
    from sklearn.model_selection import StratifiedKFold

    held_p = np.zeros(len(topics))
    held_t = np.empty(len(topics), dtype=object)
    for train, test in StratifiedKFold(folds, shuffle=True, random_state=0).split(vectors, topics):
        model = _model().fit(vectors[train], topics[train])
        proba = model.predict_proba(vectors[test])
        held_p[test] = proba.max(axis=1)
        held_t[test] = model.classes_[proba.argmax(axis=1)]
    called = held_t != "none"
    for threshold in np.arange(0.30, 0.96, 0.01):
        mask = called & (held_p >= threshold)
        if mask.sum() and (held_t[mask] == topics[mask]).mean() >= PRECISION:
            return float(round(threshold, 2))
    return 0.95


def fit(rows: tuple[Labelled, ...], vectors: np.ndarray, source_sha: str = "") -> SentenceClassifier:
    topics = np.array([r.topic for r in rows], dtype=object)
    said = topics != "none"
    kinds = np.array([r.kind for r in rows], dtype=object)
    return SentenceClassifier(_head(_model().fit(vectors, topics)), _head(_model().fit(vectors[said], kinds[said])),
                              calibrate(topics, vectors), source_sha)
