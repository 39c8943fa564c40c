"""Settings, read from the environment (prefix ``GRAPHMEM_``) when a Memory or the
service is created, never at import time."""

from __future__ import annotations

from typing import Literal

from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from graphmem.embedding.embedder import DEFAULT_BACKEND


def default_data_dir() -> Path:
    return Path.home() / ".graphmem"


class Settings(BaseSettings):
    """Everything graphmem can be configured with.

    Example:
        >>> Settings(data_dir="/tmp/gm").data_dir
        PosixPath('/tmp/gm')
    """

    model_config = SettingsConfigDict(env_prefix="GRAPHMEM_", extra="ignore")

    data_dir: Path = Field(default_factory=default_data_dir)
    falkordb_url: str | None = None
    embedding_model: str = "all-MiniLM-L6-v2"
    embedder_backend: Literal["torch", "onnx-int8"] = Field(  # embedding.embedder.BACKENDS
        default=DEFAULT_BACKEND,
        description="torch: sentence-transformers fp32; onnx-int8: the same model quantized on ONNX Runtime, "
        "several times faster to write with (graphmem/embedding/onnx_minilm.py, `python -m bench speed`)",
    )
    query_timeout_s: float = Field(
        default=300.0, gt=0, description="how long one FalkorDB query may take before it fails with StoreError; "
        "a query is never resent (graphmem.graph.embedded.client_options)",
    )
    llm_base_url: str | None = None
    llm_model: str | None = None
    max_turn_chars: int = 20_000
    max_turns_per_write: int = 2_000
    max_query_chars: int = 2_000
    capacity_per_user: int | None = Field(
        default=None, description="active facts per user; beyond it the lowest-decay facts are archived"
    )
    # the HTTP service (`graphmem serve`, graphmem.service)
    api_keys: str | None = Field(
        default=None, description="API keys from the environment (GRAPHMEM_API_KEYS); format in graphmem.service.keys"
    )
    max_request_bytes: int = Field(
        default=4 * 1024 * 1024, gt=0, description="largest request body the service reads; beyond it 413"
    )
