"""Every behaviour the rewrite chapter shows, with the chapter's exact values, traces and messages."""

from __future__ import annotations

import math

import pytest

from eqsat_uopc.greedy import (
    PatternMatcher,
    UPat,
    evaluate,
    graph_rewrite,
    inline_call,
    run,
    simplify,
    symbolic,
    to_python,
)
from eqsat_uopc.ir.dtype import dtypes
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uir import parse_uir, to_uir
from eqsat_uopc.ir.uop import ParamArg, UOp, UOpError, rebuild

p0 = UOp(Ops.PARAM, (), ParamArg(0, dtypes.i32))
p1 = UOp(Ops.PARAM, (), ParamArg(1, dtypes.i32))


def show(u: UOp) -> str:
    """The chapter's trace printer (section 2.4)."""
    if u.op is Ops.CONST:
        return repr(u.arg)
    if u.op is Ops.PARAM:
        return f"p{u.arg.slot}"
    return f"{u.op.name.lower()}({', '.join(show(s) for s in u.src)})"


class Trace(PatternMatcher):
    """The chapter's Trace matcher: record every rewrite call."""

    def __init__(self, rules, lines):
        super().__init__(rules)
        self.lines = lines

    def rewrite(self, u, ctx=None):
        r = super().rewrite(u, ctx)
        self.lines.append(f"  visit {show(u):28s} -> {show(r) if r is not None else '.'}")
        return r


# ---------------------------------------------------------------------------
# 2.1 term rewriting: symbolic is not confluent


def test_negative_zero_plus_zero_depends_on_rule_order():
    e = UOp.const(-0.0) + UOp.const(0.0)
    folded = graph_rewrite(e, symbolic).arg  # folding is listed first
    assert folded == 0.0 and math.copysign(1.0, folded) == 1.0
    rev = PatternMatcher(symbolic.rules[1:] + symbolic.rules[:1])
    ident = graph_rewrite(e, rev).arg  # identity first
    assert ident == 0.0 and math.copysign(1.0, ident) == -1.0


# ---------------------------------------------------------------------------
# 2.2 patterns


def test_same_name_binds_same_node():
    same = UPat(Ops.ADD, src=(UPat.var("a"), UPat.var("a")))
    assert same.match(p0 + p1, {}) == []
    assert same.match(p0 + p0, {}) == [{"a": p0}]
    assert repr(same.match(p0 + p0, {})[0]["a"]) == (
        "UOp(Ops.PARAM, arg=ParamArg(slot=0, dtype=dtypes.i32, shape=(), addrspace=None))"
    )


def test_list_sources_give_both_orders():
    pat = UPat(Ops.ADD, src=[UPat.var("a"), UPat.var("b")])
    assert pat.match(p0 + p1, {}) == [{"a": p0, "b": p1}, {"b": p0, "a": p1}]
    assert [list(m) for m in pat.match(p0 + p1, {})] == [["a", "b"], ["b", "a"]]
    tup = UPat(Ops.ADD, src=(UPat.var("a"), UPat.var("b")))
    assert tup.match(p0 + p1, {}) == [{"a": p0, "b": p1}]


def test_sugar_add_const_matches_either_side():
    c = UPat.var("x") + UPat.cvar("c")
    assert repr(c.src) == "[UPat(None, name=x), UPat({Ops.CONST}, name=c)]"
    assert type(c.src) is list
    three = UOp.const(3)
    assert c.match(p0 + 3, {}) == [{"x": p0, "c": three}]
    assert c.match(UOp.const(3) + p0, {}) == [{"c": three, "x": p0}]
    assert list(c.match(UOp.const(3) + p0, {})[0]) == ["c", "x"]


def test_sugar_floordiv_has_tuple_sources():
    d = UPat.var("x") // 2
    assert type(d.src) is tuple
    assert repr(d.src) == "(UPat(None, name=x), UPat({Ops.CONST}, name=None))"


def test_add_zero_rule_in_full():
    pm = PatternMatcher([(UPat.var("x") + 0, lambda x: x)])
    assert graph_rewrite(p0 + 0, pm) is p0


# ---------------------------------------------------------------------------
# 2.3 rules and the PatternMatcher


