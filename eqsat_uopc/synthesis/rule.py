"""A synthesized rule: orientation, its egglog text, its instance, its name.

Orientation keeps saturation bounded: the left-hand side is the larger term under the order
(tree size, op weight, text), the right-hand side must use no variable the left does not bind,
and a pair that is only a reordering under commutativity/associativity (what comm_assoc.egg
already says) is no rule at all.

egglog text: a rule declaration as a family file holds it (eqsat_uopc.rules.family). A term
variable is an egglog variable (`x`), a constant variable an integer literal pattern (`(Int c1)`),
a constant `(Int 2)` / `(Bool true)`; types are literal ("i32", "bool"), so a rule never applies to
f32 or shaped terms. An unconditional rule over term variables only is a `rewrite`; otherwise a
`rule` whose query holds the condition's atoms. A rule proved only under no_overflow is declared
`:semantics no_overflow` with, where interval arithmetic over the operands can express it, a
`:guard` that proves from lo/hi that no ADD or MUL of either side leaves the int32 range (so that
`int_semantics="wrap"` may run its guarded form).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass

from eqsat_uopc.ir.dtype import I32_MAX, I32_MIN, dtypes
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.synthesis.grammar import Condition, Grammar, default_constant_values

__all__ = [
    "OP_SHORT_NAMES",
    "SynthRule",
    "ac_canonical",
    "infix",
    "op_weight",
    "orient",
    "rule_text",
    "tree_size",
]

_CTOR = {
    Ops.ADD: "Add",
    Ops.MUL: "Mul",
    Ops.MAX: "Max",
    Ops.CMPLT: "Lt",
    Ops.CMPNE: "Ne",
    Ops.FLOORDIV: "Div",
    Ops.FLOORMOD: "Mod",
    Ops.WHERE: "Where",
}
_WEIGHT = {
    Ops.ADD: 1,
    Ops.MAX: 1,
    Ops.CMPLT: 1,
    Ops.CMPNE: 1,
    Ops.MUL: 2,
    Ops.WHERE: 2,
    Ops.FLOORDIV: 3,
    Ops.FLOORMOD: 3,
}
OP_SHORT_NAMES = {Ops.ADD: "add", Ops.MUL: "mul", Ops.MAX: "max", Ops.CMPLT: "lt", Ops.CMPNE: "ne",
          Ops.FLOORDIV: "div",
          Ops.FLOORMOD: "mod", Ops.WHERE: "where"}  # fmt: skip
_AC = (Ops.ADD, Ops.MUL, Ops.MAX)


def tree_size(u: UOp) -> int:
    return 1 + sum(tree_size(s) for s in u.src)


def op_weight(u: UOp) -> int:
    """How costly u's ops are (divisions above products above comparisons), to order rule sides."""
    return _WEIGHT.get(u.op, 0) + sum(op_weight(s) for s in u.src)


def _leaf_name(u: UOp, names: Mapping[int, str]) -> str:
    if u.op is Ops.PARAM:
        return names[u.arg.slot]
    return str(u.arg).lower() if isinstance(u.arg, bool) else str(u.arg)


def infix(u: UOp, names: Mapping[int, str]) -> str:
    """`max(x, y + 1) // c1`: the term as the comments of rules/*.egg write it."""
    if not u.src:
        return _leaf_name(u, names)
    s = [infix(k, names) for k in u.src]
    s = [f"({t})" if k.src and k.op not in (Ops.MAX, Ops.WHERE) else t for t, k in zip(s, u.src, strict=True)]
    if u.op is Ops.MAX:
        return f"MAX({s[0]}, {s[1]})"
    if u.op is Ops.WHERE:
        return f"WHERE({s[0]}, {s[1]}, {s[2]})"
    sym = {Ops.ADD: "+", Ops.MUL: "*", Ops.CMPLT: "<", Ops.CMPNE: "!=", Ops.FLOORDIV: "//", Ops.FLOORMOD: "%"}
    return f"{s[0]} {sym[u.op]} {s[1]}"


