"""`graphmem.analysis` is a read-only capability: it may read the graph layer, never ingest or retrieval."""

from __future__ import annotations

import re
from pathlib import Path

ANALYSIS = Path(__file__).resolve().parents[2] / "analysis"
IMPORT = re.compile(r"^\s*(?:from graphmem\.(\w+)|from graphmem import (\w+)|import graphmem\.(\w+))", re.MULTILINE)


def test_analysis_imports_neither_ingest_nor_retrieval_nor_the_facade():
    imported = {name for p in ANALYSIS.glob("*.py") for groups in IMPORT.findall(p.read_text()) for name in groups if name}
    assert "temporal" in imported, "positive control: the scan sees graph-layer imports"
    assert not imported & {"ingest", "retrieval", "memory", "evals", "cli"}, imported
