"""`Memory`: the one entry point. Each verb validates its input, then hands the
work to the module named for it (`temporal`, `ingest`, `retrieval`, `forget`)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime, timedelta
from pathlib import Path

import time

import numpy as np

from graphmem import forget as forgetting
from graphmem import forget_queries as fq
from graphmem import temporal
from graphmem import queries as q
from graphmem.config import Settings
from graphmem.embedder import Embedder, default_embedder
from graphmem.errors import InvalidInput
from graphmem.schema import time as t
from graphmem.schema.models import EntityNode, FactEdge, check_user_id, normalize_predicate
from graphmem.ingest.extraction import Extractor
from graphmem.ingest.metering import diff as meter_diff
from graphmem.ingest.pipeline import IngestContext, write_session
from graphmem.ingest.turns import validate_session
from graphmem.retrieval.decay import DecayInput, to_archive
from graphmem.retrieval.index import WarmIndexes
from graphmem.retrieval.packet import MemoryPacket
from graphmem.retrieval.recipes import DEFAULT_RECIPE, SearchRecipe, get_recipe
from graphmem.retrieval.search import RetrievalContext
from graphmem.retrieval.search import search as run_search
from graphmem.schema.records import AddFactResult, FactRecord, Timeline, WriteResult
from graphmem.store import Store

MAX_NAME_CHARS = 500
MAX_FACT_CHARS = 4_000

TimeLike = datetime | date | str


def _text(value: object, field: str, limit: int) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput(f"{field} must be a non-empty string")
    if len(value) > limit:
        raise InvalidInput(f"{field} is {len(value)} characters; the limit is {limit}")
    return value.strip()


def _decay_fields(row: dict) -> dict:
    return {
        "uuid": row["uuid"],
        "importance": float(row["importance"]),
        "access_count": int(row["access_count"]),
        "last_accessed_at": t.decode(row["last_accessed_at"]),
        "created_at": t.decode(row["created_at"]),
    }


class Memory:
    """Temporal knowledge-graph memory for one or many users.

    Args:
        data_dir: where the embedded FalkorDB keeps its files (default
            ``GRAPHMEM_DATA_DIR`` or ``~/.graphmem``).
        falkordb_url: use a FalkorDB server instead (``GRAPHMEM_FALKORDB_URL``).
        embedder: anything with ``name``, ``dimension`` and ``embed()``; default
            all-MiniLM-L6-v2, loaded on first use.

    Example:
        >>> with Memory(data_dir="/tmp/gm") as mem:
        ...     mem.add_fact("alice", "alice", "lives_in", "Beijing", valid_at="2024-03-01")
        ...     [f.object for f in mem.facts("alice")]
        ['Beijing']
    """

    def __init__(
        self,
        data_dir: str | Path | None = None,
        falkordb_url: str | None = None,
        *,
        embedder: Embedder | None = None,
        extractor: Extractor | None = None,
        settings: Settings | None = None,
    ) -> None:
        overrides = {k: v for k, v in {"data_dir": data_dir, "falkordb_url": falkordb_url}.items() if v is not None}
        self.settings = (settings or Settings()).model_copy(update=overrides)
        self.store = Store.open(data_dir=self.settings.data_dir, falkordb_url=self.settings.falkordb_url)
        self._embedder = embedder
        self._extractor = extractor
        self._indexes = WarmIndexes()

    @property
    def extractor(self) -> Extractor:
        """Built on first use: compiling the rule patterns takes seconds, and reads
        (facts, history, search) never extract."""
        if self._extractor is None:
            self._extractor = self._default_extractor()
        return self._extractor

    def _default_extractor(self) -> Extractor:
        """The LLM when one is configured, else the offline rules."""
        if self.settings.llm_base_url and self.settings.llm_model:
            from graphmem.ingest.llm import LLMExtractor

            return LLMExtractor(
                self.settings.llm_base_url,
                self.settings.llm_model,
                cache_dir=Path(self.settings.data_dir).expanduser() / "llm_cache",
            )
        from graphmem.ingest.rules import RuleExtractor

        return RuleExtractor()

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = default_embedder()
        return self._embedder

    def __enter__(self) -> "Memory":
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        self.store.close()

    # -- graph plumbing -------------------------------------------------------

    def _open_graph(self, user_id: str) -> None:
        self.store.ensure_graph(user_id, dimension=self.embedder.dimension, embedder=self.embedder.name)

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        vectors = np.asarray(self.embedder.embed(list(texts)), dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape != (len(texts), self.embedder.dimension):
            raise InvalidInput(
                f"embedder {self.embedder.name!r} returned shape {vectors.shape}; "
                f"expected ({len(texts)}, {self.embedder.dimension})"
            )
        return vectors

    def _check_vector(self, vector: Sequence[float], field: str) -> list[float]:
        values = [float(x) for x in vector]
        if len(values) != self.embedder.dimension:
            raise InvalidInput(f"{field} has {len(values)} dimensions; this memory uses {self.embedder.dimension}")
        if not np.all(np.isfinite(values)):
            raise InvalidInput(f"{field} contains NaN or infinity")
        return values

    # -- verbs ------------------------------------------------------------------

    def write(
        self,
        user_id: str,
        turns: Sequence[dict],
        session_time: TimeLike,
        session_id: str | None = None,
        *,
        ttl: timedelta | None = None,
    ) -> WriteResult:
        """Store a conversation session and the facts it states.

        Every turn becomes an Episodic node first (lossless evidence); then
        entities and facts are extracted, resolved against the graph and
        contradictions closed. Writing the same session again changes nothing.
        All input is validated before anything is written. `ttl` makes every
        fact of this write expire `ttl` after the session time (a fact's own
        "until ..." wins): it then leaves search and waits for `purge`.

        Example:
            >>> mem.write("alice", [{"role": "user", "content": "I live in Beijing."}], "2024-03-10")
            WriteResult(episodes=1, ..., facts_added=1, ...)
        """
        check_user_id(user_id)
        if ttl is not None and (not isinstance(ttl, timedelta) or ttl <= timedelta(0)):
            raise InvalidInput("ttl must be a positive datetime.timedelta")
        session = validate_session(
            turns,
            session_time,
            session_id,
            max_turn_chars=self.settings.max_turn_chars,
            max_turns=self.settings.max_turns_per_write,
        )
        self._open_graph(user_id)
        llm = self.extractor if hasattr(self.extractor, "resolve") else None
        meter = getattr(self.extractor, "meter", None)
        errors = getattr(self.extractor, "errors", None)
        context = IngestContext(store=self.store, embed=self._embed, extractor=self.extractor)
        with self.store.user_lock(user_id):
            before = meter.snapshot() if meter else None
            seen_errors = len(errors) if errors is not None else 0
            result = write_session(context, user_id, session, llm=llm, ttl=ttl)
            archived = self._enforce_capacity(user_id)
            if archived:
                result = result.model_copy(update={"facts_archived": archived})
            self.store.run(user_id, q.bump_version())
            if meter is None:
                return result
            used = meter_diff(before, meter.snapshot()).total
            new_errors = tuple(f"{e.stage} {e.turn_id}: {e.message}" for e in (errors or [])[seen_errors:])
        return result.model_copy(
            update={
                "llm_calls": used.calls,
                "llm_cache_hits": used.cache_hits,
                "llm_prompt_tokens": used.prompt_tokens,
                "llm_completion_tokens": used.completion_tokens,
                "errors": new_errors,
            }
        )

    def search(
        self,
        user_id: str,
        query: str,
        now: TimeLike | None = None,
        as_of: TimeLike | None = None,
        known_at: TimeLike | None = None,
        limit: int = 10,
        *,
        recipe: SearchRecipe | str | None = None,
        budget_tokens: int | None = None,
    ) -> MemoryPacket:
        """Answer a question with a dated memory packet, or abstain.

        `now` anchors relative times in the question ("in April", "last week")
        and decides what is current; `as_of` asks about a moment explicitly;
        `known_at` answers as graphmem knew things then. An unknown user gets an
        abstaining packet and no graph is created. Each returned fact counts as
        accessed (decay uses it).

        Example:
            >>> mem.search("alice", "Where do I live?", now="2024-09-01").facts[0].object
            'Shanghai'
        """
        check_user_id(user_id)
        text = _text(query, "query", self.settings.max_query_chars)
        if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= 100:
            raise InvalidInput("limit must be an integer from 1 to 100")
        chosen = get_recipe(recipe) if isinstance(recipe, str) else (recipe or DEFAULT_RECIPE)
        context = RetrievalContext(store=self.store, embed=self._embed, indexes=self._indexes)
        return run_search(
            context,
            user_id,
            text,
            now=t.to_utc_or_none(now, field="now") or t.now_utc(),
            as_of=t.to_utc_or_none(as_of, field="as_of"),
            known_at=t.to_utc_or_none(known_at, field="known_at"),
            limit=limit,
            recipe=chosen,
            budget_tokens=budget_tokens,
        )

    def add_fact(
        self,
        user_id: str,
        subject: str,
        predicate: str,
        object: str,
        *,
        fact: str | None = None,
        valid_at: TimeLike | None = None,
        invalid_at: TimeLike | None = None,
        reference_time: TimeLike | None = None,
        single_valued: bool = True,
        episodes: Sequence[str] = (),
        derived_from: Sequence[str] = (),
        importance: float = 0.5,
        expires_at: TimeLike | None = None,
        embedding: Sequence[float] | None = None,
    ) -> AddFactResult:
        """Record one fact directly (the store-level write under `write()`).

        A single-valued predicate closes the value it contradicts instead of
        deleting it; a restatement is merged. Transaction time is the wall clock.
        """
        check_user_id(user_id)
        subject = _text(subject, "subject", MAX_NAME_CHARS)
        obj = _text(object, "object", MAX_NAME_CHARS)
        name = normalize_predicate(predicate)
        text = _text(fact or f"{subject} {name.lower().replace('_', ' ')} {obj}", "fact", MAX_FACT_CHARS)
        valid = t.to_utc_or_none(valid_at, field="valid_at")
        invalid = t.to_utc_or_none(invalid_at, field="invalid_at")
        if valid and invalid and invalid <= valid:
            raise InvalidInput("invalid_at must be later than valid_at")
        fact_vector = self._check_vector(embedding, "embedding") if embedding is not None else None
        vectors = self._embed([subject, obj] + ([] if fact_vector else [text]))
        self._open_graph(user_id)
        with self.store.user_lock(user_id):
            source = self._merge_entity(user_id, subject, vectors[0])
            target = self._merge_entity(user_id, obj, vectors[1])
            edge = FactEdge(
                group_id=user_id,
                name=name,
                fact=text,
                valid_at=valid,
                invalid_at=invalid,
                reference_time=t.to_utc_or_none(reference_time, field="reference_time") or valid,
                source_node_uuid=source,
                target_node_uuid=target,
                episodes=list(episodes),
                derived_from=list(derived_from),
                importance=importance,
                expires_at=t.to_utc_or_none(expires_at, field="expires_at"),
            )
            result = temporal.insert_fact(
                self.store,
                user_id,
                edge,
                fact_vector or vectors[2].tolist(),
                single_valued=single_valued,
            )
            self._enforce_capacity(user_id)
            self.store.run(user_id, q.bump_version())
            return result

    def _enforce_capacity(self, user_id: str) -> int:
        """Archive the lowest-decay facts beyond the per-user capacity; never delete."""
        capacity = self.settings.capacity_per_user
        if capacity is None:
            return 0
        rows = self.store.run(user_id, q.active_facts())
        if len(rows) <= capacity:
            return 0
        records = [DecayInput(**_decay_fields(r)) for r in rows]
        doomed = to_archive(records, capacity, t.now_utc())
        if doomed:
            self.store.run(user_id, q.set_archived(doomed, t.now_utc()))
        return len(doomed)

    def restore(self, user_id: str, fact_uuid: str) -> bool:
        """Bring an archived fact back into search; False if there was no such fact."""
        check_user_id(user_id)
        if not self.store.has_graph(user_id):
            return False
        with self.store.user_lock(user_id):
            found = self.store.run(user_id, q.set_archived([fact_uuid], None))
            self.store.run(user_id, q.bump_version())
        return bool(found)

    def _merge_entity(self, user_id: str, name: str, vector: np.ndarray) -> str:
        entity = EntityNode(group_id=user_id, name=name)
        rows = self.store.run(user_id, q.merge_entity(entity, vector.tolist()))
        return rows[0]["uuid"]

    def facts(
        self,
        user_id: str,
        valid_at: TimeLike | None = None,
        known_at: TimeLike | None = None,
        *,
        subject: str | None = None,
    ) -> list[FactRecord]:
        """Facts true at `valid_at` as known at `known_at` (both default to now),
        optionally only those about `subject`.

        Example:
            >>> [f.object for f in mem.facts("alice", valid_at="2024-04-15")]
            ['Beijing']
        """
        check_user_id(user_id)
        return temporal.facts_at(
            self.store,
            user_id,
            valid_at=t.to_utc_or_none(valid_at, field="valid_at"),
            known_at=t.to_utc_or_none(known_at, field="known_at"),
            subject=_text(subject, "subject", MAX_NAME_CHARS) if subject is not None else None,
        )

    def history(self, user_id: str, entity_or_fact: str) -> Timeline:
        """Every version of an entity's facts, or of the slot of one fact uuid.

        Raises NotFound when the user, entity or fact does not exist.
        """
        check_user_id(user_id)
        key = _text(entity_or_fact, "entity_or_fact", MAX_NAME_CHARS)
        return temporal.history(self.store, user_id, key)

    def forget(
        self, user_id: str, selector: dict, dry_run: bool = False, *, confirm: bool = False
    ) -> forgetting.ForgetReport:
        """Delete what the selector names and everything that rests on it.

        Selectors: ``{"fact": uuid}``, ``{"entity": name_or_uuid}``,
        ``{"session_id": id}``, ``{"text": "..."}``, ``{"between": [t0, t1]}``,
        ``{"all": True}`` (needs ``confirm=True``). A dry run returns exactly
        what would go and changes nothing. Otherwise the data files are
        compacted so the forgotten text is gone from disk. A selector that
        matches nothing returns an empty report. See `graphmem.forget`.

        Example:
            >>> mem.forget("alice", {"text": "Lily"}, dry_run=True).facts_deleted
            2
        """
        check_user_id(user_id)
        chosen = forgetting.parse_selector(selector, confirm=confirm)
        clock = time.perf_counter()
        if not self.store.has_graph(user_id):
            return forgetting.ForgetReport(selector=chosen.kind, dry_run=dry_run)
        with self.store.user_lock(user_id):
            seed_facts, seed_episodes, named = forgetting.seeds(self.store, user_id, chosen)
            table = {r["uuid"]: r for r in self.store.run(user_id, fq.fact_table(), read_only=True)}
            doomed, episodes, reopen = forgetting.cascade(table, seed_facts, seed_episodes)
            entities = forgetting.orphans(self.store, user_id, doomed, episodes, named)
            turns = self.store.run(user_id, fq.episode_turns(sorted(episodes)), read_only=True) if episodes else []
            report = forgetting.ForgetReport(
                selector=chosen.kind, dry_run=dry_run, facts=tuple(sorted(doomed)), episodes=tuple(sorted(episodes)),
                turn_ids=tuple(sorted(r["turn_id"] for r in turns)), entities=tuple(sorted(entities.values())),
                facts_reopened=tuple(sorted(reopen)), facts_deleted=len(doomed), episodes_deleted=len(episodes),
                entities_deleted=len(entities),
            )
            if dry_run or not (doomed or episodes or entities):
                return report.model_copy(update={"seconds": time.perf_counter() - clock})
            forgetting.apply(self.store, user_id, doomed, episodes, reopen, entities)
            if chosen.kind == "all":
                self.store.drop(user_id)
            else:
                self.store.run(user_id, q.bump_version())
            self._indexes.drop(user_id)
            self.store.clear_telemetry(user_id)
            cache = getattr(self.extractor, "cache", None)
            removed = cache.forget_texts([r["content"] for r in turns]) if cache is not None and turns else 0
            forgetting.compact(self.store, Path(self.settings.data_dir).expanduser() if self.store.embedded else None)
            report = report.model_copy(
                update={"cache_entries_deleted": removed, "compacted": True,
                        "seconds": time.perf_counter() - clock}
            )
            forgetting.audit(Path(self.settings.data_dir).expanduser(), user_id, chosen, report)
        return report

    def purge(self, user_id: str, now: TimeLike | None = None) -> int:
        """Delete the facts whose expiry has passed (they already left search). Returns how many."""
        check_user_id(user_id)
        if not self.store.has_graph(user_id):
            return 0
        moment = t.to_utc_or_none(now, field="now") or t.now_utc()
        with self.store.user_lock(user_id):
            due = [r["uuid"] for r in self.store.run(user_id, fq.expired_facts(t.encode(moment)))]
            if due:
                self.store.run(user_id, fq.delete_facts(due))
                self.store.run(user_id, q.bump_version())
        return len(due)

    def users(self) -> list[str]:
        return self.store.users()

    def drop_user(self, user_id: str) -> bool:
        """Delete a user's whole graph at once (no per-fact cascade)."""
        return self.store.drop(check_user_id(user_id))