def test_symbolic_plus_evaluate_has_44_rules_and_the_chapters_counts():
    pm = symbolic + evaluate
    assert len(pm.rules) == 44
    assert {op.name: len(pm.by_op.get(op, [])) for op in Ops if pm.by_op.get(op)} == {
        "CALL": 1, "INDEX": 3, "CAST": 4, "RECIP": 3, "ADD": 14, "MUL": 10, "CMPLT": 6, "FLOORDIV": 8,
        "FLOORMOD": 7, "WHERE": 7, "CMPNE": 6, "MAX": 5, "EXP2": 3, "LOG2": 3, "SQRT": 3, "SIN": 3,
        "RESHAPE": 1, "EXPAND": 1, "PERMUTE": 1, "SHRINK": 1, "REDUCE": 1,
    }  # fmt: skip
    for leaf in (Ops.CONST, Ops.PARAM, Ops.STACK):
        assert pm.by_op.get(leaf, []) == []
    assert pm.rewrite(UOp.stack(1, 2)) is None


def test_composition_puts_left_rules_first():
    pm = symbolic + evaluate
    assert pm.rules == symbolic.rules + evaluate.rules
    assert symbolic.rules[0].name == "fold"


def test_rule_returning_its_input_is_no_change():
    pm = PatternMatcher([(UPat(Ops.ADD, name="u"), lambda u: u.replace(src=u.src))])
    assert pm.rewrite(p0 + p1) is None


# ---------------------------------------------------------------------------
# 2.4 graph_rewrite


def rewrite_rec(u, pm):
    """The chapter's four-line recursive rewriter (a tree walk with no memo)."""
    n = u.replace(src=tuple(rewrite_rec(s, pm) for s in u.src))
    r = pm.rewrite(n)
    return n if r is None else rewrite_rec(r, pm)


class Counting(PatternMatcher):
    """A matcher that counts its rule lookups."""

    def __init__(self, rules):
        super().__init__(rules)
        self.lookups = 0

    def rewrite(self, u, ctx=None):
        self.lookups += 1
        return super().rewrite(u, ctx)


@pytest.mark.parametrize("depth", [5, 10, 15])
def test_lookups_of_shared_squares(depth):
    t = p0
    for _ in range(depth):
        t = t * t
    assert t.size == depth + 1
    g = Counting(symbolic.rules)
    assert graph_rewrite(t, g) is t
    assert g.lookups == depth + 1
    r = Counting(symbolic.rules)
    assert rewrite_rec(t, r) is t
    assert r.lookups == 2 ** (depth + 1) - 1


def test_lookups_of_shared_squares_depth_20():
    # the tree walk does 2**21 - 1 lookups; an empty rule list keeps each one cheap
    t = p0
    for _ in range(20):
        t = t * t
    g = Counting(symbolic.rules)
    graph_rewrite(t, g)
    assert g.lookups == 21
    r = Counting([])
    rewrite_rec(t, r)
    assert r.lookups == 2097151


def test_deep_graph_no_recursion_error():
    t = p0
    for _ in range(20_000):
        t = t + 1
    assert graph_rewrite(t, symbolic) is p0 + 20_000
    with pytest.raises(RecursionError, match="maximum recursion depth exceeded"):
        rewrite_rec(t, symbolic)


CHAPTER_TRACE = """\
  visit p0                           -> .
  visit 2                            -> .
  visit add(p0, 2)                   -> .
  visit 3                            -> .
  visit mul(add(p0, 2), 3)           -> add(mul(p0, 3), 6)
  visit mul(p0, 3)                   -> .
  visit 6                            -> .
  visit add(mul(p0, 3), 6)           -> .
  visit 1                            -> .
  visit 4                            -> .
  visit add(1, 4)                    -> 5
  visit 5                            -> .
  visit add(add(mul(p0, 3), 6), 5)   -> add(mul(p0, 3), 11)
  visit 11                           -> .
  visit add(mul(p0, 3), 11)          -> ."""


def test_trace_of_the_chapter_program():
    e = (p0 + 2) * 3 + (UOp.const(1) + UOp.const(4))
    assert show(e) == "add(mul(add(p0, 2), 3), add(1, 4))"
    lines: list[str] = []
    out = graph_rewrite(e, Trace(symbolic.rules, lines))
    assert "\n".join(lines) == CHAPTER_TRACE
    assert show(out) == "add(mul(p0, 3), 11)"


def one_pass(root, pm):
    """The chapter's one-pass rewriter: never looks at a rule's result again."""
    done = {}
    for u in root.toposort():
        n = u.replace(src=tuple(done[s] for s in u.src))
        r = pm.rewrite(n)
        done[u] = r if r is not None else n  # the chapter's `or n`: a UOp has no truth value here
    return done[root]


