"""Rule sets: compositions of family values, the registry of named ones, and their egglog program.

>>> from eqsat_uopc.rules import rule_set
>>> rule_set("symbolic").family_names[:3]
('identities', 'fold', 'reassociation')
>>> (rule_set("ac") + "boolean").name
'ac+boolean'
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from eqsat_uopc.rules.catalogue import BEYOND_CHAPTER_FAMILIES, FAMILIES, SYMBOLIC_FAMILIES
from eqsat_uopc.rules.family import Family
from eqsat_uopc.rules.rule import MAINTAINED, Rule

__all__ = [
    "RULE_SETS",
    "RuleSet",
    "egglog_forms",
    "egglog_program",
    "resolve_rule_set",
    "rule_set",
]


def _family(rule_set: str, f: str | Family) -> Family:
    if isinstance(f, Family):
        return f
    if not isinstance(f, str):
        raise TypeError(f"rule set {rule_set!r}: a family is a Family or a bundled family's name, got {f!r}")
    return FAMILIES[f]


@dataclass(frozen=True, init=False)
class RuleSet:
    """A named composition of rule families: Family values, or the names of bundled ones
    (FAMILIES). `+` adds a family or another rule set, `without` leaves families out; nothing is
    registered anywhere, so a rule set of your own (a synthesized family, a family in a file) is
    saturated with like a bundled one."""

    name: str
    families: tuple[Family, ...]

    def __init__(self, name: str, families: Iterable[str | Family] = ()):
        families = tuple(families)
        unknown = [f for f in families if isinstance(f, str) and f not in FAMILIES]
        if unknown:
            raise KeyError(f"rule set {name!r} has unknown families {unknown} (known: {', '.join(FAMILIES)})")
        values = tuple(_family(name, f) for f in families)
        names = [f.name for f in values]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"rule set {name!r} has the family {', '.join(twice)} twice")
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "families", values)

    @property
    def family_names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.families)

    def family(self, name: str) -> Family:
        """The family of this rule set called name (KeyError naming the set otherwise)."""
        for f in self.families:
            if f.name == name:
                return f
        raise KeyError(
            f"rule set {self.name!r} has no family {name!r} (it has: {', '.join(self.family_names)})"
        )

    def rules(self, int_semantics: str = "wrap") -> tuple[Rule, ...]:
        """The rules a saturation with this rule set runs under int_semantics."""
        return tuple(r for f in self.families for r in f.rules if r.runs_under(int_semantics))

    def __add__(self, other: RuleSet | Family | str) -> RuleSet:
        if isinstance(other, RuleSet):
            return RuleSet(f"{self.name}+{other.name}", (*self.families, *other.families))
        name = other.name if isinstance(other, Family) else other
        return RuleSet(f"{self.name}+{name}", (*self.families, other))

    def without(self, *names: str) -> RuleSet:
        """This rule set less the families called names ("default-linear")."""
        for n in names:
            self.family(n)
        kept = tuple(f for f in self.families if f.name not in names)
        return RuleSet("-".join((self.name, *names)), kept)

    def __repr__(self) -> str:
        return f"RuleSet({self.name!r}, {self.family_names})"


RULE_SETS: dict[str, RuleSet] = {
    rs.name: rs
    for rs in (
        RuleSet("none", ()),  # lowering and extraction only (the round trip)
        RuleSet("symbolic", SYMBOLIC_FAMILIES),  # the chapter's symbolic rules
        RuleSet("evaluate", ("fold", "evaluate")),  # the chapter's run: folding and evaluation
        RuleSet("run", (*SYMBOLIC_FAMILIES, "evaluate")),  # symbolic + evaluate, as the greedy `run`
        RuleSet("ac", ("comm_assoc",)),  # commutativity and associativity alone
        # everything hand-written: the chapter's algebra, AC, and the families no greedy engine has
        RuleSet("default", (*SYMBOLIC_FAMILIES, "evaluate", "comm_assoc", *BEYOND_CHAPTER_FAMILIES)),
        RuleSet(
            "default+synth",
            (*SYMBOLIC_FAMILIES, "evaluate", "comm_assoc", *BEYOND_CHAPTER_FAMILIES, "synth_small"),
        ),  # + synthesized
    )
}


def rule_set(name: str) -> RuleSet:
    """The rule set registered under name (KeyError naming the known ones otherwise)."""
    return resolve_rule_set(name)


def resolve_rule_set(rules: str | RuleSet, error: type[Exception] = KeyError) -> RuleSet:
    """The RuleSet a name in RULE_SETS denotes (or the RuleSet itself); `error` otherwise."""
    if isinstance(rules, RuleSet):
        return rules
    if not isinstance(rules, str) or rules not in RULE_SETS:
        raise error(f"unknown rule set {rules!r} (known: {', '.join(RULE_SETS)})")
    return RULE_SETS[rules]


def egglog_program(rs: RuleSet, int_semantics: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    """The egglog text declaring the rules of rs that int_semantics runs, each in a ruleset of its
    own, and the units to run.

    A unit is (egglog ruleset, rule name): one rule, or the two directions of a birewrite. The
    runner's back-off scheduler bans and runs units one by one. Rules declared :maintained (views
    of term shapes, which only add relation rows) are not units: they go to the schema's
    bookkeeping ruleset (MAINTAINED), which the runner runs after every iteration, never banned.
    A rule runs in the one form its declaration generates for int_semantics (the guarded form
    under wrap, the unguarded one under no_overflow, ...); a rule int_semantics does not run is
    left out of the text: an engine is made per (rule set, int_semantics), and every rule it holds
    costs time in each program's egglog push and pop.
    """
    forms, units = egglog_forms(rs, int_semantics)
    return "\n".join(f for f, _ in forms), units


def egglog_forms(
    rs: RuleSet, int_semantics: str
) -> tuple[tuple[tuple[str, str | None], ...], tuple[tuple[str, str], ...]]:
    """`egglog_program` form by form: each top-level form with the unit it belongs to (a rule, or
    the `(ruleset u)` declaring its unit; None for a declaration every engine parses, and for the
    bookkeeping's rules), and the units."""
    forms: list[tuple[str, str | None]] = []
    units: list[tuple[str, str]] = []
    for family in rs.families:
        forms += [(d, None) for d in family.declarations]
        for rule in family.egg_rules:
            if rule.maintained:  # the bookkeeping's rules run after every iteration, under either semantics
                forms.append((rule.text("wrap", MAINTAINED), None))
                continue
            kind = rule.form_for(int_semantics)
            if kind is None:
                continue
            unit = f"u{len(units)}"
            units.append((unit, rule.name))
            forms += [(f"(ruleset {unit})", unit), (rule.text(kind, unit), unit)]
    return tuple(forms), tuple(units)
