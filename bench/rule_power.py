"""What the rule families buy: right constants on Caviar, sizes against tinygrad, and what they cost.

    .venv/bin/python bench/rule_power.py            # full: 946 Caviar + 1,483 tinygrad expressions
    .venv/bin/python bench/rule_power.py --quick    # 120 + 150 of them

Two rule sets are measured in the same run: "chapter+AC" (the chapter's symbolic families, the
evaluate rules and commutativity/associativity: the default before the families beyond the
chapter) and "default" (that plus boolean, minmax, linear, divisibility). For each:

1. Caviar, the true-or-false expressions: how many `optimize` reduces to the right constant under
   `no_overflow` and under `wrap`, how many to a wrong one, and how many results random testing
   refutes against the input (`check_equivalent`, interpreter, 20 samples, under the semantics
   asked for). Halide's simplifier and Caviar together decide 861 of the 946 (the corpus records
   both); 22 of the 946 verdicts are not theorems (z3 refutes them: the samples missed the
   counterexample), so 924 is the ceiling.
2. The tinygrad capture, `no_overflow`: saturated results smaller / equal / larger than tinygrad's
   own simplification (recorded in the corpus), by DAG size.
3. Time per expression: median and mean `optimize` time on both corpora (the rule sets run
   interleaved, expression by expression, so that load falls on both alike), with the greedy
   `simplify` median measured in the same process as the reference.
4. With --ablation: for each family beyond the chapter, how many expressions change when it is
   left out of "default" (Caviar right constants lost under no_overflow; tinygrad results that get
   larger).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from eqsat_uopc.extract import cost_of
from eqsat_uopc.rules import BEYOND_CHAPTER_FAMILIES, SYMBOLIC_FAMILIES, RuleSet
from eqsat_uopc.rules import RULE_SETS as REGISTERED

from eqsat_uopc import optimize
from eqsat_uopc.corpus import VERDICTS, caviar_dev, tinygrad_capture
from eqsat_uopc.greedy import simplify
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.pipeline.comparison import rank
from eqsat_uopc.verify import check_equivalent

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


def tinygrad_rows(entries: list) -> dict[str, dict]:
    """Per rule set: results smaller / equal / larger than tinygrad's, and the times (interleaved)."""
    rows = {
        name: {"smaller": 0, "equal": 0, "larger": 0, "times": [], "larger_ids": [], "results": {}}
        for name in RULE_SETS
    }
    for e in entries:
        theirs = cost_of(e.tinygrad, "dag_size")
        for name, rules in RULE_SETS.items():
            r = rows[name]
            t = time.perf_counter()
            ours = optimize(e.program, "dag_size", rules=rules, int_semantics="no_overflow").program
            r["times"].append(time.perf_counter() - t)
            r["results"][e.id] = ours
            a = cost_of(ours, "dag_size")
            r[rank(a, theirs)] += 1
            if a > theirs:
                r["larger_ids"].append(e.id)
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
    args = ap.parse_args()
    caviar = [e for e in caviar_dev() if VERDICTS[e.verdict] is not None]
    captured = tinygrad_capture()
    if args.quick:
        caviar = random.Random(0).sample(caviar, 120)
        captured = random.Random(0).sample(captured, 150)
    for rules in RULE_SETS.values():  # warm each engine off the clock
        optimize(caviar[0].program, rules=rules, int_semantics="no_overflow")
        optimize(caviar[0].program, rules=rules, int_semantics="wrap")
    greedy_caviar = greedy_median([e.program for e in caviar])
    greedy_tinygrad = greedy_median([e.program for e in captured])
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
    print(
        f"\n2. tinygrad capture: {len(captured)} expressions, no_overflow,"
        " DAG size against tinygrad's own result"
    )
    tinygrad_times = {}
    for name, r in tinygrad_rows(captured).items():
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
        ablation(caviar, captured, default_results)


def ablation(caviar: list, captured: list, base: dict) -> None:
    """Section 4: what each family beyond the chapter changes, by leaving it out of "default".
    `base` holds sections 1-2's no_overflow results of "default", by entry id."""
    print("\n4. each family left out of default: expressions it changes")
    full = REGISTERED["default"]
    for fam in BEYOND_CHAPTER_FAMILIES:
        rs = RuleSet(f"default-{fam}", tuple(f for f in full.families if f != fam))
        lost = sum(
            base[e.id].op is Ops.CONST
            and optimize(e.program, "dag_size", rules=rs, int_semantics="no_overflow").program
            is not base[e.id]
            for e in caviar
        )
        grew = sum(
            cost_of(
                optimize(e.program, "dag_size", rules=rs, int_semantics="no_overflow").program, "dag_size"
            )
            > cost_of(base[e.id], "dag_size")
            for e in captured
        )
        print(
            f"   without {fam:13s}: Caviar right constants lost {lost:4d}; tinygrad results larger {grew:4d}"
        )


if __name__ == "__main__":
    main()
