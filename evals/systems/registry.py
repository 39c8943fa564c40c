"""System names on the command line -> `MemorySystem` instances.

``graphmem:<ablation>`` runs graphmem with one part of its search switched off,
each a variant of the default recipe (`graphmem.retrieval.recipes`):

- ``no_bm25``: no BM25 list, over facts or turns (nor the self view's);
- ``no_vectors``: no MiniLM similarity list, over facts or turns (nor the self view's);
- ``no_graph``: no graph traversal: no facts around named entities (BFS), no
  turns that mention them, no turns reached through retrieved facts;
- ``no_neighbours``: no NEXT_EPISODE neighbours of the best turns;
- ``no_time``: facts are not kept or dropped by the question's time mode;
- ``speaker``: the speaker view added (the named speakers' own turns,
  `retrieval.turn_views`; the ``hybrid_speaker`` recipe, opt-in);
- ``no_time_prior``: no list of the turns of sessions dated in the question's
  named time (`retrieval.time_prior`; in the default since issue 12's second round);
- ``fact_turns``: fact hits pull their best source turn up (`retrieval.fact_turns`;
  ``hybrid_fact_turns``, opt-in);
- ``session_cap``: at most 3 turns of a session among the first results
  (`retrieval.session_cap`; ``hybrid_session_cap``, opt-in);
- ``prf``: BM25 pseudo-relevance feedback (RM3: 5 turns, 10 terms, weight 0.25)
  replacing the turn BM25 list (`retrieval.feedback`; ``hybrid_prf``; the same
  search as the default since issue 12's fourth round, kept so its commands rerun);
- ``no_prf``: no pseudo-relevance feedback on the turn BM25 list;
- ``learned``: the turn lists fused by the linear scorer fitted on the tuning
  split instead of fixed-weight RRF, in named-speaker memories
  (`retrieval.learned_fusion`; ``hybrid_learned``; the same search as the default
  since issue 12's fifth round, kept so its commands rerun);
- ``no_learned``: fixed-weight RRF for the turn lists everywhere;
- ``session_tail`` / ``session_tail_own`` / ``session_list``: sessions ranked by the
  centroid of their stored turn vectors (all turns / the user's own) reorder the
  fused turns after the first 10, or add their best turns as one more RRF list
  (`retrieval.session_dense`; opt-in, issue 12's sixth round);
- ``no_chat_neighbours`` / ``user_neighbours``: in user-assistant memories only, no
  neighbour list / only the user's own turns in it (``hybrid_no_chat_neighbours``,
  ``hybrid_user_neighbours``; opt-in, issue 12's sixth round);
- ``no_parts`` / ``no_own_first``: in user-assistant memories, no list of the
  question's parts ranked apart (`retrieval.query_parts`) / the assistant's turns not
  weighed down (``hybrid_no_parts``, ``hybrid_no_own_first``; both in the default since
  issue 12's seventh round);
- ``no_session_tail``: the turns after the first 10 keep the fused order instead of covering the
  best sessions (`retrieval.session_rank`; ``hybrid_no_session_tail``; in the default since
  issue 12's eighth round);
- ``time_until_now``: the time prior's range cut at the question's ``now``
  (`retrieval.time_prior.until`; ``hybrid_time_until_now``, opt-in, eighth round);
- ``mask_all_names``: abstention masks every known name of the question, common-noun
  entities ("car") too, as before issue 12's ninth round (``hybrid_mask_all_names``;
  the default masks proper names only, `retrieval.abstention.proper_names`);
- ``single_turn_coverage``: abstention's topic-word coverage from the single best turn or
  fact, as before issue 12's ninth round (``hybrid_single_turn_coverage``; the default reads
  each turn with its neighbours, `retrieval.abstention.exchange_coverage`);
- ``no_wide_coverage``: that coverage reads one turn on each side of a turn (the exchange of
  issue 12's ninth round; ``hybrid_no_wide_coverage``) instead of the default's two
  (`SearchRecipe.abstain_window`, tenth round);
- ``best_turn_sessions``: the session tail ranks sessions by their best turn's cosine, as before
  issue 12's eleventh round (``hybrid_best_turn_sessions``), instead of the default's mean of the
  best three turns (`SessionTailConfig.dense_turns`);
- ``question_case_names``: abstention's names are the known names the question writes
  capitalised (every known name in a question with no capital after its first letter), as in
  issue 12's ninth and tenth rounds (``hybrid_question_case_names``), instead of the default's
  names the graph stores spelt as proper names (`retrieval.abstention.spelt_as_name`);
- ``window_time_prior``: the time list's RRF weight (`retrieval.time_prior`) grown as the named
  time holds fewer sessions, max(1, 10 / sessions) (``hybrid_window_time_prior``,
  `SearchRecipe.time_prior_window`; opt-in, issue 12's twelfth round: no tuning question gained);
- ``exact_turns``: the turn vector list (and abstention's best turn similarity) by exact cosine
  over the turn vectors in memory instead of FalkorDB's approximate vector index
  (``hybrid_exact_turns``, `SearchRecipe.exact_turn_vectors`; issue 12's twelfth round);
- ``exact_window``: ``exact_turns`` and ``window_time_prior`` together (``hybrid_exact_window``;
  issue 12's thirteenth round: no tuning question gained over the default's better run);
- ``mmr``: MMR instead of plain RRF order for facts (the ``hybrid_mmr`` recipe).

Example:
    >>> from pathlib import Path
    >>> recipe = make_system("graphmem:no_bm25", SystemConfig(work_dir=Path("/tmp/x"))).recipe
    >>> sorted(str(name) for name in recipe.turn_weights)
    ['facts', 'mentions', 'neighbours', 'self_vector', 'vector']
"""

