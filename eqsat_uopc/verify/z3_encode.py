"""z3 encoding of int32/bool programs, under either integer semantics, in either of two exact encodings.

- "wrap": ADD and MUL wrap (two's complement), CMPLT is signed. Encoded as 32-bit bit-vectors
  ("bv", the default), or as integers in the int32 range with the wraparound written out ("int":
  linear arithmetic, strong on division and modulo by constants).
- "no_overflow": an i32 ADD or MUL whose exact result leaves the int32 range is undefined (see
  interpret.py for how undefinedness propagates: to every user, except through the branch a WHERE
  does not select). So "every intermediate is in range" is a hypothesis of the comparison, for
  exactly the intermediates the result depends on, and a program that overflows where the other
  does not is told apart from it. Encoded as mathematical integers, every PARAM in the int32 range
  ("int", the default), or as 32-bit bit-vectors whose ADD and MUL are defined only where z3's
  signed no-overflow and no-underflow predicates hold ("bv": where they hold, the 32-bit result is
  the exact one). Both encodings are exact; which one z3 decides faster depends on the program.
- "integers": an i32 is a mathematical integer and nothing overflows: ADD, MUL and FLOORDIV are
  exact and defined at every value (only a division by zero is undefined); PARAMs and RANGEs still
  lie in the int32 range. This is what an e-graph saturated under "no_overflow" means (docs/DESIGN.md,
  "Integer semantics"): its rules build terms the program does not have, whose exact values may
  leave the int32 range, and a rule run there must hold for them too (verify/saturation_rules.py).
  Encoded as integers only ("int").

A bool is a z3 Bool; on bools ADD is or, MUL is and, MAX is or, CMPLT is `not a and b` (exec_alu
computes them in Python ints and truncates to bool).

FLOORDIV and FLOORMOD are encoded exactly, with floor semantics, as a relation: fresh q and r with
a = q*b + r and r in [0, b) for b > 0, in (b, 0] for b < 0 (in 64 bits under "wrap", so the
relation itself cannot wrap). The relation is asserted only where the division is defined (b != 0,
and not INT_MIN // -1): there it has exactly one solution, the floor quotient and modulo, so
asserting it loses no input. With a constant divisor the relation is linear, which bit-blasts and
solves in milliseconds where a bvsdiv-based formula takes seconds. A bit-vector divisor that is not
a constant is encoded by bvsdiv and bvsrem instead (floor from truncation): there the relation is a
64-bit product of two unknowns, which z3 failed to decide in 5 s even for a program of constants.

A RANGE is a variable (one per identifier) with 0 <= v < extent as a hypothesis. f32 values are
not encoded: `NotEncodable` is raised and the proof is "not attempted".
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import z3
import z3.z3 as z3_api

from eqsat_uopc.allocator import pad_system_heap
from eqsat_uopc.ir.dtype import I32_MAX, I32_MIN, DType, dtypes
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.semantics.interpret import Elem

__all__ = ["DOMAIN_SEMANTICS", "ENCODINGS", "NotEncodable", "Z3Domain", "conjunction", "own_z3_context"]

ENCODINGS = ("bv", "int")
# what a Z3Domain's i32 values are: the two int semantics, and the mathematical integers
DOMAIN_SEMANTICS = ("wrap", "no_overflow", "integers")


class NotEncodable(Exception):
    """The program has a value z3 is not asked to reason about (f32)."""


@contextmanager
def own_z3_context() -> Iterator[None]:
    """A z3 context of its own for the block: the terms, solvers and proofs made in it.

    How hard z3 finds a proof depends on the terms its context already holds (their ids order its
    search), so under the same resource budget one proof could succeed alone and run out after other
    work in the process: intervals/mul did after 1 of 60 different histories, and the suite's
    verification of the rule files failed once on a fresh machine. In a context of its own a proof
    meets the same context every time, so its verdict depends on nothing that ran before. z3's
    Python API makes its default context on demand when `z3.z3._main_ctx` is None. The first one
    pads glibc's heap (allocator.py: a fresh context otherwise costs 8 ms of page faults, not 0.8).
    """
    pad_system_heap()
    saved = z3_api._main_ctx
    z3_api._main_ctx = None
    try:
        yield
    finally:
        z3_api._main_ctx = saved


def conjunction(ds: list[Any]) -> Any:
    """And of definedness flags, keeping Python True where nothing is conditional."""
    terms = [d for d in ds if d is not True]
    if any(d is False for d in terms):
        return False
    if not terms:
        return True
    return terms[0] if len(terms) == 1 else z3.And(*terms)


def as_bool(d: Any) -> z3.BoolRef:
    return z3.BoolVal(d) if isinstance(d, bool) else d


def _ite(c: Any, a: Any, b: Any) -> Any:
    if a is True and b is True:
        return True
    return z3.If(c, as_bool(a), as_bool(b))


class Z3Domain:
    """z3 terms (interpret.Domain); collects the hypotheses and the input variables it creates."""

    def __init__(
        self, int_semantics: str, encoding: str | None = None, ctx: z3.Context | None = None
    ) -> None:
        if int_semantics not in DOMAIN_SEMANTICS:
            raise ValueError(
                f"int_semantics must be 'wrap', 'no_overflow' or 'integers', got {int_semantics!r}"
            )
        if encoding is None:
            encoding = "bv" if int_semantics == "wrap" else "int"
        if encoding not in ENCODINGS or (int_semantics == "integers" and encoding != "int"):
            raise ValueError(f"encoding must be one of {ENCODINGS} ('int' for integers), got {encoding!r}")
        self.encoding = encoding
        # self.wrap: i32 values are bit-vectors; self.wrap_int: integers in range, ADD/MUL wrapped;
        # self.checked: an i32 ADD or MUL is undefined where its exact result leaves int32 (no_overflow)
        self.wrap = encoding == "bv"
        self.wrap_int = int_semantics == "wrap" and encoding == "int"
        self.checked = int_semantics == "no_overflow"
        self.exact = int_semantics == "integers"  # nothing overflows: no intermediate is undefined
        self.ctx = ctx
        self.hypotheses: list[z3.BoolRef] = []
        self.params: dict[int, tuple[UOp, list[Any]]] = {}  # slot -> (PARAM node, element variables)
        self.ranges: dict[Any, Any] = {}  # RANGE identifier -> variable
        self._divisions: dict[tuple[int, int], tuple[Any, Any]] = {}
        self._bounded: set[tuple[UOp, int]] = set()  # bounded PARAM elements whose bounds are hypotheses
        self._fresh = itertools.count()

    # -- scalars
    def _int(self, v: int) -> Any:
        return z3.BitVecVal(v, 32, self.ctx) if self.wrap else z3.IntVal(v, self.ctx)

    def _int_var(self, name: str) -> Any:
        return z3.BitVec(name, 32, self.ctx) if self.wrap else z3.Int(name, self.ctx)

    def _in_range(self, v: Any) -> z3.BoolRef:
        return z3.And(v >= I32_MIN, v <= I32_MAX)

    def const(self, value: Any, dtype: DType) -> Any:
        if dtype is dtypes.bool:
            return z3.BoolVal(bool(value), self.ctx)
        if dtype is dtypes.i32:
            return self._int(value)
        raise NotEncodable("f32 values are not encoded")

    def literal(self, value: Any, dtype: DType) -> Elem:
        return (self.const(value, dtype), True)

    def undefined(self, dtype: DType) -> Elem:
        return (self.const(0 if dtype is dtypes.i32 else False, dtype), False)

    def known_index(self, index: Elem) -> int | None:
        value, defined = index
        return self.known_int(value) if defined is True else None

    def known_int(self, value: Any) -> int | None:
        """The int a z3 term is, when it is a literal."""
        if z3.is_bv_value(value):
            return value.as_signed_long()
        if z3.is_int_value(value):
            return value.as_long()
        return None

    def out_of_bounds(self, node: UOp, axis: int, index: int, size: int, count: int) -> list[Elem]:
        return [self.undefined(node.dtype) for _ in range(count)]

    def param(self, node: UOp, element: int) -> Elem:
        slot, dtype, shape = node.arg.slot, node.dtype, node.shape
        if slot not in self.params:
            if dtype is dtypes.f32:
                raise NotEncodable(f"PARAM slot {slot} is f32")
            n = 1
            for d in shape:
                n *= d
            names = [f"p{slot}" if not shape else f"p{slot}[{i}]" for i in range(n)]
            if dtype is dtypes.bool:
                elems = [z3.Bool(name, self.ctx) for name in names]
            else:
                elems = [self._int_var(name) for name in names]
                if not self.wrap:
                    self.hypotheses.extend(self._in_range(v) for v in elems)
            self.params[slot] = (node, elems)
        v = self.params[slot][1][element]
        if node.arg.bounds is not None and (node, element) not in self._bounded:
            self._bounded.add((node, element))
            lo, hi = node.arg.bounds
            self.hypotheses.append(z3.And(v >= self._int(lo), v <= self._int(hi)))
        return (v, True)

    def range_var(self, node: UOp, extent: Elem) -> Elem:
        n, defined = extent
        ident = node.arg
        if ident not in self.ranges:
            self.ranges[ident] = v = self._int_var(f"range {ident!r}")
            if not self.wrap:
                self.hypotheses.append(self._in_range(v))
        v = self.ranges[ident]
        bound = z3.And(v >= 0, v < n)
        self.hypotheses.append(bound if defined is True else z3.Implies(as_bool(defined), bound))
        return (v, defined)

    def select(
        self, node: UOp, axis: int, index: Elem, candidates: list[list[Elem]], dtype: DType
    ) -> list[Elem]:
        k, defined = index
        out = []
        for j in range(len(candidates[0])):
            value, ok = candidates[-1][j]
            ok = as_bool(ok)
            for i in range(len(candidates) - 2, -1, -1):
                v, d = candidates[i][j]
                value = z3.If(k == i, v, value)
                ok = z3.If(k == i, as_bool(d), ok)
            in_bounds = z3.And(k >= 0, k < len(candidates))
            out.append((value, conjunction([defined, in_bounds, z3.simplify(ok)])))
        return out

    # -- ops
    def alu(self, node: UOp, op: Ops, dtype: DType, operand_dtype: DType, operands: list[Elem]) -> Elem:
        if dtype is dtypes.f32 or operand_dtype is dtypes.f32:
            raise NotEncodable(f"{op.name} on f32 is not encoded")
        vals = [v for v, _ in operands]
        defs = [d for _, d in operands]
        if op is Ops.WHERE:
            c, x, y = vals
            return (z3.If(c, x, y), conjunction([defs[0], _ite(c, defs[1], defs[2])]))
        defined = conjunction(defs)
        if op is Ops.CAST:
            return (self._cast(dtype, operand_dtype, vals[0]), defined)
        if operand_dtype is dtypes.bool:
            return (self._bool_op(op, *vals), defined)
        a, b = vals
        if op is Ops.ADD or op is Ops.MUL:
            r = a + b if op is Ops.ADD else a * b
            if self.wrap_int:
                return (self._wrapped(r, op), defined)
            if self.checked:
                defined = conjunction([defined, self._fits(a, b, r, op)])
            return (r, defined)
        if op is Ops.MAX:
            return (z3.If(b > a, b, a), defined)
        if op is Ops.CMPLT:
            return (a < b, defined)
        if op is Ops.CMPNE:
            return (a != b, defined)
        if op is Ops.FLOORDIV or op is Ops.FLOORMOD:
            q, r = self._floor_divmod(a, b)
            if op is Ops.FLOORMOD:
                return (r, conjunction([defined, b != 0]))
            if self.exact:  # INT_MIN // -1 is 2**31, an integer like any other
                return (q, conjunction([defined, b != 0]))
            return (q, conjunction([defined, b != 0, z3.Not(z3.And(a == I32_MIN, b == -1))]))
        raise NotEncodable(f"{op.name} is not an int/bool op")  # pragma: no cover

    def _fits(self, a: Any, b: Any, r: Any, op: Ops) -> z3.BoolRef:
        """Does the exact result r of a op b lie in the int32 range? (Bit-vectors: z3's predicates.)"""
        if not self.wrap:
            return self._in_range(r)
        if op is Ops.ADD:
            return z3.And(z3.BVAddNoOverflow(a, b, True), z3.BVAddNoUnderflow(a, b))
        return z3.And(z3.BVMulNoOverflow(a, b, True), z3.BVMulNoUnderflow(a, b))

    def _wrapped(self, r: Any, op: Ops) -> Any:
        """r (an exact sum or product of two int32 values) reduced to the int32 range, mod 2**32."""
        if op is Ops.ADD:  # the exact sum is within one 2**32 of the range
            return z3.If(r > I32_MAX, r - 2**32, z3.If(r < I32_MIN, r + 2**32, r))
        k = self._int_var(f"wrap{next(self._fresh)}")
        w = r - k * 2**32
        self.hypotheses.append(self._in_range(w))  # exactly one k puts r - k * 2**32 in range
        return w

    def _cast(self, dtype: DType, src: DType, v: Any) -> Any:
        if dtype is src:
            return v
        if dtype is dtypes.bool:  # i32 -> bool
            return v != 0
        return z3.If(v, self._int(1), self._int(0))  # bool -> i32

    def _bool_op(self, op: Ops, a: Any, b: Any) -> Any:
        if op is Ops.ADD or op is Ops.MAX:
            return z3.Or(a, b)
        if op is Ops.MUL:
            return z3.And(a, b)
        if op is Ops.CMPLT:
            return z3.And(z3.Not(a), b)
        if op is Ops.CMPNE:
            return z3.Xor(a, b)
        raise NotEncodable(f"{op.name} on bool is not encoded")  # pragma: no cover (the IR rejects it)

    def _floor_divmod(self, a: Any, b: Any) -> tuple[Any, Any]:
        """(floor quotient, floor modulo) of a by b, as fresh variables tied to a and b where defined."""
        key = (a.get_id(), b.get_id())
        if key in self._divisions:
            return self._divisions[key]
        ka, kb = self.known_int(a), self.known_int(b)
        if ka is not None and kb is not None and kb != 0 and not (ka == I32_MIN and kb == -1):
            out = (self._int(ka // kb), self._int(ka % kb))
        elif self.wrap and kb is None:
            # Bit-vectors, a divisor not known: C's truncating quotient and remainder (bvsdiv, bvsrem)
            # moved one step down where the remainder's sign differs from the divisor's. The relation
            # below would be a 64-bit product of two unknowns, which z3 did not decide in 5 s for a
            # program of constants. INT_MIN // -1 gives INT_MIN (undefined anyway), its modulo 0.
            truncated, rest = a / b, z3.SRem(a, b)
            step = z3.And(rest != 0, (rest < 0) != (b < 0))
            out = (z3.If(step, truncated - 1, truncated), z3.If(step, rest + b, rest))
        else:
            k = next(self._fresh)
            q, r = self._int_var(f"div{k}"), self._int_var(f"mod{k}")
            if self.wrap:
                wide = [z3.SignExt(32, t) for t in (a, b, q, r)]
                relation = wide[0] == wide[2] * wide[1] + wide[3]
            else:
                relation = a == q * b + r
            remainder = z3.If(b > 0, z3.And(r >= 0, r < b), z3.And(r > b, r <= 0))
            if self.wrap:  # the quotient 2**31 has no 32-bit q; the modulo is 0 (exec_alu defines it)
                overflow = z3.And(a == I32_MIN, b == -1)
                self.hypotheses.append(
                    z3.Implies(z3.And(b != 0, z3.Not(overflow)), z3.And(relation, remainder))
                )
                self.hypotheses.append(z3.Implies(overflow, r == 0))
            else:
                self.hypotheses.append(z3.Implies(b != 0, z3.And(relation, remainder)))
            out = (q, r)
        self._divisions[key] = out
        return out
