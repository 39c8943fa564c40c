"""The learned turn fusion (`retrieval.learned_fusion`) and its fitting script (`evals.fit_fusion`)."""

import json

import numpy as np
import pytest

from graphmem.evals import fit_fusion
from graphmem.retrieval import learned_fusion
from graphmem.retrieval.learned_fusion import FEATURES, FusionWeights, TurnFacts, features, order
from graphmem.retrieval.recipes import Fusion, get_recipe

NOW = "2024-09-15T12:00:00Z"
WEIGHTS = {"bm25": 1.2, "vector": 1.0, "neighbours": 0.5, "time": 1.0}


def _turns(**speaker):
    ids = ["a", "b", "c", "d", "e"]
    return TurnFacts(session={"a": "s1", "b": "s1", "c": "s2", "d": "s3", "e": "s1"},
                     length={u: 20 for u in ids}, speaker={u: speaker.get(u, "bob") for u in ids},
                     bm25={"a": 8.0, "b": 4.0, "c": 2.0, "d": 0.0, "e": 1.0})


def _column(x, name):
    return x[:, FEATURES.index(name)]


def test_features_give_each_list_its_reciprocal_rank_and_the_session_its_mass():
    lists = {"bm25": ["a", "c"], "vector": ["b", "a"], "neighbours": ["d"]}
    ids, x = features(lists, WEIGHTS, 5, _turns(c="melanie"), named=["melanie"])
    assert ids == ["a", "c", "b", "d"]
    assert _column(x, "rr_bm25").tolist() == [1 / 6, 1 / 7, 0.0, 0.0]
    assert _column(x, "in_vector").tolist() == [1.0, 0.0, 1.0, 0.0]
    assert _column(x, "rrf")[0] == pytest.approx(1.2 / 6 + 1.0 / 7)
    assert _column(x, "lists").tolist() == [2.0, 1.0, 1.0, 1.0]
    assert _column(x, "session_rrf")[0] == 1.0 and _column(x, "session_rrf")[2] == 1.0  # a and b share s1
    assert _column(x, "session_hits")[0] == pytest.approx(np.log1p(2))
    assert _column(x, "named_speaker").tolist() == [0.0, 1.0, 0.0, 0.0]
    assert _column(x, "bm25_score").tolist() == [1.0, 0.25, 0.5, 0.0]


def test_rrf_weights_reproduce_the_rrf_order():
    lists = {"bm25": ["a", "c", "e"], "vector": ["b", "a", "e"], "neighbours": ["d", "c"]}
    ids, x = features(lists, WEIGHTS, 5, _turns())
    coef = np.zeros(len(FEATURES))
    coef[FEATURES.index("rrf")] = 1.0
    plain = FusionWeights(np.zeros(len(FEATURES)), np.ones(len(FEATURES)), coef)
    from graphmem.retrieval.fusion import rrf

    expected = [s.doc_id for s in rrf([lists["bm25"], lists["vector"], lists["neighbours"]], k=5,
                                      weights=[1.2, 1.0, 0.5])]
    assert order(ids, x, plain) == expected


def test_shipped_scorer_ranks_a_turn_found_by_both_main_lists_above_a_stray_neighbour():
    lists = {"bm25": ["x1", "a"], "vector": ["x2", "a"], "neighbours": ["d"]}
    turns = TurnFacts(session={"a": "s1", "d": "s3", "x1": "s2", "x2": "s4"}, length={}, speaker={},
                      bm25={"a": 5.0, "x1": 6.0})
    ids, x = features(lists, WEIGHTS, 5, turns)
    ranked = order(ids, x, learned_fusion.load_weights())
    assert ranked.index("a") < ranked.index("d")


def test_shipped_scorer_prefers_the_named_speakers_turn_at_equal_ranks():
    lists = {"bm25": ["o", "m"], "vector": ["m", "o"]}
    turns = TurnFacts(session={"o": "s1", "m": "s2"}, length={"o": 30, "m": 30},
                      speaker={"o": "caroline", "m": "melanie"}, bm25={"o": 5.0, "m": 5.0})
    ids, x = features(lists, {"bm25": 1.0, "vector": 1.0}, 5, turns, named=["melanie"])
    assert order(ids, x, learned_fusion.load_weights())[0] == "m"


def test_the_scorer_skips_user_assistant_memories_unless_recording_is_forced():
    assert learned_fusion.applies(np.array([False, False]))
    assert not learned_fusion.applies(np.array([True, False]))
    with learned_fusion.recording(force=True):
        assert learned_fusion.applies(np.array([True, False]))


