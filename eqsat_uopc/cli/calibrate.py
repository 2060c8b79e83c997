"""`eqsat-uopc calibrate`: time every op in C and write this machine's latency table."""

from __future__ import annotations

import argparse

from eqsat_uopc.cli.common import need_compiler

__all__ = ["add_parsers"]


def _cmd_calibrate(args: argparse.Namespace) -> int:
    """Measure this machine's latency table (eqsat_uopc.extract.calibrate) and say where it went."""
    from eqsat_uopc.extract.calibrate import calibrate_machine

    need_compiler("calibrate")
    cal = calibrate_machine(args.elements, args.repeats, args.ops, args.out)
    print("\n".join(cal.lines()))
    if args.out is None:
        print(
            "the latency cost model uses this table from now on (delete the file to go back to the default)"
        )
    return 0


def add_parsers(sub: argparse._SubParsersAction) -> None:
    from eqsat_uopc.extract.calibrate import add_arguments as calibrate_arguments

    k = sub.add_parser(
        "calibrate",
        help="time every op in C and write this machine's latency table (the latency model uses it)",
    )
    calibrate_arguments(k)
    k.set_defaults(fn=_cmd_calibrate)
