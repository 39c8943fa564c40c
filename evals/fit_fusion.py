"""Fit the learned turn fusion (`retrieval.learned_fusion`) on the tuning halves only.

    python -m graphmem.evals.fit_fusion collect --locomo-graph runs/tuning/work/graphmem_graph \\
        --lme-graph runs/lme_tuning/work/graphmem_graph --features runs/fusion_features.npz
    python -m graphmem.evals.fit_fusion fit --features runs/fusion_features.npz   # writes the shipped weights

``collect`` runs the real search (default lists, learned fusion recipe) for every
question of the LoCoMo tuning split and the LongMemEval tuning half on the graphs
the retrieval harness wrote there, and stores each question's candidate feature
rows with their evidence labels. ``fit`` is deterministic (lbfgs logistic
regression, fixed C, each question weighing the same whatever its candidate
count): the same features give the same weights. Only questions of memories the
scorer applies to (`learned_fusion.applies`: no ``user`` turns) train it; the
others keep RRF, at fit time as at search time. It also prints the
out-of-fold recall@10 of the fused turn order against the RRF order on the same
candidates (folds: each LoCoMo tuning conversation, each quarter of the
LongMemEval tuning questions), the figure the keep rule reads besides the harness.
Reporting halves are never read here.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from graphmem.retrieval import learned_fusion
from graphmem.retrieval.learned_fusion import FEATURES, FusionWeights

C = 10.0
K = 10
LME_FOLDS = 4


def collect(locomo_data: Path, locomo_graph: Path, lme_data: Path, lme_graph: Path, out: Path) -> None:
    from graphmem.evals.retrieval_run import gold_of, load_dataset
    from graphmem.evals.systems._common import memory_id
    from graphmem.evals.systems.graphmem_system import SEARCH_LIMIT, SharedGraph
    from graphmem.retrieval.recipes import HYBRID_LEARNED

    rows, labels, qids, groups, chats = [], [], [], [], []
    sources = (("locomo", load_dataset("locomo", locomo_data, split="tuning"), locomo_graph),
               ("longmemeval", load_dataset("longmemeval", lme_data, split="tuning", pooled=True), lme_graph))
    for name, dataset, graph_dir in sources:
        graph = SharedGraph(graph_dir)
        try:
            for conv in dataset.conversations:
                graph.require(conv)
                user = memory_id(conv.conversation_id)
                episodes = graph.memory.inspect().episodes(user)
                turn_of = {e.uuid: e.turn_id for e in episodes}
                chat = any(e.speaker == "user" for e in episodes)
                ordered = sorted(conv.questions, key=lambda q: q.question_id)
                for i, question in enumerate(ordered):
                    gold, _ = gold_of(conv, question)
                    if not gold:
                        continue
                    with learned_fusion.recording(force=True) as log:
                        graph.memory.search(user, question.question, now=question.question_time,
                                            limit=SEARCH_LIMIT, recipe=HYBRID_LEARNED, budget_tokens=8000)
                    if not log:
                        continue
                    ids, x = log[-1]
                    group = conv.conversation_id if name == "locomo" else f"{name}:{i % LME_FOLDS}"
                    rows.append(x)
                    labels.append(np.array([turn_of.get(u) in gold for u in ids], dtype=float))
                    qids.append(f"{name}|{question.question_id}|{len(gold)}")
                    groups.append(group)
                    chats.append(chat)
        finally:
            graph.close()
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, x=np.vstack(rows), y=np.concatenate(labels),
                        question=np.repeat(np.arange(len(rows)), [len(r) for r in rows]),
                        qids=np.array(qids), groups=np.array(groups), chat=np.array(chats), features=np.array(FEATURES))
    print(f"{len(rows)} questions, {sum(len(r) for r in rows)} candidates -> {out}")


def fit(x: np.ndarray, y: np.ndarray, question: np.ndarray) -> FusionWeights:
    """Standardise, then an L2 logistic regression where every question weighs 1 in total."""
    from sklearn.linear_model import LogisticRegression

    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale == 0] = 1.0
    sizes = np.bincount(question)
    model = LogisticRegression(C=C, max_iter=5000, solver="lbfgs")
    model.fit((x - mean) / scale, y, sample_weight=1.0 / sizes[question])
    return FusionWeights(mean=mean, scale=scale, coef=model.coef_.ravel())


def recall_at(scores: np.ndarray, y: np.ndarray, question: np.ndarray, gold_counts: np.ndarray, k: int = K) -> np.ndarray:
    """Per question: share of its gold turns among its `k` best-scored candidates (ties: candidate order)."""
    out = np.zeros(len(gold_counts))
    for q in range(len(gold_counts)):
        at = np.flatnonzero(question == q)
        top = at[np.argsort(-scores[at], kind="stable")[:k]]
        out[q] = y[top].sum() / gold_counts[q]
    return out


def trainable(data) -> np.ndarray:
    """Which candidate rows belong to questions the scorer applies to (not a user-assistant chat)."""
    return ~data["chat"][data["question"]]


def cross_validate(data) -> dict[str, tuple[float, float]]:
    """Out-of-fold recall@10 (learned, RRF) per dataset, folds = `groups`; chat
    questions keep the RRF order, as at search time."""
    x, y, question, groups = data["x"], data["y"], data["question"], data["groups"]
    gold = np.array([int(q.rsplit("|", 1)[1]) for q in data["qids"]])
    rrf = x[:, FEATURES.index("rrf")]
    learned = rrf.copy()
    use = trainable(data)
    for g in np.unique(groups):
        held = np.isin(question, np.flatnonzero(groups == g))
        if not (held & use).any():
            continue
        train = ~held & use
        learned[held & use] = fit(x[train], y[train], _renumber(question[train])).score(x[held & use])
    r_learned, r_rrf = recall_at(learned, y, question, gold), recall_at(rrf, y, question, gold)
    dataset = np.array([q.split("|", 1)[0] for q in data["qids"]])
    return {d: (float(r_learned[dataset == d].mean()), float(r_rrf[dataset == d].mean())) for d in np.unique(dataset)}


def _renumber(question: np.ndarray) -> np.ndarray:
    return np.unique(question, return_inverse=True)[1]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m graphmem.evals.fit_fusion")
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect")
    c.add_argument("--locomo-data", type=Path, default=Path("tests/data/locomo_dev7.json"))
    c.add_argument("--locomo-graph", type=Path, required=True)
    c.add_argument("--lme-data", type=Path, default=Path("tests/data/longmemeval_oracle_sample99.json"))
    c.add_argument("--lme-graph", type=Path, required=True)
    c.add_argument("--features", type=Path, required=True)
    f = sub.add_parser("fit")
    f.add_argument("--features", type=Path, required=True)
    f.add_argument("--out", type=Path, default=learned_fusion.WEIGHTS_FILE)
    f.add_argument("--check", action="store_true", help="compare with the weights in --out instead of writing them")
    args = parser.parse_args(argv)
    if args.command == "collect":
        collect(args.locomo_data, args.locomo_graph, args.lme_data, args.lme_graph, args.features)
        return
    data = np.load(args.features)
    if list(data["features"]) != list(FEATURES):
        raise SystemExit("features file was collected with other features; collect again")
    use = trainable(data)
    weights = fit(data["x"][use], data["y"][use], _renumber(data["question"][use]))
    for d, (ours, base) in cross_validate(data).items():
        print(f"{d}: out-of-fold recall@{K} learned {ours:.3f}, rrf {base:.3f} ({ours - base:+.3f})")
    for name, w in sorted(zip(FEATURES, weights.coef, strict=True), key=lambda p: -abs(p[1])):
        print(f"  {name:16s} {w:+.3f}")
    if args.check:
        shipped = learned_fusion.FusionWeights.from_json(json.loads(args.out.read_text()))
        same = np.allclose(shipped.coef, weights.coef, atol=1e-6) and np.allclose(shipped.mean, weights.mean)
        print("shipped weights reproduced" if same else "shipped weights DIFFER")
        raise SystemExit(0 if same else 1)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(weights.to_json(), indent=1) + "\n")
    print(f"weights -> {args.out}")


if __name__ == "__main__":
    main()
