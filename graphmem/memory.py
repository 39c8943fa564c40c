"""`Memory`: the one entry point. Each verb validates its input, then hands the
work to the capability named for it (`graphmem.ingest`, `graphmem.retrieval`,
`graphmem.forgetting`) or to the graph layer's fact repository
(`graphmem.graph.fact_repository`) for the direct fact verbs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from pydantic import ValidationError

from graphmem.analysis import diff as changes
from graphmem.analysis import timeline as timelines
from graphmem.analysis.records import Communities, Diff, EntityTimeline
from graphmem.forgetting import capacity
from graphmem.forgetting import pipeline as forgetting
from graphmem.forgetting.journal import PendingForget
from graphmem.graph.inspect import Inspector
from graphmem.graph import bulk_facts, fact_repository
from graphmem.config import Settings
from graphmem.embedding.embedder import Embedder, embedder_for, warmed
from graphmem.schema.errors import InvalidInput, NotFound
from graphmem.schema.inputs import FactInput
from graphmem.schema import time as t
from graphmem.schema.models import DEFAULT_SCOPE, FactEdge, check_scope, check_scopes, check_user_id, normalize_predicate
from graphmem.ingest.extraction import Cached, Extractor
from graphmem.graph.llm_cache import LLMCache
from graphmem.ingest import candidates as gate_candidates
from graphmem.ingest.pipeline import IngestContext, write_session
from graphmem.ingest.rebuild import RebuildResult
from graphmem.ingest.rebuild import rebuild as rebuild_projections
from graphmem.ingest.reembed import ReembedResult
from graphmem.ingest.reembed import reembed as reembed_vectors
from graphmem.ingest.turns import validate_session
from graphmem.retrieval.index import WarmIndexes
from graphmem.retrieval.packet import MemoryPacket
from graphmem.retrieval.recipes import DEFAULT_RECIPE, SearchRecipe, get_recipe, validate_recipe
from graphmem.schema.records import AddFactResult, CandidateRecord, FactRecord, GateResult, Timeline, WriteResult
from graphmem.schema.supersession import stated_start
from graphmem.graph.store import Store
from graphmem.parsing.text import check_id, check_name, clean_text

if TYPE_CHECKING:
    import networkx as nx

MAX_NAME_CHARS = 500
MAX_FACT_CHARS = 4_000
MAX_FACTS_PER_CALL = 100_000

TimeLike = datetime | date | str


def _text(value: object, field: str, limit: int) -> str:
    """Free text (queries, fact sentences); see `graphmem.parsing.text` for the rules."""
    return clean_text(value, field, limit)


def _name(value: object, field: str, limit: int = MAX_NAME_CHARS) -> str:
    """An entity name or fact uuid: no control characters, never altered inside."""
    return check_name(value, field, limit)


def _ids(values: object, field: str) -> list[str]:
    """A list of uuids; a bare string is refused rather than split into letters."""
    if isinstance(values, (str, bytes, dict)) or not isinstance(values, Sequence):
        raise InvalidInput(f"{field} must be a list of ids, got {type(values).__name__}")
    return [check_id(v, f"{field}[{i}]", MAX_NAME_CHARS) for i, v in enumerate(values)]


def _unit(value: object, field: str) -> float:
    """A share from 0 to 1 (importance, confidence)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
        raise InvalidInput(f"{field} must be a number from 0 to 1, got {value!r}")
    return float(value)


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
        self.store = Store.open(data_dir=self.settings.data_dir, falkordb_url=self.settings.falkordb_url,
                                timeout_s=self.settings.query_timeout_s)
        try:
            self._embedder = embedder
            self._extractor = extractor
            self._indexes = WarmIndexes()
            self._data_dir = Path(self.settings.data_dir).expanduser()
            self.recovered_forgets = tuple(i.id for i in forgetting.recover(self.store, self._data_dir))
        except BaseException:
            self.store.close()
            raise

    def warm(self) -> None:
        """Load now what loads on first use, the embedder's model and the rule patterns, for a
        server's start-up or before timing writes: a short-lived process skips what it never uses."""
        warmed(self.embedder)
        getattr(self.extractor, "warm", lambda: None)()

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

        return RuleExtractor(embed=lambda texts: self.embedder.embed(texts))

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = embedder_for(self.settings.embedder_backend)
        return self._embedder

    def __enter__(self) -> "Memory":
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        """Release the store; the embedded server stops with its last client in any
        process (see `graphmem.graph.embedded`). Safe to call twice; never raises."""
        self.store.close()

    # -- graph plumbing -------------------------------------------------------

    def _open_graph(self, user_id: str) -> None:
        """The user's graph, created if need be; writers call it under the user's lock
        (`Store.ensure_graph`)."""
        self.store.ensure_graph(user_id, dimension=self.embedder.dimension, embedder=self.embedder.name,
                                backend=getattr(self.embedder, "backend", None))

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        vectors = np.asarray(self.embedder.embed(list(texts)), dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape != (len(texts), self.embedder.dimension):
            raise InvalidInput(
                f"embedder {self.embedder.name!r} returned shape {vectors.shape}; "
                f"expected ({len(texts)}, {self.embedder.dimension})"
            )
        return vectors

    def _check_vector(self, vector: Sequence[float], field: str) -> list[float]:
        if isinstance(vector, (str, bytes, dict)):
            raise InvalidInput(f"{field} must be a list of numbers, got {type(vector).__name__}")
        try:
            values = [float(x) for x in vector]
        except (TypeError, ValueError) as exc:
            raise InvalidInput(f"{field} must be a list of numbers: {exc}") from exc
        if len(values) != self.embedder.dimension:
            raise InvalidInput(f"{field} has {len(values)} dimensions; this memory uses {self.embedder.dimension}")
        if not np.all(np.isfinite(values)):
            raise InvalidInput(f"{field} contains NaN or infinity")
        return values

    @property
    def _llm_cache(self) -> LLMCache | None:
        """The extractor's answer cache, which forgetting must clear too; None when it keeps none."""
        return self.extractor.cache if isinstance(self.extractor, Cached) else None

    # -- verbs ------------------------------------------------------------------

    def write(
        self,
        user_id: str,
        turns: Sequence[dict],
        session_time: TimeLike,
        session_id: str | None = None,
        *,
        ttl: timedelta | None = None,
        scope: str = DEFAULT_SCOPE,
    ) -> WriteResult:
        """Store a conversation session and the facts it states.

        Every turn becomes an Episodic node first (lossless evidence); then
        entities and facts are extracted, resolved against the graph and
        contradictions closed (`ingest.pipeline.write_session`). Writing the
        same session again changes nothing. All input is validated before
        anything is written. Beyond the per-user capacity the facts least worth
        keeping are archived (`graphmem.forgetting.capacity`).

        :param user_id: whose memory; 1 to 128 letters, digits, ``_`` or ``-``.
        :param turns: ``[{"role": "user", "content": "..."}, ...]``, optionally
            with ``speaker`` and ``turn_id``.
        :param session_time: when the session happened; relative dates in it
            ("last month") resolve against it.
        :param session_id: names the session (default: derived from its content).
        :param ttl: every fact of this write expires ``ttl`` after the session
            time (a fact's own "until ..." wins): it then leaves search and
            waits for `purge`.
        :param scope: ``user`` (default), ``project:<id>`` or ``agent:<id>``: the
            turns and the facts extracted from them belong to it; a search reads
            only the scopes it is given, and facts contradict only within a scope.
        :raises InvalidInput: bad user id, turns, time, ttl or scope; nothing is written.
        :raises ExtractionError: the LLM endpoint stayed down; the turns are
            stored and extracted by the next write.
        :raises StoreError: FalkorDB failed.

        Example:
            >>> mem.write("alice", [{"role": "user", "content": "I live in Beijing."}], "2024-03-10")
            WriteResult(episodes=1, ..., facts_added=1, ...)
        """
        check_user_id(user_id)
        scope = check_scope(scope)
        if ttl is not None and (not isinstance(ttl, timedelta) or ttl <= timedelta(0)):
            raise InvalidInput("ttl must be a positive datetime.timedelta")
        session = validate_session(
            turns,
            session_time,
            session_id,
            max_turn_chars=self.settings.max_turn_chars,
            max_turns=self.settings.max_turns_per_write,
        ).model_copy(update={"scope": scope})
        if ttl is not None:
            t.shifted(session.session_time, ttl, field="ttl")  # the facts' expiry must be storable
        context = IngestContext(store=self.store, embed=self._embed, extractor=self.extractor)
        with self.store.user_lock(user_id):
            self._open_graph(user_id)
            result = write_session(context, user_id, session, ttl=ttl)
            archived = capacity.enforce(self.store, user_id, self.settings.capacity_per_user)
        return result.model_copy(update={"facts_archived": archived}) if archived else result

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
        scopes: Sequence[str] = (DEFAULT_SCOPE,),
    ) -> MemoryPacket:
        """Answer a question with a dated memory packet, or abstain.

        An unknown user gets an abstaining packet and no graph is created. Each
        returned fact counts as accessed (decay uses it). See `retrieval.search`.

        :param user_id: whose memory.
        :param query: the question, free text.
        :param now: anchors relative times in the question ("in April", "last
            week") and decides what is current (default: the wall clock).
        :param as_of: ask about a moment explicitly.
        :param known_at: answer as graphmem knew things then.
        :param limit: at most this many facts and turns, 1 to 100.
        :param recipe: a `SearchRecipe` or the name of one (`retrieval.recipes`).
        :param budget_tokens: drop the least relevant lines until the packet fits.
        :param scopes: the scopes to read (default ``["user"]``); no fact, chain,
            turn or entity line comes from any other.
        :raises InvalidInput: bad user id, query, time, limit, budget, scopes or recipe
            (an unknown name, or a list or reranker name that is not one of the enums), or
            a memory whose vectors another embedder model made (`Store.ensure_graph`).
        :raises StoreError: FalkorDB failed.

        Example:
            >>> mem.search("alice", "Where do I live?", now="2024-09-01").facts[0].object
            'Shanghai'
        """
        check_user_id(user_id)
        chosen_scopes = check_scopes(scopes)
        text = _text(query, "query", self.settings.max_query_chars)
        if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= 100:
            raise InvalidInput("limit must be an integer from 1 to 100")
        if budget_tokens is not None and (isinstance(budget_tokens, bool) or not isinstance(budget_tokens, int)
                                          or budget_tokens < 1):
            raise InvalidInput("budget_tokens must be a positive integer")
        if recipe is not None and not isinstance(recipe, (str, SearchRecipe)):
            raise InvalidInput(f"recipe must be a recipe name or a SearchRecipe, got {type(recipe).__name__}")
        chosen = get_recipe(recipe) if isinstance(recipe, str) else validate_recipe(recipe or DEFAULT_RECIPE)
        from graphmem.retrieval.search import RetrievalContext, search as run_search  # lazy: scipy is ~0.2 s of every CLI start

        self.store.check_embedding(user_id, dimension=self.embedder.dimension, embedder=self.embedder.name)
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
            scopes=chosen_scopes,
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
        confidence: float = 1.0,
        scope: str = DEFAULT_SCOPE,
    ) -> AddFactResult:
        """Record one fact directly (the store-level write under `write()`).

        A single-valued predicate closes the value it contradicts instead of
        deleting it; a restatement is merged (`fact_repository.add_fact`). Transaction
        time is the wall clock.

        :param user_id: whose memory.
        :param subject: entity name, merged with an existing one of the same name.
        :param predicate: e.g. ``lives_in``; stored UPPER_SNAKE.
        :param object: entity name, merged like `subject`.
        :param fact: the sentence to store (default: built from the triple).
        :param valid_at: when it became true.
        :param invalid_at: when it stopped being true.
        :param reference_time: the moment the statement was made (default `valid_at`).
        :param single_valued: one value at a time (a new one closes the old).
        :param episodes: uuids of the turns that said it.
        :param derived_from: uuids of the facts it was inferred from.
        :param importance: 0 to 1, weighs decay and capacity archiving.
        :param expires_at: leaves search then, deleted by `purge`.
        :param embedding: the fact's vector, if already computed.
        :param confidence: 0 to 1, how sure the caller is; shown on packet lines.
        :param scope: ``user`` (default), ``project:<id>`` or ``agent:<id>``.
        :raises InvalidInput: any bad argument (invalid_at not after valid_at,
            wrong embedding size, ...); nothing is written.
        :raises StoreError: FalkorDB failed.

        Example:
            >>> mem.add_fact("alice", "alice", "lives_in", "Shanghai", valid_at="2024-08-01").action
            'superseded'
        """
        check_user_id(user_id)
        new = self._new_fact(
            user_id, subject, predicate, object, fact=fact, valid_at=valid_at, invalid_at=invalid_at,
            reference_time=reference_time, single_valued=single_valued, episodes=episodes,
            derived_from=derived_from, importance=importance, expires_at=expires_at, embedding=embedding,
            confidence=confidence, scope=scope,
        )
        given = new.embedding
        vectors = [v.tolist() for v in self._embed([new.subject, new.object] + ([] if given else [new.edge.fact]))]
        with self.store.user_lock(user_id):
            self._open_graph(user_id)
            result = fact_repository.add_fact(self.store, user_id, new.edge, vectors + ([given] if given else []),
                                              subject=new.subject, object=new.object,
                                              single_valued=new.single_valued)
            capacity.enforce(self.store, user_id, self.settings.capacity_per_user)
        return result

    def add_facts(self, user_id: str, facts: Sequence[FactInput | Mapping[str, Any]]) -> list[AddFactResult]:
        """Import many facts at once, with the result `add_fact` one at a time in
        this order would give (same merges, closures and splits), in a few queries.

        Every row is validated first, with `add_fact`'s rules; a bad row raises
        and nothing is written. Then one read resolves the entity names, one
        reads the slots the rows touch, each slot's rows are placed in memory
        (`graphmem.graph.bulk_facts`), only what is created is embedded, and the
        writes go in UNWIND batches under the user's lock. Capacity archiving
        runs once, at the end.

        :param user_id: whose memory.
        :param facts: `FactInput` rows or dicts with the same keys (`add_fact`'s
            arguments: subject, predicate, object, fact, valid_at, ...); at most
            `MAX_FACTS_PER_CALL`.
        :returns: one `AddFactResult` per row, in order.
        :raises InvalidInput: a bad user id or row (the message names the row
            index and field); nothing is written.
        :raises StoreError: FalkorDB failed.

        Example:
            >>> [r.action for r in mem.add_facts("alice", [
            ...     {"subject": "alice", "predicate": "lives_in", "object": "Beijing", "valid_at": "2024-03-01"},
            ...     {"subject": "alice", "predicate": "lives_in", "object": "Shanghai", "valid_at": "2024-08-01"}])]
            ['added', 'superseded']
        """
        check_user_id(user_id)
        if isinstance(facts, (str, bytes, Mapping)) or not isinstance(facts, Sequence):
            raise InvalidInput(f"facts must be a list of fact rows, got {type(facts).__name__}")
        if len(facts) > MAX_FACTS_PER_CALL:
            raise InvalidInput(f"at most {MAX_FACTS_PER_CALL:,} facts per call, got {len(facts):,}")
        start = t.now_utc() - timedelta(microseconds=len(facts))
        rows = [self._fact_row(user_id, i, row, start + timedelta(microseconds=i)) for i, row in enumerate(facts)]
        if not rows:
            return []
        with self.store.user_lock(user_id):
            self._open_graph(user_id)
            results = bulk_facts.add_facts(self.store, user_id, rows, self._embed)
            capacity.enforce(self.store, user_id, self.settings.capacity_per_user)
        return results

    def _fact_row(self, user_id: str, index: int, row: object, created_at: datetime) -> bulk_facts.NewFact:
        """Row `index` of `add_facts`, validated; errors name the row."""
        try:
            parsed = row if isinstance(row, FactInput) else FactInput.model_validate(row)
            return self._new_fact(user_id, **parsed.model_dump(), created_at=created_at)
        except ValidationError as exc:
            details = "; ".join(f"{'.'.join(str(x) for x in e['loc']) or 'row'}: {e['msg']}" for e in exc.errors())
            raise InvalidInput(f"facts[{index}]: {details}") from None
        except InvalidInput as exc:
            raise InvalidInput(f"facts[{index}]: {exc}") from None

    def _new_fact(
        self,
        user_id: str,
        subject: object,
        predicate: object,
        object: object,
        *,
        fact: object = None,
        valid_at: TimeLike | None = None,
        invalid_at: TimeLike | None = None,
        reference_time: TimeLike | None = None,
        single_valued: object = True,
        episodes: object = (),
        derived_from: object = (),
        importance: object = 0.5,
        expires_at: TimeLike | None = None,
        embedding: Sequence[float] | None = None,
        confidence: object = 1.0,
        scope: object = DEFAULT_SCOPE,
        created_at: datetime | None = None,
    ) -> bulk_facts.NewFact:
        """`add_fact`'s arguments, checked (see its docstring) and turned into an edge without endpoints."""
        subject = _name(subject, "subject")
        obj = _name(object, "object")
        name = normalize_predicate(predicate)
        text = _text(fact or f"{subject} {name.lower().replace('_', ' ')} {obj}", "fact", MAX_FACT_CHARS)
        valid = t.to_utc_or_none(valid_at, field="valid_at")
        invalid = t.to_utc_or_none(invalid_at, field="invalid_at")
        if valid and invalid and invalid <= valid:
            raise InvalidInput("invalid_at must be later than valid_at")
        fact_vector = self._check_vector(embedding, "embedding") if embedding is not None else None
        if not isinstance(single_valued, bool):
            raise InvalidInput("single_valued must be True or False")
        edge = FactEdge(
            group_id=user_id,
            name=name,
            fact=text,
            valid_at=valid,
            invalid_at=invalid,
            reference_time=t.to_utc_or_none(reference_time, field="reference_time") or valid,
            source_node_uuid="",
            target_node_uuid="",
            episodes=_ids(episodes, "episodes"),
            derived_from=_ids(derived_from, "derived_from"),
            importance=_unit(importance, "importance"),
            confidence=_unit(confidence, "confidence"),
            scope=check_scope(scope),
            expires_at=t.to_utc_or_none(expires_at, field="expires_at"),
            **({"created_at": created_at} if created_at is not None else {}),
        )
        edge.valid_at = stated_start(edge.valid_at, edge.reference_time, edge.created_at, edge.invalid_at)
        return bulk_facts.NewFact(edge=edge, subject=subject, object=obj, single_valued=single_valued,
                                  embedding=fact_vector)

    def rebuild(self, user_id: str) -> RebuildResult:
        """Derive entities, facts, mentions, summaries and indexes again from the
        stored turns with the current extractor (`ingest.rebuild`).

        The turns are the source of truth and stay untouched; facts drawn from
        them are dropped and re-derived, facts written with `add_fact` are kept.
        An LLM extractor answers from its cache when its prompts are unchanged
        (0 calls). A `write(ttl=...)` expiry and capacity archiving are not
        re-derived.

        :param user_id: whose memory.
        :raises InvalidInput: a bad user id.
        :raises NotFound: the user has no memory.
        :raises ExtractionError: the LLM endpoint stayed down (turns stay stored;
            run `rebuild` again).
        :raises StoreError: FalkorDB failed.

        Example:
            >>> mem.rebuild("alice").facts_added
            2
        """
        check_user_id(user_id)
        context = IngestContext(store=self.store, embed=self._embed, extractor=self.extractor)
        with self.store.locked_graph(user_id) as present:
            if not present:
                raise NotFound(f"user {user_id!r} has no memory")
            self._open_graph(user_id)
            result = rebuild_projections(context, user_id)
        self._indexes.drop(user_id)
        return result

    def reembed(self, user_id: str) -> ReembedResult:
        """Make every stored vector of the user again with this memory's embedder, so a
        memory built with another model (or dimension) can be opened with this one
        (`ingest.reembed`). Turns, facts, times and ids stay as they are.

        :param user_id: whose memory.
        :raises InvalidInput: a bad user id.
        :raises NotFound: the user has no memory.
        :raises StoreError: FalkorDB failed (the graph stays marked as half re-embedded and is
            refused until `reembed` runs again).

        Example:
            >>> Memory(embedder=new_model).reembed("alice").turns
            12
        """
        check_user_id(user_id)
        with self.store.locked_graph(user_id) as present:
            if not present:
                raise NotFound(f"user {user_id!r} has no memory")
            result = reembed_vectors(self.store, user_id, self._embed, embedder=self.embedder.name,
                                     dimension=self.embedder.dimension, backend=getattr(self.embedder, "backend", None))
        self._indexes.drop(user_id)
        return result

    def restore(self, user_id: str, fact_uuid: str) -> bool:
        """Bring an archived fact back into search (`graphmem.forgetting.capacity`).

        :param user_id: whose memory.
        :param fact_uuid: the archived fact.
        :returns: False if there was no such user or fact.
        :raises InvalidInput: a bad user id or uuid.
        :raises StoreError: FalkorDB failed.

        Example:
            >>> mem.restore("alice", archived_uuid)
            True
        """
        check_user_id(user_id)
        fact_uuid = check_id(fact_uuid, "fact_uuid", MAX_NAME_CHARS)
        with self.store.locked_graph(user_id) as present:
            return present and capacity.restore(self.store, user_id, fact_uuid)

    def candidates(self, user_id: str) -> list[CandidateRecord]:
        """Facts the write gate held back (`ingest.write_gate`): passing states ("I'm
        tired today"), hedged or unimportant statements. They stay with their turns,
        out of `search` and `facts`, and close nothing, until `confirm` or `reject`.

        :param user_id: whose memory; an unknown user has none.
        :raises InvalidInput: a bad user id.
        :raises StoreError: FalkorDB failed.

        Example:
            >>> [c.object for c in mem.candidates("alice")]
            ['tired']
        """
        check_user_id(user_id)
        return gate_candidates.list_candidates(self.store, user_id)

    def confirm(self, user_id: str, fact_uuid: str) -> GateResult:
        """Make a candidate an active fact: it is placed on its slot like any write, so
        only now does it supersede or end what it contradicts. The decision is kept
        and survives `rebuild`.

        :raises InvalidInput: a bad user id or uuid.
        :raises NotFound: no such user or candidate.
        :raises StoreError: FalkorDB failed.

        Example:
            >>> mem.confirm("alice", candidate_uuid).action
            'added'
        """
        return self._decide(user_id, fact_uuid, gate_candidates.confirm)

    def reject(self, user_id: str, fact_uuid: str) -> GateResult:
        """Drop a candidate; the decision is kept, so `rebuild` does not bring it back.

        :raises InvalidInput: a bad user id or uuid.
        :raises NotFound: no such user or candidate.
        :raises StoreError: FalkorDB failed.
        """
        return self._decide(user_id, fact_uuid, gate_candidates.reject)

    def _decide(self, user_id: str, fact_uuid: str, verb) -> GateResult:
        check_user_id(user_id)
        fact_uuid = check_id(fact_uuid, "fact_uuid", MAX_NAME_CHARS)
        with self.store.locked_graph(user_id) as present:
            if not present:
                raise NotFound(f"user {user_id!r} has no memory")
            result = verb(self.store, user_id, fact_uuid)
        self._indexes.drop(user_id)
        return result

    def facts(
        self,
        user_id: str,
        valid_at: TimeLike | None = None,
        known_at: TimeLike | None = None,
        *,
        subject: str | None = None,
        scopes: Sequence[str] | None = None,
    ) -> list[FactRecord]:
        """Facts true at `valid_at` as known at `known_at` (`fact_repository.facts_at`).

        :param user_id: whose memory; an unknown user has no facts.
        :param valid_at: the moment the facts are true at (default now).
        :param known_at: answer as graphmem knew things then (default now).
        :param subject: only facts about this entity name.
        :param scopes: only facts of these scopes (default: every scope; this is
            the owner's view, unlike `search`, which reads ``["user"]`` by default).
        :raises InvalidInput: a bad user id, time, subject or scopes.
        :raises StoreError: FalkorDB failed.

        Example:
            >>> [f.object for f in mem.facts("alice", valid_at="2024-04-15")]
            ['Beijing']
        """
        check_user_id(user_id)
        return fact_repository.facts_at(
            self.store,
            user_id,
            valid_at=t.to_utc_or_none(valid_at, field="valid_at"),
            known_at=t.to_utc_or_none(known_at, field="known_at"),
            subject=_name(subject, "subject") if subject is not None else None,
            scopes=check_scopes(scopes) if scopes is not None else None,
        )

    def history(self, user_id: str, entity_or_fact: str) -> Timeline:
        """Every version of an entity's facts, or of the slot of one fact uuid
        (`fact_repository.history`).

        :param user_id: whose memory.
        :param entity_or_fact: an entity name or uuid, or a fact uuid.
        :raises InvalidInput: a bad user id or key.
        :raises NotFound: the user, entity or fact does not exist.
        :raises StoreError: FalkorDB failed.

        Example:
            >>> [v.object for v in mem.history("alice", "alice").versions]
            ['Beijing', 'Shanghai']
        """
        check_user_id(user_id)
        key = _name(entity_or_fact, "entity_or_fact")
        return fact_repository.history(self.store, user_id, key)

    # -- analysis (read-only, see `graphmem.analysis`) ---------------------------

    def to_networkx(
        self, user_id: str, valid_at: TimeLike | None = None, known_at: TimeLike | None = None
    ) -> "nx.MultiDiGraph":
        """The entities and facts true at `valid_at` as known at `known_at` (both
        default now) as a `networkx.MultiDiGraph`: nodes keyed by entity name,
        edges by fact uuid, with the fact's text, validity, status and source turns.

        :raises InvalidInput: a bad user id or time.
        :raises StoreError: FalkorDB failed.

        Example:
            >>> sorted(mem.to_networkx("alice", valid_at="2024-04-15").successors("alice"))
            ['Beijing']
        """
        check_user_id(user_id)
        from graphmem.analysis import networkx_export  # lazy: networkx is ~0.3 s of every CLI start

        return networkx_export.to_networkx(self.store, user_id, valid_at=t.to_utc_or_none(valid_at, field="valid_at"),
                                           known_at=t.to_utc_or_none(known_at, field="known_at"))

    def diff(self, user_id: str, t1: TimeLike, t2: TimeLike, known_at: TimeLike | None = None) -> Diff:
        """What changed after `t1` up to `t2`: facts started, ended, superseded
        (old -> new) and entities that appeared, as known at `known_at`
        (`analysis.diff`); ``.to_records()`` for a table.

        :raises InvalidInput: a bad user id or time, or `t2` not after `t1`.
        :raises StoreError: FalkorDB failed.

        Example:
            >>> [(c.kind, c.object, c.new_object) for c in mem.diff("alice", "2024-05-01", "2024-09-01").changes][0]
            ('superseded', 'Beijing', 'Shanghai')
        """
        check_user_id(user_id)
        start, end = t.to_utc(t1, field="t1"), t.to_utc(t2, field="t2")
        if end <= start:
            raise InvalidInput("t2 must be later than t1")
        return changes.diff(self.store, user_id, start, end, known_at=t.to_utc_or_none(known_at, field="known_at"))

    def timeline(self, user_id: str, entity: str) -> EntityTimeline:
        """Every fact version about `entity` by start of validity, flat (`analysis.timeline`).

        :raises InvalidInput: a bad user id or name.
        :raises NotFound: no such user or entity.

        Example:
            >>> [(e.object, e.status) for e in mem.timeline("alice", "alice").entries]
            [('Beijing', 'superseded'), ('Shanghai', 'current')]
        """
        check_user_id(user_id)
        return timelines.timeline(self.store, user_id, _name(entity, "entity"))

    def communities(self, user_id: str, recompute: bool = False) -> Communities:
        """Groups of related entities in the current graph, each labelled by its
        most central member; stored in the graph and recomputed when the graph
        changed since, or when `recompute` (`analysis.communities`).

        :raises InvalidInput: a bad user id.
        :raises StoreError: FalkorDB failed.

        Example:
            >>> mem.communities("alice").groups[0].label
            'alice'
        """
        check_user_id(user_id)
        if not isinstance(recompute, bool):
            raise InvalidInput("recompute must be true or false")
        from graphmem.analysis import communities as grouping  # lazy: networkx is ~0.3 s of every CLI start

        with self.store.user_lock(user_id):
            return grouping.communities(self.store, user_id, recompute=recompute)

    def forget(
        self, user_id: str, selector: dict, dry_run: bool = False, *, confirm: bool = False
    ) -> forgetting.ForgetReport:
        """Delete what the selector names and everything that rests on it.

        Selectors: ``{"fact": uuid}``, ``{"entity": name_or_uuid}``,
        ``{"session_id": id}``, ``{"text": "..."}``, ``{"between": [t0, t1]}``,
        ``{"all": True}`` (needs ``confirm=True``). A dry run returns exactly
        what would go and changes nothing. Otherwise the data files are
        compacted so the forgotten text is gone from disk, even if the process
        dies half way (the next open finishes the job). A selector that
        matches nothing returns an empty report. See `graphmem.forgetting.pipeline`.

        :raises InvalidInput: a bad user id or selector; nothing is deleted.
        :raises StoreError: FalkorDB failed; the forget stays pending.

        Example:
            >>> mem.forget("alice", {"text": "Lily"}, dry_run=True).facts_deleted
            2
        """
        check_user_id(user_id)
        chosen = forgetting.parse_selector(selector, confirm=confirm)
        return forgetting.run(
            self.store, user_id, chosen, data_dir=self._data_dir, dry_run=dry_run,
            cache=self._llm_cache, indexes=self._indexes,
        )

    def pending_forgets(self) -> list[PendingForget]:
        """Forgets that were interrupted and are not finished yet (normally none:
        opening a `Memory` finishes them; one stays here if that failed or another
        live process is still running it)."""
        return [
            PendingForget(id=i.id, user_id=i.user_id, selector=i.selector, created_at=i.created_at)
            for i in forgetting.pending(self.store, self._data_dir)
        ]

    def purge(self, user_id: str, now: TimeLike | None = None) -> int:
        """Delete the facts whose expiry has passed (they already left search), the
        entities only they held, and the expired text in summaries. Returns how many facts."""
        check_user_id(user_id)
        moment = t.to_utc_or_none(now, field="now") or t.now_utc()
        with self.store.locked_graph(user_id) as present:
            purged = forgetting.purge(self.store, user_id, moment) if present else 0
        if purged:
            self._indexes.drop(user_id)
        return purged

    def inspect(self) -> Inspector:
        """Read-only views of the raw graph (entities, facts, turns, mentions,
        counts, where a text occurs); see `graphmem.graph.inspect`."""
        return Inspector(self.store)

    def users(self) -> list[str]:
        return self.store.users()

    def drop_user(self, user_id: str) -> bool:
        """Erase a user's whole memory, from disk too; True when there was one.

        The same as ``forget(user_id, {"all": True}, confirm=True)``: graph,
        query telemetry, LLM-cache entries and warm indexes go, the data files
        are compacted and the erasure is audited.
        """
        check_user_id(user_id)
        report = forgetting.run(
            self.store, user_id, forgetting.Selector(kind="all", value=True), data_dir=self._data_dir,
            cache=self._llm_cache, indexes=self._indexes,
        )
        return report.compacted
