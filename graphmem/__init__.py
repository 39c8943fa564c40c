"""graphmem: a temporal knowledge-graph memory for LLM agents on embedded FalkorDB.

Names are imported on first use (PEP 562 ``__getattr__``), not with the
package: ``graphmem.memory`` pulls in numpy, scipy, redis and dateparser, and a
CLI call such as ``graphmem --help`` should not pay for them.

Example:
    >>> from graphmem import Memory
    >>> with Memory() as mem:
    ...     mem.facts("alice")
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

_HOMES = {
    "AddFactResult": "graphmem.schema.records",
    "CandidateRecord": "graphmem.schema.records",
    "ConfigError": "graphmem.schema.errors",
    "ExtractionError": "graphmem.schema.errors",
    "FactInput": "graphmem.schema.inputs",
    "FactRecord": "graphmem.schema.records",
    "Forbidden": "graphmem.schema.errors",
    "GateResult": "graphmem.schema.records",
    "GraphMemError": "graphmem.schema.errors",
    "InvalidInput": "graphmem.schema.errors",
    "Memory": "graphmem.memory",
    "NotFound": "graphmem.schema.errors",
    "Settings": "graphmem.config",
    "StoreError": "graphmem.schema.errors",
    "Timeline": "graphmem.schema.records",
}

__all__ = sorted(_HOMES)

if TYPE_CHECKING:  # for type checkers and IDEs; at run time __getattr__ does it
    from graphmem.config import Settings
    from graphmem.schema.errors import (
        ConfigError, ExtractionError, Forbidden, GraphMemError, InvalidInput, NotFound, StoreError,
    )
    from graphmem.memory import Memory
    from graphmem.schema.inputs import FactInput
    from graphmem.schema.records import AddFactResult, CandidateRecord, FactRecord, GateResult, Timeline


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'graphmem' has no attribute {name!r}")
    value = getattr(import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
