"""Explanations: optimize's result explained as a chain of rewrites, each step named and checked."""

import json
from pathlib import Path

import pytest
from eqsat_uopc.extract import ExtractionError

from eqsat_uopc import UOp, optimize
from eqsat_uopc.cli import main
from eqsat_uopc.saturation.explain import (
    ReplayError,
    RewriteChain,
    RewriteStep,
    infix,
    replay,
    reversed_steps,
)
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
        "backwards": False,
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


def test_through_a_member_of_the_eclass_two_egglog_rules():
    # max(p0, -1) * 2 + 1 != 0 -> true: no one rule; the run's e-graph holds max(p0, -1) * 2 != -1,
    # one rule away, from which the parity rule decides it
    from eqsat_uopc.corpus import caviar_dev

    (entry,) = [e for e in caviar_dev() if e.id == "caviar/lasteval/L05280"]
    e = optimize(entry.program).explain()
    assert e.lines()[0] == (
        "7 steps from 0 != 0 + (max(p0, -1) * 2 + 2) + (-1) != true to false (int semantics wrap); "
        "every step names its rule; checked: 7 proved"
    )
    assert e.lines()[5:8] == [
        "  5. linear/ne-add-const [egglog] at [0]: max(p0, -1) * 2 + 1 != 0 -> max(p0, -1) * 2 != (-1)"
        "  (proved)",
        "  6. divisibility/ne-indivisible [egglog] at [0]: max(p0, -1) * 2 != (-1) -> true  (proved)",
        "  7. symbolic/fold [greedy-seed]: true != true -> false  (proved)",
    ]
    assert e.complete


@pytest.mark.parametrize("int_semantics", ["wrap", "no_overflow"])
def test_a_birewrite_is_named_by_its_rule(int_semantics):
    # the report counts a birewrite's matches per direction (comm_assoc/add-assoc=>); the rule is one
    from eqsat_uopc.corpus import tinygrad_capture

    (entry,) = [e for e in tinygrad_capture() if e.id == "tinygrad/cnn/0009"]
    e = optimize(entry.program, int_semantics=int_semantics).explain()
    assert e.lines()[-2:] == [
        "  6. comm_assoc/add-assoc [egglog]: p0 * 5 + p4 + (p2 * 100 + p3 * 25) -> "
        "p0 * 5 + (p4 + (p2 * 100 + p3 * 25))  (proved)",
        "rules the result depends on: comm_assoc/add-assoc 1, symbolic/add_zero 1, symbolic/const_bounds 1, "
        "symbolic/const_to_right 1, symbolic/distribute_const 1, symbolic/mul_mul_const 1",
    ]
    assert e.complete


@pytest.mark.parametrize("int_semantics", ["wrap", "no_overflow"])
def test_python_rules_from_both_sides_meet_and_the_result_side_reads_backwards(int_semantics):
    # the seed's rules take the program through the index algebra's (r0*24 + r3) // 9 -> r0*2 + ...;
    # the result keeps (r0*24 + r3) // 9: the result's side, rewritten by the same rules, meets it
    from eqsat_uopc.corpus import index_expressions

    e = optimize(index_expressions(17, seed=0)[16].program, int_semantics=int_semantics).explain()
    r0, r3, q = "range(6, (16, 0))", "range(24, (16, 3))", "(range(6, (16, 0)) * 6 + range(24, (16, 3))) // 9"
    at = "at [1, 0] (everywhere)"
    assert [line for line in e.lines() if "backwards" in line] == [
        f"  22. symbolic/mul_mul_const [greedy-seed, backwards] {at}: {r0} * 16 -> {r0} * 2 * 8  (proved)",
        f"  23. symbolic/distribute_const [greedy-seed, backwards] {at}: {r0} * 2 * 8 + {q} * 8 "
        f"-> ({r0} * 2 + {q}) * 8  (proved)",
        f"  24. linear/divmod-fold [index-algebra, backwards] {at}: {r0} * 2 + {q} -> "
        f"({r0} * 24 + {r3}) // 9  (proved)",
    ]
    assert e.complete and len(e.chain.steps) == 30


