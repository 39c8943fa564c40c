"""Execute the analyst notebooks top to bottom; render them to HTML.

Why a script: the notebooks are committed without outputs. ``make notebooks``
runs this to write readable HTML to ``notebooks/_html/`` (git-ignored), and
``tests/test_notebooks.py`` uses `execute` so ``make test`` runs every one.

The kernel is this interpreter: a kernelspec written to a temporary folder and
used only here, so a notebook sees the same graphmem as the tests whatever
kernels the machine has registered, and nothing is written outside the
repository and the temporary folder (connection file and IPython profile included).

Usage:
    python notebooks/render.py [--out DIR] [NAME ...]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import nbformat
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient

HERE = Path(__file__).resolve().parent
KERNEL = "graphmem-venv"
CELL_TIMEOUT_S = 600
KERNEL_ENV = {"HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false", "TQDM_DISABLE": "1",
              "MPLBACKEND": "module://matplotlib_inline.backend_inline"}


def notebooks() -> list[Path]:
    """The analyst notebooks, in reading order (``NN_name.ipynb``)."""
    return sorted(HERE.glob("[0-9][0-9]_*.ipynb"))


@contextmanager
def kernel_manager(env: Mapping[str, str] | None = None) -> Iterator[KernelManager]:
    """A manager for a kernel running ``sys.executable``, its files in a temporary folder."""
    with tempfile.TemporaryDirectory(prefix="graphmem-kernel-") as tmp:
        spec_dir = Path(tmp) / "kernels" / KERNEL
        spec_dir.mkdir(parents=True)
        kernel_env = KERNEL_ENV | {"IPYTHONDIR": str(Path(tmp) / "ipython"), "JUPYTER_RUNTIME_DIR": tmp} | dict(env or {})
        (spec_dir / "kernel.json").write_text(json.dumps({
            "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
            "display_name": "graphmem (this interpreter)", "language": "python", "env": kernel_env,
        }))
        specs = KernelSpecManager(kernel_dirs=[str(spec_dir.parent)], ensure_native_kernel=False)
        yield KernelManager(kernel_name=KERNEL, kernel_spec_manager=specs,
                            connection_file=str(Path(tmp) / "connection.json"))


def execute(path: Path, env: Mapping[str, str] | None = None, timeout: int = CELL_TIMEOUT_S) -> nbformat.NotebookNode:
    """Run `path` top to bottom in its own folder; raises `nbclient.exceptions.CellExecutionError` on an error."""
    notebook = nbformat.read(path, as_version=4)
    with kernel_manager(env) as km:
        try:
            NotebookClient(notebook, km=km, timeout=timeout, resources={"metadata": {"path": str(path.parent)}}).execute()
        finally:
            if km.has_kernel:
                km.shutdown_kernel()  # a client given a manager leaves its kernel running
    return notebook


def _find_templates() -> None:
    """Add nbconvert's own data folder to JUPYTER_PATH: a venv that borrows another
    environment's site-packages (a git worktree's) has the templates only there."""
    import nbconvert

    for prefix in Path(nbconvert.__file__).resolve().parents:
        if (prefix / "share" / "jupyter" / "nbconvert" / "templates").is_dir():
            found = str(prefix / "share" / "jupyter")
            os.environ["JUPYTER_PATH"] = os.pathsep.join(filter(None, [os.environ.get("JUPYTER_PATH"), found]))
            return


def render(path: Path, out: Path) -> Path:
    """Execute `path` and write it as HTML into `out`."""
    from nbconvert import HTMLExporter

    _find_templates()
    html, _ = HTMLExporter().from_notebook_node(execute(path))
    out.mkdir(parents=True, exist_ok=True)
    target = out / f"{path.stem}.html"
    target.write_text(html, encoding="utf-8")
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=HERE / "_html")
    parser.add_argument("names", nargs="*", help="notebook stems (default: all)")
    args = parser.parse_args(argv)
    chosen = [p for p in notebooks() if not args.names or p.stem in args.names]
    for path in chosen:
        print(f"rendered {render(path, args.out)}", flush=True)
    return 0 if chosen else 1


if __name__ == "__main__":
    raise SystemExit(main())
