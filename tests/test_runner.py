"""The runner (issue 39): it runs once, hooks read the report and stop a run, every phase's time is in
the report and adds up, and the stop reason says which limit stopped a run. And the scale work:
linear forms read once a node, the lowerer's lists without recursion, validation's budget."""

from __future__ import annotations

import pytest

from eqsat_uopc import UOp, optimize
from eqsat_uopc.cli import main
from eqsat_uopc.corpus import caviar_dev
from eqsat_uopc.ir.uir import parse_uir
from eqsat_uopc.linear.form import LinearForm
from eqsat_uopc.saturation import (
    HOOKS,
    Additions,
    Hook,
    Runner,
    SaturationConfig,
    SaturationError,
    StopRun,
    saturate,
)
from eqsat_uopc.saturation.lower import Lowerer
from eqsat_uopc.verify import validation

from .test_cli import EXAMPLES

SQUARE_CHAIN = EXAMPLES / "square_chain.uir"


def _product_of_ten() -> UOp:
    p = UOp.param(0)
    for i in range(1, 10):
        p = p * UOp.param(i)
    return p + 3 * UOp.param(0)


# -- stop reasons that say which limit it was
def test_a_run_held_back_by_the_forecast_says_the_budget_was_not_reached(capsys):
    """square_chain stops at 433 of 10,000 e-nodes: not the budget, the forecast held mul-assoc back
    (with a budget of 20,000 it runs and the e-graph saturates at 497)."""
    report = optimize(parse_uir(SQUARE_CHAIN.read_text())).report
    assert (report.stop_reason, report.budget_stop, report.rolled_back) == ("node_budget", "forecast", False)
    assert report.stop_detail == (
        "budget not reached, 433 of 10,000 e-nodes: held back by the forecast, 1 rule whose forecast "
        "matches exceed the 9,567 e-nodes left"
    )
    assert report.held_back == {"comm_assoc/mul-assoc": 13_345} and report.held_after_ban == ()
    assert report.summary().startswith(
        f"node_budget ({report.stop_detail}) after 5 iterations: 433 e-nodes, "
    )
    d = report.to_dict()
    assert (d["stop_reason"], d["stop_detail"], d["budget_stop"]) == (
        "node_budget",
        report.stop_detail,
        "forecast",
    )
    larger = optimize(parse_uir(SQUARE_CHAIN.read_text()), node_budget=20_000).report
    assert (larger.stop_reason, larger.stop_detail, larger.enodes[-1]) == ("saturated", "", 497)
    assert main(["optimize", str(SQUARE_CHAIN)]) == 0
    line = capsys.readouterr().out.splitlines()[-1]
    assert line.startswith(
        "# saturation: node_budget after 5 iterations, holding back comm_assoc/mul-assoc (13,345 matches "
        "forecast); budget not reached, 433 of 10,000 e-nodes: held back by the forecast, 1 rule whose "
        "forecast matches exceed the 9,567 e-nodes left; 271 rules left out (they cannot fire); e-nodes per "
        "iteration [6, 22, 111, 433, 433, 433]; hook starts "
    )
    assert "; hooks greedy-seed " in line and ", index-algebra " in line and "; total " in line


def test_a_run_that_reached_the_budget_says_so():
    report = saturate(caviar_dev()[62].program, int_semantics="no_overflow", node_budget=2_000).report
    assert (report.stop_reason, report.budget_stop, report.rolled_back) == ("node_budget", "reached", True)
    assert report.stop_detail == "budget reached: iteration 6 made 4,551 e-nodes, over 2,000; undone"


def test_the_other_limits_say_which():
    assert saturate(_product_of_ten(), iter_limit=1).report.stop_detail == "iter_limit 1 reached"
    timed = saturate(_product_of_ten(), time_limit=1e-9).report
    assert (timed.stop_reason, timed.stop_detail.split(" (")[0]) == (
        "time_limit",
        "time_limit 1e-09 s reached",
    )
    assert timed.stop_detail.endswith("; wall-clock: another load may stop the run elsewhere)")
    worked = saturate(_product_of_ten(), match_budget=1).report
    assert (worked.stop_reason, worked.stop_detail) == (
        "match_budget",
        f"match_budget 1 reached ({worked.rule_matches:,} rule matches in 1 iteration)",
    )
    assert worked.rule_matches > 1
    decided = saturate(UOp.param(0) * 0).report
    assert (decided.stop_reason, decided.stop_detail) == (
        "constant",
        "the root's e-class holds a constant before any rule ran",
    )


# -- the runner runs once
def test_a_runner_runs_once():
    runner = Runner(UOp.param(0) + 1, SaturationConfig())
    runner.run().close()
    with pytest.raises(SaturationError) as e:
        runner.run()
    assert str(e.value) == (
        "a Runner runs once (its report, hooks and engine lease belong to that run): make a new Runner, "
        "or call saturate(), to run again"
    )


# -- hooks read the report and stop the run
class _StopAfterSecond(Hook):
    name = "stop-after-second"
    iterates = True

    def after_iteration(self, snapshot):
        if self.report.iterations == 1:  # the second iteration (0-based count of those kept before it)
            raise StopRun(f"seen {self.report.enodes[-1]} e-nodes")
        return 0


