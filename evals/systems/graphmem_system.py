"""graphmem itself: ``Memory.write`` per session, ``Memory.search`` per question.

A dataset's structured facts (the nested key-value pairs) are imported with
``Memory.add_fact`` after the sessions, each citing its turn.

The context is ``packet.to_prompt()`` and its turn ids ``packet.cited_turn_ids``.
Ablations differ only in the search recipe, so they (and the Graphiti offline
route) may share one graph: ``options["graph_dir"]`` names it, and a conversation
already written there (a marker file holding its content hash and ingest
stats) is not written again. Systems of a run open it one after another, never
at once.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

from graphmem import Memory
from graphmem.embedding.embedder import default_backend, embedder_for
from graphmem.evals.metrics import count_tokens
from graphmem.evals.systems._common import error_text, memory_id, sessions_in_time_order, stopwatch
from graphmem.evals.systems.base import Context, IngestStats, LLMEndpoint, SystemConfig
from graphmem.ingest.loaders import Conversation, Question
from graphmem.retrieval.recipes import DEFAULT_RECIPE, SearchRecipe
from graphmem.schema.errors import InvalidInput

SEARCH_LIMIT = 25


def conversation_hash(conversation: Conversation) -> str:
    return hashlib.sha256(conversation.model_dump_json(exclude={"questions"}).encode()).hexdigest()


def import_facts(memory: Memory, user: str, conversation: Conversation) -> int:
    """The dataset's structured facts (`Conversation.facts`), each citing the
    stored turn that states it and said when that turn was (an undated fact starts
    when it was said; at the import's wall clock it would not hold at the
    questions' times); single-valued, so a restated key keeps one value."""
    if not conversation.facts:
        return 0
    turns = {row.turn_id: row for row in memory.inspect().episodes(user)}
    for fact in conversation.facts:
        turn = turns.get(fact.turn_id)
        memory.add_fact(user, fact.subject, fact.predicate, fact.object, fact=fact.fact,
                        episodes=[turn.uuid] if turn else [], reference_time=turn.valid_at if turn else None)
    return len(conversation.facts)


class SharedGraph:
    """A graphmem data dir written once per conversation, read by several systems.

    With an endpoint, graphmem extracts with its `LLMExtractor` on that endpoint
    (replies cached under ``cache_dir``), like Graphiti and Mem0 do with theirs;
    without one, with the offline rules.
    """

    def __init__(self, graph_dir: Path, llm: LLMEndpoint | None = None, cache_dir: Path | None = None) -> None:
        self.graph_dir = Path(graph_dir)
        extracted_by = f"llm:{llm.base_url}:{llm.model}" if llm else "rules"
        backend = default_backend()
        # what an ingested marker vouches for: a graph embedded by fp32 is not reused for int8. fp32
        # keeps the id markers had before the backend was part of it, so those graphs are still reused
        self.ingest_id = extracted_by if backend == "torch" else f"{extracted_by}|{backend}"
        extractor = None
        if llm is not None:
            from graphmem.ingest.llm import LLMExtractor

            extractor = LLMExtractor(llm.base_url, llm.model, api_key=llm.api_key,
                                     cache_dir=Path(cache_dir or self.graph_dir / "llm_cache") / "graphmem")
        self.memory = Memory(data_dir=self.graph_dir, embedder=embedder_for(backend), extractor=extractor)

    def _marker(self, conversation: Conversation) -> Path:
        return self.graph_dir / "ingested" / f"{memory_id(conversation.conversation_id)}.json"

    def _digest(self, conversation: Conversation) -> str:
        return hashlib.sha256(f"{conversation_hash(conversation)}|{self.ingest_id}".encode()).hexdigest()

    def ingested(self, conversation: Conversation) -> IngestStats | None:
        """The stats of this graph's ingestion of `conversation`, None when it has none; raises
        InvalidInput when it was ingested from other data or by another extractor or embedder:
        writing again would skip every stored turn as extracted (the old facts and vectors would
        stay), and searching it would mix two embedders' vectors."""
        marker = self._marker(conversation)
        if not marker.is_file():
            return None
        saved = json.loads(marker.read_text())
        if saved.get("sha256") != self._digest(conversation):
            raise InvalidInput(
                f"{self.graph_dir} holds {memory_id(conversation.conversation_id)!r} ingested from other data or by "
                f"another extractor or embedder (that run: {saved.get('ingest_id', 'not recorded')}; this one: "
                f"{self.ingest_id}); write this run to a new --out or delete that directory")
        return IngestStats.model_validate(saved["stats"])

    def require(self, conversation: Conversation) -> None:
        """For tools that read a harness graph (`fit_fusion collect`, `graphiti_probe`): SystemExit
        with the reason unless this extractor and embedder ingested `conversation` into it."""
        try:
            done = self.ingested(conversation)
        except InvalidInput as exc:
            raise SystemExit(str(exc)) from exc
        if done is None:
            raise SystemExit(f"{self.graph_dir} holds no ingestion of {conversation.conversation_id}: "
                             f"run `graphmem eval retrieval` on that data into it first")

    def ingest(self, conversation: Conversation) -> IngestStats:
        done = self.ingested(conversation)
        if done is not None:
            return done
        marker, digest = self._marker(conversation), self._digest(conversation)
        self.memory.warm()  # loaded before the clock starts (the read-only tools never load it)
        start, episodes, calls, prompt, completion, errors = time.perf_counter(), 0, 0, 0, 0, []
        user = memory_id(conversation.conversation_id)
        for session in sessions_in_time_order(conversation):
            result = self.memory.write(user, **session.write_args())
            episodes += len(session.turns)
            calls += result.llm_calls
            prompt += result.llm_prompt_tokens
            completion += result.llm_completion_tokens
            errors.extend(result.errors)
        import_facts(self.memory, user, conversation)
        stats = IngestStats(episodes=episodes, seconds=time.perf_counter() - start, llm_calls=calls,
                            prompt_tokens=prompt, completion_tokens=completion, errors=tuple(errors))
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.write_text(json.dumps({"sha256": digest, "ingest_id": self.ingest_id, "stats": stats.model_dump()}))
        return stats

    def close(self) -> None:
        self.memory.close()


class GraphmemSystem:
    has_provenance = True

    def __init__(self, name: str, config: SystemConfig, recipe: SearchRecipe = DEFAULT_RECIPE) -> None:
        self.name = name
        self.config = config
        self.recipe = recipe
        cache = config.options.get("llm_cache_dir")
        self.graph = SharedGraph(Path(config.options.get("graph_dir") or Path(config.work_dir) / "graph"),
                                 llm=config.llm, cache_dir=Path(str(cache)) if cache else None)

    def ingest(self, conversation: Conversation) -> IngestStats:
        return self.graph.ingest(conversation)

    def context(self, conversation_id: str, question: Question) -> Context:
        limit = self.config.k  # the same k as every other system (the retrieval stage passes 25)
        with stopwatch() as ms:
            try:
                packet = self.graph.memory.search(memory_id(conversation_id), question.question,
                                                  now=question.question_time, limit=limit, recipe=self.recipe,
                                                  budget_tokens=self.config.context_tokens)
            except Exception as exc:  # noqa: BLE001 - counted as an error by the harness
                return Context(text="", error=error_text(exc), latency_ms=ms())
            elapsed = ms()
        text = packet.to_prompt(budget_tokens=self.config.context_tokens)
        return Context(text=text, turn_ids=packet.cited_turn_ids, tokens=count_tokens(text), latency_ms=elapsed)

    def stored_turn_ids(self, conversation_id: str) -> set[str]:
        """The dataset turns this memory holds as episodes (the write stage of a wrong answer)."""
        user = memory_id(conversation_id)
        return {row.turn_id for row in self.graph.memory.inspect().episodes(user)}

    def close(self) -> None:
        self.graph.close()
