"""A scripted OpenAI-compatible HTTP server for tests (ARCHITECTURE §8: tests never call
the network; the LLM path runs against a local server with scripted replies).

`ScriptedLLM` is a real HTTP server on 127.0.0.1 (ephemeral port, own thread)
serving ``POST /v1/chat/completions`` (and ``/chat/completions``) in the
OpenAI response format, with a ``usage`` block counted roughly as
``len(text) // 4``. The reply to each request is computed by
``handler(request_json)``, which returns the message content (``str``), a
``dict`` (sent as its JSON text), `ScriptedError` (an HTTP error status) or
`ScriptedRaw` (a verbatim response body, e.g. not JSON).
Every request body is recorded in ``.requests``, every 200 body in
``.responses``. ``POST /v1/embeddings`` answers with small deterministic
vectors.

Fixture-ready: no pytest import here. A fixture is just::

    with ScriptedLLM() as server:
        yield server          # tests set server.handler = ...

Example:
    >>> import json, urllib.request
    >>> with ScriptedLLM(lambda request: {"ok": True}) as server:
    ...     body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]}).encode()
    ...     with urllib.request.urlopen(server.url + "/chat/completions", body) as r:
    ...         json.loads(r.read())["choices"][0]["message"]["content"]
    '{"ok": true}'
"""

from __future__ import annotations

import hashlib
import json
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

CHAT_PATHS = ("/v1/chat/completions", "/chat/completions")
EMBEDDING_PATHS = ("/v1/embeddings", "/embeddings")


@dataclass(frozen=True)
class ScriptedError:
    """Reply with this HTTP status and an OpenAI-style error body."""

    status: int
    message: str = "scripted error"


@dataclass(frozen=True)
class ScriptedRaw:
    """Send ``body`` verbatim as the HTTP response (for broken-server tests)."""

    body: str
    status: int = 200


@dataclass(frozen=True)
class ScriptedToolCalls:
    """Reply with an assistant message that calls tools: ``calls`` = ((name, arguments), ...)."""

    calls: tuple[tuple[str, dict[str, Any]], ...]


Reply = str | dict[str, Any] | ScriptedError | ScriptedRaw | ScriptedToolCalls
Handler = Callable[[dict[str, Any]], Reply]


def count_tokens(text: str) -> int:
    """The rough token count the server reports: ``len(text) // 4``."""
    return len(text) // 4


def _no_handler(request: dict[str, Any]) -> Reply:
    return ScriptedError(500, "ScriptedLLM has no handler set")


def unused_port() -> int:
    """A loopback port nothing listens on (bound then closed), for "server down" tests."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def user_text(request: dict[str, Any]) -> str:
    """The content of the last user message of a chat request."""
    users = [m for m in request.get("messages", []) if m.get("role") == "user"]
    return str(users[-1].get("content", "")) if users else ""


class ScriptedLLM:
    """An OpenAI-compatible chat server on 127.0.0.1 whose replies come from ``handler``.

    Attributes:
        handler: ``request_json -> str | dict | ScriptedError``; may be replaced at any time.
        requests: every chat request body received, in order.
        responses: every successful chat response body sent, in order.
        handler_errors: exceptions raised by the handler (answered with HTTP 500).
    """

    def __init__(self, handler: Handler | None = None, *, model: str = "scripted-model") -> None:
        self.handler: Handler = handler or _no_handler
        self.model = model
        self.requests: list[dict[str, Any]] = []
        self.responses: list[dict[str, Any]] = []
        self.handler_errors: list[BaseException] = []
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """The base_url to give an OpenAI client: ``http://127.0.0.1:<port>/v1``."""
        if self._server is None:
            raise RuntimeError("ScriptedLLM is not started")
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def start(self) -> ScriptedLLM:
        server = ThreadingHTTPServer(("127.0.0.1", 0), _make_request_handler(self))
        server.daemon_threads = True
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.02}, name="scripted-llm", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = self._thread = None

    def __enter__(self) -> ScriptedLLM:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def reset(self) -> None:
        """Forget recorded requests and responses (the handler stays)."""
        with self._lock:
            self.requests.clear()
            self.responses.clear()
            self.handler_errors.clear()

    # called from the server threads

    def _chat(self, request: dict[str, Any]) -> tuple[int, dict[str, Any] | str]:
        with self._lock:
            self.requests.append(request)
        try:
            reply = self.handler(request)
        except Exception as exc:  # a broken handler must show up in the test, not hang it
            with self._lock:
                self.handler_errors.append(exc)
            reply = ScriptedError(500, f"handler raised {type(exc).__name__}: {exc}")
        if isinstance(reply, ScriptedError):
            return reply.status, _error_body(reply)
        if isinstance(reply, ScriptedRaw):
            return reply.status, reply.body
        if isinstance(reply, ScriptedToolCalls):
            body = self._completion(request, "", tool_calls=reply.calls)
        else:
            body = self._completion(request, reply if isinstance(reply, str) else json.dumps(reply))
        with self._lock:
            self.responses.append(body)
        return 200, body

    def _completion(
        self, request: dict[str, Any], content: str, tool_calls: tuple[tuple[str, dict[str, Any]], ...] = ()
    ) -> dict[str, Any]:
        prompt = "".join(str(m.get("content") or "") for m in request.get("messages", []))
        calls = [
            {"id": f"call_{len(self.requests)}_{i}", "type": "function",
             "function": {"name": name, "arguments": json.dumps(arguments)}}
            for i, (name, arguments) in enumerate(tool_calls)
        ]
        prompt_tokens = count_tokens(prompt)
        completion_tokens = count_tokens(content + "".join(c["function"]["arguments"] for c in calls))
        message: dict[str, Any] = {"role": "assistant", "content": (content or None) if calls else content}
        if calls:
            message["tool_calls"] = calls
        return {
            "id": f"chatcmpl-{len(self.requests)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": request.get("model", self.model),
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "tool_calls" if calls else "stop",
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }


