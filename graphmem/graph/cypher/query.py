"""The `Query` value every Cypher builder returns: text plus parameters."""

from __future__ import annotations

from typing import Any, NamedTuple



class Query(NamedTuple):
    cypher: str
    params: dict[str, Any]
