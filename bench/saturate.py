"""Saturation benchmark: lowering rate, and saturation on the corpora at a few node budgets.

    .venv/bin/python bench/saturate.py                  # the full Caviar corpus (long: ~1 s/program/budget)
    .venv/bin/python bench/saturate.py --limit 200      # the first 200 entries
    .venv/bin/python bench/saturate.py --quick          # a smoke test

Sections:
1. Lowering a 20,000-node DAG into egglog (target: at least 20,000 nodes/s), against one Python
   toposort of the same DAG (the cheapest possible walk) timed in the same run.
2. The bundled Caviar corpus at each budget and int semantics: per-program
   saturation time and e-graph size (median, p90, max), stop reasons, how many expressions the
   root's e-class proves to the right constant (and, as a soundness alarm, to a wrong one or a
   `mixed` one to any), how often the greedy `simplify` result is in the root's e-class, and the
   e-graph soundness check (check_sound on random small and full-range inputs) failures.
3. Generated index expressions (eqsat_uopc.corpus.index_expressions): the same figures, and the
   DAG size of the extracted program against greedy simplify's.
--csv PATH writes one row per (program, budget, semantics).
"""

from __future__ import annotations

import argparse
import csv
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import results  # noqa: E402
from egglog import bindings  # noqa: E402

from eqsat_uopc.corpus import caviar_path, index_expressions, load_corpus  # noqa: E402
from eqsat_uopc.greedy import simplify  # noqa: E402
from eqsat_uopc.ir.uop import UOp  # noqa: E402
from eqsat_uopc.saturation import saturate  # noqa: E402
from eqsat_uopc.saturation.lower import Lowerer  # noqa: E402
from eqsat_uopc.saturation.terms import SCHEMA  # noqa: E402
from eqsat_uopc.verify.egraph_soundness import check_sound  # noqa: E402

RESULTS_SECTIONS = ("saturate",)  # docs/results.md, written with --write-results (bench/results.py)

VERDICT = {"true_on_all_samples": True, "false_on_all_samples": False}


def dag(n: int) -> UOp:
    """n nodes: each new node combines the two before it (ADD, MUL, MAX in turn), so sharing is dense."""
    nodes = [UOp.param(0), UOp.param(1)]
    k = 0
    while len(nodes) < n:
        a, b = nodes[-1], nodes[-2]
        nodes.append(a + b if k % 3 == 0 else a * b if k % 3 == 1 else a.maximum(b))
        k += 1
    return nodes[-1]


def lowering(n: int) -> None:
    p = dag(n)
    t = time.perf_counter()
    p.toposort()
    walk = time.perf_counter() - t
    best = float("inf")
    for _ in range(3):
        eg = bindings.EGraph(num_threads=1)
        eg.parse_and_run_program(SCHEMA)
        low = Lowerer(eg)
        t = time.perf_counter()
        low.lower(p)
        low.flush()
        best = min(best, time.perf_counter() - t)
    print(
        f"1. lowering a {p.size}-node DAG: {best * 1e3:.0f} ms, {p.size / best:,.0f} nodes/s "
        f"(target 20,000: {p.size / best / 20_000:.1f}x); one toposort {walk * 1e3:.0f} ms "
        f"(lowering = {best / walk:.1f} toposorts)"
    )


