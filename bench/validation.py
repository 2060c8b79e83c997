"""What translation validation costs: `optimize` with validation on against off, interleaved.

    .venv/bin/python bench/validation.py                 # 100 of each corpus, both int semantics
    .venv/bin/python bench/validation.py --count 30      # a quicker look
    .venv/bin/python bench/validation.py --semantics no_overflow --count 300
    .venv/bin/python bench/validation.py --corpus caviar --count 60   # one corpus

`optimize` validates its result against the input before returning it (docs/DESIGN.md,
"Translation validation"). This script measures what that adds, per bundled corpus (the generated
index expressions with seed 0, a seeded sample of the Caviar expressions, a seeded sample of the
tinygrad capture) and per int semantics: each expression is optimized with `validate=False` and
with `validate=True` in one process, the two runs alternating in order from one expression to
the next (off then on, on then off), so that the shared machine's load and the engines' age fall on
both alike; every engine is warmed off the clock first.

Printed per corpus: the median time per expression off and on and their ratio (the target is at
most 1.3x), the median of the per-expression ratios, the mean times; the median CPU time of the
calling thread and of the whole process (every thread: z3's contexts are made and deleted on a
background thread, verify/quick_contexts.py), which a loaded machine changes less than wall time,
and which tell what runs on the caller's path from what runs beside it, and the mean CPU time of
the z3 process that answers the quick tries begun early (verify/quick_worker.py: not counted in
the process's); and how the results were
validated: identical (nothing to check), proved by z3, tested by the evaluator (z3 undecided within
its resource budget, or an f32 program), unknown, and how many results validation refuted and
replaced (bugs of the rewrites, each listed). "proved share" is proved / (proved + tested +
unknown): of the results that needed a check, those z3 decided.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import results

from eqsat_uopc import optimize
from eqsat_uopc.corpus import caviar_dev, index_expressions, tinygrad_capture
from eqsat_uopc.ir.uir import to_uir
from eqsat_uopc.verify.quick_contexts import QUICK_TACTICS
from eqsat_uopc.verify.quick_worker import start, worker_cpu_seconds

RESULTS_SECTIONS = ("validation",)  # docs/results.md, written with --write-results (bench/results.py)
CORPORA = ("index", "caviar", "capture")


def corpora(count: int) -> dict[str, list]:
    caviar, capture = caviar_dev(), tinygrad_capture()
    return {
        "index": [e.program for e in index_expressions(count, seed=0)],
        "caviar": [caviar[i].program for i in sorted(random.Random(0).sample(range(len(caviar)), count))],
        "capture": [capture[i].program for i in sorted(random.Random(0).sample(range(len(capture)), count))],
    }


def timed(program, semantics: str, validate: bool) -> tuple[tuple[float, float, float], object]:
    """(wall, this thread's CPU, the process's CPU) seconds of one optimize, and its result."""
    start = time.perf_counter(), time.thread_time(), time.process_time()
    result = optimize(program, int_semantics=semantics, validate=validate)
    end = time.perf_counter(), time.thread_time(), time.process_time()
    return (end[0] - start[0], end[1] - start[1], end[2] - start[2]), result


def measure(name: str, programs: list, semantics: str) -> None:
    for p in programs[:3]:  # the engines this corpus needs, warm
        optimize(p, int_semantics=semantics, validate=False)
    start(QUICK_TACTICS, 30.0)  # the z3 process that answers the checks begun early, ready
    worker = worker_cpu_seconds()
    off, on, ratios, statuses, replaced = [], [], [], {}, []
    cpu: dict[str, list[float]] = {"thread off": [], "thread on": [], "process off": [], "process on": []}
    for k, p in enumerate(programs):
        order = (False, True) if k % 2 == 0 else (True, False)
        got = {flag: timed(p, semantics, flag) for flag in order}
        ((t_off, thread_off, process_off), _), ((t_on, thread_on, process_on), result) = got[False], got[True]
        off.append(t_off)
        on.append(t_on)
        ratios.append(t_on / t_off)
        for key, t in zip(cpu, (thread_off, thread_on, process_off, process_on), strict=True):
            cpu[key].append(t)
        v = result.validation
        statuses[v.status] = statuses.get(v.status, 0) + 1
        if v.replaced:
            replaced.append((k, p, v))
    worker = worker_cpu_seconds() - worker
    m_off, m_on = statistics.median(off), statistics.median(on)
    checked = sum(statuses.get(s, 0) for s in ("proved", "tested", "unknown"))
    share = f"{statuses.get('proved', 0) / checked:.1%}" if checked else "n/a"
    counts = ", ".join(
        f"{s} {statuses[s]}" for s in ("identical", "proved", "tested", "unknown") if s in statuses
    )
    print(
        f"{name:8} {semantics:11} {len(programs):4}  median {m_off * 1000:7.1f} -> {m_on * 1000:7.1f} ms "
        f"= {m_on / m_off:.2f}x (per-expression median {statistics.median(ratios):.2f}x; mean "
        f"{statistics.mean(off) * 1000:.1f} -> {statistics.mean(on) * 1000:.1f} ms)"
    )
    m = {key: statistics.median(t) * 1000 for key, t in cpu.items()}
    print(
        f"{'':21}CPU: this thread {m['thread off']:.1f} -> {m['thread on']:.1f} ms = "
        f"{m['thread on'] / m['thread off']:.2f}x; the process {m['process off']:.1f} -> "
        f"{m['process on']:.1f} ms = {m['process on'] / m['process off']:.2f}x; the z3 process "
        f"{worker * 1000 / len(programs):.1f} ms an expression (mean)"
    )
    print(f"{'':21}validated: {counts}; proved share {share}; refuted and replaced {len(replaced)}")
    for k, p, v in replaced:
        first = v.replaced[0]
        print(
            f"{'':23}#{k}: {first.candidate} refuted ({first.validation.check}), returned {v.candidate}: "
            f"{to_uir(p).count(chr(10))} nodes"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=100, help="expressions per corpus (default 100)")
    ap.add_argument(
        "--semantics",
        choices=("both", "no_overflow", "wrap"),
        default="both",
        help="int semantics (default both)",
    )
    ap.add_argument(
        "--corpus", choices=("all", *CORPORA), default="all", help="the corpus to measure (default all)"
    )
    ap.add_argument(results.FLAG, action="store_true", help=results.FLAG_HELP)
    args = ap.parse_args()
    partial = (
        None
        if (args.count, args.semantics, args.corpus) == (100, "both", "all")
        else f"{args.count} per corpus, {args.semantics}, {args.corpus}"
    )
    with results.recorded("validation", args.write_results, partial):
        programs = corpora(args.count)
        print("optimize with validation on against off, interleaved (default rules and settings, DAG size)")
        for semantics in ("no_overflow", "wrap") if args.semantics == "both" else (args.semantics,):
            for name in CORPORA if args.corpus == "all" else (args.corpus,):
                measure(name, programs[name], semantics)


if __name__ == "__main__":
    main()
