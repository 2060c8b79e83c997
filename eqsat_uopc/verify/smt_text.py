"""The z3 encoding of z3_encode.py written as SMT-LIB text, for questions asked many times.

z3's Python API costs 10-20 microseconds a call and an op of a program takes ten calls or more (its
value, its definedness, a range check, a conjunction): encoding a 50-node program took longer than
z3 took to decide it, and `optimize` validates every result it returns. The same encoding written
as SMT-LIB text and parsed once by z3 (`from_string`) costs a fraction of that. The semantics are
Z3Domain's exactly, term for term (its docstring says what each int semantics and encoding
means); tests/test_verify_encoding.py holds the two to the same verdicts on random programs.

Each node's value is named by a `define-fun`, so a DAG stays a DAG; inputs are `declare-const`s
named as Z3Domain names them (`p0`, `p1[2]`, `range 'r'`), so a model reads the same way.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import z3

from eqsat_uopc.ir.dtype import I32_MAX, I32_MIN, DType, dtypes
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.semantics.interpret import Elem
from eqsat_uopc.verify.z3_encode import ENCODINGS, NotEncodable

__all__ = ["SmtScript", "SmtTextDomain", "and_text"]

_TRUE, _FALSE = "true", "false"


def and_text(*ds: str) -> str:
    """The conjunction of SMT-LIB Bool terms (`true` for none)."""
    terms = [d for d in ds if d != _TRUE]
    if _FALSE in terms:
        return _FALSE
    if not terms:
        return _TRUE
    return terms[0] if len(terms) == 1 else f"(and {' '.join(terms)})"


def _quote(name: str) -> str:
    return f"|{name}|"


class SmtTextDomain:
    """Z3Domain's encoding as SMT-LIB text (interpret.Domain): values and definedness are terms."""

    def __init__(self, int_semantics: str, encoding: str | None = None) -> None:
        if int_semantics not in ("wrap", "no_overflow"):
            raise ValueError(f"int_semantics must be 'wrap' or 'no_overflow', got {int_semantics!r}")
        encoding = encoding or ("bv" if int_semantics == "wrap" else "int")
        if encoding not in ENCODINGS:
            raise ValueError(f"encoding must be one of {ENCODINGS}, got {encoding!r}")
        self.encoding = encoding
        self.wrap = encoding == "bv"  # i32 values are 32-bit bit-vectors
        self.wrap_int = int_semantics == "wrap" and encoding == "int"
        self.checked = int_semantics == "no_overflow"
        self.lines: list[str] = []  # declarations and definitions, in order
        self.hypotheses: list[str] = []
        self.params: dict[int, tuple[UOp, list[str]]] = {}  # slot -> (PARAM node, element names)
        self.ranges: dict[Any, str] = {}  # RANGE identifier -> name
        self.literals: dict[str, int] = {}  # a literal's text -> its int
        self._divisions: dict[tuple[str, str], tuple[str, str]] = {}
        self._defined: dict[str, str] = {}  # a definition's body -> its name (one name a term)
        self._bounded: set[tuple[UOp, int]] = set()
        self._fresh = itertools.count()
        self._sort = "(_ BitVec 32)" if self.wrap else "Int"

    # -- text
    def _int(self, v: int) -> str:
        if self.wrap:
            text = f"(_ bv{v % 2**32} 32)"
        else:
            text = str(v) if v >= 0 else f"(- {-v})"
        self.literals[text] = v
        return text

    def _name(self, prefix: str, sort: str, body: str | None = None) -> str:
        name = f"{prefix}!{next(self._fresh)}"
        line = f"(define-fun {name} () {sort} {body})" if body else f"(declare-const {name} {sort})"
        self.lines.append(line)
        return name

    def _let(self, body: str, sort: str | None = None) -> str:
        """A term named by a definition (kept short: a DAG stays a DAG). The same body gets the same
        name, as z3's own terms are hash-consed: the two programs of a question then share their
        common subterms, and a division of the same operands is one division (two fresh quotients
        of one nonlinear division left z3 unable to prove what one quotient proves in 40 ms)."""
        if not body.startswith("(") or body in self.literals:
            return body
        name = self._defined.get(body)
        if name is None:
            name = self._defined[body] = self._name("t", sort or self._sort, body)
        return name

    def _lt(self, a: str, b: str) -> str:
        return f"(bvslt {a} {b})" if self.wrap else f"(< {a} {b})"

    def _le(self, a: str, b: str) -> str:
        return f"(bvsle {a} {b})" if self.wrap else f"(<= {a} {b})"

    def _in_range(self, v: str) -> str:
        return f"(and (<= {I32_MIN_TEXT} {v}) (<= {v} {I32_MAX}))"

    # -- Domain
    def const(self, value: Any, dtype: DType) -> str:
        if dtype is dtypes.bool:
            return _TRUE if value else _FALSE
        if dtype is dtypes.i32:
            return self._int(value)
        raise NotEncodable("f32 values are not encoded")

    def literal(self, value: Any, dtype: DType) -> Elem:
        return (self.const(value, dtype), _TRUE)

    def undefined(self, dtype: DType) -> Elem:
        return (self.const(0 if dtype is dtypes.i32 else False, dtype), _FALSE)

    def known_index(self, index: Elem) -> int | None:
        value, defined = index
        return self.literals.get(value) if defined == _TRUE else None

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
            names = [_quote(f"p{slot}" if not shape else f"p{slot}[{i}]") for i in range(n)]
            sort = "Bool" if dtype is dtypes.bool else self._sort
            for name in names:
                self.lines.append(f"(declare-const {name} {sort})")
                if dtype is not dtypes.bool and not self.wrap:
                    self.hypotheses.append(self._in_range(name))
            self.params[slot] = (node, names)
        v = self.params[slot][1][element]
        if node.arg.bounds is not None and (node, element) not in self._bounded:
            self._bounded.add((node, element))
            lo, hi = node.arg.bounds
            self.hypotheses.append(f"(and {self._le(self._int(lo), v)} {self._le(v, self._int(hi))})")
        return (v, _TRUE)

    def range_var(self, node: UOp, extent: Elem) -> Elem:
        n, defined = extent
        ident = node.arg
        if ident not in self.ranges:
            self.ranges[ident] = v = _quote(f"range {ident!r}")
            self.lines.append(f"(declare-const {v} {self._sort})")
            if not self.wrap:
                self.hypotheses.append(self._in_range(v))
        v = self.ranges[ident]
        bound = f"(and {self._le(self._int(0), v)} {self._lt(v, n)})"
        self.hypotheses.append(bound if defined == _TRUE else f"(=> {defined} {bound})")
        return (v, defined)

    def select(
        self, node: UOp, axis: int, index: Elem, candidates: list[list[Elem]], dtype: DType
    ) -> list[Elem]:
        k, defined = index
        sort = "Bool" if dtype is dtypes.bool else self._sort
        out = []
        for j in range(len(candidates[0])):
            value, ok = candidates[-1][j]
            for i in range(len(candidates) - 2, -1, -1):
                v, d = candidates[i][j]
                is_i = f"(= {k} {self._int(i)})"
                value = f"(ite {is_i} {v} {value})"
                ok = f"(ite {is_i} {d} {ok})"
            in_bounds = f"(and {self._le(self._int(0), k)} {self._lt(k, self._int(len(candidates)))})"
            out.append((self._let(value, sort), and_text(defined, in_bounds, self._let(ok, "Bool"))))
        return out

    # -- ops
    def alu(self, node: UOp, op: Ops, dtype: DType, operand_dtype: DType, operands: list[Elem]) -> Elem:
        if dtype is dtypes.f32 or operand_dtype is dtypes.f32:
            raise NotEncodable(f"{op.name} on f32 is not encoded")
        vals = [v for v, _ in operands]
        defs = [d for _, d in operands]
        sort = "Bool" if dtype is dtypes.bool else self._sort
        if op is Ops.WHERE:
            c, x, y = vals
            ok = defs[1] if defs[1] == defs[2] else f"(ite {c} {defs[1]} {defs[2]})"
            return (self._let(f"(ite {c} {x} {y})", sort), self._let(and_text(defs[0], ok), "Bool"))
        defined = and_text(*defs)
        if op is Ops.CAST:
            return (self._let(self._cast(dtype, operand_dtype, vals[0]), sort), defined)
        if operand_dtype is dtypes.bool:
            return (self._let(self._bool_op(op, *vals), "Bool"), defined)
        a, b = vals
        if op is Ops.ADD or op is Ops.MUL:
            if self.wrap:
                r = f"({'bvadd' if op is Ops.ADD else 'bvmul'} {a} {b})"
            else:
                r = f"({'+' if op is Ops.ADD else '*'} {a} {b})"
            r = self._let(r)
            if self.wrap_int:
                return (self._wrapped(r, op), defined)
            if self.checked:
                defined = and_text(defined, self._fits(a, b, r, op))
            return (r, self._let(defined, "Bool") if defined.startswith("(") else defined)
        if op is Ops.MAX:
            return (self._let(f"(ite {self._lt(a, b)} {b} {a})"), defined)
        if op is Ops.CMPLT:
            return (self._let(self._lt(a, b), "Bool"), defined)
        if op is Ops.CMPNE:
            return (self._let(f"(not (= {a} {b}))", "Bool"), defined)
        if op is Ops.FLOORDIV or op is Ops.FLOORMOD:
            q, r = self._floor_divmod(a, b)
            nonzero = f"(not (= {b} {self._int(0)}))"
            if op is Ops.FLOORMOD:
                return (r, and_text(defined, nonzero))
            overflow = f"(and (= {a} {self._int(I32_MIN)}) (= {b} {self._int(-1)}))"
            return (q, and_text(defined, nonzero, f"(not {overflow})"))
        raise NotEncodable(f"{op.name} is not an int/bool op")  # pragma: no cover

    def _fits(self, a: str, b: str, r: str, op: Ops) -> str:
        """Is the exact result of a op b an int32? (Bit-vectors: computed in 64 bits.)"""
        if not self.wrap:
            return self._in_range(r)
        wide = f"({'bvadd' if op is Ops.ADD else 'bvmul'} ((_ sign_extend 32) {a}) ((_ sign_extend 32) {b}))"
        return f"(= ((_ sign_extend 32) {r}) {self._let(wide, '(_ BitVec 64)')})"

    def _wrapped(self, r: str, op: Ops) -> str:
        if op is Ops.ADD:
            low = f"(ite (< {r} {I32_MIN_TEXT}) (+ {r} {2**32}) {r})"
            return self._let(f"(ite (> {r} {I32_MAX}) (- {r} {2**32}) {low})")
        k = self._name("wrap", "Int")
        w = self._let(f"(- {r} (* {k} {2**32}))")
        self.hypotheses.append(self._in_range(w))
        return w

    def _cast(self, dtype: DType, src: DType, v: str) -> str:
        if dtype is src:
            return v
        if dtype is dtypes.bool:
            return f"(not (= {v} {self._int(0)}))"
        return f"(ite {v} {self._int(1)} {self._int(0)})"

    @staticmethod
    def _bool_op(op: Ops, a: str, b: str) -> str:
        if op is Ops.ADD or op is Ops.MAX:
            return f"(or {a} {b})"
        if op is Ops.MUL:
            return f"(and {a} {b})"
        if op is Ops.CMPLT:
            return f"(and (not {a}) {b})"
        if op is Ops.CMPNE:
            return f"(xor {a} {b})"
        raise NotEncodable(f"{op.name} on bool is not encoded")  # pragma: no cover

    def _floor_divmod(self, a: str, b: str) -> tuple[str, str]:
        key = (a, b)
        if key in self._divisions:
            return self._divisions[key]
        ka, kb = self.literals.get(a), self.literals.get(b)
        if ka is not None and kb is not None and kb != 0 and not (ka == I32_MIN and kb == -1):
            out = (self._int(ka // kb), self._int(ka % kb))
        elif self.wrap and kb is None:  # Z3Domain's bit-vector encoding of an unknown divisor (bvsdiv)
            truncated, rest = self._let(f"(bvsdiv {a} {b})"), self._let(f"(bvsrem {a} {b})")
            zero = self._int(0)
            step = self._let(
                f"(and (not (= {rest} {zero})) (xor {self._lt(rest, zero)} {self._lt(b, zero)}))", "Bool"
            )
            one = self._int(1)
            out = (
                self._let(f"(ite {step} (bvsub {truncated} {one}) {truncated})"),
                self._let(f"(ite {step} (bvadd {rest} {b}) {rest})"),
            )
        else:
            q, r = self._name("div", self._sort), self._name("mod", self._sort)
            zero = self._int(0)
            remainder = (
                f"(ite {self._lt(zero, b)} (and {self._le(zero, r)} {self._lt(r, b)}) "
                f"(and {self._lt(b, r)} {self._le(r, zero)}))"
            )
            nonzero = f"(not (= {b} {zero}))"
            if self.wrap:
                wide = [f"((_ sign_extend 32) {t})" for t in (a, b, q, r)]
                relation = f"(= {wide[0]} (bvadd (bvmul {wide[2]} {wide[1]}) {wide[3]}))"
                overflow = f"(and (= {a} {self._int(I32_MIN)}) (= {b} {self._int(-1)}))"
                self.hypotheses.append(f"(=> (and {nonzero} (not {overflow})) (and {relation} {remainder}))")
                self.hypotheses.append(f"(=> {overflow} (= {r} {zero}))")
            else:
                self.hypotheses.append(f"(=> {nonzero} (and (= {a} (+ (* {q} {b}) {r})) {remainder}))")
            out = (q, r)
        self._divisions[key] = out
        return out

    # -- asking z3
    def script(self) -> SmtScript:
        """The domain as one SMT-LIB script (its declarations, definitions and hypotheses), which a
        solver reads with `from_string`: z3 parses it into the solver directly, with no Python
        object made per assertion (parse_smt2_string and `add` took 0.9 ms of a Caviar check)."""
        hypotheses = (f"(assert {h})" for h in self.hypotheses)
        return SmtScript(
            "\n".join([*self.lines, *hypotheses]), self.params, self.ranges, self.wrap, self.checked
        )


@dataclass(frozen=True)
class SmtScript:
    """An SmtTextDomain's question as text, and its inputs by name: what proof.py asks of a domain.

    text: the declarations, definitions and hypotheses; params: slot -> (PARAM node, element
    names); ranges: RANGE identifier -> name; wrap: i32 values are bit-vectors; checked: the
    int semantics is "no_overflow"."""

    text: str
    param_names: dict[int, tuple[UOp, list[str]]]
    range_names: dict[Any, str]
    wrap: bool
    checked: bool

    def asserting(self, *terms: str) -> str:
        """The script with the given Bool terms (SMT-LIB text over its names) asserted too."""
        return "\n".join([self.text, *(f"(assert {t})" for t in terms)])

    def solver(self, solver: z3.Solver, *terms: str) -> z3.Solver:
        """solver with the script's hypotheses and the given terms asserted (z3 parses them)."""
        solver.from_string(self.asserting(*terms))
        return solver

    @property
    def params(self) -> dict[int, tuple[UOp, list[Any]]]:
        """slot -> (PARAM node, its elements as z3 variables of the current context), to read a model."""
        return {
            slot: (node, [self._variable(n, node.dtype) for n in names])
            for slot, (node, names) in self.param_names.items()
        }

    @property
    def ranges(self) -> dict[Any, Any]:
        """RANGE identifier -> its z3 variable in the current context, to read a model."""
        return {ident: self._variable(n, dtypes.i32) for ident, n in self.range_names.items()}

    def _variable(self, name: str, dtype: DType) -> Any:
        bare = name.strip("|")
        if dtype is dtypes.bool:
            return z3.Bool(bare)
        return z3.BitVec(bare, 32) if self.wrap else z3.Int(bare)


I32_MIN_TEXT = f"(- {-I32_MIN})"
