"""The inputs a result is tested on: each input at the values where int32 reasoning breaks.

For every i32 input (a PARAM, within its bounds, or a RANGE, within [0, extent - 1]) the candidate
values are its own ends and one and two inside them, 0, +-1, +-2, the int32 edges (-2**31,
-2**31 + 1, 2**31 - 1, 2**31 - 2), +-2**30 and +-2**16 and one either side, and, for each constant
c of the program, the values where a sum with c wraps or a quotient by c changes (c, -c, c +- 1,
2**31 - c and the others around it, multiples of c next to the edges), each wrapped into int32 and
kept if it lies inside the input's domain. A bool input takes both values.

`edge_inputs(program, count, key)` returns at most `count` assignments: every input at each of its
candidate values with the others at their first candidate (a walk along each axis), then random
combinations of candidates, then uniform draws, from an rng seeded by `key` (deterministic). An
`Assignment` holds PARAM values by slot and RANGE values by identifier, as `evaluate` takes them.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from eqsat_uopc.ir.dtype import I32_MAX, I32_MIN, dtypes, truncate
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp

__all__ = ["Assignment", "candidate_values", "edge_inputs", "input_nodes"]

_FIXED = (
    0,
    1,
    -1,
    2,
    -2,
    3,
    I32_MIN,
    I32_MIN + 1,
    I32_MIN + 2,
    I32_MAX,
    I32_MAX - 1,
    I32_MAX - 2,
    2**30,
    2**30 - 1,
    2**30 + 1,
    -(2**30),
    -(2**30) - 1,
    -(2**30) + 1,
    2**16,
    2**16 - 1,
    2**16 + 1,
    -(2**16),
    -(2**16) - 1,
    46340,
    46341,
)
_MAX_CONSTANTS = 12  # program constants whose neighbourhoods are candidates, at most


@dataclass(frozen=True)
class Assignment:
    """Values for a program's inputs: PARAMs by slot, RANGEs by identifier."""

    params: dict[int, Any]
    ranges: dict[Any, int]

    def to_dict(self) -> dict[str, Any]:
        """`{"v0": 5, "r0": 3}`: PARAMs as v<slot>, RANGEs by their identifier (as text)."""
        out: dict[str, Any] = {f"v{k}": v for k, v in sorted(self.params.items())}
        out.update({f"{k}": v for k, v in self.ranges.items()})
        return out

    def key(self) -> tuple:
        return (tuple(sorted(self.params.items())), tuple(sorted(self.ranges.items(), key=repr)))


def input_nodes(program: UOp) -> list[UOp]:
    """The program's scalar inputs: i32 and bool PARAMs by slot, then RANGEs by identifier."""
    nodes = program.toposort()
    params = sorted({u for u in nodes if u.op is Ops.PARAM}, key=lambda u: u.arg.slot)
    ranges = sorted({u for u in nodes if u.op is Ops.RANGE}, key=lambda u: repr(u.arg))
    return [*params, *ranges]


def _domain(u: UOp) -> tuple[int, int]:
    if u.op is Ops.RANGE:
        extent = u.src[0]
        hi = extent.arg - 1 if extent.op is Ops.CONST else I32_MAX
        return 0, max(hi, 0)
    return u.arg.bounds if u.arg.bounds is not None else (I32_MIN, I32_MAX)


def _constants(program: UOp) -> list[int]:
    out = sorted(
        {abs(u.arg) for u in program.toposort() if u.op is Ops.CONST and u.dtype is dtypes.i32 and u.arg},
        reverse=True,
    )
    return out[:_MAX_CONSTANTS]


def candidate_values(u: UOp, constants: list[int]) -> list[int | bool]:
    """The values input u is tested at (see the module docstring), smallest first."""
    if u.dtype is dtypes.bool:
        return [False, True]
    lo, hi = _domain(u)
    values = set(_FIXED) | {lo, lo + 1, lo + 2, hi, hi - 1, hi - 2, lo + (hi - lo) // 2}
    for c in constants:
        values |= {
            c,
            -c,
            c + 1,
            c - 1,
            -c + 1,
            -c - 1,
            I32_MAX - c,
            I32_MAX - c + 1,
            I32_MIN - c,
            I32_MIN + c,
        }
        values |= {I32_MAX // c * c, I32_MIN // c * c, I32_MAX // c * c - 1, -(I32_MAX // c) * c}
        values |= {lo + c, hi - c, c * 2, c * 3}
    return sorted({w for v in values if lo <= (w := truncate(dtypes.i32, v)) <= hi})


def edge_inputs(program: UOp, count: int, key: str) -> list[Assignment]:
    """At most `count` assignments of program's inputs, edges first (see the module docstring)."""
    nodes = input_nodes(program)
    if not nodes:
        return [Assignment({}, {})]
    constants = _constants(program)
    cands = [candidate_values(u, constants) for u in nodes]
    base = [_base(c) for c in cands]
    rng = random.Random(f"soundness-inputs:{key}")
    seen: set[tuple] = set()
    out: list[Assignment] = []

    def add(values: list[Any]) -> None:
        a = _assignment(nodes, values)
        k = a.key()
        if k not in seen and len(out) < count:
            seen.add(k)
            out.append(a)

    add(base)
    for i, cs in enumerate(cands):  # each input along its candidates, the others at their base
        for v in cs:
            add([*base[:i], v, *base[i + 1 :]])
    if len(out) > count // 2 and len(nodes) > 1:  # room for combinations: keep half of the walk
        keep = count // 2
        walk = out[1:]
        rng.shuffle(walk)
        out = [out[0], *walk[: keep - 1]]
        seen = {a.key() for a in out}
    for _ in range(count * 4):
        if len(out) >= count:
            break
        if rng.random() < 0.75:
            add([rng.choice(cs) for cs in cands])
        else:
            add([_uniform(rng, u) for u in nodes])
    return out


def _base(cands: list[Any]) -> Any:
    """The value an input holds while another walks its candidates: 0 or 1 if it can, else the
    candidate nearest 0."""
    for v in (1, 0, True):
        if v in cands:
            return v
    return min(cands, key=abs)


def _uniform(rng: random.Random, u: UOp) -> Any:
    if u.dtype is dtypes.bool:
        return rng.random() < 0.5
    lo, hi = _domain(u)
    return rng.randint(lo, hi)


def _assignment(nodes: list[UOp], values: list[Any]) -> Assignment:
    params: dict[int, Any] = {}
    ranges: dict[Any, int] = {}
    for u, v in zip(nodes, values, strict=True):
        if u.op is Ops.RANGE:
            ranges[u.arg] = v
        else:
            params[u.arg.slot] = v
    return Assignment(params, ranges)