def test_one_pass_leaves_rule_results_unsimplified():
    e = (p0 * 2 + p1) * 3
    assert one_pass(e, symbolic) is (p0 * 2) * 3 + p1 * 3
    assert graph_rewrite(e, symbolic) is p0 * 6 + p1 * 3
    assert [show(u) for u in one_pass(e, symbolic).toposort()] == [
        "p0", "2", "mul(p0, 2)", "3", "mul(mul(p0, 2), 3)", "p1", "mul(p1, 3)",
        "add(mul(mul(p0, 2), 3), mul(p1, 3))",
    ]  # fmt: skip


def test_one_pass_fails_to_evaluate():
    a, b = UOp.stack(1, 2, 3), UOp.stack(10, 20, 30)
    left = one_pass(a * b + a, symbolic + evaluate)
    assert left.op is Ops.STACK
    assert show(left.src[0]) == "add(mul(1, 10), 1)"


def test_swap_rule_does_not_converge():
    a, b = p0, p1
    swap = PatternMatcher(
        [(UPat(Ops.ADD, src=(UPat.var("x"), UPat.var("y"))), lambda x, y: UOp(Ops.ADD, (y, x)))]
    )
    with pytest.raises(RuntimeError, match=r"^graph_rewrite did not converge \(a rule loops\?\)$"):
        graph_rewrite(a + b, swap, max_steps=1000)


# ---------------------------------------------------------------------------
# 2.5 writing your own rules


def test_custom_pattern_matcher():
    pm = PatternMatcher(
        [
            (
                UPat(Ops.MUL, src=[UPat.var("x"), UPat.cvar("c", dtype=dtypes.i32)]),
                lambda x, c: x + x if c.arg == 2 else None,
            )
        ]
    )
    x = p0
    assert graph_rewrite(x * 2, pm) is x + x
    assert graph_rewrite(UOp.const(2) * x, pm) is x + x
    assert graph_rewrite(x * 3, pm) is x * 3


b2i = PatternMatcher(
    [
        (
            UPat(Ops.WHERE, src=(UPat.var("c"), UPat(Ops.CONST, arg=1), UPat(Ops.CONST, arg=0))),
            lambda c: c.cast(dtypes.i32),
        )
    ]
)
b2i_fixed = PatternMatcher(
    [
        (
            UPat(
                Ops.WHERE,
                dtype=dtypes.i32,
                src=(UPat.var("c"), UPat(Ops.CONST, arg=1), UPat(Ops.CONST, arg=0)),
            ),
            lambda c: c.cast(dtypes.i32),
        )
    ]
)


def test_where_one_zero_becomes_a_cast():
    c = p0 < p1
    assert graph_rewrite(c.where(1, 0), b2i) is c.cast(dtypes.i32)
    assert graph_rewrite(c.where(1, 0), b2i_fixed) is c.cast(dtypes.i32)


def test_where_true_false_dtype_bug_and_fix():
    c = p0 < p1
    wb = c.where(True, False)
    assert wb.dtype is dtypes.bool
    # the chapter's rule, with the rewrite check off (it would catch this: see test_rewrite.py)
    assert graph_rewrite(wb, b2i, check=False).dtype is dtypes.i32
    assert graph_rewrite(wb, b2i_fixed).dtype is dtypes.bool
    assert graph_rewrite(wb, b2i_fixed) is wb


bind = PatternMatcher(
    [
        (
            UPat(Ops.PARAM, name="p"),
            lambda p, ctx: UOp.const(ctx[p.arg.slot], p.dtype) if p.arg.slot in ctx else None,
        )
    ]
)


def test_bind_with_ctx():
    e = (p0 + 2) * p1 + p0 * 0
    five = UOp.const(5)
    assert graph_rewrite(e, bind, ctx={0: 5}) is (five + 2) * p1 + five * 0


def test_ctx_mixed_with_symbolic_raises():
    e = (p0 + 2) * p1 + p0 * 0
    with pytest.raises(TypeError, match=r"^_fold\(\) got an unexpected keyword argument 'ctx'$"):
        graph_rewrite(e, bind + symbolic, ctx={0: 5})


