"""Random well-typed e-graphs, for differential tests and benchmarks of extractors.

Two generators sit on `EGraphBuilder` (builder.py: every e-node passes the IR's type checks, so any
choice of e-nodes builds a valid program):
- `random_egraph`: merges random e-classes of one dtype and shape (not equivalences: arbitrary
  structure, cycles and self-loops included) to exercise extractors;
- `equivalent_egraph`: adds only rewrites that are exact under the IR's semantics (int32 wrap,
  IEEE f32, NaN, -0.0), so every program extracted from it computes what the input computes.
Both are deterministic functions of their seed.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from eqsat_uopc.extract.builder import EGraphBuilder
from eqsat_uopc.extract.egraph import EGraph

from eqsat_uopc.ir.dtype import DType, dtypes
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp

__all__ = ["equivalent_egraph", "random_egraph", "random_program"]


_SCALAR_OPS = (
    Ops.ADD,
    Ops.MUL,
    Ops.MAX,
    Ops.CMPLT,
    Ops.CMPNE,
    Ops.WHERE,
    Ops.FLOORDIV,
    Ops.FLOORMOD,
    Ops.CAST,
)


def random_program(rng: random.Random, num_ops: int = 30, num_params: int = 3) -> UOp:
    """A random scalar program over i32, f32 and bool with sharing (later nodes reuse earlier ones)."""
    pool: dict[DType, list[UOp]] = {
        dtypes.i32: [UOp.param(s, dtypes.i32) for s in range(max(num_params - 1, 1))]
        + [UOp.const(2), UOp.const(3)],
        dtypes.f32: [UOp.param(max(num_params - 1, 1), dtypes.f32), UOp.const(0.5)],
        dtypes.bool: [UOp.const(True)],
    }

    def pick(d: DType) -> UOp:
        xs = pool[d]
        return xs[-1 - min(int(rng.expovariate(0.4)), len(xs) - 1)]  # recent nodes are likelier

    last = pool[dtypes.i32][0]
    for _ in range(num_ops):
        op = rng.choice(_SCALAR_OPS)
        d = (
            dtypes.i32
            if op in (Ops.FLOORDIV, Ops.FLOORMOD)
            else rng.choice((dtypes.i32, dtypes.i32, dtypes.f32))
        )
        if op in (Ops.CMPLT, Ops.CMPNE):
            u = UOp(op, (pick(d), pick(d)))
        elif op is Ops.WHERE:
            u = pick(dtypes.bool).where(pick(d), pick(d))
        elif op is Ops.CAST:
            u = pick(dtypes.f32 if d is dtypes.i32 else dtypes.i32).cast(d)
        else:
            u = UOp(op, (pick(d), pick(d)))
        pool[u.dtype].append(u)
        last = u
    return last


def _rng(seed: int | random.Random) -> random.Random:
    return seed if isinstance(seed, random.Random) else random.Random(seed)


def random_egraph(
    seed: int | random.Random, programs: Sequence[UOp] | None = None, *, num_ops: int = 30, merges: int = 10
) -> EGraph:
    """An e-graph of programs (default: one random_program) after `merges` random same-type merges.

    The merges are arbitrary, not equivalences: the result tests extractors, not rewrites. Every e-class
    still holds a term (its original node), so every root is extractable.
    """
    rng = _rng(seed)
    programs = [random_program(rng, num_ops)] if programs is None else list(programs)
    b = EGraphBuilder()
    roots = [b.add_uop(p) for p in programs]
    groups: dict[tuple, list[int]] = {}
    for c, u in enumerate(b.rep):
        groups.setdefault((u.dtype, u.shape), []).append(c)
    mergeable = [g for g in groups.values() if len(g) > 1]
    for _ in range(merges if mergeable else 0):
        g = rng.choice(mergeable)
        b.union(*rng.sample(g, 2))
    return b.to_egraph(roots)


def _total(u: UOp) -> bool:
    """No op of u's terms can be undefined (so a WHERE over it keeps definedness unchanged)."""
    return not any(v.op in (Ops.FLOORDIV, Ops.FLOORMOD, Ops.CAST) for v in u.toposort())


def _one(v: UOp) -> Any:
    return 1.0 if v.dtype is dtypes.f32 else 1


def _exact_rewrites(b: EGraphBuilder, rng: random.Random, c: int) -> list[int]:
    """E-classes equal to e-class c in every input, by rewrites that are exact in the IR's semantics."""
    r = b.rep[c]
    d, shape = r.dtype, r.shape
    out: list[int] = []

    def const(v: Any) -> int:
        return b.add_uop(UOp.const(v, d, shape))

    if d is not dtypes.bool:
        out.append(b.add(Ops.MUL, [c, const(_one(r))]))  # x -> x * 1
        out.append(b.add(Ops.ADD, [c, const(-0.0 if d is dtypes.f32 else 0)]))  # x -> x + 0  (f32: x + -0.0)
        out.append(b.add(Ops.MAX, [c, c]))  # x -> max(x, x)
    conds = [k for k in b.classes_of(dtypes.bool, shape) if _total(b.rep[k])]
    if conds:
        out.append(b.add(Ops.WHERE, [rng.choice(conds), c, c]))  # x -> where(p, x, x)
    for op, _, kids in b.node_list(c):
        if op in (Ops.ADD, Ops.MUL, Ops.CMPNE) or (op is Ops.MAX and d is not dtypes.f32):
            out.append(b.add(op, [kids[1], kids[0]]))  # a op b -> b op a
        if op is Ops.ADD and kids[0] == kids[1] and d is not dtypes.bool:
            out.append(b.add(Ops.MUL, [kids[0], const(2 if d is dtypes.i32 else 2.0)]))  # x + x -> x * 2
        if op in (Ops.ADD, Ops.MUL) and d is dtypes.i32:
            for op2, _, inner in b.node_list(kids[0]):
                if op2 is op:  # (a op b) op q -> a op (b op q)   (exact under int32 wrap)
                    out.append(b.add(op, [inner[0], b.add(op, [inner[1], kids[1]])]))
                    break
        if op is Ops.MUL and d is dtypes.i32:
            for op2, _, inner in b.node_list(kids[1]):
                if op2 is Ops.ADD:  # a * (p + q) -> a*p + a*q   (exact under int32 wrap)
                    out.append(
                        b.add(
                            Ops.ADD,
                            [b.add(Ops.MUL, [kids[0], inner[0]]), b.add(Ops.MUL, [kids[0], inner[1]])],
                        )
                    )
                    break
    return out


def equivalent_egraph(seed: int | random.Random, programs: Sequence[UOp], *, rounds: int = 2) -> EGraph:
    """An e-graph of programs grown by `rounds` passes of exact rewrites over (a sample of) its e-classes.

    Every term in the e-class of a root computes exactly what that root computes (same bits, NaN and
    -0.0 included), so extracted programs can be checked against the input by evaluation.
    """
    rng = _rng(seed)
    b = EGraphBuilder()
    roots = [b.add_uop(p) for p in programs]
    for _ in range(rounds):
        live = sorted(b.members)
        for c in rng.sample(live, max(1, len(live) // 2)):
            for alt in _exact_rewrites(b, rng, b.find(c)):
                b.union(c, alt)
        b.rebuild()
    return b.to_egraph(roots)
