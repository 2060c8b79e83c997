"""Greedy engine benchmark: one run, every figure a ratio against a reference timed in the same run.

    .venv/bin/python bench/greedy.py            # the full run (about a minute)
    .venv/bin/python bench/greedy.py --quick    # smaller corpora, for a smoke test

It prints five sections:

1. `run` on a * b + a for vectors of n = 10, 100, 1000, against the chapter's code (its engine
   loop, its rules, its interpreted matching; it measured 17, 48, 141 ms on its machine) and numpy
   doing the same work in the same run. Target: `run` at least 3x faster than the chapter's code.
2. `simplify` over generated index expressions (eqsat_uopc.corpus.index_expressions: views of N-d
   buffers, flat index -> unravel -> ravel, validity masks) against tinygrad's own symbolic
   simplifier on the same expressions built in tinygrad (RANGE -> Variable(0, extent-1), PARAM ->
   Variable over the int32 range), with both results' node counts side by side. Target: ours is no
   slower per expression.
3. Compiled against interpreted pattern matching (UOPC_COMPILED=1 vs 0): the matching alone (every
   candidate rule of symbolic + evaluate on every node of the corpora), and graph_rewrite end to end.
   Target: matching at least 3x faster compiled.
4. Top-down against bottom-up rewriting on WHERE(True, x, huge), where top-down discards `huge`
   without looking at it.
5. The greedy baseline on the bundled Caviar corpus: how many expressions
   simplify reduces to a constant, whether each agrees with the dataset's verdict, against Halide.

Times are best-of-k wall-clock (time.perf_counter) unless marked "first call". tinygrad is a
benchmark-only dependency (`pip install tinygrad`); without it section 2 says so and is skipped.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import timeit
from collections.abc import Callable

os.environ.pop("UOPC_CHECK_REWRITES", None)  # the opt-in rewrite check is a test-suite aid, not timed here
os.environ.pop("DEBUG_REWRITE", None)

import results

from eqsat_uopc.corpus import IndexExpression, caviar_path, index_expressions, load_corpus
from eqsat_uopc.greedy import (
    PatternMatcher,
    evaluate,
    graph_rewrite,
    graph_rewrite_topdown,
    run,
    simplify,
    symbolic,
    to_python,
)
from eqsat_uopc.greedy.compiled import compile_rewriter, compile_upat
from eqsat_uopc.ir.dtype import dtypes
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp

CAVIAR = caviar_path()
RESULTS_SECTIONS = ("greedy",)  # docs/results.md, written with --write-results (bench/results.py)


def best_of(fn: Callable[[], object], k: int) -> float:
    """The smallest of k wall-clock times of fn(), in seconds."""
    best = float("inf")
    for _ in range(k):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def best_of_interleaved(fns: list[Callable[[], object]], k: int) -> list[float]:
    """best_of for several functions, timed in turn (f, g, f, g, ...) so that load on a shared
    machine hits them alike."""
    best = [float("inf")] * len(fns)
    for _ in range(k):
        for i, fn in enumerate(fns):
            t = time.perf_counter()
            fn()
            best[i] = min(best[i], time.perf_counter() - t)
    return best


# ---------------------------------------------------------------------------
# 1. run on a * b + a against numpy


def chapter_graph_rewrite(root: UOp, pm: PatternMatcher) -> UOp:
    """The chapter's engine loop, as the chapter wrote it: the reference `run` is timed against."""
    done: dict[UOp, UOp] = {}
    stack: list[tuple[UOp, int, UOp | None]] = [(root, 0, None)]
    while stack:
        u, stage, aux = stack.pop()
        if stage != 2 and u in done:
            continue
        if stage == 0:
            stack.append((u, 1, None))
            stack.extend((s, 0, None) for s in reversed(u.src) if s not in done)
        elif stage == 1:
            src = tuple(done[s] for s in u.src)
            n = u if src == u.src else u.replace(src=src)
            if (m := pm.rewrite(n)) is None:
                done[u] = n
                continue
            if m in done:
                done[u] = done[m]
            else:
                stack.extend([(u, 2, m), (m, 0, None)])
        else:
            done[u] = done[aux]
    return done[root]


