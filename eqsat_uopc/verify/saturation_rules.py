"""verify_saturation_rules: prove the egglog rules of rules/*.egg with z3, for every constant at once.

A saturation rule is egglog text: `(rewrite LHS RHS)`, `(birewrite LHS RHS)` (checked both ways),
or `(rule (QUERY ...) (ACTIONS ...))`. Its terms are the IR's ops in the encoding of
eqsat_uopc/saturate/terms.py (`(Add t x (Int c))`, `(Lt t a b)`, ...); its query may also bind
egglog primitives (`(= q (/ a b))`), compare them (`(> c 0)`) and read the interval analysis
(`(lo x)`, `(hi x)`). This module reads that text and turns each rule into one z3 question:

    hypotheses: the query's atoms, every term variable a value of its type that may be undefined,
                every (Int c) of the query an int32, (lo x) <= x <= (hi x) for a defined x
    obligation: for `(union e RHS)`: wherever e is defined, RHS is defined and equal (a refinement,
                as for the greedy rules; a constant built on the right-hand side must be an int32);
                for `(set (lo e) v)` / `(set (hi e) v)`: v <= e / e <= v wherever e is defined

so the guards are the hypotheses, and the proof covers every value of every constant, not a sample.
The semantics is the rule's declaration: rulesets ending in `_noovf` are "no_overflow", the others
(including the `_guarded` ones, which must prove their precondition in the query) "wrap"; i32 values
are integers with explicit wraparound (z3_encode.py, wrap_encoding "int"), so egglog's i64
primitives and the IR's values live in one theory. egglog's `/` and `%` truncate (as in Rust); `&`
is supported with the mask 2**32 - 1 that fold.egg uses for wraparound.

A rule's type variables (`t`) range over i32, bool and f32; each well-typed assignment is a separate
question. f32 typings are not proved: a rewrite's are tested on random inputs (egg_float.py), a
`rule`'s are reported as `f32_untested`. A rule whose text uses something this reader does not
model is "not_attempted" (with the reason); one whose hypotheses are contradictory is "vacuous"
rather than "proved". Shaped types need no separate proof: every op these rules rewrite is
elementwise.

Semantics of a union: e-graphs treat it as an equality, but in a graph where some terms may be
undefined (x // 0) the claim checked is the refinement lhs -> rhs, as for a greedy rewrite.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import z3

from ..dtype import dtypes
from ..ops import Ops
from .z3_encode import NotEncodable, Z3Domain, as_bool, conjunction

__all__ = ["EggRule", "EggRuleVerification", "parse_egg_rules", "verify_egg_rule", "verify_saturation_rules"]

_I32_MIN, _I32_MAX = -(2**31), 2**31 - 1
_TYPES = ("i32", "bool", "f32")
_BINARY = {"Add": Ops.ADD, "Mul": Ops.MUL, "Max": Ops.MAX, "Div": Ops.FLOORDIV, "Mod": Ops.FLOORMOD}
_COMPARE = {"Lt": Ops.CMPLT, "Ne": Ops.CMPNE}
_OPAQUE = {"Param", "Index", "Call", "Reduce", "Stack", "Reshape", "Expand", "Permute", "Shrink"}


class _Str(str):
    """A string literal of the egglog text (a type string), as opposed to a symbol."""


class _IllTyped(Exception):
    """This assignment of types does not type-check: not a question."""


class _NeedType(Exception):
    """The encoding needs one more type variable than the assignment gives."""


class _F32(Exception):
    """This assignment has an f32 value: not proved."""


# ---------------------------------------------------------------------------
# reading the text


_TOKEN = re.compile(r'\s+|;[^\n]*|"(?:[^"\\]|\\.)*"|[()]|[^\s()";]+')


def _sexprs(text: str) -> list[Any]:
    stack: list[list[Any]] = [[]]
    for m in _TOKEN.finditer(text):
        tok = m.group(0)
        if tok[0].isspace() or tok[0] == ";":
            continue
        if tok == "(":
            stack.append([])
        elif tok == ")":
            if len(stack) == 1:
                raise ValueError(f"unbalanced ')' at offset {m.start()}")
            done = stack.pop()
            stack[-1].append(done)
        elif tok[0] == '"':
            stack[-1].append(_Str(tok[1:-1]))
        elif re.fullmatch(r"-?\d+", tok):
            stack[-1].append(int(tok))
        else:
            stack[-1].append(tok)
    if len(stack) != 1:
        raise ValueError("unbalanced '(' at the end of the text")
    return stack[0]


def _show(x: Any) -> str:
    if isinstance(x, list):
        return "(" + " ".join(_show(e) for e in x) + ")"
    return f'"{x}"' if isinstance(x, _Str) else str(x)


@dataclass(frozen=True)
class EggRule:
    """One rule (one direction of a birewrite) as query atoms and actions."""

    name: str
    ruleset: str
    int_semantics: str
    query: tuple[Any, ...]
    actions: tuple[Any, ...]

    def __str__(self) -> str:
        q = " ".join(_show(a) for a in self.query)
        a = " ".join(_show(x) for x in self.actions)
        return f"{self.name}: {q} => {a}"


def _options(form: list[Any], start: int) -> dict[str, Any]:
    """`:key value` options after the rule proper; a flag with no value (`:subsume`) maps to True."""
    opts: dict[str, Any] = {}
    i = start
    while i < len(form):
        key = form[i]
        if isinstance(key, str) and not isinstance(key, _Str) and key.startswith(":"):
            nxt = form[i + 1] if i + 1 < len(form) else None
            if nxt is None or (isinstance(nxt, str) and not isinstance(nxt, _Str) and nxt.startswith(":")):
                opts[key] = True
                i += 1
                continue
            opts[key] = nxt
            i += 2
            continue
        i += 1
    return opts


def parse_egg_rules(text: str) -> list[EggRule]:
    """The rules of an egglog program (rewrite, birewrite in both directions, rule)."""
    out = []
    for form in _sexprs(text):
        if not isinstance(form, list) or not form or form[0] not in ("rewrite", "birewrite", "rule"):
            continue
        opts = _options(form, 3)
        ruleset = str(opts.get(":ruleset", ""))
        name = str(opts.get(":name", f"{form[0]}@{len(out)}"))
        sem = "no_overflow" if ruleset.endswith("_noovf") else "wrap"
        if form[0] == "rule":
            out.append(EggRule(name, ruleset, sem, tuple(form[1]), tuple(form[2])))
            continue
        lhs, rhs = form[1], form[2]
        out.append(EggRule(name, ruleset, sem, (["=", "$e", lhs],), (["union", "$e", rhs],)))
        if form[0] == "birewrite":
            out.append(
                EggRule(f"{name} (reversed)", ruleset, sem, (["=", "$e", rhs],), (["union", "$e", lhs],))
            )
    return out


# ---------------------------------------------------------------------------
# encoding one rule under one assignment of types


def _type_name(field: Any) -> str | None:
    if not isinstance(field, _Str):
        return None
    base = field.split("[", 1)[0]  # a shaped type: its ops are elementwise
    if base not in _TYPES:
        raise NotEncodable(f"unknown type string {field!r}")
    return base


_DTYPE = {"i32": dtypes.i32, "bool": dtypes.bool}


class _Encoder:
    def __init__(
        self, rule: EggRule, assignment: tuple[str, ...], fixed: dict[str, int] | None = None
    ) -> None:
        self.rule = rule
        self.assignment = assignment
        self.fixed = fixed or {}
        self.lhs_constants: list[str] = []  # the i32 constants the query matches, in order
        self.used = 0
        self.domain = Z3Domain(rule.int_semantics, "int")
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
            raise _NeedType
        t = self.assignment[self.used]
        self.used += 1
        return t

    def resolve(self, field: Any) -> str:
        lit = _type_name(field)
        if lit is None:
            if not isinstance(field, str):
                raise NotEncodable(f"type field {_show(field)}")
            if field not in self.type_vars:
                self.type_vars[field] = self.choose()
            lit = self.type_vars[field]
        return lit

    def infer(self, term: Any) -> str | None:
        if isinstance(term, str) and not isinstance(term, _Str):
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
    def new_term(self, name: str, typ: str, may_be_undefined: bool = True) -> tuple[Any, Any, str]:
        if typ == "bool":
            v = z3.Bool(name)
        else:
            v = z3.Int(name)
            if typ == "i32":
                self.hyps.append(z3.And(v >= _I32_MIN, v <= _I32_MAX))
            else:  # an f32 value: kept only to type-check the rest; the assignment is not proved
                self.has_f32 = True
        d = z3.Bool(f"defined {name}") if may_be_undefined else True
        self.terms[name] = (v, d, typ)
        return self.terms[name]

    def opaque(self, typ: str) -> tuple[Any, Any]:
        self.fresh += 1
        v, d, _ = self.new_term(f"$opaque{self.fresh}", typ)
        return v, d

    # -- terms
    def term(self, t: Any, expected: str | None, lhs: bool) -> tuple[Any, Any, str]:
        if isinstance(t, str) and not isinstance(t, _Str):
            if t in self.terms:
                v, d, typ = self.terms[t]
                if expected is not None and typ != expected:
                    raise _IllTyped
                return v, d, typ
            if not lhs:
                raise NotEncodable(f"right-hand side uses the unbound variable {t}")
            return self.new_term(t, expected or self.choose())
        if not isinstance(t, list) or not t:
            raise NotEncodable(f"term {_show(t)}")
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
            if typ == "f32" and head in ("Div", "Mod"):
                raise _IllTyped  # FLOORDIV and FLOORMOD are i32-only
            a = self.term(t[2], typ, lhs)
            b = self.term(t[3], typ, lhs)
            if typ == "f32":
                return (*self.opaque("f32"), "f32")
            v, defined = self.domain.alu(_BINARY[head], _DTYPE[typ], _DTYPE[typ], [a[:2], b[:2]])
            return v, defined, typ
        if head in _COMPARE:
            self._expect(typ, "bool")
            operand = self.infer(t[2]) or self.infer(t[3]) or self.choose()
            a = self.term(t[2], operand, lhs)
            b = self.term(t[3], operand, lhs)
            if operand == "f32":
                return (*self.opaque("bool"), "bool")
            v, defined = self.domain.alu(_COMPARE[head], dtypes.bool, _DTYPE[operand], [a[:2], b[:2]])
            return v, defined, typ
        if head == "Where":
            c = self.term(t[2], "bool", lhs)
            a = self.term(t[3], typ, lhs)
            b = self.term(t[4], typ, lhs)
            if typ == "f32":
                return (*self.opaque("f32"), "f32")
            v, defined = self.domain.alu(Ops.WHERE, _DTYPE[typ], _DTYPE[typ], [c[:2], a[:2], b[:2]])
            return v, defined, typ
        if head == "Cast":
            src = self.infer(t[2]) or self.choose()
            x = self.term(t[2], src, lhs)
            if "f32" in (src, typ):
                self.has_f32 = True
                return (*self.opaque(typ), typ)
            v, defined = self.domain.alu(Ops.CAST, _DTYPE[typ], _DTYPE[src], [x[:2]])
            return v, defined, typ
        if head == "Range" and lhs:
            self._expect(typ, "i32")
            n = self.term(t[2], "i32", lhs)
            v, _ = self.opaque("i32")
            self.hyps.append(z3.Implies(as_bool(n[1]), z3.And(v >= 0, v < n[0])))
            return v, n[1], typ
        if head in _OPAQUE and lhs:
            v, defined = (
                self.opaque(typ) if head != "Param" else self.new_term(f"$param{self.fresh}", typ, False)[:2]
            )
            self.fresh += 1
            return v, defined, typ
        raise NotEncodable(f"constructor {head} on the {'left' if lhs else 'right'}-hand side")

    @staticmethod
    def _expect(expected: str | None, typ: str) -> None:
        if expected is not None and expected != typ:
            raise _IllTyped

    def prim_const(self, x: Any, lhs: bool, int_range: bool) -> tuple[Any, list[Any]]:
        """The value of an (Int x) / (Bool x) field, and the conditions for it to exist."""
        if (
            isinstance(x, str)
            and not isinstance(x, _Str)
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
                self.hyps.append(z3.And(self.prims[x] >= _I32_MIN, self.prims[x] <= _I32_MAX))
            return self.prims[x], []
        v, conds = self.prim(x)
        if int_range:
            conds = [*conds, v >= _I32_MIN, v <= _I32_MAX]  # a constant the rule builds must be an int32
        return v, conds

    # -- egglog primitives (i64, bool)
    def prim(self, x: Any) -> tuple[Any, list[Any]]:
        if isinstance(x, bool):
            return z3.BoolVal(x), []
        if isinstance(x, int):
            return z3.IntVal(x), []
        if x == "true" or x == "false":
            return z3.BoolVal(x == "true"), []
        if isinstance(x, str) and not isinstance(x, _Str):
            if x not in self.prims:
                raise NotEncodable(f"unbound primitive {x}")
            return self.prims[x], []
        if not isinstance(x, list) or not x:
            raise NotEncodable(f"primitive {_show(x)}")
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
        if not isinstance(var, str) or isinstance(var, _Str):
            raise NotEncodable(f"({which} {_show(var)}) of a non-variable")
        if var not in self.terms:
            self.new_term(var, "i32")
        key = (which, var)
        if key not in self.bounds:
            v, d, typ = self.terms[var]
            if typ != "i32":
                raise _IllTyped
            b = self.bounds[key] = z3.Int(f"{which}({var})")
            self.hyps.append(z3.Implies(as_bool(d), b <= v if which == "lo" else v <= b))
        return self.bounds[key]

    # -- query and actions
    def query(self, atom: Any) -> None:
        if not isinstance(atom, list) or not atom:
            raise NotEncodable(f"query atom {_show(atom)}")
        head, args = atom[0], atom[1:]
        if head == "=" and len(args) == 2:
            a, b = args
            if _is_term(b) or (isinstance(a, str) and a in self.terms and not _is_prim_expr(b)):
                if isinstance(a, str) and not isinstance(a, _Str) and a not in self.terms:
                    self.terms[a] = self.term(b, None, lhs=True)
                    return
                va, da, ta = self.term(a, None, lhs=True)
                vb, db, _ = self.term(b, ta, lhs=True)
                self.hyps.append(as_bool(da) == as_bool(db))
                self.hyps.append(z3.Implies(as_bool(da), va == vb))
                return
            if isinstance(a, str) and not isinstance(a, _Str) and a not in self.prims and a not in self.terms:
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
        raise NotEncodable(f"query atom {_show(atom)}")

    def action(self, act: Any) -> Any:
        if not isinstance(act, list) or not act:
            raise NotEncodable(f"action {_show(act)}")
        head, args = act[0], act[1:]
        if head == "union" and len(args) == 2:
            ve, de, te = self.term(args[0], None, lhs=False)
            vr, dr, _ = self.term(args[1], te, lhs=False)
            return z3.Implies(as_bool(de), z3.And(as_bool(dr), ve == vr))
        if head == "subsume":  # hides a term from matching and extraction: no claim about values
            return z3.BoolVal(True)
        if head == "set" and len(args) == 2 and isinstance(args[0], list) and args[0][0] in ("lo", "hi"):
            which, var = args[0][0], args[0][1]
            ve, de, te = self.term(var, "i32", lhs=False)
            v, conds = self.prim(args[1])
            holds = v <= ve if which == "lo" else ve <= v
            return z3.Implies(as_bool(de), z3.And(*conds, holds)) if conds else z3.Implies(as_bool(de), holds)
        raise NotEncodable(f"action {_show(act)}")


def _is_term(x: Any) -> bool:
    return isinstance(x, list) and bool(x) and isinstance(x[0], str) and x[0][:1].isupper()


def _is_prim_expr(x: Any) -> bool:
    return not _is_term(x)


# ---------------------------------------------------------------------------
# verification


@dataclass
class EggRuleVerification:
    """What verify_egg_rule found for one rule (one direction of a birewrite)."""

    rule: str
    ruleset: str
    int_semantics: str
    # "proved" (for every constant), "tested" (proved on random constants, the symbolic question was
    # too hard), "refuted", "unknown", "vacuous", or "not_attempted"
    status: str = "not_attempted"
    typings: int = 0  # well-typed assignments of the rule's types that were checked
    instances: int = 0  # "tested": constant instances proved (vacuous ones not counted)
    f32_tested: int = 0  # inputs compared by random testing of the f32 typings
    f32_untested: bool = False  # some well-typed f32 typing could not be tested
    counterexample: dict[str, Any] | None = None
    reason: str = ""

    @property
    def sound(self) -> bool:
        return self.status != "refuted"

    def __str__(self) -> str:
        text = f"{self.rule} [{self.int_semantics}]: {self.status}"
        if self.instances:
            text += f" on {self.instances} constant instances"
        if self.typings > 1:
            text += f" ({self.typings} typings)"
        if self.f32_tested:
            text += f" (f32: {self.f32_tested} random inputs)"
        if self.f32_untested:
            text += " (f32 not tested)"
        if self.counterexample is not None:
            text += f"; counterexample: {self.counterexample}"
        if self.reason:
            text += f" ({self.reason})"
        return text


def _model_value(m: z3.ModelRef, v: Any) -> Any:
    r = m.eval(v, model_completion=True)
    if z3.is_true(r) or z3.is_false(r):
        return z3.is_true(r)
    return r.as_long()


def _counterexample(enc: _Encoder, m: z3.ModelRef) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, (v, d, _) in enc.terms.items():
        if name.startswith("$"):
            continue
        defined = d is True or z3.is_true(m.eval(d, model_completion=True))
        out[name] = _model_value(m, v) if defined else "undefined"
    for name, v in enc.prims.items():
        if name not in out:
            out[name] = _model_value(m, v)
    return out


def _encode(
    rule: EggRule, assignment: tuple[str, ...], fixed: dict[str, int] | None
) -> tuple[_Encoder, list]:
    enc = _Encoder(rule, assignment, fixed)
    for atom in rule.query:
        enc.query(atom)
    goals = [enc.action(a) for a in rule.actions]
    if enc.has_f32:
        raise _F32
    return enc, goals


def _typings(rule: EggRule) -> tuple[list[tuple[str, ...]], list[dict[str, str]]]:
    """The well-typed assignments of the rule's type variables that have no f32 value, and the
    types of the term variables in each well-typed assignment that has one."""
    out, f32, pending = [], [], [()]
    while pending:
        assignment = pending.pop()
        enc = _Encoder(rule, assignment, None)
        try:
            for atom in rule.query:
                enc.query(atom)
            for a in rule.actions:
                enc.action(a)
        except _NeedType:
            pending.extend((*assignment, t) for t in reversed(_TYPES))
            continue
        except _IllTyped:
            continue
        if enc.has_f32:
            f32.append({name: typ for name, (_, _, typ) in enc.terms.items()})
        else:
            out.append(assignment)
    return out, f32


def _test_f32(
    rule: EggRule, f32: list[dict[str, str]], report: EggRuleVerification, samples: int, seed: int
) -> None:
    """Random testing of the f32 typings of a rewrite (egg_float.py); sets report fields."""
    from .egg_float import Untestable, random_test_f32

    rewrite = len(rule.query) == 1 and len(rule.actions) == 1 and rule.query[0][:2] == ["=", "$e"]
    if not rewrite or rule.actions[0][:2] != ["union", "$e"]:
        report.f32_untested = True
        return
    lhs, rhs = rule.query[0][2], rule.actions[0][2]
    for k, var_types in enumerate(f32):
        try:
            compared, cex = random_test_f32(lhs, rhs, var_types, samples, f"{seed}:{rule.name}:{k}")
        except Untestable:
            report.f32_untested = True
            return
        report.f32_tested += compared
        if cex is not None:
            report.status, report.counterexample = "refuted", cex
            report.reason = "f32, by random testing"
            return


_EDGES = (
    0,
    1,
    -1,
    2,
    -2,
    3,
    -3,
    4,
    -4,
    7,
    8,
    -8,
    12,
    16,
    2**30,
    _I32_MAX,
    _I32_MIN,
    _I32_MAX - 1,
    _I32_MIN + 1,
)


def _constants(rng: random.Random, names: list[str]) -> dict[str, int]:
    """Edge-biased int32 constants; often a multiple of an earlier one (divisibility guards)."""
    out: dict[str, int] = {}
    for n in names:
        p = rng.random()
        if out and p < 0.3:
            v = rng.choice(list(out.values())) * rng.choice((1, 2, 3, -1, -2))
        elif p < 0.7:
            v = rng.choice(_EDGES)
        elif p < 0.9:
            v = rng.randint(-20, 20)
        else:
            v = rng.randint(_I32_MIN, _I32_MAX)
        out[n] = max(_I32_MIN, min(_I32_MAX, v))
    return out


def verify_egg_rule(
    rule: EggRule,
    rlimit: int = 2_000_000,
    instances: int = 24,
    seed: int = 0,
    timeout_ms: int = 20_000,
    f32_samples: int = 200,
) -> EggRuleVerification:
    """Prove one rule under its declared semantics, for every well-typed assignment of its types.

    Each question gets a z3 resource budget (rlimit, deterministic; timeout_ms is only a safety
    net). A question too hard for it symbolically (a product or a division of two symbolic
    constants is non-linear) is asked again with the query's constants fixed to `instances`
    random edge-biased values: each of those is linear, and the rule is then "tested". The f32
    typings of a rewrite are tested on f32_samples random inputs (egg_float.py).
    """
    report = EggRuleVerification(rule.name, rule.ruleset, rule.int_semantics)
    try:
        typings, f32 = _typings(rule)
    except NotEncodable as e:
        report.status, report.reason = "not_attempted", str(e)
        return report
    if f32:
        _test_f32(rule, f32, report, f32_samples, seed)
        if report.status == "refuted":
            return report
    if not typings:
        if f32 and not report.f32_untested:
            report.status = "tested"
        else:
            report.reason = "every well-typed assignment has f32 values" if f32 else "no typing"
        return report
    report.typings = len(typings)
    statuses = []
    for assignment in typings:
        enc, goals = _encode(rule, assignment, None)
        status, detail = _prove(enc, goals, rlimit, timeout_ms)
        if status == "unknown" and enc.lhs_constants:
            status, detail = _prove_instances(
                rule, assignment, enc.lhs_constants, report, rlimit, timeout_ms, instances, seed
            )
        statuses.append(status)
        if status == "refuted":
            report.status, report.counterexample = "refuted", detail
            return report
        if status == "unknown":
            report.reason = detail
    for status in ("unknown", "vacuous", "tested"):
        if status in statuses:
            report.status = status
            if status == "vacuous":
                report.reason = "its hypotheses are contradictory"
            return report
    report.status = "proved"
    return report


def _prove_instances(
    rule: EggRule,
    assignment: tuple[str, ...],
    names: list[str],
    report: EggRuleVerification,
    rlimit: int,
    timeout_ms: int,
    instances: int,
    seed: int,
) -> tuple[str, Any]:
    rng = random.Random(f"{seed}:{rule.name}:{assignment}")
    proved = unknown = 0
    for _ in range(instances * 8):
        if proved >= instances:
            break
        enc, goals = _encode(rule, assignment, _constants(rng, names))
        status, detail = _prove(enc, goals, rlimit, timeout_ms)
        if status == "refuted":
            return status, detail
        proved += status == "proved"
        unknown += status == "unknown"
    report.instances += proved
    if proved == 0:
        return "unknown", f"too hard for z3 symbolically and on {unknown} constant instances"
    return "tested", ""


def _prove(enc: _Encoder, goals: list[Any], rlimit: int, timeout_ms: int) -> tuple[str, Any]:
    s = z3.Solver()
    s.set("timeout", int(timeout_ms))
    s.set("rlimit", int(rlimit))
    s.add(*enc.hyps, *enc.domain.hypotheses)
    if s.check() == z3.unsat:
        return "vacuous", None
    s.add(z3.Not(z3.And(*goals)))
    r = s.check()
    if r == z3.unsat:
        return "proved", None
    if r == z3.sat:
        return "refuted", _counterexample(enc, s.model())
    return "unknown", s.reason_unknown() or "z3 gave up"


def verify_saturation_rules(
    families: Iterable[str] | None = None,
    rlimit: int = 2_000_000,
    instances: int = 24,
    seed: int = 0,
    f32_samples: int = 200,
) -> list[EggRuleVerification]:
    """verify_egg_rule for every rule of the given rule families of eqsat_uopc.rules (all by default)."""
    from .. import rules as rule_sets

    names = list(families) if families is not None else [n for n, f in rule_sets.FAMILIES.items() if f.egg]
    out = []
    for name in names:
        family = rule_sets.FAMILIES[name]
        out += [
            verify_egg_rule(r, rlimit, instances, seed, f32_samples=f32_samples)
            for r in parse_egg_rules(family.egg)
        ]
    return out
