"""Measurements of a synthesized family, for notebooks/06_rule_synthesis.ipynb (tested helpers).

- `handwritten_instances(families)`: one concrete instance (lhs, rhs UOps) of each hand-written
  rewrite of rules/*.egg: type variables become i32 (else bool), term variables PARAMs (a RANGE
  where the query reads its interval), constant symbols values found by a seeded search that
  satisfies the query's guards. Rules that only set intervals, or need f32 or opaque terms, get a
  reason instead.
- `derivability(instances, rules)`: does saturation with a rule set derive each instance?
- `corpus_rows(programs, rule_sets)`: DAG size, constant found, and time per program per rule set.
- `scaling_rows(configs)`: synthesis time and rule count per grammar and size.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from eqsat_uopc.extract import extract
from eqsat_uopc.ir.dtype import dtypes
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp, UOpError
from eqsat_uopc.rules import FAMILIES, Family, RuleSet
from eqsat_uopc.saturation import saturate
from eqsat_uopc.synthesis.grammar import Grammar
from eqsat_uopc.synthesis.minimize import derives
from eqsat_uopc.synthesis.search import synthesize
from eqsat_uopc.verify import egg_rules
from eqsat_uopc.verify.egg_text import Str

__all__ = ["corpus_rows", "derivability", "handwritten_instances", "scaling_rows"]

_CTORS = {"Add": Ops.ADD, "Mul": Ops.MUL, "Max": Ops.MAX, "Lt": Ops.CMPLT, "Ne": Ops.CMPNE,
          "Div": Ops.FLOORDIV, "Mod": Ops.FLOORMOD, "Where": Ops.WHERE}  # fmt: skip
_POOL = (1, 2, 3, 4, 5, 8, 12, 16, -1, -2, -3, -4, -8, 0, 24, 2**30, 2**31 - 1, -(2**31))
_EXTENTS = (1, 2, 4, 8, 16, 100)
_OFFSETS = (0, 0, 0, 5, -8)  # a bounded variable is RANGE(extent) + offset
_I32 = (-(2**31), 2**31 - 1)


class _NoInstance(Exception):
    pass


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def _prim(x: Any, env: Mapping[str, Any]) -> Any:
    """An egglog primitive expression's value (i64 arithmetic, truncating / and %, as egglog)."""
    if isinstance(x, bool | int):
        return x
    if x in ("true", "false"):
        return x == "true"
    if isinstance(x, str):
        if x not in env:
            raise _NoInstance(f"unbound primitive {x}")
        return env[x]
    head, args = x[0], [_prim(a, env) for a in x[1:]] if x[0] not in ("lo", "hi") else x[1:]
    if head in ("lo", "hi"):
        return env[f"{head}:{args[0]}"]
    ops = {
        "+": lambda a, b: a + b, "-": lambda a, b=None: -a if b is None else a - b,
        "*": lambda a, b: a * b, "min": min, "max": max, "&": lambda a, b: a & b,
        "and": lambda a, b: a and b, "or": lambda a, b: a or b, "xor": lambda a, b: a != b,
        "not": lambda a: not a, "<": lambda a, b: a < b, "<=": lambda a, b: a <= b,
        ">": lambda a, b: a > b, ">=": lambda a, b: a >= b, "!=": lambda a, b: a != b,
        "=": lambda a, b: a == b,
    }  # fmt: skip
    if head in ("/", "%"):
        a, b = args
        if b == 0:
            raise _NoInstance("division by zero")
        q = _trunc_div(a, b)
        return q if head == "/" else a - b * q
    if head not in ops:
        raise _NoInstance(f"primitive {head}")
    return ops[head](*args)


