"""Issue 34, the front door: each failure a new user met on the command line, reproduced, now fixed.

Each test names the failure it pins down. Messages are exact: a user reads them.
"""

import argparse
import importlib.util
import json
import re
import shutil
import struct
import time
import tomllib
from pathlib import Path

import pytest
from eqsat_uopc.extract import ENode

from eqsat_uopc import cli
from eqsat_uopc.cli import main
from eqsat_uopc.corpus import caviar_path
from eqsat_uopc.ir.dtype import dtypes
from eqsat_uopc.ir.ops import Ops
from tests.test_cli import EXAMPLES

ROOT = Path(__file__).resolve().parent.parent

BOUNDED = "%0 = param : slot=0 dtype=i32 bounds=(0, 15)\n%1 = param : slot=1 dtype=i32\n%2 = add %0, %1\n"


def usage_error(capsys, argv: list[str]) -> str:
    """The one line a usage error prints (argparse's while parsing, or main's for a check after it);
    its status must be argparse's 2."""
    try:
        status = main(argv)
    except SystemExit as e:
        status = e.code
    assert status == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    return err


# -- every option is checked before any work ------------------------------------------------------


def _line(command: str, message: str) -> str:
    return f"eqsat-uopc {command}: error: {message} (see 'eqsat-uopc {command} --help')\n"


SQ = str(EXAMPLES / "call_sq.uir")
BAD_VALUES = [
    # the issue's own: accepted, and --limit -3 ran all but the last 3 programs
    (["compare", "caviar-dev", "--limit", "-3"], "argument --limit: expected an integer >= 1, got '-3'"),
    (["compare", "caviar-dev", "--limit", "0"], "argument --limit: expected an integer >= 1, got '0'"),
    (["compare", "caviar-dev", "--workers", "0"], "argument --workers: expected an integer >= 1, got '0'"),
    (["compare", "caviar-dev", "--workers", "-1"], "argument --workers: expected an integer >= 1, got '-1'"),
    (["compare", "caviar-dev", "--samples", "-1"], "argument --samples: expected an integer >= 0, got '-1'"),
    (
        ["compare", "caviar-dev", "--backends", "foo"],
        "argument --backends: expected comma-separated evaluators from interpreter, c, got 'foo': "
        "'foo' is unknown",
    ),
    (
        ["compare", "caviar-dev", "--backends", "c,c"],
        "argument --backends: expected comma-separated evaluators from interpreter, c, got 'c,c': "
        "'c' is named twice",
    ),
    (
        ["compare", "caviar-dev", "--task-time-limit", "0"],
        "argument --task-time-limit: expected a number of seconds > 0, got '0'",
    ),
    (
        ["compare", "caviar-dev", "--memory-limit", "-5"],
        "argument --memory-limit: expected an integer >= 1, got '-5'",
    ),
    (
        ["synthesize", "--ops", "add", "--out", "x.egg", "--time-limit", "-1"],
        "argument --time-limit: expected a number of seconds > 0, got '-1'",
    ),
    (
        ["synthesize", "--ops", "add", "--out", "x.egg", "--max-candidates", "-1"],
        "argument --max-candidates: expected an integer >= 1, got '-1'",
    ),
    (
        ["synthesize", "--ops", "add", "--out", "x.egg", "--size", "0"],
        "argument --size: expected an integer >= 1, got '0'",
    ),
    (  # "none, none" no more
        ["synthesize", "--ops", "add", "--out", "x.egg", "--base", "nope"],
        "argument --base: invalid choice: 'nope' (choose from 'none', 'symbolic', 'evaluate', 'run', 'ac', "
        "'default', 'default+synth')",
    ),
    (
        ["synthesize", "--ops", "add,pow", "--out", "x.egg"],
        "argument --ops: expected comma-separated ops from add, mul, max, lt, cmplt, ne, cmpne, floordiv, "
        "div, floormod, mod, where, got 'add,pow': 'pow' is unknown",
    ),
    (
        ["synthesize", "--ops", "add", "--out", "x.txt"],
        "argument --out: expected a file name ending in .egg, got 'x.txt'",
    ),
    (
        ["synthesize", "--ops", "add", "--out", "x.egg", "--constants", "1,two"],
        "argument --constants: expected comma-separated integers, got '1,two'",
    ),
    (
        ["optimize", SQ, "--node-budget", "0"],
        "argument --node-budget/--budget: expected an integer >= 1, got '0'",
    ),
    (
        ["optimize", SQ, "--time-limit", "nan"],
        "argument --time-limit: expected a number of seconds > 0 or 'none', got 'nan'",
    ),
    (
        ["optimize", SQ, "--extract-time-limit", "-1"],
        "argument --extract-time-limit: expected a number of seconds > 0 or 'none', got '-1'",
    ),
    (["optimize", SQ, "--pulses", "1.5"], "argument --pulses: expected an integer >= 1, got '1.5'"),
    (
        ["optimize", SQ, "--match-budget", "none"],
        "argument --match-budget: expected an integer >= 1, got 'none'",
    ),
    (
        ["optimize", SQ, "--extract-branch-limit", "-3"],
        "argument --extract-branch-limit: expected an integer >= 1 or 'none', got '-3'",
    ),
    (["optimize", SQ, "--seed-greedy", "maybe"], "argument --seed-greedy: expected yes or no, got 'maybe'"),
    (
        ["show", SQ, "--out", "g.gif"],
        "argument --out: expected a file name ending in one of .dot, .json, .svg, .png, .pdf, got 'g.gif'",
    ),
    (
        ["show", SQ, "--out", "g.dot", "--max-enodes", "0"],
        "argument --max-enodes: expected an integer >= 1, got '0'",
    ),
    (["show", SQ, "--out", "g.dot", "--depth", "-1"], "argument --depth: expected an integer >= 0, got '-1'"),
    (
        ["run", SQ, "--input", "[99,"],
        "argument --input: expected a JSON value (7, 2.5, true, [1, 2]), got '[99,': Expecting value: "
        "line 1 column 5 (char 4)",
    ),
    (
        ["run", SQ, "--backend", "fortran"],
        "argument --backend: invalid choice: 'fortran' (choose from 'interpreter', 'c')",
    ),
    (
        ["capture-tinygrad", "--out", "x.jsonl", "--workloads", "matmul,nope"],
        "argument --workloads: expected comma-separated workloads from matmul, conv2d, pooling, movement, "
        "reductions, arange_onehot_gather, cumsum, cnn, transformer_block, interpolate, got 'matmul,nope': "
        "'nope' is unknown",
    ),
    (
        ["capture-tinygrad", "--out", "x.json"],
        "argument --out: expected a file name ending in .jsonl, got 'x.json'",
    ),
]