def test_fit_is_deterministic_and_weighs_the_informative_feature_up():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(400, len(FEATURES)))
    question = np.repeat(np.arange(20), 20)
    y = (x[:, FEATURES.index("session_rrf")] + 0.3 * rng.normal(size=400) > 1.0).astype(float)
    first, second = fit_fusion.fit(x, y, question), fit_fusion.fit(x, y, question)
    assert np.array_equal(first.coef, second.coef)
    assert int(np.argmax(first.coef)) == FEATURES.index("session_rrf")
    assert FusionWeights.from_json(json.loads(json.dumps(first.to_json()))).coef.tolist() == first.coef.tolist()


def test_weights_fitted_on_other_features_are_refused():
    data = learned_fusion.load_weights().to_json() | {"features": ["rrf"]}
    with pytest.raises(ValueError, match="refit"):
        FusionWeights.from_json(data)


def test_recall_at_counts_gold_among_the_best_scored():
    scores = np.array([0.9, 0.1, 0.5, 0.8, 0.2])
    y = np.array([1.0, 1.0, 0.0, 0.0, 1.0])
    question = np.array([0, 0, 0, 1, 1])
    assert fit_fusion.recall_at(scores, y, question, np.array([2, 2]), k=2).tolist() == [0.5, 0.5]


def _write_named(memory):
    texts = [("Caroline", "We hiked the glacier trail in the Alps."),
             ("Melanie", "The Alps trip was cold but the glacier was lovely."),
             ("Caroline", "I baked bread on Sunday."), ("Melanie", "My cat sleeps on the sofa."),
             ("Caroline", "Glacier water is very cold.")]
    for i, (speaker, text) in enumerate(texts):
        memory.write("p", [{"role": "user", "speaker": speaker, "content": text}], f"2024-03-{i + 1:02d}")


def test_the_learned_recipe_is_wired_and_orders_the_packet_turns(memory, monkeypatch):
    _write_named(memory)
    recipe = get_recipe("hybrid_learned")
    assert recipe.fusion == Fusion.LEARNED
    question = "Where did Melanie see the glacier?"
    with learned_fusion.recording() as log:
        packet = memory.search("p", question, now=NOW, recipe=recipe)
    ids, x = log[-1]
    by_uuid = {e.uuid: e.content for e in memory.inspect().episodes("p")}
    expected = [by_uuid[u] for u in order(ids, x, learned_fusion.load_weights())]
    assert [e.content for e in packet.episodes] == expected[: len(packet.episodes)]
    reverse = FusionWeights(np.zeros(len(FEATURES)), np.ones(len(FEATURES)), -np.eye(len(FEATURES))[FEATURES.index("rrf")])
    monkeypatch.setattr(learned_fusion, "load_weights", lambda: reverse)
    flipped = memory.search("p", question, now=NOW, recipe=recipe)
    rrf_packet = memory.search("p", question, now=NOW, recipe=recipe.model_copy(update={"fusion": Fusion.RRF}))
    assert [e.content for e in flipped.episodes] != [e.content for e in rrf_packet.episodes]


def test_a_user_assistant_memory_keeps_the_rrf_order(memory):
    for i, text in enumerate(["We hiked the glacier trail.", "Glacier water is cold.", "I baked bread."]):
        memory.write("p", [{"role": "user", "speaker": "user", "content": text}], f"2024-03-{i + 1:02d}")
    with learned_fusion.recording() as log:
        learned = memory.search("p", "Where did I see the glacier?", now=NOW, recipe=get_recipe("hybrid_learned"))
    plain = memory.search("p", "Where did I see the glacier?", now=NOW,
                          recipe=get_recipe("hybrid_learned").model_copy(update={"fusion": Fusion.RRF}))
    assert log == []
    assert [e.content for e in learned.episodes] == [e.content for e in plain.episodes]


def test_learned_fusion_is_the_default_and_the_ablation_turns_it_off():
    from graphmem.evals.systems.registry import ABLATIONS, BUILDERS
    from graphmem.retrieval.recipes import DEFAULT_RECIPE

    assert DEFAULT_RECIPE.fusion == Fusion.LEARNED
    assert get_recipe("bm25_only").fusion == get_recipe("vector_only").fusion == Fusion.RRF
    assert ABLATIONS["no_learned"].fusion == Fusion.RRF and "graphmem:no_learned" in BUILDERS
