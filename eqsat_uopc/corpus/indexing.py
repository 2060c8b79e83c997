"""Generated index expressions: the address arithmetic a tensor compiler produces.

A buffer of an N-d shape is seen through a chain of views (reshape, permute, expand, pad, shrink)
and indexed by one RANGE per output axis. Each view composes index functions exactly as a view
tracker does, so a reshape becomes flat index -> unravel (// and %) -> ravel, a pad adds a
validity mask (CMPLT, CMPNE, WHERE), and the final expression is what a simplifier must clean up.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from eqsat_uopc.ir.dtype import dtypes
from eqsat_uopc.ir.uop import UOp, prod

__all__ = ["IndexExpression", "index_expressions"]


@dataclass(frozen=True)
class IndexExpression:
    """One generated address computation: `program` indexes a buffer through `views`, over `ranges`."""

    program: UOp  # i32 scalar: the buffer offset, or WHERE(valid, offset, 0) when a view pads
    ranges: tuple[UOp, ...]  # one RANGE per output axis (ident = the axis number)
    # the view chain, e.g. (("buffer", (4, 6)), ("reshape", (2, 12)), ("permute", (1, 0))); also
    # ("expand", (axis, size)): a new axis of that size, ("pad", (axis, before, after)),
    # ("shrink", (axis, begin, end))
    views: tuple[tuple[str, Any], ...]
    params: tuple[UOp, ...] = field(default=())  # PARAMs the expression uses (a batch offset)

    @property
    def description(self) -> str:
        return " -> ".join(f"{kind} {arg}" for kind, arg in self.views)

    @property
    def bounded_program(self) -> UOp:
        """The program with each RANGE as an i32 input bounded to [0, extent - 1] (slots after the
        PARAMs'): what the tinygrad bridge translates, and what a bounded-input corpus holds."""
        first = max((p.arg.slot for p in self.params), default=-1) + 1
        inputs = {
            r: UOp.param(first + k, dtypes.i32, bounds=(0, r.src[0].arg - 1))
            for k, r in enumerate(self.ranges)
        }
        return self.program.substitute(inputs)


# A view maps an index tuple of its shape to (buffer offset, validity or None).
_IndexFn = Callable[[list[UOp]], tuple[UOp, UOp | None]]


def _and(a: UOp | None, b: UOp) -> UOp:
    return b if a is None else a.where(b, False)


def _ravel(idx: list[UOp], shape: tuple[int, ...]) -> UOp:
    flat: UOp | None = None
    for x, s in zip(idx, shape, strict=True):
        flat = x if flat is None else flat * s + x
    return flat if flat is not None else UOp.const(0)


def _unravel(flat: UOp, shape: tuple[int, ...]) -> list[UOp]:
    out, stride = [], 1
    for s in reversed(shape):
        out.append((flat // stride) % s if stride > 1 else flat % s)
        stride *= s
    return out[::-1]


def _factorizations(n: int, rng: random.Random, rank: int) -> tuple[int, ...]:
    """A random shape of `rank` axes whose product is n (axes of 1 allowed)."""
    dims = []
    for _ in range(rank - 1):
        divisors = [d for d in range(1, n + 1) if n % d == 0]
        d = rng.choice(divisors)
        dims.append(d)
        n //= d
    dims.append(n)
    rng.shuffle(dims)
    return tuple(dims)


def _one_expression(rng: random.Random, k: int) -> IndexExpression:
    rank = rng.randint(1, 4)
    base = tuple(rng.choice((1, 2, 3, 4, 5, 6, 8, 16)) for _ in range(rank))
    strides = [prod(base[i + 1 :]) for i in range(rank)]
    shape = base
    fn: _IndexFn = lambda idx: (_ravel_strided(idx, strides), None)
    views: list[tuple[str, Any]] = [("buffer", base)]
    for _ in range(rng.randint(1, 4)):
        kind = rng.choice(("reshape", "reshape", "permute", "expand", "pad", "shrink"))
        if kind == "reshape":
            new = _factorizations(prod(shape), rng, rng.randint(1, 4))
            fn = _reshaped(fn, shape, new)
            view = ("reshape", new)
        elif kind == "permute" and len(shape) > 1:
            order = list(range(len(shape)))
            rng.shuffle(order)
            new = tuple(shape[o] for o in order)
            fn = _permuted(fn, tuple(order))
            view = ("permute", tuple(order))
        elif kind == "expand":
            axis = rng.randrange(len(shape) + 1)
            with_one = (*shape[:axis], 1, *shape[axis:])
            new = (*shape[:axis], rng.choice((2, 3, 4)), *shape[axis:])
            fn = _expanded(_reshaped(fn, shape, with_one), with_one, new)
            view = ("expand", (axis, new[axis]))
        elif kind == "pad":
            axis = rng.randrange(len(shape))
            before, after = rng.randint(0, 2), rng.randint(1, 2)
            new = tuple(d + before + after if a == axis else d for a, d in enumerate(shape))
            fn = _padded(fn, axis, before, shape[axis])
            view = ("pad", (axis, before, after))
        elif kind == "shrink" and any(d > 1 for d in shape):
            axis = rng.choice([a for a, d in enumerate(shape) if d > 1])
            begin = rng.randrange(shape[axis] - 1)
            end = rng.randint(begin + 1, shape[axis])
            new = tuple(end - begin if a == axis else d for a, d in enumerate(shape))
            fn = _shrunk(fn, axis, begin)
            view = ("shrink", (axis, begin, end))
        else:
            continue
        views.append(view)
        shape = new
    ranges = tuple(UOp.range(d, ident=(k, a)) for a, d in enumerate(shape))
    offset, valid = fn(list(ranges))
    params: tuple[UOp, ...] = ()
    if rng.random() < 0.3:  # a batch offset: the buffer is one of many, picked by a runtime value
        p = UOp.param(0, dtypes.i32)
        offset = p * prod(base) + offset
        params = (p,)
    program = offset if valid is None else valid.where(offset, 0)
    return IndexExpression(program, ranges, tuple(views), params)


def _ravel_strided(idx: list[UOp], strides: list[int]) -> UOp:
    terms = [x * s if s != 1 else x for x, s in zip(idx, strides, strict=True)]
    out = terms[0] if terms else UOp.const(0)
    for t in terms[1:]:
        out = out + t
    return out


def _reshaped(fn: _IndexFn, old: tuple[int, ...], new: tuple[int, ...]) -> _IndexFn:
    return lambda idx: fn(_unravel(_ravel(idx, new), old))


def _permuted(fn: _IndexFn, order: tuple[int, ...]) -> _IndexFn:
    inverse = [order.index(k) for k in range(len(order))]
    return lambda idx: fn([idx[inverse[k]] for k in range(len(order))])


def _expanded(fn: _IndexFn, old: tuple[int, ...], new: tuple[int, ...]) -> _IndexFn:
    broadcast = [o == 1 and n != 1 for o, n in zip(old, new, strict=True)]
    return lambda idx: fn([UOp.const(0) if b else x for x, b in zip(idx, broadcast, strict=True)])


def _padded(fn: _IndexFn, axis: int, before: int, size: int) -> _IndexFn:
    def padded(idx: list[UOp]) -> tuple[UOp, UOp | None]:
        x = idx[axis]
        inner = x + -before if before else x
        in_range = (x < before).ne(True).where(x < before + size, False) if before else x < size
        offset, valid = fn([inner if a == axis else v for a, v in enumerate(idx)])
        return offset, _and(valid, in_range)

    return padded


def _shrunk(fn: _IndexFn, axis: int, begin: int) -> _IndexFn:
    return lambda idx: fn([x + begin if a == axis and begin else x for a, x in enumerate(idx)])


def index_expressions(n: int, seed: int = 0) -> list[IndexExpression]:
    """n index expressions of views over N-d buffers, the same list for the same (n, seed)."""
    rng = random.Random(seed)
    return [_one_expression(rng, k) for k in range(n)]
