"""UOp: the immutable, hash-consed, type-checked node of the IR.

Hash consing is what every layer above leans on: building the same node twice returns the same
object, so `is` is structural equality and a dict keyed by node is a memo table. The cache holds
nodes weakly (a dropped graph is freed) and keys constants by type and bit pattern, so that 0, 0.0,
-0.0 and False are four nodes while NaN is one. dtype and shape are derived and checked when a node
is first built; an ill-typed node raises UOpError naming the op and the problem.

Every traversal here is iterative: a 20,000-deep chain must not hit Python's recursion limit.

The typing rules (`_infer`, one branch per op family, 91 lines) stay in this module, over 600
lines with them: every construction runs them, they raise the errors the IR's users see, and a
module of their own would import UOp while UOp imports it.

    >>> from eqsat_uopc.ir.uop import UOp
    >>> x = UOp.param(0)
    >>> (x + 2) * 3 is (x + 2) * 3
    True
    >>> len({UOp.const(0), UOp.const(0.0), UOp.const(-0.0), UOp.const(False)})
    4
    >>> UOp.const(5).call(UOp.const(7), name="sq")
    Traceback (most recent call last):
    ...
    eqsat_uopc.ir.uop.UOpError: CALL needs params 0..0, body has []
"""

from __future__ import annotations

import math
import struct
import weakref
from collections.abc import Callable, Iterable, Mapping
from typing import Any, NamedTuple

from eqsat_uopc.errors import UserError
from eqsat_uopc.ir.dtype import I32_MAX, I32_MIN, DType, dtypes
from eqsat_uopc.ir.ops import BINARY, MOVEMENT, REDUCE_OPS, TRANSCENDENTAL, Ops

__all__ = ["ParamArg", "UOp", "UOpError", "call_params", "prod"]


class UOpError(UserError, ValueError):
    """An ill-formed node: the message names the op and what was wrong."""


class ParamArg(NamedTuple):
    """A program input (or a CALL body's parameter): slot number, dtype and shape.

    bounds: (lo, hi) for an i32 input known to lie in [lo, hi] (every element), e.g. a variable of
    an index expression; values outside are outside the program's domain, and the interval
    analysis, the rules and every checker may assume them."""

    slot: int
    dtype: DType
    shape: tuple[int, ...] = ()
    addrspace: str | None = None
    bounds: tuple[int, int] | None = None

    def __repr__(self) -> str:  # the chapter's repr, with bounds only when there are some
        text = f"ParamArg(slot={self.slot!r}, dtype={self.dtype!r}, shape={self.shape!r}, "
        text += f"addrspace={self.addrspace!r}"
        return text + (")" if self.bounds is None else f", bounds={self.bounds!r})")


def prod(xs: Iterable[int]) -> int:
    out = 1
    for x in xs:
        out *= x
    return out


def arg_key(a: Any) -> Any:
    """A hashable key that keeps apart what Python's numeric tower merges (0, 0.0, -0.0, False)."""
    if a is None:  # most nodes' arg
        return _NONE_KEY
    if isinstance(a, bool):
        return ("b", a)
    if isinstance(a, int):
        return ("i", a)
    if isinstance(a, float):
        return ("f", "nan") if math.isnan(a) else ("f", struct.pack("<d", a))
    if isinstance(a, tuple):
        return ("t", type(a), tuple(arg_key(x) for x in a))
    return (type(a), a)


_NONE_KEY = (type(None), None)


class _CacheRef(weakref.ref):
    """A weak reference to a cached node that remembers its cache key, to remove it when the node dies."""

    __slots__ = ("key",)


# The hash-consing table: key -> weak reference to the one node with that key. A plain dict with
# callbacks rather than a WeakValueDictionary: construction is the hottest path of every layer.
_cache: dict[tuple, _CacheRef] = {}


def _forget(ref: _CacheRef, cache: dict[tuple, _CacheRef] = _cache) -> None:
    """The callback of a dying node's reference: drop its entry (unless a newer node took the key)."""
    if cache.get(ref.key) is ref:
        del cache[ref.key]


def _canonical_const(v: Any) -> Any:
    """The one Python object a CONST stores for v: NaN is math.nan, float/int subclasses are plain."""
    if isinstance(v, float):
        return math.nan if v != v else float(v)
    if isinstance(v, int) and not isinstance(v, bool):
        return int(v)
    return v


