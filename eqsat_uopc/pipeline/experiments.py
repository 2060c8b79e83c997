"""Helpers for the research notebooks: the measurements they make, as tested library functions.

The notebooks in `notebooks/` ask one question each and answer it with the public API. What they
need beyond one `compare` or `saturate` call lives here, so that it is tested and reusable:

- corpus loading with the repository-relative path (`caviar_path`, `caviar_sample`) and the
  expected constant of a Caviar entry (`expected_constant`, `proof_status`);
- greedy against saturation under several cost models from *one* saturation, with an extraction
  time limit (`greedy_vs_saturated`);
- budgets: `budget_sweep` (one saturation per node budget), `growth_table` (e-graph size per
  iteration), `iteration_times` (wall time of each iteration), `add_chain` (the associativity
  blow-up);
- extractors: `extractor_table` (every extractor on one e-graph, cost and time);
- rule order: `permuted_matchers` and `rule_order_results` (greedy under permuted rule lists);
- runtime: `c_runtime` (ns per lane through `compile_c(...).time`, one median per program); `batched`
  and `lane_values` come from timing.py, which times programs for `cost="measured"` (interleaved
  rounds, quartiles: use that to compare programs).

Rows are plain dicts of JSON-able values, so a notebook can tabulate or plot them directly.
"""

from __future__ import annotations

import functools
import math
import operator
import random
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from eqsat_uopc.backend import compile_c
from eqsat_uopc.corpus import VERDICTS, CorpusEntry, caviar_path, load_corpus
from eqsat_uopc.extract import AUTO_BRANCH_LIMIT, EXTRACTORS, cost_of, extract
from eqsat_uopc.greedy import PatternMatcher, graph_rewrite, symbolic
from eqsat_uopc.ir.dtype import dtypes
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uir import to_uir
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.pipeline.comparison import compare
from eqsat_uopc.pipeline.timing import batched, lane_values, program_inputs
from eqsat_uopc.saturation import DEFAULT_CONFIG, SaturationConfig, saturate

__all__ = [
    "add_chain",
    "batched",
    "budget_sweep",
    "c_runtime",
    "caviar_path",
    "caviar_sample",
    "corpus_job",
    "expected_constant",
    "extractor_table",
    "greedy_vs_saturated",
    "growth_table",
    "iteration_times",
    "lane_values",
    "permuted_matchers",
    "proof_status",
    "rule_order_results",
    "run_corpus",
]


# ---------------------------------------------------------------------------
# corpora


def caviar_sample(n: int | None = None, seed: int = 0, path: str | Path | None = None) -> list[CorpusEntry]:
    """n entries of the Caviar corpus drawn with `seed` (all of them for n=None), in file order."""
    entries = load_corpus(caviar_path() if path is None else path)
    if n is None or n >= len(entries):
        return entries
    if n < 0:
        raise ValueError(f"caviar_sample: n must be >= 0, got {n}")
    chosen = sorted(random.Random(seed).sample(range(len(entries)), n))
    return [entries[i] for i in chosen]


def expected_constant(entry: CorpusEntry) -> bool | None:
    """The constant a proof of this Caviar entry gives (True/False), or None for a `mixed` one."""
    if entry.verdict not in VERDICTS or entry.verdict == "unknown":
        raise ValueError(f"{entry.id}: sample verdict {entry.verdict!r} says nothing about a constant")
    return VERDICTS[entry.verdict]


def proof_status(expected: bool | None, result: UOp) -> str:
    """ "proved" (reduced to the expected constant), "open" (not a constant) or "wrong".

    "wrong" is a soundness bug: a constant other than the expected one, or any constant for an
    expression that is not constant on the samples (expected None). Types count: 1 is not True.
    """
    if result.op is not Ops.CONST or result.shape != ():
        return "open"
    value = result.arg
    if expected is not None and type(value) is type(expected) and value == expected:
        return "proved"
    return "wrong"


# ---------------------------------------------------------------------------
# greedy vs saturation


