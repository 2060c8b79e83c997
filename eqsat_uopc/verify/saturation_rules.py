"""verify_saturation_rules: prove the egglog rules of the rule values with z3, for every constant at once.

A saturation rule is egglog text: `(rewrite LHS RHS)`, `(birewrite LHS RHS)` (checked both ways),
or `(rule (QUERY ...) (ACTIONS ...))`. Its terms are the IR's ops in the encoding of
eqsat_uopc/saturation/terms.py (`(Add t x (Int c))`, `(Lt t a b)`, ...); its query may also bind
egglog primitives (`(= q (/ a b))`), compare them (`(> c 0)`) and read the interval analysis
(`(lo x)`, `(hi x)`). This module reads that text and turns each rule into one z3 question:

    hypotheses: the query's atoms, every term variable a value of its type that may be undefined,
                every (Int c) of the query an int32, (lo x) <= x <= (hi x) for a defined x
    obligation: for `(union e RHS)`: wherever e is defined, RHS is defined and equal (a refinement,
                as for the greedy rules; a constant built on the right-hand side must be an int32);
                for `(set (lo e) v)` / `(set (hi e) v)`: v <= e / e <= v wherever e is defined

so the guards are the hypotheses, and the proof covers every value of every constant, not a sample.
What is proved is every egglog form a rule value generates (`eqsat_uopc.rules.Rule.forms`), each
under the semantics of its form kind in the one table `eqsat_uopc.rules.FORM_KINDS`: a
no_overflow rule's unguarded form under "no_overflow", its guarded form (whose :guard must prove
the precondition in the query) under "wrap", like every wrap rule; i32 values
are integers with explicit wraparound (z3_encode.py, encoding "int"), so egglog's i64
primitives and the IR's values live in one theory. egglog's `/` and `%` truncate (as in Rust); `&`
is supported with the mask 2**32 - 1 that fold.egg uses for wraparound.

A rule's type variables (`t`) range over i32, bool and f32; each well-typed assignment is a separate
question. f32 typings are not proved: a rewrite's are tested on random inputs (egg_float.py), a
`rule`'s are reported as `f32_untested`. A rule whose text uses something this reader does not
model is "not_attempted" (with the reason); one whose hypotheses are contradictory is "vacuous"
rather than "proved". Shaped types need no separate proof: every op these rules rewrite is
elementwise.

Semantics of a union: e-graphs treat it as an equality, but in a graph where some terms may be
undefined (x // 0) the claim checked is the refinement lhs -> rhs, as for a greedy rewrite.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import z3

from eqsat_uopc.ir.dtype import I32_MAX, I32_MIN
from eqsat_uopc.rules import FAMILIES, Family
from eqsat_uopc.verify.egg_encode import F32, TYPES, Encoder, IllTyped, NeedType
from eqsat_uopc.verify.egg_text import EggRule, egg_rules, parse_egg_rules
from eqsat_uopc.verify.z3_encode import NotEncodable, own_z3_context

__all__ = [
    "EggRule",
    "EggRuleVerification",
    "egg_rules",
    "parse_egg_rules",
    "verify_egg_rule",
    "verify_saturation_rules",
]


# ---------------------------------------------------------------------------
# verification


@dataclass
class EggRuleVerification:
    """What verify_egg_rule found for one rule (one direction of a birewrite)."""

    rule: str
    form: str  # the form kind proved (rules.FORM_KINDS): "wrap", "guarded", "noovf", ...
    int_semantics: str
    # "proved" (for every constant), "tested" (proved on random constants, the symbolic question was
    # too hard), "refuted", "unknown", "vacuous", or "not_attempted"
    status: str = "not_attempted"
    typings: int = 0  # well-typed assignments of the rule's types that were checked
    instances: int = 0  # "tested": constant instances proved (vacuous ones not counted)
    f32_tested: int = 0  # inputs compared by random testing of the f32 typings
    f32_untested: bool = False  # some well-typed f32 typing could not be tested
    counterexample: dict[str, Any] | None = None
    reason: str = ""

    @property
    def sound(self) -> bool:
        return self.status != "refuted"

    def __str__(self) -> str:
        text = f"{self.rule} [{self.int_semantics}]: {self.status}"
        if self.instances:
            text += f" on {self.instances} constant instances"
        if self.typings > 1:
            text += f" ({self.typings} typings)"
        if self.f32_tested:
            text += f" (f32: {self.f32_tested} random inputs)"
        if self.f32_untested:
            text += " (f32 not tested)"
        if self.counterexample is not None:
            text += f"; counterexample: {self.counterexample}"
        if self.reason:
            text += f" ({self.reason})"
        return text


def _model_value(m: z3.ModelRef, v: Any) -> Any:
    r = m.eval(v, model_completion=True)
    if z3.is_true(r) or z3.is_false(r):
        return z3.is_true(r)
    return r.as_long()


def _counterexample(enc: Encoder, m: z3.ModelRef) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, (v, d, _) in enc.terms.items():
        if name.startswith("$"):
            continue
        defined = d is True or z3.is_true(m.eval(d, model_completion=True))
        out[name] = _model_value(m, v) if defined else "undefined"
    for name, v in enc.prims.items():
        if name not in out:
            out[name] = _model_value(m, v)
    return out


def _encode(rule: EggRule, assignment: tuple[str, ...], fixed: dict[str, int] | None) -> tuple[Encoder, list]:
    enc = Encoder(rule, assignment, fixed)
    for atom in rule.query:
        enc.query(atom)
    goals = [enc.action(a) for a in rule.actions]
    if enc.has_f32:
        raise F32
    return enc, goals


def _typings(rule: EggRule) -> tuple[list[tuple[str, ...]], list[dict[str, str]]]:
    """The well-typed assignments of the rule's type variables that have no f32 value, and the
    types of the term variables in each well-typed assignment that has one."""
    out, f32, pending = [], [], [()]
    while pending:
        assignment = pending.pop()
        enc = Encoder(rule, assignment, None)
        try:
            for atom in rule.query:
                enc.query(atom)
            for a in rule.actions:
                enc.action(a)
        except NeedType:
            pending.extend((*assignment, t) for t in reversed(TYPES))
            continue
        except IllTyped:
            continue
        if enc.has_f32:
            f32.append({name: typ for name, (_, _, typ) in enc.terms.items()})
        else:
            out.append(assignment)
    return out, f32


def _test_f32(
    rule: EggRule, f32: list[dict[str, str]], report: EggRuleVerification, samples: int, seed: int
) -> None:
    """Random testing of the f32 typings of a rewrite (egg_float.py); sets report fields."""
    from eqsat_uopc.verify.egg_float import Untestable, random_test_f32

    rewrite = len(rule.query) == 1 and len(rule.actions) == 1 and rule.query[0][:2] == ["=", "$e"]
    if not rewrite or rule.actions[0][:2] != ["union", "$e"]:
        report.f32_untested = True
        return
    lhs, rhs = rule.query[0][2], rule.actions[0][2]
    for k, var_types in enumerate(f32):
        try:
            compared, cex = random_test_f32(lhs, rhs, var_types, samples, f"{seed}:{rule.name}:{k}")
        except Untestable:
            report.f32_untested = True
            return
        report.f32_tested += compared
        if cex is not None:
            report.status, report.counterexample = "refuted", cex
            report.reason = "f32, by random testing"
            return


_EDGES = (
    0,
    1,
    -1,
    2,
    -2,
    3,
    -3,
    4,
    -4,
    7,
    8,
    -8,
    12,
    16,
    2**30,
    I32_MAX,
    I32_MIN,
    I32_MAX - 1,
    I32_MIN + 1,
)


def _constants(rng: random.Random, names: list[str]) -> dict[str, int]:
    """Edge-biased int32 constants; often a multiple of an earlier one (divisibility guards)."""
    out: dict[str, int] = {}
    for n in names:
        p = rng.random()
        if out and p < 0.3:
            v = rng.choice(list(out.values())) * rng.choice((1, 2, 3, -1, -2))
        elif p < 0.7:
            v = rng.choice(_EDGES)
        elif p < 0.9:
            v = rng.randint(-20, 20)
        else:
            v = rng.randint(I32_MIN, I32_MAX)
        out[n] = max(I32_MIN, min(I32_MAX, v))
    return out


@own_z3_context()  # the verdict depends on nothing that ran before in the process
def verify_egg_rule(
    rule: EggRule,
    rlimit: int = 2_000_000,
    instances: int = 24,
    seed: int = 0,
    timeout_ms: int = 20_000,
    f32_samples: int = 200,
) -> EggRuleVerification:
    """Prove one rule under its declared semantics, for every well-typed assignment of its types.

    Each question gets a z3 resource budget (rlimit, deterministic; timeout_ms is only a safety
    net). A question too hard for it symbolically (a product or a division of two symbolic
    constants is non-linear) is asked again with the query's constants fixed to `instances`
    random edge-biased values: each of those is linear, and the rule is then "tested". The f32
    typings of a rewrite are tested on f32_samples random inputs (egg_float.py).
    """
    report = EggRuleVerification(rule.name, rule.form, rule.int_semantics)
    try:
        typings, f32 = _typings(rule)
    except NotEncodable as e:
        report.status, report.reason = "not_attempted", str(e)
        return report
    if f32:
        _test_f32(rule, f32, report, f32_samples, seed)
        if report.status == "refuted":
            return report
    if not typings:
        if f32 and not report.f32_untested:
            report.status = "tested"
        else:
            report.reason = "every well-typed assignment has f32 values" if f32 else "no typing"
        return report
    report.typings = len(typings)
    statuses = []
    for assignment in typings:
        enc, goals = _encode(rule, assignment, None)
        status, detail = _prove(enc, goals, rlimit, timeout_ms)
        if status == "unknown" and enc.lhs_constants:
            status, detail = _prove_instances(
                rule, assignment, enc.lhs_constants, report, rlimit, timeout_ms, instances, seed
            )
        statuses.append(status)
        if status == "refuted":
            report.status, report.counterexample = "refuted", detail
            return report
        if status == "unknown":
            report.reason = detail
    for status in ("unknown", "vacuous", "tested"):
        if status in statuses:
            report.status = status
            if status == "vacuous":
                report.reason = "its hypotheses are contradictory"
            return report
    report.status = "proved"
    return report


def _prove_instances(
    rule: EggRule,
    assignment: tuple[str, ...],
    names: list[str],
    report: EggRuleVerification,
    rlimit: int,
    timeout_ms: int,
    instances: int,
    seed: int,
) -> tuple[str, Any]:
    rng = random.Random(f"{seed}:{rule.name}:{assignment}")
    proved = unknown = 0
    # after all of them fixed, one or two constants left symbolic in turn: hypotheses relating the
    # constants (p = a * b, m = b * s) then pin them, where independent random values would almost
    # never satisfy them (a vacuous instance)
    left_free = [()] + [c for k in (1, 2) if len(names) > k for c in itertools.combinations(names, k)]
    for _ in range(instances * 8):
        if proved >= instances:
            break
        drawn = _constants(rng, names)
        for left in left_free:
            enc, goals = _encode(rule, assignment, {n: v for n, v in drawn.items() if n not in left})
            status, detail = _prove(enc, goals, rlimit, timeout_ms)
            if status != "vacuous":
                break
        if status == "refuted":
            return status, detail
        proved += status == "proved"
        unknown += status == "unknown"
    report.instances += proved
    if proved == 0:
        return "unknown", f"too hard for z3 symbolically and on {unknown} constant instances"
    return "tested", ""


def _prove(enc: Encoder, goals: list[Any], rlimit: int, timeout_ms: int) -> tuple[str, Any]:
    s = z3.Solver()
    s.set("timeout", int(timeout_ms))
    s.set("rlimit", int(rlimit))
    s.add(*enc.hyps, *enc.domain.hypotheses)
    if s.check() == z3.unsat:
        return "vacuous", None
    s.add(z3.Not(z3.And(*goals)))
    r = s.check()
    if r == z3.unsat:
        return "proved", None
    if r == z3.sat:
        return "refuted", _counterexample(enc, s.model())
    return "unknown", s.reason_unknown() or "z3 gave up"


def verify_saturation_rules(
    families: Iterable[str | Family] | None = None,
    rlimit: int = 2_000_000,
    instances: int = 24,
    seed: int = 0,
    f32_samples: int = 200,
) -> list[EggRuleVerification]:
    """verify_egg_rule for every form of every egglog rule of the given families (Family values or
    names of bundled ones; by default every bundled family): the rule values the engine runs."""
    chosen = (
        FAMILIES.values()
        if families is None
        else [FAMILIES[f] if isinstance(f, str) else f for f in families]
    )
    return [
        verify_egg_rule(form, rlimit, instances, seed, f32_samples=f32_samples)
        for family in chosen
        for rule in family.egg_rules
        for form in egg_rules(rule)
    ]