# the dtype of a CONST whose arg is exactly one of these types (subclasses take the general path)
_PLAIN_CONST = {bool: dtypes.bool, int: dtypes.i32, float: dtypes.f32}


def _shape_str(shape: tuple[int, ...]) -> str:
    return "()" if not shape else "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


def _is_shape(s: Any) -> bool:
    return isinstance(s, tuple) and all(isinstance(d, int) and not isinstance(d, bool) and d >= 1 for d in s)


class UOp:
    """One node. Construct with UOp(op, src, arg); dtype and shape are derived."""

    __slots__ = ("__weakref__", "_memo", "arg", "dtype", "op", "shape", "src")
    op: Ops
    src: tuple[UOp, ...]
    arg: Any
    dtype: DType
    shape: tuple[int, ...]

    def __new__(cls, op: Ops, src: tuple[UOp, ...] = (), arg: Any = None):
        if type(src) is not tuple:
            src = tuple(src)
        key = (op, src, None if arg is None else arg_key(arg))
        try:
            ref = _cache.get(key)
        except TypeError:  # an unhashable source or arg (a list?): the checks below say which
            ref = None
        if ref is not None and (hit := ref()) is not None:
            return hit
        return cls._build(key, op, src, arg)

    @classmethod
    def _build(cls, key: tuple, op: Ops, src: tuple[UOp, ...], arg: Any) -> UOp:
        """A node not in the cache yet: check it, derive its type, and cache it."""
        if op is Ops.CONST and not src and (dtype := _PLAIN_CONST.get(type(arg))) is not None:
            # the common CONST (a plain bool, int or float): the checks and canonical form below,
            # specialised (constants are most of the nodes `run` builds)
            if dtype is dtypes.f32:
                if arg != arg:
                    arg = math.nan
            elif dtype is dtypes.i32 and not I32_MIN <= arg <= I32_MAX:
                raise UOpError(f"CONST i32 value {arg} is outside the int32 range")
            return cls._store(key, op, src, arg, dtype, ())
        if not isinstance(op, Ops):
            raise UOpError(f"UOp needs an Ops member, got {op!r}")
        for s in src:
            if not isinstance(s, UOp):
                raise UOpError(f"{op.name} source must be a UOp, got {type(s).__name__}: {s!r}")
        try:
            hash(key)
        except TypeError:
            raise UOpError(f"{op.name} arg must be hashable (a tuple, not a list), got {arg!r}") from None
        if op is Ops.CONST:
            arg = _canonical_const(arg)
        dtype, shape = _infer(op, src, arg)
        return cls._store(key, op, src, arg, dtype, shape)

    @classmethod
    def _store(cls, key: tuple, op: Ops, src: tuple[UOp, ...], arg: Any, dtype: DType, shape: tuple) -> UOp:
        """A checked node: create it and enter it in the hash-consing table."""
        self = object.__new__(cls)
        setattr_ = object.__setattr__
        setattr_(self, "op", op)
        setattr_(self, "src", src)
        setattr_(self, "arg", arg)
        setattr_(self, "dtype", dtype)
        setattr_(self, "shape", shape)
        setattr_(self, "_memo", None)
        ref = _CacheRef(self, _forget)
        ref.key = key
        _cache[key] = ref
        return self

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("UOp is immutable")

    def __reduce__(self):
        # Shallow nodes pickle as their constructor call (pickle's memo shares common subgraphs);
        # deep ones as a flat table of rows, because pickle itself recurses once per level.
        if _depth_at_least(self, _PICKLE_DEPTH):
            order = self.toposort()
            index = {u: i for i, u in enumerate(order)}
            return (_from_rows, (tuple((u.op, tuple(index[s] for s in u.src), u.arg) for u in order),))
        return (UOp, (self.op, self.src, self.arg))

    def __bool__(self) -> bool:
        raise TypeError("a UOp has no truth value (did you mean `is`, or .where?)")

    # -- per-node memo of derived facts (bounds, ...), owned by the analyses that fill it
    def memo(self, name: str, compute: Callable[[UOp], Any]) -> Any:
        m = self._memo
        if m is None:
            m = {}
            object.__setattr__(self, "_memo", m)
        if name not in m:
            m[name] = compute(self)
        return m[name]

    def memoized(self, name: str) -> bool:
        """Is the fact `name` computed already (an analysis that fills its memo sources first asks)?"""
        return self._memo is not None and name in self._memo

    # -- construction helpers
    @staticmethod
    def const(v: Any, dtype: DType | None = None, shape: tuple[int, ...] = ()) -> UOp:
        """A scalar constant (converted to dtype), broadcast to shape with RESHAPE + EXPAND if given."""
        if type(v) is int and (dtype is None or dtype is dtypes.i32) and not shape:
            return UOp(Ops.CONST, (), v)  # the common constant (the rules write millions), as below
        if isinstance(v, UOp):
            raise UOpError(f"CONST value must be a Python scalar, got a UOp ({v.op.name})")
        if dtype is None:
            dtype = dtypes.of(v)
        elif not isinstance(dtype, DType):
            raise UOpError(f"CONST dtype must be a DType, got {dtype!r}")
        if dtype is dtypes.bool:
            v = bool(v)
        elif dtype is dtypes.i32:
            if isinstance(v, float):
                if not v.is_integer():
                    raise UOpError(f"CONST i32 value must be an integer, got {v!r}")
                v = int(v)
            v = int(v)
        else:
            v = float(v)
        c = UOp(Ops.CONST, (), v)
        return c.broadcast(shape) if shape else c

    @staticmethod
    def param(
        slot: int,
        dtype: DType = dtypes.i32,
        shape: tuple[int, ...] = (),
        bounds: tuple[int, int] | None = None,
    ) -> UOp:
        """Program input `slot`; bounds (lo, hi) says an i32 input lies in [lo, hi]."""
        return UOp(
            Ops.PARAM,
            (),
            ParamArg(slot, dtype, tuple(shape), None, None if bounds is None else tuple(bounds)),
        )

    @staticmethod
    def range(extent: UOp | int, ident: Any) -> UOp:
        """A loop variable in [0, extent - 1]; ident keeps apart loops of equal extent."""
        return UOp(Ops.RANGE, (extent if isinstance(extent, UOp) else UOp.const(extent),), ident)

    @staticmethod
    def stack(*elems: UOp | Any) -> UOp:
        return UOp(Ops.STACK, tuple(e if isinstance(e, UOp) else UOp.const(e) for e in elems))

    def const_like(self, v: Any) -> UOp:
        """A constant of this node's dtype and shape."""
        return UOp.const(v, self.dtype, self.shape)

    def broadcast(self, shape: tuple[int, ...]) -> UOp:
        """A scalar broadcast to shape, spelled RESHAPE to all-ones then EXPAND."""
        if self.shape == tuple(shape):
            return self
        if self.shape != ():
            raise UOpError(f"broadcast needs a scalar, got shape {_shape_str(self.shape)}")
        shape = tuple(shape)
        return self.reshape((1,) * len(shape)).expand(shape)

    def replace(self, src: tuple[UOp, ...] | None = None, arg: Any = ...) -> UOp:
        return UOp(self.op, self.src if src is None else tuple(src), self.arg if arg is ... else arg)

    def _operand(self, x: Any) -> UOp:
        return x if isinstance(x, UOp) else UOp.const(x, self.dtype, self.shape)

    def alu(self, op: Ops, *others: Any) -> UOp:
        if len(others) == 1:  # a binary operator (the rules build millions): no generator
            o = others[0]
            return UOp(op, (self, o if isinstance(o, UOp) else self._operand(o)))
        return UOp(op, (self, *map(self._operand, others)))

    # -- sugar: the operators the chapter writes rules with
    def __add__(self, o: Any) -> UOp:
        return self.alu(Ops.ADD, o)

    def __radd__(self, o: Any) -> UOp:
        return self._operand(o).alu(Ops.ADD, self)

    def __mul__(self, o: Any) -> UOp:
        return self.alu(Ops.MUL, o)

    def __rmul__(self, o: Any) -> UOp:
        return self._operand(o).alu(Ops.MUL, self)

    def __sub__(self, o: Any) -> UOp:
        return self + self._operand(o) * -1

    def __rsub__(self, o: Any) -> UOp:
        return self._operand(o) + self * -1

    def __neg__(self) -> UOp:
        return self * -1

    def __floordiv__(self, o: Any) -> UOp:
        return self.alu(Ops.FLOORDIV, o)

    def __rfloordiv__(self, o: Any) -> UOp:
        return self._operand(o).alu(Ops.FLOORDIV, self)

    def __mod__(self, o: Any) -> UOp:
        return self.alu(Ops.FLOORMOD, o)

    def __rmod__(self, o: Any) -> UOp:
        return self._operand(o).alu(Ops.FLOORMOD, self)

    def __lt__(self, o: Any) -> UOp:
        return self.alu(Ops.CMPLT, o)

    def __gt__(self, o: Any) -> UOp:
        return self._operand(o).alu(Ops.CMPLT, self)

    def ne(self, o: Any) -> UOp:
        return self.alu(Ops.CMPNE, o)

    def maximum(self, o: Any) -> UOp:
        return self.alu(Ops.MAX, o)

    def where(self, a: Any, b: Any) -> UOp:
        """self ? a : b, with Python scalars taking the other branch's dtype and this node's shape."""
        if not isinstance(a, UOp) and not isinstance(b, UOp):
            a = UOp.const(a, shape=self.shape)
        a = a if isinstance(a, UOp) else UOp.const(a, b.dtype, self.shape)
        b = b if isinstance(b, UOp) else UOp.const(b, a.dtype, self.shape)
        return UOp(Ops.WHERE, (self, a, b))

    def cast(self, dtype: DType) -> UOp:
        return UOp(Ops.CAST, (self,), dtype)

    def recip(self) -> UOp:
        return UOp(Ops.RECIP, (self,))

    def exp2(self) -> UOp:
        return UOp(Ops.EXP2, (self,))

    def log2(self) -> UOp:
        return UOp(Ops.LOG2, (self,))

    def sqrt(self) -> UOp:
        return UOp(Ops.SQRT, (self,))

    def sin(self) -> UOp:
        return UOp(Ops.SIN, (self,))

    def index(self, *idx: UOp | int) -> UOp:
        return UOp(Ops.INDEX, (self, *(i if isinstance(i, UOp) else UOp.const(i, dtypes.i32) for i in idx)))

    def reshape(self, shape: tuple[int, ...]) -> UOp:
        return UOp(Ops.RESHAPE, (self,), tuple(shape))

    def expand(self, shape: tuple[int, ...]) -> UOp:
        return UOp(Ops.EXPAND, (self,), tuple(shape))

    def permute(self, order: tuple[int, ...]) -> UOp:
        return UOp(Ops.PERMUTE, (self,), tuple(order))

    def shrink(self, arg: tuple[tuple[int, int], ...]) -> UOp:
        return UOp(Ops.SHRINK, (self,), tuple(tuple(p) for p in arg))

    def reduce(self, op: Ops, k: int = 1) -> UOp:
        return UOp(Ops.REDUCE, (self,), (op, k))

    def call(self, *args: UOp | Any, name: str = "f") -> UOp:
        """self (a body) applied to args."""
        return UOp(Ops.CALL, (self, *(a if isinstance(a, UOp) else UOp.const(a) for a in args)), name)

    # -- traversals (iterative)
    def toposort(self, enter_call_bodies: bool = True) -> list[UOp]:
        """Every node reachable from self, sources before users, left to right.

        With enter_call_bodies=False the walk stays in self's scope: a CALL's arguments are in it,
        its body (a binder with its own PARAMs) is not.
        """
        order: list[UOp] = []
        seen: set[UOp] = set()
        stack: list[tuple[UOp, bool]] = [(self, False)]
        while stack:
            u, expanded = stack.pop()
            if expanded:
                order.append(u)
                continue
            if u in seen:
                continue
            seen.add(u)
            stack.append((u, True))
            kids = u.src[1:] if u.op is Ops.CALL and not enter_call_bodies else u.src
            stack.extend((s, False) for s in reversed(kids) if s not in seen)
        return order

    def substitute(self, mapping: Mapping[UOp, UOp]) -> UOp:
        """Replace nodes by mapping, rebuilding users. A nested CALL's body is a binder: never entered."""
        return rebuild(self, lambda u: mapping.get(u), enter_call_bodies=False)

    def __repr__(self) -> str:
        return _repr(self, 3)

    @property
    def size(self) -> int:
        """Number of distinct nodes (the DAG size); counted once per node (the run, its hooks and
        the caller each ask it of a program: one walk of a 100,000-node program costs 70 ms)."""
        return self.memo("size", _dag_size)


