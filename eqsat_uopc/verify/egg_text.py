"""Reading egglog rule text: each rule as query atoms and actions (`rules.read_sexprs` reads the text).

`parse_egg_rules(text)` returns one `EggRule` per `(rule ...)` and `(rewrite ...)`, and two per
`(birewrite ...)` (the second named "<name> (reversed)"). A rewrite is read as the rule
`((= $e LHS)) ((union $e RHS))`. Options (`:ruleset`, `:name`) and flags (`:subsume`) are
recognised; the ruleset's suffix gives the semantics a rule is proved under
(`eqsat_uopc.rules.ruleset_kind(ruleset).proved_under`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from eqsat_uopc.rules import Str, read_sexprs, ruleset_kind

__all__ = ["EggRule", "Str", "parse_egg_rules", "show"]


def show(x: Any) -> str:
    if isinstance(x, list):
        return "(" + " ".join(show(e) for e in x) + ")"
    return f'"{x}"' if isinstance(x, Str) else str(x)


@dataclass(frozen=True)
class EggRule:
    """One rule (one direction of a birewrite) as query atoms and actions."""

    name: str
    ruleset: str
    int_semantics: str
    query: tuple[Any, ...]
    actions: tuple[Any, ...]

    def __str__(self) -> str:
        q = " ".join(show(a) for a in self.query)
        a = " ".join(show(x) for x in self.actions)
        return f"{self.name}: {q} => {a}"


def _options(form: list[Any], start: int) -> dict[str, Any]:
    """`:key value` options after the rule proper; a flag with no value (`:subsume`) maps to True."""
    opts: dict[str, Any] = {}
    i = start
    while i < len(form):
        key = form[i]
        if isinstance(key, str) and not isinstance(key, Str) and key.startswith(":"):
            nxt = form[i + 1] if i + 1 < len(form) else None
            if nxt is None or (isinstance(nxt, str) and not isinstance(nxt, Str) and nxt.startswith(":")):
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
    for form in read_sexprs(text):
        if not isinstance(form, list) or not form or form[0] not in ("rewrite", "birewrite", "rule"):
            continue
        opts = _options(form, 3)
        ruleset = str(opts.get(":ruleset", ""))
        name = str(opts.get(":name", f"{form[0]}@{len(out)}"))
        sem = ruleset_kind(ruleset).proved_under
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