def _pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def caviar(entries: list, budgets: list[int], writer) -> None:
    print(f"2. Caviar corpus, {len(entries)} expressions (rules=default)")
    for sem in ("wrap", "no_overflow"):
        for budget in budgets:
            times, sizes, stops = [], [], {}
            right = wrong = mixed_const = greedy_in = unsound = 0
            for e in entries:
                t = time.perf_counter()
                s = saturate(
                    e.program,
                    rules="default",
                    int_semantics=sem,
                    node_budget=budget,
                    iter_limit=30,
                    time_limit=10.0,
                )
                dt = time.perf_counter() - t
                times.append(dt)
                sizes.append(s.report.enodes[-1])
                stops[str(s.report.stop_reason)] = stops.get(str(s.report.stop_reason), 0) + 1
                lit = s.literal()
                if lit is not None:
                    if e.verdict == "mixed":
                        mixed_const += 1
                    elif lit.arg is VERDICT[e.verdict]:
                        right += 1
                    else:
                        wrong += 1
                greedy_in += s.equivalent(e.program, simplify(e.program))
                bad = 0
                rng = random.Random(e.line)
                # no_overflow reasons over mathematical integers: check on small inputs, where the
                # program does not overflow, with unbounded integer arithmetic
                for lim in (64, 2**31) if sem == "wrap" else (64, 64):
                    params = {i: rng.randint(-lim, lim - 1) for i in range(len(e.var_names))}
                    bad += len(check_sound(s.egraph, params, int_semantics=sem))
                unsound += bad > 0
                if writer:
                    writer.writerow(
                        [
                            e.id,
                            sem,
                            budget,
                            f"{dt:.4f}",
                            s.report.iterations,
                            s.report.enodes[-1],
                            s.report.eclasses[-1],
                            s.report.stop_reason,
                            "" if lit is None else lit.arg,
                            e.verdict,
                            bad,
                        ]
                    )
            n = len(entries)
            print(
                f"   {sem:11s} budget {budget:6d}: time median {statistics.median(times) * 1e3:6.0f} ms, "
                f"p90 {_pct(times, 0.9) * 1e3:6.0f} ms, max {max(times) * 1e3:6.0f} ms; e-nodes median "
                f"{statistics.median(sizes):6.0f}, max {max(sizes)}; stops {stops}"
            )
            print(
                f"   {'':25s} proved right {right}/{n - sum(x.verdict == 'mixed' for x in entries)}, "
                f"wrong {wrong}, mixed->constant {mixed_const}; greedy result in root e-class "
                f"{greedy_in}/{n} ({greedy_in / n:.0%}); soundness-check failures {unsound}"
            )


def indexing(count: int, budgets: list[int]) -> None:
    exprs = index_expressions(count, seed=0)
    print(f"3. {count} generated index expressions (rules=default, wrap)")
    for budget in budgets:
        times, smaller, same, larger, greedy_in, unsound = [], 0, 0, 0, 0, 0
        for k, ie in enumerate(exprs):
            t = time.perf_counter()
            s = saturate(ie.program, rules="default", node_budget=budget, iter_limit=30, time_limit=10.0)
            times.append(time.perf_counter() - t)
            g = simplify(ie.program)
            greedy_in += s.equivalent(ie.program, g)
            size = s.extract().program.size
            smaller += size < g.size
            same += size == g.size
            larger += size > g.size
            rng = random.Random(k)
            ranges = {(r.arg, r.src[0].arg): rng.randrange(r.src[0].arg) for r in ie.ranges}
            params = {p.arg.slot: rng.randint(-100, 100) for p in ie.params}
            unsound += bool(check_sound(s.egraph, params, ranges))
        print(
            f"   budget {budget:6d}: time median {statistics.median(times) * 1e3:6.0f} ms, max "
            f"{max(times) * 1e3:6.0f} ms; extracted DAG size vs greedy: smaller {smaller}, same {same}, "
            f"larger {larger}; greedy result in root e-class {greedy_in}/{count}; "
            f"soundness failures {unsound}"
        )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=int, default=None, help="first N Caviar entries")
    ap.add_argument("--budgets", default="1000,5000,20000")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--csv", default=None)
    ap.add_argument(results.FLAG, action="store_true", help=results.FLAG_HELP)
    args = ap.parse_args()
    partial = (
        "--quick: 20 Caviar expressions, budget 1,000, 10 index expressions"
        if args.quick
        else (f"--limit {args.limit}: the first {args.limit} Caviar expressions" if args.limit else None)
    )
    with results.recorded("saturate", args.write_results, partial):
        measure(args)


def measure(args: argparse.Namespace) -> None:
    budgets = [int(b) for b in args.budgets.split(",")]
    if args.quick:
        args.limit, budgets = 20, [1000]
    lowering(20_000)
    entries = load_corpus(caviar_path())
    if args.limit:
        entries = entries[: args.limit]
    writer = None
    if args.csv:
        f = open(args.csv, "w", newline="")  # noqa: SIM115
        writer = csv.writer(f)
        writer.writerow(
            [
                "id",
                "int_semantics",
                "budget",
                "seconds",
                "iterations",
                "enodes",
                "eclasses",
                "stop_reason",
                "constant",
                "verdict",
                "soundness_failures",
            ]
        )
    caviar(entries, budgets, writer)
    indexing(10 if args.quick else 50, budgets)


if __name__ == "__main__":
    main()