from __future__ import annotations

from collections.abc import Callable

from graphmem.schema.errors import InvalidInput
from graphmem.evals.systems.base import MemorySystem, SystemConfig
from graphmem.retrieval.recipes import (
    DEFAULT_RECIPE, HYBRID_FACT_TURNS, HYBRID_LEARNED, HYBRID_MMR, HYBRID_PRF, HYBRID_SESSION_CAP,
    HYBRID_NO_CHAT_NEIGHBOURS, HYBRID_NO_OWN_FIRST, HYBRID_NO_PARTS, HYBRID_NO_SESSION_TAIL, HYBRID_TIME_UNTIL_NOW, HYBRID_MASK_ALL_NAMES, HYBRID_NO_WIDE_COVERAGE, HYBRID_SINGLE_TURN_COVERAGE, HYBRID_BEST_TURN_SESSIONS, HYBRID_QUESTION_CASE_NAMES, HYBRID_WINDOW_TIME_PRIOR, HYBRID_EXACT_TURNS, HYBRID_EXACT_WINDOW, HYBRID_SESSION_LIST, HYBRID_SESSION_TAIL, HYBRID_USER_NEIGHBOURS, HYBRID_SESSION_TAIL_OWN, HYBRID_SPEAKER, Fusion, SearchRecipe,
)


def _without(name: str, *lists: str) -> SearchRecipe:
    r = DEFAULT_RECIPE
    return r.model_copy(update={
        "name": name,
        "fact_weights": {k: v for k, v in r.fact_weights.items() if k not in lists},
        "turn_weights": {k: v for k, v in r.turn_weights.items() if k not in lists},
    })


