"""The warm saturation engine: per-program cost against the greedy engine, and scaling with size.

    .venv/bin/python bench/engine.py               # everything (several minutes: 1M-node scaling)
    .venv/bin/python bench/engine.py --quick       # a smoke test (small samples, no 1M run)
    .venv/bin/python bench/engine.py --sizes 1000,10000 --limit 300

Sections (every time measured in this process, this run):
1. A one-node program: a cold `saturate` (a new engine: schema and rules parsed) against warm ones
   (the engine reused). Median of repeats; the ratio warm / cold.
2. `optimize` (default settings, no_overflow) over the bundled Caviar corpus, next to greedy
   `graph_rewrite(symbolic)` timed on the same programs; mean and median per program, and the mean
   against Caviar's recorded 0.78 s (`caviar_result.total_time_s`; target: a tenth of it).
3. `optimize` (default settings) over generated index expressions, next to greedy: median ratio
   (target: at most 30x).
4. Scaling: a program of n nodes (a sum of n distinct constants onto an input, so every rule family
   has work and the e-graph grows) saturated for two iterations with a budget that never binds:
   lowering, egglog, read-back and extraction, each in microseconds per e-node.
5. Warm against cold: the extracted programs and reports of a corpus sample on fresh engines and on
   one reused engine; any difference is printed (there should be none).
6. The floor of a warm run: egglog's push and pop of an empty program on a fresh warm engine, per
   rule set (its cost grows with the rules the engine holds), next to a whole warm
   `saturate(x + 1)`; then the same push and pop on the `default` engine after it ran 60 Caviar
   programs (egglog's pop does not give everything back, so it grows).
7. Rule relevance: `optimize` with and without `prune_rules` (relevance.py), interleaved per
   program after an untimed pass that makes every engine the programs need (with few programs,
   the creation of an engine per relevant rule set would otherwise dominate), on Caviar and index
   expressions: the rules each program's engine holds (median), the
   median times and their ratio, and any program whose result or report differs (there should be
   none).
8. (not with --quick) `optimize` of a 200,001-node chain `x + 0 + 1 + ... + 99999` with a budget of
   1,000,000 e-nodes: every pulse's stop reason, e-nodes and seconds per phase, and the whole.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import results  # noqa: E402
from eqsat_uopc.rules import egglog_program, rule_set  # noqa: E402

from eqsat_uopc import UOp, optimize, saturate  # noqa: E402
from eqsat_uopc.corpus import caviar_dev, index_expressions  # noqa: E402
from eqsat_uopc.greedy import graph_rewrite, symbolic  # noqa: E402
from eqsat_uopc.saturation.engine import clear_pool, default_pool  # noqa: E402

RESULTS_SECTIONS = ("engine",)  # docs/results.md, written with --write-results (bench/results.py)

CAVIAR_RECORDED_MEAN = 0.78  # seconds per expression, Caviar's own runs (the corpus records them)


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:.2f} ms"


def one_node(repeats: int) -> None:
    p = UOp.param(0) + 1
    cold, cold_all, warm = [], [], []
    for _ in range(repeats):
        clear_pool()
        t = time.perf_counter()
        saturate(p, prune_rules=False).close()
        cold_all.append(time.perf_counter() - t)
        t = time.perf_counter()
        saturate(p).close()
        cold.append(time.perf_counter() - t)
        t = time.perf_counter()
        saturate(p).close()
        warm.append(time.perf_counter() - t)
    a, c, w = statistics.median(cold_all), statistics.median(cold), statistics.median(warm)
    print(
        f"1. saturate(x + 1): cold {ms(a)} on an engine of every rule, {ms(c)} on one of the rules that can"
        f" fire; warm {ms(w)}: warm/cold {w / a:.3f} against the first (target <= 0.033), {w / c:.3f}"
        " against the second"
    )


def greedy_time(p: UOp) -> float:
    t = time.perf_counter()
    graph_rewrite(p, symbolic)
    return time.perf_counter() - t


def corpus(name: str, programs: list[UOp], int_semantics: str) -> tuple[list[float], list[float]]:
    opt, greedy = [], []
    for p in programs:
        greedy.append(greedy_time(p))
        t = time.perf_counter()
        optimize(p, int_semantics=int_semantics)
        opt.append(time.perf_counter() - t)
    mo, mg = statistics.median(opt), statistics.median(greedy)
    print(
        f"   {name}: {len(programs)} programs ({int_semantics}); optimize median {ms(mo)}, mean "
        f"{ms(statistics.mean(opt))}, max {ms(max(opt))}; greedy median {ms(mg)}, mean "
        f"{ms(statistics.mean(greedy))}; median ratio {mo / mg:.1f}x"
    )
    return opt, greedy


def constant_chain(n: int) -> UOp:
    """x + 0 + 1 + ... + (n // 2 - 1): n + 1 nodes, a distinct constant at every step."""
    p = UOp.param(0)
    for i in range(n // 2):
        p = p + i
    return p


def scaling(sizes: list[int]) -> None:
    print("4. scaling (2 iterations of the default rules, seed_greedy off; us per e-node):")
    print(
        f"   {'nodes':>9} {'e-nodes':>9} {'lower':>7} {'egglog':>7} {'read':>7} {'extract':>8} {'total s':>8}"
    )
    for n in sizes:
        p = constant_chain(n)
        t0 = time.perf_counter()
        s = saturate(p, node_budget=10**8, iter_limit=2, time_limit=10**6, seed_greedy=False)
        t1 = time.perf_counter()
        g = s.egraph
        t2 = time.perf_counter()
        s.extract()
        t3 = time.perf_counter()
        s.close()
        e = g.num_enodes
        r = s.report
        per = [r.lower_time, r.egglog_time + r.replay_time, t2 - t1, t3 - t2]
        cells = " ".join(f"{v / e * 1e6:7.2f}" for v in per)
        print(f"   {p.size:9,} {e:9,} {cells} {t3 - t0:8.1f}")


def warm_equals_cold(programs: list[UOp]) -> None:
    def outcome(p: UOp):
        s = saturate(p, int_semantics="no_overflow", time_limit=60.0)
        r = s.report
        out = (str(r.stop_reason), r.iterations, r.enodes, r.eclasses, s.extract().program)
        s.close()
        return out

    cold = []
    for p in programs:
        clear_pool()
        cold.append(outcome(p))
    warm = [outcome(p) for p in programs]
    diff = [k for k, (a, b) in enumerate(zip(cold, warm, strict=True)) if a != b]
    print(f"5. warm vs cold on {len(programs)} programs: {len(diff)} differ {diff[:10]}")


def push_pop(repeats: int, programs: list[UOp]) -> None:
    print("6. push + pop of an empty program on a warm engine (median), and a warm saturate(x + 1):")

    def median_push_pop(name: str) -> float:
        times = []
        for _ in range(repeats):
            t = time.perf_counter()
            default_pool().lease(rule_set(name), "no_overflow").release()  # push, then pop
            times.append(time.perf_counter() - t)
        return statistics.median(times)

    clear_pool()  # fresh engines
    for name in ("symbolic", "default"):
        default_pool().lease(rule_set(name), "no_overflow").release()  # the engine made off the clock
        fresh = median_push_pop(name)
        warm = []
        for _ in range(repeats):
            t = time.perf_counter()
            saturate(UOp.param(0) + 1, rules=name, int_semantics="no_overflow").close()
            warm.append(time.perf_counter() - t)
        print(
            f"   {name:9s} {len(rule_set(name).rules('no_overflow')):4d} rules: push + pop"
            f" {ms(fresh)}, warm saturate {ms(statistics.median(warm))}"
        )
    for p in programs:  # the engine's pop does not give everything back
        saturate(p, int_semantics="no_overflow").close()
    print(
        f"   default after {len(programs) + 2 * repeats + 1} programs on the engine: push + pop"
        f" {ms(median_push_pop('default'))}"
    )


def relevance(name: str, programs: list[UOp]) -> None:
    def run(p: UOp, prune: bool):
        t = time.perf_counter()
        r = optimize(p, int_semantics="no_overflow", prune_rules=prune)
        rep = r.report
        return time.perf_counter() - t, (r.program, rep.stop_reason, rep.enodes, rep.matches), rep

    on, off, held, differ = [], [], [], 0
    total = len(egglog_program(rule_set("default"), "no_overflow")[1])  # rule units
    for p in programs:  # untimed: the engines every program needs (their creation is section 1's cost)
        run(p, True)
    for p in programs:
        t_off, out_off, _ = run(p, False)
        t_on, out_on, rep = run(p, True)
        off.append(t_off)
        on.append(t_on)
        held.append(total - rep.rules_pruned)
        differ += out_on != out_off
    a, b = statistics.median(on), statistics.median(off)
    print(
        f"   {name}: {len(programs)} programs; rules held median {statistics.median(held):.0f} of {total};"
        f" optimize median {ms(a)} pruned against {ms(b)} with every rule: {a / b:.2f}"
        f" (means {ms(statistics.mean(on))} / {ms(statistics.mean(off))}); {differ} differ"
    )


def big_chain(n: int = 200_000, budget: int = 1_000_000) -> None:
    print(f"8. optimize of a {n + 1:,}-node chain, node_budget {budget:,}:")
    t = time.perf_counter()
    result = optimize(constant_chain(n), node_budget=budget)
    whole = time.perf_counter() - t
    for k, e in enumerate(result.info.get("pulses", (result,)), 1):
        r = e.report
        print(
            f"   pulse {k}: {r.stop_reason.value} after {r.iterations} iterations, e-nodes {r.enodes};"
            f" lowering {r.lower_time:.2f} s, egglog {r.egglog_time:.2f} s, read-back {r.raise_time:.2f} s,"
            f" extraction {e.seconds:.2f} s ({e.extractor})"
        )
    print(
        f"   whole {whole:.1f} s (the rest: the greedy seed and the pulses' bookkeeping);"
        f" result size {result.program.size}"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--limit", type=int, default=None, help="Caviar programs (default: all 1,303)")
    ap.add_argument("--index", type=int, default=300, help="generated index expressions")
    ap.add_argument("--sizes", default=None, help="comma-separated node counts for the scaling table")
    ap.add_argument(results.FLAG, action="store_true", help=results.FLAG_HELP)
    args = ap.parse_args()
    partial = (
        "--quick: 40 Caviar and 20 index expressions, no 100k/1M-node scaling, no chain"
        if args.quick
        else None
    )
    with results.recorded("engine", args.write_results, partial):
        measure(args)


def measure(args: argparse.Namespace) -> None:
    quick = args.quick
    sizes = [int(s) for s in args.sizes.split(",")] if args.sizes else (
        [1_000, 10_000] if quick else [1_000, 10_000, 100_000, 1_000_000]
    )  # fmt: skip
    entries = caviar_dev()
    limit = 40 if quick and args.limit is None else args.limit
    entries = entries[:limit]
    index = [e.program for e in index_expressions(20 if quick else args.index, seed=7)]

    one_node(5 if quick else 15)
    print("2.-3. optimize against greedy, per program:")
    opt, _ = corpus("Caviar", [e.program for e in entries], "no_overflow")
    print(
        f"   Caviar mean {ms(statistics.mean(opt))} against Caviar's recorded {CAVIAR_RECORDED_MEAN} s: "
        f"{statistics.mean(opt) / CAVIAR_RECORDED_MEAN:.3f} (target <= 0.1)"
    )
    corpus("index expressions", index, "wrap")
    corpus("index expressions", index, "no_overflow")
    scaling(sizes)
    sample = [e.program for e in entries[:: max(1, len(entries) // 30)]] + index[:20]
    warm_equals_cold(sample)
    push_pop(5 if quick else 20, [e.program for e in caviar_dev()[:60]])
    print("7. rule relevance (no_overflow), pruned against every rule:")
    relevance("Caviar", [e.program for e in entries[: 40 if quick else 200]])
    relevance("index expressions", index[: 20 if quick else 100])
    if not quick:
        big_chain()


if __name__ == "__main__":
    main()