def _canon(u: UOp) -> tuple:
    if not u.src:
        return ("leaf", u.op.name, repr(u.arg), u.dtype.name)
    kids = [_canon(s) for s in u.src]
    if u.op in _AC:
        flat: list[tuple] = []
        for k, s in zip(kids, u.src, strict=True):
            flat.extend(k[2] if s.op is u.op and s.dtype is u.dtype else [k])
        return (u.op.name, u.dtype.name, tuple(sorted(flat, key=repr)))
    if u.op is Ops.CMPNE:
        kids = sorted(kids, key=repr)
    return (u.op.name, u.dtype.name, tuple(kids))


def ac_canonical(u: UOp) -> tuple:
    """A value equal for two terms iff they differ only by commutativity/associativity of
    ADD, MUL, MAX (flattened and sorted) and commutativity of CMPNE."""
    return _canon(u)


def _variables(u: UOp) -> set[int]:
    return {n.arg.slot for n in u.toposort() if n.op is Ops.PARAM}


def orient(a: UOp, b: UOp, condition: Condition | None, grammar: Grammar) -> tuple[UOp, UOp] | str:
    """(lhs, rhs) for the equality a == b, or the reason it makes no rule."""
    if ac_canonical(a) == ac_canonical(b):
        return "a reordering by commutativity/associativity (comm_assoc.egg)"
    names = grammar.names()
    slot = {v: k for k, v in names.items()}
    need = {slot[v] for v in condition.variables} if condition is not None else set()
    ka = (tree_size(a), op_weight(a), infix(a, names))
    kb = (tree_size(b), op_weight(b), infix(b, names))
    for lhs, rhs in ((a, b), (b, a)) if ka > kb else ((b, a), (a, b)):
        lv = _variables(lhs)
        if lhs.op is Ops.PARAM or lhs.op is Ops.CONST:
            continue  # a bare variable or constant left-hand side would match every e-class
        if _variables(rhs) <= lv and need <= lv:
            return lhs, rhs
    return "no orientation binds every variable of the other side and of the condition"


@dataclass(frozen=True)
class SynthRule:
    """One synthesized rule: lhs -> rhs where condition holds, sound under int_semantics."""

    name: str
    lhs: UOp
    rhs: UOp
    condition: Condition | None
    int_semantics: str  # "wrap" | "no_overflow"
    guarded: bool = False  # a no_overflow rule with a :guard (its guarded form runs under wrap)

    def comment(self, names: Mapping[int, str]) -> str:
        text = f"; {infix(self.lhs, names)} -> {infix(self.rhs, names)}"
        if self.condition is not None:
            text += f"   if {self.condition}"
        if self.int_semantics == "no_overflow":
            text += "   (no_overflow)"
        return text


# ---------------------------------------------------------------------------
# egglog text


def pattern(u: UOp, grammar: Grammar) -> str:
    """The egglog pattern of a term (constant variables match integer literals)."""
    names = grammar.names()
    if u.op is Ops.PARAM:
        return f"(Int {names[u.arg.slot]})" if grammar.is_constant_variable(u) else names[u.arg.slot]
    if u.op is Ops.CONST:
        return f"(Bool {str(u.arg).lower()})" if u.dtype is dtypes.bool else f"(Int {u.arg})"
    kids = " ".join(pattern(s, grammar) for s in u.src)
    return f'({_CTOR[u.op]} "{u.dtype.name}" {kids})'


def _uses_constant_variable(u: UOp, grammar: Grammar) -> bool:
    return any(grammar.is_constant_variable(n) for n in u.toposort())


def rule_text(rule: SynthRule, grammar: Grammar, family: str = "synth") -> str:
    """The rule's declaration, with its comment line before it: one form, from which the engine
    generates what each int_semantics runs (a no_overflow rule's guarded form, from its :guard)."""
    lhs, rhs = pattern(rule.lhs, grammar), pattern(rule.rhs, grammar)
    atoms = list(dict.fromkeys(rule.condition.egg_atoms() if rule.condition is not None else []))
    options = f':name "{rule.name}"'
    if rule.int_semantics == "no_overflow":
        options += " :semantics no_overflow"
        guard = overflow_guard(rule, grammar) if rule.guarded else None
        guard = [g for g in guard or () if g not in atoms]
        if guard:
            options += f"\n      :guard ({' '.join(guard)})"
    if not atoms and not _uses_constant_variable(rule.lhs, grammar):
        form = f"(rewrite {lhs} {rhs} {options})"
    else:
        query = " ".join([f"(= e {lhs})", *atoms])
        form = f"(rule ({query})\n      ((union e {rhs})) {options})"
    return f"{rule.comment(grammar.names())}\n{form}"


