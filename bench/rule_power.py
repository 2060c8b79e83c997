"""What the rule families buy: right constants on Caviar, sizes against tinygrad, and what they cost.

    .venv/bin/python bench/rule_power.py            # full: 946 Caviar + 1,483 tinygrad expressions
    .venv/bin/python bench/rule_power.py --quick    # 120 + 150 of them

Two rule sets are measured in the same run: "chapter+AC" (the chapter's symbolic families, the
evaluate rules and commutativity/associativity: the default before the families beyond the
chapter) and "default" (that plus boolean, minmax, linear, divisibility, digits, offsets). For each:

1. Caviar, the true-or-false expressions: how many `optimize` reduces to the right constant under
   `no_overflow` and under `wrap`, how many to a wrong one, and how many results random testing
   refutes against the input (`check_equivalent`, interpreter, 20 samples, under the semantics
   asked for). Halide's simplifier and Caviar together decide 861 of the 946 (the corpus records
   both); 22 of the 946 verdicts are not theorems (z3 refutes them: the samples missed the
   counterexample), so 924 is the ceiling.
2. Against tinygrad, `no_overflow`: saturated results smaller / equal / larger than tinygrad's own
   simplification, by DAG size, on the tinygrad capture (tinygrad's result recorded in the corpus)
   and on generated index expressions (`index_expressions(500, seed=0)`, loop variables as bounded
   inputs; tinygrad's `simplify` run live, so tinygrad must be installed).
3. Time per expression: median and mean `optimize` time on both corpora (the rule sets run
   interleaved, expression by expression, so that load falls on both alike), with the greedy
   `simplify` median measured in the same process as the reference.
4. With --ablation: for each family beyond the chapter, how many expressions change when it is
   left out of "default" (Caviar right constants lost under no_overflow; results that get larger
   on the tinygrad capture and on the generated index expressions).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import results
from eqsat_uopc.extract import cost_of
from eqsat_uopc.rules import BEYOND_CHAPTER_FAMILIES, SYMBOLIC_FAMILIES, RuleSet
from eqsat_uopc.rules import RULE_SETS as REGISTERED

from eqsat_uopc import optimize
from eqsat_uopc.corpus import VERDICTS, caviar_dev, index_expressions, tinygrad_capture
from eqsat_uopc.greedy import simplify
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.pipeline.comparison import rank
from eqsat_uopc.tinygrad import tinygrad_simplify
from eqsat_uopc.verify import check_equivalent

RESULTS_SECTIONS = ("rule-power",)  # docs/results.md, written with --write-results (bench/results.py)

RULE_SETS = {
    "chapter+AC": RuleSet("chapter+AC", (*SYMBOLIC_FAMILIES, "evaluate", "comm_assoc")),
    "default": "default",
}


def caviar_rows(entries: list, sem: str) -> dict[str, dict]:
    """Per rule set: right, wrong and refuted results and the times, the rule sets interleaved per
    expression (so that load on the shared machine falls on both alike)."""
    rows = {name: {"right": 0, "wrong": 0, "refuted": 0, "times": [], "results": {}} for name in RULE_SETS}
    for e in entries:
        expected = VERDICTS[e.verdict]
        for name, rules in RULE_SETS.items():
            r = rows[name]
            t = time.perf_counter()
            result = optimize(e.program, "dag_size", rules=rules, int_semantics=sem).program
            r["times"].append(time.perf_counter() - t)
            r["results"][e.id] = result
            if result.op is Ops.CONST:
                ok = result.arg is expected
                r["right"], r["wrong"] = r["right"] + ok, r["wrong"] + (not ok)
            verdict = check_equivalent(
                e.program, result, int_semantics=sem, samples=20, backends=("interpreter",), prove=False
            )
            r["refuted"] += verdict.status == "refuted"
    return rows


def generated_index_entries(n: int) -> list[tuple[str, UOp, UOp]]:
    """(id, program, tinygrad's simplification) of n generated index expressions, loop variables as
    bounded inputs."""
    out = []
    for k, e in enumerate(index_expressions(n, seed=0)):
        program = e.bounded_program
        out.append((f"index/{k:04d}", program, tinygrad_simplify(program)))
    return out


def tinygrad_rows(entries: list[tuple[str, UOp, UOp]]) -> dict[str, dict]:
    """Per rule set: results smaller / equal / larger than tinygrad's, and the times (interleaved).
    entries: (id, program, tinygrad's simplification of it)."""
    rows = {
        name: {"smaller": 0, "equal": 0, "larger": 0, "times": [], "larger_ids": [], "results": {}}
        for name in RULE_SETS
    }
    for key, program, tinygrad in entries:
        theirs = cost_of(tinygrad, "dag_size")
        for name, rules in RULE_SETS.items():
            r = rows[name]
            t = time.perf_counter()
            ours = optimize(program, "dag_size", rules=rules, int_semantics="no_overflow").program
            r["times"].append(time.perf_counter() - t)
            r["results"][key] = ours
            a = cost_of(ours, "dag_size")
            r[rank(a, theirs)] += 1
            if a > theirs:
                r["larger_ids"].append(key)
    return rows


def _times(ts: list[float]) -> str:
    return f"median {statistics.median(ts) * 1e3:6.1f} ms, mean {statistics.mean(ts) * 1e3:6.1f} ms"


def greedy_median(programs: list) -> float:
    times = []
    for p in programs:
        t = time.perf_counter()
        simplify(p)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="samples of 120 Caviar and 150 tinygrad expressions")
    ap.add_argument("--ablation", action="store_true", help="also leave out each family beyond the chapter")
    ap.add_argument(results.FLAG, action="store_true", help=results.FLAG_HELP)
    args = ap.parse_args()
    partial = (
        "--quick: 120 of the 946 Caviar, 150 of the 1,483 capture, 100 generated expressions"
        if args.quick
        else None
    )
    with results.recorded("rule-power", args.write_results, partial):
        measure(args)


def measure(args: argparse.Namespace) -> None:
    caviar = [e for e in caviar_dev() if VERDICTS[e.verdict] is not None]
    captured = [(e.id, e.program, e.tinygrad) for e in tinygrad_capture()]
    generated = generated_index_entries(100 if args.quick else 500)
    if args.quick:
        caviar = random.Random(0).sample(caviar, 120)
        captured = random.Random(0).sample(captured, 150)
    for rules in RULE_SETS.values():  # warm each engine off the clock
        optimize(caviar[0].program, rules=rules, int_semantics="no_overflow")
        optimize(caviar[0].program, rules=rules, int_semantics="wrap")
    greedy_caviar = greedy_median([e.program for e in caviar])
    greedy_tinygrad = greedy_median([program for _, program, _ in captured])
    print(f"1. Caviar: {len(caviar)} true-or-false expressions (Halide + Caviar decide 861 of 946)")
    print(f"   {'rule set':12s} {'semantics':12s} {'right':>6s} {'wrong':>6s} {'refuted':>8s}  time/expr")
    caviar_times, default_results = {}, {}
    for sem in ("no_overflow", "wrap"):
        for name, r in caviar_rows(caviar, sem).items():
            caviar_times[(name, sem)] = r["times"]
            if (name, sem) == ("default", "no_overflow"):
                default_results |= r["results"]
            print(
                f"   {name:12s} {sem:12s} {r['right']:6d} {r['wrong']:6d} {r['refuted']:8d}"
                f"  {_times(r['times'])}"
            )
    print("\n2. against tinygrad's own result, no_overflow, DAG size")
    tinygrad_times = {}
    for corpus, entries in (("capture", captured), ("generated", generated)):
        print(f"   {corpus}: {len(entries)} expressions")
        for name, r in tinygrad_rows(entries).items():
            if corpus == "capture":
                tinygrad_times[name] = r["times"]
            if name == "default":
                default_results |= r["results"]
            print(
                f"   {name:12s} smaller {r['smaller']:5d}  equal {r['equal']:5d}  larger {r['larger']:4d}"
                f"  {_times(r['times'])}"
                + (f"   larger on: {', '.join(r['larger_ids'][:5])}" if r["larger_ids"] else "")
            )
    print("\n3. time per expression against greedy `simplify` (median, same process)")
    print(f"   greedy simplify: Caviar {greedy_caviar * 1e3:.3f} ms, tinygrad {greedy_tinygrad * 1e3:.3f} ms")
    for name in RULE_SETS:
        cav = statistics.median(caviar_times[(name, "no_overflow")])
        tg = statistics.median(tinygrad_times[name])
        print(
            f"   {name:12s} optimize / simplify: Caviar {cav / greedy_caviar:6.0f}x, "
            f"tinygrad {tg / greedy_tinygrad:6.0f}x"
        )
    new, old = tinygrad_times["default"], tinygrad_times["chapter+AC"]
    cav_new, cav_old = caviar_times[("default", "no_overflow")], caviar_times[("chapter+AC", "no_overflow")]
    print(
        f"   default / chapter+AC: tinygrad median {statistics.median(new) / statistics.median(old):.2f}x,"
        f" mean {statistics.mean(new) / statistics.mean(old):.2f}x; Caviar (no_overflow) median"
        f" {statistics.median(cav_new) / statistics.median(cav_old):.2f}x,"
        f" mean {statistics.mean(cav_new) / statistics.mean(cav_old):.2f}x"
    )

    if args.ablation:
        ablation(caviar, captured, generated, default_results)


def ablation(caviar: list, captured: list, generated: list, base: dict) -> None:
    """Section 4: what each family beyond the chapter changes, by leaving it out of "default".
    `base` holds sections 1-2's no_overflow results of "default", by entry id."""
    print("\n4. each family left out of default: expressions it changes")
    full = REGISTERED["default"]
    for fam in BEYOND_CHAPTER_FAMILIES:
        rs = full.without(fam)
        lost = sum(
            base[e.id].op is Ops.CONST
            and optimize(e.program, "dag_size", rules=rs, int_semantics="no_overflow").program
            is not base[e.id]
            for e in caviar
        )
        grew = [
            sum(
                cost_of(optimize(p, "dag_size", rules=rs, int_semantics="no_overflow").program, "dag_size")
                > cost_of(base[key], "dag_size")
                for key, p, _ in entries
            )
            for entries in (captured, generated)
        ]
        print(
            f"   without {fam:13s}: Caviar right constants lost {lost:4d};"
            f" results larger: capture {grew[0]:4d}, generated {grew[1]:4d}"
        )


if __name__ == "__main__":
    main()
