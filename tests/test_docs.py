"""The documents in docs/ keep their promises: every ```python block runs as written, links between
documents lead to files of the repository, and nothing cites a file outside it.

A document's blocks run in order in one namespace (a later block may use what an earlier one
defined, as a reader following the text would). docs/cli.md and docs/fuzzing.md have tests of their
own (test_front_door.py, test_fuzz_tinygrad.py), which also check their output; docs/results.md is
written by the benchmark scripts (test_results.py).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
TESTED_ELSEWHERE = {"cli.md", "fuzzing.md"}
BLOCK = re.compile(r"```python\n(.*?)```", flags=re.S)
DOCUMENTS = sorted(p.name for p in DOCS.glob("*.md") if BLOCK.search(p.read_text()))


@pytest.mark.parametrize("name", [n for n in DOCUMENTS if n not in TESTED_ELSEWHERE])
def test_every_python_block_of_a_document_runs(name):
    namespace = {"__name__": f"docs_{name[:-3]}"}
    for k, block in enumerate(BLOCK.findall((DOCS / name).read_text())):
        exec(compile(block, f"docs/{name} python block {k}", "exec"), namespace)


def test_the_guide_and_design_have_examples_to_run():
    assert {"guide.md", "DESIGN.md"} <= set(DOCUMENTS)


# documents the docs and code may name that another branch of work adds (the rule declarations)
PENDING = {"docs/rules.md", "docs/rule-declarations.md"}


def _markdown() -> list[Path]:
    return [ROOT / "README.md", ROOT / "bench" / "README.md", *sorted(DOCS.glob("*.md"))]


@pytest.mark.parametrize("path", _markdown(), ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_lead_to_files_of_the_repository(path):
    broken = []
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", path.read_text()):
        if re.match(r"[a-z]+://", target):
            continue
        resolved = (path.parent / target).resolve()
        rel = resolved.relative_to(ROOT) if resolved.is_relative_to(ROOT) else resolved
        if not resolved.is_relative_to(ROOT):
            broken.append(f"{target} (outside the repository)")
        elif not resolved.exists() and str(rel) not in PENDING:
            broken.append(target)
    assert broken == []


def test_design_has_every_section_the_code_cites():
    """Code, tests, benchmarks and examples cite docs/DESIGN.md by section: "docs/DESIGN.md, "Title""."""
    headings = {
        h.strip().lower() for h in re.findall(r"^#+ (.*)$", (DOCS / "DESIGN.md").read_text(), flags=re.M)
    }
    cited, missing = 0, []
    sources = (
        "eqsat_uopc/**/*.py",
        "extract/*.py",
        "rules/*.py",
        "tests/*.py",
        "bench/*.py",
        "examples/*.uir",
    )
    for path in [p for pattern in sources for p in ROOT.glob(pattern)]:
        if path == Path(__file__):
            continue
        text = path.read_text()
        for m in re.finditer(r"DESIGN\.md(?:, \"([^\"]+)\")?", text):
            cited += 1
            if not text[max(0, m.start() - 5) : m.start()].endswith("docs/"):
                missing.append(f"{path.relative_to(ROOT)}: cites DESIGN.md, not docs/DESIGN.md")
            elif m.group(1) and m.group(1).lower() not in headings:
                missing.append(f"{path.relative_to(ROOT)}: no section {m.group(1)!r} in docs/DESIGN.md")
    assert cited > 0 and missing == []


OUTSIDE = re.compile(r"(?<![\w.])(?:\.\./shared|/work/|shared/(?:DESIGN|STYLE)|spec/\d)")


def test_nothing_cites_a_file_outside_the_repository():
    found = []
    roots = ["eqsat_uopc", "extract", "rules", "tests", "bench", "examples", "notebooks", "docs"]
    files = [
        p
        for r in roots
        for p in (ROOT / r).rglob("*")
        if p.suffix in (".py", ".md", ".uir", ".ipynb", ".egg")
    ]
    for path in [ROOT / "README.md", *files]:
        if path == Path(__file__):
            continue
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if OUTSIDE.search(line):
                found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()[:80]}")
    assert found == []