def overflow_guard(rule: SynthRule, grammar: Grammar) -> list[str] | None:
    """Query atoms proving from lo/hi that no i32 ADD or MUL of lhs or rhs leaves the int32 range
    (interval arithmetic from the leaves), or None when an operand's interval is not expressible."""
    names = grammar.names()
    atoms: list[str] = []
    counter = itertools.count()
    memo: dict[UOp, tuple[str, str] | None] = {}

    def interval(u: UOp) -> tuple[str, str] | None:
        if u in memo:
            return memo[u]
        out: tuple[str, str] | None = None
        if u.op is Ops.CONST and u.dtype is dtypes.i32:
            out = (str(u.arg), str(u.arg))
        elif u.op is Ops.PARAM and u.dtype is dtypes.i32:
            n = names[u.arg.slot]
            if grammar.is_constant_variable(u):
                out = (n, n)
            else:
                atoms.extend([f"(= lo_{n} (lo {n}))", f"(= hi_{n} (hi {n}))"])
                out = (f"lo_{n}", f"hi_{n}")
        elif u.op in (Ops.ADD, Ops.MUL, Ops.MAX, Ops.WHERE) and u.dtype is dtypes.i32:
            kids = [interval(s) for s in (u.src[1:] if u.op is Ops.WHERE else u.src)]
            if all(k is not None for k in kids):
                (la, ha), (lb, hb) = kids  # type: ignore[misc]
                k = next(counter)
                if u.op is Ops.ADD:
                    lo, hi = f"(+ {la} {lb})", f"(+ {ha} {hb})"
                elif u.op is Ops.MUL:
                    ps = [f"(* {x} {y})" for x in (la, ha) for y in (lb, hb)]
                    lo = f"(min (min {ps[0]} {ps[1]}) (min {ps[2]} {ps[3]}))"
                    hi = f"(max (max {ps[0]} {ps[1]}) (max {ps[2]} {ps[3]}))"
                elif u.op is Ops.MAX:
                    lo, hi = f"(max {la} {lb})", f"(max {ha} {hb})"
                else:
                    lo, hi = f"(min {la} {lb})", f"(max {ha} {hb})"
                atoms.extend([f"(= g{k}_lo {lo})", f"(= g{k}_hi {hi})"])
                if u.op in (Ops.ADD, Ops.MUL):
                    atoms.extend([f"(>= g{k}_lo {I32_MIN})", f"(<= g{k}_hi {I32_MAX})"])
                out = (f"g{k}_lo", f"g{k}_hi")
        memo[u] = out
        return out

    for side in (rule.lhs, rule.rhs):
        for u in side.toposort():
            if u.op in (Ops.ADD, Ops.MUL) and u.dtype is dtypes.i32 and interval(u) is None:
                return None
    return list(dict.fromkeys(atoms))


# ---------------------------------------------------------------------------
# instances (for derivability checks)


def instance(rule_lhs: UOp, rule_rhs: UOp, condition: Condition | None, grammar: Grammar) -> tuple[UOp, UOp]:
    """A concrete instance of a rule: constant variables become constants that satisfy the
    condition, a variable the condition bounds (0 <= x < c) a RANGE of that extent."""
    names = grammar.names()
    consts = default_constant_values(grammar.constant_variables)
    bounded: dict[str, int] = {}
    if condition is not None:
        consts.update(condition.constant_values())
        bounded = condition.bounded_variables(consts)
    mapping: dict[UOp, UOp] = {}
    for side in (rule_lhs, rule_rhs):
        for u in side.toposort():
            if u.op is not Ops.PARAM:
                continue
            n = names[u.arg.slot]
            if grammar.is_constant_variable(u):
                mapping[u] = UOp.const(consts[n], dtypes.i32)
            elif n in bounded:
                mapping[u] = UOp.range(bounded[n], n)
    return rule_lhs.substitute(mapping), rule_rhs.substitute(mapping)
