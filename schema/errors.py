"""The exceptions graphmem raises, one tree with a single root.

    GraphMemError                 anything graphmem raises on purpose
    ├── InvalidInput              the caller sent something unusable (bad user id,
    │                             naive-or-absurd date, wrong embedding size, ...)
    ├── NotFound                  the user, entity or fact asked for does not exist
    ├── Forbidden                 the caller's API key does not allow it (a scope
    │                             outside the key's, a whole-memory verb)
    ├── ConfigError               settings that cannot work (bad URL, no model)
    ├── StoreError                FalkorDB failed or could not be reached
    └── ExtractionError           the LLM extractor failed for good

Backend errors (redis, FalkorDB, openai) are translated in one place each
(`store.translate_store_errors`, the LLM client) with `raise ... from exc`, so a
caller only ever needs `except GraphMemError`. The service maps the tree to
4xx/5xx JSON via `http_status`.
"""

from __future__ import annotations


class GraphMemError(Exception):
    """Root of every error graphmem raises on purpose."""

    http_status = 500


class InvalidInput(GraphMemError, ValueError):
    """The caller passed a value graphmem cannot accept; nothing was written."""

    http_status = 422


class NotFound(GraphMemError, LookupError):
    """The user, entity or fact named does not exist."""

    http_status = 404


class Forbidden(GraphMemError, PermissionError):
    """The caller's API key does not allow this (the service's scoped keys)."""

    http_status = 403


class ConfigError(GraphMemError):
    """Configuration that cannot work, detected when a Memory is created."""

    http_status = 500


class StoreError(GraphMemError):
    """The graph store failed; the message says which operation."""

    http_status = 503


class ExtractionError(GraphMemError):
    """The LLM extractor gave up after retries."""

    http_status = 502


__all__ = [
    "ConfigError",
    "ExtractionError",
    "Forbidden",
    "GraphMemError",
    "InvalidInput",
    "NotFound",
    "StoreError",
]
