"""Named search recipes: frozen configurations, like Graphiti's.

A recipe says which candidate lists feed the fusion and with what weight, how
many candidates each list brings, and which reranker orders the result.
The default's weights and ``rrf_k`` were picked on the LoCoMo evidence
recall of `bench/retrieval.py` (a small RRF k rewards lists' top ranks; turns
next to the best hits carry the answer often enough to weigh 0.5).
Per-call changes go through ``model_copy(update=...)``; nothing here is ever
mutated, so one caller's tweak cannot leak into the next (Graphiti's `search()`
writes `limit` into a shared module-level recipe).

List names and rerankers are enums (`FactList`, `TurnList`, `Reranker`): a
misspelt key fails validation, naming the valid ones, instead of silently
dropping a candidate list. Valid strings still parse ("bm25" -> FactList.BM25).
``model_copy(update=...)`` does not validate, so `Memory.search` passes every
recipe through `validate_recipe` first.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from graphmem.schema.errors import InvalidInput
from graphmem.retrieval.feedback import FeedbackConfig
from graphmem.retrieval.session_dense import SessionPriorConfig
from graphmem.retrieval.session_rank import SessionTailConfig


class FactList(StrEnum):
    """Candidate lists of facts: BM25 over fact text, MiniLM similarity, and the
    facts within `bfs_hops` of the entities the question names."""

    BM25 = "bm25"
    VECTOR = "vector"
    BFS = "bfs"


class TurnList(StrEnum):
    """Candidate lists of turns: BM25, similarity, the sources of the found facts,
    the turns mentioning the named entities, the turns next to the best hits, and
    the speaker view of `retrieval.turn_views` (the named speakers' own turns by
    BM25 and by MiniLM) and its self view (the user's own turns, for a
    first-person question)."""

    BM25 = "bm25"
    VECTOR = "vector"
    FACTS = "facts"
    MENTIONS = "mentions"
    NEIGHBOURS = "neighbours"
    SPEAKER = "speaker"
    SPEAKER_VECTOR = "speaker_vector"
    SELF = "self"
    SELF_VECTOR = "self_vector"


class Reranker(StrEnum):
    """How the fused facts are ordered last (`retrieval.fusion`, `retrieval.decay`)."""

    RRF = "rrf"
    MMR = "mmr"
    NODE_DISTANCE = "node_distance"
    DECAY = "decay"
    EPISODE_MENTIONS = "episode_mentions"


class Fusion(StrEnum):
    """How the turn lists become one order: weighted RRF, or the linear scorer of
    `retrieval.learned_fusion` fitted on the tuning halves' evidence labels."""

    RRF = "rrf"
    LEARNED = "learned"


