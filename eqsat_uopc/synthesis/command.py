"""`eqsat-uopc synthesize`: the command-line front of synthesize() (cli/synthesize.py registers it).

Every option is checked when the command line is read (eqsat_uopc.cli_options): an unknown op or
base rule set, a size, budget or time limit out of range, an output that is not a .egg file is one
line and exit status 2, before any term is enumerated. The report ends with what each outcome
means, since "0 rules, derivable 12" is a result (the base rule set already knows them all), not
a failure.
"""

from __future__ import annotations

import argparse
import sys

from eqsat_uopc.cli_options import UsageError, integer, option, seconds, subset, suffixed
from eqsat_uopc.synthesis.grammar import OP_NAMES, Grammar, parse_ops
from eqsat_uopc.synthesis.search import BASES, log_path_for, synthesize, write_family

__all__ = ["OUTCOMES", "add_arguments", "run"]

# what each outcome of a candidate means (the log's "outcome" field), as the report explains it
OUTCOMES = {
    "kept": "proved by z3 and not derivable: written to the family",
    "derivable": "{base} and the rules kept before it already derive it by saturation, so it adds "
    "nothing{hint}",
    "unproved": "z3 could not prove it under wrap nor under no_overflow (or refuted it)",
    "no_rule": "the equality has no usable orientation (a variable bound on one side only, or a mere "
    "reordering that comm_assoc covers), or its right side is undefined where its left is defined",
}


def _names(text: str) -> tuple[str, ...]:
    names = tuple(t.strip() for t in text.split(",") if t.strip())
    bad = [n for n in names if not n.isidentifier()]
    if bad:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated names (letters, digits, _), got {bad[0]!r}"
        )
    return names


def _ints(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(t) for t in text.split(",") if t.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from None


def _ops(text: str) -> str:
    subset(OP_NAMES, "ops")(text.lower())
    return text


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--ops",
        metavar="LIST",
        required=True,
        type=_ops,
        help=f"comma-separated IR ops to combine, from: {', '.join(OP_NAMES)} (required)",
    )
    p.add_argument(
        "--out",
        metavar="FILE",
        required=True,
        type=suffixed(".egg"),
        help="the .egg file to write; its log: <out>.log (required)",
    )
    option(p, "--size", metavar="N", type=integer(minimum=1), default=5, help="largest term size, in nodes")
    option(p, "--vars", metavar="LIST", type=_names, default=("x", "y", "z"), help="i32 term variables")
    option(
        p, "--bool-vars", metavar="LIST", type=_names, default=(), shown="none", help="bool term variables"
    )
    option(
        p,
        "--const-vars",
        metavar="LIST",
        type=_names,
        default=("c1", "c2"),
        help="constant variables (they match integer literals only)",
    )
    option(
        p,
        "--constants",
        metavar="LIST",
        type=_ints,
        default=(-1, 0, 1, 2),
        help="integer constants at the leaves",
    )
    p.add_argument("--no-conditions", action="store_true", help="only unconditional rules (default: both)")
    option(
        p,
        "--int-semantics",
        choices=("wrap", "no_overflow"),
        default="wrap",
        help="the semantics of the fingerprints",
    )
    option(
        p,
        "--base",
        choices=BASES,
        default="default",
        help="the rule set candidates are minimized against; 'none': a self-contained family",
    )
    option(p, "--seed", metavar="N", type=integer(), default=0, help="seed of the fingerprint inputs")
    option(
        p, "--max-candidates", metavar="N", type=integer(minimum=1), default=20_000, help="candidate budget"
    )
    option(
        p,
        "--time-limit",
        type=seconds(),
        default=600.0,
        metavar="S",
        help="seconds; a run stopped by it continues when rerun",
    )
    option(
        p,
        "--family",
        metavar="NAME",
        default=None,
        shown="the output file's name without .egg",
        help="family name",
    )


def _check(args: argparse.Namespace) -> None:
    """What no single option can check: the variable names must differ, and one must be a term."""
    names = [*args.vars, *args.bool_vars, *args.const_vars]
    repeated = next((n for k, n in enumerate(names) if n in names[:k]), None)
    if repeated is not None:
        raise UsageError(f"argument --vars/--bool-vars/--const-vars: {repeated!r} is named twice")
    if not args.vars and not args.bool_vars:
        raise UsageError("argument --vars: at least one term variable (--vars or --bool-vars) is needed")


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    _check(args)
    out = Path(args.out)
    grammar = Grammar(
        parse_ops(args.ops),
        max_size=args.size,
        variables=args.vars,
        bool_variables=args.bool_vars,
        constant_variables=args.const_vars,
        constants=args.constants,
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
    outcomes = result.outcomes()
    print("outcomes: " + (", ".join(f"{k} {v}" for k, v in sorted(outcomes.items())) or "no candidates"))
    if args.base == "none":
        base, hint = "constant folding and the interval analysis (--base none)", ""
    else:
        base, hint = f"the base rule set {args.base!r}", "; --base none synthesizes a self-contained family"
    for k in sorted(outcomes):
        print(f"  {k}: {OUTCOMES.get(k, '').format(base=base, hint=hint)}")
    if not result.complete:
        print(f"incomplete: rerun the same command to continue (log: {log_path_for(out)})", file=sys.stderr)
    return 0