def test_two_passes_bind_then_simplify():
    e = (p0 + 2) * p1 + p0 * 0
    assert simplify(graph_rewrite(e, bind, ctx={0: 5})) is p1 * 7


# ---------------------------------------------------------------------------
# 2.6 running programs by rewriting


class FiredTrace(PatternMatcher):
    """Record only the rules that fired, as the chapter's evaluation traces do."""

    def __init__(self, rules, lines, show):
        super().__init__(rules)
        self.lines, self.show = lines, show

    def rewrite(self, u, ctx=None):
        r = super().rewrite(u, ctx)
        if r is not None:
            self.lines.append((self.show(u), self.show(r)))
        return r


def test_run_a_times_b_plus_a():
    a, b = UOp.stack(1, 2, 3), UOp.stack(10, 20, 30)
    lines: list[tuple[str, str]] = []
    out = graph_rewrite(a * b + a, FiredTrace((symbolic + evaluate).rules, lines, show))
    assert to_python(out) == [11, 42, 93]
    assert to_python(run(a * b + a)) == [11, 42, 93]
    assert lines == [
        ("mul(stack(1, 2, 3), stack(10, 20, 30))", "stack(mul(1, 10), mul(2, 20), mul(3, 30))"),
        ("mul(1, 10)", "10"),
        ("mul(2, 20)", "40"),
        ("mul(3, 30)", "90"),
        ("add(stack(10, 40, 90), stack(1, 2, 3))", "stack(add(10, 1), add(40, 2), add(90, 3))"),
        ("add(10, 1)", "11"),
        ("add(40, 2)", "42"),
        ("add(90, 3)", "93"),
    ]


def test_run_where_of_stacks():
    a, b = UOp.stack(1, 2, 3), UOp.stack(10, 20, 30)
    cond = a < UOp.stack(2, 2, 2)
    lines: list[tuple[str, str]] = []
    out = graph_rewrite(cond.where(a, b), FiredTrace((symbolic + evaluate).rules, lines, show))
    assert to_python(out) == [1, 20, 30]
    assert lines == [
        ("cmplt(stack(1, 2, 3), stack(2, 2, 2))", "stack(cmplt(1, 2), cmplt(2, 2), cmplt(3, 2))"),
        ("cmplt(1, 2)", "True"),
        ("cmplt(2, 2)", "False"),
        ("cmplt(3, 2)", "False"),
        (
            "where(stack(True, False, False), stack(1, 2, 3), stack(10, 20, 30))",
            "stack(where(True, 1, 10), where(False, 2, 20), where(False, 3, 30))",
        ),
        ("where(True, 1, 10)", "1"),
        ("where(False, 2, 20)", "20"),
        ("where(False, 3, 30)", "30"),
    ]


def test_run_index_of_stack():
    s = UOp.stack(UOp.stack(1, 2, 3), UOp.stack(10, 20, 30))
    lines: list[tuple[str, str]] = []
    out = graph_rewrite(s.index(1).index(2), FiredTrace((symbolic + evaluate).rules, lines, show))
    assert to_python(out) == 30
    assert lines == [
        ("index(stack(stack(1, 2, 3), stack(10, 20, 30)), 1)", "stack(10, 20, 30)"),
        ("index(stack(10, 20, 30), 2)", "30"),
    ]


def test_index_out_of_bounds():
    with pytest.raises(IndexError, match=r"^index 5 out of bounds for STACK of 3$"):
        run(UOp.stack(1, 2, 3).index(5))


def show_movement(u: UOp) -> str:
    """The chapter's printer for the movement trace: movement ops and REDUCE show their argument."""
    if u.op is Ops.CONST:
        return repr(u.arg)
    parts = [show_movement(s) for s in u.src]
    if u.op in (Ops.RESHAPE, Ops.EXPAND, Ops.PERMUTE):
        parts.append(repr(u.arg))
    if u.op is Ops.REDUCE:
        parts += [u.arg[0].name.lower(), str(u.arg[1])]
    return f"{u.op.name.lower()}({', '.join(parts)})"


