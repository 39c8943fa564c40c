"""Extraction and resolution through any OpenAI-compatible chat endpoint.

Two layers:

- `ChatClient` is the only code here that talks to the outside world: one chat
  completion, retried with exponential backoff on connection errors,
  timeouts, 429 and 5xx (never on other 4xx), metered per attempt, with every
  openai exception translated to `ExtractionError` in one place
  (`translate_error`).
- `LLMExtractor` renders the versioned prompts (`ingest.prompts`), answers
  from the on-disk cache when it can, validates replies with pydantic and
  converts them to domain objects.

Failure policy: a reply that is not valid JSON or fails validation is logged,
recorded in ``extractor.errors`` and counted as a failure by the meter, and
the turn yields an empty `Extraction` (resolution falls back to ADD / "not the
same entity") so the caller still stores the episode. An endpoint that stays
down after the retries raises `ExtractionError`; the caller decides. Answers
already obtained stay cached, so retrying the write later is cheap.
"""

from __future__ import annotations

import json
import logging
import os
import random
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Literal

import openai
from pydantic import BaseModel, ConfigDict

from graphmem.schema.errors import ExtractionError
from graphmem.ingest.extraction import (
    Cached,
    EntityResolver,
    Extraction,
    Extractor,
    FactResolver,
    Metered,
    RecordsErrors,
    TurnContext,
)
from graphmem.graph.llm_cache import LLMCache, cache_key, text_hash
from graphmem.ingest.metering import Meter
from graphmem.ingest.prompts import JSON_OBJECT_FORMAT, ChatMessage, parse_reply
from graphmem.ingest.prompts import extract as extract_prompt
from graphmem.ingest.prompts import resolve as resolve_prompt
from graphmem.ingest.prompts.resolve import (
    EntityPair,
    ExistingFact,
    FactDecision,
    ResolveAction,
    ResolveCandidate,
)

log = logging.getLogger("graphmem.ingest.llm")

STAGE_EXTRACT = "extract"
STAGE_RESOLVE = "resolve"
STAGE_RESOLVE_ENTITIES = "resolve_entities"

JsonMode = Literal["json_schema", "json_object", "none"]

_MAX_LOGGED = 300


class LLMFailure(BaseModel):
    """One LLM answer given up on (malformed reply); ``turn_id`` is "" outside extraction."""

    model_config = ConfigDict(frozen=True)

    stage: str
    turn_id: str = ""
    message: str


class MalformedReply(Exception):
    """The endpoint answered 200 but not with a usable message (internal)."""


# --- the client: all the I/O ---------------------------------------------------


def _is_retryable(exc: openai.OpenAIError) -> bool:
    if isinstance(exc, openai.APIConnectionError):  # includes APITimeoutError
        return True
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code == 429 or exc.status_code >= 500
    return False


def translate_error(exc: openai.OpenAIError, *, base_url: str, model: str, attempts: int) -> ExtractionError:
    """The `ExtractionError` for an openai exception; the one place they are mapped."""
    tries = f"{attempts} attempt{'s' if attempts != 1 else ''}"
    if isinstance(exc, openai.APITimeoutError):
        text = f"LLM endpoint {base_url} timed out ({tries})"
    elif isinstance(exc, openai.APIConnectionError):
        text = f"LLM endpoint {base_url} is unreachable ({tries}): {exc}"
    elif isinstance(exc, openai.APIStatusError):
        text = f"LLM endpoint {base_url} answered HTTP {exc.status_code} for model {model!r} ({tries}): {exc.message}"
    else:
        text = f"LLM client error talking to {base_url} ({tries}): {exc}"
    return ExtractionError(text)


