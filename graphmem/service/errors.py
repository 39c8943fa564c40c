"""Every failure as JSON ``{"error": type, "detail": message}``, never a stack trace.

- `GraphMemError` -> its ``http_status`` (`graphmem.schema.errors`): InvalidInput
  422, NotFound 404, Forbidden 403, StoreError 503, ExtractionError 502, ConfigError 500;
- FastAPI's own errors (401/403 from the key checks, 404 for an unknown route,
  405, ...) keep their status, in the same body shape;
- request bodies that do not match the schema -> 422 listing the fields;
- anything else -> 500 ``internal error``, logged here with its trace, which
  the client never sees.

A body larger than ``Settings.max_request_bytes`` is refused with 413 before it
is read whole (`BodyLimit`, a plain ASGI middleware: it counts the bytes as
they arrive, so a missing or false Content-Length does not get past it).
"""

from __future__ import annotations

import json
import logging
from http import HTTPStatus

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from graphmem.schema.errors import GraphMemError

log = logging.getLogger("graphmem.service")


def error_response(status: int, error: str, detail: object, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": error, "detail": detail}, status_code=status, headers=headers)


async def _graphmem_error(_: Request, exc: GraphMemError) -> JSONResponse:
    return error_response(exc.http_status, type(exc).__name__, str(exc))


def status_name(code: int) -> str:
    """413 -> 'RequestEntityTooLarge': the status's phrase as one word."""
    try:
        return HTTPStatus(code).phrase.title().replace(" ", "").replace("-", "")
    except ValueError:
        return "HTTPError"


async def _http_error(_: Request, exc: StarletteHTTPException) -> JSONResponse:
    return error_response(exc.status_code, status_name(exc.status_code), exc.detail, getattr(exc, "headers", None))


async def _validation_error(_: Request, exc: RequestValidationError) -> JSONResponse:
    fields = [{"loc": list(e.get("loc", ())), "msg": e.get("msg", "")} for e in exc.errors()]
    return error_response(422, "InvalidInput", fields)


async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
    log.exception("unexpected error on %s %s", request.method, request.url.path, exc_info=exc)
    return error_response(500, "InternalError", "internal error; the server log has the details")


def install_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(GraphMemError, _graphmem_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(Exception, _unexpected)


class TooLarge(StarletteHTTPException):
    """Raised while the body is read, so FastAPI's handlers answer 413 like any HTTP error."""

    def __init__(self, max_bytes: int) -> None:
        super().__init__(413, f"request body over {max_bytes} bytes")


class BodyLimit:
    """ASGI middleware: 413 for a request body over `max_bytes`."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or ()).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_bytes):
            await self._refuse(send)
            return
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise TooLarge(self.max_bytes)
            return message

        started = False

        async def tracked(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, tracked)
        except TooLarge:
            if not started:
                await self._refuse(send)

    async def _refuse(self, send: Send) -> None:
        body = json.dumps({"error": status_name(413),
                           "detail": f"request body over {self.max_bytes} bytes"}).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})
