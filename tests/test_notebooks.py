"""The research notebooks run end to end (quick mode) and are committed with a full run's outputs.

Quick mode (EQSAT_NOTEBOOK_QUICK=1, read in each notebook's first code cell) shrinks the corpus
samples and budgets so that all seven notebooks run in well under 2 minutes on one core; any cell
error fails the test. `notebooks/run_all.py` regenerates the committed full-mode outputs.
"""

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from eqsat_uopc.allocator import children_on_jemalloc

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
NAMES = [
    "01_greedy_vs_saturation.ipynb",
    "02_budgets.ipynb",
    "03_extractors.ipynb",
    "04_rule_order.ipynb",
    "05_smallest_vs_fastest.ipynb",
    "06_rule_synthesis.ipynb",
    "07_tinygrad_kernels.ipynb",
]


def test_the_seven_notebooks_are_there():
    assert sorted(p.name for p in NOTEBOOKS.glob("*.ipynb")) == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_notebook_runs_in_quick_mode(name, monkeypatch):
    monkeypatch.setenv("EQSAT_NOTEBOOK_QUICK", "1")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    with children_on_jemalloc():  # as notebooks/run_all.py runs them
        NotebookClient(
            nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOKS)}}
        ).execute()
    first_code = next(c for c in nb.cells if c.cell_type == "code")
    assert first_code.outputs[0]["text"] == "mode: quick\n"
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert errors == []


@pytest.mark.parametrize("name", NAMES)
def test_committed_notebook_has_a_question_plots_and_full_run_outputs(name):
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    assert nb.cells[0].cell_type == "markdown" and "**Question:**" in nb.cells[0].source
    last = nb.cells[-1]
    assert last.cell_type == "markdown" and last.source.startswith("## What we learned")
    assert "WHAT_WE_LEARNED" not in last.source
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(c.execution_count is not None for c in code), "every code cell carries a full run's output"
    assert code[0].outputs[0]["text"] == "mode: full\n"
    pngs = [o for c in code for o in c.outputs if o.output_type == "display_data" and "image/png" in o.data]
    assert pngs, "a notebook shows at least one plot"
    assert not [o for c in code for o in c.outputs if o.output_type == "error"]