@pytest.mark.parametrize(
    ("argv", "message"), BAD_VALUES, ids=[" ".join(a[:1] + a[2:]) for a, _ in BAD_VALUES]
)
def test_a_bad_option_value_is_one_line_with_status_2(capsys, argv, message):
    assert usage_error(capsys, argv) == _line(argv[0], message)


def test_every_option_of_every_subcommand_shows_its_default_in_help():
    parser = cli.parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    assert set(sub.choices) == {
        "run",
        "optimize",
        "explain",
        "show",
        "compare",
        "verify-rules",
        "render-c",
        "capture-tinygrad",
        "synthesize",
        "fuzz-tinygrad",
        "fuzz-soundness",
        "calibrate",
    }
    silent = []
    for name, p in sub.choices.items():
        for a in p._actions:
            if not a.option_strings or isinstance(a, argparse._HelpAction):
                continue
            if a.required or isinstance(a, argparse._StoreTrueAction):
                assert "(default: " in a.help or "(required)" in a.help, (name, a.option_strings)
                continue
            if "(default: " not in (a.help or ""):
                silent.append((name, a.option_strings[0]))
    assert silent == []
    assert "(default: yes)" in sub.choices["optimize"].format_help()  # yes|no shown as the user types it


# -- run: bounds alike on both backends, --input once per slot ---------------------------------------