def _dag_size(u: UOp) -> int:
    return len(u.toposort())


def rebuild(root: UOp, replace: Callable[[UOp], UOp | None], enter_call_bodies: bool = False) -> UOp:
    """Rebuild root bottom-up: a node for which replace returns a UOp becomes that UOp (not entered).

    With enter_call_bodies=False a CALL keeps its body (src[0]) untouched, which is what
    substitution must do: the body binds its own PARAMs.
    """
    new: dict[UOp, UOp] = {}
    stack: list[tuple[UOp, bool]] = [(root, False)]
    while stack:
        u, expanded = stack.pop()
        if u in new:
            continue
        if not expanded:
            if (r := replace(u)) is not None:
                new[u] = r
                continue
            stack.append((u, True))
            kids = u.src[1:] if (u.op is Ops.CALL and not enter_call_bodies) else u.src
            stack.extend((s, False) for s in reversed(kids) if s not in new)
            continue
        if u.op is Ops.CALL and not enter_call_bodies:
            src = (u.src[0], *(new[s] for s in u.src[1:]))
        else:
            src = tuple(new[s] for s in u.src)
        new[u] = u if all(a is b for a, b in zip(src, u.src, strict=True)) else u.replace(src=src)
    return new[root]


_PICKLE_DEPTH = 100


