"""`eqsat-uopc synthesize`: proved rewrite rules into a .egg family (options and work in
eqsat_uopc.synthesis.command)."""

from __future__ import annotations

import argparse

__all__ = ["add_parsers"]


def add_parsers(sub: argparse._SubParsersAction) -> None:
    from eqsat_uopc.synthesis import command as synthesis_command

    y = sub.add_parser("synthesize", help="synthesize proved rewrite rules into a .egg family (Ruler-style)")
    synthesis_command.add_arguments(y)
    y.set_defaults(fn=synthesis_command.run)
