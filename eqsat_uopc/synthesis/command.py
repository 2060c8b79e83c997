"""`eqsat-uopc synthesize`: the command-line front of synthesize() (cli.py only registers it)."""

from __future__ import annotations

import argparse
import sys

from eqsat_uopc.synthesis.grammar import Grammar, parse_ops
from eqsat_uopc.synthesis.search import log_path_for, synthesize, write_family

__all__ = ["add_arguments", "run"]


def _names(text: str) -> tuple[str, ...]:
    return tuple(t.strip() for t in text.split(",") if t.strip())


def _ints(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(t) for t in _names(text))
    except ValueError:
        raise ValueError(f"--constants must be comma-separated integers, got {text!r}") from None


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--ops", required=True, help="comma-separated IR ops: add,mul,max,lt,ne,floordiv,floormod,where"
    )
    p.add_argument("--size", type=int, default=5, help="largest term size (nodes)")
    p.add_argument("--out", required=True, help="the .egg file to write (its log: <out>.log)")
    p.add_argument("--vars", default="x,y,z", help="i32 term variables")
    p.add_argument("--bool-vars", default="", help="bool term variables")
    p.add_argument("--const-vars", default="c1,c2", help="constant variables (match integer literals)")
    p.add_argument("--constants", default="-1,0,1,2", help="constants at the leaves")
    p.add_argument("--no-conditions", action="store_true", help="only unconditional rules")
    p.add_argument(
        "--int-semantics", choices=("wrap", "no_overflow"), default="wrap", help="of the fingerprints"
    )
    p.add_argument("--base", default="default", help="rule set to minimize against ('none': self-contained)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--max-candidates", type=int, default=20_000, help="candidate budget")
    p.add_argument("--time-limit", type=float, default=600.0, metavar="S", help="seconds; rerun to continue")
    p.add_argument("--family", default=None, help="family name (default: the output file's stem)")


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    out = Path(args.out)
    if out.suffix != ".egg":
        raise ValueError(f"--out must name a .egg file, got {args.out!r}")
    grammar = Grammar(
        parse_ops(args.ops),
        max_size=args.size,
        variables=_names(args.vars),
        bool_variables=_names(args.bool_vars),
        constant_variables=_names(args.const_vars),
        constants=_ints(args.constants),
        conditions=not args.no_conditions,
    )
    result = synthesize(
        grammar,
        int_semantics=args.int_semantics,
        seed=args.seed,
        base=args.base,
        family=args.family or out.stem,
        max_candidates=args.max_candidates,
        time_limit=args.time_limit,
        log_path=log_path_for(out),
    )
    write_family(result, out)
    s = result.stats
    sems = [r.int_semantics for r in result.rules]
    print(
        f"{out}: {len(result.rules)} rules ({sems.count('wrap')} wrap, "
        f"{sems.count('no_overflow')} no_overflow) "
        f"from {s['candidates']} candidates over {s['terms']} terms in {s['seconds']:.1f} s"
    )
    print("outcomes: " + ", ".join(f"{k} {v}" for k, v in sorted(result.outcomes().items())))
    if not result.complete:
        print(f"incomplete: rerun the same command to continue (log: {log_path_for(out)})", file=sys.stderr)
    return 0
