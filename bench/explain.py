"""What explanations cost and how many are whole: `optimize` off and on, on the bundled corpora.

    .venv/bin/python bench/explain.py                 # 30 of each corpus, both int semantics
    .venv/bin/python bench/explain.py --count 10 --semantics wrap   # a quicker look

Off: `optimize` as it is (it attaches a function that explains on demand, and computes nothing)
against `optimize` with that attachment stubbed out, each the least of 3 runs, the two alternating
in order from one expression to the next so that the shared machine's load falls on both alike;
the ratio of the medians, and the median of the per-expression ratios (the steadier of the two on
a shared machine), are the cost of explanations when nobody asks (target at most 1.05x); and the
time of that attachment alone, per call, against the median optimize. On: `optimize` then
`.explain()` against `optimize` alone. Per corpus: the share of results with a complete checked
chain (every step names its rule, every step proved or tested, the chain replays to the result),
the share with a checked chain (every step checked, some unexplained), the median chain length
(steps), the unexplained steps among all steps, and the positions in the corpus of the results
whose chain is not complete.
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import statistics
import time

import results

import eqsat_uopc.pipeline.optimization as optimization
from eqsat_uopc import optimize
from eqsat_uopc.corpus import caviar_dev, index_expressions, tinygrad_capture

RESULTS_SECTIONS = ("explain",)  # docs/results.md, written with --write-results (bench/results.py)


def positions(count: int) -> dict[str, list[int]]:
    """Each corpus's sample, as positions in the corpus (`index_expressions(count, seed=0)[i]`,
    `caviar_dev()[i]`, `tinygrad_capture()[i]`)."""
    caviar, capture = len(caviar_dev()), len(tinygrad_capture())
    return {
        "index": list(range(count)),
        "caviar": sorted(random.Random(0).sample(range(caviar), count)),
        "capture": sorted(random.Random(0).sample(range(capture), count)),
    }


def corpora(count: int) -> dict[str, list]:
    corpus = {
        "index": index_expressions(count, seed=0),
        "caviar": caviar_dev(),
        "capture": tinygrad_capture(),
    }
    return {name: [corpus[name][i].program for i in at] for name, at in positions(count).items()}


def _no_explainer(program):
    return None


def timed(program, semantics: str, attach: bool, repeats: int = 3) -> tuple[float, object]:
    """The least of `repeats` times of optimize (with or without the explainer), and its result."""
    real = optimization.explainer
    optimization.explainer = real if attach else _no_explainer
    try:
        best, result = float("inf"), None
        for _ in range(repeats):
            start = time.perf_counter()
            result = optimize(program, int_semantics=semantics)
            best = min(best, time.perf_counter() - start)
        return best, result
    finally:
        optimization.explainer = real


def attachment_seconds(result, program, calls: int = 10_000) -> float:
    """The time of what optimize does for explanations when nobody asks: make the closure and put it
    on the result (one dataclasses.replace), per call."""
    start = time.perf_counter()
    for _ in range(calls):
        dataclasses.replace(result, explainer=optimization.explainer(program))
    return (time.perf_counter() - start) / calls


def measure(name: str, programs: list, semantics: str, at: list[int]) -> None:
    for p in programs[:3]:
        optimize(p, int_semantics=semantics)
    off, stub, explain_times, lengths = [], [], [], []
    complete = checked = steps = unexplained = 0
    incomplete: list[str] = []  # the corpus positions of the results without a complete checked chain
    for k, p in enumerate(programs):
        order = (False, True) if k % 2 == 0 else (True, False)
        got = {flag: timed(p, semantics, flag) for flag in order}
        (t_stub, _), (t_off, result) = got[False], got[True]
        stub.append(t_stub)
        off.append(t_off)
        start = time.perf_counter()
        e = result.explain()
        explain_times.append(time.perf_counter() - start)
        lengths.append(len(e.chain.steps))
        complete += e.complete
        if not e.complete:
            incomplete.append(f"{at[k]}{'' if e.checked else ' (not checked)'}")
        checked += e.checked
        steps += len(e.chain.steps)
        unexplained += sum(not s.explained for s in e.chain.steps)
    n = len(programs)
    m_stub, m_off = statistics.median(stub), statistics.median(off)
    attach = attachment_seconds(result, programs[-1])
    on = [a + b for a, b in zip(off, explain_times, strict=True)]
    print(
        f"{name} ({n}, {semantics}): optimize median {m_stub * 1e3:.1f} ms without the explainer, "
        f"{m_off * 1e3:.1f} ms with it (off): {m_off / m_stub:.3f}x (median ratio "
        f"{statistics.median(a / b for a, b in zip(off, stub, strict=True)):.3f}x); with .explain() "
        f"{statistics.median(on) * 1e3:.1f} ms: {statistics.median(on) / m_off:.2f}x (mean "
        f"{statistics.mean(on) / statistics.mean(off):.2f}x)"
    )
    print(
        f"  the attachment itself (what optimize adds when nobody asks): {attach * 1e6:.1f} us a call, "
        f"{attach / m_off:.2e} of the median optimize"
    )
    print(
        f"  complete checked chains {complete}/{n} ({complete / n:.1%}); checked chains {checked}/{n} "
        f"({checked / n:.1%}); median chain length {statistics.median(lengths)}, max {max(lengths)}; "
        f"unexplained steps {unexplained}/{steps}"
    )
    if incomplete:
        print(f"  incomplete (positions in the corpus): {', '.join(incomplete)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--count", type=int, default=30, help="expressions per corpus (default 30)")
    ap.add_argument(
        "--semantics",
        default="both",
        choices=("both", "wrap", "no_overflow"),
        help="int semantics (default both)",
    )
    ap.add_argument(results.FLAG, action="store_true", help=results.FLAG_HELP)
    args = ap.parse_args()
    partial = (
        None if (args.count, args.semantics) == (30, "both") else f"{args.count} per corpus, {args.semantics}"
    )
    with results.recorded("explain", args.write_results, partial):
        programs, at = corpora(args.count), positions(args.count)
        for semantics in ("wrap", "no_overflow") if args.semantics == "both" else (args.semantics,):
            for name, chosen in programs.items():
                measure(name, chosen, semantics, at[name])


if __name__ == "__main__":
    main()
