"""An immutable BM25 index scoring exactly like ``rank_bm25.BM25Okapi``, but sparse.

Scores match ``BM25Okapi(corpus, k1, b, epsilon).get_scores(query)`` for the
same tokens (`retrieval.tokenize.tokenize`), including its idf floor: a term in
more than half the documents would get a negative idf and gets
``epsilon * mean idf`` instead (the mean over every term in the corpus). A query
word repeated n times counts n times, as in rank_bm25.

Layout: the per-(term, document) BM25 weights are computed once at build time
into a term-major ``scipy.sparse`` CSR matrix, so a query is the sum of a few
posting rows into a dense score vector, O(postings touched). The raw term
counts are kept too, so `BM25Index.add` tokenizes only the new documents.

Immutability: `build` and `add` return new indexes and never change an existing
one (its arrays are read-only), so a reader in another thread never sees a
half-updated index; swap the reference to publish a new one.

Duplicate ids: a later text replaces an earlier one with the same id, both
inside one `build`/`add` call and across `add` calls; the document keeps the
position of its first appearance (like assigning to a ``dict``), which is the
order ties are broken in.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import chain

import numpy as np
import scipy.sparse as sp

from graphmem.schema.errors import InvalidInput
from graphmem.retrieval.fusion import Scored
from graphmem.retrieval.tokenize import tokenize, tokenize_many

__all__ = ["BM25Index", "BM25Params", "Scored"]


@dataclass(frozen=True)
class BM25Params:
    """BM25Okapi parameters: term-frequency saturation `k1`, length
    normalisation `b`, and the idf floor factor `epsilon` (rank_bm25's defaults)."""

    k1: float = 1.5
    b: float = 0.75
    epsilon: float = 0.25

    def __post_init__(self) -> None:
        if self.k1 < 0 or not 0.0 <= self.b <= 1.0:
            raise InvalidInput(f"BM25 needs k1 >= 0 and 0 <= b <= 1, got k1={self.k1}, b={self.b}")


def _count_matrix(texts: Sequence[str], vocab: dict[str, int]) -> sp.csr_matrix:
    """Documents x terms term counts; new terms are added to `vocab` (a private copy)."""
    token_lists = tokenize_many(texts)
    lengths = np.fromiter(map(len, token_lists), dtype=np.int64, count=len(token_lists))
    flat = list(chain.from_iterable(token_lists))
    # setdefault's default is evaluated first, so a new term gets the next free id.
    term_ids = np.fromiter((vocab.setdefault(t, len(vocab)) for t in flat), dtype=np.int64, count=len(flat))
    rows = np.repeat(np.arange(len(token_lists)), lengths)
    counts = sp.csr_matrix(
        (np.ones(len(flat), dtype=np.float64), (rows, term_ids)), shape=(len(token_lists), len(vocab))
    )
    counts.sum_duplicates()
    return counts


def _idf(df: np.ndarray, n_docs: int, epsilon: float) -> np.ndarray:
    """rank_bm25's Okapi idf with its floor; terms with df == 0 (dropped by a
    replacement) are left out of the mean, as they are absent from rank_bm25's corpus."""
    idf = np.log(n_docs - df + 0.5) - np.log(df + 0.5)
    present = df > 0
    mean_idf = float(idf[present].mean()) if present.any() else 0.0
    return np.where(idf < 0, epsilon * mean_idf, idf)


def _weights(counts: sp.csr_matrix, params: BM25Params) -> sp.csr_matrix:
    """Terms x documents matrix of per-pair BM25 contributions for a query count of 1."""
    n_docs, n_terms = counts.shape
    if counts.nnz == 0:
        return sp.csr_matrix((n_terms, n_docs), dtype=np.float64)
    doc_len = np.asarray(counts.sum(axis=1), dtype=np.float64).ravel()
    k1, b = params.k1, params.b
    norm = k1 * (1 - b + b * doc_len / (doc_len.sum() / n_docs))
    idf = _idf(np.bincount(counts.indices, minlength=n_terms), n_docs, params.epsilon)
    tf = counts.data
    entry_doc = np.repeat(np.arange(n_docs), np.diff(counts.indptr))
    data = idf[counts.indices] * (tf * (k1 + 1) / (tf + norm[entry_doc]))
    by_doc = sp.csr_matrix((data, counts.indices, counts.indptr), shape=counts.shape)
    return by_doc.T.tocsr()


def _freeze(matrix: sp.csr_matrix) -> sp.csr_matrix:
    for array in (matrix.data, matrix.indices, matrix.indptr):
        array.flags.writeable = False
    return matrix


def plain_idf(df: int, n_docs: int) -> float:
    """idf without BM25's floor, so a word common in a tiny corpus still counts."""
    return math.log((n_docs + 1) / (df + 0.5))


class BM25Index:
    """An immutable BM25Okapi index over (doc_id, text) pairs.

    Build with `BM25Index.build`, extend with `add` (returns a new index),
    query with `search` (top-k `Scored`) or `scores` (one score per document,
    in `doc_ids` order).

    Example:
        >>> index = BM25Index.build(["t1", "t2", "t3"], ["I paint on Sundays", "Lives in Lyon", "Tea"])
        >>> index.search("painting", k=5)
        [Scored(doc_id='t1', score=0.4686...)]
    """

    __slots__ = ("_doc_ids", "_rows", "_vocab", "_counts", "_weights", "_params")

    def __init__(
        self,
        doc_ids: tuple[str, ...],
        rows: Mapping[str, int],
        vocab: Mapping[str, int],
        counts: sp.csr_matrix,
        params: BM25Params,
    ) -> None:
        """Private: use `build` or `add`. Takes ownership of its arguments."""
        self._doc_ids = doc_ids
        self._rows = rows
        self._vocab = vocab
        self._counts = _freeze(counts)
        self._weights = _freeze(_weights(counts, params))
        self._params = params

    @classmethod
    def build(
        cls, doc_ids: Sequence[str], texts: Sequence[str], params: BM25Params = BM25Params()
    ) -> BM25Index:
        """Index `texts` under `doc_ids` (same length; a repeated id keeps its last text).

        Example:
            >>> len(BM25Index.build(["a", "b", "a"], ["x y", "z", "w"]))
            2
        """
        docs = _pair_up(doc_ids, texts)
        vocab: dict[str, int] = {}
        counts = _count_matrix(list(docs.values()), vocab)
        ids = tuple(docs)
        return cls(ids, {d: i for i, d in enumerate(ids)}, vocab, counts, params)

    def add(self, doc_ids: Sequence[str], texts: Sequence[str]) -> BM25Index:
        """A new index with these documents added (an existing id gets the new text,
        keeping its position); scores equal a full `build` of the combined corpus.
        `self` is unchanged.

        Example:
            >>> BM25Index.build(["a"], ["tea"]).add(["b"], ["coffee"]).doc_ids
            ('a', 'b')
        """
        batch = _pair_up(doc_ids, texts)
        vocab = dict(self._vocab)
        fresh = _count_matrix(list(batch.values()), vocab)
        n_old = len(self._doc_ids)
        old = sp.csr_matrix(
            (self._counts.data, self._counts.indices, self._counts.indptr), shape=(n_old, len(vocab))
        )
        stacked = sp.vstack([old, fresh], format="csr")
        rows = dict(self._rows)
        ids = list(self._doc_ids)
        order = np.arange(n_old + len(batch))
        appended: list[int] = []
        for j, doc_id in enumerate(batch):
            if doc_id in rows:
                order[rows[doc_id]] = n_old + j
            else:
                rows[doc_id] = len(ids)
                ids.append(doc_id)
                appended.append(n_old + j)
        if len(appended) < len(batch):  # some ids replaced: pick the surviving rows
            counts = stacked[np.concatenate([order[:n_old], np.array(appended, dtype=np.int64)])]
        else:
            counts = stacked
        return BM25Index(tuple(ids), rows, vocab, counts, self._params)

    def scores(self, query: str) -> np.ndarray:
        """BM25 score of every document for `query`, in `doc_ids` order (a new array)."""
        out = np.zeros(len(self._doc_ids))
        weights = self._weights
        for term, count in Counter(tokenize(query)).items():
            t = self._vocab.get(term)
            if t is None:
                continue
            lo, hi = weights.indptr[t], weights.indptr[t + 1]
            out[weights.indices[lo:hi]] += count * weights.data[lo:hi]
        return out

    def shares_words(self, query: str) -> bool:
        """Whether a content word of `query` occurs in some document, whatever its
        BM25 weight (the idf floor zeroes words found in half of a tiny corpus)."""
        weights = self._weights
        for term in tokenize(query):
            t = self._vocab.get(term)
            if t is not None and weights.indptr[t + 1] > weights.indptr[t]:
                return True
        return False

    def best_coverage(self, terms: Sequence[str]) -> float:
        """The largest share of `terms`' idf mass (plain idf, no floor) found in one document.

        Example:
            >>> BM25Index.build(["a", "b"], ["blood test", "tea"]).best_coverage(["blood", "type"])
            0.278...
        """
        weights = self._weights
        n_docs = len(self._doc_ids)
        mass = {t: plain_idf(0, n_docs) for t in terms}
        found = np.zeros(n_docs)
        for term in terms:
            t = self._vocab.get(term)
            if t is None:
                continue
            lo, hi = weights.indptr[t], weights.indptr[t + 1]
            mass[term] = plain_idf(int(hi - lo), n_docs)
            found[weights.indices[lo:hi]] += mass[term]
        total = sum(mass.values())
        return float(found.max() / total) if total > 0 and n_docs else 0.0

    def search(self, query: str, k: int) -> list[Scored]:
        """The `k` best documents with a score > 0, best first; ties go to the earlier document.

        Example:
            >>> BM25Index.build(["a", "b", "c"], ["green tea", "black tea", "milk"]).search("tea", k=1)
            [Scored(doc_id='a', score=0.0...)]
        """
        return self.top(self.scores(query), k)

    def top(self, scores: np.ndarray, k: int) -> list[Scored]:
        """`search` over scores already computed by `scores`: a search that ranks the
        same query's scores several ways (`retrieval.search`) scores the corpus once."""
        if k < 0:
            raise InvalidInput(f"k must be >= 0, got {k}")
        hits = np.flatnonzero(scores > 0)
        if len(hits) > k:
            hit_scores = scores[hits]
            kth_best = np.partition(hit_scores, len(hits) - k)[len(hits) - k] if k else np.inf
            hits = hits[hit_scores >= kth_best]
        best = hits[np.lexsort((hits, -scores[hits]))][:k]
        return [Scored(self._doc_ids[i], float(scores[i])) for i in best]

    def regrouped(self, doc_ids: Sequence[str], counts: sp.csr_matrix) -> BM25Index:
        """A new index over other documents made of this one's terms: `counts` is
        documents x this index's term columns (e.g. sums of its rows, one per session);
        same parameters. `self` is unchanged.

        Example:
            >>> turns = BM25Index.build(["t1", "t2", "t3", "t4"], ["tea", "green tea", "milk", "bread"])
            >>> turns.regrouped(["s1", "s2", "s3"], turns.counts[[1, 2, 3]]).search("tea", k=5)[0].doc_id
            's1'
        """
        if counts.shape[1] != len(self._vocab) or counts.shape[0] != len(doc_ids):
            raise InvalidInput(f"counts of shape {counts.shape} for {len(doc_ids)} documents of {len(self._vocab)} terms")
        ids = tuple(doc_ids)
        return BM25Index(ids, {d: i for i, d in enumerate(ids)}, dict(self._vocab), sp.csr_matrix(counts, copy=True),
                         self._params)

    def term_ids(self, terms: Sequence[str]) -> list[int]:
        """Column ids of the indexed `terms` (tokenized already); unknown ones are skipped."""
        return [t for t in (self._vocab.get(term) for term in terms) if t is not None]

    @property
    def counts(self) -> sp.csr_matrix:
        """Documents x terms raw term counts (read-only), for query expansion (`retrieval.feedback`)."""
        return self._counts

    @property
    def term_weights(self) -> sp.csr_matrix:
        """Terms x documents BM25 contributions of a query count of 1 (read-only):
        a weighted query's scores are ``weights @ term_weights``."""
        return self._weights

    @property
    def doc_ids(self) -> tuple[str, ...]:
        """The indexed ids, in document order (the order scores come in)."""
        return self._doc_ids

    @property
    def params(self) -> BM25Params:
        """The parameters this index was built with."""
        return self._params

    def __len__(self) -> int:
        return len(self._doc_ids)

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self._rows

    def __repr__(self) -> str:
        return f"BM25Index({len(self)} docs, {len(self._vocab)} terms, {self._params})"


def _pair_up(doc_ids: Sequence[str], texts: Sequence[str]) -> dict[str, str]:
    if isinstance(doc_ids, str) or isinstance(texts, str):
        raise InvalidInput("doc_ids and texts must be sequences, not strings")
    if len(doc_ids) != len(texts):
        raise InvalidInput(f"got {len(doc_ids)} doc ids for {len(texts)} texts")
    return dict(zip(doc_ids, texts, strict=True))