def _depth_at_least(root: UOp, limit: int) -> bool:
    """Whether some path from root down to a leaf has `limit` nodes (iterative, stops early)."""
    best: dict[UOp, int] = {}  # node -> deepest level it was reached at
    stack = [(root, 1)]
    while stack:
        u, level = stack.pop()
        if level >= limit:
            return True
        if best.get(u, 0) >= level:
            continue
        best[u] = level
        stack.extend((s, level + 1) for s in u.src)
    return False


def _from_rows(rows: tuple[tuple[Ops, tuple[int, ...], Any], ...]) -> UOp:
    """The inverse of a deep node's __reduce__: rows (op, source row numbers, arg) in toposort order."""
    built: list[UOp] = []
    for op, srcs, arg in rows:
        built.append(UOp(op, tuple(built[i] for i in srcs), arg))
    return built[-1]


def call_params(body: UOp) -> list[UOp]:
    """The PARAMs of a body, by slot; a nested CALL's body is its own scope and is not entered."""
    found: set[UOp] = set()
    seen: set[UOp] = set()
    stack = [body]
    while stack:
        u = stack.pop()
        if u in seen:
            continue
        seen.add(u)
        if u.op is Ops.PARAM:
            found.add(u)
        stack.extend(u.src[1:] if u.op is Ops.CALL else u.src)
    return sorted(found, key=lambda p: (p.arg.slot, p.arg.dtype.name, p.arg.shape))


