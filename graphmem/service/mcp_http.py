"""`graphmem mcp --transport http`: the MCP tools over streamable HTTP, behind the
same API keys as `graphmem serve` (`graphmem.service.keys`).

The keys go through the SDK's own bearer-token path: `KeyVerifier` is its
`TokenVerifier`, so the SDK answers a request without a valid
``Authorization: Bearer <key>`` with 401 before any tool runs, checks the key
again on every request (a revoked key stops at once), and binds each MCP session
to the key that opened it (the session's principal is the key id). A tool then
reads the key of its own request (`get_access_token`) and acts only for the
users it covers and within the memory scopes it holds (`graphmem.service.scoping`).
A key file that cannot be read stops the server at startup; spoilt later, every
request is refused (401) and the reason is logged.

`AuthSettings` insists on an `issuer_url` (it was made for OAuth); it is set to
this server's own URL and nothing OAuth is served: no authorization endpoints,
no protected-resource metadata.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import anyio.to_thread
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError

from graphmem.schema.errors import ConfigError
from graphmem.service.keys import ApiKey, KeyStore
from graphmem.service.mcp import UserScope, build_server

if TYPE_CHECKING:
    from graphmem.config import Settings
    from graphmem.memory import Memory

MCP_PATH = "/mcp"
log = logging.getLogger("graphmem.mcp")


class KeyAccess(AccessToken):
    """The SDK's access token, carrying the graphmem key it was made from."""

    key: ApiKey


class KeyVerifier:
    """`mcp.server.auth.provider.TokenVerifier` over a `KeyStore`."""

    def __init__(self, keys: KeyStore) -> None:
        self._keys = keys

    async def verify_token(self, token: str) -> AccessToken | None:
        """The key `token` is, or None (the SDK then answers 401).

        The store may re-read its file (a key created or revoked since), so it
        runs on a worker thread, off the event loop."""
        try:
            key = await anyio.to_thread.run_sync(self._keys.authenticate, token)
        except ConfigError as exc:
            log.error("%s", exc)
            return None
        if key is None:
            return None
        return KeyAccess(token=f"key:{key.id}", client_id=key.id, scopes=[], key=key)


def request_key(_ctx: Context) -> UserScope:
    """The key of the HTTP request this tool call came in on."""
    access = get_access_token()
    if not isinstance(access, KeyAccess):  # unreachable behind the SDK's RequireAuthMiddleware
        raise ToolError("this request carries no API key")
    return access.key


def key_scope(settings: "Settings", token: str) -> ApiKey:
    """The key `token` is among the data dir's keys (or GRAPHMEM_API_KEYS), for a
    stdio server scoped by a key.

    :raises ConfigError: no such key.
    """
    key = KeyStore.from_settings(settings).authenticate(token)
    if key is None:
        raise ConfigError("GRAPHMEM_MCP_KEY is not a key of this data dir (see `graphmem keys list`)")
    return key


def serve_http(memory: "Memory", *, host: str, port: int) -> None:
    """Serve the tools at http://host:port/mcp until SIGINT or SIGTERM (uvicorn's)."""
    netloc = f"[{host}]" if ":" in host else host
    auth = AuthSettings(issuer_url=f"http://{netloc}:{port}", resource_server_url=None)
    keys = KeyStore.from_settings(memory.settings)
    keys.list()  # a key file that cannot be read: ConfigError now, not a refusal per request
    server = build_server(memory, request_key, token_verifier=KeyVerifier(keys), auth=auth)
    server.run("streamable-http", host=host, port=port, streamable_http_path=MCP_PATH)