class _Instance:
    """Builds UOps from one rule's terms under one assignment of constants and intervals."""

    def __init__(
        self, types: Mapping[str, str], env: dict[str, Any], bounded: Mapping[str, tuple[int, int]]
    ) -> None:
        self.types, self.env, self.bounded = types, env, bounded
        self.vars: dict[str, UOp] = {}

    def var(self, name: str, typ: str) -> UOp:
        if name not in self.vars:
            if name in self.bounded:
                if typ != "i32":
                    raise _NoInstance("a bounded variable that is not i32")
                lo, extent = self.bounded[name]
                r = UOp.range(extent, name)
                self.vars[name] = r + lo if lo else r
            else:
                self.vars[name] = UOp.param(len(self.vars), dtypes.i32 if typ == "i32" else dtypes.bool)
        u = self.vars[name]
        if u.dtype.name != typ:
            raise _NoInstance(f"variable {name} used at two types")
        return u

    def type_of(self, t: Any) -> str:
        if isinstance(t, Str):
            if t not in ("i32", "bool"):
                raise _NoInstance(f"type {t}")
            return str(t)
        if t not in self.types:
            raise _NoInstance(f"type variable {t}")
        return self.types[t]

    def infer(self, t: Any) -> str | None:
        if isinstance(t, list):
            if t[0] == "Int":
                return "i32"
            if t[0] == "Bool":
                return "bool"
            if t[0] in _CTORS:
                return self.type_of(t[1])
        elif isinstance(t, str) and t in self.vars:
            return self.vars[t].dtype.name
        return None

    def build(self, t: Any, typ: str) -> UOp:
        if isinstance(t, str) and not isinstance(t, Str):
            return self.var(t, typ)
        if not isinstance(t, list):
            raise _NoInstance(f"term {t!r}")
        if t[0] == "Int":
            v = _prim(t[1], self.env)
            if not _I32[0] <= v <= _I32[1]:
                raise _NoInstance("constant out of int32 range")
            return UOp.const(v, dtypes.i32)
        if t[0] == "Bool":
            return UOp.const(bool(_prim(t[1], self.env)), dtypes.bool)
        if t[0] not in _CTORS:
            raise _NoInstance(f"constructor {t[0]}")
        op, own = _CTORS[t[0]], self.type_of(t[1])
        if op in (Ops.CMPLT, Ops.CMPNE):
            operand = self.infer(t[2]) or self.infer(t[3]) or self.types.get("$operand", "i32")
            kids = [self.build(t[2], operand), self.build(t[3], operand)]
        elif op is Ops.WHERE:
            kids = [self.build(t[2], "bool"), self.build(t[3], own), self.build(t[4], own)]
        else:
            kids = [self.build(t[2], own), self.build(t[3], own)]
        try:
            return UOp(op, tuple(kids))
        except UOpError as e:
            raise _NoInstance(str(e)) from None


def _split(rule: Any) -> tuple[Any, Any, list[Any]]:
    """(lhs term, rhs term, guard atoms) of a rewrite-like rule."""
    unions = [a for a in rule.actions if a[0] == "union"]
    if not unions:
        raise _NoInstance("sets intervals only (an analysis rule)")
    target, rhs = unions[0][1], unions[0][2]
    lhs, guards = None, []
    for atom in rule.query:
        if atom[0] == "=" and atom[1] == target and isinstance(atom[2], list) and atom[2][0] in _CTORS:
            lhs = atom[2]
        else:
            guards.append(atom)
    if lhs is None:
        terms = [a[2] for a in rule.query if a[0] == "=" and a[1] == target and isinstance(a[2], list)]
        raise _NoInstance(f"constructor {terms[0][0]}" if terms else "no left-hand side term")
    return lhs, rhs, guards


def _symbols(t: Any, consts: list[str], typevars: list[str], bounded: list[str]) -> None:
    if isinstance(t, list):
        if t and t[0] in ("Int", "Bool") and isinstance(t[1], str) and t[1] not in ("true", "false"):
            consts.append(t[1])
        elif t and t[0] in _CTORS and not isinstance(t[1], Str):
            typevars.append(t[1])
        elif t and t[0] in ("lo", "hi"):
            bounded.append(t[1])
        for x in t[1:]:
            _symbols(x, consts, typevars, bounded)


def _instantiate(rule: Any, seed: int) -> tuple[UOp, UOp]:
    lhs, rhs, guards = _split(rule)
    consts, typevars, bounded = [], [], []
    _symbols(lhs, consts, typevars, bounded)
    for g in guards:
        _symbols(g, [], [], bounded)
    consts, typevars, bounded = (list(dict.fromkeys(x)) for x in (consts, typevars, bounded))
    rng = random.Random(f"{seed}:{rule.name}")
    reason = "no constants satisfy its guards"
    typings = [
        {**{t: ty for t in typevars}, "$operand": op} for ty in ("i32", "bool") for op in ("i32", "bool")
    ]
    for types in typings:
        for _ in range(1000):
            env: dict[str, Any] = {c: rng.choice(_POOL) for c in consts}
            extent = {x: (rng.choice(_OFFSETS), rng.choice(_EXTENTS)) for x in bounded}
            for x, (lo, n) in extent.items():
                env[f"lo:{x}"], env[f"hi:{x}"] = lo, lo + n - 1
            try:
                for g in guards:
                    if g[0] == "=" and isinstance(g[1], str) and g[1] not in env:
                        env[g[1]] = _prim(g[2], env)
                    elif not _prim(g, env):
                        raise _NoInstance("guard false")
                inst = _Instance(types, env, extent)
                out = inst.build(lhs, inst.type_of(lhs[1]))
                return out, inst.build(rhs, out.dtype.name)
            except _NoInstance as e:
                reason = str(e) if str(e) != "guard false" else reason
            except (KeyError, TypeError, IndexError):
                reason = "uses a form the instance builder does not read"
                break
    raise _NoInstance(reason)


