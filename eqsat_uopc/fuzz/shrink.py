"""Delta debugging on an expression DAG: the smallest program that still has a property.

`shrink(program, still)` repeatedly tries simpler variants of the program and keeps the first one
for which `still(variant)` holds, until no variant is kept or the budget of `still` calls is
spent. A variant is kept only if it is strictly simpler by `complexity` (DAG size, then inputs,
then constants, then bounds), so shrinking always ends. The variants, tried in this order (big
steps first):

1. a node replaced by one of its operands of the same dtype;
2. a node replaced by a constant (0 or 1; false or true);
3. an input dropped: replaced by a constant inside its bounds, or by another input;
4. a constant moved toward 0 and 1 (0, 1, -1, half of it, its absolute value, one step toward 0, or
   for a large one the round numbers below it), never out of int32;
5. an input's bounds narrowed (to one side of 0, halved, trimmed by one at an end) or moved toward 0.

Replacements act on the DAG: a shared node is replaced everywhere it is used. Everything is
deterministic: the same program and predicate give the same result. The property is the caller's
(the tinygrad fuzzer's is "valid, and our optimizer's result is still larger than tinygrad's"; the
soundness fuzzer's "the optimizer still returns a wrong program, or still raises"); `still` is
called at most once per distinct variant.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from eqsat_uopc.ir.dtype import I32_MAX, I32_MIN, dtypes
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp, UOpError, call_params

__all__ = ["ShrinkResult", "complexity", "normalize_slots", "shrink"]

_UNBOUNDED_COST = 2**34


@dataclass(frozen=True)
class ShrinkResult:
    """The smallest program found, how many variants were kept, and how many `still` calls it took."""

    program: UOp
    steps: int
    calls: int
    exhausted: bool  # the call budget ran out before no variant was left


def _const_cost(v: int) -> int:
    return 2 * abs(v) + (v < 0)


def _bounds_cost(b: tuple[int, int] | None) -> int:
    if b is None:
        return _UNBOUNDED_COST
    lo, hi = b
    return (hi - lo) + abs(lo) + abs(hi)


def complexity(program: UOp) -> tuple[int, int, int, int]:
    """(DAG size, inputs, constant cost, bounds cost): what shrinking decreases, lexicographically."""
    nodes = program.toposort()
    params = [u for u in nodes if u.op is Ops.PARAM]
    consts = sum(
        _const_cost(u.arg) for u in nodes if u.op is Ops.CONST and u.dtype is dtypes.i32 and u.shape == ()
    )
    return (len(nodes), len(params), consts, sum(_bounds_cost(p.arg.bounds) for p in params))


def _param(p: UOp, b: tuple[int, int] | None) -> UOp:
    return UOp.param(p.arg.slot, p.dtype, p.shape, bounds=b)


def _const_steps(v: int) -> list[int]:
    """0, 1, -1, half of v, |v|, and one step toward 0: by one for a small v; for a large one, to the
    round numbers just below it (+-2**k and one either side), so that shrinking never walks a
    constant near 2**31 down by ones, and keeps it readable."""
    steps = [0, 1, -1, int(v / 2), abs(v)]
    sign = 1 if v > 0 else -1
    if abs(v) <= 2**16:
        steps.append(v - sign)
    else:
        k = abs(v).bit_length() - 1
        steps += [sign * m for m in (2**k, 2**k - 1, 2**k + 1)]
    fits = [s for s in dict.fromkeys(steps) if I32_MIN <= s <= I32_MAX]
    return [s for s in fits if s != v and _const_cost(s) < _const_cost(v)]


def _bounds_steps(b: tuple[int, int] | None) -> list[tuple[int, int]]:
    if b is None:
        return [(0, I32_MAX), (I32_MIN, 0), (-(2**16), 2**16)]
    lo, hi = b
    out = []
    if lo < 0 < hi:
        out += [(0, hi), (lo, 0)]
    if hi > lo:
        mid = lo + (hi - lo) // 2
        out += [(lo, mid), (mid + 1, hi), (lo + 1, hi), (lo, hi - 1)]
    if lo > 0:
        out += [(0, hi - lo), (lo - 1, hi - 1)]
    if hi < 0:
        out += [(lo - hi, 0), (lo + 1, hi + 1)]
    return [s for s in dict.fromkeys(out) if s != b and _bounds_cost(s) < _bounds_cost(b)]


def _variants(program: UOp) -> Iterator[dict[UOp, UOp]]:
    """The replacements to try, as substitutions of the program's nodes."""
    nodes = list(reversed(program.toposort()))  # the root first: big steps before small ones
    inner = [u for u in nodes if u.src]
    for u in inner:
        for s in dict.fromkeys(u.src):
            if s.dtype is u.dtype and s.shape == u.shape:
                yield {u: s}
    for u in inner:
        for c in (False, True) if u.dtype is dtypes.bool else (0, 1):
            yield {u: u.const_like(c)}
    params = sorted(call_params(program), key=lambda p: p.arg.slot)
    for p in params:
        if p.dtype is dtypes.i32:
            lo, hi = p.arg.bounds if p.arg.bounds is not None else (I32_MIN, I32_MAX)
            for v in dict.fromkeys((min(max(0, lo), hi), lo, hi)):
                yield {p: p.const_like(v)}
        for q in params:
            if q is not p and q.dtype is p.dtype and q.arg.slot < p.arg.slot:
                yield {p: q}
    for u in nodes:
        if u.op is Ops.CONST and u.dtype is dtypes.i32 and u.shape == ():
            for v in _const_steps(u.arg):
                yield {u: u.const_like(v)}
    for p in params:
        if p.dtype is dtypes.i32:
            for b in _bounds_steps(p.arg.bounds):
                yield {p: _param(p, b)}


def shrink(program: UOp, still: Callable[[UOp], bool], budget: int = 300) -> ShrinkResult:
    """The simplest variant of program (by `complexity`) for which `still` holds, found greedily.

    `still(program)` itself is assumed (not called). `budget` bounds the calls of `still`; the
    best program found so far is returned when it runs out.
    """
    current, key = program, complexity(program)
    tried: set[UOp] = {program}
    calls = steps = 0
    while True:
        kept = None
        for mapping in _variants(current):
            try:
                v = current.substitute(mapping)
            except UOpError:  # a replacement the IR refuses to type
                continue
            if v in tried:
                continue
            tried.add(v)
            vkey = complexity(v)
            if vkey >= key:
                continue
            if calls >= budget:
                return ShrinkResult(current, steps, calls, True)
            calls += 1
            if still(v):
                kept = (v, vkey)
                break
        if kept is None:
            return ShrinkResult(current, steps, calls, False)
        current, key = kept
        steps += 1


def normalize_slots(program: UOp) -> UOp:
    """program with its inputs renumbered 0, 1, ... in order of first use (a leaf-first walk)."""
    order = [u for u in program.toposort() if u.op is Ops.PARAM]
    mapping = {p: UOp.param(k, p.dtype, p.shape, bounds=p.arg.bounds) for k, p in enumerate(order)}
    if all(p is q for p, q in mapping.items()):
        return program
    # two steps, so that a new slot never collides with an old one mid-substitution
    tmp = {p: UOp.param(10_000 + k, p.dtype, p.shape, bounds=p.arg.bounds) for k, p in enumerate(order)}
    back = {tmp[p]: mapping[p] for p in order}
    return program.substitute(tmp).substitute(back)
