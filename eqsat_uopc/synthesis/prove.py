"""Proving candidates: the rule's own egglog text, through the suite's rule verifier.

A candidate is written as the egglog rule it would become and handed to
`eqsat_uopc.verify.verify_egg_rule`, the z3 check `verify_saturation_rules` runs on rules/*.egg:
so a rule kept here is, by construction, a rule the suite's verification accepts, under the
semantics it declares. First as a `wrap` rule (sound for every int32 input under wraparound, and
over the integers, the values of the no_overflow e-graph it also runs in);
failing that, as a `no_overflow` rule (its unguarded form) together with its guarded form (checked
under wrap): a synthesized no_overflow rule must have a guard that `int_semantics="wrap"` can run,
so one without a provable guard is dropped.
Only "proved" counts (for every value of every constant
variable): a proof on sampled constants ("tested") is not enough for a generated rule.
"""

from __future__ import annotations

from dataclasses import dataclass

from eqsat_uopc.rules import read_rules
from eqsat_uopc.synthesis.grammar import Grammar
from eqsat_uopc.synthesis.rule import SynthRule, rule_text
from eqsat_uopc.verify import egg_rules, verify_egg_rule

__all__ = ["RLIMIT", "Verdict", "prove_rule"]

RLIMIT = 1_000_000  # the z3 resource budget the suite verifies rules/*.egg with (deterministic)


@dataclass(frozen=True)
class Verdict:
    """Under which semantics a candidate was proved (None: not at all), and why not otherwise."""

    int_semantics: str | None  # "wrap" | "no_overflow" | None
    guarded: bool  # no_overflow: the guarded form (always proved for a kept no_overflow rule)
    reason: str  # the verifier's statuses, for the log


def _status(text: str, form: str) -> tuple[str, str]:
    """The verifier's status of the given form (rules.FORM_KINDS) of the one rule text declares: a
    form run under both semantics (a wrap rule's) is proved for each, and the first that is not
    proved is the answer."""
    [rule] = read_rules(text)
    for check in (e for e in egg_rules(rule) if e.form == form):
        report = verify_egg_rule(check, rlimit=RLIMIT, instances=0)
        detail = report.status
        if report.counterexample is not None:
            detail += f" at {report.counterexample}"
        elif report.reason:
            detail += f" ({report.reason})"
        if report.status != "proved":
            break
    return report.status, detail


def prove_rule(rule: SynthRule, grammar: Grammar) -> Verdict:
    """Prove rule (its lhs, rhs and condition) under wrap, else under no_overflow."""
    name = rule.name or "synth/candidate"
    wrap = SynthRule(name, rule.lhs, rule.rhs, rule.condition, "wrap")
    status, wrap_detail = _status(rule_text(wrap, grammar), "wrap")
    if status == "proved":
        return Verdict("wrap", False, "wrap: proved")
    noovf = SynthRule(name, rule.lhs, rule.rhs, rule.condition, "no_overflow", guarded=True)
    text = rule_text(noovf, grammar)
    status, noovf_detail = _status(text, "noovf")
    if status != "proved":
        return Verdict(None, False, f"wrap: {wrap_detail}; no_overflow: {noovf_detail}")
    if read_rules(text)[0].guard is None:
        return Verdict(None, False, f"wrap: {wrap_detail}; no_overflow: proved, but no guard is expressible")
    status, guard_detail = _status(text, "guarded")
    if status != "proved":
        return Verdict(None, False, f"wrap: {wrap_detail}; no_overflow: proved; guarded form: {guard_detail}")
    return Verdict("no_overflow", True, f"wrap: {wrap_detail}; no_overflow: proved; guarded form: proved")
