"""The layer picture of the README, enforced: imports only point down.

    entry points   graphmem.memory, graphmem.cli*, graphmem.service, graphmem.demo
    capabilities   graphmem.ingest, graphmem.retrieval, graphmem.forgetting, graphmem.analysis
    graph layer    graphmem.graph (store, Cypher builders, fact repository, inspection, LLM cache)
    shared         graphmem.parsing (text, dates), graphmem.embedding
    schema         graphmem.schema (models, errors, time predicates, supersession, decay)

`graphmem.evals` sits beside the entry points: it drives the whole stack.
Every module is read as source (ast), so a lazy import inside a function counts
too; a module that is never imported still has its imports checked.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = {"graphmem": "graphmem", "schema": "graphmem.schema", "ingest": "graphmem.ingest",
           "retrieval": "graphmem.retrieval", "evals": "graphmem.evals"}
LAYER_PACKAGES = {"schema", "parsing", "embedding", "graph", "ingest", "retrieval", "forgetting",
                  "analysis", "evals", "service"}
TOP = 4  # entry points, evals and the service drive the stack and may call each other
RANK = {"schema": 0, "parsing": 1, "embedding": 1, "graph": 2,
        "ingest": 3, "retrieval": 3, "forgetting": 3, "analysis": 3, "entry": 4, "evals": 4, "service": 4}


def layer_of(module: str) -> str | None:
    """The layer a `graphmem...` module belongs to; None for third-party modules."""
    parts = module.split(".")
    if parts[0] != "graphmem":
        return None
    if len(parts) > 1 and parts[1] in LAYER_PACKAGES:
        return parts[1]
    return "entry"


def modules() -> list[tuple[str, Path]]:
    found = []
    for folder, package in FOLDERS.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT / folder).with_suffix("")
            found.append((".".join([package, *(p for p in rel.parts if p != "__init__")]), path))
    return found


def imported(path: Path) -> set[str]:
    """Every graphmem module a file imports, `from graphmem import x` read as graphmem.x."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "graphmem":
                names.update(f"graphmem.{a.name}" for a in node.names)
            else:
                names.add(node.module)
    return {n for n in names if n.split(".")[0] == "graphmem"}


def violations(found: list[tuple[str, Path]] | None = None) -> list[str]:
    bad = []
    for module, path in found if found is not None else modules():
        source = layer_of(module)
        if module == "graphmem":
            continue  # the package root re-exports the public API lazily
        for target_module in imported(path):
            target = layer_of(target_module)
            if target is None or target == source:
                continue
            if RANK[target] > RANK[source] or (RANK[target] == RANK[source] and RANK[source] < TOP):
                bad.append(f"{path.name} as {module} ({source}) imports {target_module} ({target})")
    return bad


def test_imports_only_point_down():
    assert violations() == []


def test_retrieval_and_ingest_do_not_import_each_other():
    for module, path in modules():
        mine = layer_of(module)
        for target in map(layer_of, imported(path)):
            assert {mine, target} != {"ingest", "retrieval"}, path


@pytest.mark.parametrize("source,target", [
    ("graphmem.graph.store", "graphmem.ingest.pipeline"),
    ("graphmem.retrieval.search", "graphmem.ingest.rules"),
    ("graphmem.ingest.pipeline", "graphmem.retrieval.search"),
    ("graphmem.schema.models", "graphmem.graph.store"),
    ("graphmem.graph.inspect", "graphmem.forgetting.pipeline"),
    ("graphmem.forgetting.pipeline", "graphmem.memory"),
    ("graphmem.parsing.dates", "graphmem.graph.store"),
])
def test_the_rule_catches_a_wrong_import(tmp_path, source, target):
    """The check itself works: a planted upward or sideways import is reported,
    and the same module importing downwards is not."""
    wrong = tmp_path / "wrong.py"
    wrong.write_text(f"import json\nfrom {target} import x\n", encoding="utf-8")
    assert violations([(source, wrong)]) == [f"wrong.py as {source} ({layer_of(source)}) imports {target} ({layer_of(target)})"]
    fine = tmp_path / "fine.py"
    fine.write_text("from graphmem.schema.models import FactEdge\n", encoding="utf-8")
    assert violations([(source, fine)]) == [] or source.startswith("graphmem.schema")