class SearchRecipe(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    candidates: int = Field(50, description="how many candidates each list brings")
    rrf_k: int = Field(5, description="chosen on LoCoMo evidence recall (bench retrieval); 60 scored 0.58 at k=10")
    fact_weights: dict[FactList, float] = Field(
        default_factory=lambda: {FactList.BM25: 1.0, FactList.VECTOR: 1.0, FactList.BFS: 0.5},
        description="fact lists to fuse and their RRF weights; a list not named is not searched",
    )
    turn_weights: dict[TurnList, float] = Field(
        default_factory=lambda: {TurnList.BM25: 1.2, TurnList.VECTOR: 1.0, TurnList.FACTS: 0.3,
                                 TurnList.MENTIONS: 0.1, TurnList.NEIGHBOURS: 0.5,
                                 TurnList.SELF: 1.0, TurnList.SELF_VECTOR: 1.0},
        description="turn lists to fuse and their RRF weights; a list not named is not searched",
    )
    bfs_hops: int = 1
    neighbour_seeds: int = Field(3, description="top hits of each turn list whose adjacent turns join")
    reranker: Reranker = Reranker.RRF
    mmr_lambda: float = 0.7
    max_turn_chars: int = 400
    time_filter: bool = Field(True, description="keep facts by the question's time mode; off only for the no_time ablation")
    time_prior: float = Field(1.0, ge=0.0, description="RRF weight of the turns of sessions dated in the question's named time (`retrieval.time_prior`); 0 is off; chosen on the LoCoMo tuning split, checked on reporting and LongMemEval (docs/retrieval-rounds.md)")
    time_prior_window: float = Field(0.0, ge=0.0, description="when above 0, the time list's weight is `time_prior` "
                                     "times max(1, this / the sessions dated in the named time) "
                                     "(`time_prior.window_weight`): a named time holding few sessions outweighs word "
                                     "matches; weighted-RRF fusion only; 0 (the default) keeps `time_prior`; opt-in, "
                                     "issue 12's twelfth round: no tuning question gained (docs/retrieval-rounds.md)")
    time_prior_until_now: bool = Field(False, description="the time prior's range is cut at the question's `now` "
                                       "(`retrieval.time_prior.until`): a named time after `now` gets no list; docs/retrieval-rounds.md, "
                                       "eighth round")
    fact_turn_stride: int = Field(0, ge=0, description="the best source turn of fact i ranks at i * stride or better (`retrieval.fact_turns`); 0 is off")
    session_cap: int = Field(0, ge=0, description="at most this many turns of one session among the first `limit` (`retrieval.session_cap`); 0 is off")
    fusion: Fusion = Field(Fusion.LEARNED, description="how the turn lists are fused; LEARNED: the linear scorer of "
                           "`retrieval.learned_fusion` in named-speaker memories (RRF in user-assistant ones); kept on "
                           "the LoCoMo tuning split (docs/retrieval-rounds.md, fifth round); RRF is plain weighted RRF")
    feedback: FeedbackConfig | None = Field(
        default_factory=lambda: FeedbackConfig(docs=5, terms=10, weight=0.25),
        description="BM25 pseudo-relevance feedback replacing the turn BM25 list (`retrieval.feedback`); None is off; "
                    "settings fixed in advance, kept on the LongMemEval tuning half and LoCoMo tuning split (docs/retrieval-rounds.md)")
    chat_neighbours: Literal["all", "user", "none"] = Field(
        "all", description="the neighbour list in user-assistant memories (any turn spoken by `user`): all of it, "
                           "only the user's own turns, or none; named-speaker memories keep all; docs/retrieval-rounds.md, sixth round")
    query_parts: float = Field(
        1.0, ge=0.0, description="RRF weight of the question-parts list (`retrieval.query_parts`: BM25 per part of a "
                                 "question naming several things, interleaved); 0 is off; weighted-RRF fusion only; "
                                 "docs/retrieval-rounds.md, seventh round")
    other_turns: float = Field(
        0.7, gt=0.0, le=1.0, description="in a user-assistant memory, the fused RRF score of a turn the user did not "
                                         "speak is multiplied by this (`retrieval.query_parts.own_turns_first`); 1 is "
                                         "off; weighted-RRF fusion only; chosen on the LME tuning half (docs/retrieval-rounds.md, "
                                         "seventh round)")
    session_prior: SessionPriorConfig | None = Field(
        None, description="sessions ranked by the centroid of their stored turn vectors reorder the fused turns "
                          "(`retrieval.session_dense`); None is off; opt-in (docs/retrieval-rounds.md, sixth round)")
    abstain_names: Literal["proper", "all", "stored"] = Field(
        "stored", description="which of the question's known names abstention masks and leaves out of the topic "
                              "words: the ones written capitalised (`retrieval.abstention.proper_names`), every "
                              "entity name the question holds, common nouns too (before issue 12's ninth round), "
                              "or the ones the graph stores spelt as proper names (`abstention.spelt_as_name`)")
    abstain_exchange: bool = Field(
        True, description="abstention's topic-word coverage reads each turn with the turns just before and after "
                          "it in its session (`retrieval.abstention.exchange_coverage`); False: the single best "
                          "turn or fact, as before issue 12's ninth round")
    abstain_window: int = Field(
        2, ge=1, le=4, description="with `abstain_exchange`, how many turns on each side of a turn its coverage "
                                   "reads (`TurnTable.near`): 2 reads a question, a reply, a follow-up and the "
                                   "answer together (issue 12's tenth round); 1 is the ninth round's exchange")
    exact_turn_vectors: bool = Field(
        False, description="True: the turn vector list and abstention's best turn similarity are exact cosine over "
                           "the turn vectors held in memory (`retrieval.turn_vectors`), the same whatever order "
                           "FalkorDB's approximate index was built in; opt-in: it lost one LME tuning question at "
                           "rank 11 (issue 12's twelfth round, docs/retrieval-rounds.md)")
    session_tail: SessionTailConfig | None = Field(
        default_factory=SessionTailConfig,
        description="the turns after the first `head` (10) cover the best sessions: ranked by RRF of their fused "
                    "first appearance, their documents' BM25, their best turns' cosine and, for a named time, the "
                    "sessions dated in it (`retrieval.session_rank`); None is off; kept on the LoCoMo tuning split "
                    "and the LME tuning half (docs/retrieval-rounds.md, eighth round)")


HYBRID_RRF = SearchRecipe(name="hybrid_rrf")
HYBRID_MMR = SearchRecipe(name="hybrid_mmr", reranker=Reranker.MMR)
BM25_ONLY = SearchRecipe(
    name="bm25_only",
    time_prior=0.0,
    session_tail=None,
    query_parts=0.0,
    other_turns=1.0,
    fusion=Fusion.RRF,
    feedback=None,
    fact_weights={FactList.BM25: 1.0},
    turn_weights={TurnList.BM25: 1.0, TurnList.FACTS: 0.5},
)
VECTOR_ONLY = SearchRecipe(
    name="vector_only",
    time_prior=0.0,
    session_tail=None,
    query_parts=0.0,
    other_turns=1.0,
    fusion=Fusion.RRF,
    feedback=None,
    fact_weights={FactList.VECTOR: 1.0},
    turn_weights={TurnList.VECTOR: 1.0, TurnList.FACTS: 0.5},
)
GRAPH_HEAVY = SearchRecipe(
    name="graph_heavy",
    bfs_hops=2,
    fact_weights={FactList.BM25: 1.0, FactList.VECTOR: 1.0, FactList.BFS: 1.0},
    turn_weights={TurnList.BM25: 1.0, TurnList.VECTOR: 1.0, TurnList.FACTS: 1.0,
                  TurnList.MENTIONS: 0.6, TurnList.NEIGHBOURS: 0.5},
)

HYBRID_DECAY = SearchRecipe(name="hybrid_decay", reranker=Reranker.DECAY)
# The speaker view (`retrieval.turn_views`): +0.019 recall@10 on the LoCoMo tuning
# split, -0.001 and session any@10 -0.012 on the reporting split, no change on
# LongMemEval (docs/retrieval-rounds.md), so it is opt-in, not the default.
HYBRID_SPEAKER = SearchRecipe(
    name="hybrid_speaker",
    turn_weights={TurnList.BM25: 1.2, TurnList.VECTOR: 1.0, TurnList.FACTS: 0.3, TurnList.MENTIONS: 0.1,
                  TurnList.NEIGHBOURS: 0.5, TurnList.SELF: 1.0, TurnList.SELF_VECTOR: 1.0,
                  TurnList.SPEAKER: 1.0, TurnList.SPEAKER_VECTOR: 1.0},
)

# Of three more ideas of issue 12 measured on the LoCoMo tuning split (docs/retrieval-rounds.md),
# the time prior (`time_prior`) helped there and on the
# reporting split and LongMemEval, so every recipe but the single-list ones has
# it; fact hits pulling their source turns up and a per-session cap on the top
# turns lost recall on tuning and stay opt-in.
HYBRID_FACT_TURNS = SearchRecipe(name="hybrid_fact_turns", fact_turn_stride=2)
HYBRID_SESSION_CAP = SearchRecipe(name="hybrid_session_cap", session_cap=3)
# RM3 feedback on the turn BM25 list (5 turns, 10 terms, weight 0.25, fixed in
# advance): LongMemEval tuning half recall@10 +0.023, LoCoMo tuning +0.001 (docs/retrieval-rounds.md,
# fourth round), so every recipe but the single-list ones has it;
# `hybrid_prf` names it explicitly, `graphmem:no_prf` is the ablation.
HYBRID_PRF = SearchRecipe(name="hybrid_prf", feedback=FeedbackConfig(docs=5, terms=10, weight=0.25))

# The turn lists fused by a linear scorer fitted on the LoCoMo tuning split
# (`retrieval.learned_fusion`, `graphmem.evals.fit_fusion`), in named-speaker
# memories only: LoCoMo tuning recall@10 0.716 -> 0.816 out of fold, LME tuning
# half unchanged (docs/retrieval-rounds.md, fifth round), so every recipe but
# the single-list ones has it; `graphmem:no_learned` is the ablation.
HYBRID_LEARNED = SearchRecipe(name="hybrid_learned", fusion=Fusion.LEARNED)

# Session centroids (`retrieval.session_dense`), opt-in: the first 10 fused turns stay,
# then one turn of each next session by RRF of fused rank and centroid rank until 10
# sessions are covered (`hybrid_session_tail`; `_own`: centroids of the user's own
# turns), or the top centroid sessions' best turns as one more RRF list
# (`hybrid_session_list`). Measured in issue 12's sixth round (docs/retrieval-rounds.md): session
# any@10 +0.005 / +0.000 (tail) on the LoCoMo tuning split / LME tuning half, short of
# the +0.01 its rule asked; the list cost R@10. Not kept.
# They reorder the same turns as the eighth round's `session_tail` (below), so they run without it:
# each names the sixth round's idea as it was measured.
HYBRID_SESSION_TAIL = SearchRecipe(name="hybrid_session_tail", session_prior=SessionPriorConfig(mode="tail"),
                                   session_tail=None)
HYBRID_SESSION_TAIL_OWN = SearchRecipe(name="hybrid_session_tail_own",
                                       session_prior=SessionPriorConfig(mode="tail", own=True), session_tail=None)
HYBRID_SESSION_LIST = SearchRecipe(name="hybrid_session_list",
                                   session_prior=SessionPriorConfig(mode="list", own=True, sessions=5, per_session=2,
                                                                    weight=0.5), session_tail=None)
# No neighbour list in user-assistant memories (a user turn's neighbours are the
# assistant's long answers, docs/retrieval-rounds.md: on LongMemEval the neighbours cost 0.022 R@10);
# named-speaker memories keep it. Opt-in, issue 12's sixth round: LME tuning half
# R@5 +0.043 but R@10 -0.020, so not kept.
HYBRID_NO_CHAT_NEIGHBOURS = SearchRecipe(name="hybrid_no_chat_neighbours", chat_neighbours="none")
# Only the user's own turns among the neighbours there: an assistant answer that matches
# the question's words brings the user turn before it, a user turn no longer brings the
# assistant's answer. Opt-in, issue 12's sixth round: LME tuning half R@5 +0.017,
# R@10 -0.003, so not kept.
HYBRID_USER_NEIGHBOURS = SearchRecipe(name="hybrid_user_neighbours", chat_neighbours="user")

# Issue 12's seventh round (`retrieval.query_parts`, docs/retrieval-rounds.md): the
# question-parts list and the user's own turns first, both in the default recipe; these
# two name the default without one of them (the ablations `graphmem:no_parts`,
# `graphmem:no_own_first` of the round's runs).
HYBRID_NO_PARTS = SearchRecipe(name="hybrid_no_parts", query_parts=0.0)
HYBRID_NO_OWN_FIRST = SearchRecipe(name="hybrid_no_own_first", other_turns=1.0)

# Issue 12's eighth round (`retrieval.session_rank`, docs/retrieval-rounds.md): the turns
# after the first 10 cover the best sessions (session any@10 LoCoMo tuning +0.007, LME tuning
# half +0.020, recall@10 unchanged by construction), in the default recipe;
# `hybrid_no_session_tail` is the default without it (ablation `graphmem:no_session_tail`).
# The time prior cut at the question's `now` changed no figure on either tuning set: opt-in
# (`hybrid_time_until_now`, `graphmem:time_until_now`).
HYBRID_NO_SESSION_TAIL = SearchRecipe(name="hybrid_no_session_tail", session_tail=None)
HYBRID_TIME_UNTIL_NOW = SearchRecipe(name="hybrid_time_until_now", time_prior_until_now=True)

# Issue 12's ninth round (docs/retrieval-rounds.md): abstention masks proper names only, so
# a common-noun entity ("car", "running") stays the question's topic; this names the default
# with every known name masked, as before (ablation `graphmem:mask_all_names`).
HYBRID_MASK_ALL_NAMES = SearchRecipe(name="hybrid_mask_all_names", abstain_names="all")
# ... and its topic-word coverage reads a turn with its neighbours (an exchange); this names the
# default with single-turn coverage, as before (ablation `graphmem:single_turn_coverage`).
HYBRID_SINGLE_TURN_COVERAGE = SearchRecipe(name="hybrid_single_turn_coverage", abstain_exchange=False)
# ... and that exchange is two turns on each side (question, reply, follow-up, answer; tenth round):
# this names the one-turn exchange of the ninth round (ablation `graphmem:no_wide_coverage`).
HYBRID_NO_WIDE_COVERAGE = SearchRecipe(name="hybrid_no_wide_coverage", abstain_window=1)

# ... and sessions rank by the mean cosine of their best three turns (eleventh round): this names the
# best single turn, as before (ablation `graphmem:best_turn_sessions`).
HYBRID_BEST_TURN_SESSIONS = SearchRecipe(name="hybrid_best_turn_sessions",
                                         session_tail=SessionTailConfig(dense_turns=1))

# ... and abstention's names are the ones the graph stores spelt as proper names ("Maria", not "car";
# eleventh round), whatever the question's case: this names the question's case deciding, as in the
# ninth and tenth rounds (ablation `graphmem:question_case_names`).
HYBRID_QUESTION_CASE_NAMES = SearchRecipe(name="hybrid_question_case_names", abstain_names="proper")

# Issue 12's twelfth round: the time list weighs more when the named time holds few sessions
# (`time_prior.window_weight`, scale 10). On the LME tuning half it moved "four weeks ago" from the
# 10th cited session to the 3rd but gained no question (LoCoMo's learned fusion never reads it), so
# it is opt-in (`graphmem:window_time_prior`).
HYBRID_WINDOW_TIME_PRIOR = SearchRecipe(name="hybrid_window_time_prior", time_prior_window=10.0)

# Exact cosine for the turn vector list instead of FalkorDB's approximate index (twelfth round):
# reproducible across reloads, but -1 question on the LME tuning half, so opt-in.
HYBRID_EXACT_TURNS = SearchRecipe(name="hybrid_exact_turns", exact_turn_vectors=True)

# The two together (thirteenth round): exact cosine takes the index's noise out of the window weight's
# test. Equal to the default's better run on the tuning sets, R@25 -0.017 on the LME tuning half, so
# opt-in (`graphmem:exact_window`).
HYBRID_EXACT_WINDOW = SearchRecipe(name="hybrid_exact_window", exact_turn_vectors=True, time_prior_window=10.0)

RECIPES = {r.name: r for r in (HYBRID_RRF, HYBRID_MMR, BM25_ONLY, VECTOR_ONLY, GRAPH_HEAVY, HYBRID_DECAY, HYBRID_SPEAKER,
                               HYBRID_FACT_TURNS, HYBRID_SESSION_CAP, HYBRID_PRF, HYBRID_LEARNED,
                               HYBRID_SESSION_TAIL, HYBRID_SESSION_TAIL_OWN, HYBRID_SESSION_LIST,
                               HYBRID_NO_CHAT_NEIGHBOURS, HYBRID_USER_NEIGHBOURS, HYBRID_NO_PARTS,
                               HYBRID_NO_OWN_FIRST, HYBRID_NO_SESSION_TAIL, HYBRID_TIME_UNTIL_NOW,
                               HYBRID_MASK_ALL_NAMES, HYBRID_SINGLE_TURN_COVERAGE, HYBRID_NO_WIDE_COVERAGE,
                               HYBRID_BEST_TURN_SESSIONS, HYBRID_QUESTION_CASE_NAMES, HYBRID_WINDOW_TIME_PRIOR,
                               HYBRID_EXACT_TURNS, HYBRID_EXACT_WINDOW)}
DEFAULT_RECIPE = HYBRID_RRF


def get_recipe(name: str) -> SearchRecipe:
    """The named recipe; an unknown name raises `InvalidInput` listing the names."""
    try:
        return RECIPES[name]
    except KeyError:
        raise InvalidInput(f"unknown recipe {name!r}; choose one of {sorted(RECIPES)}") from None


def validate_recipe(recipe: SearchRecipe) -> SearchRecipe:
    """`recipe` validated again, as `model_copy(update=...)` skips validation:
    string keys become enums and a misspelt one raises `InvalidInput`.

    Example:
        >>> validate_recipe(HYBRID_RRF.model_copy(update={"fact_weights": {"bm52": 1.0}}))
        Traceback (most recent call last):
        graphmem.schema.errors.InvalidInput: invalid search recipe 'hybrid_rrf': fact_weights.bm52.[key]: Input should be 'bm25', 'vector' or 'bfs'
    """
    try:
        return SearchRecipe.model_validate(dict(recipe))
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise InvalidInput(f"invalid search recipe {recipe.name!r}: {problems}") from exc
