"""Saturation rule sets: named compositions of rule families, each family one `.egg` file here
(plus, for some families, rules of the Python folding step between egglog iterations).

Every rule declares its integer semantics (DESIGN.md, "Integer semantics"):
  "wrap"         sound for every int32 input under wraparound;
  "no_overflow"  sound when no intermediate int32 result leaves the int32 range.
In a `.egg` file the ruleset a rule is declared in says which: `F` holds wrap rules, `F_guarded`
no_overflow rules whose query proves the no-overflow precondition from the interval analysis
(so they are sound under wraparound, and `int_semantics="wrap"` runs them), `F_noovf` the same
rules unguarded (`int_semantics="no_overflow"` runs them instead). `int_semantics="no_overflow"`
reasons about mathematical integers (no intermediate result ever wraps), so a rule that computes a
new constant with wraparound lives in `F_wraponly` and has an `F_exact` twin that fires only when
the exact result is an int32: a wrapped constant would bring overflow into a term that had none,
and the no_overflow rules applied to that term would then derive nonsense (True == False).
Every rule carries `:name "family/rule"` and a `; lhs -> rhs` comment.

    >>> from eqsat_uopc.rules import RULE_SETS, rule_set
    >>> rule_set("symbolic").families[:3]
    ('identities', 'fold', 'reassociation')
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

from eqsat_uopc.semantics.int_semantics import INT_SEMANTICS

__all__ = [
    "FAMILIES",
    "INT_SEMANTICS",
    "PYTHON_RULES",
    "RULESET_KINDS",
    "RULE_SETS",
    "SYMBOLIC_FAMILIES",
    "Family",
    "Rule",
    "RuleSet",
    "RulesetKind",
    "egglog_program",
    "resolve_rule_set",
    "rule_set",
    "ruleset_kind",
    "runs_under",
]


# Rules of the Python folding step (eqsat_uopc.saturation.fold), by family; all exact, so "wrap".
PYTHON_RULES: dict[str, tuple[str, ...]] = {
    "fold": ("fold/exec-alu", "fold/f64-to-f32"),
    "identities": ("identities/cast-same-dtype", "identities/cmp-self"),
    "evaluate": (
        "evaluate/literal",
        "evaluate/push-stack",
        "evaluate/index-empty",
        "evaluate/index-index",
        "evaluate/index-stack",
        "evaluate/inline-call",
    ),
}

_EGG_FAMILIES = (
    "identities",
    "fold",
    "reassociation",
    "distribution",
    "divmod",
    "recombination",
    "comparisons",
    "intervals",
    "comm_assoc",
)


@dataclass(frozen=True)
class Rule:
    name: str  # "family/rule"
    family: str
    semantics: str  # "wrap" | "no_overflow"
    guarded: bool  # a no_overflow rule whose query proves its precondition (runs under "wrap")
    engine: str  # "egglog" | "python"
    ruleset: str  # the egglog ruleset it is declared in ("" for Python rules)


@dataclass(frozen=True)
class Family:
    name: str
    egg: str  # egglog program text ("" if the family has only Python rules)
    rules: tuple[Rule, ...]

    def rulesets(self, int_semantics: str) -> tuple[str, ...]:
        """The egglog rulesets this family runs under int_semantics."""
        return tuple(
            dict.fromkeys(
                r.ruleset for r in self.rules if r.engine == "egglog" and runs_under(r.ruleset, int_semantics)
            )
        )


@dataclass(frozen=True)
class RuleSet:
    name: str
    families: tuple[str, ...]

    def rules(self, int_semantics: str = "wrap") -> tuple[Rule, ...]:
        """The rules a saturation with this rule set runs under int_semantics."""
        return tuple(
            r for f in self.families for r in FAMILIES[f].rules if runs_under(r.ruleset, int_semantics)
        )


@dataclass(frozen=True)
class RulesetKind:
    """What a `.egg` ruleset's name suffix means: the one table every reader of rules uses."""

    suffix: str
    declares: str  # the semantics the rewrite itself needs ("no_overflow" if a wrap input can break it)
    proved_under: str  # what the rule as written (guards included) is proved sound under
    runs_under: tuple[str, ...]  # the int_semantics settings whose saturations run it
    meaning: str