def _repr(u: UOp, depth: int) -> str:
    """The constructor call that builds u, sources elided below `depth` levels."""
    parts = [f"Ops.{u.op.name}"]
    if u.src:
        inner = ", ".join(_repr(s, depth - 1) for s in u.src) if depth > 0 else "..."
        parts.append(f"src=({inner}{',' if len(u.src) == 1 and depth > 0 else ''})")
    if u.arg is not None:
        parts.append(f"arg={u.arg!r}")
    return f"UOp({', '.join(parts)})"


# ---------------------------------------------------------------------------
# type and shape inference: one function per family, each naming the op in its errors


def _same(op: Ops, src: tuple[UOp, ...], what: str = "operands") -> None:
    a = src[0]
    for s in src[1:]:
        if s.dtype is not a.dtype:
            raise UOpError(f"{op.name} {what} must have one dtype, got {a.dtype.name} and {s.dtype.name}")
        if s.shape != a.shape:
            raise UOpError(
                f"{op.name} {what} must have one shape, got {_shape_str(a.shape)} and {_shape_str(s.shape)}"
            )


def _nsrc(op: Ops, src: tuple[UOp, ...], n: int) -> None:
    if len(src) != n:
        raise UOpError(f"{op.name} takes {n} source{'s' if n != 1 else ''}, got {len(src)}")


# ops whose meaning is all in their sources: a stray arg would make a second, different-looking node
_NO_ARG = BINARY | TRANSCENDENTAL | {Ops.WHERE, Ops.STACK, Ops.INDEX}


