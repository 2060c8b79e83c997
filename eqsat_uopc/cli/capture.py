"""`eqsat-uopc capture-tinygrad`: record the index expressions of real tinygrad kernels as a corpus."""

from __future__ import annotations

import argparse
import sys

from eqsat_uopc.cli.common import writable
from eqsat_uopc.cli_options import option, subset, suffixed

__all__ = ["add_parsers"]


def _cmd_capture_tinygrad(args: argparse.Namespace) -> int:
    from eqsat_uopc.tinygrad.capture import capture_tinygrad, write_capture

    writable(args.out, "--out")
    capture = capture_tinygrad(args.workloads, progress=lambda w: print(f"workload {w}", file=sys.stderr))
    write_capture(capture, args.out)
    exprs = capture.expressions
    print(
        f"{len(exprs)} distinct expressions written to {args.out} "
        f"({capture.seen} seen, {capture.duplicates} duplicates, {sum(capture.skipped.values())} left out)"
    )
    for w in capture.workloads:
        print(f"  {w:>22}: {capture.per_workload.get(w, 0)}")
    for reason, n in sorted(capture.skipped.items()):
        print(f"  left out ({n}): {reason}")
    simplified = sum(e.tinygrad_size < e.size for e in exprs)
    print(f"tinygrad's simplifier makes {simplified} of {len(exprs)} smaller on their own")
    return 0


def add_parsers(sub: argparse._SubParsersAction) -> None:
    from eqsat_uopc.tinygrad.workloads import WORKLOADS

    t = sub.add_parser(
        "capture-tinygrad",
        help="record the index expressions of real tinygrad kernels as a .jsonl corpus (needs tinygrad)",
    )
    t.add_argument(
        "--out", required=True, type=suffixed(".jsonl"), help="the .jsonl file to write (required)"
    )
    option(
        t,
        "--workloads",
        type=subset(WORKLOADS, "workloads"),
        default=None,
        shown="all",
        metavar="LIST",
        help=f"comma-separated workloads, from {', '.join(WORKLOADS)}",
    )
    t.set_defaults(fn=_cmd_capture_tinygrad)
