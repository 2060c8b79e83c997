"""Rule sets: compositions of family values, the registry of named ones, and their egglog program.

>>> from eqsat_uopc.rules import rule_set
>>> rule_set("symbolic").family_names[:3]
('identities', 'fold', 'reassociation')
>>> (rule_set("ac") + "boolean").name
'ac+boolean'
>>> split_rules_spec("default+synth+my++rules.egg")
(('rule set', 'default+synth'), ('file', 'my+rules.egg'))
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass

from eqsat_uopc.rules.catalogue import BEYOND_CHAPTER_FAMILIES, FAMILIES, SYMBOLIC_FAMILIES
from eqsat_uopc.rules.family import Family
from eqsat_uopc.rules.rule import MAINTAINED, Rule

__all__ = [
    "RULES_SPEC",
    "RULE_SETS",
    "RuleSet",
    "compose_rule_set",
    "egglog_forms",
    "egglog_program",
    "escape_rules_path",
    "family_digest",
    "resolve_rule_set",
    "rule_set",
    "split_rules_spec",
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

    @property
    def digest(self) -> str:
        """sha256 of what the rules compute (family_digest of each family, in order): two rule sets
        with one digest saturate alike, whatever their names; a family file edited changes it."""
        return hashlib.sha256("\n".join(family_digest(f) for f in self.families).encode()).hexdigest()

    @property
    def registered(self) -> bool:
        """Is this the rule set RULE_SETS holds under its name (so that the name says it all)?"""
        return RULE_SETS.get(self.name) == self

    def __repr__(self) -> str:
        return f"RuleSet({self.name!r}, {self.family_names})"


def family_digest(family: Family) -> str:
    """sha256 of a family's name, declarations and the egglog forms (and semantics) of its rules: not
    of its comments, doc or file, which change nothing a saturation does."""
    parts = [family.name, *family.declarations]
    for r in family.rules:
        parts.append(f"{r.name} {r.semantics} {r.kind} {r.maintained}")
        parts += [r.text(k, "u") for k in r.forms()]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def compose_rule_set(name: str, parts: Iterable[RuleSet | Family]) -> RuleSet:
    """The union of rule sets and families, in order: a family already in it is not added again
    (`symbolic+evaluate` holds `fold` once); a different family of a name already taken is refused
    (ValueError), naming the rule both declare and where, or the family."""
    families: dict[str, Family] = {}
    for part in parts:
        for f in part.families if isinstance(part, RuleSet) else (part,):
            other = families.get(f.name)
            if other is None:
                families[f.name] = f
                continue
            if other == f:
                continue
            theirs = {r.name: r for r in other.rules}
            clash = next((r for r in f.rules if r.name in theirs), None)
            if clash is not None:
                raise ValueError(
                    f"{clash.where or f.source}: rule {clash.name!r} is declared by {_origin(other)} too "
                    f"({theirs[clash.name].where}): a family of your own needs a name of its own (a file's "
                    "family is named after the file)"
                )
            raise ValueError(
                f"{f.source or f.name}: the family {f.name!r} is already in the rule set ({_origin(other)}): "
                "a family of your own needs a name of its own (a file's family is named after the file)"
            )
    return RuleSet(name, tuple(families.values()))


def _origin(family: Family) -> str:
    bundled = FAMILIES.get(family.name) == family
    return f"the bundled family {family.name}" if bundled else f"the family {family.name} of {family.source}"


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


RULES_SPEC = (
    "a rule set (NAME), a bundled family (NAME), a .egg family file (PATH), or a composition of them "
    "joined by '+' (default+my_rules.egg); a '+' inside a file name is written '++'"
)


def escape_rules_path(path: str) -> str:
    """A file path as a part of a rules spec: each '+' written '++'."""
    return str(path).replace("+", "++")


def split_rules_spec(spec: str) -> tuple[tuple[str, str], ...]:
    """The parts of a rules spec (RULES_SPEC), each ("rule set", name), ("family", name) or
    ("file", path): parts are joined by '+', a registered name is read whole (`default+synth` is one
    rule set), a name both a rule set and a family (`evaluate`) is the rule set, and `++` is a '+'
    of a file name, which must end in `.egg`. ValueError naming the part otherwise."""
    if not isinstance(spec, str) or not spec:
        raise ValueError(f"expected {RULES_SPEC}, got {spec!r}")
    pieces, escaped, current, k = [], [], "", 0
    while k < len(spec):
        if spec.startswith("++", k):
            current, k = current + "+", k + 2
            escaped.append(len(pieces))
        elif spec[k] == "+":
            pieces.append(current)
            current, k = "", k + 1
        else:
            current, k = current + spec[k], k + 1
    pieces.append(current)
    parts: list[tuple[str, str]] = []
    i = 0
    while i < len(pieces):
        whole = next(
            (j for j in range(len(pieces), i, -1)
             if "+".join(pieces[i:j]) in RULE_SETS and not any(i <= e < j for e in escaped)),
            None,
        )  # fmt: skip
        if whole is not None:
            parts.append(("rule set", "+".join(pieces[i:whole])))
            i = whole
            continue
        piece = pieces[i]
        if not piece:
            raise ValueError(f"{spec!r} has an empty part: {RULES_SPEC}")
        if piece in FAMILIES and i not in escaped:
            parts.append(("family", piece))
        elif piece.endswith(".egg"):
            parts.append(("file", piece))
        else:
            raise ValueError(
                f"unknown rule set {piece!r} (known: {', '.join(RULE_SETS)}; or a bundled family, "
                f"{', '.join(FAMILIES)}; or a .egg file; joined by '+', with '++' for a '+' in a file name)"
            )
        i += 1
    return tuple(parts)


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
