"""Greedy against saturation on the same program: costs, times, and whether the results are right.

`compare` runs the chapter's greedy `simplify` and equality saturation + extraction on one program
and reports, side by side: the cost of the input, the greedy result and the saturated result
under every cost model; the wall time of each phase; the saturation report; whether the greedy
result is in the root's e-class; optimize's own validation of its result (`validation`: what
optimize checked before returning it, and what it replaced if a candidate was refuted); and
equivalence verdicts of both results against the input (random inputs through the reference
evaluator, the interpreter and the C backend, and a z3 proof for int/bool programs, under the
integer semantics asked for).

Note that greedy `symbolic` applies its `no_overflow` rules unconditionally (the chapter's rule
set), so under int_semantics="wrap" a greedy result can be refuted where saturation's is not: that
is a finding about the rules, reported as such.

`compare_rows` / `summarize` turn comparisons of a corpus into flat rows and one summary, which
the CLI prints as a table, JSON or CSV; `compare_job` is the picklable sweep job behind them.

    >>> from eqsat_uopc import UOp, compare
    >>> x = UOp.param(0)
    >>> c = compare((x * 4 + 8) // 4, samples=20)  # int_semantics "wrap": x * 4 can wrap
    >>> c.outcome, c.greedy_verdict.status, c.verdict.status
    ('greedy_refuted', 'refuted', 'proved')
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from eqsat_uopc.extract import COST_ALIASES, COST_MODELS, CostModelError, Extraction, cost_of, costs_of
from eqsat_uopc.greedy import simplify
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.pipeline.optimization import optimize
from eqsat_uopc.saturation import SaturationConfig, SaturationReport, resolve_config
from eqsat_uopc.verify import Validation, Verdict, check_equivalent

__all__ = [
    "GEOMEAN_LEFT_OUT",
    "OUTCOMES",
    "Comparison",
    "compare",
    "compare_job",
    "constant_value",
    "rank",
    "summarize",
    "tinygrad_fields",
    "validation_fields",
]


# a row's outcome: saturated against greedy by cost, when greedy's result was verified (proved,
# tested or vacuous against the input); "greedy_refuted" when it was refuted (its cost is no
# yardstick); the same ranks with "_unverified" when it was not checked (verify=False, or a verdict
# "unknown"), where a wrong greedy result is not caught: it would show as larger or equal
OUTCOMES = (
    "smaller",
    "equal",
    "larger",
    "greedy_refuted",
    "smaller_unverified",
    "equal_unverified",
    "larger_unverified",
)


def constant_value(u: UOp) -> Any:
    """The value of a scalar CONST program, else None (a program that is not a constant)."""
    return u.arg if u.op is Ops.CONST else None


@dataclass(frozen=True)
class Comparison:
    """Greedy and saturated results of one program, with costs, times and verdicts."""

    program: UOp
    greedy: UOp
    saturated: UOp
    cost_model: str
    int_semantics: str
    costs: dict[str, dict[str, float]]  # "input" | "greedy" | "saturated" -> cost model -> cost
    times: dict[str, float]  # "greedy", "saturate", "extract", "validate", "verify" -> seconds
    report: SaturationReport
    optimal: bool | None
    greedy_in_egraph: bool
    verdict: Verdict | None  # saturated vs input
    greedy_verdict: Verdict | None  # greedy vs input
    names: Mapping[int, str] | None = field(default=None, repr=False)
    extraction: Extraction | None = field(default=None, repr=False)  # optimize's result (its .saturation)
    validation: Validation | None = None  # optimize's check of the saturated result against the input

    @property
    def ratio(self) -> float:
        """Saturated cost over greedy cost under the chosen model (< 1: saturation won)."""
        g, s = self.costs["greedy"][self.cost_model], self.costs["saturated"][self.cost_model]
        return s / g if g else (1.0 if s == g else math.inf)

    @property
    def pulses(self) -> int:
        """How many saturations optimize ran (see optimize: each pulse restarts from the last result)."""
        info = self.extraction.info if self.extraction is not None else {}
        return len(info["pulses"]) if "pulses" in info else 1

    @property
    def greedy_refuted(self) -> bool:
        """Was the greedy result shown wrong under the int semantics asked for? (Then its size is no
        benchmark: it may be small because a no_overflow rule fired where inputs can overflow.)"""
        return self.greedy_verdict is not None and self.greedy_verdict.status == "refuted"

    @property
    def greedy_verified(self) -> bool:
        """Was the greedy result checked against the input and not refuted or left undecided? Not
        with verify=False (nor with an "unknown" verdict): a wrong greedy result then goes unseen."""
        return self.greedy_verdict is not None and self.greedy_verdict.status in (
            "proved",
            "tested",
            "vacuous",
        )

    @property
    def outcome(self) -> str:
        """ "smaller" / "equal" / "larger": saturated against greedy under the cost model, or
        "greedy_refuted" when the greedy result is wrong (see greedy_refuted); "smaller_unverified"
        (and so on) when the greedy result was not verified (see OUTCOMES)."""
        if self.greedy_refuted:
            return "greedy_refuted"
        ranked = rank(self.costs["saturated"][self.cost_model], self.costs["greedy"][self.cost_model])
        return ranked if self.greedy_verified else f"{ranked}_unverified"

    def to_dict(self) -> dict[str, Any]:
        """One flat, JSON-able row: what a table, a CSV line or a sweep record holds."""
        r: dict[str, Any] = {
            "cost_model": self.cost_model,
            "int_semantics": self.int_semantics,
            "outcome": self.outcome,
            "ratio": self.ratio,
            "optimal": self.optimal,
            "pulses": self.pulses,
            "stop_reason": self.report.stop_reason.value,
            "iterations": self.report.iterations,
            "enodes": self.report.final_enodes,
            "greedy_in_egraph": self.greedy_in_egraph,
            "greedy_constant": constant_value(self.greedy),
            "saturated_constant": constant_value(self.saturated),
            "verdict": None if self.verdict is None else self.verdict.status,
            "greedy_verdict": None if self.greedy_verdict is None else self.greedy_verdict.status,
            **validation_fields(self.validation),
        }
        for who, costs in self.costs.items():
            for model, c in costs.items():
                r[f"{who}_{model}"] = c
        for phase, t in self.times.items():
            r[f"time_{phase}"] = round(t, 6)
        return r

    def __str__(self) -> str:
        from eqsat_uopc.ir.uir import to_uir

        models = list(self.costs["input"])
        w = max(len(m) for m in models)
        lines = [f"compare ({self.int_semantics}, extraction by {self.cost_model}):"]
        lines.append(f"  {'':{w}}  {'input':>10} {'greedy':>10} {'saturated':>10}")
        for m in models:
            cells = " ".join(f"{self.costs[k][m]:>10g}" for k in ("input", "greedy", "saturated"))
            lines.append(f"  {m:{w}}  {cells}")
        g, s = self.costs["greedy"][self.cost_model], self.costs["saturated"][self.cost_model]
        how = "smaller than" if s < g else "larger than" if s > g else "the same cost as"
        if self.greedy_refuted:
            caveat = "; the greedy result is REFUTED (wrong under this int semantics)"
        elif self.greedy_verdict is None:
            caveat = "; the greedy result was not verified (a wrong one would go unseen)"
        elif not self.greedy_verified:
            caveat = (
                f"; the greedy result's verdict is {self.greedy_verdict.status} (a wrong one would go unseen)"
            )
        else:
            caveat = ""
        lines.append(f"  saturated is {how} greedy (ratio {self.ratio:.3f}){caveat}")
        rep = self.report
        pulses = f" ({self.pulses} pulses, the last:)" if self.pulses > 1 else ""
        lines.append(
            f"  saturation{pulses}: {rep.stop_reason.value} after {rep.iterations} iterations, "
            f"{rep.enodes[-1] if rep.enodes else 0} e-nodes; greedy result "
            f"{'is' if self.greedy_in_egraph else 'is not'} in the root's e-class"
        )
        lines.append("  times: " + ", ".join(f"{k} {v * 1000:.1f} ms" for k, v in self.times.items()))
        if self.validation is not None:
            lines.append(f"  validated: {self.validation}")
        for who, v in (("saturated", self.verdict), ("greedy", self.greedy_verdict)):
            if v is not None:
                lines.append(f"  {who} vs input: " + str(v).replace("\n", "\n  "))
        lines.append("  saturated program:")
        lines += ["    " + ln for ln in to_uir(self.saturated).splitlines()]
        return "\n".join(lines)


def validation_fields(v: Validation | None) -> dict[str, Any]:
    """A row's account of optimize's validation: its status, what decided it, which candidate was
    returned, how many were refuted and replaced before it (each a bug of the rewrites)."""
    if v is None:
        return {
            "validation": None,
            "validation_check": None,
            "validation_returned": None,
            "validation_replaced": 0,
        }
    return {
        "validation": v.status,
        "validation_check": v.check or None,
        "validation_returned": v.candidate,
        "validation_replaced": len(v.replaced),
    }


def rank(cost: float, reference: float) -> str:
    """ "smaller", "equal" or "larger": a cost against a reference cost."""
    return "smaller" if cost < reference else "larger" if cost > reference else "equal"


def compare(
    program: UOp,
    config: SaturationConfig | None = None,
    /,
    *,
    verify: bool = True,
    samples: int = 100,
    seed: int = 0,
    backends: Sequence[str] = ("interpreter", "c"),
    prove: bool = True,
    names: Mapping[int, str] | None = None,
    **settings: Any,
) -> Comparison:
    """Run greedy and `optimize` on program and compare them (see the module docstring).

    config and keyword settings are optimize's (SaturationConfig); verify, samples, seed, backends
    and prove configure the equivalence checks of both results against the input.
    """
    config = resolve_config("compare", config, settings)
    cost_model_name = COST_ALIASES.get(config.cost, config.cost) if isinstance(config.cost, str) else None
    if cost_model_name not in COST_MODELS:
        known = ", ".join(COST_MODELS)
        raise CostModelError(
            f"compare prices results under every built-in cost model; cost must be one of {known}"
        )
    t0 = time.perf_counter()
    greedy = simplify(program)
    t1 = time.perf_counter()
    ext = optimize(program, None, config)
    pulses = ext.info.get("pulses", (ext,))
    greedy_in = pulses[0].saturation.equivalent(program, greedy)  # the e-graph of the input itself
    validation = ext.validation
    t2 = time.perf_counter()
    verdict = greedy_verdict = None
    if verify:
        kw = dict(
            int_semantics=config.int_semantics, samples=samples, seed=seed, backends=backends, prove=prove
        )
        verdict = check_equivalent(program, ext.program, names=names, **kw)
        greedy_verdict = (
            verdict if greedy is ext.program else check_equivalent(program, greedy, names=names, **kw)
        )
    t3 = time.perf_counter()
    costs = {"input": costs_of(program), "greedy": costs_of(greedy), "saturated": costs_of(ext.program)}
    if cost_of(ext.program, cost_model_name) != ext.cost:  # the extractor's own account must match
        raise AssertionError(f"extracted cost {ext.cost} differs from the program's {cost_model_name} cost")
    report = ext.report
    return Comparison(
        program=program,
        greedy=greedy,
        saturated=ext.program,
        cost_model=cost_model_name,
        int_semantics=config.int_semantics,
        costs=costs,
        times={
            "greedy": t1 - t0,
            "saturate": sum(p.report.total_time for p in pulses),
            "extract": sum(p.seconds for p in pulses),
            "validate": validation.total_seconds,
            "verify": t3 - t2,
        },
        report=report,
        optimal=ext.optimal,
        greedy_in_egraph=greedy_in,
        verdict=verdict,
        greedy_verdict=greedy_verdict,
        names=names,
        extraction=ext,
        validation=validation,
    )


# ---------------------------------------------------------------------------
# corpus rows: one picklable job per program, and the summary over them


def compare_job(payload: dict[str, Any]) -> dict[str, Any]:
    """The sweep job: payload {"program", "config", optional "names", "expected", "meta", "against",
    "tinygrad", plus compare's keyword options in "options"} -> a row (Comparison.to_dict plus the
    entry's own fields, plus the tinygrad columns when "against" is "tinygrad")."""
    program = payload["program"]
    names = dict(enumerate(payload["names"])) if payload.get("names") else None
    c = compare(program, payload.get("config"), names=names, **payload.get("options", {}))
    row = {"size": program.size, **payload.get("meta", {}), **c.to_dict()}
    if "expected" in payload:
        row.update(_proof_fields(payload["expected"], row["greedy_constant"], row["saturated_constant"]))
    if payload.get("against") == "tinygrad":
        row.update(tinygrad_fields(c, payload.get("names"), payload.get("tinygrad")))
    return row


def tinygrad_fields(c: Comparison, names: Sequence[str] | None, recorded: UOp | None) -> dict[str, Any]:
    """tinygrad's simplification of the compared program priced like ours, and how ours rank against it.

    tinygrad's simplifier runs live when tinygrad is installed; otherwise the result a corpus
    recorded (`recorded`) is used, and `tinygrad_source` says which. A program the bridge cannot
    translate gets `tinygrad_error` instead of costs.
    """
    from eqsat_uopc.tinygrad import TinygradError, tinygrad_available, tinygrad_simplify

    if tinygrad_available():
        try:
            theirs, source = tinygrad_simplify(c.program, names), "live"
        except TinygradError as e:
            return {"tinygrad_source": None, "tinygrad_error": str(e), "vs_tinygrad": None}
    elif recorded is not None:
        theirs, source = recorded, "recorded"
    else:
        error = "tinygrad is not installed (pip install 'eqsat-uopc[tinygrad]') and no result is recorded"
        return {"tinygrad_source": None, "tinygrad_error": error, "vs_tinygrad": None}
    costs = costs_of(theirs)
    out: dict[str, Any] = {"tinygrad_source": source, **{f"tinygrad_{m}": v for m, v in costs.items()}}
    for who in ("saturated", "greedy"):
        ours, ref = c.costs[who][c.cost_model], costs[c.cost_model]
        key = "vs_tinygrad" if who == "saturated" else "greedy_vs_tinygrad"
        out[key] = rank(ours, ref)
    return out


def _proof_fields(expected: Any, greedy_const: Any, saturated_const: Any) -> dict[str, Any]:
    """Does each method reduce the program to the expected constant? expected None: must not.

    A constant that contradicts the expected one, or any constant where none is expected (a
    `mixed` Caviar expression), is a soundness bug, flagged in `*_wrong`.
    """

    def judge(got: Any) -> tuple[bool, bool]:
        if got is None:
            return False, False
        if expected is None:
            return False, True
        return got == expected and type(got) is type(expected), got != expected

    gp, gw = judge(greedy_const)
    sp, sw = judge(saturated_const)
    return {
        "expected": expected,
        "greedy_proves": gp,
        "saturated_proves": sp,
        "greedy_wrong": gw,
        "saturated_wrong": sw,
    }


def summarize(rows: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Counts and means over sweep rows: outcomes (OUTCOMES), the geometric-mean ratio with the rows
    it covers and those it leaves out, by reason (`geomean_rows`, `geomean_left_out`: reason ->
    keys), proofs, validations (and the rows whose result validation refuted and replaced: bugs of
    the rewrites), bugs, time. Every count but `programs` and the statuses is over the compared
    (status "ok") rows."""
    rows = list(rows)
    ok = [r for r in rows if r.get("status", "ok") == "ok"]
    out: dict[str, Any] = {"programs": len(rows), "completed": len(ok)}
    for status in ("timeout", "crashed", "error"):
        out[status] = sum(r.get("status") == status for r in rows)
    for outcome in OUTCOMES:
        out[outcome] = sum(r["outcome"] == outcome for r in ok)
    ratios, left_out = _geomean_rows(rows)
    out["geomean_ratio"] = math.exp(sum(map(math.log, ratios)) / len(ratios)) if ratios else None
    out["geomean_rows"] = len(ratios)
    out["geomean_left_out"] = left_out
    out["greedy_in_egraph"] = sum(bool(r["greedy_in_egraph"]) for r in ok)
    for who in ("verdict", "greedy_verdict", "validation"):
        statuses = [r[who] for r in ok if r.get(who) is not None]
        out[who] = {s: statuses.count(s) for s in sorted(set(statuses))}
    out["validation_replaced"] = sum(bool(r.get("validation_replaced")) for r in ok)
    if any("expected" in r for r in ok):
        for key in ("greedy_proves", "saturated_proves", "greedy_wrong", "saturated_wrong"):
            out[key] = sum(bool(r.get(key)) for r in ok)
    for key in ("vs_tinygrad", "greedy_vs_tinygrad"):
        ranks = [r[key] for r in ok if r.get(key) is not None]
        if ranks:
            out[key] = {k: ranks.count(k) for k in ("smaller", "equal", "larger")}
    for phase in ("greedy", "saturate", "extract", "validate", "verify"):
        out[f"time_{phase}"] = round(sum(r.get(f"time_{phase}", 0.0) for r in ok), 3)
    return out


# why a row is not in the geometric mean: reason -> (what it is, why that leaves it out), as
# comparison_table prints them
GEOMEAN_LEFT_OUT = {
    "greedy_refuted": ("greedy refuted", "a wrong result's cost is no yardstick"),
    "zero_cost": ("zero cost", "a ratio of 0 or infinity has no logarithm"),
    "not_compared": ("not compared", "a program that timed out, crashed or failed has no costs"),
}


def _geomean_rows(rows: Sequence[Mapping[str, Any]]) -> tuple[list[float], dict[str, list[str]]]:
    """The ratios the geometric mean is over, and the keys of the rows it leaves out, by reason
    (only the reasons that occur). Unverified rows are in: their greedy result was not checked."""
    ratios: list[float] = []
    left_out: dict[str, list[str]] = {}
    for r in rows:
        if r.get("status", "ok") != "ok":
            reason = "not_compared"
        elif r["outcome"] == "greedy_refuted":
            reason = "greedy_refuted"
        elif not 0 < r["ratio"] < math.inf:
            reason = "zero_cost"
        else:
            ratios.append(r["ratio"])
            continue
        left_out.setdefault(reason, []).append(str(r.get("key", "?")))
    return ratios, left_out
