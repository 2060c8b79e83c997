"""Rule relevance: an engine holds only the rules whose query can ever match the program."""

import pytest
from eqsat_uopc.rules import rule_set

from eqsat_uopc import UOp, optimize, saturate
from eqsat_uopc.corpus import caviar_dev, index_expressions
from eqsat_uopc.ir.dtype import dtypes
from eqsat_uopc.saturation.engine import engine_program, relevant
from eqsat_uopc.saturation.relevance import Trigger, relevant_units, unit_triggers

x, y = UOp.param(0), UOp.param(1)

TEXT = """
(ruleset u0) (ruleset u1) (ruleset u2) (ruleset u3) (ruleset u4)
; a rule: its query needs Max and Add (constants are always there), its actions build Where and Lt
(rule ((= e (Max "i32" (Add "i32" a (Int 1)) b)) (= l (lo a)))
      ((union e (Where "i32" (Lt "bool" a b) b a))) :ruleset u0 :name "t/rule")
; a rewrite with a condition: the :when's constructors are needed too
(rewrite (Mul t a (Int 2)) (Add t a a) :when ((= a (Div t c d))) :ruleset u1 :name "t/rewrite")
; a birewrite fires either way round
(birewrite (Ne t a b) (Lt t a b) :ruleset u2 :name "t/birewrite")
; a rule on the interval functions only needs no constructor at all
(rule ((= h (hi a))) ((set (lo a) h)) :ruleset u3 :name "t/analysis")
; a view maintained by the bookkeeping (not a unit): two rules keep it, one on Mod and Mul, one on
; Mod alone, so an atom of it needs Mod (what both need)
(relation V (Op Op i64))
(rule ((= r (Mul t (Mod t x (Int a)) (Int s)))) ((V r x a)) :ruleset bookkeeping :name "t/view-scaled")
(rule ((= r (Mod t x (Int a)))) ((V r x 1)) :ruleset bookkeeping :name "t/view")
; a rule on the view needs Add and, through the view, Mod
(rule ((= e (Add t r b)) (V r x a)) ((union e (Max t r b))) :ruleset u4 :name "t/on-view")
"""


def test_each_unit_fires_by_the_constructors_its_query_needs():
    f = frozenset
    assert unit_triggers(TEXT) == {
        "u0": (Trigger(f({"Max", "Add"}), f({"Where", "Lt"})),),
        "u1": (Trigger(f({"Mul", "Div"}), f({"Add"})),),
        "u2": (Trigger(f({"Ne"}), f({"Lt"})), Trigger(f({"Lt"}), f({"Ne"}))),
        "u3": (Trigger(f(), f()),),
        "u4": (Trigger(f({"Add", "Mod"}), f({"Max"})),),
    }


@pytest.mark.parametrize(
    ("present", "kept"),
    [
        ({"Param"}, {"u3"}),
        ({"Mul"}, {"u3"}),  # u1 also needs Div
        ({"Mul", "Div"}, {"u1", "u3"}),
        ({"Max"}, {"u3"}),  # u0 needs Add, which nothing here builds
        ({"Max", "Mul", "Div"}, {"u0", "u1", "u2", "u3"}),  # u1 builds Add, then u0 builds Lt for u2
        ({"Ne"}, {"u2", "u3"}),
        ({"Add"}, {"u3"}),  # u4's view needs Mod
        ({"Add", "Mod"}, {"u0", "u2", "u3", "u4"}),  # u4 builds Max for u0, which builds Lt for u2
    ],
)
def test_the_relevant_units_are_a_least_fixed_point(present, kept):
    assert relevant_units(unit_triggers(TEXT), frozenset(present)) == kept


@pytest.mark.parametrize("int_semantics", ["wrap", "no_overflow"])
def test_on_the_default_rules_a_dropped_unit_needs_what_nothing_kept_can_build(int_semantics):
    rs = rule_set("default")
    program = engine_program(rs, int_semantics)
    for present in ({"Param", "Add"}, {"Param", "Mul", "Lt"}, {"Param", "Div", "Mod", "Add", "Mul"}):
        kept = relevant(rs, int_semantics, frozenset(present))
        reach = set(present).union(*(t.builds for u in kept for t in program.triggers[u]))
        for unit, ways in program.triggers.items():
            assert (unit in kept) == any(t.needs <= reach for t in ways), unit
        assert 0 < len(kept) < len(program.units)


def test_the_report_counts_the_pruned_rules_and_prune_rules_no_runs_them_all():
    rs = rule_set("default")
    total = len(engine_program(rs, "wrap").units)
    kept = relevant(rs, "wrap", frozenset({"Param", "Add"}))
    assert saturate(x + 1).report.rules_pruned == total - len(kept)
    assert saturate(x + 1, prune_rules=False).report.rules_pruned == 0
    # a program the Python folding step works on (f32) runs every rule: that step builds terms too
    f = UOp.param(0, dtypes.f32)
    assert saturate(f + 1.0).report.rules_pruned == 0


SAMPLE = [e.program for e in caviar_dev()[5::130]] + [e.program for e in index_expressions(6, seed=11)]


@pytest.mark.parametrize("int_semantics", ["wrap", "no_overflow"])
def test_pruning_changes_nothing_but_the_time(int_semantics):
    def outcome(p, prune):
        r = optimize(p, "dag_size", int_semantics=int_semantics, node_budget=4_000, prune_rules=prune)
        return r.program, r.report.stop_reason, r.report.enodes, r.report.eclasses, r.report.matches

    assert [outcome(p, True) for p in SAMPLE] == [outcome(p, False) for p in SAMPLE]
