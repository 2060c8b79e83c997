"""The work the bundled corpora take, measured deterministically: how the default work limits were chosen.

    .venv/bin/python bench/work_limits.py                        # every corpus, both int semantics
    .venv/bin/python bench/work_limits.py --against before.json  # and the results that differ from a
                                                                 # bench/digest.py --out file
    .venv/bin/python bench/work_limits.py --limit 50             # the first 50 of each corpus

Runs `optimize` as bench/digest.py does (default settings, DAG size, `wrap` and `no_overflow`, the
same corpora) but with no limit on saturation's rule matches (`match_budget`) or the exact
extractor's branch-and-bound nodes (`extract_branch_limit`) and no wall-clock limit, and prints, per
corpus and semantics and over all:
- saturation: the rule matches of a run (each pulse is a run), the largest and the 99th percentile,
  the runs that took the most, with their seconds, and how many runs took more than 5 s (the old
  wall-clock default: those a loaded machine could cut short);
- the exact extractor: its branch-and-bound nodes over all its solves, the largest, and its seconds;
- with `--against`, the results that differ from the digest file's (same hashes as bench/digest.py).
The default `match_budget` (eqsat_uopc.saturation.config) sits above the largest run's matches, so
it changes no result on these corpora; the default `extract_branch_limit` (AUTO_BRANCH_LIMIT,
extract/registry.py) sits above every search but one, which it stops with the same program,
unproved (their comments give the figures). Matches and nodes are counts, not times: this script
prints the same counts on any machine (its seconds vary with the load).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

import results
from digest import SEMANTICS, corpora

from eqsat_uopc import optimize, to_uir
from eqsat_uopc.saturation import DEFAULT_CONFIG

RESULTS_SECTIONS = ("work-limits",)  # docs/results.md, written with --write-results (bench/results.py)

UNLIMITED = DEFAULT_CONFIG.replace(match_budget=2**62, extract_branch_limit=None, time_limit=None)
OLD_TIME_LIMIT = 5.0  # seconds: the wall-clock default of saturation and exact extraction before


def measure_one(program, sem: str) -> dict:
    """One optimize, unlimited: its result's hash and, per pulse, the work and time it took."""
    t = time.perf_counter()
    r = optimize(program, "dag_size", UNLIMITED, int_semantics=sem)
    seconds = time.perf_counter() - t
    pulses = []
    for p in r.info.get("pulses", (r,)):
        rep = p.report
        pulses.append(
            {
                "matches": rep.rule_matches,
                "iterations": rep.iterations,
                "stop": rep.stop_reason.value,
                "saturation_s": round(rep.total_time, 4),
                "extractor": p.extractor,
                "bb_nodes": p.info.get("bb_nodes", 0),
                "ilp_status": p.info.get("status", ""),
                "extraction_s": round(p.seconds, 4),
            }
        )
    uir_hash = hashlib.sha256(to_uir(r.program).encode()).hexdigest()[:16]
    return {"hash": uir_hash, "seconds": round(seconds, 4), "pulses": pulses}


def summary(key: str, rows: list[dict]) -> None:
    runs = [(k, p) for k, row in enumerate(rows) for p in row["pulses"]]
    matches = sorted(p["matches"] for _, p in runs)
    p99 = matches[min(len(matches) - 1, int(0.99 * len(matches)))] if matches else 0
    slow = sum(p["saturation_s"] > OLD_TIME_LIMIT for _, p in runs)
    exact = [(k, p) for k, p in runs if p["extractor"] == "exact"]
    nodes = max((p["bb_nodes"] for _, p in exact), default=0)
    slow_exact = sum(p["extraction_s"] > OLD_TIME_LIMIT for _, p in exact)
    most = matches[-1] if matches else 0
    print(
        f"{key:20s} {len(rows):5d} programs {len(runs):5d} runs: rule matches max {most:,} p99 {p99:,}; "
        f"runs over {OLD_TIME_LIMIT:g} s {slow}; exact extractions {len(exact)}, "
        f"branch-and-bound nodes max {nodes:,}, over {OLD_TIME_LIMIT:g} s {slow_exact}",
        flush=True,
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--against", type=Path, help="a JSON file written by bench/digest.py --out")
    ap.add_argument("--out", type=Path, help="write every run's counts and times to this JSON file")
    ap.add_argument("--limit", type=int, help="the first N expressions of each corpus only")
    ap.add_argument(results.FLAG, action="store_true", help=results.FLAG_HELP)
    args = ap.parse_args()
    partial = (
        f"--limit {args.limit}: the first {args.limit} expressions of each corpus" if args.limit else None
    )
    with results.recorded("work-limits", args.write_results, partial):
        return measure(args)


def measure(args: argparse.Namespace) -> int:
    table: dict[str, list[dict]] = {}
    for name, programs in corpora(args.limit).items():
        for sem in SEMANTICS:
            key = f"{name}/{sem}"
            table[key] = [measure_one(p, sem) for p in programs]
            summary(key, table[key])
    every = [row for rows in table.values() for row in rows]
    summary("all", every)
    top = sorted(
        ((p["matches"], p["saturation_s"], p["stop"], f"{key}#{k}") for key, rows in table.items()
         for k, row in enumerate(rows) for p in row["pulses"]),
        reverse=True,
    )[:8]  # fmt: skip
    print("most rule matches: " + "; ".join(f"{w} {m:,} ({s:.2f} s, {stop})" for m, s, stop, w in top))
    if args.out:
        args.out.write_text(json.dumps(table))
    if args.against:
        before = json.loads(args.against.read_text())
        differ = [
            f"{key}#{k}"
            for key, rows in table.items()
            for k, (row, h) in enumerate(zip(rows, before.get(key, []), strict=False))
            if row["hash"] != h
        ]
        listed = f" ({', '.join(differ[:20])})" if differ else ""
        print(f"differ from {args.against}: {len(differ)}{listed}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