def test_one_egglog_iteration_then_congruence():
    # and-assoc at the root, then not-lt-const inside: the middle term is one egglog iteration's
    from eqsat_uopc.corpus import tinygrad_capture

    (entry,) = [e for e in tinygrad_capture() if e.id == "tinygrad/cnn/0064"]
    e = optimize(entry.program, int_semantics="no_overflow").explain()
    assert e.lines()[9:11] == [
        "  9. boolean/and-assoc [egglog]: "
        "where(p2 < 6, where(p0 + p1 < 2 != true, p0 + p1 < 30, false), false) -> "
        "where(where(p2 < 6, p0 + p1 < 2 != true, false), p0 + p1 < 30, false)  (proved)",
        "  10. boolean/not-lt-const [egglog] at [0, 1]: p0 + p1 < 2 != true -> 1 < p0 + p1  (proved)",
    ]
    assert e.complete


def test_a_sum_regrouped_step_by_step_then_factored():
    # egglog regroups the sum at every level in an iteration or two; the chain rotates and swaps it
    # one add-assoc or add-comm at a time into the result's grouping, then factors p1*19 + p3*19
    from eqsat_uopc.corpus import tinygrad_capture

    (entry,) = [e for e in tinygrad_capture() if e.id == "tinygrad/conv2d/0083"]
    e = optimize(entry.program).explain()
    assert [(s.rule, s.backwards, s.path) for s in e.chain.steps[3:]] == [
        ("comm_assoc/add-assoc", False, (0,)),
        ("comm_assoc/add-assoc", False, (0,)),
        ("comm_assoc/add-assoc", False, (0,)),
        ("comm_assoc/add-assoc", True, (0, 1)),
        ("comm_assoc/add-comm", False, (0, 1, 0)),
        ("comm_assoc/add-assoc", False, (0, 1)),
        ("comm_assoc/add-assoc", True, (0,)),
        ("comm_assoc/add-comm", False, (0, 0)),
        ("comm_assoc/add-assoc", False, (0,)),
        ("comm_assoc/add-comm", False, (0, 1, 1, 1)),
        ("comm_assoc/add-assoc", True, (0, 1)),
        ("comm_assoc/add-assoc", True, (0, 1)),
        ("distribution/mul-add", False, (0, 1, 0, 0)),
    ]
    assert e.lines()[-2] == (
        "  16. distribution/mul-add [egglog] at [0, 1, 0, 0]: p1 * 19 + p3 * 19 -> (p1 + p3) * 19  (proved)"
    )
    assert e.complete and e.checks == ("proved",) * 16


def test_an_everywhere_step_read_backwards_splits_where_it_would_overshoot():
    # (p0 + 0) * p0 -> p0 * p0 rewrote p0 + 0 everywhere; back, p0 -> p0 + 0 only where it wrote
    step = RewriteStep("symbolic/add_zero", "greedy-seed", x + 0, x, (), everywhere=True)
    back = reversed_steps((x + 0) * x, [step])
    assert [(s.line(), s.path, s.everywhere) for s in back] == [
        ("symbolic/add_zero [greedy-seed, backwards]: p0 -> p0 + 0", (0,), False)
    ]
    assert replay(RewriteChain(x * x, (x + 0) * x, tuple(back), "wrap")) is (x + 0) * x
    shared = reversed_steps((x + 0) * (x + 0), [step])  # nothing to overshoot: one everywhere step
    assert [(s.path, s.everywhere) for s in shared] == [((), True)]


def _triple_hook(rules: tuple[str, ...] = ()) -> type:
    """A hook of one's own that unites x * 3 and x + x + x (no rule of the set "none" does), naming
    the rule of its union when `rules` says one."""
    from eqsat_uopc.saturation import Additions, Hook

    class Triple(Hook):
        name = "triple"

        def start(self, seeds):
            return Additions(equalities=((x * 3, x + x + x),), rules=rules)

    return Triple


def _checked_search(s, hooks, facts=()):
    """The checked chain from x * 3 to x + x + x that a ChainSearch over saturation s finds (hooks:
    the hooks that ran, facts: their named equalities); s is closed after."""
    from eqsat_uopc.saturation.explain import ChainSearch

    search = ChainSearch(s.class_of, s.config.rule_set, "wrap", None, {}, s.egraph, hooks, facts)
    try:
        return check_chain(search.chain(x * 3, x + x + x))
    finally:
        search.close()
        s.close()


def test_a_union_no_rule_made_is_marked_unexplained_and_still_checked():
    from eqsat_uopc.saturation import HOOKS, saturate

    s = saturate(x * 3, rules="none", hooks=(*HOOKS, _triple_hook()))
    hooks = frozenset(s.report.start_times)  # the hooks that ran: not the greedy seed, without symbolic rules
    e = _checked_search(s, hooks)
    assert e.lines()[:2] == [
        "1 step from p0 * 3 to p0 + p0 + p0 (int semantics wrap); 1 unexplained; checked: 1 proved",
        "  1. e-graph/unexplained [e-graph]: p0 * 3 -> p0 + p0 + p0  (proved)",
    ]
    assert e.checked and not e.complete


