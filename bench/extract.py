"""Benchmark of the extractors: time per extractor and DAG cost relative to the exact optimum.

    .venv/bin/python bench/extract.py                   # every source, default sizes
    .venv/bin/python bench/extract.py --source random --json out.json

E-graph sources:
- saturated: Caviar corpus programs (and generated index expressions) saturated with
  eqsat_uopc.saturation, when that layer is installed (skipped otherwise);
- equivalent: the same programs grown by exact rewrites (extract/random_egraph.equivalent_egraph),
  which needs no egglog: commutativity, x*1, x+0, associativity, distribution;
- random: random scalar programs with random same-type merges (arbitrary structure, many cycles),
  at e-graph sizes up to about 5,000 e-nodes: the hard case for greedy extraction.

For each e-graph it runs bottom_up, greedy_dag and exact (time limit --time-limit, default 10 s)
under dag_size and reports, per extractor, the mean and worst DAG cost relative to the exact optimum
(over e-graphs where exact proved optimality) and the time taken. Targets (issue 6): greedy_dag within
2% of the optimum on average on corpus e-graphs; exact proves optimality up to 5,000 e-nodes in 10 s.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

import results
from eqsat_uopc.extract import EGraph, extract
from eqsat_uopc.extract.random_egraph import equivalent_egraph, random_egraph, random_program

from eqsat_uopc.corpus import caviar_path, index_expressions, load_corpus

RESULTS_SECTIONS = ("extract",)  # docs/results.md, written with --write-results (bench/results.py)

CAVIAR = caviar_path()
EXTRACTORS = ("bottom_up", "greedy_dag", "exact", "egglog_tree", "egglog_dag")


def corpus_programs(limit: int, seed: int = 0) -> list:
    """A seeded sample of `limit` Caviar programs, plus limit // 4 generated index expressions."""
    caviar = [e.program for e in load_corpus(CAVIAR)]
    programs = random.Random(seed).sample(caviar, min(limit, len(caviar)))
    programs += [e.program for e in index_expressions(max(limit // 4, 1), seed=seed)]
    return programs


def saturated_egraphs(programs: list, node_budget: int, min_enodes: int) -> list[tuple[str, EGraph]]:
    """Each program saturated under node_budget; e-graphs below min_enodes are too easy to report."""
    try:
        from eqsat_uopc.saturation import saturate
    except ImportError:
        print("eqsat_uopc.saturation not available: no saturated e-graphs", file=sys.stderr)
        return []
    out = []
    for k, p in enumerate(programs):
        try:
            g = saturate(p, node_budget=node_budget).egraph
        except Exception as e:  # saturation is another layer: a failure there is reported, not fatal
            print(f"saturated/{k}: saturate failed: {type(e).__name__}: {e}", file=sys.stderr)
            continue
        if g.num_enodes >= min_enodes:
            out.append((f"saturated/{k}", g))
    return out


def equivalent_egraphs(programs: list, group: int) -> list[tuple[str, EGraph]]:
    out = []
    for k in range(0, len(programs), group):
        chunk = programs[k : k + group]
        out.append((f"equivalent/{k // group}", equivalent_egraph(k, chunk, rounds=3)))
    return out


def random_egraphs(sizes: list[int]) -> list[tuple[str, EGraph]]:
    """Random-merge e-graphs of about each size: about 10 merges per program, grown until big enough."""
    out = []
    for target in sizes:
        nprog = max(target // 28, 1)
        while True:
            rng = random.Random(target)
            progs = [random_program(rng, 80, 4) for _ in range(nprog)]
            g = random_egraph(rng, progs, merges=nprog * 10)
            if g.num_enodes >= 0.9 * target or nprog > target:
                break
            nprog = int(nprog * 1.25) + 1
        out.append((f"random/{target}", g))
    return out


def extractors_for(g: EGraph) -> tuple[str, ...]:
    """egglog's own extractors only exist for e-graphs that come from saturation."""
    return EXTRACTORS if "egglog" in g.meta else EXTRACTORS[:3]


def run(egraphs: list[tuple[str, EGraph]], time_limit: float) -> list[dict]:
    rows = []
    for name, g in egraphs:
        row: dict = {"egraph": name, "enodes": g.num_enodes, "eclasses": g.num_eclasses}
        for ex in extractors_for(g):
            t0 = time.perf_counter()
            r = extract(g, "dag_size", ex, time_limit=time_limit)
            row[ex] = {"cost": r.cost, "seconds": time.perf_counter() - t0, "optimal": r.optimal}
        rows.append(row)
        cells = "  ".join(f"{ex} {row[ex]['cost']:>5} {row[ex]['seconds']:6.3f}s" for ex in extractors_for(g))
        print(f"{name:16} {g.num_enodes:6} e-nodes  {cells}  proved={row['exact']['optimal']}", flush=True)
    return rows


def summarize(rows: list[dict], label: str) -> dict:
    proved = [r for r in rows if r["exact"]["optimal"]]
    summary: dict = {"source": label, "egraphs": len(rows), "exact_proved": len(proved)}
    small = [r for r in rows if r["enodes"] <= 5000]
    summary["exact_proved_le_5000"] = f"{sum(bool(r['exact']['optimal']) for r in small)}/{len(small)}"
    summary["exact_max_seconds_le_5000"] = max((r["exact"]["seconds"] for r in small), default=0.0)
    proved_times = sorted(r["exact"]["seconds"] for r in proved)
    summary["exact_median_seconds_proved"] = proved_times[len(proved_times) // 2] if proved_times else None
    for ex in EXTRACTORS:
        if not all(ex in r for r in rows):
            continue
        ratios = [r[ex]["cost"] / r["exact"]["cost"] for r in proved if r["exact"]["cost"] > 0]
        summary[ex] = {
            "mean_ratio": statistics.fmean(ratios) if ratios else None,
            "worst_ratio": max(ratios, default=None),
            "total_seconds": sum(r[ex]["seconds"] for r in rows),
        }
    return summary


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", choices=("all", "saturated", "equivalent", "random"), default="all")
    ap.add_argument("--programs", type=int, default=60, help="Caviar programs to sample (seeded)")
    ap.add_argument("--group", type=int, default=10, help="programs per equivalent e-graph")
    ap.add_argument("--sizes", type=int, nargs="*", default=[500, 1000, 2000, 3500, 5000])
    ap.add_argument("--node-budget", type=int, default=5000)
    ap.add_argument("--min-enodes", type=int, default=100, help="skip smaller saturated e-graphs")
    ap.add_argument("--time-limit", type=float, default=10.0)
    ap.add_argument("--json", type=Path)
    ap.add_argument(results.FLAG, action="store_true", help=results.FLAG_HELP)
    args = ap.parse_args(argv)
    default = ap.parse_args([])
    changed = [
        k for k in ("source", "programs", "sizes", "node_budget") if getattr(args, k) != getattr(default, k)
    ]
    partial = (
        f"not the defaults: {', '.join('--' + k.replace('_', '-') for k in changed)}" if changed else None
    )
    with results.recorded("extract", args.write_results, partial):
        return measure(args)


def measure(args: argparse.Namespace) -> int:

    summaries = []
    programs = corpus_programs(args.programs) if args.source in ("all", "saturated", "equivalent") else []
    sources = {
        "saturated": lambda: saturated_egraphs(programs, args.node_budget, args.min_enodes),
        "equivalent": lambda: equivalent_egraphs(programs, args.group),
        "random": lambda: random_egraphs(args.sizes),
    }
    all_rows = {}
    for label, make in sources.items():
        if args.source not in ("all", label):
            continue
        egraphs = make()
        if not egraphs:
            continue
        print(f"== {label}: {len(egraphs)} e-graphs")
        rows = run(egraphs, args.time_limit)
        all_rows[label] = rows
        summaries.append(summarize(rows, label))
    print()
    for s in summaries:
        print(
            f"{s['source']:10} e-graphs {s['egraphs']:3}  exact proved {s['exact_proved']}"
            f" (<=5000 e-nodes: {s['exact_proved_le_5000']}, max {s['exact_max_seconds_le_5000']:.2f}s)"
        )
        for ex in EXTRACTORS:
            if ex not in s:
                continue
            e = s[ex]
            mean = "n/a" if e["mean_ratio"] is None else f"{100 * (e['mean_ratio'] - 1):+.2f}%"
            worst = "n/a" if e["worst_ratio"] is None else f"{100 * (e['worst_ratio'] - 1):+.2f}%"
            secs = e["total_seconds"]
            print(f"    {ex:10} DAG cost vs optimum: mean {mean}, worst {worst}; total {secs:.2f}s")
    if args.json:
        args.json.write_text(json.dumps({"summaries": summaries, "rows": all_rows}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
