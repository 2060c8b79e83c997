"""The `>>>` examples in the package's docstrings run: every module of eqsat_uopc (its rules and
extract packages included) whose source holds one is imported and its examples executed, as
`python -m doctest` would, with `...` standing for any text. A module whose optional dependency is
missing (tinygrad) is skipped, naming it."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# where each installed package's sources are in the repository (pyproject's package-dir)
PACKAGES = {
    "eqsat_uopc": ROOT / "eqsat_uopc",
    "eqsat_uopc.rules": ROOT / "rules",
    "eqsat_uopc.extract": ROOT / "extract",
}
OPTIONAL = {"tinygrad": "pip install 'eqsat-uopc[tinygrad]'"}


def _modules_with_examples() -> list[str]:
    """Dotted names of the modules whose source has a `>>>` line (found without importing them)."""
    names = []
    for package, where in PACKAGES.items():
        for path in sorted(where.rglob("*.py")):
            rel = path.relative_to(where).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            if package == "eqsat_uopc" and parts and parts[0] in ("rules", "extract"):
                continue  # not part of the installed package (the real ones are mapped from the root)
            if any(line.lstrip().startswith(">>> ") for line in path.read_text().splitlines()):
                names.append(".".join([package, *parts]))
    return names


MODULES = _modules_with_examples()


def test_the_docstrings_have_examples():
    assert len(MODULES) >= 10, MODULES


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name):
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name and e.name.split(".")[0] in OPTIONAL:
            pytest.skip(f"{name} needs {e.name}: {OPTIONAL[e.name.split('.')[0]]}")
        raise
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    out: list[str] = []
    tests = [t for t in finder.find(module, name) if t.examples]
    assert tests, f"{name}: a '>>> ' line that is no docstring example"
    for test in tests:
        runner.run(test, out=out.append)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, "".join(out)
