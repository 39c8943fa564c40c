"""The harness's one chat client: every call cached on disk, every token counted.

Why: an answer-stage run over LongMemEval_S or LoCoMo is thousands of reader
and judge calls. A re-run must make none, an interrupted run must resume
where it stopped, and the cost table must come from the endpoint's own
``usage``. So each reply is written atomically to the cache (graphmem's
`LLMCache`: tmp file + ``os.replace``) the moment it arrives, keyed by the
sha256 of (model, messages, parameters incl. temperature and seed, tools).
Calls, cache hits and tokens are counted per stage in a graphmem `Meter`.

Tool calls (the filesystem agent) go through the same path: a reply is the
text and/or the tool calls the model asked for.

Example:
    >>> llm = EvalLLM("http://127.0.0.1:8000/v1", cache_dir="/tmp/c")        # doctest: +SKIP
    >>> llm.chat("reader", "m", [{"role": "user", "content": "2+2?"}]).content  # doctest: +SKIP
    '4'
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import openai
from pydantic import BaseModel, ConfigDict

from graphmem.schema.errors import ExtractionError
from graphmem.ingest.llm import translate_error
from graphmem.graph.llm_cache import LLMCache, cache_key, text_hash
from graphmem.ingest.metering import Meter, MeterSnapshot

log = logging.getLogger("graphmem.evals.llm")

CACHE_VERSION = "eval-chat-v1"


class ToolCall(BaseModel):
    """One tool call the model asked for; ``arguments`` is the raw JSON text."""

    model_config = ConfigDict(frozen=True)

    id: str
    name: str
    arguments: str


class ChatReply(BaseModel):
    """One chat completion as the harness keeps it (and caches it)."""

    model_config = ConfigDict(frozen=True)

    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached: bool = False

    def assistant_message(self) -> dict[str, Any]:
        """The reply as the assistant message to append to a tool-calling conversation."""
        message: dict[str, Any] = {"role": "assistant", "content": self.content or None}
        if self.tool_calls:
            message["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                for c in self.tool_calls
            ]
        return message


def request_key(model: str, messages: Sequence[dict[str, Any]], params: dict[str, Any], tools: Any) -> str:
    """sha256 of everything that decides a reply: model, messages, parameters, tools.

    Example:
        >>> a = request_key("m", [{"role": "user", "content": "hi"}], {"temperature": 0, "seed": 1}, None)
        >>> a == request_key("m", [{"role": "user", "content": "hi"}], {"temperature": 0, "seed": 2}, None)
        False
    """
    return cache_key(CACHE_VERSION, model, {"messages": list(messages), "params": params, "tools": tools})


class EvalLLM:
    """A cached, metered OpenAI-compatible chat client for the reader, judge and agent.

    Parameters:
        base_url: the endpoint (``http://host:port/v1``).
        api_key: bearer token; None sends a placeholder (local servers).
        cache_dir: where replies are kept; None disables the cache.
        max_retries: the openai client's own retries (429, 5xx, connection).
        timeout: seconds per request.
    """

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        cache_dir: str | os.PathLike[str] | None = None,
        max_retries: int = 3,
        timeout: float = 120.0,
    ) -> None:
        self.base_url = base_url
        self.meter = Meter()
        self.cache = LLMCache(cache_dir) if cache_dir is not None else None
        self._openai = openai.OpenAI(
            base_url=base_url, api_key=api_key or "not-needed", timeout=timeout, max_retries=max_retries
        )

    def chat(
        self,
        stage: str,
        model: str,
        messages: Sequence[dict[str, Any]],
        *,
        temperature: float = 0.0,
        seed: int | None = 0,
        max_tokens: int | None = None,
        tools: list[dict[str, Any]] | None = None,
    ) -> ChatReply:
        """One reply, from the cache or one request (cached as soon as it arrives).

        Raises `ExtractionError` when the endpoint fails for good.
        """
        params = {"temperature": temperature, "seed": seed, "max_tokens": max_tokens}
        key = request_key(model, messages, params, tools)
        hit = self._cached(key)
        if hit is not None:
            self.meter.record_cache_hit(stage)
            return hit
        reply = self._request(stage, model, messages, params, tools)
        self._store(key, model, messages, reply)
        return reply

    def snapshot(self) -> MeterSnapshot:
        """Calls, cache hits and tokens per stage so far."""
        return self.meter.snapshot()

    def close(self) -> None:
        self._openai.close()

    def __enter__(self) -> EvalLLM:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _request(
        self, stage: str, model: str, messages: Sequence[dict[str, Any]], params: dict[str, Any], tools: Any
    ) -> ChatReply:
        extra = {k: v for k, v in params.items() if v is not None}
        if tools:
            extra["tools"] = tools
        started = time.perf_counter()
        try:
            completion = self._openai.chat.completions.create(model=model, messages=list(messages), **extra)
        except openai.OpenAIError as exc:
            self.meter.record_call(stage, latency_s=time.perf_counter() - started)
            self.meter.record_failure(stage)
            raise translate_error(exc, base_url=self.base_url, model=model, attempts=1) from exc
        reply = to_reply(completion)
        self.meter.record_call(
            stage,
            prompt_tokens=reply.prompt_tokens,
            completion_tokens=reply.completion_tokens,
            latency_s=time.perf_counter() - started,
        )
        return reply

    def _cached(self, key: str) -> ChatReply | None:
        if self.cache is None:
            return None
        value = self.cache.get(key)
        if value is None:
            return None
        try:
            return ChatReply.model_validate(value).model_copy(update={"cached": True})
        except ValueError as exc:
            log.warning("cached reply %s no longer validates, asking again: %s", key[:12], exc)
            return None

    def _store(self, key: str, model: str, messages: Sequence[dict[str, Any]], reply: ChatReply) -> None:
        if self.cache is None:
            return
        try:
            self.cache.put(
                key,
                reply.model_dump(mode="json"),
                prompt_version=CACHE_VERSION,
                model=model,
                input_hash=text_hash(json.dumps(list(messages), sort_keys=True, ensure_ascii=False)),
            )
        except OSError as exc:
            log.warning("could not write eval cache entry %s: %s", key[:12], exc)


def to_reply(completion: Any) -> ChatReply:
    """A `ChatReply` from an openai completion (text, tool calls, usage)."""
    choices = getattr(completion, "choices", None) or []
    message = choices[0].message if choices else None
    if message is None:
        raise ExtractionError("the endpoint answered without a message")
    calls = tuple(
        ToolCall(id=c.id, name=c.function.name, arguments=c.function.arguments or "{}")
        for c in (message.tool_calls or [])
        if getattr(c, "function", None) is not None
    )
    usage = getattr(completion, "usage", None)
    return ChatReply(
        content=message.content or "",
        tool_calls=calls,
        prompt_tokens=getattr(usage, "prompt_tokens", None) or 0,
        completion_tokens=getattr(usage, "completion_tokens", None) or 0,
    )


class _TransportCache:
    """Shared logic of the caching transports: key a chat request body, replay or record.

    Why: Graphiti and Mem0 make their own calls with their own openai clients;
    giving those clients this transport caches and meters them exactly like
    the harness's own calls, without touching their code.
    """

    def __init__(self, cache_dir: str | os.PathLike[str], meter: Meter, stage: str) -> None:
        self.cache = LLMCache(cache_dir)
        self.meter = meter
        self.stage = stage

    def key(self, request: Any) -> str | None:
        if request.method != "POST" or not request.url.path.endswith("/chat/completions"):
            return None
        return cache_key(CACHE_VERSION + "-raw", "", text_hash(request.content.decode("utf-8", "replace")))

    def replay(self, key: str | None) -> Any:
        import httpx

        value = self.cache.get(key) if key else None
        if value is None:
            return None
        self.meter.record_cache_hit(self.stage)
        return httpx.Response(200, json=value, headers={"content-type": "application/json"})

    def record(self, key: str | None, status: int, body: bytes, started: float) -> None:
        if key is None:
            return
        try:
            value = json.loads(body)
        except ValueError:
            value = None
        usage = (value or {}).get("usage") or {} if isinstance(value, dict) else {}
        self.meter.record_call(
            self.stage,
            prompt_tokens=int(usage.get("prompt_tokens") or 0),
            completion_tokens=int(usage.get("completion_tokens") or 0),
            latency_s=time.perf_counter() - started,
        )
        if status == 200 and isinstance(value, dict):
            self.cache.put(key, value, prompt_version=CACHE_VERSION + "-raw", model=str(value.get("model", "")),
                           input_hash=key)


_ENCODING_HEADERS = ("content-encoding", "content-length", "transfer-encoding")


def _plain(headers: Any) -> dict[str, str]:
    """Headers of an already-decoded body (no encoding or length to re-apply)."""
    return {k: v for k, v in headers.items() if k.lower() not in _ENCODING_HEADERS}


def caching_http_client(cache_dir: str | os.PathLike[str], meter: Meter, stage: str) -> Any:
    """An ``httpx.Client`` whose chat completions are cached on disk and metered."""
    import httpx

    logic = _TransportCache(cache_dir, meter, stage)

    class _Transport(httpx.HTTPTransport):
        def handle_request(self, request: httpx.Request) -> httpx.Response:
            key = logic.key(request)
            hit = logic.replay(key)
            if hit is not None:
                return hit
            started = time.perf_counter()
            response = super().handle_request(request)
            body = response.read()
            logic.record(key, response.status_code, body, started)
            return httpx.Response(response.status_code, headers=_plain(response.headers), content=body)

    return httpx.Client(transport=_Transport(), timeout=120.0)


def async_caching_http_client(cache_dir: str | os.PathLike[str], meter: Meter, stage: str) -> Any:
    """The ``httpx.AsyncClient`` twin of `caching_http_client` (Graphiti is async)."""
    import httpx

    logic = _TransportCache(cache_dir, meter, stage)

    class _Transport(httpx.AsyncHTTPTransport):
        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            key = logic.key(request)
            hit = logic.replay(key)
            if hit is not None:
                return hit
            started = time.perf_counter()
            response = await super().handle_async_request(request)
            body = await response.aread()
            logic.record(key, response.status_code, body, started)
            return httpx.Response(response.status_code, headers=_plain(response.headers), content=body)

    return httpx.AsyncClient(transport=_Transport(), timeout=120.0)


def cache_dir_for(out_dir: Path) -> Path:
    """Where a run's replies are cached: beside its results, so a re-run finds them."""
    return out_dir / "llm_cache"


__all__ = [
    "ChatReply",
    "EvalLLM",
    "ToolCall",
    "async_caching_http_client",
    "cache_dir_for",
    "caching_http_client",
    "request_key",
    "to_reply",
]