def test_cli_explain_a_missing_file(capsys, tmp_path):
    missing = tmp_path / "nope.uir"
    assert main(["explain", str(missing)]) == 1
    assert capsys.readouterr().err == f"eqsat-uopc: error: {missing}: no such file or directory\n"


@pytest.mark.parametrize(
    ("int_semantics", "at", "steps", "folds"), [("wrap", (1, 0), 58, 24), ("no_overflow", (1, 1, 0), 60, 21)]
)
def test_mixed_radix_digits_through_the_index_algebras_own_folds(int_semantics, at, steps, folds):
    # index expression 14: the algebra folded (r - 2) // 360 % 6 into ((r + 358) // 360 + 5) % 6 (and the
    # 72 and 12 digits alike) before any rule ran, and the run's e-graph held those unions; the rules
    # recombined the digits of the (r - 2) spelling. The chain reads the hook's own folds backwards,
    # then recombines: formerly one unexplained step
    from eqsat_uopc.corpus import index_expressions

    e = optimize(index_expressions(15, seed=0)[14].program, int_semantics=int_semantics).explain()
    undone = [
        (s.rule, s.by, s.backwards, s.path)
        for s in e.chain.steps
        if s.path == at and (s.backwards or s.rule.startswith("digits/"))
    ]
    assert (
        undone
        == [("linear/divmod-fold", "index-algebra", True, at)] * 6
        + [("digits/digit-plus-digit-left", "egglog", False, at)] * 2
    )
    r = "range(2164, (14, 0))"
    last = [s.line() for s in e.chain.steps if s.rule.startswith("digits/")]
    assert last == [
        f"digits/digit-plus-digit-left [egglog]: ({r} + (-2)) // 360 % 6 * 90 + ({r} + (-2)) // 72 % 5 * 18 "
        f"+ ({r} + (-2)) // 12 % 6 * 3 -> ({r} + (-2)) // 72 % 30 * 18 + ({r} + (-2)) // 12 % 6 * 3",
        f"digits/digit-plus-digit-left [egglog]: ({r} + (-2)) // 72 % 30 * 18 + ({r} + (-2)) // 12 % 6 * 3 "
        f"-> ({r} + (-2)) // 12 % 180 * 3",
    ]
    assert len(e.chain.steps) == steps and e.rule_counts()["linear/divmod-fold"] == folds
    assert e.complete


@pytest.mark.parametrize(("int_semantics", "steps"), [("wrap", 58), ("no_overflow", 66)])
def test_digits_respelt_over_the_results_operand_then_recombined(int_semantics, steps):
    # index expression 25: the algebra respelt the digits of x = r + 14794 (x // 64 % 5 became
    # ((r + 10) // 64 + 1) % 5, a fold inside a fold the hook does not record), and the run recombined
    # the digits of x into x % 320. The chain brings each digit back to x's spelling through the run's
    # e-graph (a's shape, b's leaves), then the algebra's sum fold recombines: formerly one unexplained step
    from eqsat_uopc.corpus import index_expressions

    e = optimize(index_expressions(26, seed=0)[25].program, int_semantics=int_semantics).explain()
    r = "range(539, (25, 0))"
    lines = [s.line() for s in e.chain.steps]
    assert (
        f"linear/divmod-fold [index-algebra, backwards]: ({r} + 10) // 64 + 231 -> ({r} + 14794) // 64"
        in lines
    )
    last = e.chain.steps[-1]
    assert (last.rule, last.by, last.path, infix(last.after)) == (
        "linear/sum-fold",
        "index-algebra",
        (0,),
        f"({r} + 14794) % 320",
    )
    assert len(e.chain.steps) == steps and e.complete


