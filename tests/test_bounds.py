"""bounds/vmin/vmax: conservative intervals, checked against evaluation at random points."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from eqsat_uopc.ir.dtype import dtypes
from eqsat_uopc.ir.ops import ALU, Ops
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.semantics.alu import exec_alu
from eqsat_uopc.semantics.intervals import bounds, vmax, vmin

INT_MIN, INT_MAX = -(2**31), 2**31 - 1
FULL = (INT_MIN, INT_MAX)
p0, p1 = UOp.param(0), UOp.param(1)
r10 = UOp.range(10, "r10")


def test_leaves():
    assert bounds(UOp.const(7)) == (7, 7)
    assert bounds(UOp.const(True)) == (True, True)
    assert bounds(p0) == FULL
    assert bounds(UOp.param(2, dtypes.bool)) == (False, True)
    assert bounds(r10) == (0, 9)
    assert bounds(UOp.range(p0, "rp")) == (0, INT_MAX - 1)
    assert bounds(UOp.range(UOp.const(0), "empty")) == (0, 0)


def test_arithmetic_on_ranges():
    assert bounds(r10 + 5) == (5, 14)
    assert bounds(r10 * -3) == (-27, 0)
    assert bounds(r10 * r10) == (0, 81)
    assert bounds((r10 + 5) // 2) == (2, 7)
    assert bounds((r10 + 5) % 4) == (0, 3)
    assert bounds(r10 % 16) == (0, 9)
    assert bounds(r10.maximum(UOp.const(4))) == (4, 9)
    assert bounds(r10 // -2) == (-5, 0)  # negative divisors and bounded variable ones: the corners
    assert bounds(r10 % -4) == (-3, 0)
    assert bounds((r10 + 1) // (r10 + 1)) == (0, 10)  # an interval analysis does not see x // x
    assert bounds((r10 + 5) % (r10 + 1)) == (0, 9)
    assert bounds((r10 - 20) % (r10 - 12)) == (-11, 0)
    assert bounds(r10 // (r10 - 5)) == FULL  # the divisor's range holds 0


def test_comparisons_and_where():
    assert bounds(r10 < 10) == (True, True)
    assert bounds(r10 < 0) == (False, False)
    assert bounds(r10 < 5) == (False, True)
    assert bounds((r10 + 10).ne(r10)) == (True, True)  # [10, 19] and [0, 9] never meet
    assert bounds((r10 + 5).ne(r10)) == (False, True)
    assert bounds((r10 + 10).ne(UOp.const(3))) == (True, True)
    assert bounds(UOp.const(3).ne(UOp.const(3))) == (False, False)
    assert bounds((r10 < 5).where(r10, r10 + 100)) == (0, 109)
    assert bounds((r10 < 10).where(r10, r10 + 100)) == (0, 9)
    assert bounds((r10 < 0).where(r10, r10 + 100)) == (100, 109)
    assert bounds((r10 < 5).cast(dtypes.i32)) == (0, 1)


def test_possible_wraparound_gives_the_full_range():
    assert bounds(r10 + INT_MAX) == FULL
    assert bounds(r10 * 2**30) == FULL
    assert bounds(p0 + 1) == FULL
    assert bounds(UOp.range(2**31 - 1, "big") + 1) == (1, INT_MAX)


def test_floats_and_shaped_values_get_the_full_range():
    f = UOp.param(0, dtypes.f32)
    assert bounds(f + 1.0) == (-float("inf"), float("inf"))
    assert bounds(f < 1.0) == (False, True)
    assert bounds(UOp.stack(1, 2) + UOp.stack(3, 4)) == FULL


def test_vmin_vmax_and_the_memo():
    e = (r10 + 3) * 2
    assert (vmin(e), vmax(e)) == (6, 24)
    assert e.memo("bounds", lambda u: None) == (6, 24)  # cached on the node


def test_a_20000_deep_chain_does_not_recurse():
    t = UOp.range(4, "deep")
    for _ in range(20_000):
        t = t + 1
    assert bounds(t) == (20_000, 20_003)


# ---------------------------------------------------------------------------
# property: every value at every point lies in [vmin, vmax]

EXTENTS = (1, 2, 5, 16, 1000)
N_RANGES, N_PARAMS = 3, 2
RANGES = [UOp.range(e, f"r{k}") for k, e in enumerate(EXTENTS[:N_RANGES])] + [UOp.range(EXTENTS[-1], "rbig")]
PARAMS = [UOp.param(k) for k in range(N_PARAMS)]
CONSTS = st.sampled_from([0, 1, -1, 2, 3, 7, -8, 16, 1000, INT_MAX, INT_MIN]) | st.integers(INT_MIN, INT_MAX)


@st.composite
def int_exprs(draw, depth: int = 4) -> UOp:
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        kind = draw(st.sampled_from(["range", "range", "param", "const"]))
        if kind == "range":
            return draw(st.sampled_from(RANGES))
        if kind == "param":
            return draw(st.sampled_from(PARAMS))
        return UOp.const(draw(CONSTS))
    op = draw(st.sampled_from(["add", "mul", "max", "div", "mod", "where", "cast", "offset"]))
    a = draw(int_exprs(depth - 1))
    if op == "offset":  # a bounded expression: range + const
        return a + draw(st.integers(-50, 50))
    if op in ("div", "mod"):
        c = draw(
            st.sampled_from([1, 2, 3, 4, 7, 16, -3]) | st.integers(INT_MIN, INT_MAX).filter(lambda v: v != 0)
        )
        return a // c if op == "div" else a % c
    if op == "cast":
        return (a < draw(int_exprs(depth - 1))).cast(dtypes.i32)
    b = draw(int_exprs(depth - 1))
    if op == "where":
        cond = a.ne(b) if draw(st.booleans()) else a < b
        return cond.where(draw(int_exprs(depth - 1)), b)
    return {"add": a + b, "mul": a * b, "max": a.maximum(b)}[op]


def evaluate(root: UOp, env: dict[UOp, int]):
    """Every node's value at one point (None where C is undefined), by exec_alu."""
    val: dict[UOp, object] = {}
    for u in root.toposort():
        if u in env:
            val[u] = env[u]
        elif u.op is Ops.CONST:
            val[u] = u.arg
        elif u.op in ALU:
            args = [val[s] for s in u.src]
            val[u] = None if any(a is None for a in args) else exec_alu(u.op, u.dtype, args)
        else:
            raise AssertionError(f"unexpected {u.op}")
    return val


@settings(max_examples=300, deadline=None)
@given(
    int_exprs(),
    st.lists(st.integers(0, 10**6), min_size=len(RANGES), max_size=len(RANGES)),
    st.lists(CONSTS, min_size=N_PARAMS, max_size=N_PARAMS),
)
def test_bounds_contain_every_value(e, range_picks, param_values):
    env = {r: pick % r.src[0].arg for r, pick in zip(RANGES, range_picks, strict=True)}
    env.update(zip(PARAMS, param_values, strict=True))
    for u, v in evaluate(e, env).items():
        if v is None or u.op is Ops.RANGE:
            continue
        lo, hi = bounds(u)
        assert lo <= v <= hi, f"{u!r}: {v} outside [{lo}, {hi}]"