@pytest.mark.parametrize("backend", ["interpreter", "c"])
def test_run_refuses_an_input_outside_its_bounds_on_every_backend(tmp_path, capsys, backend):
    # issue 34: the interpreter printed `=> 100`, exit 0, where the C backend refused the input
    prog = tmp_path / "prog.uir"
    prog.write_text(BOUNDED)
    assert main(["run", str(prog), "--backend", backend, "--input", "99", "--input", "1"]) == 1
    out, err = capsys.readouterr()
    assert out.rstrip().splitlines()[-1] == (
        "=> InputError: input 0 (PARAM slot 0): i32 scalar: value 99 is outside the input's bounds [0, 15]"
    )
    assert (
        err == f"eqsat-uopc: error: 1 of 1 program(s) failed: {prog}\n"
    )  # said once on stdout, counted here
    assert main(["run", str(prog), "--backend", backend, "--input", "15", "--input", "1"]) == 0
    assert capsys.readouterr().out.rstrip().splitlines()[-1] == "=> 16"


def test_run_with_one_input_per_program_instead_of_per_slot_says_how(tmp_path, capsys):
    # issue 34: `--input '[99, 1]'` printed `UOpError: no value for PARAM slot [1]` twice
    prog = tmp_path / "prog.uir"
    prog.write_text(BOUNDED)
    assert usage_error(capsys, ["run", str(prog), "--input", "[99, 1]"]) == _line(
        "run",
        f"argument --input: given once, but {prog} takes 2 input(s): input 0 (PARAM slot 0): i32 scalar; "
        "input 1 (PARAM slot 1): i32 scalar; repeat --input once per input, in slot order "
        "(--input 99 --input 1)",
    )
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    assert "repeat it once per PARAM slot, in slot order" in " ".join(capsys.readouterr().out.split())


RANGED = "%0 = param : slot=0 dtype=i32\n%1 = range 16 : id=0\n%2 = add %0, %1\n"


@pytest.mark.parametrize("backend", ["interpreter", "c"])
def test_run_evaluates_a_program_with_a_range_at_the_value_given_on_every_backend(tmp_path, capsys, backend):
    # issue 39: the interpreter said `stuck at Ops.ADD`, then refused the --input that would give it
    prog = tmp_path / "prog.uir"
    prog.write_text(RANGED)
    assert main(["run", str(prog), "--backend", backend, "--input", "5", "--input", "15"]) == 0
    assert capsys.readouterr().out.rstrip().splitlines()[-1] == "=> 20"
    assert main(["run", str(prog), "--backend", backend, "--input", "5", "--input", "16"]) == 1
    refused = {  # each backend in its own words (a RANGE out of its range is the C program's fault)
        "interpreter": "InputError: input 1 (RANGE 0): i32 scalar: value 16 is outside the range [0, 15]",
        "c": "IndexOutOfBoundsError: RANGE at %1: value 16 outside [0, 15]",
    }
    assert capsys.readouterr().out.rstrip().splitlines()[-1] == f"=> {refused[backend]}"
    assert usage_error(capsys, ["run", str(prog), "--backend", backend, "--input", "5"]) == _line(
        "run",
        f"argument --input: given once, but {prog} takes 2 input(s): input 0 (PARAM slot 0): i32 scalar; "
        "input 1 (RANGE 0): i32 scalar in [0, 15]; repeat --input once per input, in slot order",
    )


def test_run_without_inputs_says_which_a_range_takes(tmp_path, capsys):
    prog = tmp_path / "prog.uir"
    prog.write_text(RANGED)
    assert main(["run", str(prog)]) == 1
    assert capsys.readouterr().out.rstrip().splitlines()[-1] == (
        "=> InputError: no inputs given: the program takes input 0 (PARAM slot 0): i32 scalar; input 1 "
        "(RANGE 0): i32 scalar in [0, 15]; give them with --input, in this order (a RANGE is a loop "
        "variable: its input is the value to evaluate the program at)"
    )


