"""The turn vector list: FalkorDB's approximate index by default, exact cosine over the
stored turn vectors with `exact_turn_vectors` (the same turns whatever order the index was
built in), and in scope either way."""

from __future__ import annotations

import numpy as np

from graphmem.graph import cypher as q
from graphmem.retrieval.index import build
from graphmem.retrieval.recipes import DEFAULT_RECIPE
from graphmem.retrieval.scoped import narrow
from graphmem.retrieval.session_dense import SessionVectors
from graphmem.retrieval.turn_vectors import nearest_turns
from graphmem.retrieval.turn_views import TurnTable

NOW = "2024-09-01"
ROWS = [{"uuid": u, "session_id": s, "speaker": "user", "session_time": None}
        for u, s in (("a1", "A"), ("a2", "A"), ("b1", "B"), ("b2", "B"), ("c1", "C"))]
TABLE = TurnTable.of([r["uuid"] for r in ROWS], ROWS)


def test_nearest_is_exact_cosine_best_first_and_skips_turns_without_a_vector():
    vectors = {"a1": [1.0, 0.0], "a2": [0.0, 3.0], "b1": [1.0, 1.0], "c1": [-1.0, 0.2]}  # b2 has none
    sv = SessionVectors.of(TABLE, vectors)
    got = sv.nearest(TABLE, [2.0, 1.0], 10)
    assert [u for u, _ in got] == ["b1", "a1", "a2", "c1"]
    unit = np.array([2.0, 1.0]) / np.sqrt(5)
    assert np.isclose(got[0][1], (np.array([1.0, 1.0]) / np.sqrt(2)) @ unit)
    assert sv.nearest(TABLE, [2.0, 1.0], 2) == got[:2]
    assert sv.nearest(TABLE, [2.0, 1.0], 0) == []


def test_ties_keep_table_order():
    sv = SessionVectors.of(TABLE, {u: [1.0, 0.0] for u in ("a1", "a2", "b1", "b2", "c1")})
    assert [u for u, _ in sv.nearest(TABLE, [1.0, 0.0], 3)] == ["a1", "a2", "b1"]


def _write(memory, scope=None, user="u"):
    topics = ["I baked sourdough bread with rye flour.", "The ferry to the island was cancelled again.",
              "My knee hurts after the marathon.", "We adopted a grey kitten called Miso.",
              "The quarterly budget review is on Thursday.", "I repotted the basil and the mint."]
    for n, text in enumerate(topics):
        args = {"scope": scope} if scope else {}
        memory.write(user, [{"role": "user", "content": text}, {"role": "assistant", "content": f"Noted: {text}"}],
                     f"2024-0{n + 1}-02", session_id=f"s{n}{scope or ''}", **args)


def _indexes(memory, user="u"):
    version = int(memory.store.run(user, q.graph_version(), read_only=True)[0]["version"])
    return build(memory.store, user, version)


def _brute_force(memory, user, question, uuids=None):
    rows = memory.store.run(user, q.episode_vectors(), read_only=True)
    v = memory.embedder.embed([question])[0]
    v = v / np.linalg.norm(v)
    sims = {r["uuid"]: float(np.asarray(r["v"]) @ v / np.linalg.norm(r["v"])) for r in rows
            if uuids is None or r["uuid"] in uuids}
    return sorted(sims, key=lambda u: -sims[u])


def test_the_default_list_is_the_brute_force_ranking_of_the_stored_vectors(memory):
    _write(memory)
    idx = _indexes(memory)
    question = "What did we name the cat we adopted?"
    vector = memory.embedder.embed([question])[0].tolist()
    exact = nearest_turns(memory.store, "u", idx, vector, 50, exact=True)
    assert [u for u, _ in exact] == _brute_force(memory, "u", question)
    ann = nearest_turns(memory.store, "u", idx, vector, 50, exact=False)
    assert {u for u, _ in ann} <= {u for u, _ in exact}  # the index holds the same turns
    assert exact[0][0] == ann[0][0]  # and agrees on the plain case


def test_the_exact_list_stays_in_the_searched_scopes(memory):
    _write(memory)
    _write(memory, scope="project:apollo")
    idx, view = narrow(memory.store, "u", _indexes(memory), ["project:apollo"])
    inside = set(idx.turns.uuids)
    question = "What did we name the cat we adopted?"
    vector = memory.embedder.embed([question])[0].tolist()
    exact = nearest_turns(memory.store, "u", idx, vector, 50, exact=True, view=view)
    assert [u for u, _ in exact] == _brute_force(memory, "u", question, inside)
    assert len(inside) == 12 and len(exact) == 12


def test_the_exact_recipe_sends_no_turn_vector_query_and_the_default_does(memory, monkeypatch):
    _write(memory)
    sent = []
    real = memory.store.run
    monkeypatch.setattr(memory.store, "run", lambda user, query, **kw: sent.append(query.cypher) or real(user, query, **kw))
    question = "What did we name the cat we adopted?"
    exact = memory.search("u", question, now=NOW, recipe="hybrid_exact_turns")
    assert not any("queryNodes('Episodic'" in cypher for cypher in sent)
    assert "Miso" in exact.to_prompt()
    sent.clear()
    default = memory.search("u", question, now=NOW, recipe=DEFAULT_RECIPE)
    assert any("queryNodes('Episodic'" in cypher for cypher in sent)
    assert "Miso" in default.to_prompt()


def test_the_harness_names_the_exact_recipe():
    from graphmem.evals.systems.registry import ABLATIONS
    from graphmem.retrieval.recipes import HYBRID_EXACT_TURNS, get_recipe

    assert ABLATIONS["exact_turns"] is HYBRID_EXACT_TURNS is get_recipe("hybrid_exact_turns")
    assert HYBRID_EXACT_TURNS.exact_turn_vectors and not DEFAULT_RECIPE.exact_turn_vectors


def test_the_exact_window_recipe_is_both_opt_ins_and_searches_without_the_index(memory, monkeypatch):
    from graphmem.evals.systems.registry import ABLATIONS
    from graphmem.retrieval.recipes import HYBRID_EXACT_WINDOW, HYBRID_WINDOW_TIME_PRIOR, get_recipe

    assert ABLATIONS["exact_window"] is HYBRID_EXACT_WINDOW is get_recipe("hybrid_exact_window")
    assert HYBRID_EXACT_WINDOW.exact_turn_vectors
    assert HYBRID_EXACT_WINDOW.time_prior_window == HYBRID_WINDOW_TIME_PRIOR.time_prior_window > 0
    _write(memory)
    sent = []
    real = memory.store.run
    monkeypatch.setattr(memory.store, "run", lambda user, query, **kw: sent.append(query.cypher) or real(user, query, **kw))
    packet = memory.search("u", "What did we name the cat we adopted in April?", now=NOW, recipe=HYBRID_EXACT_WINDOW)
    assert not any("queryNodes('Episodic'" in cypher for cypher in sent)
    assert "Miso" in packet.to_prompt()