def test_run_movement_program_rewrites_the_shared_row_once():
    row = UOp.stack(1.0, 2.0, 3.0)
    prog = (
        (UOp.stack(row, row) * UOp.const(2.0).reshape((1, 1)).expand((2, 3)))
        .permute((1, 0))
        .reduce(Ops.ADD, 1)
    )
    lines: list[tuple[str, str]] = []
    out = graph_rewrite(prog, FiredTrace((symbolic + evaluate).rules, lines, show_movement))
    assert to_python(out) == [4.0, 8.0, 12.0]
    assert to_python(run(prog)) == [4.0, 8.0, 12.0]
    r2, r3 = "stack(1.0, 2.0, 3.0)", "stack(2.0, 2.0, 2.0)"
    assert lines == [
        ("reshape(2.0, (1, 1))", "stack(stack(2.0))"),
        ("expand(stack(stack(2.0)), (2, 3))", f"stack({r3}, {r3})"),
        (f"mul(stack({r2}, {r2}), stack({r3}, {r3}))", f"stack(mul({r2}, {r3}), mul({r2}, {r3}))"),
        (
            f"mul({r2}, {r3})",
            "stack(mul(1.0, 2.0), mul(2.0, 2.0), mul(3.0, 2.0))",
        ),  # once: the rows are one node
        ("mul(1.0, 2.0)", "2.0"),
        ("mul(2.0, 2.0)", "4.0"),
        ("mul(3.0, 2.0)", "6.0"),
        (
            "permute(stack(stack(2.0, 4.0, 6.0), stack(2.0, 4.0, 6.0)), (1, 0))",
            "stack(stack(2.0, 2.0), stack(4.0, 4.0), stack(6.0, 6.0))",
        ),
        ("reduce(stack(stack(2.0, 2.0), stack(4.0, 4.0), stack(6.0, 6.0)), add, 1)", "stack(4.0, 8.0, 12.0)"),
    ]


def test_call_is_beta_reduction():
    sq = (p0 * p0).call(7, name="sq")
    assert to_python(run(sq)) == 49


def naive_inline(call: UOp) -> UOp:
    """The chapter's naive inliner: substitutes p0 everywhere reachable, nested CALL bodies included."""
    return rebuild(call.src[0], {p0: call.src[1]}.get, enter_call_bodies=True)


def nested_f_g_sq():
    """f(y) = g(y + 1), g(z) = sq(z) * 2, sq(w) = w * w; all three parameters are the node p0."""
    sq_body = p0 * p0
    g_body = sq_body.call(p0, name="sq") * 2
    f_body = g_body.call(p0 + 1, name="g")  # the middle CALL
    return sq_body, g_body, f_body


def test_nested_calls_scoped_versus_naive_inlining():
    sq_body, _, g_call = nested_f_g_sq()
    prog = g_call.call(5, name="f")
    assert to_python(run(prog)) == 72
    naive = naive_inline(g_call)
    scoped = inline_call(g_call)
    assert naive is ((p0 + 1) * (p0 + 1)).call(p0 + 1, name="sq") * 2
    assert scoped is sq_body.call(p0 + 1, name="sq") * 2
    assert to_python(run(scoped.call(5, name="f"))) == 72
    assert to_python(run(naive.call(5, name="f"))) == 98


def test_naive_inliner_with_a_constant_argument_fails_to_typecheck():
    _, _, g_call = nested_f_g_sq()
    with pytest.raises(UOpError, match=r"^CALL needs params 0\.\.0, body has \[\]$"):
        naive_inline(g_call.call(5, name="f"))
    assert to_python(run(inline_call(g_call.call(5, name="f")))) == 72


def test_to_python_refuses_a_stuck_program():
    with pytest.raises(ValueError, match=r"^program did not evaluate to a value, stuck at Ops.ADD$"):
        to_python(run(p0 + 1 + 2))


# ---------------------------------------------------------------------------
# the chapter's listings, as .uir text

ONE_PASS_LISTING = """\
%0 = param : slot=0 dtype=i32
%1 = mul %0, 2
%2 = mul %1, 3
%3 = param : slot=1 dtype=i32
%4 = mul %3, 3
%5 = add %2, %4
"""
GRAPH_REWRITE_LISTING = """\
%0 = param : slot=0 dtype=i32
%1 = mul %0, 6
%2 = param : slot=1 dtype=i32
%3 = mul %2, 3
%4 = add %1, %3
"""


def test_listings_one_pass_versus_graph_rewrite():
    e = (p0 * 2 + p1) * 3
    assert to_uir(one_pass(e, symbolic)) == ONE_PASS_LISTING
    assert to_uir(graph_rewrite(e, symbolic)) == GRAPH_REWRITE_LISTING
    assert parse_uir(GRAPH_REWRITE_LISTING) is graph_rewrite(parse_uir(ONE_PASS_LISTING), symbolic)


