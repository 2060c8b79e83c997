"""One egglog rule under one assignment of types, as z3 hypotheses and obligations.

See saturation_rules.py for what is proved. The encoder walks the query (binding term variables,
primitives and interval bounds; every atom a hypothesis) and then the actions (each an obligation).
Types are chosen lazily: the first time a type variable (or an operand type that cannot be
inferred) is needed, the next entry of the assignment is taken, and `NeedType` asks the caller to
extend the assignment. An f32 value is kept as an opaque variable so that type checking completes;
`has_f32` then says the assignment is not to be proved.
"""

from __future__ import annotations

from typing import Any

import z3

from eqsat_uopc.ir.dtype import I32_MAX, I32_MIN, dtypes
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.verify.egg_text import EggRule, Str, show
from eqsat_uopc.verify.z3_encode import NotEncodable, Z3Domain, as_bool, conjunction

__all__ = ["F32", "TYPES", "Encoder", "IllTyped", "NeedType"]

TYPES = ("i32", "bool", "f32")
_BINARY = {"Add": Ops.ADD, "Mul": Ops.MUL, "Max": Ops.MAX, "Div": Ops.FLOORDIV, "Mod": Ops.FLOORMOD}
_COMPARE = {"Lt": Ops.CMPLT, "Ne": Ops.CMPNE}
_OPAQUE = {"Param", "Index", "Call", "Reduce", "Stack", "Reshape", "Expand", "Permute", "Shrink"}


def _is(term: tuple[Any, Any], built: tuple[Any, Any]) -> Any:
    """A term variable is the value `built` (a (value, defined) pair): defined alike, equal where defined."""
    (v, d), (bv, bd) = term, built
    return z3.And(as_bool(d) == as_bool(bd), z3.Implies(as_bool(d), v == bv))


def _k(v: Any) -> tuple[Any, Any]:
    """A primitive as an always-defined operand."""
    return v, True


def _mult(t: list, p: list, alu: Any) -> Any:
    return z3.Implies(as_bool(t[0][1]), z3.And(p[0] > 0, t[0][0] % p[0] == 0))


def _at_least(t: list, p: list, alu: Any) -> Any:
    return z3.Implies(z3.And(as_bool(t[0][1]), as_bool(t[1][1])), t[0][0] >= t[1][0] + p[0])


def _digit_of(t: list, p: list, alu: Any) -> Any:
    digit = alu(Ops.FLOORMOD, alu(Ops.FLOORDIV, t[1], _k(p[0])), _k(p[1]))
    return z3.And(p[0] > 0, p[1] > 0, _is(t[0], alu(Ops.MUL, digit, _k(p[2]))))


def _rem_of(t: list, p: list, alu: Any) -> Any:
    return z3.And(p[0] > 0, _is(t[0], alu(Ops.MUL, alu(Ops.FLOORMOD, t[1], _k(p[0])), _k(p[1]))))


def _quot_of(t: list, p: list, alu: Any) -> Any:
    return z3.And(p[0] > 0, _is(t[0], alu(Ops.MUL, alu(Ops.FLOORDIV, t[1], _k(p[0])), _k(p[1]))))


# the analyses' relations over i32 terms and i64 primitives: name -> (how many terms, how many
# primitives, what a fact claims; None: a question, no claim). A claim is a function of the terms'
# (value, defined) pairs, the primitives' values and `alu(op, *operands)` (the semantics' ALU on
# (value, defined) pairs). Declared in the schema (saturation/terms.py): Mult x c, x is a multiple
# of c; AtLeast b c m, b >= c + m. Declared by the digits family (views of a term shape, so that
# the claim is the term's value): DigitOf d x a b s, d = ((x // a) % b) * s; RemOf r x a s,
# r = (x % a) * s; QuotOf q x p m, q = (x // p) * m; each with positive divisors.
_RELATIONS: dict[str, tuple[int, int, Any]] = {
    "Mult": (1, 1, _mult),
    "AskMult": (1, 1, None),
    "AtLeast": (2, 1, _at_least),
    "Compared": (1, 0, None),
    "Narrow": (1, 0, None),
    "DigitOf": (2, 3, _digit_of),
    "RemOf": (2, 2, _rem_of),
    "QuotOf": (2, 2, _quot_of),
}


class IllTyped(Exception):
    """This assignment of types does not type-check: not a question."""