def _check_bounds(arg: ParamArg) -> None:
    b = arg.bounds
    ok = (
        isinstance(b, tuple)
        and len(b) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) for v in b)
    )
    if not ok:
        raise UOpError(f"PARAM bounds must be a pair of ints (lo, hi), got {b!r}")
    if arg.dtype is not dtypes.i32:
        raise UOpError(f"PARAM bounds are for i32 inputs, got a {arg.dtype.name} PARAM with bounds {b!r}")
    lo, hi = b
    if not I32_MIN <= lo <= hi <= I32_MAX:
        raise UOpError(f"PARAM bounds must satisfy -2**31 <= lo <= hi < 2**31, got {b!r}")


def _infer(op: Ops, src: tuple[UOp, ...], arg: Any) -> tuple[DType, tuple[int, ...]]:
    """dtype and shape of a node, or the UOpError naming what is wrong (see the module docstring)."""
    if op in _NO_ARG and arg is not None:
        raise UOpError(f"{op.name} takes no arg, got {arg!r}")
    if op is Ops.CONST:
        _nsrc(op, src, 0)
        if isinstance(arg, int) and not isinstance(arg, bool) and not -(2**31) <= arg < 2**31:
            raise UOpError(f"CONST i32 value {arg} is outside the int32 range")
        if not isinstance(arg, bool | int | float):
            raise UOpError(f"CONST value must be a bool, int or float, got {type(arg).__name__}: {arg!r}")
        return dtypes.of(arg), ()
    if op is Ops.PARAM:
        _nsrc(op, src, 0)
        if not isinstance(arg, ParamArg):
            raise UOpError(f"PARAM arg must be a ParamArg, got {arg!r}")
        if not isinstance(arg.slot, int) or isinstance(arg.slot, bool) or arg.slot < 0:
            raise UOpError(f"PARAM slot must be a non-negative int, got {arg.slot!r}")
        if not isinstance(arg.dtype, DType):
            raise UOpError(f"PARAM dtype must be a DType, got {arg.dtype!r}")
        if not _is_shape(arg.shape):
            raise UOpError(f"PARAM shape must be a tuple of positive ints, got {arg.shape!r}")
        if arg.addrspace is not None and not isinstance(arg.addrspace, str):
            raise UOpError(f"PARAM addrspace must be a str or None, got {arg.addrspace!r}")
        if arg.bounds is not None:
            _check_bounds(arg)
        return arg.dtype, arg.shape
    if op is Ops.RANGE:
        _nsrc(op, src, 1)
        if src[0].dtype is not dtypes.i32 or src[0].shape != ():
            got = f"{src[0].dtype.name} {_shape_str(src[0].shape)}"
            raise UOpError(f"RANGE extent must be an i32 scalar, got {got}")
        if arg is None:
            raise UOpError("RANGE needs an identifier in its arg, so that two loops of one extent differ")
        return dtypes.i32, ()
    if op is Ops.STACK:
        if not src:
            raise UOpError("STACK needs at least one element")
        _same(op, src, "elements")
        return src[0].dtype, (len(src), *src[0].shape)
    if op is Ops.INDEX:
        if not src:
            raise UOpError("INDEX needs a source to index")
        base, idx = src[0], src[1:]
        if len(idx) > len(base.shape):
            raise UOpError(f"INDEX has {len(idx)} indices into a value of rank {len(base.shape)}")
        for k, i in enumerate(idx):
            if i.dtype is not dtypes.i32 or i.shape != ():
                got = f"{i.dtype.name} {_shape_str(i.shape)}"
                raise UOpError(f"INDEX index {k} must be an i32 scalar, got {got}")
        return base.dtype, base.shape[len(idx) :]
    if op is Ops.CALL:
        return _infer_call(src, arg)
    if op in BINARY:
        _nsrc(op, src, 2)
        _same(op, src)
        d = src[0].dtype
        if op in (Ops.FLOORDIV, Ops.FLOORMOD) and d is not dtypes.i32:
            raise UOpError(f"{op.name} needs i32 operands, got {d.name}")
        return (dtypes.bool if op in (Ops.CMPLT, Ops.CMPNE) else d), src[0].shape
    if op is Ops.WHERE:
        _nsrc(op, src, 3)
        if src[0].dtype is not dtypes.bool:
            raise UOpError(f"WHERE condition must be bool, got {src[0].dtype.name}")
        if src[0].shape != src[1].shape:
            raise UOpError(
                f"WHERE condition shape {_shape_str(src[0].shape)} differs from "
                f"value shape {_shape_str(src[1].shape)}"
            )
        _same(op, src[1:], "branches")
        return src[1].dtype, src[1].shape
    if op in TRANSCENDENTAL:
        _nsrc(op, src, 1)
        if not src[0].dtype.is_float:
            raise UOpError(f"{op.name} needs an f32 operand, got {src[0].dtype.name}")
        return src[0].dtype, src[0].shape
    if op is Ops.CAST:
        _nsrc(op, src, 1)
        if not isinstance(arg, DType):
            raise UOpError(f"CAST target must be a DType, got {arg!r}")
        return arg, src[0].shape
    if op in MOVEMENT:
        _nsrc(op, src, 1)
        return src[0].dtype, _movement_shape(op, src[0].shape, arg)
    if op is Ops.REDUCE:
        _nsrc(op, src, 1)
        if not (isinstance(arg, tuple) and len(arg) == 2 and arg[0] in REDUCE_OPS and type(arg[1]) is int):
            raise UOpError(f"REDUCE arg must be (op, k) with op ADD, MUL or MAX, got {arg!r}")
        k, shape = arg[1], src[0].shape
        if not 1 <= k <= len(shape):
            raise UOpError(f"REDUCE of {k} axes on a value of rank {len(shape)}")
        return src[0].dtype, shape[: len(shape) - k]
    raise UOpError(f"no type rule for {op.name}")  # pragma: no cover  (every op has one)