def test_a_summand_common_to_both_sides_is_grouped_first_then_cancelled():
    # a Caviar expression (caviar_dev()[995], the 23rd of the bench's sample): p0 is summed on both sides of
    # a != at different depths; egglog regroups every level at once. The chain regroups the right side
    # to p0 + (...), cancels p0 by one rule, and the rest is three named steps: formerly unexplained
    from eqsat_uopc.corpus import caviar_dev

    e = optimize(caviar_dev()[995].program, int_semantics="wrap").explain()
    m = "max((p1 + p2 + (-1)) // 63 * (-64) + p3 // 2 * 260 + p2 // 63 * 64, -164) * (-1)"
    assert [s.line() for s in e.chain.steps[-7:]] == [
        f"comm_assoc/add-comm [egglog]: {m} + p0 -> p0 + {m}",
        f"comm_assoc/add-assoc [egglog]: p0 + {m} + 55 -> p0 + ({m} + 55)",
        f"comparisons/ne-cancel [egglog]: p0 + (-40) != p0 + ({m} + 55) -> (-40) != {m} + 55",
        f"symbolic/const_to_right [greedy-seed]: (-40) != {m} + 55 -> {m} + 55 != (-40)",
        f"linear/compare-fold [index-algebra]: {m} + 55 != (-40) -> {m[:-7]} != 95",
        f"divisibility/ne-indivisible [egglog]: {m[:-7]} != 95 -> true",
        "symbolic/fold [greedy-seed]: true != true -> false",
    ]
    assert e.checks[-7:] == ("proved",) * 7 and e.complete


def test_a_hooks_own_union_is_a_step_named_by_its_rule():
    # the hook names the rule of its equality (Additions.rules); the run keeps it (Seeds.named_equalities)
    from eqsat_uopc.saturation import HOOKS, saturate

    s = saturate(x * 3, rules="none", hooks=(*HOOKS, _triple_hook(("triple/expand",))))
    assert s.seeds.named_equalities() == ((x * 3, x + x + x, "triple/expand", "triple"),)
    facts = s.seeds.named_equalities()
    e = _checked_search(s, frozenset(), facts)
    assert e.lines()[:2] == [
        "1 step from p0 * 3 to p0 + p0 + p0 (int semantics wrap); every step names its rule; "
        "checked: 1 proved",
        "  1. triple/expand [triple] (everywhere): p0 * 3 -> p0 + p0 + p0  (proved)",
    ]
    assert e.complete