class ChatClient:
    """A small wrapper over `openai.OpenAI` for JSON chat completions with retries.

    The openai client's own retries are off (``max_retries=0``) so that every
    HTTP request is counted here and the backoff is ours: delay
    ``retry_base_delay * 2**(attempt-1)`` (with ±25 % jitter), capped at
    ``retry_max_delay``.

    Example:
        >>> client = ChatClient("http://127.0.0.1:8000/v1", "my-model")   # doctest: +SKIP
        >>> client.complete("extract", messages, {"type": "json_object"})   # doctest: +SKIP
        '{"entities": [], "facts": []}'
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        timeout: float = 30.0,
        max_retries: int = 3,
        retry_base_delay: float = 0.5,
        retry_max_delay: float = 8.0,
        meter: Meter | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.base_url = base_url
        self.model = model
        self.max_retries = max(0, max_retries)
        self.retry_base_delay = retry_base_delay
        self.retry_max_delay = retry_max_delay
        self.meter = meter if meter is not None else Meter()
        self._sleep = sleep
        self._openai = openai.OpenAI(
            base_url=base_url, api_key=api_key or "unused", timeout=timeout, max_retries=0
        )

    def _delay(self, attempt: int) -> float:
        base = self.retry_base_delay * 2 ** (attempt - 1)
        return min(self.retry_max_delay, base * random.uniform(0.75, 1.25))

    def complete(self, stage: str, messages: list[ChatMessage], response_format: dict[str, Any] | None) -> str:
        """The text of one chat completion.

        Raises `ExtractionError` when the endpoint fails for good and
        `MalformedReply` when it answers without message content.
        """
        extra: dict[str, Any] = {} if response_format is None else {"response_format": response_format}
        for attempt in range(self.max_retries + 1):
            if attempt:
                self._sleep(self._delay(attempt))
            started = time.perf_counter()
            try:
                completion = self._openai.chat.completions.create(model=self.model, messages=messages, **extra)
            except openai.OpenAIError as exc:
                self.meter.record_call(stage, latency_s=time.perf_counter() - started, retry=attempt > 0)
                if attempt < self.max_retries and _is_retryable(exc):
                    log.info("%s call failed (%s), retrying (%d/%d)", stage, exc, attempt + 1, self.max_retries)
                    continue
                self.meter.record_failure(stage)
                raise translate_error(exc, base_url=self.base_url, model=self.model, attempts=attempt + 1) from exc
            except ValueError as exc:  # openai lets a 200 whose body is not JSON through as JSONDecodeError
                self.meter.record_call(stage, latency_s=time.perf_counter() - started, retry=attempt > 0)
                raise MalformedReply(f"the response body is not JSON: {exc}") from exc
            usage = getattr(completion, "usage", None)
            self.meter.record_call(
                stage,
                prompt_tokens=getattr(usage, "prompt_tokens", None) or 0,
                completion_tokens=getattr(usage, "completion_tokens", None) or 0,
                latency_s=time.perf_counter() - started,
                retry=attempt > 0,
            )
            return _content(completion)
        raise AssertionError("unreachable")  # pragma: no cover

    def close(self) -> None:
        self._openai.close()


def _content(completion: Any) -> str:
    choices = getattr(completion, "choices", None)
    if not choices or choices[0].message is None or not choices[0].message.content:
        raise MalformedReply("the reply has no message content")
    return choices[0].message.content


# --- the extractor: prompts, cache, validation ---------------------------------


class LLMExtractor(Extractor, FactResolver, EntityResolver, Metered, RecordsErrors, Cached):
    """`Extractor` backed by an OpenAI-compatible endpoint, plus batched resolution.

    It declares every optional ability of `ingest.extraction`: it resolves facts
    and entities, meters its calls, records malformed answers and caches them.

    One call per turn extracts entities, facts and dates together; `resolve`
    and `resolve_entities` each make one call per batch. Answers are cached
    under ``cache_dir`` (None: no cache) by (prompt version, model, rendered
    input), so a rerun over the same input sends nothing.

    Parameters:
        base_url: the endpoint, e.g. ``http://localhost:8000/v1``.
        model: the model name sent with each request.
        api_key: sent as bearer token; None sends a placeholder (local servers).
        cache_dir: the cache directory, normally ``<data dir>/llm_cache``.
        max_retries: extra attempts on connection errors, timeouts, 429, 5xx.
        timeout: seconds per request.
        retry_base_delay: first backoff delay in seconds (doubles per retry).
        meter: where calls, hits, tokens and latency are counted (shared or own).
        json_mode: ``json_schema`` (strict schema from the response model),
            ``json_object`` or ``none`` for servers that support neither.

    Example:
        >>> ex = LLMExtractor("http://127.0.0.1:8000/v1", "qwen2.5", cache_dir="/tmp/c")  # doctest: +SKIP
        >>> ex.extract([TurnContext(text="I moved to Oslo.", speaker="Ann",
        ...                         session_time=now)])[0].facts[0].predicate           # doctest: +SKIP
        'LIVES_IN'
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        cache_dir: str | os.PathLike[str] | None = None,
        max_retries: int = 3,
        timeout: float = 30,
        *,
        retry_base_delay: float = 0.5,
        meter: Meter | None = None,
        json_mode: JsonMode = "json_schema",
    ) -> None:
        self.model = model
        self.name = f"llm:{model}:{extract_prompt.PROMPT_VERSION}"
        self.meter = meter if meter is not None else Meter()
        self.cache = LLMCache(cache_dir) if cache_dir is not None else None
        self.json_mode: JsonMode = json_mode
        self.errors: list[LLMFailure] = []
        self._client = ChatClient(
            base_url,
            model,
            api_key=api_key,
            timeout=timeout,
            max_retries=max_retries,
            retry_base_delay=retry_base_delay,
            meter=self.meter,
        )

    # public verbs

    def extract(self, turns: Sequence[TurnContext]) -> list[Extraction]:
        """One `Extraction` per turn, in order (empty for a turn whose reply was malformed)."""
        return [self.extract_turn(turn) for turn in turns]

    def extract_turn(self, turn: TurnContext) -> Extraction:
        """The `Extraction` of one turn, from the cache or one call."""
        ctx = extract_prompt.ExtractContext.from_turn(turn)
        result = self._ask(
            STAGE_EXTRACT,
            extract_prompt.PROMPT_VERSION,
            extract_prompt.render(ctx),
            self._format(extract_prompt.response_format),
            extract_prompt.ExtractResponse,
            extract_prompt.to_extraction,
            texts=(ctx.text, *ctx.previous),
            turn_id=turn.turn_id,
        )
        return Extraction() if result is None else result

    def resolve(self, candidates: Sequence[ResolveCandidate]) -> list[FactDecision]:
        """One decision (ADD / MERGE / SUPERSEDE / IGNORE) per candidate, in one call.

        No call for an empty list. A malformed reply gives ADD for every
        candidate (nothing is lost; the worst case is a duplicate).
        """
        if not candidates:
            return []
        ctx = resolve_prompt.ResolveContext(candidates=tuple(candidates))
        result = self._ask(
            STAGE_RESOLVE,
            resolve_prompt.PROMPT_VERSION,
            resolve_prompt.render(ctx),
            self._format(resolve_prompt.response_format),
            resolve_prompt.ResolveResponse,
            lambda response: resolve_prompt.to_decisions(ctx, response),
            texts=[c.fact for c in ctx.candidates] + [e.fact for c in ctx.candidates for e in c.existing],
        )
        if result is None:
            return [FactDecision(action=ResolveAction.ADD) for _ in ctx.candidates]
        return result

    def resolve_entities(self, pairs: Sequence[EntityPair]) -> list[bool]:
        """Whether each pair names the same entity, in one call.

        No call for an empty list. A malformed reply answers False for every
        pair (a duplicate entity is cheaper than a wrong merge).
        """
        if not pairs:
            return []
        ctx = resolve_prompt.ResolveEntitiesContext(pairs=tuple(pairs))
        result = self._ask(
            STAGE_RESOLVE_ENTITIES,
            resolve_prompt.ENTITIES_PROMPT_VERSION,
            resolve_prompt.render_entities(ctx),
            self._format(resolve_prompt.entities_response_format),
            resolve_prompt.ResolveEntitiesResponse,
            lambda response: resolve_prompt.to_matches(ctx, response),
            texts=[name for p in ctx.pairs for name in (p.name_a, p.name_b)],
        )
        return [False] * len(ctx.pairs) if result is None else result

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> LLMExtractor:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # the shared path: cache -> call -> validate -> convert -> cache

    def _format(self, schema_format: Callable[[], dict[str, Any]]) -> dict[str, Any] | None:
        if self.json_mode == "json_schema":
            return schema_format()
        return JSON_OBJECT_FORMAT if self.json_mode == "json_object" else None

    def _ask[R: BaseModel, T](
        self,
        stage: str,
        version: str,
        messages: list[ChatMessage],
        response_format: dict[str, Any] | None,
        response_model: type[R],
        convert: Callable[[R], T],
        *,
        texts: Iterable[str],
        turn_id: str = "",
    ) -> T | None:
        """The converted answer, or None after recording a malformed reply."""
        key = cache_key(version, self.model, messages)
        hit = self._from_cache(key, response_model, convert)
        if hit is not None:
            self.meter.record_cache_hit(stage)
            return hit[0]
        try:
            reply = self._client.complete(stage, messages, response_format)
            response = parse_reply(reply, response_model)
            result = convert(response)
        except (MalformedReply, ValueError) as exc:
            self._record_malformed(stage, turn_id, exc)
            return None
        self._store(key, version, messages, response.model_dump(mode="json"), texts)
        return result

    def _from_cache[R: BaseModel, T](
        self, key: str, response_model: type[R], convert: Callable[[R], T]
    ) -> tuple[T] | None:
        if self.cache is None:
            return None
        value = self.cache.get(key)
        if value is None:
            return None
        try:
            return (convert(response_model.model_validate(value)),)
        except ValueError as exc:
            log.warning("cached answer %s no longer validates, asking again: %s", key[:12], exc)
            return None

    def _store(
        self, key: str, version: str, messages: list[ChatMessage], value: dict[str, Any], texts: Iterable[str]
    ) -> None:
        if self.cache is None:
            return
        try:
            self.cache.put(
                key,
                value,
                prompt_version=version,
                model=self.model,
                input_hash=text_hash(json.dumps(messages, sort_keys=True, ensure_ascii=False)),
                text_hashes=[text_hash(t) for t in texts],
            )
        except OSError as exc:
            log.warning("could not write LLM cache entry %s: %s", key[:12], exc)

    def _record_malformed(self, stage: str, turn_id: str, exc: Exception) -> None:
        message = f"malformed {stage} reply: {type(exc).__name__}: {exc}"[:_MAX_LOGGED]
        log.warning("%s (turn %r)", message, turn_id)
        self.meter.record_failure(stage)
        self.errors.append(LLMFailure(stage=stage, turn_id=turn_id, message=message))


__all__ = [
    "STAGE_EXTRACT",
    "STAGE_RESOLVE",
    "STAGE_RESOLVE_ENTITIES",
    "ChatClient",
    "EntityPair",
    "ExistingFact",
    "FactDecision",
    "LLMExtractor",
    "LLMFailure",
    "ResolveAction",
    "ResolveCandidate",
    "translate_error",
]
