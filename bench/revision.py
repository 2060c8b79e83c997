"""`optimize` now against an earlier revision of this repository, interleaved in the same run.

    .venv/bin/python bench/revision.py 3c48f5d^            # 100 index, 150 Caviar, 150 capture
    .venv/bin/python bench/revision.py HEAD~5 --index 300 --caviar 0 --capture 0
    .venv/bin/python bench/revision.py 3c48f5d^ --untimed-pass   # every expression once, untimed, first

A question a ratio between two rule sets of today's code cannot answer is whether a change made
the tool slower than it was: "speed per program not worse than before the new families" compares
with the code before them, engine and all. This script checks the revision out with `git archive`
into a temporary directory and runs two worker processes side by side, one on that tree and one on
this one, each with the engine of its first expression warm; the expressions alternate between
them, so that load on the shared machine falls on both alike. Times are what each revision costs
over a run of this length, as a user would see it: the engines a revision with rule relevance makes
per set of constructors when first needed, engines retired and remade after 100 programs, and the
slowdown of a revision that does not retire them (egglog's pop leaves state behind: its engine
gets slower with every program). So the ratios depend on the run's length: with an untimed pass
over the same expressions first (`--untimed-pass`: both trees run every expression once before
the timed pass), against `3c48f5d^` (which does not retire engines), index went from 1.5x to
1.09x and Caviar from 0.64x to 0.37x. To compare two revisions at the same engine age, keep a
run to at most 100 expressions (`--index 100 --caviar 0 --capture 0`): this tree retires its
engines every 100 programs.
Both workers run on the system's malloc unless `--malloc` says otherwise: `jemalloc` runs both on
it, `as-shipped` only this tree, as the `eqsat-uopc` command and sweep workers now run
(eqsat_uopc.allocator), against the revision as it ran.
Each worker builds the expressions from its own corpus module (the generated index expressions
with `seed=0`, unbounded, as every revision has them; the bundled Caviar expressions; the tinygrad
capture, when the revision has it): a program whose text differs between the two trees is
reported and left out.

Printed: per corpus, the median and mean `optimize` time (default rule set and settings,
`no_overflow`, DAG size) of each tree and their ratios (now / then), and how many results are
smaller or larger now. Run it from a clone with history (`git` must be on the PATH).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import results

from eqsat_uopc.allocator import MALLOC_ENV, preload_env

RESULTS_SECTIONS = ("revision",)  # docs/results.md, written with --write-results (bench/results.py)

ROOT = Path(__file__).resolve().parent.parent
CORPORA = ("index", "caviar", "capture")

# runs in each tree: reads "corpus index" lines, answers "seconds size program-hash"
WORKER = """
import hashlib, os, sys, time
from eqsat_uopc import optimize
from eqsat_uopc.corpus import caviar_dev, index_expressions
tree = os.path.realpath(os.getcwd())
for module in list(sys.modules.values()):  # every module of the package from this tree, none installed
    path = os.path.realpath(getattr(module, "__file__", None) or tree)
    if module.__name__.startswith("eqsat_uopc") and not path.startswith(tree):
        sys.exit(f"{module.__name__} was imported from {path}, not from the tree in {tree}")
programs = {
    "index": [e.program for e in index_expressions(int(sys.argv[1]), seed=0)],
    "caviar": [e.program for e in caviar_dev()],
}
try:  # the tinygrad capture is younger than the other corpora
    from eqsat_uopc.corpus import tinygrad_capture
    programs["capture"] = [e.program for e in tinygrad_capture()]
except ImportError:
    programs["capture"] = []
print(*(len(programs[c]) for c in ("index", "caviar", "capture")), flush=True)
for corpus in programs.values():  # warm the engines off the clock
    if corpus:
        optimize(corpus[0], "dag_size", int_semantics="no_overflow")
print("ready", flush=True)
for line in sys.stdin:
    corpus, i = line.split()
    p = programs[corpus][int(i)]
    t = time.perf_counter()
    r = optimize(p, "dag_size", int_semantics="no_overflow")
    dt = time.perf_counter() - t
    print(dt, len(r.program.toposort()), hashlib.md5(str(p).encode()).hexdigest(), flush=True)
