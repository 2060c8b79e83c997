"""Benchmark of `optimize(p, "measured")`: how often the measured fastest differs from the latency
model's choice, from the smallest and from greedy's result, by how much, and a check in a fresh run.

Programs: a sample of the bundled Caviar corpus and of the tinygrad capture (int semantics
no_overflow, as the notebooks and the README compare them), generated index expressions and every
example of examples/ (wrap). For each: `optimize(p, "measured")` (default saturation settings and
timing settings, a fresh per-user cache: nothing comes from an earlier run), then the chosen
program, the smallest, greedy's result and the latency model's choice are timed again together in
two fresh runs (other input seeds, opposite orders: the selection's own protocol) and the chosen
one is checked: it must not be slower than the smallest or greedy's result beyond the runs' spread
and the selection's 2% margin in both (the upper quartile over rounds of their time / its time in
the same round, times 1.02, below 1). The counts for the first fresh run alone and with no margin
are printed too. The exit status is 1 if the check fails for any program. Ratios are
medians of round times (ns per lane) in the same run: "x1.30" means the other program took 1.30
times as long as the measured choice.

Run:  .venv/bin/python bench/fastest.py            # 120 programs, a few minutes
      .venv/bin/python bench/fastest.py --quick    # 12 programs, a smoke test
      add --rows FILE to write one JSON line per program
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import results

from eqsat_uopc.corpus import caviar_dev, index_expressions, tinygrad_capture
from eqsat_uopc.ir.examples import load_example
from eqsat_uopc.ir.uir import parse_uir
from eqsat_uopc.pipeline.fastest import ratio_quartile
from eqsat_uopc.pipeline.optimization import optimize
from eqsat_uopc.pipeline.timing import time_programs

RESULTS_SECTIONS = ("fastest",)  # docs/results.md, written with --write-results (bench/results.py)

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def programs(quick: bool) -> list[tuple[str, str, object]]:
    """(corpus, key, program, int semantics) for the run: every n-th entry of each corpus."""
    n_caviar, n_tinygrad, n_index = (4, 3, 3) if quick else (40, 30, 30)
    out = []
    caviar = caviar_dev()
    for e in caviar[:: len(caviar) // n_caviar][:n_caviar]:
        out.append(("caviar-dev", e.id, e.program, "no_overflow"))
    capture = tinygrad_capture()
    for e in capture[:: len(capture) // n_tinygrad][:n_tinygrad]:
        out.append(("tinygrad-capture", e.id, e.program, "no_overflow"))
    for k, x in enumerate(index_expressions(n_index, seed=3)):
        out.append(("index", f"index/{k}", x.program, "wrap"))
    examples = [(p.name, load_example(p)) for p in sorted(EXAMPLES.glob("*.uir"))]
    for name, example in examples[: 2 if quick else None]:
        if example.expect_error is None:  # a program whose evaluation is an error has no fastest
            out.append(("examples", name, example.program, "wrap"))
    return out


def one(corpus: str, key: str, program, semantics: str) -> dict:
    t0 = time.perf_counter()
    r = optimize(program, "measured", int_semantics=semantics)
    seconds = time.perf_counter() - t0
    t0 = time.perf_counter()
    again = optimize(program, "measured", int_semantics=semantics)  # from the caches
    second = time.perf_counter() - t0
    assert again.program is r.program and again.info["measured"]["candidates_cached"]
    m = r.info["measured"]
    cands = m["candidates"]
    chosen = m["chosen"]

    def index_of(label: str) -> int | None:
        return next((k for k, c in enumerate(cands) if label in c["labels"]), None)

    who = {"smallest": index_of("smallest"), "latency": index_of("latency"), "greedy": index_of("greedy")}
    row = {
        "corpus": corpus,
        "key": key,
        "seconds": seconds,
        "measuring_seconds": m["seconds"],
        "second_call_seconds": second,
        "candidates": len(cands),
        "distinct_results": len({k for k in who.values() if k is not None} | {chosen}),
        "chosen_labels": cands[chosen]["labels"],
        "chosen_size": cands[chosen]["dag_size"],
        "confirmed": m["confirmed"],
        "unit": m["unit"],
        "measured": m,
    }
    for name, k in who.items():
        row[f"differs_from_{name}"] = k is not None and k != chosen
        row[f"ratio_{name}"] = None if k is None else cands[k]["median"] / cands[chosen]["median"]
    # two fresh runs of the choice, the smallest, greedy's result and the latency choice: other seeds,
    # opposite orders (the selection's own protocol); is the choice slower than another beyond the
    # spread and the margin in both (and in the first alone)?
    again = sorted({chosen, *(k for k in who.values() if k is not None)})
    first = time_programs([parse_uir(cands[k]["program"]) for k in again], seed=1000)
    second = time_programs([parse_uir(cands[k]["program"]) for k in again[::-1]], seed=1001)
    t = dict(zip(again, first.timings, strict=True))
    t2 = dict(zip(again[::-1], second.timings, strict=True))

    def slower(k: int, margin: float, runs: tuple[dict, ...]) -> bool:
        return all(ratio_quartile(run[k], run[chosen]) * (1 + margin) < 1 for run in runs)

    for name, k in who.items():
        if k is None:
            for key in (
                "fresh_ratio",
                "fresh_slower_than",
                "fresh_slower_once_than",
                "fresh_slower_strict_than",
            ):
                row[f"{key}_{name}"] = None
            continue
        row[f"fresh_ratio_{name}"] = t[k].median / t[chosen].median
        row[f"fresh_slower_than_{name}"] = slower(k, m["margin"], (t, t2))
        row[f"fresh_slower_once_than_{name}"] = slower(k, m["margin"], (t,))
        row[f"fresh_slower_strict_than_{name}"] = slower(k, 0.0, (t, t2))
    latency_k, small_k = who["latency"], who["smallest"]
    row["latency_slower_than_smallest"] = (
        latency_k is not None
        and small_k is not None
        and all(ratio_quartile(r[small_k], r[latency_k]) * (1 + m["margin"]) < 1 for r in (t, t2))
    )
    return row


def gmean(xs: list[float]) -> float:
    return math.exp(statistics.fmean(math.log(x) for x in xs)) if xs else float("nan")


def summary(rows: list[dict]) -> list[str]:
    n = len(rows)
    by_corpus: dict[str, int] = {}
    for r in rows:
        by_corpus[r["corpus"]] = by_corpus.get(r["corpus"], 0) + 1
    lines = [
        f"programs: {n} (" + ", ".join(f"{c} {k}" for c, k in by_corpus.items()) + ")",
        f"  with a choice (the smallest, greedy's and the latency model's results not all one program): "
        f"{sum(r['distinct_results'] > 1 for r in rows)}",
        "  timed twice (the first run chose another than the smallest, or could not tell): "
        f"{sum(r['confirmed'] for r in rows)}",
        f"  seconds per program: median {statistics.median(r['seconds'] for r in rows):.2f}, "
        f"max {max(r['seconds'] for r in rows):.2f}; of which measuring (compile and timing): median "
        f"{statistics.median(r['measuring_seconds'] for r in rows):.2f}, "
        f"max {max(r['measuring_seconds'] for r in rows):.2f}",
        f"  a second call (candidates and timings from the cache): median "
        f"{statistics.median(r['second_call_seconds'] for r in rows):.3f} s, "
        f"max {max(r['second_call_seconds'] for r in rows):.3f} s",
        "",
        "the measured choice differs from        programs   other / measured choice (same run): "
        "gmean, median, max",
    ]
    for name, what in (
        ("latency", "the latency model's choice"),
        ("smallest", "the smallest (dag_size)"),
        ("greedy", "greedy's result"),
    ):
        have = [r for r in rows if r[f"ratio_{name}"] is not None]
        diff = [r[f"ratio_{name}"] for r in have if r[f"differs_from_{name}"]]
        stats = f"x{gmean(diff):.3f}, x{statistics.median(diff):.3f}, x{max(diff):.3f}" if diff else "-"
        lines.append(f"  {what:<36} {len(diff):>3} of {len(have):<4}  {stats}")
    lines += [
        "",
        "two fresh runs (other seeds, opposite orders): is the measured choice slower than the other beyond",
        "the spread (paired by round) and the 2% margin in both runs / in the first alone / with no margin",
        "in both; other / choice in the first:",
    ]
    for name, what in (
        ("smallest", "the smallest"),
        ("greedy", "greedy's result"),
        ("latency", "the latency choice"),
    ):
        have = [r for r in rows if r[f"fresh_ratio_{name}"] is not None]
        both = sum(r[f"fresh_slower_than_{name}"] for r in have)
        once = sum(r[f"fresh_slower_once_than_{name}"] for r in have)
        strict = sum(r[f"fresh_slower_strict_than_{name}"] for r in have)
        ratios = [r[f"fresh_ratio_{name}"] for r in have]
        lines.append(
            f"  {what:<20} {both} / {once} / {strict} of {len(have)}; "
            f"gmean x{gmean(ratios):.3f}, min x{min(ratios):.3f}, max x{max(ratios):.3f}"
        )
    lat = sum(r["latency_slower_than_smallest"] for r in rows)
    lines.append(
        f"  (the latency model's choice slower than the smallest, beyond spread and margin: {lat} of {n})"
    )
    return lines


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="bench/fastest.py", description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="12 programs instead of 120")
    ap.add_argument("--rows", default=None, metavar="FILE", help="write one JSON line per program")
    ap.add_argument("--verbose", action="store_true", help="one line per program as it finishes")
    ap.add_argument(results.FLAG, action="store_true", help=results.FLAG_HELP)
    args = ap.parse_args(argv)
    partial = "--quick: 12 programs instead of 120" if args.quick else None
    with results.recorded("fastest", args.write_results, partial):
        return measure(args)


def measure(args: argparse.Namespace) -> int:
    os.environ["EQSAT_UOPC_CACHE_DIR"] = tempfile.mkdtemp(prefix="eqsat_uopc_bench_fastest_")
    work = programs(args.quick)
    rows = []
    start = time.perf_counter()
    for k, (corpus, key, program, semantics) in enumerate(work, 1):
        row = one(corpus, key, program, semantics)
        rows.append(row)
        if args.verbose:
            print(
                f"[{k}/{len(work)}] {key}: {'+'.join(row['chosen_labels'])} ({row['chosen_size']} nodes), "
                f"latency x{row['ratio_latency']:.3f}, smallest x{row['ratio_smallest']:.3f}, "
                f"{row['seconds']:.1f} s",
                file=sys.stderr,
                flush=True,
            )
    if args.rows:
        Path(args.rows).write_text("".join(json.dumps(r) + "\n" for r in rows))
    print("\n".join(summary(rows)))
    print(f"\ntotal {time.perf_counter() - start:.0f} s")
    violations = sum(
        bool(r["fresh_slower_than_smallest"]) or bool(r["fresh_slower_than_greedy"]) for r in rows
    )
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
