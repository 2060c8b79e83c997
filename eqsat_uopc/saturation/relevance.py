"""Which rules can ever fire on a program: the ones whose query needs only constructors the e-graph
holds or the rules that can fire would build.

An egglog rule costs time in every iteration even when its query has nothing to match (egglog
plans and starts each query; at ~300 rules that is a good part of a small program's iterations).
A query atom `(Max t a b)` needs a row in the `Max` table, and a program without MAX gets one only
from a rule that builds it. So the rules worth running on a program are a least fixed point: start
from the constructors of the program (and of the greedy seed), add what each rule whose query
needs only those builds, until nothing is added. The other rules cannot match, in any iteration:
leaving them out changes nothing but the time (the suite checks identical e-graphs on corpus
samples).

Constants (`Int`, `Bool`, `Flt`, `Dbl`) count as always present (folding makes them), and so does
everything that is not a UOp constructor (the interval functions `lo`/`hi`, the bookkeeping
relations). The Python folding step builds STACK and INDEX terms, so a program that needs it runs
every rule (the runner decides that).
"""

from __future__ import annotations

from dataclasses import dataclass

from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.rules import MAINTAINED, read_sexprs
from eqsat_uopc.saturation.terms import CONST_CTORS, CTOR_OF

__all__ = ["Trigger", "relevant_units", "unit_triggers", "uop_constructors"]

_UOP_CTORS = frozenset(CTOR_OF.values())
_ALWAYS = frozenset(CONST_CTORS)
_CTORS = _UOP_CTORS | _ALWAYS


@dataclass(frozen=True)
class Trigger:
    """One way a rule unit fires: the UOp constructors its query needs and those its actions build."""

    needs: frozenset[str]
    builds: frozenset[str]


def unit_triggers(text: str) -> dict[str, tuple[Trigger, ...]]:
    """Per egglog ruleset (a rule unit of `eqsat_uopc.rules.egglog_program`), how its rules fire: a
    `rule` by its query and actions, a `rewrite` by its left side (and `:when`) and right side, a
    `birewrite` both ways round. A query atom of a relation that rules of the bookkeeping ruleset
    maintain (`rules.MAINTAINED`: views of term shapes) needs what every rule maintaining it needs."""
    forms = [
        f for f in read_sexprs(text) if f and f[0] in ("rule", "rewrite", "birewrite") and ":ruleset" in f
    ]
    views: dict[str, frozenset[str]] = {}  # maintained relation -> constructors every maintainer needs
    for form in forms:
        if form[0] == "rule" and _ruleset(form) == MAINTAINED:
            query = _ctors(form[1])
            for atom in form[2]:
                if isinstance(atom, list) and atom and isinstance(atom[0], str):
                    views[atom[0]] = views.get(atom[0], query) & query

    def needs(tree: object) -> frozenset[str]:
        return _ctors(tree).union(*(views[r] for r in _heads(tree) & views.keys()))

    out: dict[str, list[Trigger]] = {}
    for form in forms:
        unit = _ruleset(form)
        if unit == MAINTAINED:  # not a unit: run after every iteration, and it builds no constructor
            continue
        if form[0] == "rule":
            ways = [(needs(form[1]), _ctors(form[2]))]
        else:
            when = needs(form[form.index(":when") + 1]) if ":when" in form else frozenset()
            lhs, rhs = _ctors(form[1]), _ctors(form[2])
            ways = [(lhs | when, rhs)] + ([(rhs | when, lhs)] if form[0] == "birewrite" else [])
        out.setdefault(unit, []).extend(Trigger(n - _ALWAYS, b - _ALWAYS) for n, b in ways)
    return {unit: tuple(ts) for unit, ts in out.items()}


def relevant_units(triggers: dict[str, tuple[Trigger, ...]], present: frozenset[str]) -> frozenset[str]:
    """The units that can fire on an e-graph holding the UOp constructors `present`: the least fixed
    point of adding what every unit that can fire builds. A unit with no recorded trigger (nothing
    known about its query) is kept."""
    have = set(present)
    grew = True
    while grew:
        grew = False
        for ways in triggers.values():
            for t in ways:
                if t.needs <= have and not t.builds <= have:
                    have |= t.builds
                    grew = True
    return frozenset(u for u, ways in triggers.items() if any(t.needs <= have for t in ways))


def uop_constructors(ops: set[Ops]) -> frozenset[str]:
    """The egglog constructors of a set of UOp ops (CONST has none of its own: constants are always in)."""
    return frozenset(CTOR_OF[op] for op in ops if op in CTOR_OF)


def _ruleset(form: list) -> str:
    """The ruleset a rule form names with `:ruleset`."""
    return form[form.index(":ruleset") + 1]


def _ctors(tree: object) -> frozenset[str]:
    """The UOp constructors applied anywhere in an S-expression."""
    return _heads(tree) & _CTORS


def _heads(tree: object) -> frozenset[str]:
    """The heads of every atom in an S-expression."""
    found: set[str] = set()
    stack = [tree]
    while stack:
        t = stack.pop()
        if isinstance(t, list):
            if t and isinstance(t[0], str):
                found.add(t[0])
            stack.extend(t)
    return frozenset(found)
