"""UPat: the left-hand side of a rewrite rule, a pattern over UOps that binds names.

A pattern constrains up to five things of a node (op, dtype, arg, sources, a name to bind) and
every constraint is optional. `UPat.match` is the reference matcher, the interpreter that the
compiled matchers (exercise 10) must agree with binding for binding, in the same order.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from eqsat_uopc.ir.dtype import DType
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp

__all__ = ["UPat"]

# the ops whose pattern sugar gets list (any-order) sources
_COMMUTATIVE_SUGAR = (Ops.ADD, Ops.MUL, Ops.MAX, Ops.CMPNE)


class UPat:
    """A pattern: op(s), dtype(s), arg, sources, a name. `src` as a tuple matches in order, as a
    list in any order (every permutation is tried: that is how commutative ops are handled)."""

    __slots__ = ("_matcher", "allow_any_len", "arg", "dtype", "name", "op", "src")

    def __init__(
        self,
        op: Ops | tuple[Ops, ...] | set[Ops] | frozenset[Ops] | None = None,
        src: tuple[UPat, ...] | list[UPat] | None = None,
        name: str | None = None,
        arg: Any = None,
        dtype: DType | tuple[DType, ...] | None = None,
        allow_any_len: bool = False,
    ):
        self.op = None if op is None else (frozenset([op]) if isinstance(op, Ops) else frozenset(op))
        self.dtype = (
            None if dtype is None else (frozenset([dtype]) if isinstance(dtype, DType) else frozenset(dtype))
        )
        if src is not None and not isinstance(src, (tuple, list)):
            raise TypeError(
                f"UPat src must be a tuple (in order) or a list (any order), got {type(src).__name__}"
            )
        self.src, self.name, self.arg, self.allow_any_len = src, name, arg, allow_any_len
        self._matcher: Callable[[UOp], list[dict[str, UOp]]] | None = None  # cached by PatternMatcher

    @staticmethod
    def var(name: str | None = None, dtype: DType | tuple[DType, ...] | None = None) -> UPat:
        """Any UOp (of dtype, if given), bound to name."""
        return UPat(name=name, dtype=dtype)

    @staticmethod
    def cvar(name: str | None = None, dtype: DType | tuple[DType, ...] | None = None) -> UPat:
        """Any CONST (of dtype, if given), bound to name."""
        return UPat(Ops.CONST, name=name, dtype=dtype)

    def __repr__(self) -> str:
        ops = None if self.op is None else "{" + ", ".join(repr(o) for o in Ops if o in self.op) + "}"
        return f"UPat({ops}, name={self.name})"

    def match(self, u: UOp, store: dict[str, UOp]) -> list[dict[str, UOp]]:
        """All ways this pattern matches u, each a dict of bindings (extending store)."""
        if self.op is not None and u.op not in self.op:
            return []
        if self.dtype is not None and u.dtype not in self.dtype:
            return []
        # == on purpose (the chapter's semantics): arg=0 also matches 0.0, -0.0 and False
        if self.arg is not None and u.arg != self.arg:
            return []
        if self.name is not None:
            if self.name in store and store[self.name] is not u:
                return []  # the same name must bind the same node: by hash consing, one `is`
            store = {**store, self.name: u}
        if self.src is None:
            return [store]
        orders = itertools.permutations(self.src) if isinstance(self.src, list) else [self.src]
        out: list[dict[str, UOp]] = []
        for pats in orders:
            if len(pats) != len(u.src) and not (self.allow_any_len and len(pats) <= len(u.src)):
                continue
            stores = [store]
            for p, s in zip(pats, u.src, strict=False):
                stores = [m for st in stores for m in p.match(s, st)]
                if not stores:
                    break
            out.extend(stores)
        return out

    # -- sugar, so that rules read like the math: UPat.var("x") + UPat.cvar("c")
    def _bin(self, op: Ops, other: Any, swap: bool = False) -> UPat:
        other = other if isinstance(other, UPat) else UPat(Ops.CONST, arg=other)
        src = [other, self] if swap else [self, other]
        return UPat(op, src if op in _COMMUTATIVE_SUGAR else tuple(src))

    def __add__(self, o: Any) -> UPat:
        return self._bin(Ops.ADD, o)

    def __radd__(self, o: Any) -> UPat:
        return self._bin(Ops.ADD, o, swap=True)

    def __mul__(self, o: Any) -> UPat:
        return self._bin(Ops.MUL, o)

    def __rmul__(self, o: Any) -> UPat:
        return self._bin(Ops.MUL, o, swap=True)

    def __floordiv__(self, o: Any) -> UPat:
        return self._bin(Ops.FLOORDIV, o)

    def __mod__(self, o: Any) -> UPat:
        return self._bin(Ops.FLOORMOD, o)

    def __lt__(self, o: Any) -> UPat:
        return self._bin(Ops.CMPLT, o)

    def ne(self, o: Any) -> UPat:
        return self._bin(Ops.CMPNE, o)

    def maximum(self, o: Any) -> UPat:
        return self._bin(Ops.MAX, o)