def test_the_hooks_name_their_equalities_rules():
    # the index algebra names each fold it made, the decided comparisons their rule
    from eqsat_uopc.saturation import saturate

    r, s = UOp.range(6, "r"), UOp.range(24, "s")
    named = []
    for program, int_semantics in (((r * 24 + s) // 9, "wrap"), (x.maximum(3) < 2, "no_overflow")):
        run = saturate(program, int_semantics=int_semantics)
        run.close()
        named += [(infix(a), infix(b), rule, by) for a, b, rule, by in run.seeds.named_equalities()]
    assert named == [
        (
            "(range(6, r) * 24 + range(24, s)) // 9",
            "range(6, r) * 2 + (range(6, r) * 6 + range(24, s)) // 9",
            "linear/divmod-fold",
            "index-algebra",
        ),
        ("max(p0, 3) < 2", "false", "linear/piecewise-compare", "decided-comparisons"),
    ]


def test_additions_name_one_rule_per_equality():
    from eqsat_uopc.saturation import Additions

    with pytest.raises(ValueError) as err:
        Additions(equalities=((x * 3, x + x + x),), rules=("a", "b"))
    assert str(err.value) == "Additions: 2 rule names for 1 equalities (one name per equality, or none)"


def test_the_history_rerun_explains_a_pair_by_the_iteration_that_united_it():
    # the run's start rerun with the pair, the e-graph read back after each iteration: (p0*2 + p0*2) * 3
    # and p0 * 12 are first in one e-class after iteration 2; the chain is a congruence into the sum
    # (like terms, iteration 1), then one rule at the root
    from eqsat_uopc.saturation import saturate
    from eqsat_uopc.saturation.explain import ChainSearch
    from eqsat_uopc.saturation.explain.history import HistoryExplainer

    a, b = (x * 2 + x * 2) * 3, x * 12
    s = saturate(a)
    search = ChainSearch(s.class_of, s.config.rule_set, "wrap", None, {}, s.egraph, None, (), (a, (), ()))
    try:
        history = search._history(a, b)
        assert len(history.layers) == 3
        assert [history.merge_time(a, b), history.merge_time(x * 2 + x * 2, x * 4)] == [2, 1]
        assert history.layers[0].class_of(x * 4) is None  # not in the start's e-graph
        explainer = HistoryExplainer(
            history,
            lambda p, q: search._one_rule(p, q, ()),
            lambda p: [t for part in search._iteration_terms(p) for t in part],
            search._at_start,
        )
        e = check_chain(RewriteChain(a, b, tuple(explainer.explain(a, b)), "wrap"))
    finally:
        search.close()
        s.close()
    assert e.lines() == [
        "2 steps from (p0 * 2 + p0 * 2) * 3 to p0 * 12 (int semantics wrap); every step names its rule; "
        "checked: 2 proved",
        "  1. distribution/like-terms [egglog] at [0]: p0 * 2 + p0 * 2 -> p0 * 4  (proved)",
        "  2. symbolic/mul_mul_const [greedy-seed]: p0 * 4 * 3 -> p0 * 12  (proved)",
        "rules the result depends on: distribution/like-terms 1, symbolic/mul_mul_const 1",
    ]


def test_caviar_530_is_explained_through_the_runs_history():
    # caviar_dev()[530] (the bench sample's 10th) under wrap: its two sides unite in the run's e-graph
    # only through other classes' facts; no move over the run's e-graph named the step, the rerun's
    # history does: 168 steps, every one named, checked, and the chain replays to the result
    from eqsat_uopc.corpus import caviar_dev

    r = optimize(caviar_dev()[530].program, int_semantics="wrap")
    e = r.explain()
    assert replay(e.chain) is r.program
    assert e.complete and e.replayed and len(e.chain.steps) == 168
    assert e.rule_counts() == {
        "symbolic/mul_mul_const": 30,
        "symbolic/distribute_const": 23,
        "symbolic/add_mul_const": 22,
        "symbolic/max_self": 16,
        "comm_assoc/add-assoc": 13,
        "minmax/min-as-where": 9,
        "distribution/mul-add": 7,
        "comm_assoc/add-comm": 6,
        "identities/mul-one": 6,
        "reassociation/mul-const-const": 6,
        "symbolic/where_same": 6,
        "symbolic/const_to_right": 5,
        "symbolic/mul_one": 4,
        "offsets/max-left": 3,
        "comm_assoc/max-comm": 2,
        "fold/mul": 2,
        "identities/const-right-add": 2,
        "boolean/where-assume": 1,
        "identities/const-right-mul": 1,
        "minmax/lt-max": 1,
        "symbolic/add_add_const": 1,
        "symbolic/cmp_self": 1,
        "symbolic/fold": 1,
    }


def test_check_chain_takes_the_verdicts_given_and_fills_in_the_rest():
    # explain() weighs two chains by their checks (ChainSearch's holds) and then checks the one kept: each
    # step is checked once, the verdicts shared
    step = RewriteStep("symbolic/add_zero", "greedy-seed", x + 0, x, (0,))
    chain = RewriteChain((x + 0) * 3, x * 3, (step,), "wrap")
    verdicts: dict = {}
    assert check_chain(chain, verdicts).checks == ("proved",)
    assert verdicts == {(x + 0, x): "proved"}
    verdicts[(x + 0, x)] = "refuted"  # a verdict given is the step's check, not made again
    assert check_chain(chain, verdicts).checks == ("refuted",)


@pytest.mark.parametrize(("int_semantics", "faults"), [("wrap", [0, 1, 1]), ("no_overflow", [1, 2, 1])])
def test_a_chains_faults_are_its_unexplained_steps_and_its_steps_failing_their_check(int_semantics, faults):
    # a rerun's chain may go through spellings with more overflow than the input's: distributing a
    # negation is an equality over the integers, yet no refinement under no_overflow (p4 = -2**31, p3 = 1:
    # the left side is 2**31 - 126, the right side negates -2**31); the history's chain is kept only
    # where it has fewer such faults than the chain before it
    from eqsat_uopc.saturation import saturate
    from eqsat_uopc.saturation.explain import UNEXPLAINED, ChainSearch
    from eqsat_uopc.verify.validation import validate

    p3, p4 = UOp.param(3), UOp.param(4)
    before, after = (p3 * 126 + p4) * -1, p3 * 126 * -1 + p4 * -1
    s = saturate(before)

    def holds(a: UOp, b: UOp) -> bool:
        return validate(a, b, int_semantics).status in ("identical", "proved", "tested")

    search = ChainSearch(s.class_of, s.config.rule_set, int_semantics, None, holds=holds)
    try:
        named = RewriteStep("distribution/mul-add", "egglog", before, after)
        unnamed = RewriteStep(UNEXPLAINED, "e-graph", x + 0, x)
        got = [search._faults([named]), search._faults([unnamed, named]), search._faults([unnamed, named], 1)]
    finally:
        search.close()
        s.close()
    assert got == faults
