"""Saturated e-graphs are sound at the int32 edges, under both int semantics.

Every member of every e-class must agree with its class at every input (`check_sound`): under
"wrap" on int32 values with wraparound, under "no_overflow" over the mathematical integers, at every
input, not only where the program stays in int32 (docs/DESIGN.md, "Integer semantics": the rules
build terms the program does not have, x*c + y*c beside (x + y)*c, whose exact values may leave
int32). Programs: the one the lead found (`(r + 2**30) // 6 * 6 + (r + 2**30) % 6` lost its constant
under no_overflow: a bound clamped to int32 was false of a sum the rules built), smaller ones of the
same kind, and a seeded generator of index expressions with constants, bounds and inputs at the
int32 edges, saturated with the rule families alone (no hooks) so that the rules are what is tested.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import random

import pytest
from eqsat_uopc.rules import FAMILIES, Family, RuleSet, parse_family, rule_set

from eqsat_uopc import UOp, optimize, prove_equivalent, saturate, to_uir
from eqsat_uopc.greedy.symbolic import simplify, simplify_under
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.semantics.evaluation import evaluate
from eqsat_uopc.verify.egraph_soundness import check_sound

MIN, MAX = -(2**31), 2**31 - 1
SEMANTICS = ("wrap", "no_overflow")

r = UOp.range(1024, "r")
LEAD = (r + 2**30) // 6 * 6 + (r + 2**30) % 6
near_max = UOp.param(0, bounds=(MAX - 100, MAX))
# (name, program, inputs: list of (params, {RANGE identifier: value}))
R_INPUTS = [({}, {"r": v}) for v in (0, 1, 511, 1023)]
PROGRAMS = [
    ("lead", LEAD, R_INPUTS),
    ("recombination by 3", (r + (2**30 + 5)) // 3 * 3 + (r + (2**30 + 5)) % 3, R_INPUTS),
    ("recombination near MAX", (r + (MAX - 1024)) // 7 * 7 + (r + (MAX - 1024)) % 7, R_INPUTS),
    ("offset near MAX", (near_max + 7) % 65536, [({0: v}, {}) for v in (MAX - 100, MAX - 7, MAX - 6, MAX)]),
]


def _disagreements(s, inputs, int_semantics):
    out = []
    for params, ranges in inputs:
        bound = {(k, n.src[0]): v for n in _ranges(s.program) for k, v in ranges.items() if n.arg == k}
        out += [(params, ranges, d) for d in check_sound(s.egraph, params, bound, int_semantics)]
    return out


def _ranges(program):
    return [u for u in _nodes(program) if u.op is Ops.RANGE]


def _nodes(program):
    seen, todo = {}, [program]
    while todo:
        u = todo.pop()
        if u not in seen:
            seen[u] = None
            todo.extend(u.src)
    return list(seen)


def test_the_lead_program_keeps_its_constant():
    for sem in SEMANTICS:
        best = optimize(LEAD, int_semantics=sem).program
        assert to_uir(best) == "%0 = range 1024 : id=r\n%1 = add %0, 1073741824\n", sem
        assert prove_equivalent(best, LEAD, sem).status == "proved", sem
        assert prove_equivalent(LEAD, best, sem, refinement=True).status == "proved", sem


@pytest.mark.parametrize("sem", SEMANTICS)
@pytest.mark.parametrize(("name", "program", "inputs"), PROGRAMS, ids=[p[0] for p in PROGRAMS])
def test_saturated_e_graph_is_sound(name, program, inputs, sem):
    """The lead's settings (no greedy seed; iteration 12 was the first unsound one) and longer runs."""
    for iter_limit in (12, 24):
        s = saturate(program, int_semantics=sem, iter_limit=iter_limit, seed_greedy=False)
        assert _disagreements(s, inputs, sem) == [], (name, iter_limit)
        s.close()
    best = optimize(program, int_semantics=sem).program
    assert prove_equivalent(best, program, sem).status == "proved", to_uir(best)