ABLATIONS: dict[str, SearchRecipe] = {
    "no_bm25": _without("no_bm25", "bm25", "self"),  # the self view ranks by BM25 and by MiniLM
    "no_vectors": _without("no_vectors", "vector", "self_vector"),
    "no_graph": _without("no_graph", "bfs", "mentions", "facts"),
    "no_neighbours": _without("no_neighbours", "neighbours"),
    "speaker": HYBRID_SPEAKER,
    "no_self": _without("no_self", "self", "self_vector"),
    "no_time": DEFAULT_RECIPE.model_copy(update={"name": "no_time", "time_filter": False}),
    "mmr": HYBRID_MMR,
    "no_time_prior": DEFAULT_RECIPE.model_copy(update={"name": "no_time_prior", "time_prior": 0.0}),
    "fact_turns": HYBRID_FACT_TURNS,
    "fact_turns1": HYBRID_FACT_TURNS.model_copy(update={"name": "fact_turns1", "fact_turn_stride": 1}),
    "session_cap": HYBRID_SESSION_CAP,
    "session_cap2": HYBRID_SESSION_CAP.model_copy(update={"name": "session_cap2", "session_cap": 2}),
    "prf": HYBRID_PRF,
    "learned": HYBRID_LEARNED,
    "no_learned": DEFAULT_RECIPE.model_copy(update={"name": "no_learned", "fusion": Fusion.RRF}),
    "no_prf": DEFAULT_RECIPE.model_copy(update={"name": "no_prf", "feedback": None}),
    "session_tail": HYBRID_SESSION_TAIL,
    "session_tail_own": HYBRID_SESSION_TAIL_OWN,
    "session_list": HYBRID_SESSION_LIST,
    "no_chat_neighbours": HYBRID_NO_CHAT_NEIGHBOURS,
    "user_neighbours": HYBRID_USER_NEIGHBOURS,
    "no_parts": HYBRID_NO_PARTS,
    "no_own_first": HYBRID_NO_OWN_FIRST,
    "no_session_tail": HYBRID_NO_SESSION_TAIL,
    "time_until_now": HYBRID_TIME_UNTIL_NOW,
    "mask_all_names": HYBRID_MASK_ALL_NAMES,
    "single_turn_coverage": HYBRID_SINGLE_TURN_COVERAGE,
    "no_wide_coverage": HYBRID_NO_WIDE_COVERAGE,
    "best_turn_sessions": HYBRID_BEST_TURN_SESSIONS,
    "question_case_names": HYBRID_QUESTION_CASE_NAMES,
    "window_time_prior": HYBRID_WINDOW_TIME_PRIOR,
    "exact_turns": HYBRID_EXACT_TURNS,
    "exact_window": HYBRID_EXACT_WINDOW,
}


def _graphmem(recipe: SearchRecipe) -> Callable[[str, SystemConfig], MemorySystem]:
    def build(name: str, config: SystemConfig) -> MemorySystem:
        from graphmem.evals.systems.graphmem_system import GraphmemSystem

        return GraphmemSystem(name, config, recipe)

    return build


def _lazy(module: str, cls: str) -> Callable[[str, SystemConfig], MemorySystem]:
    def build(name: str, config: SystemConfig) -> MemorySystem:
        import importlib

        return getattr(importlib.import_module(f"graphmem.evals.systems.{module}"), cls)(name, config)

    return build


def _rag(ranker: str) -> Callable[[str, SystemConfig], MemorySystem]:
    """Naive RAG's corpus ranked by one list alone (`rag.RagSystem`, ``options["ranker"]``)."""
    def build(name: str, config: SystemConfig) -> MemorySystem:
        from graphmem.evals.systems.rag import RagSystem

        return RagSystem(name, config.model_copy(update={"options": config.options | {"ranker": ranker}}))

    return build


BUILDERS: dict[str, Callable[[str, SystemConfig], MemorySystem]] = {
    "graphmem": _graphmem(DEFAULT_RECIPE),
    "graphiti": _lazy("graphiti_system", "GraphitiSystem"),
    "mem0": _lazy("mem0_system", "Mem0System"),
    "full_context": _lazy("full_context", "FullContextSystem"),
    "rag": _lazy("rag", "RagSystem"),
    "bm25": _rag("bm25"),
    "minilm": _rag("minilm"),
    "filesystem": _lazy("filesystem", "FilesystemSystem"),
} | {f"graphmem:{a}": _graphmem(recipe) for a, recipe in ABLATIONS.items()}

SYSTEM_NAMES: tuple[str, ...] = tuple(BUILDERS)
GRAPH_SHARERS = tuple(n for n in SYSTEM_NAMES if n == "graphiti" or n.startswith("graphmem"))


def check_names(names: list[str]) -> list[str]:
    """`names` unchanged if every one is known; else InvalidInput listing the valid ones."""
    unknown = [n for n in names if n not in BUILDERS]
    if unknown:
        raise InvalidInput(f"unknown system(s) {', '.join(unknown)}; choose from {', '.join(SYSTEM_NAMES)}")
    if not names:
        raise InvalidInput(f"no system named; choose from {', '.join(SYSTEM_NAMES)}")
    return names


def make_system(name: str, config: SystemConfig) -> MemorySystem:
    """The system called `name` (see SYSTEM_NAMES), with its own `config`."""
    check_names([name])
    return BUILDERS[name](name, config)