def section_run(sizes: tuple[int, ...], repeats: int) -> None:
    import numpy as np

    print("1. run(a * b + a) against the chapter's engine and numpy (same work, same run)")
    # the chapter's code: its engine loop, its rules (symbolic + evaluate) and its interpreted matching
    chapter = PatternMatcher(symbolic.rules + evaluate.rules, compiled=False)
    chapter_ms = {10: 17.35, 100: 47.65, 1000: 141.11}
    for n in sizes:
        a = UOp.stack(*range(n))
        b = UOp.stack(*range(10, 10 + n))
        prog = a * b + a
        t0 = time.perf_counter()
        first = to_python(run(prog))
        first_s = time.perf_counter() - t0
        assert chapter_graph_rewrite(prog, chapter) is run(prog)
        best_s, chap_s = best_of_interleaved(
            [lambda prog=prog: run(prog), lambda prog=prog: chapter_graph_rewrite(prog, chapter)],
            max(repeats, 3),
        )
        na, nb = np.arange(n, dtype=np.int32), np.arange(10, 10 + n, dtype=np.int32)
        timer = timeit.Timer(lambda na=na, nb=nb: na * nb + na)
        loops, total = timer.autorange()
        np_s = min([total / loops] + [t / loops for t in timer.repeat(3, loops)])
        assert first[:3] == [0, 12, 26][: min(3, n)] and first == list(na * nb + na)
        theirs = chapter_ms.get(n, float("nan"))
        print(
            f"   n={n:5d}  run best {best_s * 1e3:7.2f} ms (first call {first_s * 1e3:7.2f} ms)"
            f"   chapter's code {chap_s * 1e3:7.2f} ms   chapter/run = {chap_s / best_s:4.1f}x"
        )
        print(
            f"            numpy {np_s * 1e6:6.2f} us   run/numpy = {best_s / np_s:6.0f}x"
            f"   (the chapter measured {theirs:6.2f} ms on its machine)"
        )


# ---------------------------------------------------------------------------
# 2. simplify against tinygrad's symbolic simplifier


def to_tinygrad(u: UOp) -> object:
    """The same expression in tinygrad's UOp API (int expressions in tinygrad's index dtype)."""
    from tinygrad.dtype import dtypes as tdt
    from tinygrad.uop.ops import UOp as TUOp

    memo: dict[UOp, object] = {}
    for n in u.toposort():
        s = [memo[x] for x in n.src]
        if n.op is Ops.CONST:
            memo[n] = TUOp.const(n.arg, tdt.bool if n.dtype is dtypes.bool else tdt.weakint)
        elif n.op is Ops.RANGE:
            memo[n] = TUOp.variable(f"r{'_'.join(map(str, n.arg))}", 0, n.src[0].arg - 1)
        elif n.op is Ops.PARAM:
            memo[n] = TUOp.variable(f"p{n.arg.slot}", -(2**31), 2**31 - 1)
        elif n.op is Ops.ADD:
            memo[n] = s[0] + s[1]
        elif n.op is Ops.MUL:
            memo[n] = s[0] * s[1]
        elif n.op is Ops.FLOORDIV:
            memo[n] = s[0] // s[1]
        elif n.op is Ops.FLOORMOD:
            memo[n] = s[0] % s[1]
        elif n.op is Ops.MAX:
            memo[n] = s[0].maximum(s[1])
        elif n.op is Ops.CMPLT:
            memo[n] = s[0] < s[1]
        elif n.op is Ops.CMPNE:
            memo[n] = s[0].ne(s[1])
        elif n.op is Ops.WHERE:
            memo[n] = s[0].where(s[1], s[2])
        else:
            raise ValueError(f"to_tinygrad: {n.op.name} is not an index op")
    return memo[u]


def _tinygrad_size(t: object) -> int:
    return len(list(t.toposort()))