CLAMPED = """
; a + b is [max(la + lb, MIN), min(ha + hb, MAX)]
(rule ((= e (Add "i32" a b)) (= la (lo a)) (= ha (hi a)) (= lb (lo b)) (= hb (hi b))
       (= l (max (+ la lb) -2147483648)) (= h (min (+ ha hb) 2147483647)) (<= l h))
      ((set (lo e) l) (set (hi e) h)) :name "intervals/add-clamped" :semantics no_overflow)
; a * b is [min, max] of the corner products, clamped
(rule ((= e (Mul "i32" a b)) (= la (lo a)) (= ha (hi a)) (= lb (lo b)) (= hb (hi b))
       (= p1 (* la lb)) (= p2 (* la hb)) (= p3 (* ha lb)) (= p4 (* ha hb))
       (= l (max (min (min p1 p2) (min p3 p4)) -2147483648))
       (= h (min (max (max p1 p2) (max p3 p4)) 2147483647)) (<= l h))
      ((set (lo e) l) (set (hi e) h)) :name "intervals/mul-clamped" :semantics no_overflow)
"""


x = UOp.param(0)
# greedy results that merged two constants by wrapping them: under no_overflow the greedy seed joins
# the program's e-class, so they must be the integers the program computes
# (name, program, inputs where the program stays in int32)
GREEDY = [
    ("product of constants", (2 + x // 42) * 2147483642, [{0: v} for v in (-1, -42, -43, -84)]),
    ("sum of constants", x // MAX + MIN + -1, [{0: MAX}]),
]


@pytest.mark.parametrize(("name", "program", "inputs"), GREEDY, ids=[g[0] for g in GREEDY])
def test_the_greedy_seed_merges_constants_exactly_under_no_overflow(name, program, inputs):
    for params in inputs:
        assert evaluate(program, params, int_semantics="no_overflow").defined, params
    seed = simplify_under(program, "no_overflow")
    assert prove_equivalent(program, seed, "no_overflow", refinement=True).status == "proved", to_uir(seed)
    # the chapter's set wraps them: right modulo 2**32, an overflow where the input had none
    assert prove_equivalent(program, simplify(program), "no_overflow", refinement=True).status == "refuted"
    s = saturate(program, int_semantics="no_overflow")
    assert s.seed is seed
    assert [d for params in inputs for d in check_sound(s.egraph, params, {}, "no_overflow")] == []
    s.close()


def _clamped() -> RuleSet:
    """The default rules with the intervals family as it was: under no_overflow the bounds of sums
    and products clamped to int32, and [MIN, MAX] claimed for every i32 sum, product, quotient, ..."""
    fam = FAMILIES["intervals"]
    unbounded = ("intervals/add-unbounded", "intervals/mul-unbounded")
    kept = tuple(dataclasses.replace(r, wrap_only=False) for r in fam.rules if r.name not in unbounded)
    old = Family("intervals", kept + parse_family("intervals", CLAMPED).rules, fam.declarations)
    return RuleSet(
        "clamped", tuple(old if f.name == "intervals" else f for f in rule_set("default").families)
    )


def test_the_check_finds_the_clamped_bounds_unsound():
    """The soundness check can fail: with the intervals family as it was, the lead's program's
    e-graph holds r + 2**30 beside sums that are not it."""
    s = saturate(LEAD, rules=_clamped(), int_semantics="no_overflow", iter_limit=24, seed_greedy=False)
    assert len(_disagreements(s, R_INPUTS, "no_overflow")) > 100
    s.close()


# ---------------------------------------------------------------------------
# a seeded generator of index expressions at the int32 edges

EDGE_CONSTANTS = (0, 1, -1, 2, 3, -3, 6, 7, 8, 16, 2**16, 2**16 - 1, 2**30, 2**30 - 4, -(2**30), MAX, MIN,
                  MAX - 1, MIN + 1, MAX - 5, 1000)  # fmt: skip
EDGE_BOUNDS = (
    None,
    None,
    (MAX - 100, MAX),
    (MIN, MIN + 50),
    (0, 2**30),
    (-5, 5),
    (2**30, 2**30 + 1023),
    (0, 2**16),
)
EXTENTS = (1, 7, 1024, 2**16, 2**30)
EDGE_INPUTS = (MIN, MAX, 2**30, 0, 1, -1, MIN + 1, MAX - 1, -(2**30), 2**16)


def _constant(rng: random.Random) -> int:
    return rng.choice(EDGE_CONSTANTS) if rng.random() < 0.8 else rng.randint(-50, 50)


def edge_program(rng: random.Random) -> UOp:
    """A random i32 index expression: PARAMs (some bounded at the edges), a RANGE, edge constants;
    sums, products, floor divisions and remainders by constants, MAX, MIN and a selection, with
    subterms shared (as index expressions share theirs: `(r + c) // d * d + (r + c) % d`)."""
    leaves = []
    for slot in range(rng.randint(1, 2)):
        b = rng.choice(EDGE_BOUNDS)
        leaves.append(UOp.param(slot, bounds=b) if b else UOp.param(slot))
    if rng.random() < 0.6:
        leaves.append(UOp.range(rng.choice(EXTENTS), "r"))
    built: list[UOp] = []

    def grow(depth: int) -> UOp:
        if built and rng.random() < 0.3:
            return rng.choice(built)
        if depth == 0 or rng.random() < 0.2:
            return rng.choice(leaves) if rng.random() < 0.75 else UOp.const(_constant(rng))
        k, a = rng.random(), grow(depth - 1)
        if k < 0.3:
            u = a + (grow(depth - 1) if rng.random() < 0.5 else UOp.const(_constant(rng)))
        elif k < 0.45:
            u = a * (UOp.const(_constant(rng)) if rng.random() < 0.8 else grow(depth - 1))
        elif k < 0.6:
            u = a // UOp.const(_constant(rng) or 6)
        elif k < 0.75:
            u = a % UOp.const(_constant(rng) or 6)
        elif k < 0.85:
            u = a.maximum(grow(depth - 1))
        else:
            b = grow(depth - 1)
            u = (a < b).where(a, b) if k < 0.95 else a.ne(b).where(b, a + 1)
        built.append(u)
        return u

    return grow(rng.choice((2, 3, 3, 4)))


def edge_inputs(program: UOp, rng: random.Random, n: int = 10) -> list[tuple[dict, dict]]:
    """Up to n inputs with every PARAM at an edge value inside its bounds (its bounds included) and
    every RANGE at 0, 1, its middle or its last value."""
    nodes = _nodes(program)
    choices: list[tuple[object, list[int]]] = []
    for u in sorted((u for u in nodes if u.op is Ops.PARAM), key=lambda u: u.arg.slot):
        lo, hi = u.arg.bounds or (MIN, MAX)
        choices.append((u.arg.slot, sorted({min(max(v, lo), hi) for v in EDGE_INPUTS} | {lo, hi})))
    for u in (u for u in nodes if u.op is Ops.RANGE):
        n_ = u.src[0].arg
        choices.append(((u.arg, u.src[0]), sorted({0, 1 % n_, n_ // 2, n_ - 1})))
    pools = [vals for _, vals in choices]
    if math.prod(len(v) for v in pools) <= 4096:
        combos = list(itertools.product(*pools))
        rng.shuffle(combos)
    else:  # too many to list (a Caviar expression has up to 8 inputs): drawn one by one
        combos = [tuple(rng.choice(v) for v in pools) for _ in range(n)]
    out = []
    for combo in combos[:n]:
        params = {k: v for (k, _), v in zip(choices, combo, strict=True) if isinstance(k, int)}
        ranges = {k: v for (k, _), v in zip(choices, combo, strict=True) if not isinstance(k, int)}
        out.append((params, ranges))
    return out


def _unsound_generated(sem: str, count: int, rules="default", seed: str = "edges") -> list[str]:
    found = []
    for i in range(count):
        rng = random.Random(f"{seed}:{sem}:{i}")
        program = edge_program(rng)
        s = saturate(program, rules=rules, int_semantics=sem, hooks=(), seed_greedy=False,
                     node_budget=3_000, iter_limit=12)  # fmt: skip
        for params, ranges in edge_inputs(program, rng):
            bad = check_sound(s.egraph, params, ranges, sem)
            if bad:
                found.append(f"#{i} at {params} {ranges}: {bad[0]}\n{to_uir(program)}")
                break
        s.close()
    return found


@pytest.mark.parametrize("sem", SEMANTICS)
def test_generated_edge_programs_saturate_soundly(sem):
    """The rule families alone (no hooks: the greedy seed and the index algebra have checks of
    their own) on 120 generated programs per semantics, each at 10 edge inputs."""
    assert _unsound_generated(sem, 120) == []


def test_the_generator_finds_the_clamped_bounds_unsound():
    assert len(_unsound_generated("no_overflow", 120, _clamped())) >= 2
