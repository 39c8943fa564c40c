"""graphmem: a temporal knowledge-graph memory for LLM agents on embedded FalkorDB.

Example:
    >>> from graphmem import Memory
    >>> with Memory() as mem:
    ...     mem.facts("alice")
"""

from graphmem.config import Settings
from graphmem.errors import (
    ConfigError,
    ExtractionError,
    GraphMemError,
    InvalidInput,
    NotFound,
    StoreError,
)
from graphmem.memory import Memory
from graphmem.schema.records import AddFactResult, FactRecord, Timeline

__all__ = [
    "AddFactResult",
    "ConfigError",
    "ExtractionError",
    "FactRecord",
    "GraphMemError",
    "InvalidInput",
    "Memory",
    "NotFound",
    "Settings",
    "StoreError",
    "Timeline",
]
