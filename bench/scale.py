"""The cost of `optimize` per node of the program, from 25k to 200k nodes: does it stay flat?

    .venv/bin/python bench/scale.py                        # every family, 25k..200k, validation on and off
    .venv/bin/python bench/scale.py --sizes 25000,50000    # some sizes only
    .venv/bin/python bench/scale.py --families chain --no-validate-off
    .venv/bin/python bench/scale.py --cpu-phases           # the report's phases in CPU seconds too

Four families of programs, each built to a given node count (`program(family, n)`):
- `chain`: `x + 0 + 1 + ... + k`, a left-nested sum of distinct constants onto an input (the
  greedy rules fold it to `x + c`);
- `divsum`: `(x*a0 + y) // d0 + (x*a1 + y) // d1 + ...`, a left-nested sum of independent divisions
  sharing their leaves (nothing folds the sum: more than MAX_TERMS atoms);
- `stack`: a STACK of independent index expressions `((x*c + y) // d) % m + i` over two bounded
  inputs (the index algebra folds many of them), each a few nodes, sharing x and y;
- `mixed`: a STACK of short sums of products and divisions, `x*i + y // d + (x + y)*k + i`.

Each program is optimized with the default settings but a node budget of 5 nodes per program node
(the default 10,000 is below the programs' own size; the match budget follows it, 100 matches per
e-node of the node budget: SaturationConfig.match_budget_in_effect), once with validation (as users
run it) and once without. Sizes run smallest to largest and, at each size, the families and both modes one
after another (interleaved), so the ratios compare runs made under the same load. Printed per run:
seconds in all (wall and the process's CPU time: on a shared machine the wall time counts other
load too), microseconds per program node, each pulse's stop reason, iterations and egglog rule matches
(a family should stop for the same reason at every size, else its time per node compares runs
cut short at different points), and where the time went (the hooks' start phases,
lowering, egglog, read-back, extraction, validation; from the report's `phase_times` and the
validation's own time); at the end, per family and mode, the wall and the CPU time per node at the
largest size over the smallest (target: at most 1.3).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import results  # noqa: E402

from eqsat_uopc import UOp, optimize  # noqa: E402

RESULTS_SECTIONS = ("scale",)  # docs/results.md, written with --write-results (bench/results.py)

FAMILIES = ("chain", "divsum", "stack", "mixed")
BUDGET_PER_NODE = 5


def program(family: str, n: int) -> UOp:
    """A program of the family with about n nodes (the element count scaled once to the size measured)."""
    k = max(1, n // 6)
    p = _build(family, k)
    k = max(1, round(k * n / p.size))
    return _build(family, k)


def _build(family: str, k: int) -> UOp:
    """The family's program of k elements (steps of the chain, terms of the sum, elements of the STACK)."""
    x, y = UOp.param(0, bounds=(0, 255)), UOp.param(1, bounds=(0, 63))
    if family == "chain":
        p = UOp.param(0)
        for i in range(k):
            p = p + i
        return p
    if family == "divsum":
        p = None
        for i in range(k):
            t = (x * (i + 2) + y) // (i % 89 + 3)
            p = t if p is None else p + t
        return p
    if family == "stack":
        return UOp.stack(*(((x * (i % 13 + 1) + y) // (i % 7 + 2)) % (i % 5 + 3) + i for i in range(k)))
    if family == "mixed":
        return UOp.stack(*(x * i + y // (i % 11 + 2) + (x + y) * (i % 3 + 2) + i for i in range(k)))
    raise ValueError(f"no family {family!r}; the families are {', '.join(FAMILIES)}")


def phases(result) -> str:
    """Where the time of one optimize went: the report's phases summed over the pulses."""
    pulses = result.info.get("pulses", (result,))
    total: dict[str, float] = {}
    for e in pulses:
        times = getattr(e.report, "phase_times", None)
        if times is None:  # an older report: its four totals
            r = e.report
            times = {
                "lower": r.lower_time,
                "egglog": r.egglog_time,
                "read": r.raise_time,
                "fold": r.fold_time,
            }
        for k, v in times.items():
            total[k] = total.get(k, 0.0) + v
        total["extract"] = total.get("extract", 0.0) + e.seconds
    v = getattr(result, "validation", None)
    if v is not None and getattr(v, "seconds", None):
        total["validate"] = v.seconds
    shown = sorted(total.items(), key=lambda kv: -kv[1])[:7]
    return ", ".join(f"{k} {s:.2f}" for k, s in shown if s >= 0.005)


def stops(result) -> str:
    """Each pulse's stop reason, iterations and rule matches (`node_budget 12 it 1,234,567 m`)."""
    pulses = result.info.get("pulses", (result,))
    return "; ".join(
        f"{e.report.stop_reason} {e.report.iterations} it {e.report.rule_matches:,} m" for e in pulses
    )


def run(family: str, n: int, validate: bool) -> tuple[float, float, int]:
    """One optimize: its wall and CPU seconds and the program's size."""
    p = program(family, n)
    size = p.size
    t, cpu = time.perf_counter(), time.process_time()
    try:
        r = optimize(p, node_budget=BUDGET_PER_NODE * size, validate=validate)
    except Exception as e:  # a failure is a figure too (RecursionError on a wide STACK, before)
        dt = time.perf_counter() - t
        print(
            f"   {family:7s} {size:>8,} nodes  validate {'on ' if validate else 'off'} failed after "
            f"{dt:.2f} s: {type(e).__name__}: {str(e)[:100]}",
            flush=True,
        )
        return float("nan"), float("nan"), size
    dt, dcpu = time.perf_counter() - t, time.process_time() - cpu
    v = r.validation
    checked = f"; validation {v.status} ({v.check})" if validate else ""
    print(
        f"   {family:7s} {size:>8,} nodes  validate {'on ' if validate else 'off'} {dt:7.2f} s "
        f"{dt / size * 1e6:6.1f} us/node (CPU {dcpu:7.2f} s {dcpu / size * 1e6:6.1f} us/node)  -> "
        f"{r.program.size:,} nodes, {stops(r)}"
        f"{checked}\n      {phases(r)}",
        flush=True,
    )
    return dt, dcpu, size


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="25000,50000,100000,200000")
    ap.add_argument("--families", default=",".join(FAMILIES))
    ap.add_argument("--no-validate-off", action="store_true", help="only the runs with validation on")
    ap.add_argument("--no-validate-on", action="store_true", help="only the runs with validation off")
    ap.add_argument(
        "--cpu-phases",
        action="store_true",
        help="read time.perf_counter as the process's CPU time, so that the report's phases (egglog, "
        "read-back, ...) are CPU seconds, as the totals are, on a loaded machine (the wall times then "
        "read CPU too)",
    )
    ap.add_argument(results.FLAG, action="store_true", help=results.FLAG_HELP)
    args = ap.parse_args()
    if args.cpu_phases:
        time.perf_counter = time.process_time  # every phase timer reads time.perf_counter() at call
    sizes = [int(s) for s in args.sizes.split(",")]
    families = args.families.split(",")
    modes = [m for m, skip in ((True, args.no_validate_on), (False, args.no_validate_off)) if not skip]
    partial = ", ".join(
        what
        for what, differs in (
            (f"sizes {args.sizes}", sizes != [25000, 50000, 100000, 200000]),
            (f"families {args.families}", families != list(FAMILIES)),
            (f"validation {'on' if modes == [True] else 'off'} only", len(modes) < 2),
            ("phases in CPU seconds", args.cpu_phases),
        )
        if differs
    )
    with results.recorded("scale", args.write_results, partial or None):
        measure(sizes, families, modes)


def measure(sizes: list[int], families: list[str], modes: list[bool]) -> None:
    for family in families:  # warm up: engines, z3, the evaluator's code (not timed)
        optimize(program(family, 300), node_budget=1_500)
    per_node: dict[tuple[str, bool], list[float]] = {}
    cpu_per_node: dict[tuple[str, bool], list[float]] = {}
    for n in sizes:
        print(f"{n:,} nodes:")
        for family in families:
            for validate in modes:
                dt, dcpu, size = run(family, n, validate)
                per_node.setdefault((family, validate), []).append(dt / size)
                cpu_per_node.setdefault((family, validate), []).append(dcpu / size)
    if len(sizes) > 1:
        # the CPU time is the process's own: on a shared machine, wall time also counts other load
        for what, table in (("wall", per_node), ("CPU", cpu_per_node)):
            print(f"{what} time per node, {sizes[-1]:,} over {sizes[0]:,} (target at most 1.3):")
            for (family, validate), xs in table.items():
                print(
                    f"   {family:7s} validate {'on ' if validate else 'off'} "
                    + " ".join(f"{x * 1e6:.1f}" for x in xs)
                    + f" us/node: {xs[-1] / xs[0]:.2f}x"
                )
    if len(per_node) > 1:
        both = [
            (f, xs[-1] / per_node[(f, False)][-1])
            for (f, v), xs in per_node.items()
            if v and (f, False) in per_node
        ]
        if both:
            print(
                f"validation's added cost at {sizes[-1]:,} nodes: "
                + ", ".join(f"{f} {r:.2f}x" for f, r in both)
            )


if __name__ == "__main__":
    main()
