"""Learned fusion of the turn candidate lists: a linear scorer instead of fixed RRF weights.

The default recipe fuses its turn lists by RRF with weights each tuned one at a
time (docs/retrieval-rounds.md). Here every candidate turn gets a few
features the search already has (its reciprocal rank and presence in each
list, its plain BM25 score, how strongly its session shows up among the
candidates, its length, whether a named speaker or the user spoke it), and a
logistic-regression model fitted on the evidence labels of the tuning halves
(`graphmem.evals.fit_fusion`, deterministic) weighs them. Scoring is one
small matrix product over the candidates already drawn: no store query, no
embedding.

The scorer runs only in memories whose turns are between named speakers
(`applies`): in a memory where a ``user`` talks with an assistant the tuning
data holds 50 questions, too few to fit the weights (out of fold they lost to
RRF there, docs/retrieval-rounds.md, fifth round), so such memories keep RRF.

`features`, `applies` and `order` are pure; `load_weights` reads the shipped
``data/fusion_weights.json``; `recording` lets the fitting script collect the
feature rows of real searches.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

LISTS = ("bm25", "vector", "facts", "mentions", "neighbours", "self", "self_vector", "speaker", "speaker_vector",
         "time")
FEATURES = (*(f"rr_{name}" for name in LISTS), *(f"in_{name}" for name in LISTS),
            "rrf", "lists", "bm25_score", "session_rrf", "session_best", "session_hits", "length",
            "named_speaker", "own_turn")
WEIGHTS_FILE = Path(__file__).parent / "data" / "fusion_weights.json"

_LOG: ContextVar[tuple[list, bool] | None] = ContextVar("learned_fusion_log", default=None)


@dataclass(frozen=True)
class TurnFacts:
    """What the features need to know of each turn beyond the lists, by turn uuid."""

    session: Mapping[str, str]
    length: Mapping[str, int]
    speaker: Mapping[str, str]
    bm25: Mapping[str, float]


@dataclass(frozen=True)
class FusionWeights:
    """A linear scorer over standardised features: score = ((x - mean) / scale) @ coef."""

    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray

    def score(self, x: np.ndarray) -> np.ndarray:
        return ((x - self.mean) / self.scale) @ self.coef

    def to_json(self) -> dict:
        return {"features": list(FEATURES), "mean": self.mean.tolist(), "scale": self.scale.tolist(),
                "coef": self.coef.tolist()}

    @classmethod
    def from_json(cls, data: Mapping) -> FusionWeights:
        if list(data["features"]) != list(FEATURES):
            raise ValueError("fusion weights were fitted on other features; refit with graphmem.evals.fit_fusion")
        return cls(np.asarray(data["mean"], float), np.asarray(data["scale"], float), np.asarray(data["coef"], float))


@lru_cache(maxsize=1)
def load_weights(path: Path = WEIGHTS_FILE) -> FusionWeights:
    """The shipped weights, read once per process."""
    return FusionWeights.from_json(json.loads(Path(path).read_text()))


def features(lists: Mapping[str, Sequence[str]], weights: Mapping[str, float], k: int, turns: TurnFacts,
             named: Sequence[str] = (), first_person: bool = False) -> tuple[list[str], np.ndarray]:
    """The candidate turns (every id of every list, in first-appearance order) and their feature rows.

    ``rr_<list>`` is 1 / (k + rank) (0 when absent), ``rrf`` the recipe's weighted
    RRF score, so the model can only add to what the fixed fusion knows. The
    session features say how much of the candidates' RRF mass the turn's
    session holds (relative to the strongest session): evidence clusters in a
    session, so a turn ranked low in a strong session is a better bet than the
    same rank in a session with one stray hit.
    """
    ids = list(dict.fromkeys(u for name in LISTS for u in lists.get(name, ())))
    if not ids:
        return [], np.zeros((0, len(FEATURES)))
    row = {u: i for i, u in enumerate(ids)}
    n = len(ids)
    rr = np.zeros((n, len(LISTS)))
    for j, name in enumerate(LISTS):
        for rank, u in enumerate(dict.fromkeys(lists.get(name, ())), start=1):
            rr[row[u], j] = 1.0 / (k + rank)
    present = (rr > 0).astype(float)
    w = np.array([float(weights.get(name, 0.0)) for name in LISTS])
    rrf = rr @ w
    sessions = [turns.session.get(u, u) for u in ids]
    mass: dict[str, float] = {}
    best: dict[str, float] = {}
    hits: dict[str, int] = {}
    for s, score in zip(sessions, rrf, strict=True):
        mass[s] = mass.get(s, 0.0) + score
        best[s] = max(best.get(s, 0.0), score)
        hits[s] = hits.get(s, 0) + 1
    top_mass = max(mass.values()) or 1.0
    top_best = max(best.values()) or 1.0
    bm25 = np.array([turns.bm25.get(u, 0.0) for u in ids])
    top_bm25 = bm25.max() if bm25.max() > 0 else 1.0
    names = set(named)
    extra = np.column_stack([
        rrf,
        present.sum(axis=1),
        bm25 / top_bm25,
        [mass[s] / top_mass for s in sessions],
        [best[s] / top_best for s in sessions],
        [np.log1p(hits[s]) for s in sessions],
        [np.log1p(turns.length.get(u, 0)) for u in ids],
        [float(turns.speaker.get(u, "") in names) for u in ids],
        [float(first_person and turns.speaker.get(u, "") == "user") for u in ids],
    ])
    return ids, np.hstack([rr, present, extra])


def applies(own_turns: np.ndarray | None) -> bool:
    """Whether the learned scorer orders this memory's turns: not when any turn is the
    user's own (`TurnTable.own_turns`), the user-assistant chats it was not fitted for."""
    logging = _LOG.get()
    return own_turns is None or not bool(np.any(own_turns)) or (logging is not None and logging[1])


def order(ids: Sequence[str], x: np.ndarray, model: FusionWeights) -> list[str]:
    """`ids` best first by the model's score; ties keep the given order. Logged when `recording`."""
    logging = _LOG.get()
    if logging is not None:
        logging[0].append((list(ids), x.copy()))
    if not len(ids):
        return []
    scores = model.score(x)
    return [ids[i] for i in np.argsort(-scores, kind="stable")]


@contextmanager
def recording(force: bool = False) -> Iterator[list[tuple[list[str], np.ndarray]]]:
    """Collect (candidate ids, feature rows) of every learned fusion run inside the block;
    with `force`, the features are computed in memories the scorer does not apply to as
    well (the fitting script scores RRF on the same candidates there)."""
    log: list = []
    token = _LOG.set((log, force))
    try:
        yield log
    finally:
        _LOG.reset(token)