RULESET_KINDS: tuple[RulesetKind, ...] = (
    RulesetKind(
        "_guarded",
        "no_overflow",
        "wrap",
        ("wrap",),
        "a no_overflow rule whose query proves its precondition from the interval analysis",
    ),
    RulesetKind("_noovf", "no_overflow", "no_overflow", ("no_overflow",), "the same rule unguarded"),
    RulesetKind("_wraponly", "wrap", "wrap", ("wrap",), "computes a new constant with int32 wraparound"),
    RulesetKind(
        "_exact",
        "wrap",
        "wrap",
        ("no_overflow",),
        "twin of a _wraponly rule: only where the exact result fits",
    ),
    RulesetKind("", "wrap", "wrap", INT_SEMANTICS, "sound for every int32 input under wraparound"),
)


def ruleset_kind(ruleset: str) -> RulesetKind:
    """The kind of an egglog ruleset, by its suffix ("" for a Python rule: sound under wrap)."""
    return next(k for k in RULESET_KINDS if ruleset.endswith(k.suffix))


def runs_under(ruleset: str, int_semantics: str) -> bool:
    """Does a rule declared in this egglog ruleset run under int_semantics? ("" = a Python rule)"""
    return int_semantics in ruleset_kind(ruleset).runs_under


_RULE_RE = re.compile(r":ruleset\s+(\S+)\s+:name\s+\"([^\"]+)\"")


def _parse_family(name: str, text: str) -> Family:
    rules = []
    for ruleset, rule_name in _RULE_RE.findall(text):
        kind = ruleset_kind(ruleset)
        rules.append(Rule(rule_name, name, kind.declares, kind.suffix == "_guarded", "egglog", ruleset))
    rules += [Rule(n, name, "wrap", False, "python", "") for n in PYTHON_RULES.get(name, ())]
    return Family(name, text, tuple(rules))


@cache
def _families() -> dict[str, Family]:
    out = {}
    for name in _EGG_FAMILIES:
        text = resources.files(__package__).joinpath(f"{name}.egg").read_text()
        out[name] = _parse_family(name, text)
    out["evaluate"] = _parse_family("evaluate", "")
    return out


FAMILIES: dict[str, Family] = _families()

# the families of the chapter's symbolic rules (every greedy symbolic rule has a counterpart here)
SYMBOLIC_FAMILIES = (
    "identities",
    "fold",
    "reassociation",
    "distribution",
    "divmod",
    "recombination",
    "comparisons",
    "intervals",
)

RULE_SETS: dict[str, RuleSet] = {
    rs.name: rs
    for rs in (
        RuleSet("none", ()),  # lowering and extraction only (the round trip)
        RuleSet("symbolic", SYMBOLIC_FAMILIES),  # the chapter's symbolic rules
        RuleSet("evaluate", ("fold", "evaluate")),  # the chapter's run: folding and evaluation
        RuleSet("run", (*SYMBOLIC_FAMILIES, "evaluate")),  # symbolic + evaluate, as the greedy `run`
        RuleSet("ac", ("comm_assoc",)),  # commutativity and associativity alone
        RuleSet("default", (*SYMBOLIC_FAMILIES, "evaluate", "comm_assoc")),  # everything
    )
}


def rule_set(name: str) -> RuleSet:
    """The rule set registered under name (KeyError naming the known ones otherwise)."""
    return resolve_rule_set(name)


def resolve_rule_set(rules: str | RuleSet, error: type[Exception] = KeyError) -> RuleSet:
    """The RuleSet a name in RULE_SETS (or a RuleSet of known families) denotes; `error` otherwise."""
    if isinstance(rules, RuleSet):
        unknown = [f for f in rules.families if f not in FAMILIES]
        if unknown:
            raise error(
                f"rule set {rules.name!r} has unknown families {unknown} (known: {', '.join(FAMILIES)})"
            )
        return rules
    if not isinstance(rules, str) or rules not in RULE_SETS:
        raise error(f"unknown rule set {rules!r} (known: {', '.join(RULE_SETS)})")
    return RULE_SETS[rules]


def egglog_program(rs: RuleSet, int_semantics: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    """The egglog text declaring rs's rules, each in a ruleset of its own, and the units to run.

    A unit is (egglog ruleset, rule name): one rule, or the two directions of a birewrite. The
    runner's back-off scheduler bans and runs units one by one. Only the rules int_semantics selects
    are units; the others are declared but never run.
    """
    texts, units = [], []
    counter = [0]

    def one_ruleset(m: re.Match) -> str:
        ruleset, name = m.group(1), m.group(2)
        unit = f"u{counter[0]}"
        counter[0] += 1
        texts.append(f"(ruleset {unit})")
        if runs_under(ruleset, int_semantics):
            units.append((unit, name))
        return f':ruleset {unit} :name "{name}"'

    for f in rs.families:
        egg = FAMILIES[f].egg
        if egg:
            texts.append(_RULE_RE.sub(one_ruleset, egg))
    return "\n".join(texts), tuple(units)