class _StopAtStart(Hook):
    name = "stop-at-start"

    def start(self, seeds):
        raise StopRun("nothing to do")


def test_a_hook_stops_the_run_after_an_iteration_and_the_iteration_is_kept():
    p = (UOp.param(0) + 1) * (UOp.param(1) + 2)
    report = saturate(p, hooks=(*HOOKS, _StopAfterSecond)).report
    assert (report.stop_reason, report.iterations, report.stop_detail) == (
        "hook",
        2,
        f"stop-after-second: seen {report.enodes[1]} e-nodes",
    )
    assert len(report.hook_times["stop-after-second"]) == 2  # its seconds after each iteration


def test_a_hook_that_stops_at_the_start_stops_before_any_rule():
    x = UOp.param(0)
    s = saturate(x + 0, hooks=(_StopAtStart,))
    assert (s.report.stop_reason, s.report.stop_detail, s.report.iterations) == (
        "hook",
        "stop-at-start: nothing to do",
        0,
    )
    assert s.report.decided_without_engine is False and s.extract().program is x + 0
    assert list(s.report.start_times) == ["stop-at-start"]


def test_a_hooks_start_additions_are_kept_when_a_later_hook_stops():
    class Adds(Hook):
        name = "adds"

        def start(self, seeds):
            return Additions(equalities=((seeds.program, UOp.param(0)),), matches={"adds/x": 1})

    x = UOp.param(0)
    s = saturate(x + 0, rules="none", hooks=(Adds, _StopAtStart))
    assert s.equivalent(x + 0, x) and s.report.matches == {"adds/x": 1}


# -- time accounting
def test_every_phase_and_hook_has_its_time_and_the_phases_add_up():
    s = saturate(_product_of_ten(), int_semantics="no_overflow")
    r = s.report
    assert list(r.phase_times) == ["start", "engine", "lower", "egglog", "fold", "read", "replay", "other"]
    assert r.total_time == sum(r.phase_times.values())
    hooks = ["greedy-seed", "index-algebra", "decided-comparisons"]  # those that apply, in order
    assert list(r.start_times) == hooks and list(r.hook_times) == hooks and list(r.hook_seconds()) == hooks
    assert all(len(ts) == r.iterations for ts in r.hook_times.values())
    assert min(r.phase_times.values()) >= 0 and r.phase_times["start"] == sum(r.start_times.values())
    d = r.to_dict()
    assert d["phase_times"] == r.phase_times and d["total_time"] == r.total_time
    s.close()


# -- scale
def test_a_stack_of_a_thousand_elements_lowers_without_recursion():
    """list_id recursed once per element: RecursionError on a 1,000-element STACK."""
    x = UOp.param(0, bounds=(0, 100))
    program = UOp.stack(*((x * 2 + i) // 2 for i in range(1_000)))
    result = optimize(program, node_budget=50_000, validate=False)
    assert result.program is UOp.stack(*((x + i // 2) if i > 1 else x for i in range(1_000)))


def test_the_lowerer_shares_the_suffixes_of_lists():
    from egglog import bindings

    lowerer = Lowerer(bindings.EGraph(num_threads=1))
    a, b = lowerer.list_id((1, 2, 3)), lowerer.list_id((7, 2, 3))
    assert (a, b, lowerer.list_id((1, 2, 3)), lowerer.list_id(())) == (3, 4, 3, 0)
    assert lowerer.rows["LdNil"] == ["0"]
    assert lowerer.rows["LdCons"] == ["1\t3\t0", "2\t2\t1", "3\t1\t2", "4\t7\t2"]


def test_the_linear_form_of_a_long_sum_is_read_once_a_node():
    x, y = UOp.param(0), UOp.param(1)
    chain = x
    for i in range(200_000):  # every prefix's form is its source's and one constant: no re-read
        chain = chain + i % 7
    assert LinearForm.of(chain) == LinearForm(((x, 1),), sum(i % 7 for i in range(200_000)))
    # an atom that cancels keeps the place it was first met at: the written form's order depends on it
    assert LinearForm.of(y * 0 + x + y) == LinearForm(((y, 1), (x, 1)), 0)
    many = x
    for i in range(2, 40):
        many = many + x // i
    assert LinearForm.of(many) is None  # more than MAX_TERMS atoms


def test_validation_at_scale_skips_z3_and_cuts_the_evaluators_inputs(monkeypatch):
    x = UOp.param(0)
    source = x
    for i in range(1, 600):
        source = source + x // (i + 1)
    result = source + 0 * x
    monkeypatch.setattr(validation, "VALIDATION_WORK", 20_000)
    v = validation.validate(source, result, "wrap")
    nodes = source.size + result.size
    assert (v.status, v.check, v.compared) == ("tested", "evaluator", 20_000 // nodes)
    assert v.detail == (
        f"z3 not asked: {nodes:,} nodes, above 2,000 (VALIDATION_Z3_NODES); {20_000 // nodes} inputs for "
        f"{nodes:,} nodes (VALIDATION_WORK 20,000 node evaluations)"
    )
    assert validation.scaled_samples(256, 10**7) == validation.VALIDATION_MIN_SAMPLES == 4