def test_listing_one_pass_evaluation_is_unfinished():
    a, b = UOp.stack(1, 2, 3), UOp.stack(10, 20, 30)
    lines = to_uir(one_pass(a * b + a, symbolic + evaluate)).splitlines()
    assert lines[:2] == ["%0 = mul 1, 10", "%1 = add %0, 1"]
    assert lines[-1] == "%6 = stack %1, %3, %5"


def test_listing_b2i():
    before = """\
%0 = param : slot=0 dtype=i32
%1 = param : slot=1 dtype=i32
%2 = cmplt %0, %1
%3 = where %2, 1, 0
"""
    after = """\
%0 = param : slot=0 dtype=i32
%1 = param : slot=1 dtype=i32
%2 = cmplt %0, %1
%3 = cast %2 : dtype=i32
"""
    assert to_uir(graph_rewrite(parse_uir(before), b2i)) == after


def test_listings_bind_then_simplify():
    e = (p0 + 2) * p1 + p0 * 0
    assert to_uir(graph_rewrite(e, bind, ctx={0: 5})) == (
        "%0 = add 5, 2\n%1 = param : slot=1 dtype=i32\n%2 = mul %0, %1\n%3 = mul 5, 0\n%4 = add %2, %3\n"
    )
    assert (
        to_uir(simplify(graph_rewrite(e, bind, ctx={0: 5})))
        == "%0 = param : slot=1 dtype=i32\n%1 = mul %0, 7\n"
    )


def test_listing_sq_call():
    prog = parse_uir("%0 = param : slot=0 dtype=i32\n%1 = mul %0, %0\n%2 = call %1, 7 : name=sq\n")
    assert to_uir(run(prog)) == "%0 = const 49\n"


def test_listing_movement_program():
    prog = parse_uir(
        """\
%0 = stack 1.0, 2.0, 3.0
%1 = stack %0, %0
%2 = reshape 2.0, (1, 1)
%3 = expand %2, (2, 3)
%4 = mul %1, %3
%5 = permute %4, (1, 0)
%6 = reduce %5 : op=add pop=1
"""
    )
    assert to_uir(run(prog)) == "%0 = stack 4.0, 8.0, 12.0\n"


# ---------------------------------------------------------------------------
# smaller facts from the text, the pitfalls and the quiz


def test_section_2_1_rewrite_sequence_and_critical_pair():
    y = p0
    assert simplify(((y + 0) * 1) + 0) is y  # add(mul(add(y, 0), 1), 0) -> y
    assert simplify((p0 + p1) * 0) is UOp.const(0)  # mul(x, 0) and distribution overlap: joinable


def test_pitfall_6_rules_that_undo_each_other_loop():
    a, b, c = UPat.var("a", dtype=dtypes.i32), UPat.var("b"), UPat.cvar("c")
    loop = PatternMatcher(
        [
            (UPat(Ops.MUL, src=(UPat(Ops.ADD, src=(a, b)), c)), lambda a, b, c: a * c + b * c),  # distribute
            (
                UPat(Ops.ADD, src=(UPat(Ops.MUL, src=(a, c)), UPat(Ops.MUL, src=(b, c)))),
                lambda a, b, c: (a + b) * c,
            ),
        ]
    )
    with pytest.raises(RuntimeError, match=r"^graph_rewrite did not converge \(a rule loops\?\)$"):
        graph_rewrite((p0 + p1) * 3, loop, max_steps=10_000)


def test_quiz_8_the_two_rules_that_evaluate_a_stack_product(monkeypatch, capsys):
    monkeypatch.setenv("DEBUG_REWRITE", "1")
    assert to_python(run(UOp.stack(1, 2, 3) * UOp.stack(10, 20, 30))) == [10, 40, 90]
    assert [line.split(":")[0] for line in capsys.readouterr().err.splitlines()] == [
        "push_stack",
        "fold",
        "fold",
        "fold",
    ]


def test_patterns_may_constrain_the_arg_instead_of_the_function():
    pm = PatternMatcher(
        [(UPat(Ops.MUL, src=[UPat.var("x"), UPat(Ops.CONST, arg=2, name="c")]), lambda x, c: x + x)]
    )
    assert graph_rewrite(p0 * 2, pm) is p0 + p0
    assert graph_rewrite(p0 * 3, pm) is p0 * 3
