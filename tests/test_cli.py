"""The command line: exact outputs, one-line errors, exit codes."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from eqsat_uopc.cli import main

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def test_run_prints_program_and_value(capsys):
    assert main(["run", str(EXAMPLES / "call_sq.uir")]) == 0
    out = capsys.readouterr().out
    assert out == (
        f"# {EXAMPLES / 'call_sq.uir'}\n"
        "%0 = param : slot=0 dtype=i32\n%1 = mul %0, %0\n%2 = call %1, 7 : name=sq\n=> 49 (as expected)\n\n"
    )


def test_run_with_inputs_json(capsys):
    assert main(["run", str(EXAMPLES / "bind.uir"), "--input", "5", "--input", "4", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {
        "file": str(EXAMPLES / "bind.uir"),
        "value": 28,
        "error": None,
        "ok": True,
    }


@pytest.mark.parametrize("backend", ["interpreter", "c"])
def test_run_every_example_as_expected(capsys, backend):
    assert main(["run", str(EXAMPLES), "--backend", backend, "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(rows) == len(list(EXAMPLES.glob("*.uir"))) and all(r["ok"] for r in rows)


def test_missing_file_is_one_line(capsys):
    assert main(["run", "nope.uir"]) == 1
    assert capsys.readouterr().err == "eqsat-uopc: error: nope.uir: no such file or directory\n"


def test_malformed_program_names_file_line_and_column(tmp_path, capsys):
    bad = tmp_path / "bad.uir"
    bad.write_text("%0 = param : slot=0 dtype=i32\n%1 = frobnicate %0\n")
    assert main(["run", str(bad)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"eqsat-uopc: error: {bad}") and "line 2, column 6" in err


def test_wrong_number_of_inputs(tmp_path, capsys):
    assert main(["run", str(EXAMPLES / "bind.uir"), "--input", "5"]) == 1
    assert capsys.readouterr().err.endswith("no value for PARAM slot [1]\n")


def test_console_script_usage_error_exit_code():
    r = subprocess.run([sys.executable, "-m", "eqsat_uopc.cli", "run"], capture_output=True, text=True)
    assert r.returncode == 2 and "the following arguments are required: target" in r.stderr