WRONG_TYPES = [
    # issue 39: `--input true` ran as 1 for an i32
    (
        "%0 = param : slot=0 dtype=i32\n%1 = mul %0, 2\n",
        ["true"],
        "input 0 (PARAM slot 0): i32 scalar: got true (a bool)",
    ),
    (
        "%0 = param : slot=0 dtype=i32\n%1 = mul %0, 2\n",
        ["2.5"],
        "input 0 (PARAM slot 0): i32 scalar: got 2.5 (a float)",
    ),
    (
        "%0 = param : slot=0 dtype=bool\n%1 = where %0, 1, 2\n",
        ["1"],
        "input 0 (PARAM slot 0): bool scalar: got 1 (an int)",
    ),
    (
        "%0 = param : slot=0 dtype=i32 shape=(2,)\n%1 = index %0, 1\n",
        ["[1, 2, 3]"],
        "input 0 (PARAM slot 0): i32 shape (2,): got [1, 2, 3] (a list of length 3)",
    ),
    (
        "%0 = param : slot=0 dtype=i32 shape=(2,)\n%1 = index %0, 1\n",
        ["[1, false]"],
        "input 0 (PARAM slot 0): i32 shape (2,): got [1, false] (element [1] is a bool)",
    ),
    (
        "%0 = param : slot=0 dtype=i32\n%1 = mul %0, 2\n",
        ["2147483648"],
        "input 0 (PARAM slot 0): i32 scalar: got 2147483648 (2147483648, outside the int32 range)",
    ),
]


@pytest.mark.parametrize("backend", ["interpreter", "c"])
@pytest.mark.parametrize(("text", "given", "message"), WRONG_TYPES)
def test_run_refuses_an_input_of_the_wrong_type_or_shape_naming_it(
    tmp_path, capsys, backend, text, given, message
):
    prog = tmp_path / "prog.uir"
    prog.write_text(text)
    argv = ["run", str(prog), "--backend", backend, *(x for g in given for x in ("--input", g))]
    assert usage_error(capsys, argv) == _line("run", f"argument --input: {prog}'s {message}")


@pytest.mark.parametrize(
    ("dtype", "value", "why"),
    [("i32", True, "a bool"), ("i32", 2.5, "a float"), ("bool", 1, "an int"), ("f32", False, "a bool")],
)
def test_binding_an_input_refuses_what_the_c_backend_refuses(dtype, value, why):
    from eqsat_uopc.backend import compile_c
    from eqsat_uopc.errors import InputError
    from eqsat_uopc.ir.uop import UOp, UOpError
    from eqsat_uopc.semantics.values import bind_params

    p = UOp.param(0, getattr(dtypes, dtype))
    program = p.where(1, 2) if dtype == "bool" else p + p
    with pytest.raises(UOpError) as e:
        bind_params(program, {0: value})
    assert str(e.value) == f"PARAM slot 0: expected {dtype} scalar, got {value!r}: {why}"
    with pytest.raises(InputError):
        compile_c(program)(value)


# -- user errors are one type; anything else is a bug with its traceback ------------------------------


def test_user_errors_share_one_base_and_invariant_failures_do_not():
    from eqsat_uopc.extract import CostModelError, EGraphError, ExtractionError

    from eqsat_uopc import backend, errors, saturation
    from eqsat_uopc.allocator import MallocError
    from eqsat_uopc.corpus import CorpusError
    from eqsat_uopc.ir.uir import UirError
    from eqsat_uopc.ir.uop import UOpError
    from eqsat_uopc.pipeline.sweep import SchedulerError, SweepError
    from eqsat_uopc.synthesis.errors import SynthesisError
    from eqsat_uopc.tinygrad import TinygradError

    users = [
        UOpError, UirError, CorpusError, saturation.SaturationError, saturation.DrawError, CostModelError,
        ExtractionError, EGraphError, TinygradError, MallocError, SynthesisError, SweepError, SchedulerError,
        errors.InputError, backend.UnsupportedProgramError, backend.CompilerNotFoundError,
        backend.CacheDirectoryError, backend.UndefinedBehaviorError, backend.IndexOutOfBoundsError,
        cli.CliError,
    ]  # fmt: skip
    assert [c.__name__ for c in users if not issubclass(c, errors.UserError)] == []
    # the builtin each always was stays a base: `except ValueError` code keeps working
    assert issubclass(UOpError, ValueError) and issubclass(backend.IndexOutOfBoundsError, IndexError)
    assert issubclass(backend.UndefinedBehaviorError, ArithmeticError)
    assert backend.InputError is errors.InputError  # one type for the interpreter and the C backend
    bugs = [saturation.SaturationBug, backend.CompilerError]
    assert [c.__name__ for c in bugs if issubclass(c, errors.UserError)] == []


