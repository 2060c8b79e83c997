"""Compiled patterns (exercise 10) agree with the interpreter: same bindings, same order, same keys."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eqsat_uopc.greedy import PatternMatcher, UPat, evaluate, graph_rewrite, symbolic
from eqsat_uopc.greedy.compiled import compile_rewriter, compile_upat, matcher_source
from eqsat_uopc.ir.dtype import dtypes
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.verify.rule_sampling import pattern_instances
from tests.strategies import programs

RULES = (symbolic + evaluate).rules
p0, p1 = UOp.param(0, dtypes.i32), UOp.param(1, dtypes.i32)
x, y = UPat.var("x"), UPat.var("y")


def same_bindings(got: list[dict], want: list[dict]) -> bool:
    """Identical lists: same length, and per binding the same keys in the same order bound by `is`."""
    return len(got) == len(want) and all(
        list(g) == list(w) and all(g[k] is w[k] for k in g) for g, w in zip(got, want, strict=True)
    )


def assert_agree(pat: UPat, u: UOp) -> None:
    got, want = compile_upat(pat)(u), pat.match(u, {})
    assert same_bindings(got, want), (pat, u, got, want)


def test_chapter_examples():
    pat = UPat(Ops.ADD, src=[UPat.var("a"), UPat.var("b")])
    got = compile_upat(pat)(p0 + p1)
    assert [list(b.items()) for b in got] == [[("a", p0), ("b", p1)], [("b", p0), ("a", p1)]]
    same = UPat(Ops.ADD, src=(UPat.var("a"), UPat.var("a")))
    assert compile_upat(same)(p0 + p1) == [] and compile_upat(same)(p0 + p0) == [{"a": p0}]
    c = UPat.var("x") + UPat.cvar("c")
    three = UOp.const(3)
    assert [list(b.items()) for b in compile_upat(c)(p0 + 3)] == [[("x", p0), ("c", three)]]
    assert [list(b.items()) for b in compile_upat(c)(three + p0)] == [[("c", three), ("x", p0)]]


@pytest.mark.parametrize(
    "pat, nodes",
    [
        # args compare with ==, as in the interpreter: arg=0 matches 0, 0.0, -0.0 and False
        (UPat(Ops.CONST, arg=0, name="z"), [UOp.const(0), UOp.const(0.0), UOp.const(-0.0), UOp.const(False)]),
        (UPat(Ops.CONST, arg=1), [UOp.const(True), UOp.const(1.0), UOp.const(2)]),
        # dtype sets, op sets, a pattern with no constraint at all
        (UPat.var("v", dtype=(dtypes.i32, dtypes.bool)), [p0, UOp.const(1.5), p0 < p1]),
        (UPat((Ops.CMPLT, Ops.CMPNE), src=(x, x)), [p0 < p0, p0.ne(p0), p0 < p1, p0 + p0]),
        (UPat(), [p0, p0 + p1]),
        # the same list pattern twice: every permutation is tried, duplicates included
        (UPat(Ops.MUL, src=[x, x]), [p0 * p0, p0 * p1]),
        # allow_any_len constrains a prefix; an empty source list matches only leaves
        (
            UPat(Ops.INDEX, src=(UPat(Ops.STACK, name="s"), UPat.cvar("i")), allow_any_len=True, name="u"),
            [
                UOp.stack(UOp.stack(1, 2), UOp.stack(3, 4)).index(1, 0),
                UOp.stack(1, 2).index(0),
                UOp.stack(1, 2).index(p0),
            ],
        ),
        (UPat(Ops.INDEX, src=(x,)), [UOp.stack(1, 2).index(), UOp.stack(1, 2).index(1)]),
        (UPat(src=[]), [p0, UOp.const(1), p0 + p1]),
        (UPat(src=(), allow_any_len=True), [p0, p0 + p1]),
        # nested list sources: the enumeration order is outer order first, then inner orders
        (
            UPat(Ops.ADD, src=[UPat(Ops.MUL, src=[x, y], name="m"), UPat(name="z")]),
            [p0 * p1 + p0 * p1, p0 * p1 + p1, p1 + p0 * p1],
        ),
    ],
)
def test_constructs(pat, nodes):
    for u in nodes:
        assert_agree(pat, u)


def test_generated_source_is_nested_ifs():
    source, env = matcher_source(UPat.var("x", dtype=dtypes.i32) + UPat.cvar("c"))
    assert source.splitlines()[:4] == [
        "def match(n0):",
        "    out = []",
        "    if n0.op is OP0 and len(n0.src) == 2:",
        "        n1, n2 = n0.src",
    ]
    assert "out.append({'x': n1, 'c': n2})" in source and "out.append({'c': n1, 'x': n2})" in source
    assert env["OP0"] is Ops.ADD


def test_too_deep_to_compile_falls_back_to_the_interpreter():
    pat, u = UPat.var("leaf"), p0
    for k in range(120):  # past Python's 100 indentation levels
        pat, u = UPat(Ops.ADD, src=(pat, UPat.cvar(f"c{k}"))), u + k
    matcher = compile_upat(pat)
    assert not getattr(matcher, "compiled_upat", False)
    assert same_bindings(matcher(u), pat.match(u, {}))
    assert len(matcher(u)) == 1 and matcher(u)[0]["c119"] is UOp.const(119)
    rules = PatternMatcher([(pat, lambda leaf, **consts: leaf), (UPat.var("v"), lambda v: None)]).rules
    rewriter = compile_rewriter(rules)
    assert rewriter(u, None) == (p0, 0) and rewriter(p0, None) is None


def test_cached_per_pattern():
    pat = UPat(Ops.ADD, src=(UPat.var("q"), UPat.cvar("k")))
    assert compile_upat(pat) is compile_upat(pat)
    twin = UPat(Ops.ADD, src=(UPat.var("q"), UPat.cvar("k")))
    assert compile_upat(twin) is compile_upat(pat)  # same source, same constants: one function
    other = UPat(Ops.MUL, src=(UPat.var("q"), UPat.cvar("k")))
    assert compile_upat(other) is not compile_upat(pat)
    zero, fzero = UPat(Ops.CONST, arg=0), UPat(Ops.CONST, arg=0.0)
    assert compile_upat(zero) is not compile_upat(fzero)  # the constant is part of the key


@pytest.mark.parametrize("rule", RULES, ids=[r.name for r in RULES])
def test_every_rule_on_its_own_instances(rule):
    """Synthesized nodes that the rule's pattern matches, and every subterm of them."""
    instances = pattern_instances(rule.pat, 25, seed=3)
    assert instances
    for inst in instances:
        for u in inst.toposort():
            assert_agree(rule.pat, u)


