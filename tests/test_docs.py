"""The documents in docs/ keep their promises: every ```python block runs as written, and every
relative link of the documents (the READMEs, docs/, the notebooks' text) resolves inside the
repository, to a file, and to a heading of it when it names one: a link to a file outside the
repository is broken as a link to nothing is.

A document's blocks run in order in one namespace (a later block may use what an earlier one
defined, as a reader following the text would). docs/cli.md and docs/fuzzing.md have tests of their
own (test_front_door.py, test_fuzz_tinygrad.py), which also check their output; docs/results.md is
written by the benchmark scripts (test_results.py).
"""

from __future__ import annotations

import json
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


def _markdown() -> list[Path]:
    """Every document a reader follows links in: the READMEs, docs/, the corpus data's README."""
    return [
        ROOT / "README.md",
        ROOT / "bench" / "README.md",
        *sorted(DOCS.glob("*.md")),
        *sorted((ROOT / "eqsat_uopc" / "corpus" / "data").glob("*.md")),
    ]


def _notebook_markdown(path: Path) -> str:
    return "\n\n".join(
        "".join(c["source"]) for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "markdown"
    )


FENCE = re.compile(r"^```.*?^```", flags=re.S | re.M)
INLINE_CODE = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)|^\s*\[[^\]]+\]:\s*(\S+)", flags=re.M)


def _prose(text: str) -> str:
    """text without its code (fenced blocks, inline spans), where brackets are not links."""
    return INLINE_CODE.sub("", FENCE.sub("", text))


def _anchors(path: Path) -> set[str]:
    """The anchors of a markdown file's headings, as GitHub makes them (`## Saturation options
    (optimize, show, compare)` -> `saturation-options-optimize-show-compare`; repeats get -1, -2)."""
    seen: dict[str, int] = {}
    for heading in re.findall(r"^#+ (.*)$", FENCE.sub("", path.read_text()), flags=re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        seen[slug] = seen.get(slug, -1) + 1
        if seen[slug]:
            seen[f"{slug}-{seen[slug]}"] = 0
    return set(seen)


def broken_links(path: Path, text: str) -> list[str]:
    """The relative links of a document (at path, with text) that do not resolve to a file or
    directory inside the repository, or to a heading of the markdown file they name."""
    broken = []
    for m in LINK.finditer(_prose(text)):
        target = m.group(1) or m.group(2)
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto: ...
            continue
        name, _, anchor = target.partition("#")
        resolved = (path.parent / name).resolve() if name else path
        if not resolved.is_relative_to(ROOT):
            broken.append(f"{target} (outside the repository)")
        elif not resolved.exists():
            broken.append(f"{target} (no such file)")
        elif anchor and resolved.suffix == ".md" and anchor not in _anchors(resolved):
            broken.append(f"{target} (no such heading)")
    return broken


@pytest.mark.parametrize("path", _markdown(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_of_a_document_resolves_inside_the_repository(path):
    assert broken_links(path, path.read_text()) == []


@pytest.mark.parametrize("path", sorted((ROOT / "notebooks").glob("*.ipynb")), ids=lambda p: p.name)
def test_every_relative_link_of_a_notebooks_text_resolves_inside_the_repository(path):
    assert broken_links(path, _notebook_markdown(path)) == []


def test_a_link_outside_the_repository_or_to_nothing_is_broken():
    doc = DOCS / "guide.md"
    text = (
        "[a](cli.md) [b](cli.md#saturation-options-optimize-show-compare) [c](https://pypi.org/) "
        "[d](../../elsewhere/DESIGN.md) [e](/etc/hostname) [f](missing.md) [g](cli.md#no-such-heading) "
        "`[h](not-a-link.md)` [i](#extraction-cost-models-and-extractors)\n\n```\n[j](in-code.md)\n```\n"
    )
    assert broken_links(doc, text) == [
        "../../elsewhere/DESIGN.md (outside the repository)",
        "/etc/hostname (outside the repository)",
        "missing.md (no such file)",
        "cli.md#no-such-heading (no such heading)",
    ]


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
