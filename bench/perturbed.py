"""What saturation decides of Caviar expressions whose constants moved: a check for overfitting.

    .venv/bin/python bench/perturbed.py                    # seed 1, every expression, ~4 min
    .venv/bin/python bench/perturbed.py --seed 2 --seed 3 --limit 300
    .venv/bin/python bench/perturbed.py --capture          # the tinygrad capture, moved, ~1 min

The rule families were written against the bundled Caviar expressions, of which saturation
decides 920 of the 924 that are theorems under `no_overflow`. `perturbed_caviar(seed)` moves about
half of each expression's constants (eqsat_uopc/corpus/perturbed.py); z3 then says which moved
expressions are still true or false under `no_overflow` (exactly one of the two proved within
`--timeout-ms`; the rest are mixed or unknown and left out), and `optimize` (default rules, DAG
size, `no_overflow`) runs on those. Printed per seed: how many z3 proved true or false, how many
saturation reduced to the right constant, to the wrong one (a soundness bug: the script exits 1),
or left open, the median and mean `optimize` time, and the open ones.

With `--capture`, the same for the tinygrad side: the index and validity expressions of the
tinygrad capture with their constants moved (`perturb_constants`, one rng per seed), each
saturated and simplified by tinygrad's own `simplify` live (the bounds of the inputs kept), their
DAG sizes compared: how many saturated results are smaller, equal, larger, and the larger ones.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time

import results
from eqsat_uopc.extract import cost_of

from eqsat_uopc import UOp, optimize
from eqsat_uopc.corpus import perturb_constants, perturbed_caviar, tinygrad_capture, to_sexpr
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.verify import prove_equivalent

# docs/results.md, written with --write-results (bench/results.py)
RESULTS_SECTIONS = ("perturbed", "perturbed-capture")


def truth(program: UOp, timeout_ms: int) -> bool | None:
    """True or False when z3 proves the program that constant (and not the other) under no_overflow."""
    proved = [
        v
        for v in (True, False)
        if prove_equivalent(program, UOp.const(v), "no_overflow", timeout_ms=timeout_ms).status == "proved"
    ]
    return proved[0] if len(proved) == 1 else None


def capture(seed: int, limit: int | None) -> None:
    """Saturated against tinygrad's simplify on the moved capture (DAG sizes)."""
    from eqsat_uopc.tinygrad import tinygrad_simplify

    rng = random.Random(seed)
    counts, larger = {"smaller": 0, "equal": 0, "larger": 0}, []
    for e in tinygrad_capture()[:limit]:
        program = perturb_constants(e.program, rng)
        theirs = cost_of(tinygrad_simplify(program), "dag_size")
        ours = cost_of(optimize(program, "dag_size", int_semantics="no_overflow").program, "dag_size")
        kind = "smaller" if ours < theirs else "equal" if ours == theirs else "larger"
        counts[kind] += 1
        if kind == "larger":
            larger.append(f"   larger: {e.id}~{seed} {ours} vs {theirs}: {to_sexpr(program, e.var_names)}")
    print(
        f"seed {seed}: {sum(counts.values())} moved capture expressions, saturated against tinygrad: "
        f"{counts['smaller']} smaller, {counts['equal']} equal, {counts['larger']} larger"
    )
    for line in larger:
        print(line)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, action="append", help="perturbation seed (repeatable; default 1)")
    ap.add_argument("--limit", type=int, default=None, help="the first N expressions of each seed")
    ap.add_argument("--timeout-ms", type=int, default=3000, help="z3's time per proof attempt")
    ap.add_argument("--capture", action="store_true", help="the tinygrad capture against tinygrad instead")
    ap.add_argument(results.FLAG, action="store_true", help=results.FLAG_HELP)
    args = ap.parse_args(argv)
    partial = f"--limit {args.limit}: the first {args.limit} expressions of each seed" if args.limit else None
    section = "perturbed-capture" if args.capture else "perturbed"
    with results.recorded(section, args.write_results, partial):
        return measure(args)


def measure(args: argparse.Namespace) -> int:
    if args.capture:
        for seed in args.seed or [1]:
            capture(seed, args.limit)
        return 0
    wrong_anywhere = False
    for seed in args.seed or [1]:
        entries = perturbed_caviar(seed)[: args.limit]
        counts = {"true": 0, "false": 0, "neither": 0, "right": 0, "wrong": 0, "open": 0}
        times, open_ = [], []
        for e in entries:
            value = truth(e.program, args.timeout_ms)
            if value is None:
                counts["neither"] += 1
                continue
            counts["true" if value else "false"] += 1
            start = time.perf_counter()
            result = optimize(e.program, "dag_size", int_semantics="no_overflow").program
            times.append(time.perf_counter() - start)
            if result.op is not Ops.CONST:
                counts["open"] += 1
                open_.append(e)
            elif result.arg is value:
                counts["right"] += 1
            else:
                counts["wrong"] += 1
                wrong_anywhere = True
                print(
                    f"WRONG {e.id}: z3 proves {value}, saturation gives {result.arg}: {to_sexpr(e.program)}"
                )
        proved = counts["true"] + counts["false"]
        print(
            f"seed {seed}: {len(entries)} perturbed expressions, z3 proves {counts['true']} true and "
            f"{counts['false']} false ({counts['neither']} neither); saturation: {counts['right']} right, "
            f"{counts['wrong']} wrong, {counts['open']} open of {proved}; optimize median "
            f"{statistics.median(times) * 1e3:.1f} ms, mean {statistics.mean(times) * 1e3:.1f} ms"
            if times
            else f"seed {seed}: nothing proved"
        )
        for e in open_:
            print(f"   open: {e.id}  {to_sexpr(e.program, e.var_names)[:160]}")
    return 1 if wrong_anywhere else 0


if __name__ == "__main__":
    sys.exit(main())