@settings(max_examples=60, deadline=None)
@given(programs(dtypes=(dtypes.i32, dtypes.bool, dtypes.f32), ranges=True, max_ops=12))
def test_every_rule_on_random_programs(prog):
    for u in prog.toposort():
        for rule in RULES:
            assert_agree(rule.pat, u)


def _fused_agrees(u: UOp, interpreted: PatternMatcher, fused: dict, ctx=None) -> None:
    try:
        want = interpreted.rewrite(u, ctx)
    except Exception as e:
        want = (type(e).__name__, str(e))
    rewriter = fused.get(u.op)
    try:
        got = None if rewriter is None else rewriter(u, ctx)
    except Exception as e:
        got = (type(e).__name__, str(e))
    if isinstance(want, tuple) or want is None:
        assert got == want, (u, got, want)
    else:
        assert got[0] is want and interpreted.by_op[u.op][got[1]] is interpreted.last_fired, (u, got, want)


FUSED = {op: compile_rewriter(rules) for op, rules in PatternMatcher(RULES, compiled=False).by_op.items()}


@pytest.mark.parametrize("rule", RULES, ids=[r.name for r in RULES])
def test_fused_rewriter_on_rule_instances(rule):
    interpreted = PatternMatcher(RULES, compiled=False)
    for inst in pattern_instances(rule.pat, 10, seed=5):
        for u in inst.toposort():
            _fused_agrees(u, interpreted, FUSED)


@settings(max_examples=40, deadline=None)
@given(programs(dtypes=(dtypes.i32, dtypes.bool, dtypes.f32), ranges=True, max_ops=12))
def test_fused_rewriter_on_random_programs(prog):
    interpreted = PatternMatcher(RULES, compiled=False)
    for u in prog.toposort():
        _fused_agrees(u, interpreted, FUSED)


def test_fused_rewriter_passes_ctx():
    bind = [
        (
            UPat(Ops.PARAM, name="p"),
            lambda p, ctx: UOp.const(ctx[p.arg.slot], p.dtype) if p.arg.slot in ctx else None,
        )
    ]
    rewriter = compile_rewriter(PatternMatcher(bind).rules)
    assert rewriter(p0, {0: 5}) == (UOp.const(5), 0)
    assert rewriter(p1, {0: 5}) is None
    with pytest.raises(TypeError):
        rewriter(p0, None)  # without ctx the function misses its argument, as in PatternMatcher.rewrite
    assert "ctx=ctx" in rewriter.source


def _rewrite_or_error(prog: UOp, pm: PatternMatcher):
    try:
        return graph_rewrite(prog, pm)
    except Exception as e:  # both matchers must fail the same way, too
        return (type(e).__name__, str(e))


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_graph_rewrite_same_with_and_without_compiled(data):
    prog = data.draw(programs(dtypes=(dtypes.i32, dtypes.bool, dtypes.f32), ranges=True, max_ops=14))
    for rules in (symbolic.rules, RULES):
        compiled, interpreted = PatternMatcher(rules, compiled=True), PatternMatcher(rules, compiled=False)
        got, want = _rewrite_or_error(prog, compiled), _rewrite_or_error(prog, interpreted)
        assert got is want or got == want


def test_environment_switch(monkeypatch):
    monkeypatch.setenv("UOPC_COMPILED", "0")
    assert PatternMatcher(symbolic.rules).compiled is False
    monkeypatch.setenv("UOPC_COMPILED", "1")
    pm = PatternMatcher(symbolic.rules)
    assert pm.compiled is True
    assert all(getattr(m, "compiled_upat", False) for cands in pm._candidates.values() for _, m in cands)
