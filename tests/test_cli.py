"""The command line: exact outputs, one-line errors, exit codes."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from eqsat_uopc.cli import main
from eqsat_uopc.corpus import caviar_path

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


def test_compare_names_the_bundled_corpora_when_the_target_is_missing(capsys):
    assert main(["compare", "caviar"]) == 1
    assert capsys.readouterr().err == (
        "eqsat-uopc: error: caviar: no such file or directory, nor a bundled corpus "
        "(caviar-dev, tinygrad-capture)\n"
    )


def test_malformed_program_names_file_line_and_column(tmp_path, capsys):
    bad = tmp_path / "bad.uir"
    bad.write_text("%0 = param : slot=0 dtype=i32\n%1 = frobnicate %0\n")
    assert main(["run", str(bad)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"eqsat-uopc: error: {bad}") and "line 2, column 6" in err


def test_wrong_number_of_inputs_is_a_usage_error_before_any_program_runs(capsys):
    assert main(["run", str(EXAMPLES / "bind.uir"), "--input", "5"]) == 2
    assert capsys.readouterr().err == (
        f"eqsat-uopc run: error: argument --input: given once, but {EXAMPLES / 'bind.uir'} takes 2 input(s): "
        "input 0 (PARAM slot 0): i32 scalar; input 1 (PARAM slot 1): i32 scalar; repeat --input once per "
        "input, in slot order (see 'eqsat-uopc run --help')\n"
    )


def test_console_script_usage_error_exit_code():
    r = subprocess.run([sys.executable, "-m", "eqsat_uopc.cli", "run"], capture_output=True, text=True)
    assert r.returncode == 2 and "the following arguments are required: target" in r.stderr


def test_optimize_prints_the_best_program_and_its_report(capsys):
    assert main(["optimize", str(EXAMPLES / "call_sq.uir")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "%0 = const 49"
    assert out[1] == "# cost (dag_size): 1, proved optimal among the e-graph's terms; int semantics wrap"
    assert re.fullmatch(r"# validated: proved \(z3, bit-vectors, \d+ ms\)", out[2])
    assert out[3].startswith("# saturation: constant after ")


DIVVAR = (
    "%0 = param : slot=0 dtype=i32\n%1 = param : slot=1 dtype=i32\n%2 = floordiv %0, %1\n"
    "%3 = mul %2, %1\n%4 = floormod %0, %1\n%5 = add %3, %4\n"
)


def test_proved_optimal_is_said_of_the_e_graphs_terms_not_of_every_equivalent_program(tmp_path, capsys):
    from eqsat_uopc.ir.uir import parse_uir
    from eqsat_uopc.verify import check_equivalent

    path = tmp_path / "divvar.uir"
    path.write_text(DIVVAR)
    assert main(["optimize", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "".join(line + "\n" for line in out[:6]) == DIVVAR  # the input itself, 6 nodes
    assert out[6] == "# cost (dag_size): 6, proved optimal among the e-graph's terms; int semantics wrap"
    # x // y * y + x % y is x wherever it is defined (y != 0): one node, not among the e-graph's terms
    program = parse_uir(DIVVAR)
    x = program.src[0].src[0].src[0]
    assert check_equivalent(program, x, int_semantics="wrap", samples=50).status == "proved"


def test_the_saturation_line_shows_every_time_the_report_has():
    from dataclasses import dataclass

    from eqsat_uopc.cli.optimize import phase_times
    from eqsat_uopc.saturation import SaturationReport

    times = {"egglog_time": 0.5, "fold_time": 0.25, "lower_time": 0.125, "raise_time": 0.004}
    r = SaturationReport("default", "wrap", 100, 10, 10_000, engine_time=0.002, other_time=0.001, **times)
    r.start_times = {"greedy-seed": 0.03, "index-algebra": 0.015}
    assert phase_times(r) == (
        "hook starts 0.045 s, engine 0.002 s, lowering 0.125 s, egglog 0.500 s, folding 0.250 s, "
        "read-back 0.004 s, other 0.001 s"
    )

    @dataclass
    class WithMoreTimes(SaturationReport):  # a time the report gains is on the line without a change here
        explain_time: float = 0.75

    r = WithMoreTimes("default", "wrap", 100, 10, 1.0, replay_time=0.01, **times)
    assert phase_times(r) == (
        "hook starts 0.000 s, engine 0.000 s, lowering 0.125 s, egglog 0.500 s, folding 0.250 s, "
        "read-back 0.004 s, replay 0.010 s, other 0.000 s, explain 0.750 s"
    )


def test_optimize_reports_every_pulse(tmp_path, capsys):
    from eqsat_uopc.corpus import index_expressions
    from eqsat_uopc.ir.uir import to_uir

    path = tmp_path / "index0.uir"
    path.write_text(to_uir(index_expressions(1, seed=0)[0].program))
    assert main(["optimize", str(path), "--node-budget", "500"]) == 0
    pulses = [line for line in capsys.readouterr().out.splitlines() if line.startswith("# saturation")]
    assert [line.split(" after ")[0] for line in pulses] == [
        "# saturation, pulse 1 of 2: node_budget",
        "# saturation, pulse 2 of 2: saturated",
    ]
    assert all("read-back" in line and "extraction" in line for line in pulses)
    from eqsat_uopc.saturation import saturate

    left_out = saturate(index_expressions(1, seed=0)[0].program, node_budget=500).report.rules_pruned
    assert left_out > 0
    assert f"; {left_out} rules left out (they cannot fire); e-nodes" in pulses[0]
    # r + (r + 12) // 16 * 64 + 236: the remainder through its quotient
    assert pulses[1].endswith(", cost 11)")
    assert main(["optimize", str(path), "--node-budget", "500", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert [p["report"]["stop_reason"] for p in got["pulses"]] == ["node_budget", "saturated"]
    assert [p["cost"] for p in got["pulses"]] == [11, 11] and got["pulses"][-1]["report"] == got["report"]


def test_optimize_json_under_no_overflow(capsys):
    args = ["optimize", str(EXAMPLES / "exercise8_divmod.uir"), "--int-semantics", "no_overflow", "--json"]
    assert main(args) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["program"] == "%0 = param : slot=0 dtype=i32\n%1 = add %0, 2\n"
    assert (got["cost"], got["cost_model"], got["config"]["int_semantics"]) == (3, "dag_size", "no_overflow")
    assert (
        got["report"]["stop_reason"] == "saturated"
        and len(got["report"]["enodes"]) == 1 + got["report"]["iterations"]
    )


def test_optimize_under_wrap_does_not_apply_the_no_overflow_division_rule(capsys):
    # ((x*4) + 8) // 4 -> x + 2 needs no_overflow: x*4 wraps for large x, and the interval analysis
    # cannot rule it out for a full-range PARAM, so saturation under wrap keeps the division
    assert main(["optimize", str(EXAMPLES / "exercise8_divmod.uir"), "--json"]) == 0
    assert "floordiv" in json.loads(capsys.readouterr().out)["program"]


def test_impossible_budget_is_one_line(capsys):
    assert main(["optimize", str(EXAMPLES / "exercise8_divmod.uir"), "--budget", "2"]) == 1
    assert capsys.readouterr().err == (
        "eqsat-uopc: error: SaturationError: node_budget 2 is below the program's own size (6 nodes)\n"
    )


def test_unknown_cost_model_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["optimize", str(EXAMPLES / "call_sq.uir"), "--cost", "nope"])
    assert exit_.value.code == 2 and "argument --cost: invalid choice: 'nope'" in capsys.readouterr().err


def test_compare_one_file_prints_costs_and_verdicts(capsys):
    assert main(["compare", str(EXAMPLES / "nested_calls.uir"), "--samples", "20"]) == 0
    out = capsys.readouterr().out
    assert "saturated is smaller than greedy (ratio 0.100)" in out
    assert "saturated vs input: equivalence (wrap): proved" in out
    assert out.rstrip().endswith("%0 = const 72")


def test_compare_corpus_json_csv_and_resume(tmp_path, capsys):
    corpus = tmp_path / "c.jsonl"
    lines = caviar_path().read_text().splitlines()
    corpus.write_text("\n".join(lines[:3]) + "\n")
    out = tmp_path / "rows.jsonl"
    args = ["compare", str(corpus), "--samples", "10", "--workers", "1", "--out", str(out), "--json"]
    assert main([*args, "--csv", str(tmp_path / "rows.csv")]) == 0
    printed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    rows, summary = printed[:-1], printed[-1]["summary"]
    assert [r["key"] for r in rows] == [
        "caviar/lasteval/L00003",
        "caviar/lasteval/L00019",
        "caviar/lasteval/L00020",
    ]
    assert summary["programs"] == 3 and summary["completed"] == 3
    assert summary["saturated_wrong"] == 0 and summary["greedy_wrong"] == 0
    assert len((tmp_path / "rows.csv").read_text().splitlines()) == 4
    assert main(args) == 0  # resumed: nothing left to run, the file's rows are summarized again
    assert json.loads(capsys.readouterr().out.splitlines()[-1])["summary"]["programs"] == 3
    assert len(out.read_text().splitlines()) == 4  # the settings line, then the three rows


def test_render_c_prints_the_backend_source(capsys):
    from eqsat_uopc import load_example, render_c

    assert main(["render-c", str(EXAMPLES / "call_sq.uir")]) == 0
    assert capsys.readouterr().out == render_c(load_example(EXAMPLES / "call_sq.uir").program)


def test_every_setting_is_an_option_and_budget_is_an_alias(capsys):
    args = ["optimize", str(EXAMPLES / "call_sq.uir"), "--budget", "321", "--seed-greedy", "no", "--json"]
    assert main([*args, "--extract-time-limit", "none", "--match-limit", "7"]) == 0
    config = json.loads(capsys.readouterr().out)["config"]
    assert (config["node_budget"], config["seed_greedy"], config["extract_time_limit"]) == (321, False, None)
    assert config["match_limit"] == 7
    with pytest.raises(SystemExit) as exit_:
        main(["optimize", str(EXAMPLES / "call_sq.uir"), "--seed-greedy", "maybe"])
    assert exit_.value.code == 2 and "expected yes or no, got 'maybe'" in capsys.readouterr().err


def test_the_limits_options_take_none_and_default_to_the_work_limits(capsys):
    args = ["optimize", str(EXAMPLES / "call_sq.uir"), "--json"]
    assert main(args) == 0
    got = json.loads(capsys.readouterr().out)
    config = got["config"]
    limits = ("match_budget", "time_limit", "extract_branch_limit", "extract_time_limit")
    assert [config[k] for k in limits] == [None, None, 100, None]
    assert got["report"]["match_budget"] == 1_000_000  # None: 100 per e-node of the node budget, at least
    more = ["--match-budget", "5_000", "--time-limit", "2.5", "--extract-branch-limit", "none"]
    assert main([*args, *more, "--extract-time-limit", "3"]) == 0
    config = json.loads(capsys.readouterr().out)["config"]
    assert [config[k] for k in limits] == [5_000, 2.5, None, 3.0]
    with pytest.raises(SystemExit) as exit_:
        main([*args, "--extract-branch-limit", "0"])
    assert exit_.value.code == 2
    assert "argument --extract-branch-limit: expected an integer >= 1 or 'none', got '0'" in (
        capsys.readouterr().err
    )


def test_optimize_names_the_rules_a_run_held_back_for_the_budget(tmp_path, capsys):
    from eqsat_uopc import UOp
    from eqsat_uopc.ir.uir import to_uir
    from eqsat_uopc.saturation import SaturationReport

    x = UOp.param(0)
    product = x
    for i in range(1, 10):
        product = product * UOp.param(i)
    path = tmp_path / "product.uir"
    path.write_text(to_uir(product + x * 3 + x * 2))
    assert main(["optimize", str(path), "--int-semantics", "no_overflow"]) == 0
    line = capsys.readouterr().out.splitlines()[-1]
    assert line.startswith(
        "# saturation: node_budget after 5 iterations, holding back comm_assoc/mul-assoc "
        "(53,072 matches forecast); "
    )
    report = SaturationReport("default", "wrap", 100, 30, 10_000)
    assert report.held_back_summary() == ""
    report.held_back = {"a": 500, "b": 120, "c": 9_000, "d": 130}
    assert report.held_back_summary() == (
        "holding back b (120 matches forecast), d (130 matches forecast), a (500 matches forecast) and 1 more"
    )


def test_optimize_says_when_the_program_was_decided_before_any_rule_ran(tmp_path, capsys):
    from eqsat_uopc import UOp
    from eqsat_uopc.ir.uir import to_uir

    x = UOp.param(0)
    path = tmp_path / "decided.uir"
    path.write_text(to_uir((x + 1) * 0 < x * 0 + 1))  # greedy folds both sides: 0 < 1
    assert main(["optimize", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "%0 = const true"
    assert out[-1].startswith(
        "# saturation: constant after 0 iterations; decided before any rule ran, no engine; "
        "e-nodes per iteration [9]; hook starts "
    )
    assert main(["optimize", str(path), "--shortcut-decided", "no"]) == 0
    assert " rules left out (they cannot fire); e-nodes per iteration [9]; " in capsys.readouterr().out


# -- issue 37: a program's own error is that program's, in one line; sweeps never mix settings


@pytest.mark.parametrize(
    "argv",
    [["optimize"], ["show", "--out", "never.svg"], ["compare", "--samples", "5"]],
    ids=["optimize", "show", "compare"],
)
def test_a_program_whose_evaluation_fails_is_its_error_in_one_line(argv, capsys, tmp_path):
    path = EXAMPLES / "index_out_of_bounds.uir"
    command = [argv[0], str(path), *[str(tmp_path / a) if a.endswith(".svg") else a for a in argv[1:]]]
    assert main(command) == 1
    out, err = capsys.readouterr()
    assert (out, err) == (
        "",
        f"eqsat-uopc: error: {path}: IndexOutOfBoundsError: index 5 out of bounds for STACK of 3 "
        "(the program's own error: evaluating it fails)\n",
    )


def test_a_program_whose_evaluation_fails_raises_a_user_error_from_the_api():
    from eqsat_uopc import ProgramError, optimize
    from eqsat_uopc.errors import IndexOutOfBoundsError, UserError
    from eqsat_uopc.greedy import run
    from eqsat_uopc.ir.examples import load_example

    program = load_example(EXAMPLES / "index_out_of_bounds.uir").program
    for evaluate in (optimize, run):
        with pytest.raises(IndexOutOfBoundsError, match=r"^index 5 out of bounds for STACK of 3$") as e:
            evaluate(program)
        assert isinstance(e.value, ProgramError) and isinstance(e.value, UserError)
        assert isinstance(e.value, IndexError)  # as the chapter's interpreter raises


def test_compare_sample_is_seeded_exclusive_with_limit_and_recorded_as_a_setting(tmp_path, capsys):
    from eqsat_uopc.cli.compare import selected

    lines = caviar_path().read_text().splitlines()[:8]
    corpus = tmp_path / "c.jsonl"
    corpus.write_text("\n".join(lines) + "\n")
    ids = [json.loads(x)["id"] for x in lines]
    chosen = [ids[k] for k in selected(8, sample=3, seed=4)]
    assert len(chosen) == 3 and chosen != ids[:3]
    out = tmp_path / "rows.jsonl"
    argv = ["compare", str(corpus), "--sample", "3", "--seed", "4", "--no-verify", "--workers", "1"]
    assert main([*argv, "--out", str(out), "--json"]) == 0
    printed = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [r["key"] for r in printed[:-1]] == chosen
    assert printed[-1]["summary"]["selection"] == {"how": "sample", "n": 3, "of": 8, "seed": 4}
    assert json.loads(out.read_text().splitlines()[0])["settings"]["programs"] == {"sample": 3, "seed": 4}
    assert main([*argv, "--out", str(out)]) == 0  # the same sample: resumed, and said where rows come from
    assert (
        f"  programs             3 (3 compared, 0 timed out, 0 crashed, 0 failed); chosen: a random sample "
        f"of 3 of 8 (seed 4); rows read from {out} (any earlier run's included)"
    ) in capsys.readouterr().out.splitlines()
    other = ["compare", str(corpus), "--sample", "3", "--seed", "5", "--no-verify", "--out", str(out)]
    assert main(other) == 2
    assert capsys.readouterr().err == (
        f"eqsat-uopc compare: error: argument --out: {out} holds rows computed under other settings "
        "(programs.seed: 4 in the file, 5 now); rerun with those settings, give another --out, or "
        "--if-settings-differ separate (see 'eqsat-uopc compare --help')\n"
    )
    with pytest.raises(SystemExit) as e:  # argparse's own refusal
        main(["compare", str(corpus), "--sample", "3", "--limit", "3"])
    assert e.value.code == 2
    assert capsys.readouterr().err == (
        "eqsat-uopc compare: error: argument --limit: not allowed with argument --sample "
        "(see 'eqsat-uopc compare --help')\n"
    )
    assert main(["compare", str(corpus), "--seed", "3"]) == 2
    assert capsys.readouterr().err == (
        "eqsat-uopc compare: error: argument --seed: it seeds --sample's choice; give --sample N too "
        "(see 'eqsat-uopc compare --help')\n"
    )


def test_a_resumed_compare_refuses_rows_of_other_settings(tmp_path, capsys):
    corpus = tmp_path / "c.jsonl"
    corpus.write_text(caviar_path().read_text().splitlines()[0] + "\n")
    out = tmp_path / "rows.jsonl"
    first = ["compare", str(corpus), "--no-verify", "--out", str(out), "--int-semantics", "no_overflow"]
    assert main(first) == 0
    capsys.readouterr()
    rows = out.read_text()
    assert json.loads(rows.splitlines()[0])["settings"]["config"]["int_semantics"] == "no_overflow"
    assert main(first) == 0  # the same settings: resumed, nothing runs again
    assert out.read_text() == rows
    capsys.readouterr()
    other = ["compare", str(corpus), "--no-verify", "--out", str(out), "--int-semantics", "wrap"]
    assert main([*other, "--rules", "symbolic", "--samples", "7"]) == 2
    assert capsys.readouterr().err == (
        f"eqsat-uopc compare: error: argument --out: {out} holds rows computed under other settings "
        '(config.int_semantics: "no_overflow" in the file, "wrap" now; config.rules: "default" in the '
        'file, "symbolic" now; options.samples: 100 in the file, 7 now); rerun with those settings, give '
        "another --out, or --if-settings-differ separate (see 'eqsat-uopc compare --help')\n"
    )
    assert out.read_text() == rows  # untouched, before any work
    assert main([*other, "--if-settings-differ", "separate", "--json"]) == 0
    captured = capsys.readouterr()
    [separate] = [p for p in tmp_path.glob("rows.*.jsonl")]
    assert captured.err.startswith(
        f"eqsat-uopc: {out} holds rows of other settings: these go to {separate}\n"
    )
    summary = json.loads(captured.out.splitlines()[-1])["summary"]
    assert (summary["programs"], summary["int_semantics"]) == (1, "wrap")
    assert json.loads(separate.read_text().splitlines()[0])["settings"]["config"]["int_semantics"] == "wrap"
    assert out.read_text() == rows
