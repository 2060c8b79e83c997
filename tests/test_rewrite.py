"""graph_rewrite's aids: the dtype/shape check (exercise 4), the tracer (exercise 8), top-down
rewriting (exercise 5), max_steps, and the memo."""

from __future__ import annotations

import pytest

from eqsat_uopc.greedy import (
    PatternMatcher,
    RewriteCheckError,
    Rule,
    UPat,
    graph_rewrite,
    graph_rewrite_topdown,
    run,
    simplify,
    symbolic,
)
from eqsat_uopc.ir.dtype import dtypes
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp, UOpError

p0, p1 = UOp.param(0), UOp.param(1)

WHERE_1_0 = UPat(Ops.WHERE, src=(UPat.var("c"), UPat(Ops.CONST, arg=1), UPat(Ops.CONST, arg=0)))
b2i = PatternMatcher([Rule(WHERE_1_0, lambda c: c.cast(dtypes.i32), "b2i")])


class Counting(PatternMatcher):
    def __init__(self, rules):
        super().__init__(rules)
        self.lookups = 0

    def rewrite(self, u, ctx=None):
        self.lookups += 1
        return super().rewrite(u, ctx)


# ---------------------------------------------------------------------------
# exercise 4: the type-and-shape-preserving check


def test_check_catches_the_b2i_dtype_bug_and_names_the_rule():
    wb = (p0 < p1).where(True, False)
    with pytest.raises(RewriteCheckError) as e:
        graph_rewrite(wb, b2i, check=True)
    assert str(e.value) == (
        "rule 'b2i' changed the dtype of a WHERE node from bool to i32: "
        "where(cmplt(p0, p1), true, false) -> cast(cmplt(p0, p1), i32)"
    )


def test_check_is_on_in_the_suite_through_the_environment():
    # tests/conftest.py sets UOPC_CHECK_REWRITES=1
    with pytest.raises(RewriteCheckError, match=r"^rule 'b2i' changed the dtype"):
        graph_rewrite((p0 < p1).where(True, False), b2i)


def test_check_is_off_without_the_environment(monkeypatch):
    monkeypatch.setenv("UOPC_CHECK_REWRITES", "0")
    assert graph_rewrite((p0 < p1).where(True, False), b2i).dtype is dtypes.i32
    monkeypatch.delenv("UOPC_CHECK_REWRITES")
    assert graph_rewrite((p0 < p1).where(True, False), b2i).dtype is dtypes.i32


def test_check_names_an_unnamed_rule_by_function_or_position():
    def widen(c):
        return c.cast(dtypes.i32)

    pm = PatternMatcher([(UPat(Ops.CONST, arg=-1), lambda: None), (WHERE_1_0, widen)])
    with pytest.raises(RewriteCheckError, match=r"^rule 'widen' changed the dtype of a WHERE node"):
        graph_rewrite((p0 < p1).where(True, False), pm, check=True)
    pm = PatternMatcher([(WHERE_1_0, lambda c: c.cast(dtypes.i32))])
    with pytest.raises(RewriteCheckError, match=r"^rule 'rule0' changed the dtype"):
        graph_rewrite((p0 < p1).where(True, False), pm, check=True)


def test_check_catches_a_shape_change():
    a = UOp.stack(p0, p1)
    chapter_cmp_self = PatternMatcher(
        [
            Rule(
                UPat(Ops.CMPLT, src=(UPat.var("x"), UPat.var("x"))),
                lambda x: UOp.const(False),
                "cmp_self_chapter",
            )
        ]
    )
    with pytest.raises(RewriteCheckError) as e:
        graph_rewrite(a < a, chapter_cmp_self, check=True)
    assert str(e.value) == (
        "rule 'cmp_self_chapter' changed the shape of a CMPLT node from (2,) to (): "
        "cmplt(stack(p0, p1), stack(p0, p1)) -> false"
    )


def test_the_fixed_rule_sets_pass_the_check():
    e = (p0 < p1).where(1, 0) + (p0 * 4 + 8) // 4
    assert graph_rewrite(e, symbolic, check=True) is graph_rewrite(e, symbolic, check=False)


