"""docs/results.md is written by the benchmark scripts (bench/results.py): a script replaces exactly its
own section, and every section has a script that writes it."""

from __future__ import annotations

import ast
import importlib.util
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
RESULTS_MD = ROOT / "docs" / "results.md"

_spec = importlib.util.spec_from_file_location("bench_results", BENCH / "results.py")
results = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(results)

DOC = """# Results

intro: the markers of a section are its own lines

<!-- results:a -->
old a line 1
old a line 2
<!-- /results:a -->

between

<!-- results:b -->
<!-- /results:b -->
tail without a newline"""


def test_a_section_is_replaced_and_nothing_else_changes():
    doc = DOC
    out = results.replace_section(doc, "a", "new\nbody")
    assert out == doc.replace("old a line 1\nold a line 2\n", "new\nbody\n")
    out_b = results.replace_section(out, "b", "b body\n")
    assert out_b == out.replace(
        "<!-- results:b -->\n<!-- /results:b -->", "<!-- results:b -->\nb body\n<!-- /results:b -->"
    )
    assert results.replace_section(out_b, "b", "b body\n") == out_b  # idempotent
    emptied = results.replace_section(out_b, "a", "")
    assert emptied == out_b.replace("<!-- results:a -->\nnew\nbody\n", "<!-- results:a -->\n")
    assert results.section_names(out_b) == ["a", "b"]


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ("<!-- results:a -->\n<!-- /results:a -->\n", "docs/results.md has no section 'x' (sections: a)"),
        ("text\n", "docs/results.md has no section 'x' (sections: none)"),
        ("<!-- results:x -->\n", "section 'x' is never closed (<!-- /results:x -->)"),
        ("<!-- results:x -->\n<!-- /results:y -->\n", "line 2: closes section 'y', but the open one is 'x'"),
        (
            "<!-- results:x -->\n<!-- results:y -->\n<!-- /results:y -->\n<!-- /results:x -->\n",
            "line 2: section 'y' opens inside section 'x'",
        ),
        (
            "<!-- results:x -->\n<!-- /results:x -->\n<!-- results:x -->\n<!-- /results:x -->\n",
            "line 3: a second section 'x'",
        ),
        (
            "<!-- results:x --> <!-- /results:x -->\n",
            "section 'x': put its two markers on lines of their own",
        ),
    ],
)
def test_malformed_or_missing_sections_are_errors_that_say_where(doc, message):
    with pytest.raises(results.ResultsError) as e:
        results.replace_section(doc, "x", "body")
    assert str(e.value) == message


def test_a_recorded_run_writes_its_output_under_a_stamp(tmp_path, monkeypatch, capsys):
    path = tmp_path / "results.md"
    path.write_text("head\n<!-- results:demo -->\nstale\n<!-- /results:demo -->\nfoot\n")
    monkeypatch.setattr(sys, "argv", ["bench/demo.py", "--quick", "--write-results"])
    with results.recorded("demo", True, partial="--quick: 3 programs", path=path):
        print("figure 1: 42")
        print("```not a fence of ours```")
    assert capsys.readouterr().out == "figure 1: 42\n```not a fence of ours```\n"  # still printed
    text = path.read_text()
    m = re.fullmatch(
        r"head\n<!-- results:demo -->\n(_Written by .*_)\n\n(_A partial run .*_)\n\n(````text\n.*\n````)\n"
        r"<!-- /results:demo -->\nfoot\n",
        text,
        flags=re.S,
    )
    assert m is not None, text
    stamp, partial, block = m.groups()
    assert stamp.startswith("_Written by `python bench/demo.py --quick` on ")
    assert re.search(r", commit [0-9a-f]{10}( with uncommitted changes)?; ", stamp)
    assert re.search(r"\d+ cores, .*, Python 3\.\d+\.\d+, malloc (jemalloc|glibc|system|\w+)\._$", stamp)
    assert partial == "_A partial run (--quick: 3 programs): the full run's figures differ._"
    assert block == "````text\nfigure 1: 42\n```not a fence of ours```\n````"


def test_a_run_that_fails_or_is_not_asked_to_write_leaves_the_file_alone(tmp_path, monkeypatch):
    path = tmp_path / "results.md"
    original = "<!-- results:demo -->\nstale\n<!-- /results:demo -->\n"
    path.write_text(original)
    monkeypatch.setattr(sys, "argv", ["bench/demo.py"])
    with results.recorded("demo", False, path=path):
        print("not recorded")
    with pytest.raises(RuntimeError), results.recorded("demo", True, path=path):
        print("half a run")
        raise RuntimeError("the benchmark failed")
    assert path.read_text() == original
    with (
        pytest.raises(results.ResultsError, match="no section 'missing'"),
        results.recorded("missing", True, path=path),
    ):
        raise AssertionError("the block must not run when its section is missing")


def _declared_sections() -> dict[str, tuple[str, ...]]:
    """script name -> the RESULTS_SECTIONS it declares (bench/*.py, by reading the source)."""
    out = {}
    for script in sorted(BENCH.glob("*.py")):
        for node in ast.parse(script.read_text()).body:
            if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == [
                "RESULTS_SECTIONS"
            ]:
                out[script.name] = ast.literal_eval(node.value)
    return out


def test_every_section_of_the_results_doc_has_a_script_that_writes_it_and_back():
    declared = _declared_sections()
    written = [name for names in declared.values() for name in names]
    assert len(written) == len(set(written)), "two scripts write one section"
    assert sorted(results.section_names(RESULTS_MD.read_text())) == sorted(written)
    for script, names in declared.items():
        source = (BENCH / script).read_text()
        assert "results.FLAG" in source, f"{script} has no --write-results flag"
        for name in names:
            assert f'"{name}"' in source.split("RESULTS_SECTIONS", 1)[1], f"{script} never records {name!r}"


def test_the_headline_scripts_write_results():
    declared = _declared_sections()
    for script in ("rule_power.py", "perturbed.py", "digest.py", "revision.py", "fastest.py"):
        assert script in declared
