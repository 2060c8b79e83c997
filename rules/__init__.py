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

__all__ = ["FAMILIES", "PYTHON_RULES", "RULE_SETS", "Family", "Rule", "RuleSet", "egglog_program", "rule_set"]

SEMANTICS = ("wrap", "no_overflow")

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


# ruleset suffix -> the int_semantics under which its rules run
_ONLY = {"_guarded": "wrap", "_noovf": "no_overflow", "_wraponly": "wrap", "_exact": "no_overflow"}


def runs_under(ruleset: str, int_semantics: str) -> bool:
    """Does a rule declared in this egglog ruleset run under int_semantics? ("" = a Python rule)"""
    for suffix, only in _ONLY.items():
        if ruleset.endswith(suffix):
            return int_semantics == only
    return True


_RULE_RE = re.compile(r":ruleset\s+(\S+)\s+:name\s+\"([^\"]+)\"")


def _parse_family(name: str, text: str) -> Family:
    rules = []
    for ruleset, rule_name in _RULE_RE.findall(text):
        if ruleset.endswith("_guarded"):
            sem, guarded = "no_overflow", True
        elif ruleset.endswith("_wraponly"):
            sem, guarded = "wrap", False
        elif ruleset.endswith("_noovf"):
            sem, guarded = "no_overflow", False
        else:
            sem, guarded = "wrap", False
        rules.append(Rule(rule_name, name, sem, guarded, "egglog", ruleset))
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

_SYMBOLIC = (
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
        RuleSet("symbolic", _SYMBOLIC),  # the chapter's symbolic rules
        RuleSet("evaluate", ("fold", "evaluate")),  # the chapter's run: folding and evaluation
        RuleSet("run", (*_SYMBOLIC, "evaluate")),  # symbolic + evaluate, as the greedy `run`
        RuleSet("ac", ("comm_assoc",)),  # commutativity and associativity alone
        RuleSet("default", (*_SYMBOLIC, "evaluate", "comm_assoc")),  # everything
    )
}


def rule_set(name: str) -> RuleSet:
    """The rule set registered under name (KeyError naming the known ones otherwise)."""
    try:
        return RULE_SETS[name]
    except KeyError:
        raise KeyError(f"unknown rule set {name!r} (known: {', '.join(RULE_SETS)})") from None


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