# ---------------------------------------------------------------------------
# exercise 8: the tracer


def test_debug_rewrite_prints_every_firing(monkeypatch, capsys):
    monkeypatch.setenv("DEBUG_REWRITE", "1")
    x = UOp.param(7)  # a slot no other test simplifies, so simplify's memo is cold
    assert simplify(((x * 4) + 8) // 4) is x + 2
    assert capsys.readouterr().err.splitlines() == [
        # (a*c + b) // c -> a + b//c, with a = x*4/4 = x*1 and b = 0 (every term divides)
        "div_sum: floordiv(add(mul(p7, 4), 8), 4) -> add(add(mul(p7, 1), 2), floordiv(0, 4))",
        "mul_one: mul(p7, 1) -> p7",  # the new pieces are rewritten bottom-up
        "fold: floordiv(0, 4) -> 0",
        "add_zero: add(add(p7, 2), 0) -> add(p7, 2)",  # then the new root
    ]


def test_no_trace_without_the_variable(monkeypatch, capsys):
    monkeypatch.delenv("DEBUG_REWRITE", raising=False)
    graph_rewrite(p0 * 1, symbolic)
    assert capsys.readouterr() == ("", "")


# ---------------------------------------------------------------------------
# exercise 5: top-down rewriting

halve = PatternMatcher(
    [
        Rule((UPat.var("x") * 2) // 2, lambda x: x, "mul2_div2", "no_overflow"),  # (x*2)//2 -> x
        Rule(UPat.var("x") * 2, lambda x: x + x, "mul2_add"),  # x*2 -> x + x
    ]
)


def test_topdown_reaches_another_normal_form():
    e = (p0 * 2) // 2
    assert graph_rewrite(e, halve) is (p0 + p0) // 2  # the MUL is rewritten first, then nothing matches
    assert graph_rewrite_topdown(e, halve) is p0  # the outer rule sees the MUL before it is rewritten


def test_topdown_also_rewrites_after_the_sources():
    e = (p0 * 1 + 0) * 2  # the rules only match once the sources are simplified
    assert graph_rewrite_topdown(e, symbolic) is graph_rewrite(e, symbolic) is p0 * 2


def test_topdown_skips_a_discarded_subtree():
    big = p1
    for k in range(200):
        big = big * 3 + k
    e = UOp.const(True).where(p0, big)
    bu, td = Counting(symbolic.rules), Counting(symbolic.rules)
    assert graph_rewrite(e, bu) is graph_rewrite_topdown(e, td) is p0
    assert td.lookups == 2  # the WHERE, then p0
    assert bu.lookups > 400


def test_topdown_loops_are_detected():
    swap = PatternMatcher(
        [(UPat(Ops.ADD, src=(UPat.var("x"), UPat.var("y"))), lambda x, y: UOp(Ops.ADD, (y, x)))]
    )
    with pytest.raises(RuntimeError, match=r"^graph_rewrite did not converge \(a rule loops\?\)$"):
        graph_rewrite_topdown(p0 + p1, swap, max_steps=100)


def test_topdown_deep_chain():
    t = p0
    for _ in range(20_000):
        t = t + 1
    assert graph_rewrite_topdown(t, symbolic) is p0 + 20_000


def test_topdown_check_names_the_rule():
    with pytest.raises(RewriteCheckError, match=r"^rule 'b2i' changed the dtype"):
        graph_rewrite_topdown((p0 < p1).where(True, False), b2i, check=True)


# ---------------------------------------------------------------------------
# the engine itself


def test_max_steps_counts_stage_one_visits():
    e = p0 + p1  # three nodes, no rule fires: three steps
    assert graph_rewrite(e, symbolic, max_steps=3) is e
    with pytest.raises(RuntimeError, match="did not converge"):
        graph_rewrite(e, symbolic, max_steps=2)


def test_a_long_rewrite_pauses_the_cycle_collector_and_turns_it_back_on(monkeypatch):
    import gc

    import eqsat_uopc.greedy.rewrite as rewrite_module

    monkeypatch.setattr(rewrite_module, "_PAUSE_GC_AFTER_STEPS", 4)
    seen = []  # the collector's state each time the rule fires, bottom-up along the chain
    pm = PatternMatcher(
        [
            (
                UPat(Ops.ADD, src=(UPat.var("x"), UPat(Ops.CONST, arg=0))),
                lambda x: seen.append(gc.isenabled()) or x,
            )
        ]
    )
    e = p0
    for _ in range(6):
        e = e + 0
    assert gc.isenabled()
    assert graph_rewrite(e, pm) is p0
    # steps: p0, CONST 0, then each ADD (two steps for the first one: its CONST is shared): the
    # collector is on for the rules fired within the first 4 steps, off after
    assert seen == [True, True, False, False, False, False]
    assert gc.isenabled()
    loop = PatternMatcher(
        [(UPat(Ops.ADD, src=(UPat.var("x"), UPat.var("y"))), lambda x, y: UOp(Ops.ADD, (y, x)))]
    )
    with pytest.raises(RuntimeError, match="did not converge"):
        graph_rewrite(p0 + p1, loop, max_steps=50)
    assert gc.isenabled()  # also after a rewrite that failed with the collector paused


def test_a_shared_node_is_rewritten_once():
    s = p0 * 1
    seen = []
    pm = PatternMatcher(
        [
            (
                UPat(Ops.MUL, src=(UPat.var("x"), UPat(Ops.CONST, arg=1)), name="m"),
                lambda m, x: seen.append(m) or x,
            )
        ]
    )
    e = s * 3 + (s < 5).cast(dtypes.i32) + s
    assert graph_rewrite(e, pm) is p0 * 3 + (p0 < 5).cast(dtypes.i32) + p0
    assert seen == [s]  # three users, one rewrite


def test_rule_result_already_done_finishes_in_one_step():
    g = Counting(symbolic.rules)
    assert graph_rewrite(p0 * 1, g) is p0
    assert g.lookups == 3  # p0, 1, mul -> p0 (already done)


def test_ctx_reaches_every_rule():
    seen = []
    pm = PatternMatcher([(UPat(Ops.PARAM, name="p"), lambda p, ctx: seen.append(ctx) or None)])
    graph_rewrite(p0 + p1, pm, ctx="state")
    assert seen == ["state", "state"]


def test_a_firing_without_a_recorded_rule_is_not_blamed_on_the_last_one():
    class Silent(PatternMatcher):
        def rewrite(self, u, ctx=None):
            if u.op is Ops.WHERE:
                return u.src[0].cast(dtypes.i32)  # fires without going through the rules
            return super().rewrite(u, ctx)

    pm = Silent([Rule(UPat(Ops.MUL, src=(UPat.var("x"), UPat(Ops.CONST, arg=1))), lambda x: x, "mul_one")])
    with pytest.raises(RewriteCheckError, match=r"^rule '<unknown rule>' changed the dtype of a WHERE node"):
        graph_rewrite((p0 * 1 < p1).where(True, False), pm, check=True)


def test_a_call_whose_body_loses_a_parameter_keeps_its_body():
    # Deviation from the chapter's engine, which rebuilt every node from its rewritten sources: here
    # the body's rewrite drops p0, and the IR reads a CALL's arity off its body's PARAMs.
    b = UOp.param(0, dtypes.bool)
    body = b.where(False, False)
    prog = body.call(UOp.const(True) + True, name="f")
    assert simplify(body) is UOp.const(False)
    with pytest.raises(UOpError, match=r"^CALL needs params 0\.\.0, body has \[\]$"):
        prog.replace(src=(simplify(body), *prog.src[1:]))  # what the chapter's engine built
    assert simplify(prog) is body.call(UOp.const(True), name="f")  # the argument is still folded
    assert graph_rewrite_topdown(prog, symbolic) is body.call(UOp.const(True), name="f")
    assert run(prog) is UOp.const(False)
