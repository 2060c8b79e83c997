"""The rules to prove: each egglog form of a rule value as query atoms and actions.

`egg_rules(rule)` gives one `EggRule` per form the declaration generates (`eqsat_uopc.rules.Rule.forms`:
the guarded and the unguarded form of a no_overflow rule, the wrapped and the exact form of a rule
with a new constant, ...) and per semantics that runs it (`eqsat_uopc.rules.form_kind(kind).proved_under`:
a guarded form under wrap, an unguarded no_overflow form under no_overflow, a wrap form under both),
and two per birewrite (the second named "<name> (reversed)").
A rewrite is read as the rule `((= $e LHS)) ((union $e RHS))`. `parse_egg_rules(text)` does the
same for the rule declarations of a text (`eqsat_uopc.rules.read_rules`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from eqsat_uopc.rules import Rule, Str, form_kind, read_rules, show, thaw

__all__ = ["EggRule", "Str", "egg_rules", "parse_egg_rules", "show"]


@dataclass(frozen=True)
class EggRule:
    """One form of a rule (one direction of a birewrite) as query atoms and actions."""

    name: str
    form: str  # the form kind (rules.FORM_KINDS): "wrap", "guarded", "noovf", ...
    int_semantics: str  # the e-graph proved for: "wrap" (int32 wraparound), "no_overflow" (the integers)
    query: tuple[Any, ...]
    actions: tuple[Any, ...]

    def __str__(self) -> str:
        q = " ".join(show(a) for a in self.query)
        a = " ".join(show(x) for x in self.actions)
        return f"{self.name}: {q} => {a}"


def egg_rules(rule: Rule) -> list[EggRule]:
    """The forms of rule to prove, each once for every semantics that runs it (a wrap form twice:
    under wrap and under no_overflow); none for a Python rule."""
    out = []
    for kind in rule.forms():
        form = thaw(rule.form(kind, kind))
        for sem in form_kind(kind).proved_under:
            if form[0] == "rule":
                out.append(EggRule(rule.name, kind, sem, tuple(form[1]), tuple(form[2])))
                continue
            lhs, rhs = form[1], form[2]
            out.append(EggRule(rule.name, kind, sem, (["=", "$e", lhs],), (["union", "$e", rhs],)))
            if form[0] == "birewrite":
                out.append(
                    EggRule(
                        f"{rule.name} (reversed)", kind, sem, (["=", "$e", rhs],), (["union", "$e", lhs],)
                    )
                )
    return out


def parse_egg_rules(text: str) -> list[EggRule]:
    """The forms to prove of every rule declared in an egglog text (rewrite, birewrite, rule)."""
    return [e for r in read_rules(text) for e in egg_rules(r)]
