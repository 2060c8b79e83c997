"""What both fuzzers share (eqsat_uopc.fuzz): the IR's spellings of the ops it lacks, delta
debugging, and running cases in worker processes."""

from __future__ import annotations

import itertools

import pytest

from eqsat_uopc import UOp, dtypes
from eqsat_uopc.corpus import to_sexpr
from eqsat_uopc.fuzz import complexity, normalize_slots, run_all, shrink
from eqsat_uopc.fuzz import spelling as sp
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.semantics.evaluation import evaluate


def P(slot: int, lo: int, hi: int) -> UOp:
    return UOp.param(slot, dtypes.i32, bounds=(lo, hi))


def bounds_by_name(program: UOp) -> dict[str, list[int]]:
    return {f"v{u.arg.slot}": list(u.arg.bounds) for u in program.toposort() if u.op is Ops.PARAM}


# ---------------------------------------------------------------------------
# spellings: each means what it says on every input


def _value(u: UOp, env: dict[int, object]) -> object:
    e = evaluate(u, env, None, "wrap")
    assert e.defined
    return e.value


@pytest.mark.parametrize("name", sorted(sp.NOT_SPELLINGS))
def test_not_spellings(name):
    a = UOp.param(0, dtypes.bool)
    for x in (False, True):
        assert _value(sp.NOT_SPELLINGS[name](a), {0: x}) is (not x)


@pytest.mark.parametrize(
    ("table", "name", "meaning"),
    [(sp.AND_SPELLINGS, n, lambda x, y: x and y) for n in sp.AND_SPELLINGS]
    + [(sp.OR_SPELLINGS, n, lambda x, y: x or y) for n in sp.OR_SPELLINGS],
)
def test_and_or_spellings(table, name, meaning):
    a, b = UOp.param(0, dtypes.bool), UOp.param(1, dtypes.bool)
    for x, y in itertools.product((False, True), repeat=2):
        assert _value(table[name](a, b), {0: x, 1: y}) is meaning(x, y)


def test_comparison_spellings_over_small_ints():
    import random

    rng = random.Random(0)
    x, y = P(0, -4, 4), P(1, -4, 4)
    for _ in range(20):  # each call may pick another spelling
        spelled = {
            "lt": sp.lt(rng, x, y),
            "gt": sp.gt(rng, x, y),
            "le": sp.le(rng, x, y),
            "ge": sp.ge(rng, x, y),
            "eq": sp.eq(rng, x, y),
            "sub": sp.sub(rng, x, y),
            "neg": sp.neg(rng, x),
        }
        for a, b in itertools.product(range(-4, 5), repeat=2):
            env = {0: a, 1: b}
            want = {
                "lt": a < b,
                "gt": a > b,
                "le": a <= b,
                "ge": a >= b,
                "eq": a == b,
                "sub": a - b,
                "neg": -a,
            }
            assert {k: _value(u, env) for k, u in spelled.items()} == want


def test_truncating_division_spellings_are_cs():
    x = P(0, -20, 20)
    for d in (3, -3):
        for a in range(-20, 21):
            q = abs(a) // abs(d) * (1 if (a < 0) == (d < 0) else -1)
            assert _value(sp.cdiv(x, UOp.const(d)), {0: a}) == q
            assert _value(sp.cmod(x, UOp.const(d)), {0: a}) == a - q * d
    y = P(1, 2, 5)
    for a, b in itertools.product(range(-9, 10), range(2, 6)):
        q = abs(a) // b * (1 if a >= 0 else -1)
        assert _value(sp.cdiv(x, y), {0: a, 1: b}) == q


# ---------------------------------------------------------------------------
# shrinking


def test_shrink_reaches_the_exact_minimum_of_a_synthetic_property():
    v0, v1, v2 = P(0, -10, 100), P(1, 0, 8), UOp.param(2, dtypes.i32)
    program = ((v0 * 4 + v1) % 7) + v2 // 2

    def still(p: UOp) -> bool:  # a FLOORMOD by a constant >= 3 of something that can be -2 and 2
        from eqsat_uopc.semantics.intervals import bounds

        return any(
            u.op is Ops.FLOORMOD
            and u.src[1].op is Ops.CONST
            and u.src[1].arg >= 3
            and bounds(u.src[0])[0] <= -2
            and bounds(u.src[0])[1] >= 2
            for u in p.toposort()
        )

    assert still(program)
    out = shrink(program, still, budget=10_000)
    assert to_sexpr(out.program) == "(floormod (var v0) (const 3))"
    assert bounds_by_name(out.program) == {"v0": [-2, 2]}
    assert not out.exhausted and out.steps > 5
    assert shrink(program, still, budget=10_000) == out  # deterministic


def test_shrink_stops_at_its_budget_with_the_best_so_far():
    program = (P(0, 0, 50) * 6 + P(1, 0, 9)) // 9
    out = shrink(program, lambda p: p.op is Ops.FLOORDIV, budget=3)
    assert out.exhausted and out.calls == 3 and complexity(out.program) < complexity(program)


def test_complexity_orders_size_then_inputs_then_constants_then_bounds():
    x = P(0, 0, 7)
    assert complexity(x + 1) == (3, 1, 2, 14)
    assert complexity(x + 1) < complexity(x + 2) < complexity(x + P(1, 0, 0))
    assert complexity(P(0, 0, 3) + 1) < complexity(x + 1)
    assert complexity(UOp.param(0, dtypes.i32) + 0)[3] == 2**34


def test_normalize_slots_numbers_inputs_by_first_use():
    p = P(5, 0, 3) * 2 + P(2, -1, 1)
    n = normalize_slots(p)
    assert to_sexpr(n) == "(add (mul (var v0) (const 2)) (var v1))"
    assert bounds_by_name(n) == {"v0": [0, 3], "v1": [-1, 1]}
    assert normalize_slots(n) is n


# ---------------------------------------------------------------------------
# workers


@pytest.mark.parametrize("workers", [1, 2])
def test_run_all_keeps_item_order_and_ticks_once_per_item(workers):
    ticks = []
    assert run_all(abs, [-3, 1, -2, 0, -7], workers, lambda: ticks.append(1)) == [3, 1, 2, 0, 7]
    assert len(ticks) == 5


def test_shrink_moves_constants_at_the_int32_ends_without_leaving_int32():
    x = UOp.param(0, dtypes.i32)
    program = x // -(2**31) + (2**31 - 1)
    seen = []

    def still(p: UOp) -> bool:  # a division by a constant below -2**30
        seen.append(p)
        return any(
            u.op is Ops.FLOORDIV and u.src[1].op is Ops.CONST and u.src[1].arg < -(2**30)
            for u in p.toposort()
        )

    out = shrink(program, still, budget=1_000)
    assert out.program is UOp.const(0) // -(2**30 + 1) and not out.exhausted
    assert (
        all(-(2**31) <= u.arg <= 2**31 - 1 for p in seen for u in p.toposort() if u.op is Ops.CONST)
        and len(seen) > 3
    )


def test_run_all_under_a_memory_limit_loses_only_the_item_whose_worker_dies():
    import os
    from concurrent.futures.process import BrokenProcessPool

    ticks = []
    # os._exit(n) ends its worker at once, as an allocation failure under the limit does
    out = run_all(os._exit, [3], 1, lambda: ticks.append(1), memory_mb=2048, lost=lambda n: f"lost {n}")
    assert out == ["lost 3"] and len(ticks) == 1
    with pytest.raises(BrokenProcessPool, match=r"^a worker process died running item 0 of 1$"):
        run_all(os._exit, [0], 1, lambda: None, memory_mb=2048)