def section_simplify(exprs: list[IndexExpression], repeats: int, rows_shown: int) -> None:
    print(f"2. simplify over {len(exprs)} generated index expressions against tinygrad's simplifier")
    try:
        import tinygrad  # noqa: F401
    except ImportError:
        print("   tinygrad is not installed (pip install tinygrad): skipped")
        return
    # warm up both engines once (tinygrad builds its matchers on first use; so do we), off the clock
    to_tinygrad(exprs[0].program).simplify()
    graph_rewrite(exprs[0].program, symbolic)
    rows = []
    for e in exprs:
        t = time.perf_counter()
        ours = simplify(e.program)  # the first call on this root
        ours_first = time.perf_counter() - t
        ours_best = min(ours_first, best_of(lambda p=e.program: graph_rewrite(p, symbolic), repeats))
        tg_expr = to_tinygrad(e.program)
        t = time.perf_counter()
        theirs = tg_expr.simplify()
        tg_first = time.perf_counter() - t
        tg_best = min(tg_first, best_of(tg_expr.simplify, repeats))
        rows.append((e, ours, theirs, ours_first, ours_best, tg_first, tg_best))
    first_ratio = [r[3] / r[5] for r in rows]
    best_ratio = [r[4] / r[6] for r in rows]
    ours_nodes = [r[1].size for r in rows]
    their_nodes = [_tinygrad_size(r[2]) for r in rows]
    print(f"   {'':18s}{'ours':>12s}{'tinygrad':>12s}{'ours/tinygrad':>16s}")
    for label, ours_k, theirs_k in (("total first call", 3, 5), (f"total best-of-{repeats}", 4, 6)):
        ours_total, theirs_total = sum(r[ours_k] for r in rows), sum(r[theirs_k] for r in rows)
        print(
            f"   {label:18s}{ours_total * 1e3:10.1f}ms{theirs_total * 1e3:10.1f}ms"
            f"{ours_total / theirs_total:15.2f}x"
        )
    print(
        f"   per-expression time ratio ours/tinygrad: median {statistics.median(best_ratio):.2f}x"
        f" (first call {statistics.median(first_ratio):.2f}x), worst {max(best_ratio):.2f}x,"
        f" slower on {sum(r > 1 for r in best_ratio)} of {len(rows)}"
    )
    print(
        f"   result nodes: ours {sum(ours_nodes)} total, tinygrad {sum(their_nodes)} total;"
        f" ours smaller on {sum(a < b for a, b in zip(ours_nodes, their_nodes, strict=True))},"
        f" equal on {sum(a == b for a, b in zip(ours_nodes, their_nodes, strict=True))},"
        f" larger on {sum(a > b for a, b in zip(ours_nodes, their_nodes, strict=True))}"
    )
    header = f"{'input':>6s} {'ours':>5s} {'tinygrad':>8s} {'ours/tg time':>12s}"
    print(f"   {header}  views (first {rows_shown} expressions; --rows N for more)")
    for (e, ours, _, _, ob, _, tb), tn in list(zip(rows, their_nodes, strict=True))[:rows_shown]:
        print(f"   {e.program.size:6d} {ours.size:5d} {tn:8d} {ob / tb:11.2f}x  {e.description[:70]}")


# ---------------------------------------------------------------------------
# 3. compiled against interpreted matching


class FusedPatternMatcher(PatternMatcher):
    """PatternMatcher whose rewrite runs one compiled function per op (compile_rewriter): the rule
    loop, the matching and the calls fused, with no binding dicts. Same results, rule for rule."""

    def __init__(self, rules: list) -> None:
        super().__init__(rules, compiled=True)
        self._fused = {op: compile_rewriter(rs) for op, rs in self.by_op.items()}

    def rewrite(self, u: UOp, ctx: object = None) -> UOp | None:
        if (f := self._fused.get(u.op)) is None or (r := f(u, ctx)) is None:
            return None
        self.last_fired = self.by_op[u.op][r[1]]
        return r[0]


def section_matching(programs: list[UOp], repeats: int) -> None:
    pm = symbolic + evaluate
    nodes = list({n: None for p in programs for n in [*p.toposort(), *simplify(p).toposort()]})
    work = [(u, [r.pat for r in pm.by_op.get(u.op, ())]) for u in nodes]
    work = [(u, pats) for u, pats in work if pats]
    compiled = [(u, [compile_upat(p) for p in pats]) for u, pats in work]
    interpreted = [(u, [p.match for p in pats]) for u, pats in work]

    def match_compiled() -> int:
        return sum(len(m(u)) for u, ms in compiled for m in ms)

    def match_interpreted() -> int:
        return sum(len(m(u, {})) for u, ms in interpreted for m in ms)

    assert match_compiled() == match_interpreted()
    tries = sum(len(ms) for _, ms in compiled)
    tc, ti = best_of_interleaved([match_compiled, match_interpreted], repeats)
    print(
        f"3. compiled vs interpreted matching ({len(work)} nodes, {tries} pattern tries, symbolic + evaluate)"
    )
    print(
        f"   matching alone:  compiled {tc * 1e3:8.1f} ms   interpreted {ti * 1e3:8.1f} ms"
        f"   interpreted/compiled = {ti / tc:.2f}x"
    )
    pm_c, pm_i = PatternMatcher(symbolic.rules, compiled=True), PatternMatcher(symbolic.rules, compiled=False)
    for p in programs:
        assert graph_rewrite(p, pm_c) is graph_rewrite(p, pm_i)
    pm_f = FusedPatternMatcher(symbolic.rules)
    for p in programs:
        assert graph_rewrite(p, pm_f) is graph_rewrite(p, pm_i)
    gc, gi, gf = best_of_interleaved(
        [lambda pm=pm: [graph_rewrite(p, pm) for p in programs] for pm in (pm_c, pm_i, pm_f)], repeats
    )
    print("   graph_rewrite(symbolic) end to end (rule functions and bounds are the same in all three):")
    print(
        f"      compiled {gc * 1e3:8.1f} ms   interpreted {gi * 1e3:8.1f} ms"
        f"   interpreted/compiled = {gi / gc:.2f}x"
    )
    print(
        f"      fused rewriter (compile_rewriter) {gf * 1e3:8.1f} ms"
        f"   interpreted/fused = {gi / gf:.2f}x, compiled/fused = {gc / gf:.2f}x"
    )


