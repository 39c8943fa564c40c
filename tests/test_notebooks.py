"""The analyst notebooks: committed without outputs, and each runs top to bottom.

Each notebook runs in a kernel on this interpreter (`notebooks/render.py`), with
its temporary folders under this test's tmp dir, so a notebook that leaves its
embedded FalkorDB running fails here (and in the session's leak check).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import nbformat
import psutil
import pytest

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
EXPECTED = ["01_quickstart", "02_life_over_time", "03_what_changed", "04_the_graph", "05_eval_results"]


def _render_module():
    spec = importlib.util.spec_from_file_location("notebook_render", NOTEBOOKS / "render.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


render = _render_module()


def test_the_five_notebooks_are_there_in_order():
    assert [p.stem for p in render.notebooks()] == EXPECTED


@pytest.mark.parametrize("path", render.notebooks(), ids=lambda p: p.stem)
def test_committed_without_outputs_and_opening_with_what_it_shows(path):
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    code = [c for c in notebook.cells if c.cell_type == "code"]
    stale = [i for i, c in enumerate(code) if c.outputs or c.execution_count is not None]
    assert not stale, f"{path.name}: code cells {stale} hold outputs; clear them before committing"
    first = notebook.cells[0]
    assert first.cell_type == "markdown" and "What this shows" in first.source
    assert any("assert " in c.source for c in code), "each notebook checks its own result"
    assert "close()" in code[-1].source or "cleanup()" in code[-1].source


def _servers_under(folder: Path) -> list[int]:
    alive = []
    for proc in psutil.process_iter(["name"]):
        try:
            if "redis-server" in (proc.info["name"] or "") and Path(proc.cwd()).is_relative_to(folder):
                alive.append(proc.pid)
        except psutil.Error:
            continue
    return alive


@pytest.mark.parametrize("path", render.notebooks(), ids=lambda p: p.stem)
def test_runs_top_to_bottom_and_draws_a_figure(path, tmp_path):
    executed = render.execute(path, env={"TMPDIR": str(tmp_path)})
    outputs = [o for c in executed.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert any("image/png" in o.get("data", {}) for o in outputs), f"{path.name} draws no figure"
    assert not _servers_under(tmp_path), f"{path.name} left its embedded FalkorDB running"