def greedy_vs_saturated(
    program: UOp,
    config: SaturationConfig | None = None,
    /,
    *,
    cost_models: Sequence[str] = ("dag_size", "latency"),
    expected: Any = ...,
    **settings: Any,
) -> dict[str, Any]:
    """`compare` (without the equivalence checks) of program, its one saturation extracted under each
    cost model (the first is the config's cost).

    The row holds, per model m: `greedy_m`, `saturated_m` (the program extracted under m, priced
    under m), `ratio_m` (saturated/greedy, 1.0 when both are 0) and `optimal_m`; the programs as
    .uir (`input_uir`, `greedy_uir`, `saturated_uir` for the first model); the saturation report's
    stop reason, iterations and final e-nodes; times in seconds. With `expected` (a Caviar
    entry's expected constant, None for `mixed`), also `greedy_status` and `saturated_status`
    (see proof_status).
    """
    if not cost_models:
        raise ValueError("greedy_vs_saturated needs at least one cost model")
    c = compare(program, config, verify=False, cost=cost_models[0], **settings)
    rep = c.report
    row: dict[str, Any] = {
        "size": program.size,
        "stop_reason": str(rep.stop_reason),
        "iterations": rep.iterations,
        "enodes": rep.final_enodes,
        "time_greedy": c.times["greedy"],
        "time_saturate": c.times["saturate"],
        "input_uir": to_uir(program),
        "greedy_uir": to_uir(c.greedy),
        "saturated_uir": to_uir(c.saturated),
    }
    for m in cost_models:
        res = c.extraction if m == cost_models[0] else c.extraction.saturation.extract(cost=m)
        g = cost_of(c.greedy, m)
        row[f"input_{m}"] = cost_of(program, m)
        row[f"greedy_{m}"] = g
        row[f"saturated_{m}"] = res.cost
        row[f"ratio_{m}"] = res.cost / g if g else (1.0 if res.cost == g else math.inf)
        row[f"optimal_{m}"] = res.optimal
        row[f"time_extract_{m}"] = res.seconds
    if expected is not ...:
        row["expected"] = expected
        row["greedy_status"] = proof_status(expected, c.greedy)
        row["saturated_status"] = proof_status(expected, c.saturated)
    return row


def corpus_job(payload: dict[str, Any]) -> dict[str, Any]:
    """The sweep job behind run_corpus: payload {"program", "config", "cost_models", optional
    "expected", "meta"}."""
    kw: dict[str, Any] = {"cost_models": payload["cost_models"]}
    if "expected" in payload:
        kw["expected"] = payload["expected"]
    return {**payload.get("meta", {}), **greedy_vs_saturated(payload["program"], payload["config"], **kw)}


def run_corpus(
    items: Iterable[tuple[str, UOp, Any]],
    config: SaturationConfig | None = None,
    *,
    cost_models: Sequence[str] = ("dag_size", "latency"),
    workers: int = 1,
    time_limit: float | None = 60.0,
    meta: Mapping[str, Mapping[str, Any]] | None = None,
) -> list[dict[str, Any]]:
    """greedy_vs_saturated over (key, program, expected) items through `sweep`, rows in item order.

    expected is ... for "no expectation" (generated programs). workers=0 runs in this process;
    workers >= 1 isolates every program in worker processes with a wall-time limit, so one
    exploding e-graph becomes a "timeout" row instead of a stuck notebook. Every row has the
    sweep's `key`, `status` ("ok" | "timeout" | "crashed" | "error") and `error`.
    """
    from eqsat_uopc.pipeline.sweep import SweepTask, sweep

    config = config or DEFAULT_CONFIG
    tasks, order = [], []
    for key, program, expected in items:
        payload: dict[str, Any] = {"program": program, "config": config, "cost_models": tuple(cost_models)}
        if expected is not ...:
            payload["expected"] = expected
        if meta is not None and key in meta:
            payload["meta"] = dict(meta[key])
        tasks.append(SweepTask(key, payload))
        order.append(key)
    rows = sweep(tasks, corpus_job, workers=workers, time_limit=time_limit, progress=False)
    position = {k: i for i, k in enumerate(order)}
    return sorted(rows, key=lambda r: position[r["key"]])


# ---------------------------------------------------------------------------
# budgets


def add_chain(leaves: int, dtype=dtypes.i32) -> UOp:
    """p0 + p1 + ... + p(leaves-1), left-nested: associativity and commutativity make every
    bracketing and order equal, 2^(leaves-1)-ish e-nodes in the limit (the blow-up of
    docs/DESIGN.md, "Budgets")."""
    if leaves < 2:
        raise ValueError(f"add_chain needs at least 2 leaves, got {leaves}")
    return functools.reduce(operator.add, (UOp.param(k, dtype) for k in range(leaves)))


def growth_table(report: Any) -> list[dict[str, Any]]:
    """E-graph size per iteration of a SaturationReport: iteration 0 is the lowered program."""
    rows = []
    for k, (n, c) in enumerate(zip(report.enodes, report.eclasses, strict=True)):
        prev = report.enodes[k - 1] if k else None
        rows.append({"iteration": k, "enodes": n, "eclasses": c, "growth": n / prev if prev else None})
    return rows