"""


class Worker:
    """One tree's worker process."""

    def __init__(self, tree: Path, index: int, jemalloc: bool):
        env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"} | {"PYTHONPATH": str(tree)}
        if jemalloc:  # an error if the system has none
            env = preload_env({**env, MALLOC_ENV: "jemalloc"})
        self.proc = subprocess.Popen(
            [sys.executable, "-c", WORKER, str(index)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=tree,
            env=env,
        )
        line = self.proc.stdout.readline().split()
        if len(line) != len(CORPORA) or not all(n.isdigit() for n in line):
            raise SystemExit(f"the worker in {tree} did not start (see its error above)")
        self.sizes = dict(zip(CORPORA, map(int, line), strict=True))  # 0: the tree has no such corpus
        if self.proc.stdout.readline().strip() != "ready":
            raise SystemExit(f"the worker in {tree} did not start (see its error above)")

    def run(self, corpus: str, i: int) -> tuple[float, int, str]:
        self.proc.stdin.write(f"{corpus} {i}\n")
        self.proc.stdin.flush()
        seconds, size, digest = self.proc.stdout.readline().split()
        return float(seconds), int(size), digest

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait()


def check_out(revision: str, into: Path) -> None:
    """The tree of revision in `into`, its rules and extractors importable as `eqsat_uopc.rules` and
    `eqsat_uopc.extract` (the package maps them from `rules/` and `extract/` when installed, and the
    worker runs it uninstalled: without the links, the installed tree's would be imported)."""
    archive = subprocess.run(["git", "archive", revision], cwd=ROOT, capture_output=True, check=False)
    if archive.returncode != 0:
        raise SystemExit(f"git archive {revision}: {archive.stderr.decode().strip()}")
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    for name in ("rules", "extract"):
        source, link = into / name, into / "eqsat_uopc" / name
        if source.is_dir() and not link.exists():
            link.symlink_to(source, target_is_directory=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("revision", help="the earlier revision (anything `git archive` takes)")
    ap.add_argument("--index", type=int, default=100, help="generated index expressions (default 100)")
    ap.add_argument("--caviar", type=int, default=150, help="Caviar expressions sampled (default 150)")
    ap.add_argument("--capture", type=int, default=150, help="tinygrad capture expressions (default 150)")
    ap.add_argument(
        "--untimed-pass", action="store_true", help="run every expression once in both trees before timing"
    )
    ap.add_argument(
        "--malloc",
        choices=("system", "jemalloc", "as-shipped"),
        default="system",
        help="both trees on the system's malloc (default) or on jemalloc; as-shipped: this tree on"
        " jemalloc, as its command and sweeps run, the revision on the system's",
    )
    ap.add_argument(results.FLAG, action="store_true", help=results.FLAG_HELP)
    args = ap.parse_args()
    full = (args.index, args.caviar, args.capture) == (100, 150, 150)
    partial = (
        None if full else f"{args.index} index, {args.caviar} Caviar, {args.capture} capture expressions"
    )
    with results.recorded("revision", args.write_results, partial):
        measure(args)


def measure(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        then_tree = Path(tmp)
        check_out(args.revision, then_tree)
        workers = {
            "then": Worker(then_tree, args.index, args.malloc == "jemalloc"),
            "now": Worker(ROOT, args.index, args.malloc != "system"),
        }
        have = {c: min(w.sizes[c] for w in workers.values()) for c in CORPORA}
        if args.capture and not have["capture"]:
            print(f"   {args.revision} has no tinygrad capture: that corpus is left out")
        jobs = [("index", i) for i in range(args.index)]
        for corpus, n in (("caviar", args.caviar), ("capture", args.capture)):
            picked = random.Random(0).sample(range(have[corpus]), min(n, have[corpus]))
            jobs += [(corpus, i) for i in sorted(picked)]
        times = {w: {c: [] for c in CORPORA} for w in workers}
        smaller = dict.fromkeys(CORPORA, 0)
        larger: dict[str, list[str]] = {c: [] for c in CORPORA}
        differ = []
        if args.untimed_pass:
            for corpus, i in jobs:
                for w in workers.values():
                    w.run(corpus, i)
        for corpus, i in jobs:
            out = {name: w.run(corpus, i) for name, w in workers.items()}
            if out["then"][2] != out["now"][2]:
                differ.append(f"{corpus}/{i}")
                continue
            for name in workers:
                times[name][corpus].append(out[name][0])
            smaller[corpus] += out["now"][1] < out["then"][1]
            if out["now"][1] > out["then"][1]:
                larger[corpus].append(f"{corpus}/{i} ({out['then'][1]} -> {out['now'][1]} nodes)")
        for w in workers.values():
            w.close()
    first = ", after an untimed pass" if args.untimed_pass else ""
    against = f"this tree against {args.revision}{first}, interleaved, malloc {args.malloc}"
    print(f"optimize (default rules, no_overflow, DAG size): {against}")
    for corpus in CORPORA:
        then, now = times["then"][corpus], times["now"][corpus]
        if not now:
            continue
        print(
            f"   {corpus:7s} {len(now):4d} expressions: then median {statistics.median(then) * 1e3:6.1f} ms,"
            f" mean {statistics.mean(then) * 1e3:6.1f}; now median {statistics.median(now) * 1e3:6.1f} ms,"
            f" mean {statistics.mean(now) * 1e3:6.1f}; now / then: median"
            f" {statistics.median(now) / statistics.median(then):.2f}x, mean"
            f" {statistics.mean(now) / statistics.mean(then):.2f}x;"
            f" results smaller now {smaller[corpus]}, larger now {len(larger[corpus])}"
        )
    if any(larger.values()):
        print(f"   larger now: {', '.join(x for c in CORPORA for x in larger[c])}")
    if differ:
        print(f"   left out (the program differs between the trees): {', '.join(differ[:10])}")


if __name__ == "__main__":
    main()
