"""Hypothesis strategies for random, well-typed UOp programs and inputs for them.

Every program is built bottom-up through the ordinary UOp constructors, so every node has passed
the IR's type and shape checks; nothing here can produce an ill-typed node. Programs are small (tens
of nodes, tensors of at most 12 elements) so that evaluating one is fast.

Use them like this::

    from hypothesis import given, settings, strategies as st
    from eqsat_uopc import dtypes
    from tests.strategies import closed_programs, inputs_for, programs, scalars

    @settings(max_examples=50, deadline=None)
    @given(st.data())
    def test_backend_agrees(data):
        prog = data.draw(programs(dtypes=(dtypes.i32,), calls=False))
        inputs = data.draw(inputs_for(prog))      # {slot: scalar or nested list}
        ...

    @given(closed_programs())                     # no free PARAMs: run(prog) gives a value
    def test_run(prog): ...

What the strategies promise:

- `scalars(dtype)` draws values in the representation `truncate` defines (i32 wrapped ints, f32 the
  double of an f32 value, bool a bool), weighted towards edge values: int32 min/max, 0, -1, -0.0,
  nan, inf, -inf, subnormals, 2**24 and its neighbours. NaN is always `math.nan`.
  `scalars(dtypes.f32, exact=False)` also draws doubles that are not f32 values (16777217.0, 0.1,
  1e300): a CONST f32 may hold one, and every consumer must round it as C does.
- `programs(...)` draws a program: a UOp whose free PARAMs (`call_params(prog)`) have slots 0..n-1,
  each slot with one dtype and shape. It can contain every op of the IR: all ALU ops (CAST and WHERE
  included), STACK, INDEX (constant indices, and RANGE indices when `ranges=True`), RESHAPE, EXPAND,
  PERMUTE, SHRINK, REDUCE, and CALLs (nested up to two deep) whose bodies use their own PARAMs.
  Bodies number their PARAMs from 0 too, so a body's PARAM is often the very same hash-consed node
  as an outer PARAM: exactly the situation in which a substitution that enters a CALL body is wrong.
  Options:
    dtypes    every node's dtype is one of these (comparisons and WHERE need bool among them,
              INDEX and RANGE need i32)
    shaped    allow tensors (STACK, INDEX, movement ops, REDUCE, shaped PARAMs)
    calls     allow CALL
    ranges    allow RANGE loop variables (free i32 variables in [0, extent-1], see range_bindings)
    params    allow free PARAMs (False: a closed program)
    max_leaves  leaves drawn up front (constants, tensors), which the expression may reuse
    max_ops     at most this many non-leaf nodes (CALL bodies included), so programs stay small
    ops         restrict to a set of Ops (None: every op); CONST and PARAM are always possible
    exact       False: f32 CONSTs may hold doubles that are not f32 values (see scalars)
  Programs are grown top-down from a root of a random type, reusing nodes already built, so they
  are DAGs with sharing.
  ADD, MUL and REDUCE use i32 and f32 only (the IR accepts them on bool, no program means that).
  Ops whose result C leaves undefined for some inputs (FLOORDIV/FLOORMOD by 0, INT_MIN // -1, CAST
  of a non-finite or out-of-range f32 to i32) do occur: `exec_alu` returns None there, and a
  differential test should skip such examples rather than compare them.
- `closed_programs(...)` is `programs(params=False, ...)`.
- `inputs_for(prog)` draws {slot: value} for every free PARAM of prog: a scalar, or nested lists of
  the PARAM's shape, values from `scalars`.
- `range_bindings(prog)` draws {RANGE node: int in [0, extent-1]} for every RANGE reachable from
  prog (CALL bodies included), to substitute constants for them before evaluating.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from hypothesis import strategies as st

from eqsat_uopc.ir.dtype import DType, f32_from_bits, truncate
from eqsat_uopc.ir.dtype import dtypes as _dt
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp, call_params, prod

__all__ = [
    "F32_EDGES",
    "I32_EDGES",
    "closed_programs",
    "inputs_for",
    "programs",
    "range_bindings",
    "scalars",
    "shapes",
]

I32_EDGES: tuple[int, ...] = (0, 1, -1, 2, -2, 3, 7, -(2**31), 2**31 - 1, -(2**31) + 1, 2**31 - 2, 65536)
F32_EDGES: tuple[float, ...] = (
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    2.0,
    3.0,
    math.nan,
    math.inf,
    -math.inf,
    f32_from_bits(0x00000001),  # smallest subnormal
    f32_from_bits(0x80000001),
    f32_from_bits(0x007FFFFF),  # largest subnormal
    f32_from_bits(0x00800000),  # smallest normal
    f32_from_bits(0x7F7FFFFF),  # largest finite
    -f32_from_bits(0x7F7FFFFF),
    16777216.0,  # 2**24: above it not every integer is an f32
    16777218.0,
    -16777216.0,
    2147483648.0,  # 2**31: the first float a cast to i32 cannot hold
    -2147483648.0,
    2147483520.0,  # the largest f32 below 2**31
)
# doubles that are not f32 values: a CONST f32 may hold them, consumers must round as C does
_INEXACT_DOUBLES: tuple[float, ...] = (
    16777217.0,
    -16777217.0,
    0.1,
    1e300,
    -1e300,
    1e-300,
    3.4028235677973366e38,
)

_MAX_DIM, _MAX_RANK, _MAX_SIZE = 3, 3, 12


def scalars(dtype: DType, *, exact: bool = True) -> st.SearchStrategy[Any]:
    """Values of dtype in the truncate representation, often an edge value (see module docstring)."""
    if dtype is _dt.bool:
        return st.booleans()
    if dtype is _dt.i32:
        return st.one_of(st.sampled_from(I32_EDGES), st.integers(-(2**31), 2**31 - 1), st.integers(-9, 9))
    if dtype is _dt.f32:
        parts = [
            st.sampled_from(F32_EDGES),
            st.floats(width=32).map(lambda v: truncate(_dt.f32, v)),
            st.integers(-9, 9).map(float),
        ]
        if not exact:
            parts.append(st.sampled_from(_INEXACT_DOUBLES))
        return st.one_of(parts)
    raise TypeError(f"scalars: not a dtype: {dtype!r}")


def shapes(*, min_rank: int = 1) -> st.SearchStrategy[tuple[int, ...]]:
    """Small tensor shapes: rank min_rank..3, dims 1..3, at most 12 elements."""
    dims = st.lists(st.integers(1, _MAX_DIM), min_size=min_rank, max_size=_MAX_RANK)
    return dims.map(tuple).filter(_fits)


def _nested(draw, dtype: DType, shape: tuple[int, ...]) -> Any:
    if not shape:
        return draw(scalars(dtype))
    return [_nested(draw, dtype, shape[1:]) for _ in range(shape[0])]


@st.composite
def inputs_for(draw, program: UOp) -> dict[int, Any]:
    """{slot: value} for every free PARAM of program (a scalar or nested lists of its shape)."""
    return {p.arg.slot: _nested(draw, p.dtype, p.shape) for p in call_params(program)}


@st.composite
def range_bindings(draw, program: UOp) -> dict[UOp, int]:
    """{RANGE: value in [0, extent - 1]} for every RANGE reachable from program (CALL bodies too).
    RANGEs of one name are one loop variable (verification binds ranges by name): they get one
    value, in the smallest of their extents."""
    loops = [u for u in program.toposort() if u.op is Ops.RANGE and u.src[0].op is Ops.CONST]
    extent: dict[str, int] = {}
    for u in loops:
        extent[u.arg] = min(extent.get(u.arg, u.src[0].arg), u.src[0].arg)
    value = {name: draw(st.integers(0, max(0, n - 1))) for name, n in extent.items()}
    return {u: value[u.arg] for u in loops}


def _factorizations(n: int, rank: int) -> list[tuple[int, ...]]:
    """Every shape of `rank` dims (each 1.._MAX_DIM, 1 allowed) whose product is n."""
    if rank == 0:
        return [()] if n == 1 else []
    return [
        (d, *rest) for d in range(1, _MAX_DIM + 1) if n % d == 0 for rest in _factorizations(n // d, rank - 1)
    ]


_NUMERIC = (_dt.i32, _dt.f32)
_TRANSCENDENTAL = (Ops.RECIP, Ops.EXP2, Ops.LOG2, Ops.SQRT, Ops.SIN)


class _Builder:
    """Grows an expression of a requested type top-down, reusing pool nodes so the result is a DAG.

    `budget` counts the non-leaf nodes still allowed; when it runs out only leaves are drawn, which
    bounds the program's size whatever the draws.
    """

    def __init__(self, draw, cfg: dict[str, Any], params: Iterable[UOp], depth: int, budget: int) -> None:
        self.draw, self.cfg, self.depth, self.budget = draw, cfg, depth, budget
        self.pool: dict[tuple[DType, tuple[int, ...]], list[UOp]] = {}
        for p in params:
            self.add(p)

    def add(self, u: UOp) -> UOp:
        same = self.pool.setdefault((u.dtype, u.shape), [])
        if u not in same:
            same.append(u)
        return u

    def choice(self, xs):
        return self.draw(st.sampled_from(tuple(xs)))

    def chance(self, n: int) -> bool:
        """True with probability 1/n."""
        return self.draw(st.integers(0, n - 1)) == 0

    # -- leaves
    def const(self, dtype: DType, shape: tuple[int, ...] = ()) -> UOp:
        if shape and self.chance(2):  # a literal tensor rather than a broadcast scalar
            return UOp(Ops.STACK, tuple(self.const(dtype, shape[1:]) for _ in range(shape[0])))
        return UOp.const(self.draw(scalars(dtype, exact=self.cfg["exact"])), dtype, shape)

    def leaf(self, dtype: DType, shape: tuple[int, ...]) -> UOp:
        have = self.pool.get((dtype, shape), [])
        if have and not self.chance(3):
            return self.choice(have)
        if dtype is _dt.i32 and shape == () and self.cfg["ranges"] and self.chance(3):
            return self.add(self.range_var(self.draw(st.integers(1, 4))))
        return self.add(self.const(dtype, shape))

    def range_var(self, extent: int) -> UOp:
        return UOp.range(extent, self.choice(("r0", "r1")))

    # -- an expression of type (dtype, shape)
    def expr(self, dtype: DType, shape: tuple[int, ...], root: bool = False) -> UOp:
        if self.budget <= 0 or (not root and self.chance(6)):
            return self.leaf(dtype, shape)
        makers = [m for m in self.makers(dtype, shape) if m[0] in self.cfg["ops"]]
        if not makers:
            return self.leaf(dtype, shape)
        self.budget -= 1
        op, make = self.choice(makers)
        u = make(op, dtype, shape)
        return self.add(u) if u is not None else self.leaf(dtype, shape)

    def makers(self, dtype: DType, shape: tuple[int, ...]) -> list[tuple[Ops, Any]]:
        """The ops that can build a node of this type, each with its builder fn(op, dtype, shape)."""
        out: list[tuple[Ops, Any]] = [(Ops.MAX, self.binary), (Ops.CAST, self.cast)]
        if dtype in _NUMERIC:
            out += [(Ops.ADD, self.binary), (Ops.MUL, self.binary)]
        if dtype is _dt.i32:
            out += [(Ops.FLOORDIV, self.divmod), (Ops.FLOORMOD, self.divmod)]
            if shape == () and self.cfg["ranges"]:
                out.append((Ops.RANGE, lambda op, d, s: self.range_var(self.draw(st.integers(1, 4)))))
        if dtype is _dt.f32:
            out += [(op, self.unary) for op in _TRANSCENDENTAL]
        if dtype is _dt.bool:
            out += [(Ops.CMPLT, self.compare), (Ops.CMPNE, self.compare)]
        if _dt.bool in self.cfg["dtypes"]:
            out.append((Ops.WHERE, self.where))
        if self.cfg["calls"] and self.depth < 2:
            out.append((Ops.CALL, self.call))
        if self.cfg["shaped"]:
            if shape:
                out += [(op, getattr(self, op.name.lower())) for op in (Ops.STACK, Ops.EXPAND, Ops.PERMUTE)]
                out.append((Ops.SHRINK, self.shrink))
            out.append((Ops.RESHAPE, self.reshape))
            if _dt.i32 in self.cfg["dtypes"] and len(shape) < _MAX_RANK:
                out.append((Ops.INDEX, self.index))
            if dtype in _NUMERIC and len(shape) < _MAX_RANK:
                out.append((Ops.REDUCE, self.reduce))
        return out

    # -- one builder per family: fn(op, dtype, shape) -> a node of that type
    def binary(self, op: Ops, dtype: DType, shape: tuple[int, ...]) -> UOp:
        return UOp(op, (self.expr(dtype, shape), self.expr(dtype, shape)))

    def unary(self, op: Ops, dtype: DType, shape: tuple[int, ...]) -> UOp:
        return UOp(op, (self.expr(dtype, shape),))

    def divmod(self, op: Ops, dtype: DType, shape: tuple[int, ...]) -> UOp:
        a = self.expr(dtype, shape)
        if self.chance(4):
            return UOp(op, (a, self.expr(dtype, shape)))
        # mostly a nonzero constant divisor: fewer results that C leaves undefined
        return UOp(op, (a, UOp.const(self.choice((2, 3, 4, 7, -2, -3, 16)), dtype, shape)))

    def compare(self, op: Ops, dtype: DType, shape: tuple[int, ...]) -> UOp:
        d = self.choice(self.cfg["dtypes"])
        return UOp(op, (self.expr(d, shape), self.expr(d, shape)))

    def where(self, op: Ops, dtype: DType, shape: tuple[int, ...]) -> UOp:
        return UOp(op, (self.expr(_dt.bool, shape), self.expr(dtype, shape), self.expr(dtype, shape)))

    def cast(self, op: Ops, dtype: DType, shape: tuple[int, ...]) -> UOp:
        return self.expr(self.choice(self.cfg["dtypes"]), shape).cast(dtype)

    def stack(self, op: Ops, dtype: DType, shape: tuple[int, ...]) -> UOp:
        return UOp(op, tuple(self.expr(dtype, shape[1:]) for _ in range(shape[0])))

    def index(self, op: Ops, dtype: DType, shape: tuple[int, ...]) -> UOp | None:
        lead = tuple(
            self.draw(st.lists(st.integers(1, _MAX_DIM), min_size=1, max_size=_MAX_RANK - len(shape)))
        )
        if not _fits((*lead, *shape)):
            return None
        return self.expr(dtype, (*lead, *shape)).index(*(self.index_for(d) for d in lead))

    def index_for(self, dim: int) -> UOp:
        if self.cfg["ranges"] and self.chance(3):
            return self.range_var(dim)
        return UOp.const(self.draw(st.integers(0, dim - 1)), _dt.i32)

    def reshape(self, op: Ops, dtype: DType, shape: tuple[int, ...]) -> UOp:
        n = prod(shape)
        return self.expr(
            dtype, self.choice(s for r in range(_MAX_RANK + 1) for s in _factorizations(n, r))
        ).reshape(shape)

    def expand(self, op: Ops, dtype: DType, shape: tuple[int, ...]) -> UOp:
        src = tuple(1 if self.chance(2) else d for d in shape)
        return self.expr(dtype, src).expand(shape)

    def permute(self, op: Ops, dtype: DType, shape: tuple[int, ...]) -> UOp:
        order = tuple(self.draw(st.permutations(range(len(shape)))))
        src = [0] * len(shape)
        for k, axis in enumerate(order):  # out.shape[k] = src.shape[order[k]]
            src[axis] = shape[k]
        return self.expr(dtype, tuple(src)).permute(order)

    def shrink(self, op: Ops, dtype: DType, shape: tuple[int, ...]) -> UOp | None:
        src = tuple(self.draw(st.integers(d, _MAX_DIM)) for d in shape)
        if not _fits(src):
            return None
        begins = [self.draw(st.integers(0, s - d)) for s, d in zip(src, shape, strict=True)]
        return self.expr(dtype, src).shrink(tuple((b, b + d) for b, d in zip(begins, shape, strict=True)))

    def reduce(self, op: Ops, dtype: DType, shape: tuple[int, ...]) -> UOp | None:
        tail = tuple(
            self.draw(st.lists(st.integers(1, _MAX_DIM), min_size=1, max_size=_MAX_RANK - len(shape)))
        )
        if not _fits((*shape, *tail)):
            return None
        rop = self.choice((Ops.ADD, Ops.MUL, Ops.MAX))
        return self.expr(dtype, (*shape, *tail)).reduce(rop, len(tail))

    def call(self, op: Ops, dtype: DType, shape: tuple[int, ...]) -> UOp:
        sig = [
            (self.choice(self.cfg["dtypes"]), self.small_shape()) for _ in range(self.draw(st.integers(0, 2)))
        ]
        params = [UOp.param(i, d, s) for i, (d, s) in enumerate(sig)]
        share = min(self.budget, 4)
        sub = _Builder(self.draw, self.cfg, params, self.depth + 1, budget=share)
        body, used = _compact_params(sub.expr(dtype, shape))
        self.budget -= share - sub.budget
        args = [self.expr(p.dtype, p.shape) for p in used]
        return body.call(*args, name=self.choice(("f", "g", "sq")))

    def small_shape(self) -> tuple[int, ...]:
        return self.draw(shapes()) if self.cfg["shaped"] and self.chance(3) else ()


def _fits(shape: tuple[int, ...]) -> bool:
    return len(shape) <= _MAX_RANK and prod(shape) <= _MAX_SIZE


def _compact_params(body: UOp) -> tuple[UOp, list[UOp]]:
    """Renumber body's free PARAMs to slots 0..n-1 (in slot order); return it and the old PARAMs."""
    used = call_params(body)
    mapping = {p: UOp.param(i, p.dtype, p.shape) for i, p in enumerate(used) if p.arg.slot != i}
    return (body.substitute(mapping) if mapping else body), used


