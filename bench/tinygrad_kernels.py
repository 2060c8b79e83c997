"""tinygrad with eqsat inside: the workload suite compiled without and with the mode, in one run.

For every workload of eqsat_uopc.tinygrad.suite, on one device (PYTHON by default: it interprets
kernels, no compiler needed; CPU with clang installed), from nothing (every kernel compiled again,
tinygrad's disk cache off):

- outputs: bit-identical without and with the mode (the count that differ must be 0);
- integer ALU ops per kernel in tinygrad's linearized program, without and with; kernels smaller,
  equal, larger; the suite's total and the total over the workloads that index non-trivially
  (convolutions, pooling, padding, permutes, gathers), and the distribution of the per-kernel change;
- compile time: tinygrad's do_to_program per kernel without and with the mode, the mode's own step,
  and the ratio of the mode's step to tinygrad's own codegen time for that kernel;
- one e-graph per kernel against one saturation per expression: the same workloads compiled again
  with `per_expression=True`, the mode's time per kernel both ways (ratio) and the ops each finds;
- run time: the median of `--rounds` cached runs of each workload, without and with, alternating.

Run: .venv/bin/python bench/tinygrad_kernels.py [--device CPU] [--rounds 5] [--json out.json]
     [--workloads conv2d_groups pad_flip ...] [--write-results]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import results  # bench/results.py, beside this script

from eqsat_uopc.tinygrad.effect import measure_workload
from eqsat_uopc.tinygrad.simplifier import SimplifierSettings
from eqsat_uopc.tinygrad.suite import SUITE

RESULTS_SECTIONS = ("tinygrad-kernels",)  # docs/results.md, written with --write-results (bench/results.py)


def _pct(before: int, after: int) -> float:
    return 100.0 * (before - after) / before if before else 0.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--device", default="PYTHON", help="tinygrad device (PYTHON, or CPU with clang installed)"
    )
    ap.add_argument("--rounds", type=int, default=5, help="cached runs timed per workload, each way")
    ap.add_argument("--workloads", nargs="*", default=None, help=f"a subset of: {', '.join(SUITE)}")
    ap.add_argument(
        "--json", default=None, help="write every kernel's figures to this file (for the notebook)"
    )
    ap.add_argument(results.FLAG, action="store_true", help=results.FLAG_HELP)
    args = ap.parse_args()
    names = args.workloads or list(SUITE)
    unknown = [n for n in names if n not in SUITE]
    if unknown:
        ap.error(f"unknown workload {unknown[0]!r}; known: {', '.join(SUITE)}")
    partial = None if args.workloads is None else f"{len(names)} of {len(SUITE)} workloads"
    with results.recorded("tinygrad-kernels", args.write_results, partial=partial):
        run(names, args.device, args.rounds, args.json)


def run(names: list[str], device: str, rounds: int, json_path: str | None) -> None:
    whole_settings, per_settings = SimplifierSettings(), SimplifierSettings(per_expression=True)
    start = time.perf_counter()
    effects, per_expression = {}, {}
    print(f"device {device}; {len(names)} workloads; each compiled from nothing without the mode, with it,")
    print("and with it one saturation per expression; integer ops counted in tinygrad's linearized programs")
    print()
    print(
        f"{'workload':24s} {'kernels':>7s} {'ops':>11s} {'fewer':>6s} {'same':>4s}  {'compile s':>11s}  "
        f"{'eqsat s':>7s} {'per-expr s':>10s}  {'run ms':>13s}"
    )
    for name in names:
        e = effects[name] = measure_workload(SUITE[name], device, whole_settings, timing_rounds=rounds)
        p = per_expression[name] = measure_workload(SUITE[name], device, per_settings, timing_rounds=0)
        compile_without = sum(k.compile_without for k in e.kernels)
        compile_with = sum(k.compile_with for k in e.kernels)
        run_ms = f"{1e3 * e.run_without:6.1f}/{1e3 * e.run_with:6.1f}" if e.run_without else "-"
        ops = f"{e.ops_without:5d}->{e.ops_with:<5d} {_pct(e.ops_without, e.ops_with):5.1f}%"
        eqsat = sum(k.eqsat_seconds for k in e.kernels), sum(k.eqsat_seconds for k in p.kernels)
        print(
            f"{name:24s} {len(e.kernels):7d} {ops} {'yes' if e.same_outputs else 'NO':>4s}  "
            f"{compile_without:5.2f}/{compile_with:5.2f}  {eqsat[0]:7.2f} {eqsat[1]:10.2f}  {run_ms:>13s}"
        )
    kernels = [(e, k) for e in effects.values() for k in e.kernels]
    smaller = sum(k.ops_with < k.ops_without for _, k in kernels)
    larger = sum(k.ops_with > k.ops_without for _, k in kernels)
    before, after = sum(k.ops_without for _, k in kernels), sum(k.ops_with for _, k in kernels)
    ix = [k for e, k in kernels if e.indexing]
    ix_before, ix_after = sum(k.ops_without for k in ix), sum(k.ops_with for k in ix)
    print()
    differ = sum(not e.same_outputs for e in effects.values())
    print(f"outputs that differ: {differ} of {len(effects)} workloads")
    equal = len(kernels) - smaller - larger
    print(f"kernels: {len(kernels)}; smaller {smaller}, equal {equal}, larger {larger}")
    print(f"integer ops, whole suite: {before} -> {after} ({_pct(before, after):.1f}% fewer)")
    print(
        f"integer ops, the {sum(e.indexing for e in effects.values())} workloads that index non-trivially "
        f"({len(ix)} kernels): {ix_before} -> {ix_after} ({_pct(ix_before, ix_after):.1f}% fewer)"
    )
    changes = sorted(_pct(k.ops_without, k.ops_with) for _, k in kernels if k.ops_with != k.ops_without)
    if changes:
        print(
            "per-kernel change where there is one: "
            + ", ".join(f"{c:.1f}%" for c in changes)
            + f" (median {statistics.median(changes):.1f}%)"
        )
    outcomes: dict[str, int] = {}
    for _, k in kernels:
        outcomes[k.outcome] = outcomes.get(k.outcome, 0) + 1
    print(
        "the mode's outcome per kernel: "
        + ", ".join(f"{n} {o}" for o, n in sorted(outcomes.items(), key=lambda x: -x[1]))
    )
    # compile time: the mode's step against tinygrad's own codegen for the same kernel
    ratios = [k.eqsat_seconds / k.compile_without for _, k in kernels if k.compile_without > 0]
    ours, theirs = sum(k.eqsat_seconds for _, k in kernels), sum(k.compile_without for _, k in kernels)
    print()
    with_mode = sum(k.compile_with for _, k in kernels)
    print(
        f"compile time, tinygrad without the mode: {theirs:.2f} s; with: {with_mode:.2f} s; the mode's step "
        f"{ours:.2f} s = {ours / theirs:.2f}x tinygrad's own (per kernel median "
        f"{statistics.median(ratios):.2f}x, max {max(ratios):.2f}x)"
    )
    per = {(n, k.key): k for n, p in per_expression.items() for k in p.kernels}
    pairs = [(k, per[(e.workload, k.key)]) for e, k in kernels]
    paired = [(w, q) for w, q in pairs if w.expressions > 1 and q.eqsat_seconds > 0]
    t_whole, t_per = sum(w.eqsat_seconds for w, _ in paired), sum(q.eqsat_seconds for _, q in paired)
    per_ratios = [w.eqsat_seconds / q.eqsat_seconds for w, q in paired]
    print(
        f"one e-graph per kernel against one saturation per expression ({len(paired)} kernels with 2+ "
        f"expressions): {t_whole:.2f} s against {t_per:.2f} s = {t_whole / t_per:.2f}x (per kernel median "
        f"{statistics.median(per_ratios):.2f}x, max {max(per_ratios):.2f}x); integer ops whole "
        f"{sum(w.ops_with for w, _ in pairs)}, per expression {sum(q.ops_with for _, q in pairs)}"
    )
    timed = [e for e in effects.values() if e.run_without]
    if timed:
        run_ratios = [e.run_with / e.run_without for e in timed]
        print(
            "run time (median of cached runs, with/without): per workload median "
            f"{statistics.median(run_ratios):.3f}x, min {min(run_ratios):.3f}x, max {max(run_ratios):.3f}x"
        )
    print(f"({time.perf_counter() - start:.0f} s)")
    if json_path:
        data = {
            "device": device,
            "workloads": [e.to_dict() for e in effects.values()],
            "per_expression": [p.to_dict() for p in per_expression.values()],
        }
        Path(json_path).write_text(json.dumps(data, indent=1) + "\n")


if __name__ == "__main__":
    main()