def iteration_times(
    program: UOp,
    config: SaturationConfig | None = None,
    /,
    *,
    iterations: int,
    repeats: int = 1,
    **settings: Any,
) -> list[dict[str, Any]]:
    """Wall time of each of the first `iterations` saturation iterations (median of `repeats` runs).

    Read from SaturationReport.iteration_times (egglog, folding, reading sizes back; setup and
    lowering are not in iteration 1). Shorter when the run ends first (saturated or out of
    budget). Times are noisy wall clock; sizes are exact (the runs are deterministic).
    """
    reports = [saturate(program, config, **settings, iter_limit=iterations).report for _ in range(repeats)]
    rep = reports[0]
    return [
        {
            "iteration": k,
            "enodes": rep.enodes[k],
            "eclasses": rep.eclasses[k],
            "seconds": float(np.median([r.iteration_times[k - 1] for r in reports])),
        }
        for k in range(1, rep.iterations + 1)
    ]


def budget_sweep(
    program: UOp, budgets: Iterable[int], config: SaturationConfig | None = None, /, **settings: Any
) -> list[dict[str, Any]]:
    """One saturation per node budget: how it stopped, its size, and the cost extracted from it."""
    rows = []
    for budget in budgets:
        t0 = time.perf_counter()
        sat = saturate(program, config, **settings, node_budget=budget)
        t1 = time.perf_counter()
        res = sat.extract()
        sat.close()
        rep = sat.report
        rows.append(
            {
                "node_budget": budget,
                "stop_reason": str(rep.stop_reason),
                "iterations": rep.iterations,
                "enodes": rep.final_enodes,
                "overshoot": rep.overshoot,
                "cost": res.cost,
                "optimal": res.optimal,
                "time_saturate": t1 - t0,
                "time_extract": res.seconds,
            }
        )
    return rows


# ---------------------------------------------------------------------------
# extractors


def extractor_table(
    egraph: Any,
    cost: str = "dag_size",
    extractors: Sequence[str] | None = None,
    time_limit: float | None = None,
    branch_limit: int | None = AUTO_BRANCH_LIMIT,
) -> list[dict[str, Any]]:
    """Every extractor (default: all of EXTRACTORS) on one e-graph: cost, optimality claim, seconds.
    branch_limit and time_limit bound the exact one (see eqsat_uopc.extract.extract)."""
    rows = []
    for name in EXTRACTORS if extractors is None else extractors:
        res = extract(egraph, cost=cost, extractor=name, branch_limit=branch_limit, time_limit=time_limit)
        rows.append(
            {
                "extractor": name,
                "cost": res.cost,
                "optimal": res.optimal,
                "bound": res.bound,
                "seconds": res.seconds,
            }
        )
    return rows


# ---------------------------------------------------------------------------
# rule order


def permuted_matchers(pm: PatternMatcher = symbolic, n: int = 10, seed: int = 0) -> list[PatternMatcher]:
    """pm in its own order, then n - 1 random permutations of its rules (seeded)."""
    if n < 1:
        raise ValueError(f"permuted_matchers: n must be >= 1, got {n}")
    rng = random.Random(seed)
    out = [pm]
    for _ in range(n - 1):
        rules = list(pm.rules)
        rng.shuffle(rules)
        out.append(PatternMatcher(rules, compiled=pm.compiled))
    return out


def rule_order_results(
    program: UOp, matchers: Sequence[PatternMatcher], max_steps: int = 100_000
) -> list[UOp | None]:
    """graph_rewrite(program, pm) for every matcher, in order; None where it did not converge.

    A permuted order can make the greedy engine loop (one rule undoes another); graph_rewrite
    detects that after max_steps steps and raises, which is recorded here as None.
    """
    out: list[UOp | None] = []
    for pm in matchers:
        try:
            out.append(graph_rewrite(program, pm, max_steps=max_steps))
        except RuntimeError as err:
            if "did not converge" not in str(err):
                raise
            out.append(None)
    return out


# ---------------------------------------------------------------------------
# runtime


def c_runtime(
    programs: Mapping[str, UOp], lanes: int = 4096, seed: int = 0, number: int = 50, repeat: int = 5
) -> dict[str, float]:
    """Nanoseconds per lane of each scalar program, batched over `lanes` lanes of the same random
    inputs and timed by compile_c(...).time. The first program's inputs define the lanes."""
    names = list(programs)
    if not names:
        return {}
    inputs = program_inputs([programs[names[0]]])
    values = lane_values(inputs, lanes, seed)
    out = {}
    for name in names:
        prog = compile_c(batched(programs[name], lanes, inputs))
        args = [values[s.slot] if s.kind != "unused" else 0 for s in prog.inputs]
        out[name] = prog.time(*args, number=number, repeat=repeat) / lanes * 1e9
    return out
