"""Explanations: optimize's result explained as a chain of rewrites, each step named and checked."""

import json
from pathlib import Path

import pytest
from eqsat_uopc.extract import ExtractionError

from eqsat_uopc import UOp, optimize
from eqsat_uopc.cli import main
from eqsat_uopc.saturation.explain import ReplayError, RewriteChain, RewriteStep, replay
from eqsat_uopc.verify.explanation import check_chain

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
x, y = UOp.param(0), UOp.param(1)


def test_add_zero_under_the_symbolic_rules():
    e = optimize((x + 0) * 3, rules="symbolic").explain()
    assert str(e) == (
        "1 step from (p0 + 0) * 3 to p0 * 3 (int semantics wrap); every step names its rule; "
        "checked: 1 proved\n"
        "  1. symbolic/add_zero [greedy-seed] at [0]: p0 + 0 -> p0  (proved)\n"
        "rules the result depends on: symbolic/add_zero 1"
    )
    assert e.complete and e.rule_counts() == {"symbolic/add_zero": 1}
    assert replay(e.chain) is x * 3


@pytest.mark.parametrize("int_semantics", ["wrap", "no_overflow"])
def test_divmod_recombination(int_semantics):
    e = optimize((x // 4) * 4 + x % 4, int_semantics=int_semantics).explain()
    assert e.lines() == [
        f"1 step from p0 // 4 * 4 + p0 % 4 to p0 (int semantics {int_semantics}); every step names its rule; "
        "checked: 1 proved",
        "  1. symbolic/divmod_recombine [greedy-seed]: p0 // 4 * 4 + p0 % 4 -> p0  (proved)",
        "rules the result depends on: symbolic/divmod_recombine 1",
    ]


def test_an_egglog_rule_is_named():
    e = optimize(x * 3 + y * 3).explain()
    assert e.lines()[1:] == [
        "  1. distribution/mul-add [egglog]: p0 * 3 + p1 * 3 -> (p0 + p1) * 3  (proved)",
        "rules the result depends on: distribution/mul-add 1",
    ]
    assert e.complete


def test_an_index_algebra_fold_is_named():
    e = optimize((x + y) * 2 - y * 2 + 0).explain()
    assert [s.rule for s in e.chain.steps] == [
        "symbolic/distribute_const",
        "symbolic/mul_mul_const",
        "linear/sum-fold",
        "symbolic/add_zero",
    ]
    assert [s.by for s in e.chain.steps] == ["greedy-seed", "greedy-seed", "index-algebra", "greedy-seed"]
    assert e.checks == ("proved",) * 4 and e.complete


def test_no_change_is_an_empty_chain_said_so():
    e = optimize(x + 1).explain()
    assert e.chain.steps == () and e.complete
    assert str(e) == "no rewrites: the result is the input, p0 + 1 (int semantics wrap)"


def test_only_optimize_results_explain():
    from eqsat_uopc.saturation import saturate

    s = saturate(x + 0)
    with pytest.raises(ExtractionError) as err:
        s.extract().explain()
    s.close()
    assert str(err.value) == (
        "explain: only optimize's results can be explained (this Extraction came from extract or "
        "Saturation.extract, which do not know the program the run started from)"
    )


@pytest.mark.parametrize(("int_semantics", "check"), [("wrap", "refuted"), ("no_overflow", "proved")])
def test_a_step_is_checked_under_the_run_semantics(int_semantics, check):
    # (x*2)//2 -> x: false under wrap (x = 2**30 wraps), a refinement under no_overflow
    step = RewriteStep("made/up", "egglog", (x * 2) // 2, x)
    e = check_chain(RewriteChain((x * 2) // 2, x, (step,), int_semantics))
    assert e.checks == (check,) and e.replayed
    assert e.checked is (check == "proved")
    assert e.lines()[1] == f"  1. made/up [egglog]: p0 * 2 // 2 -> p0  ({check})"


def test_a_step_that_does_not_apply_does_not_replay():
    step = RewriteStep("symbolic/add_zero", "greedy-seed", x + 0, x, (1,))
    chain = RewriteChain((x + 0) * 3, x * 3, (step,), "wrap")
    with pytest.raises(ReplayError) as err:
        replay(chain)
    assert str(err.value) == "step 1 (symbolic/add_zero): expected p0 + 0 at [1], found 3"
    e = check_chain(chain)
    assert not e.replayed and not e.checked
    assert e.lines()[0].endswith("; the steps do NOT replay to the result")


def test_cli_explain(capsys):
    assert main(["explain", str(EXAMPLES / "distribute.uir")]) == 0
    assert capsys.readouterr().out == (
        "2 steps from (p0 * 2 + p1) * 3 to p0 * 6 + p1 * 3 (int semantics wrap); every step names its rule; "
        "checked: 2 proved\n"
        "  1. symbolic/distribute_const [greedy-seed] (everywhere): (p0 * 2 + p1) * 3 -> p0 * 2 * 3 + p1 * 3"
        "  (proved)\n"
        "  2. symbolic/mul_mul_const [greedy-seed] (everywhere): p0 * 2 * 3 -> p0 * 6  (proved)\n"
        "rules the result depends on: symbolic/distribute_const 1, symbolic/mul_mul_const 1\n"
    )


def test_cli_explain_json(capsys):
    assert main(["explain", str(EXAMPLES / "distribute.uir"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)["explanation"]
    assert (out["complete"], out["rule_counts"]) == (
        True,
        {"symbolic/distribute_const": 1, "symbolic/mul_mul_const": 1},
    )
    assert out["steps"][1] == {
        "rule": "symbolic/mul_mul_const",
        "by": "greedy-seed",
        "path": [],
        "everywhere": True,
        "before": "p0 * 2 * 3",
        "after": "p0 * 6",
        "check": "proved",
        "note": "",
    }


def test_cli_optimize_explain(capsys):
    assert main(["optimize", str(EXAMPLES / "distribute.uir"), "--explain"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == "# rules the result depends on: symbolic/distribute_const 1, symbolic/mul_mul_const 1"
    assert lines[-4].startswith("# 2 steps from (p0 * 2 + p1) * 3 to p0 * 6 + p1 * 3")


def test_cli_optimize_explain_not_with_measured(capsys):
    assert main(["optimize", str(EXAMPLES / "distribute.uir"), "--explain", "--cost", "measured"]) == 1
    assert capsys.readouterr().err == (
        "eqsat-uopc: error: --explain: not with --cost measured "
        "(its result is chosen among two runs' candidates)\n"
    )


def test_a_step_no_single_rule_makes_is_marked_unexplained_and_still_checked():
    from eqsat_uopc.corpus import caviar_dev

    (entry,) = [e for e in caviar_dev() if e.id == "caviar/lasteval/L05280"]
    e = optimize(entry.program).explain()
    assert e.lines()[0] == (
        "6 steps from 0 != 0 + (max(p0, -1) * 2 + 2) + (-1) != true to false (int semantics wrap); "
        "1 unexplained; checked: 6 proved"
    )
    assert (
        e.lines()[5]
        == "  5. e-graph/unexplained [e-graph] at [0]: max(p0, -1) * 2 + 1 != 0 -> true  (proved)"
    )
    assert e.checked and e.replayed and not e.complete
    assert e.rule_counts()["e-graph/unexplained"] == 1


def test_cli_explain_a_missing_file(capsys, tmp_path):
    missing = tmp_path / "nope.uir"
    assert main(["explain", str(missing)]) == 1
    assert capsys.readouterr().err == f"eqsat-uopc: error: {missing}: no such file or directory\n"
