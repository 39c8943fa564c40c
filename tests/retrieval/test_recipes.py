"""Recipes name their lists and rerankers with enums: a misspelt name fails loudly,
every named recipe validates, and search has a step for every member."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from graphmem import InvalidInput
from graphmem.retrieval import search as s
from graphmem.retrieval.query import analyze
from graphmem.retrieval.recipes import (
    DEFAULT_RECIPE,
    RECIPES,
    FactList,
    Reranker,
    SearchRecipe,
    TurnList,
    get_recipe,
    validate_recipe,
)
from graphmem.schema import time as t

NOW = "2024-09-15T12:00:00Z"
ALL_LISTS = DEFAULT_RECIPE.model_copy(
    update={"fact_weights": {f: 1.0 for f in FactList}, "turn_weights": {x: 1.0 for x in TurnList}}
)


@pytest.fixture
def caroline(memory):
    memory.write("c", [{"role": "user", "speaker": "Caroline", "content": "I live in Beijing."}], "2024-03-10")
    memory.write("c", [{"role": "user", "speaker": "Caroline", "content": "I adopted a dog named Rex."},
                       {"role": "user", "speaker": "Caroline", "content": "I moved to Shanghai last month."}],
                 "2024-07-10")
    return memory


def test_misspelt_list_key_fails_naming_the_valid_keys():
    with pytest.raises(ValidationError, match="'bm25', 'vector' or 'bfs'"):
        SearchRecipe(name="typo", fact_weights={"bm52": 1.0})
    with pytest.raises(ValidationError, match="'neighbours'"):
        SearchRecipe(name="typo", turn_weights={"neighbors": 0.5})
    with pytest.raises(ValidationError, match="'rrf'"):
        SearchRecipe(name="typo", reranker="cross_encoder")


def test_valid_strings_parse_to_the_enums():
    recipe = SearchRecipe(name="s", fact_weights={"bm25": 1.0}, turn_weights={"neighbours": 1.0}, reranker="mmr")
    assert list(recipe.fact_weights) == [FactList.BM25] and type(next(iter(recipe.fact_weights))) is FactList
    assert list(recipe.turn_weights) == [TurnList.NEIGHBOURS] and recipe.reranker is Reranker.MMR


@pytest.mark.parametrize("name", sorted(RECIPES))
def test_every_named_recipe_validates(name):
    recipe = get_recipe(name)
    assert recipe.name == name and validate_recipe(recipe) == recipe
    assert all(isinstance(k, FactList) for k in recipe.fact_weights)
    assert all(isinstance(k, TurnList) for k in recipe.turn_weights)
    assert isinstance(recipe.reranker, Reranker)


def test_search_refuses_a_misspelt_key_smuggled_in_by_model_copy(caroline):
    sloppy = DEFAULT_RECIPE.model_copy(update={"turn_weights": {"bm25": 1.0, "neighbors": 0.5}})
    with pytest.raises(InvalidInput, match="'neighbours'"):
        caroline.search("c", "Where do I live?", now=NOW, recipe=sloppy)
    assert [f.object for f in caroline.facts("c", subject="Caroline") if f.predicate == "LIVES_IN"] == ["Shanghai"]


def test_search_builds_a_candidate_list_for_every_list_member(caroline):
    ctx = s.RetrievalContext(store=caroline.store, embed=caroline._embed, indexes=caroline._indexes)
    idx = ctx.indexes.get(ctx.store, "c")
    plan = analyze("Where does Caroline live?", t.to_utc(NOW), None, idx.entity_uuids.keys())
    vector = ctx.embed([plan.text])[0].tolist()
    named = [idx.entity_uuids[k] for k in plan.entity_keys]
    fact_lists, _, _ = s._fact_lists(ctx, "c", idx, plan, vector, named, ALL_LISTS)
    assert set(fact_lists) == set(FactList) and all(fact_lists.values())
    facts = s._rank_facts(ctx, "c", s._fuse(fact_lists, ALL_LISTS.fact_weights, 5), plan, t.to_utc(NOW), None,
                          10, ALL_LISTS, {})
    turn_lists, _ = s._turn_lists(ctx, "c", idx, plan, vector, facts, named, ALL_LISTS, idx.episodes.scores(plan.text))
    # Caroline's memory has no `user` speaker, so the self view has nothing to add.
    assert set(turn_lists) == set(TurnList) - {TurnList.SELF, TurnList.SELF_VECTOR} and all(turn_lists.values())


def test_a_first_person_question_gets_the_users_own_turns_as_lists(memory):
    memory.write("u", [{"role": "user", "speaker": "user", "content": "I bought a red bike at the market."},
                       {"role": "assistant", "speaker": "assistant",
                        "content": "A bike market sells many bikes; red bikes and blue bikes are popular at a market."}],
                 "2024-03-10")
    memory.write("u", [{"role": "user", "speaker": "user", "content": "My sister plays the cello."},
                       {"role": "assistant", "speaker": "assistant", "content": "The cello is a lovely instrument."}],
                 "2024-04-10")
    for day, topic in enumerate(("rain in the hills", "a new phone", "the football final", "baking bread"), start=11):
        memory.write("u", [{"role": "user", "speaker": "user", "content": f"Tell me about {topic}."},
                           {"role": "assistant", "speaker": "assistant", "content": f"Here is a note on {topic}."}],
                     f"2024-05-{day}")
    ctx = s.RetrievalContext(store=memory.store, embed=memory._embed, indexes=memory._indexes)
    idx = ctx.indexes.get(ctx.store, "u")
    speaker = {r.uuid: r.speaker for r in memory.inspect().episodes("u")}
    for question, fires in (("Which bike did I buy at the market?", True), ("Which bike was bought at the market?", False)):
        plan = analyze(question, t.to_utc(NOW), None, idx.entity_uuids.keys())
        vector = ctx.embed([plan.text])[0].tolist()
        turn_lists, _ = s._turn_lists(ctx, "u", idx, plan, vector, [], [], DEFAULT_RECIPE,
                                      idx.episodes.scores(plan.text))
        assert (TurnList.SELF in turn_lists) is fires and (TurnList.SELF_VECTOR in turn_lists) is fires
        if fires:
            assert {speaker[u] for u in turn_lists[TurnList.SELF] + turn_lists[TurnList.SELF_VECTOR]} == {"user"}
            assert turn_lists[TurnList.SELF][0] == turn_lists[TurnList.SELF_VECTOR][0]
            assert speaker[turn_lists[TurnList.BM25][0]] == "assistant"


@pytest.mark.parametrize("reranker", list(Reranker))
def test_search_has_a_step_for_every_reranker(caroline, reranker):
    recipe = DEFAULT_RECIPE.model_copy(update={"reranker": reranker})
    packet = caroline.search("c", "Where does Caroline live?", now=NOW, recipe=recipe)
    assert "Shanghai" in [f.object for f in packet.facts]


def test_search_refuses_a_reranker_it_has_no_step_for(caroline):
    unknown = DEFAULT_RECIPE.model_copy(update={"reranker": "cross_encoder"})
    ctx = s.RetrievalContext(store=caroline.store, embed=caroline._embed, indexes=caroline._indexes)
    with pytest.raises(InvalidInput, match="cross_encoder"):
        s.search(ctx, "c", "Where does Caroline live?", now=t.to_utc(NOW), as_of=None, known_at=None,
                 limit=5, recipe=unknown)


@pytest.mark.parametrize("name", ["hybrid_fact_turns", "hybrid_session_cap"])
def test_opt_in_turn_rewrites_run_through_search(caroline, name):
    packet = caroline.search("c", "Where does Caroline live?", now=NOW, recipe=get_recipe(name))
    assert "Shanghai" in [f.object for f in packet.facts] and packet.episodes


def test_default_time_prior_ranks_the_turn_of_the_named_month_first(memory):
    memory.write("t", [{"role": "user", "speaker": "Caroline", "content": "We painted the garden fence."}], "2024-03-10")
    memory.write("t", [{"role": "user", "speaker": "Caroline",
                        "content": "What did I do? What did Caroline do? I did not do anything, I do nothing."}],
                 "2024-07-10")
    question = "What did Caroline do in March 2024?"
    plain = memory.search("t", question, now=NOW, recipe=DEFAULT_RECIPE.model_copy(update={"time_prior": 0.0}))
    dated = memory.search("t", question, now=NOW, recipe=DEFAULT_RECIPE)
    assert "fence" not in plain.episodes[0].content
    assert "fence" in dated.episodes[0].content