def _error_body(error: ScriptedError) -> dict[str, Any]:
    if error.status == 429:
        kind = "rate_limit_error"
    else:
        kind = "server_error" if error.status >= 500 else "invalid_request_error"
    return {"error": {"message": error.message, "type": kind, "param": None, "code": None}}


def _embeddings(request: dict[str, Any], dimension: int = 8) -> dict[str, Any]:
    inputs = request.get("input", [])
    texts = [inputs] if isinstance(inputs, str) else list(inputs)
    data = []
    for i, text in enumerate(texts):
        digest = hashlib.sha256(str(text).encode()).digest()
        vector = [b / 255.0 - 0.5 for b in digest[:dimension]]
        data.append({"object": "embedding", "index": i, "embedding": vector})
    tokens = sum(count_tokens(str(t)) for t in texts)
    return {
        "object": "list",
        "data": data,
        "model": request.get("model", "scripted-embedding"),
        "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
    }


def _make_request_handler(llm: ScriptedLLM) -> type[BaseHTTPRequestHandler]:
    class _RequestHandler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server naming)
            length = int(self.headers.get("Content-Length") or 0)
            try:
                request = json.loads(self.rfile.read(length) or b"{}")
            except json.JSONDecodeError:
                self._send(400, _error_body(ScriptedError(400, "request body is not JSON")))
                return
            if self.path in CHAT_PATHS:
                self._send(*llm._chat(request))
            elif self.path in EMBEDDING_PATHS:
                self._send(200, _embeddings(request))
            else:
                self._send(404, _error_body(ScriptedError(404, f"no route {self.path}")))

        def _send(self, status: int, body: dict[str, Any] | str) -> None:
            data = (body if isinstance(body, str) else json.dumps(body)).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
            pass

    return _RequestHandler


def schema_name(request: dict[str, Any]) -> str | None:
    """The ``json_schema`` name of a request's ``response_format`` (Graphiti names it after its model)."""
    fmt = request.get("response_format") or {}
    return (fmt.get("json_schema") or {}).get("name") if fmt.get("type") == "json_schema" else None


def fill_schema(schema: dict[str, Any], text: str = "scripted", root: dict[str, Any] | None = None) -> Any:
    """A minimal value valid under a pydantic JSON schema: required fields only,
    empty lists, ``text`` for strings, 0 for numbers, the first enum member.

    Example:
        >>> fill_schema({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]})
        {'a': 'scripted'}
    """
    root = root if root is not None else schema
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return fill_schema(root.get("$defs", {})[name], text, root)
    if "enum" in schema:
        return schema["enum"][0]
    if "anyOf" in schema:
        options = [o for o in schema["anyOf"] if o.get("type") != "null"]
        return fill_schema(options[0], text, root) if options else None
    kind = schema.get("type")
    if kind == "object":
        props = schema.get("properties", {})
        return {k: fill_schema(props[k], text, root) for k in schema.get("required", []) if k in props}
    return {"array": [], "string": text, "integer": 0, "number": 0.0, "boolean": False}.get(kind)


__all__ = [
    "ScriptedError",
    "ScriptedLLM",
    "ScriptedRaw",
    "ScriptedToolCalls",
    "count_tokens",
    "fill_schema",
    "schema_name",
    "unused_port",
    "user_text",
]
