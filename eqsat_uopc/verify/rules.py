"""verify_rules: prove each greedy rewrite rule sound with z3, under the integer semantics it declares.

A rule is a pattern and a Python function, so its conditions live in the function ("c > 0", "the
bounds of x fit in [0, c)"). The rule is therefore verified on *instances*: random nodes its
pattern matches (PARAMs as symbolic variables, random edge-biased constants, RANGEs as bounded
variables, from `eqsat_uopc.verify.rule_sampling.pattern_instances`, H2b's synthesizer), and on each
instance where the function fires, z3 proves that the rewrite before -> after is a refinement
(wherever `before` is defined, `after` is defined and equal; see proof.py) under the rule's
declared semantics. The function's own checks are thus the hypotheses (an instance it refuses is
not a claim), and interval preconditions come from the instance's RANGEs, whose bounds z3 assumes.

For a rule declared "no_overflow" each instance is also tried under "wrap", and the first wrap
refutation is kept: the evidence that the declaration is needed (`no_overflow_only`).

Instances with f32 values are not proved: they are tested on random inputs (the concrete
evaluator, f32 compared by bit pattern with NaN == NaN). A rewrite that changes dtype or shape is
a counterexample by itself.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from eqsat_uopc.ir.uop import UOp, UOpError, call_params
from eqsat_uopc.semantics.evaluation import evaluate
from eqsat_uopc.semantics.values import same_value
from eqsat_uopc.verify.equivalence import InputSampler, named_inputs
from eqsat_uopc.verify.proof import format_inputs, has_f32, prove_equivalent

__all__ = [
    "HAND_MADE_INSTANCES",
    "RuleCounterexample",
    "RuleVerification",
    "no_overflow_only",
    "verify_rule",
    "verify_rules",
]


@dataclass(frozen=True)
class RuleCounterexample:
    """An instance of a rule and an input on which before -> after is not a refinement."""

    before: UOp
    after: UOp
    inputs: dict[Any, Any] | None  # PARAM values by slot, RANGE values as "range <identifier>"
    values: tuple[Any, Any] | None  # (before, after) there; None for undefined
    found_by: str  # "z3" | "random" | "dtype/shape"
    int_semantics: str

    def __str__(self) -> str:
        from eqsat_uopc.greedy import one_line

        head = f"{one_line(self.before)} -> {one_line(self.after)}"
        if self.found_by == "dtype/shape":
            b, a = self.before, self.after
            return f"{head}: changes {b.dtype.name} {b.shape} to {a.dtype.name} {a.shape}"
        va, vb = self.values if self.values is not None else (None, None)
        return (
            f"{head} under {self.int_semantics} ({self.found_by}): at {format_inputs(self.inputs or {})} "
            f"before = {va!r}, after = {vb!r}"
        )


@dataclass
class RuleVerification:
    """What verify_rule found for one rule."""

    rule: str
    int_semantics: str  # as declared
    instances: int = 0  # instances the pattern matched
    fired: int = 0  # of which the rule rewrote
    proved: int = 0  # fired instances z3 proved
    vacuous: int = 0  # of those, proved only because the instance's lhs is defined for no input
    tested: int = 0  # fired f32 instances that held on every random input
    unknown: int = 0  # fired instances z3 could neither prove nor refute in time
    raised: int = 0  # instances on which the rule raised (an out-of-bounds constant INDEX)
    counterexample: RuleCounterexample | None = None  # under the declared semantics
    wrap_counterexample: RuleCounterexample | None = None  # "no_overflow" rules: a refutation under wrap

    @property
    def sound(self) -> bool:
        return self.counterexample is None

    @property
    def status(self) -> str:
        """ "unsound", "not_exercised" (never fired), "unknown" (a proof timed out), "tested" (some
        instances only tested: f32), or "proved"."""
        if self.counterexample is not None:
            return "unsound"
        if self.fired == 0:
            return "not_exercised"
        if self.unknown:
            return "unknown"
        return "tested" if self.tested else "proved"

    def __str__(self) -> str:
        text = (
            f"{self.rule} [{self.int_semantics}]: {self.status} ({self.fired} fired of {self.instances}, "
            f"{self.proved} proved{f' ({self.vacuous} vacuous)' if self.vacuous else ''}, "
            f"{self.tested} tested, {self.unknown} unknown)"
        )
        if self.counterexample is not None:
            text += f"\n  counterexample: {self.counterexample}"
        if self.wrap_counterexample is not None:
            text += f"\n  under wrap: {self.wrap_counterexample}"
        return text


def _rewrite_once(rule: Any, u: UOp) -> UOp | None:
    """What PatternMatcher.rewrite does with this one rule: the first binding that gives a new node."""
    for binding in rule.pat.match(u, {}):
        if (ret := rule.fn(**binding)) is not None and ret is not u:
            return ret
    return None


def _random_test(
    before: UOp, after: UOp, int_semantics: str, samples: int, seed: Any
) -> RuleCounterexample | None:
    sampler = InputSampler(random.Random(f"verify_rules:{seed}"), (before, after))
    params = {p.arg.slot: p for p in call_params(before)}
    for p in call_params(after):
        params.setdefault(p.arg.slot, p)
    for _ in range(samples):
        pv = {s: sampler.value(p.dtype, p.shape, p.arg.bounds) for s, p in params.items()}
        rv: dict[Any, int] = {}
        eb = evaluate(before, pv, rv, int_semantics, sampler.range_value)
        if not eb.defined:
            continue
        ea = evaluate(after, pv, rv, int_semantics, sampler.range_value)
        if not ea.defined or not same_value(eb.value, ea.value):
            return RuleCounterexample(
                before, after, named_inputs(pv, rv, None), (eb.value, ea.value), "random", int_semantics
            )
    return None


def _instances(rule: Any, n: int, seed: int) -> Iterable[UOp]:
    from eqsat_uopc.verify.rule_sampling import pattern_instances

    return pattern_instances(rule.pat, n, seed=seed)


def _hand_made_instances() -> dict[str, tuple[UOp, ...]]:
    """Instances that random synthesis rarely builds: the div/mod-of-a-sum rules fire only on a sum
    with a term that is a multiple of the divisor, which a random term seldom is."""
    a, b = UOp.param(0), UOp.param(1)
    return {
        "div_sum": ((a * 4 + b) // 4, (a * 6 + b * 3 + 5) // 3),  # (a*c + b) // c -> a + b // c
        "mod_sum": ((a * 4 + b) % 4, (a * 6 + b * 3 + 5) % 3),  # (a*c + b) % c -> b % c
    }


HAND_MADE_INSTANCES: dict[str, tuple[UOp, ...]] = _hand_made_instances()

_MATCHED_PER_FIRED = 8  # a rule's function refuses most random matches: draw this many per firing asked


def verify_rule(
    rule: Any,
    instances: int = 40,
    seed: int = 0,
    timeout_ms: int = 60_000,
    float_samples: int = 64,
    extra_instances: Iterable[UOp] = (),
    rlimit: int | None = 3_000_000,
) -> RuleVerification:
    """Verify one rule (anything with .pat, .fn, .name, .int_semantics) on random instances of its
    pattern until it has fired on `instances` of them (or 8 times as many matched without it).

    Each proof gets a z3 resource budget (rlimit), so that the verdicts do not depend on the
    machine's load; timeout_ms is only a safety net. Out of budget, an instance counts as unknown.
    """
    report = RuleVerification(rule.name, rule.int_semantics)
    declared = rule.int_semantics
    extra = [u for u in extra_instances if rule.pat.match(u, {})]
    candidates = itertools.chain(extra, _instances(rule, _MATCHED_PER_FIRED * instances, seed))
    for k, before in enumerate(candidates):
        if report.fired >= instances + len(extra):
            break
        report.instances += 1
        try:
            after = _rewrite_once(rule, before)
        except (IndexError, UOpError):
            report.raised += 1
            continue
        if after is None:
            continue
        report.fired += 1
        if after.dtype is not before.dtype or after.shape != before.shape:
            report.counterexample = RuleCounterexample(before, after, None, None, "dtype/shape", declared)
            break
        if has_f32(before, after):
            cex = _random_test(before, after, declared, float_samples, f"{seed}:{rule.name}:{k}")
            if cex is not None:
                report.counterexample = cex
                break
            report.tested += 1
            continue
        proof = prove_equivalent(before, after, declared, timeout_ms, refinement=True, rlimit=rlimit)
        if proof.status == "refuted":
            report.counterexample = RuleCounterexample(
                before, after, proof.counterexample, proof.values, "z3", declared
            )
            break
        if proof.status == "unknown":
            report.unknown += 1
            continue
        report.proved += 1
        report.vacuous += proof.status == "vacuous"
        if declared == "no_overflow" and report.wrap_counterexample is None:
            wrap = prove_equivalent(before, after, "wrap", timeout_ms, refinement=True, rlimit=rlimit)
            if wrap.status == "refuted":
                report.wrap_counterexample = RuleCounterexample(
                    before, after, wrap.counterexample, wrap.values, "z3", "wrap"
                )
    return report


def verify_rules(
    rules: Any,
    instances: int = 40,
    seed: int = 0,
    timeout_ms: int = 60_000,
    float_samples: int = 64,
    extra_instances: Mapping[str, Iterable[UOp]] = HAND_MADE_INSTANCES,
    rlimit: int | None = 3_000_000,
) -> list[RuleVerification]:
    """verify_rule for every rule of a PatternMatcher (or an iterable of rules), in order; the
    instances of extra_instances[rule name] (hand-made ones by default) are verified first."""
    rule_list = getattr(rules, "rules", rules)
    return [
        verify_rule(r, instances, seed, timeout_ms, float_samples, extra_instances.get(r.name, ()), rlimit)
        for r in rule_list
    ]


def no_overflow_only(reports: Iterable[RuleVerification]) -> list[tuple[str, RuleCounterexample]]:
    """The rules that hold only under no_overflow: proved as declared, refuted under wrap."""
    return [
        (r.rule, r.wrap_counterexample)
        for r in reports
        if r.sound and r.int_semantics == "no_overflow" and r.wrap_counterexample is not None
    ]