_ALL_OPS = tuple(op for op in Ops if op not in (Ops.CONST, Ops.PARAM))


@st.composite
def programs(
    draw,
    *,
    dtypes: tuple[DType, ...] = (_dt.bool, _dt.i32, _dt.f32),
    shaped: bool = True,
    calls: bool = True,
    ranges: bool = False,
    params: bool = True,
    max_leaves: int = 4,
    max_ops: int = 10,
    ops: Iterable[Ops] | None = None,
    exact: bool = True,
) -> UOp:
    """A random well-typed program (see the module docstring for the options)."""
    allowed = tuple(_ALL_OPS if ops is None else (op for op in _ALL_OPS if op in set(ops)))
    if not allowed:
        raise ValueError(f"programs: no constructible op in ops={ops!r}")
    cfg = {
        "dtypes": tuple(dtypes),
        "shaped": shaped,
        "calls": calls,
        "ranges": ranges,
        "ops": allowed,
        "max_ops": max_ops,
        "exact": exact,
    }
    sig: list[UOp] = []
    if params:
        for slot in range(draw(st.integers(0, 3))):
            shape = draw(shapes()) if shaped and draw(st.integers(0, 2)) == 0 else ()
            sig.append(UOp.param(slot, draw(st.sampled_from(cfg["dtypes"])), shape))
    builder = _Builder(draw, cfg, sig, depth=0, budget=max_ops)
    for _ in range(draw(st.integers(0, max_leaves))):  # leaves up front, reused by the expression
        shape = draw(shapes()) if shaped and draw(st.booleans()) else ()
        builder.leaf(draw(st.sampled_from(cfg["dtypes"])), shape)
    if sig and draw(st.booleans()):  # a root of a PARAM's type: more programs use their inputs
        p = draw(st.sampled_from(sig))
        root_dtype, root_shape = p.dtype, p.shape
    else:
        root_dtype = draw(st.sampled_from(cfg["dtypes"]))
        root_shape = draw(shapes()) if shaped and draw(st.booleans()) else ()
    root = builder.expr(root_dtype, root_shape, root=True)
    return _compact_params(root)[0]


def closed_programs(**kwargs: Any) -> st.SearchStrategy[UOp]:
    """Programs without free PARAMs (CALL bodies still have their own): run() reduces them to values."""
    return programs(params=False, **kwargs)