def handwritten_instances(
    families: Iterable[str | Family] | None = None, seed: int = 0
) -> list[dict[str, Any]]:
    """One row per egglog rule (the first direction of a birewrite; a no_overflow rule unguarded,
    a rule with :exact in its wrapped form): `rule`, `family`, `int_semantics`, and `lhs`/`rhs`
    UOps, or `reason` when no instance is built."""
    chosen = (
        [f for f in FAMILIES.values() if f.egg_rules]
        if families is None
        else [FAMILIES[f] if isinstance(f, str) else f for f in families]
    )
    rows = []
    for fam in chosen:
        for decl in fam.egg_rules:
            kind = "noovf" if decl.semantics == "no_overflow" else decl.forms()[0]
            rule = next(e for e in egg_rules(decl) if e.form == kind)
            row = {"rule": decl.name, "family": fam.name, "int_semantics": decl.semantics}
            try:
                row["lhs"], row["rhs"] = _instantiate(rule, seed)
            except _NoInstance as e:
                row["reason"] = str(e)
            rows.append(row)
    return rows


def derivability(
    instances: Sequence[Mapping[str, Any]], rules: RuleSet, budget: tuple[int, int, float] | None = None
) -> list[dict[str, Any]]:
    """For each instance with lhs/rhs: does saturation with `rules` (under the rule's semantics)
    put both sides in one e-class? Rows: rule, family, int_semantics, derived (None: no instance)."""
    kw = {} if budget is None else {"budget": budget}
    out = []
    for row in instances:
        derived = None
        if "lhs" in row:
            derived = derives(rules, row["lhs"], row["rhs"], row["int_semantics"], **kw)
        out.append({k: row[k] for k in ("rule", "family", "int_semantics")} | {"derived": derived})
    return out


def corpus_rows(
    programs: Iterable[tuple[str, UOp, Any]],
    rule_sets: Mapping[str, RuleSet | str],
    *,
    int_semantics: str = "wrap",
    node_budget: int = 5_000,
    iter_limit: int = 30,
    time_limit: float = 2.0,
) -> list[dict[str, Any]]:
    """Saturate each (key, program, expected constant or ...) with every rule set; extract the
    smallest DAG. Rows: key, rule_set, input/extracted dag_size, constant (the extracted program is
    a CONST), right (it is the expected constant; None without expectation), seconds, stop."""
    out = []
    for key, program, expected in programs:
        for name, rs in rule_sets.items():
            t = time.perf_counter()
            sat = saturate(program, rules=rs, int_semantics=int_semantics, node_budget=node_budget,
                           iter_limit=iter_limit, time_limit=time_limit)  # fmt: skip
            res = extract(sat.egraph, cost="dag_size")
            seconds = time.perf_counter() - t
            p = res.program
            constant = p.op is Ops.CONST
            right = None
            if expected is not ...:
                right = (
                    constant and expected is not None and type(p.arg) is type(expected) and p.arg == expected
                )
            out.append({
                "key": key, "rule_set": name, "input_dag_size": program.size, "dag_size": res.cost,
                "constant": constant, "right": right, "seconds": seconds, "stop": str(sat.report.stop_reason),
            })  # fmt: skip
    return out


def scaling_rows(configs: Iterable[tuple[str, Grammar]], **synth_kw: Any) -> list[dict[str, Any]]:
    """synthesize() per (label, grammar): seconds (total and per phase), terms, candidates, rules."""
    rows = []
    for label, g in configs:
        r = synthesize(g, progress=False, **synth_kw)
        s = r.stats
        rows.append({
            "grammar": label, "size": g.max_size, "ops": len(g.ops), "terms": s["terms"],
            "candidates": s["candidates"], "rules": s["rules"], "seconds": s["seconds"],
            "seconds_enumerate": s["seconds_enumerate"], "seconds_derive": s["seconds_derive"],
            "seconds_prove": s["seconds_prove"], "complete": r.complete,
        })  # fmt: skip
    return rows