def test_a_bug_is_not_dressed_up_as_bad_input(monkeypatch, capsys):
    # issue 34: cli.main turned every ValueError, LookupError and ArithmeticError into one user line
    def broken(*args, **kwargs):
        return {}["slot"]

    monkeypatch.setattr("eqsat_uopc.pipeline.optimization.optimize", broken)
    with pytest.raises(KeyError):
        main(["optimize", SQ])
    monkeypatch.setattr(cli.run, "_evaluate", lambda *a: [][1])
    with pytest.raises(IndexError):  # the interpreter's own IndexError is the program's; this one is not
        main(["run", SQ, "--backend", "c"])
    capsys.readouterr()
    assert cli.guarded(["run", SQ, "--backend", "c"]) == 70
    err = capsys.readouterr().err
    assert (
        err.startswith("Traceback (most recent call last):") and "IndexError: list index out of range" in err
    )
    assert err.endswith(cli.BUG_REPORT + "\n")


def test_a_user_error_from_deep_inside_is_one_line_status_1(capsys):
    assert main(["optimize", str(EXAMPLES / "exercise8_divmod.uir"), "--budget", "2"]) == 1
    assert capsys.readouterr().err == (
        "eqsat-uopc: error: SaturationError: node_budget 2 is below the program's own size (6 nodes)\n"
    )


def test_an_output_directory_that_does_not_exist_is_refused_before_work(tmp_path, capsys):
    out = tmp_path / "no" / "rows.csv"
    assert main(["compare", str(EXAMPLES / "call_sq.uir"), "--csv", str(out)]) == 1
    assert capsys.readouterr().err == (
        f"eqsat-uopc: error: --csv {out}: directory {out.parent} does not exist\n"
    )


# -- compare: progress, a summary with units, failures in full ----------------------------------------


def _slow_job(payload):
    time.sleep(payload["sleep"])
    if payload.get("fail"):
        raise RuntimeError("this one fails")
    return {"value": payload["sleep"]}


def test_sweep_progress_lines_come_every_few_seconds_when_asked(capsys):
    from eqsat_uopc.pipeline.sweep import SweepTask, sweep

    tasks = [SweepTask(f"t{k}", {"sleep": 0.15, "fail": k == 1}) for k in range(3)]
    rows = sweep(tasks, _slow_job, workers=0, progress="lines", progress_label="compare", progress_every=0.05)
    assert [r["status"] for r in rows] == ["ok", "error", "ok"]
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) >= 4  # several while the tasks run, one at the end
    shape = re.compile(
        r"compare: (\d) of 3 done \(0 timed out, 0 crashed, (\d) failed\), \d+ s(, about \d+ s left)?$"
    )
    assert all(shape.match(x) for x in lines), lines
    assert re.match(r"compare: 3 of 3 done \(0 timed out, 0 crashed, 1 failed\), \d+ s$", lines[-1])


def test_compare_off_a_terminal_prints_progress_and_a_readable_summary(tmp_path, capsys):
    corpus = tmp_path / "c.jsonl"
    corpus.write_text("\n".join(caviar_path().read_text().splitlines()[:2]) + "\n")
    assert main(["compare", str(corpus), "--samples", "5", "--workers", "1"]) == 0
    out, err = capsys.readouterr()
    assert re.search(r"^compare: 2 of 2 done \(0 timed out, 0 crashed, 0 failed\), \d+ s$", err, re.M)
    lines = out.splitlines()
    assert lines[0].split() == [
        "program", "size", "greedy", "(dag_size)", "saturated", "(dag_size)", "ratio", "outcome", "stop",
        "verdict", "validated", "time", "(s)",
    ]  # fmt: skip
    assert "{" not in out  # no Python dicts: `verdict: {'proved': 10}` was the issue
    assert "  programs             2 (2 compared, 0 timed out, 0 crashed, 0 failed)" in lines
    summed = " s (summed over the 2 compared programs)"
    assert any(x.startswith("  time                 saturate ") and x.endswith(summed) for x in lines)
    assert lines[-1].startswith("legend: ratio = saturated cost / greedy cost")