def _movement_shape(op: Ops, shape: tuple[int, ...], arg: Any) -> tuple[int, ...]:
    if op is Ops.RESHAPE:
        if not _is_shape(arg):
            raise UOpError(f"RESHAPE needs a shape of positive ints, got {arg!r}")
        if prod(arg) != prod(shape):
            raise UOpError(f"RESHAPE from {_shape_str(shape)} to {_shape_str(arg)} changes the size")
        return arg
    if op is Ops.EXPAND:
        if not _is_shape(arg) or len(arg) != len(shape):
            raise UOpError(f"EXPAND needs a shape of rank {len(shape)}, got {arg!r}")
        for k, (a, b) in enumerate(zip(shape, arg, strict=True)):
            if a != b and a != 1:
                raise UOpError(f"EXPAND of axis {k} from {a} to {b}: only an axis of size 1 can expand")
        return arg
    if op is Ops.PERMUTE:
        if not (isinstance(arg, tuple) and all(type(k) is int for k in arg)) or sorted(arg) != list(
            range(len(shape))
        ):
            raise UOpError(f"PERMUTE order {arg!r} is not a permutation of range({len(shape)})")
        return tuple(shape[k] for k in arg)
    # SHRINK
    if not isinstance(arg, tuple) or len(arg) != len(shape):
        raise UOpError(f"SHRINK needs {len(shape)} (begin, end) pairs, got {arg!r}")
    out = []
    for k, (pair, dim) in enumerate(zip(arg, shape, strict=True)):
        if not (isinstance(pair, tuple) and len(pair) == 2 and all(type(v) is int for v in pair)):
            raise UOpError(f"SHRINK axis {k} needs a (begin, end) pair, got {pair!r}")
        b, e = pair
        if not 0 <= b < e <= dim:
            raise UOpError(f"SHRINK axis {k} range ({b}, {e}) is outside [0, {dim}] or empty")
        out.append(e - b)
    return tuple(out)


def _infer_call(src: tuple[UOp, ...], arg: Any) -> tuple[DType, tuple[int, ...]]:
    if not src:
        raise UOpError("CALL needs a body")
    body, args = src[0], src[1:]
    params = call_params(body)
    slots = [p.arg.slot for p in params]
    if len(set(slots)) != len(slots):
        dup = next(s for s in slots if slots.count(s) > 1)
        raise UOpError(f"CALL body has two different PARAMs for slot {dup}")
    if slots != list(range(len(args))):
        raise UOpError(f"CALL needs params 0..{len(args) - 1}, body has {slots}")
    for p, a in zip(params, args, strict=True):
        if a.dtype is not p.dtype or a.shape != p.shape:
            raise UOpError(
                f"CALL argument {p.arg.slot} is {a.dtype.name} {_shape_str(a.shape)}, "
                f"param {p.arg.slot} is {p.dtype.name} {_shape_str(p.shape)}"
            )
    return body.dtype, body.shape