class NeedType(Exception):
    """The encoding needs one more type variable than the assignment gives."""


class F32(Exception):
    """This assignment has an f32 value: not proved."""


# ---------------------------------------------------------------------------
# encoding one rule under one assignment of types


def _type_name(field: Any) -> str | None:
    if not isinstance(field, Str):
        return None
    base = field.split("[", 1)[0]  # a shaped type: its ops are elementwise
    if base not in TYPES:
        raise NotEncodable(f"unknown type string {field!r}")
    return base


_DTYPE = {"i32": dtypes.i32, "bool": dtypes.bool}


class Encoder:
    """The z3 form of one rule at one typing: `hyps` (with `domain.hypotheses`) and, from
    `action`, the obligations; `lhs_constants` names the query's int32 constants, which `fixed`
    can pin to values (the instance fallback of saturation_rules.py)."""

    def __init__(
        self, rule: EggRule, assignment: tuple[str, ...], fixed: dict[str, int] | None = None
    ) -> None:
        self.rule = rule
        self.assignment = assignment
        self.fixed = fixed or {}
        self.lhs_constants: list[str] = []  # the i32 constants the query matches, in order
        self.used = 0
        # the semantics of the e-graph the form runs in: under "no_overflow" the mathematical
        # integers (saturation_rules.py), where an e-class's value may leave the int32 range
        self.integers = rule.int_semantics == "no_overflow"
        self.domain = Z3Domain("integers" if self.integers else rule.int_semantics, "int")
        self.type_vars: dict[str, str] = {}
        self.terms: dict[str, tuple[Any, Any, str]] = {}  # term variable -> (value, defined, type)
        self.prims: dict[str, Any] = {}
        self.bounds: dict[tuple[str, str], Any] = {}  # (lo|hi, variable) -> primitive
        self.hyps: list[Any] = []
        self.fresh = 0
        self.has_f32 = False

    # -- types
    def choose(self) -> str:
        if self.used >= len(self.assignment):
            raise NeedType
        t = self.assignment[self.used]
        self.used += 1
        return t

    def resolve(self, field: Any) -> str:
        lit = _type_name(field)
        if lit is None:
            if not isinstance(field, str):
                raise NotEncodable(f"type field {show(field)}")
            if field not in self.type_vars:
                self.type_vars[field] = self.choose()
            lit = self.type_vars[field]
        return lit

    def infer(self, term: Any) -> str | None:
        if isinstance(term, str) and not isinstance(term, Str):
            return self.terms[term][2] if term in self.terms else None
        if isinstance(term, list) and term:
            head = term[0]
            if head in ("Int", "Bool", "Flt", "Dbl"):
                return {"Int": "i32", "Bool": "bool"}.get(head, "f32")
            if len(term) > 1:
                lit = _type_name(term[1])
                if lit is not None or (isinstance(term[1], str) and term[1] in self.type_vars):
                    return self.resolve(term[1])
        return None

    # -- variables
    def new_term(
        self, name: str, typ: str, may_be_undefined: bool = True, int32: bool = False
    ) -> tuple[Any, Any, str]:
        """A term variable: an e-class's value. Under wraparound an i32 value is an int32; in the
        integers only an input (int32=True: a PARAM) is, any other e-class may hold a term whose
        exact value leaves the range."""
        if typ == "bool":
            v = z3.Bool(name)
        else:
            v = z3.Int(name)
            if typ == "i32":
                if int32 or not self.integers:
                    self.hyps.append(z3.And(v >= I32_MIN, v <= I32_MAX))
            else:  # an f32 value: kept only to type-check the rest; the assignment is not proved
                self.has_f32 = True
        d = z3.Bool(f"defined {name}") if may_be_undefined else True
        self.terms[name] = (v, d, typ)
        return self.terms[name]

    def opaque(self, typ: str, int32: bool = False) -> tuple[Any, Any]:
        self.fresh += 1
        v, d, _ = self.new_term(f"$opaque{self.fresh}", typ, int32=int32)
        return v, d

    # -- terms
    def term(self, t: Any, expected: str | None, lhs: bool) -> tuple[Any, Any, str]:
        if isinstance(t, str) and not isinstance(t, Str):
            if t in self.terms:
                v, d, typ = self.terms[t]
                if expected is not None and typ != expected:
                    raise IllTyped
                return v, d, typ
            if not lhs:
                raise NotEncodable(f"right-hand side uses the unbound variable {t}")
            return self.new_term(t, expected or self.choose())
        if not isinstance(t, list) or not t:
            raise NotEncodable(f"term {show(t)}")
        head = t[0]
        if head == "Int":
            self._expect(expected, "i32")
            v, conds = self.prim_const(t[1], lhs, int_range=True)
            return v, conjunction(conds), "i32"
        if head == "Bool":
            self._expect(expected, "bool")
            v, conds = self.prim_const(t[1], lhs, int_range=False)
            return v, conjunction(conds), "bool"
        if head in ("Flt", "Dbl"):
            self._expect(expected, "f32")
            return (*self.opaque("f32"), "f32")
        typ = self.resolve(t[1])
        self._expect(expected, typ)
        if head in _BINARY:
            if typ != "i32" and head in ("Div", "Mod"):
                raise IllTyped  # FLOORDIV and FLOORMOD are i32-only: no such term exists
            a = self.term(t[2], typ, lhs)
            b = self.term(t[3], typ, lhs)
            if typ == "f32":
                return (*self.opaque("f32"), "f32")
            v, defined = self.domain.alu(None, _BINARY[head], _DTYPE[typ], _DTYPE[typ], [a[:2], b[:2]])
            return v, defined, typ
        if head in _COMPARE:
            self._expect(typ, "bool")
            operand = self.infer(t[2]) or self.infer(t[3]) or self.choose()
            a = self.term(t[2], operand, lhs)
            b = self.term(t[3], operand, lhs)
            if operand == "f32":
                return (*self.opaque("bool"), "bool")
            v, defined = self.domain.alu(None, _COMPARE[head], dtypes.bool, _DTYPE[operand], [a[:2], b[:2]])
            return v, defined, typ
        if head == "Where":
            c = self.term(t[2], "bool", lhs)
            a = self.term(t[3], typ, lhs)
            b = self.term(t[4], typ, lhs)
            if typ == "f32":
                return (*self.opaque("f32"), "f32")
            v, defined = self.domain.alu(None, Ops.WHERE, _DTYPE[typ], _DTYPE[typ], [c[:2], a[:2], b[:2]])
            return v, defined, typ
        if head == "Cast":
            src = self.infer(t[2]) or self.choose()
            x = self.term(t[2], src, lhs)
            if "f32" in (src, typ):
                self.has_f32 = True
                return (*self.opaque(typ), typ)
            v, defined = self.domain.alu(None, Ops.CAST, _DTYPE[typ], _DTYPE[src], [x[:2]])
            return v, defined, typ
        if head == "Range" and lhs:
            self._expect(typ, "i32")
            n = self.term(t[2], "i32", lhs)
            v, _ = self.opaque("i32", int32=True)  # a loop variable: an int32 below its extent
            self.hyps.append(z3.Implies(as_bool(n[1]), z3.And(v >= 0, v < n[0])))
            return v, n[1], typ
        if head in _OPAQUE and lhs:
            v, defined = (
                self.opaque(typ)
                if head != "Param"
                else self.new_term(f"$param{self.fresh}", typ, False, int32=True)[:2]
            )
            self.fresh += 1
            return v, defined, typ
        raise NotEncodable(f"constructor {head} on the {'left' if lhs else 'right'}-hand side")

    @staticmethod
    def _expect(expected: str | None, typ: str) -> None:
        if expected is not None and expected != typ:
            raise IllTyped

    def prim_const(self, x: Any, lhs: bool, int_range: bool) -> tuple[Any, list[Any]]:
        """The value of an (Int x) / (Bool x) field, and the conditions for it to exist."""
        if (
            isinstance(x, str)
            and not isinstance(x, Str)
            and x not in ("true", "false")
            and x not in self.prims
        ):
            if not lhs:
                raise NotEncodable(f"right-hand side uses the unbound primitive {x}")
            if int_range:
                self.lhs_constants.append(x)
            if int_range and x in self.fixed:
                self.prims[x] = z3.IntVal(self.fixed[x])
            else:
                self.prims[x] = z3.Int(x) if int_range else z3.Bool(x)
            if int_range:
                self.hyps.append(z3.And(self.prims[x] >= I32_MIN, self.prims[x] <= I32_MAX))
            return self.prims[x], []
        v, conds = self.prim(x)
        if int_range:
            conds = [*conds, v >= I32_MIN, v <= I32_MAX]  # a constant the rule builds must be an int32
        return v, conds

    # -- egglog primitives (i64, bool)
    def prim(self, x: Any) -> tuple[Any, list[Any]]:
        if isinstance(x, bool):
            return z3.BoolVal(x), []
        if isinstance(x, int):
            return z3.IntVal(x), []
        if x == "true" or x == "false":
            return z3.BoolVal(x == "true"), []
        if isinstance(x, str) and not isinstance(x, Str):
            if x not in self.prims:
                raise NotEncodable(f"unbound primitive {x}")
            return self.prims[x], []
        if not isinstance(x, list) or not x:
            raise NotEncodable(f"primitive {show(x)}")
        head, args = x[0], x[1:]
        if head in ("lo", "hi"):
            return self.bound(head, args[0]), []
        vals, conds = [], []
        for a in args:
            v, c = self.prim(a)
            vals.append(v)
            conds += c
        if head == "-" and len(vals) == 1:
            return -vals[0], conds
        if head in ("+", "-", "*") and len(vals) == 2:
            a, b = vals
            return (a + b if head == "+" else a - b if head == "-" else a * b), conds
        if head in ("/", "%") and len(vals) == 2:
            a, b = vals
            q = z3.If(
                a >= 0,
                z3.If(b > 0, a / b, -(a / -b)),
                z3.If(b > 0, -((-a) / b), (-a) / (-b)),
            )  # truncating, from z3's euclidean division of non-negative numbers
            return (q if head == "/" else a - b * q), [*conds, b != 0]
        if head == "&" and len(vals) == 2 and 2**32 - 1 in args:
            other = vals[1] if args[0] == 2**32 - 1 else vals[0]
            return other % 2**32, conds  # the low 32 bits, as a non-negative i64
        if head == "&" and len(vals) == 2:  # i64 bitwise and, through 64-bit vectors
            a, b = (z3.Int2BV(v, 64) for v in vals)
            return z3.BV2Int(a & b, is_signed=True), conds
        if head in ("min", "max") and len(vals) == 2:
            a, b = vals
            return (z3.If(a < b, a, b) if head == "min" else z3.If(a > b, a, b)), conds
        if head in ("and", "or", "xor") and len(vals) == 2:
            f = {"and": z3.And, "or": z3.Or, "xor": z3.Xor}[head]
            return f(*vals), conds
        if head == "not" and len(vals) == 1:
            return z3.Not(vals[0]), conds
        raise NotEncodable(f"primitive {head} with {len(vals)} argument(s)")

    def bound(self, which: str, var: Any) -> Any:
        """(lo var) / (hi var): a primitive the analysis promises to bound var's value by."""
        if not isinstance(var, str) or isinstance(var, Str):
            raise NotEncodable(f"({which} {show(var)}) of a non-variable")
        if var not in self.terms:
            self.new_term(var, "i32")
        key = (which, var)
        if key not in self.bounds:
            v, d, typ = self.terms[var]
            if typ != "i32":
                raise IllTyped
            b = self.bounds[key] = z3.Int(f"{which}({var})")
            self.hyps.append(z3.Implies(as_bool(d), b <= v if which == "lo" else v <= b))
        return self.bounds[key]

    def type_of(self, var: Any, typ: str) -> None:
        """(= (ty var) T): the schema's type analysis says var has type T; a typing where it has
        another type cannot match, so it is not a question (IllTyped)."""
        if not isinstance(var, str) or isinstance(var, Str):
            raise NotEncodable(f"(ty {show(var)})")
        if var not in self.terms:
            self.new_term(var, typ)
        else:
            self._expect(typ, self.terms[var][2])

    def relation(self, atom: list) -> Any:
        """A relation atom (Rel x... c...) over i32 term variables and primitives: what it claims."""
        head, args = atom[0], atom[1:]
        terms, prims, claim = _RELATIONS[head]
        if len(args) != terms + prims or any(
            not isinstance(a, str) or isinstance(a, Str) for a in args[:terms]
        ):
            raise NotEncodable(f"relation atom {show(atom)}")
        operands = []
        for var in args[:terms]:
            if var not in self.terms:
                self.new_term(var, "i32")
            v, d, typ = self.terms[var]
            if typ != "i32":
                raise IllTyped
            operands.append((v, d))
        values = []
        for k in args[terms:]:
            if isinstance(k, str) and not isinstance(k, Str) and k not in self.prims:
                # a new primitive is pinned like an (Int k) of the query
                kv, conds = self.prim_const(k, lhs=True, int_range=True)
            else:
                kv, conds = self.prim(k)
            self.hyps += conds
            values.append(kv)
        return True if claim is None else claim(operands, values, self._alu)

    def _alu(self, op: Ops, *operands: tuple[Any, Any]) -> tuple[Any, Any]:
        """An i32 op of the rule's semantics on (value, defined) pairs."""
        return self.domain.alu(None, op, dtypes.i32, dtypes.i32, list(operands))

    # -- query and actions
    def query(self, atom: Any) -> None:
        if not isinstance(atom, list) or not atom:
            raise NotEncodable(f"query atom {show(atom)}")
        head, args = atom[0], atom[1:]
        if head in _RELATIONS:
            self.hyps.append(self.relation(atom))
            return
        if head == "=" and len(args) == 2 and isinstance(args[0], list) and args[0][:1] == ["ty"]:
            self.type_of(args[0][1], self.resolve(args[1]))
            return
        if head == "=" and len(args) == 2:
            a, b = args
            if _is_term(b) or (isinstance(a, str) and a in self.terms and not _is_prim_expr(b)):
                if isinstance(a, str) and not isinstance(a, Str) and a not in self.terms:
                    self.terms[a] = self.term(b, None, lhs=True)
                    return
                va, da, ta = self.term(a, None, lhs=True)
                vb, db, _ = self.term(b, ta, lhs=True)
                self.hyps.append(as_bool(da) == as_bool(db))
                self.hyps.append(z3.Implies(as_bool(da), va == vb))
                return
            if isinstance(a, str) and not isinstance(a, Str) and a not in self.prims and a not in self.terms:
                v, conds = self.prim(b)
                self.prims[a] = v
                self.hyps += conds
                return
            va, ca = self.prim(a)
            vb, cb = self.prim(b)
            self.hyps += [*ca, *cb, va == vb]
            return
        if head in ("<", "<=", ">", ">=", "!=") and len(args) == 2:
            (va, ca), (vb, cb) = self.prim(args[0]), self.prim(args[1])
            rel = {"<": va < vb, "<=": va <= vb, ">": va > vb, ">=": va >= vb, "!=": va != vb}[head]
            self.hyps += [*ca, *cb, rel]
            return
        raise NotEncodable(f"query atom {show(atom)}")

    def action(self, act: Any) -> Any:
        if not isinstance(act, list) or not act:
            raise NotEncodable(f"action {show(act)}")
        head, args = act[0], act[1:]
        if head == "union" and len(args) == 2:
            ve, de, te = self.term(args[0], None, lhs=False)
            vr, dr, _ = self.term(args[1], te, lhs=False)
            return z3.Implies(as_bool(de), z3.And(as_bool(dr), ve == vr))
        if head == "let" and len(args) == 2 and isinstance(args[0], str) and not isinstance(args[0], Str):
            self.terms[args[0]] = self.term(args[1], None, lhs=False)  # names a new term: no claim
            return z3.BoolVal(True)
        if head == "subsume":  # hides a term from matching and extraction: no claim about values
            return z3.BoolVal(True)
        if head in _RELATIONS:
            return z3.BoolVal(True) if (claim := self.relation(act)) is True else claim
        if _is_term(act):  # adds a term (a question for other rules to answer): no claim about values
            self.term(act, None, lhs=False)
            return z3.BoolVal(True)
        if head == "set" and len(args) == 2 and isinstance(args[0], list) and args[0][0] in ("lo", "hi"):
            which, var = args[0][0], args[0][1]
            ve, de, te = self.term(var, "i32", lhs=False)
            v, conds = self.prim(args[1])
            holds = v <= ve if which == "lo" else ve <= v
            return z3.Implies(as_bool(de), z3.And(*conds, holds)) if conds else z3.Implies(as_bool(de), holds)
        raise NotEncodable(f"action {show(act)}")


def _is_term(x: Any) -> bool:
    return isinstance(x, list) and bool(x) and isinstance(x[0], str) and x[0][:1].isupper()


def _is_prim_expr(x: Any) -> bool:
    return not _is_term(x)