# ---------------------------------------------------------------------------
# 4. top-down against bottom-up


def section_topdown(size: int, repeats: int) -> None:
    p0, p1 = UOp.param(0, dtypes.i32), UOp.param(1, dtypes.i32)
    huge = p1
    for k in range(size):
        huge = (huge + k) * 3 + p1  # every level is a redex for the constant rules
    prog = UOp.const(True).where(p0 + 0, huge)
    assert graph_rewrite(prog, symbolic) is p0 and graph_rewrite_topdown(prog, symbolic) is p0
    bu, td = best_of_interleaved(
        [lambda: graph_rewrite(prog, symbolic), lambda: graph_rewrite_topdown(prog, symbolic)], repeats
    )
    print(f"4. WHERE(True, p0 + 0, huge) with huge of {huge.size} nodes, both giving p0")
    print(
        f"   bottom-up {bu * 1e3:9.2f} ms   top-down {td * 1e3:9.3f} ms   bottom-up/top-down = {bu / td:.0f}x"
    )


# ---------------------------------------------------------------------------
# 5. the Caviar corpus: what greedy simplify proves, against Halide's own simplifier


def section_caviar(limit: int | None) -> None:
    entries = load_corpus(CAVIAR)[:limit]
    t = time.perf_counter()
    results = [graph_rewrite(e.program, symbolic) for e in entries]  # not simplify: its memo may be warm
    elapsed = time.perf_counter() - t
    proved = [(e, r) for e, r in zip(entries, results, strict=True) if r.op is Ops.CONST]
    right = sum(
        (e.verdict, r.arg) in (("true_on_all_samples", True), ("false_on_all_samples", False))
        for e, r in proved
    )
    halide = sum(e.halide_simplifier_proved for e in entries)
    both = sum(e.halide_simplifier_proved and r.arg is True for e, r in proved)
    print(f"5. greedy simplify over {len(entries)} Caviar expressions: {elapsed * 1e3:.0f} ms")
    print(
        f"   reduced to a constant: {len(proved)} ({right} agreeing with the sample verdict,"
        f" {len(proved) - right} not); Halide's simplifier proved {halide}, {both} of them also proved here"
    )
    print(f"   nodes: {sum(e.program.size for e in entries)} before, {sum(r.size for r in results)} after")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small corpora, one repeat: a smoke test")
    ap.add_argument("--seed", type=int, default=0, help="seed of the generated index expressions")
    ap.add_argument("--rows", type=int, default=12, help="index expressions listed side by side")
    ap.add_argument(results.FLAG, action="store_true", help=results.FLAG_HELP)
    args = ap.parse_args(argv)
    partial = "--quick: 40 index expressions, 100 Caviar ones, one repeat" if args.quick else None
    with results.recorded("greedy", args.write_results, partial):
        return run_sections(args)


def run_sections(args: argparse.Namespace) -> int:
    n_index, repeats = (40, 1) if args.quick else (300, 5)
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores; eqsat_uopc greedy engine")
    section_run((10, 100) if args.quick else (10, 100, 1000), repeats)
    exprs = index_expressions(n_index, seed=args.seed)
    section_simplify(exprs, repeats, args.rows)
    programs = [e.program for e in exprs]
    programs += [e.program for e in load_corpus(CAVIAR)[: 100 if args.quick else 400]]
    section_matching(programs, repeats)
    section_topdown(200 if args.quick else 2000, repeats)
    section_caviar(100 if args.quick else None)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