SUMMARY = {
    "int_semantics": "wrap",
    "cost_model": "dag_size",
    "programs": 12,
    "completed": 10,
    "timeout": 1,
    "crashed": 0,
    "error": 1,
    "smaller": 4,
    "equal": 5,
    "larger": 0,
    "greedy_refuted": 1,
    "geomean_ratio": 0.81234,
    "geomean_rows": 9,
    "geomean_left_out": {"greedy_refuted": ["g.uir"], "not_compared": ["t.uir", "e.uir"]},
    "greedy_in_egraph": 9,
    "verdict": {"proved": 8, "tested": 2},
    "greedy_verdict": {"proved": 7, "refuted": 1, "tested": 2},
    "validation": {"identical": 3, "proved": 6, "tested": 1},
    "validation_replaced": 1,
    "greedy_proves": 3,
    "saturated_proves": 6,
    "greedy_wrong": 0,
    "saturated_wrong": 0,
    "time_greedy": 0.04,
    "time_saturate": 2.5,
    "time_extract": 0.31,
    "time_validate": 0.52,
    "time_verify": 250.0,
}


def test_the_summary_is_a_table_with_units_and_says_verification_can_be_skipped():
    from eqsat_uopc.pipeline.comparison_table import summary_text

    assert summary_text(SUMMARY) == (
        "summary\n"
        "  programs             12 (10 compared, 1 timed out, 0 crashed, 1 failed)\n"
        "  settings             int semantics wrap, costs by dag_size\n"
        "  saturated vs greedy  smaller 4, equal 5, larger 0, greedy refuted 1\n"
        "  geomean ratio        0.812 (saturated / greedy cost) over 9 of 12 programs; left out: greedy "
        "refuted 1 (g.uir), as a wrong result's cost is no yardstick; not compared 2 (t.uir, e.uir), as a "
        "program that timed out, crashed or failed has no costs\n"
        "  greedy in e-graph    9 of 10 (saturation also found greedy's result)\n"
        "  saturated verdict    proved 8, tested 2\n"
        "  greedy verdict       proved 7, tested 2, refuted 1\n"
        "  validated            identical 3, proved 6, tested 1; "
        "refuted and replaced 1 (bugs of the rewrites)\n"
        "  expected constant    reached by greedy 3, by saturation 6\n"
        "  wrong constant       greedy 0, saturated 0 (bugs)\n"
        "  time                 saturate 2.50 s, extract 0.31 s, validate 0.52 s, verify 4.2 min, "
        "greedy 0.04 s (summed over the 10 compared programs)\n"
        "  verification took 99% of the time: --no-verify skips it, --samples lowers it"
    )
    quick = {**SUMMARY, "time_verify": 0.1}
    assert "verification took" not in summary_text(quick)


def test_a_failed_row_is_cut_in_the_table_and_whole_below_it():
    from eqsat_uopc.pipeline.comparison_table import failures_text, rows_table

    error = "ValueError: unknown backend 'foo' (expected some of interpreter, c)"
    rows = [{"key": "a.uir", "status": "error", "error": error, "seconds": 0.5}]
    table = rows_table(rows, "dag_size")
    assert table.splitlines()[1].split() == ["a.uir", "error", "ValueError:", "unknown", "bac…", "0.50"]
    assert failures_text(rows) == f"not compared:\n  a.uir: error: {error}"
    assert failures_text(rows, {"a.uir": error}).endswith("(as the file's expect-error line says)")


def test_compare_exits_1_when_a_program_could_not_be_compared(tmp_path, capsys):
    # issue 34: every row errored and the command exited 0
    bad = tmp_path / "d"
    bad.mkdir()
    (bad / "oob.uir").write_text("%0 = stack 1, 2, 3\n%1 = index %0, 5\n")
    (bad / "ok.uir").write_text("%0 = param : slot=0 dtype=i32\n%1 = add %0, 0\n")
    assert main(["compare", str(bad), "--samples", "5", "--workers", "1"]) == 1
    out, err = capsys.readouterr()
    assert f"  {bad / 'oob.uir'}: error: IndexOutOfBoundsError: index 5 out of bounds for STACK of 3\n" in out
    assert err.endswith(
        "eqsat-uopc: error: 1 program(s) could not be compared "
        "(see 'not compared' above, or the rows' error)\n"
    )
    # the same program announcing that error (`# expect-error:`) is no failure
    (bad / "oob.uir").write_text(
        "# expect-error: IndexOutOfBoundsError: index 5 out of bounds for STACK of 3\n"
        "%0 = stack 1, 2, 3\n%1 = index %0, 5\n"
    )
    assert main(["compare", str(bad), "--samples", "5", "--workers", "1"]) == 0


