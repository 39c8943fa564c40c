"""The `Query` value every Cypher builder returns: text plus parameters, and the
cheap form vectors travel in."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
import orjson

from graphmem.schema.errors import InvalidInput


class Query(NamedTuple):
    cypher: str
    params: dict[str, Any]


def in_scopes(var: str, scopes: Sequence[str] | None) -> str:
    """A condition keeping `var`'s scope in ``$scopes`` (`` AND ...``), or '' for
    every scope, so a query of every scope stays the text it always was."""
    return "" if scopes is None else f" AND coalesce({var}.scope, 'user') IN $scopes"


class VectorParam:
    """A vector parameter, already in the text form the FalkorDB client sends.

    Why: the client writes every parameter into a ``CYPHER k=v ...`` header by
    walking lists value by value (``falkordb.helpers.stringify_param_value``),
    and anything that is not a str, list, dict or None goes in as ``str(value)``.
    A 384-float list costs ~2.5 ms that way, client and server. orjson writes the
    float32 array in one C call as the shortest text that reads back as the same
    float32 (bit-identical through ``vecf32``): ~0.05 ms a vector, against ~0.2 ms
    for ``"%.9g" % tuple`` (9 digits), and ~10% fewer characters for the server to
    parse. It is built only from finite floats, so the text is a plain Cypher list
    of numbers.
    """

    __slots__ = ("text", "_floats")

    def __init__(self, values: Sequence[float]) -> None:
        floats = np.ascontiguousarray(values, dtype=np.float32).ravel()
        if not np.all(np.isfinite(floats)):
            raise InvalidInput("a vector holds NaN or infinity")
        self._floats = floats
        self.text = orjson.dumps(floats, option=orjson.OPT_SERIALIZE_NUMPY).decode("ascii")

    @property
    def values(self) -> list[float]:
        return self._floats.tolist()

    def __str__(self) -> str:
        return self.text

    def __len__(self) -> int:
        return len(self._floats)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, VectorParam):
            return bool(np.array_equal(self._floats, other._floats))
        return isinstance(other, (list, tuple)) and self.values == [float(x) for x in other]

    __hash__ = None  # type: ignore[assignment]


def vector(values: Sequence[float] | None) -> VectorParam | None:
    """`values` as a `VectorParam` (None stays None, so ``vecf32(null)`` stays null)."""
    if values is None or isinstance(values, VectorParam):
        return values
    return VectorParam(values)


def vector_rows(rows: Sequence[dict[str, Any]], key: str = "embedding") -> list[dict[str, Any]]:
    """UNWIND rows with their `key` vector as a `VectorParam`."""
    return [{**row, key: vector(row.get(key))} for row in rows]
