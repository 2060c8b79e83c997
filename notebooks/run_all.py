"""Regenerate every research notebook: execute each in full mode and write its outputs in place.

    .venv/bin/python notebooks/run_all.py            # all notebooks, full mode
    .venv/bin/python notebooks/run_all.py 02 04      # only those whose names start so
    EQSAT_NOTEBOOK_QUICK=1 .venv/bin/python notebooks/run_all.py   # quick mode (what the tests run)

Running them needs the `notebooks` extra (`pip install -e '.[notebooks]'`, which `.[test]`
includes); without it the script says which packages are missing and how to install them.

Each notebook runs in a fresh kernel (on jemalloc when the system has it: eqsat_uopc.allocator)
with its own directory as working directory; the time each took is printed. Execution stops at
the first failing notebook (nbclient raises the cell's error).
"""

from __future__ import annotations

import importlib.util
import os
import sys
import time
from pathlib import Path
from typing import Any

# what running the notebooks needs beyond eqsat-uopc itself: the `notebooks` extra of pyproject.toml
NEEDS = {"nbformat": "nbformat", "nbclient": "nbclient", "ipykernel": "ipykernel", "matplotlib": "matplotlib"}
INSTALL = "pip install -e '.[notebooks]'"


def missing(needs: dict[str, str] | None = None) -> list[str]:
    """The packages (by distribution name) of `needs` (import name -> distribution; default NEEDS)
    that are not installed."""
    needs = NEEDS if needs is None else needs
    return [dist for module, dist in needs.items() if importlib.util.find_spec(module) is None]


NOTEBOOKS = Path(__file__).resolve().parent
CELL_TIMEOUT = 1200  # seconds per cell: full mode runs corpus sweeps in single cells


def notebooks(prefixes: list[str] | None = None) -> list[Path]:
    """The notebooks of this directory, in name order, filtered by name prefixes."""
    paths = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
    return [p for p in paths if not prefixes or any(p.name.startswith(x) for x in prefixes)]


def execute(path: Path, write: bool = True, timeout: int = CELL_TIMEOUT) -> float:
    """Execute one notebook in a fresh python3 kernel; write it back with its outputs. Seconds taken."""
    import nbformat
    from nbclient import NotebookClient

    from eqsat_uopc.allocator import children_on_jemalloc

    nb: Any = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    with children_on_jemalloc():  # the kernel, like the tool's own processes (eqsat_uopc.allocator)
        NotebookClient(
            nb, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
        ).execute()
    seconds = time.perf_counter() - start
    for cell in nb.cells:  # execution timestamps are volatile: keep the committed files stable
        cell.get("metadata", {}).pop("execution", None)
    if write:
        nbformat.write(nb, path)
    return seconds


def main(argv: list[str]) -> int:
    if absent := missing():
        verb = "is" if len(absent) == 1 else "are"
        print(
            f"run_all.py: error: the notebooks need {', '.join(absent)}, which {verb} not installed; "
            f"from the repository's root: {INSTALL}",
            file=sys.stderr,
        )
        return 1
    quick = os.environ.get("EQSAT_NOTEBOOK_QUICK") == "1"
    paths = notebooks(argv)
    if not paths:
        print(f"no notebook matches {argv}", file=sys.stderr)
        return 1
    for path in paths:
        seconds = execute(path, write=not quick)
        print(
            f"{path.name}: {seconds:.1f} s ({'quick, not written' if quick else 'full, written'})", flush=True
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