# -- show: a picture that fits a screen ---------------------------------------------------------------


def _class(cid, *nodes):
    from eqsat_uopc.extract import EClass

    return EClass(cid, nodes, dtypes.i32, ())


def _fan():
    """A root e-class of 6 e-nodes, each over its own leaf e-class: 12 e-nodes in 7 e-classes."""
    from eqsat_uopc.extract import EGraph

    leaves = {f"l{k}": _class(f"l{k}", ENode(Ops.CONST, k, ())) for k in range(6)}
    root = _class("r", *(ENode(Ops.ADD, None, (f"l{k}", f"l{k}")) for k in range(6)))
    return EGraph({"r": root, **leaves}, roots=("r",))


def test_select_view_takes_the_choice_first_then_the_nearest_e_classes():
    from eqsat_uopc.saturation import select_view

    g = _fan()
    choice = {"r": ENode(Ops.ADD, None, ("l4", "l4")), "l4": ENode(Ops.CONST, 4, ())}
    v = select_view(g, choice, max_enodes=5, per_class=3)
    assert v.nodes == {"r": (4, 0, 1), "l4": (0,), "l0": (0,)}
    assert (v.drawn_enodes, v.drawn_eclasses, v.complete) == (5, 3, False)
    assert select_view(g, choice, max_enodes=None, per_class=None).complete
    assert select_view(g, choice, depth=0).nodes == {"r": (4, 0, 1, 2)}


def test_a_view_draws_stubs_for_what_it_leaves_out_and_a_legend():
    from eqsat_uopc.saturation import select_view, to_dot

    g = _fan()
    choice = {"r": ENode(Ops.ADD, None, ("l4", "l4")), "l4": ENode(Ops.CONST, 4, ())}
    dot = to_dot(g, choice, view=select_view(g, choice, max_enodes=5, per_class=3))
    assert '    graph [label="root r : i32 (+3 more)", penwidth=3, color="#1f4e99"];' in dot
    assert '  "r.1" -> "l1.more" [style=dashed, color="#888888", label="0"];' in dot
    assert '  "l1.more" [label="l1 …", shape=plaintext, fontcolor="#888888"];' in dot
    assert "l2.more" not in dot  # only e-classes an drawn e-node points at get a stub
    assert (
        '  label="drawn: 5 of 12 e-nodes in 3 of 7 e-classes: the extracted program (filled) and the '
        "e-classes nearest the root, at most 3 e-nodes each; 'c17 …': an e-class not drawn; '+N more': "
        'e-nodes not drawn";'
    ) in dot
    assert to_dot(g, choice, view=select_view(g, choice, max_enodes=None, per_class=None)) == to_dot(
        g, choice
    )


def test_show_draws_the_roots_neighbourhood_not_the_whole_e_graph(tmp_path, capsys):
    # issue 34: 433 e-nodes drawn into a 25,964 x 1,348 PNG
    out = tmp_path / "sq.dot"
    assert main(["show", str(EXAMPLES / "square_chain.uir"), "--out", str(out)]) == 0
    said = capsys.readouterr().out
    m = re.fullmatch(
        rf"drew (\d+) of (\d+) e-nodes in (\d+) of (\d+) e-classes to {re.escape(str(out))}: "
        r"the extracted program and the root's neighbourhood "
        r"\(--max-enodes, --per-class, --depth or --whole draw more\)\n",
        said,
    )
    assert m is not None, said
    drawn, total = int(m[1]), int(m[2])
    boxes = re.findall(r'^    "c\d+\.\d+" \[label=', out.read_text(), re.M)
    assert len(boxes) == drawn == 40 < total
    assert "the extracted program (filled)" in out.read_text()
    assert main(["show", str(EXAMPLES / "square_chain.uir"), "--out", str(out), "--whole"]) == 0
    assert capsys.readouterr().out == f"drew {m[4]} e-classes, {total} e-nodes to {out}\n"


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
def test_the_default_png_of_square_chain_fits_a_screen(tmp_path, capsys):
    out = tmp_path / "sq.png"
    assert main(["show", str(EXAMPLES / "square_chain.uir"), "--out", str(out)]) == 0
    width, height = struct.unpack(">II", out.read_bytes()[16:24])
    assert width <= 2560 and height <= 1600, (width, height)


# -- notebooks: an extra, and run_all.py says what is missing -----------------------------------------


def test_the_notebooks_extra_exists_and_test_installs_it_too():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert sorted(extras["notebooks"]) == [
        "ipykernel>=6.29",
        "matplotlib>=3.8",
        "nbclient>=0.10",
        "nbformat>=5.10",
    ]
    assert set(extras["notebooks"]) <= set(extras["test"])


def test_run_all_says_what_is_missing_and_how_to_install_it(monkeypatch, capsys):
    # issue 34: `No module named 'nbformat'` after either documented install
    spec = importlib.util.spec_from_file_location("run_all", ROOT / "notebooks" / "run_all.py")
    run_all = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(run_all)
    assert run_all.missing() == []  # the test extra has them all
    monkeypatch.setattr(run_all, "NEEDS", {"nbformat": "nbformat", "surely_no_such_module": "surely-not"})
    assert run_all.main([]) == 1
    assert capsys.readouterr().err == (
        "run_all.py: error: the notebooks need surely-not, which is not installed; "
        "from the repository's root: pip install -e '.[notebooks]'\n"
    )


# -- synthesize: results explained --------------------------------------------------------------------


def test_synthesize_explains_zero_rules_from_derivable_candidates(tmp_path, capsys):
    # issue 34: "0 rules ... derivable 12" with no explanation
    out = tmp_path / "a.egg"
    args = [
        "synthesize",
        "--ops",
        "add",
        "--size",
        "3",
        "--vars",
        "x",
        "--const-vars",
        "c",
        "--constants",
        "0",
    ]
    assert main([*args, "--out", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(f"{out}: 0 rules (0 wrap, 0 no_overflow) from 1 candidates over 3 terms in ")
    assert lines[1:] == [
        "outcomes: derivable 1",
        "  derivable: the base rule set 'default' and the rules kept before it already derive it by "
        "saturation, so it adds nothing; --base none synthesizes a self-contained family",
    ]
    assert json.loads((tmp_path / "a.egg.log").read_text().splitlines()[1])["outcome"] == "derivable"


def test_synthesize_refuses_a_variable_named_twice(capsys):
    assert usage_error(
        capsys, ["synthesize", "--ops", "add", "--out", "x.egg", "--vars", "x", "--const-vars", "x"]
    ) == (_line("synthesize", "argument --vars/--bool-vars/--const-vars: 'x' is named twice"))


# -- docs/cli.md covers every subcommand and option, and its Python runs ------------------------------

CLI_DOC = ROOT / "docs" / "cli.md"


def test_the_cli_doc_names_every_subcommand_and_option():
    doc = CLI_DOC.read_text()
    parser = cli.parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    missing = []
    for name, p in sub.choices.items():
        if f"\n## {name}\n" not in doc:
            missing.append(name)
        for a in p._actions:
            if not isinstance(a, argparse._HelpAction):
                missing += [f"{name} {flag}" for flag in a.option_strings if f"`{flag}" not in doc]
    assert missing == []


@pytest.mark.parametrize("index", range(len(re.findall(r"```python\n", CLI_DOC.read_text()))))
def test_the_cli_doc_python_examples_run(index, capsys):
    block = re.findall(r"```python\n(.*?)```", CLI_DOC.read_text(), flags=re.S)[index]
    exec(compile(block, f"docs/cli.md python block {index}", "exec"), {"__name__": "cli_doc"})
    assert capsys.readouterr().out == "bad input: node_budget 1 is below the program's own size (3 nodes)\n"
