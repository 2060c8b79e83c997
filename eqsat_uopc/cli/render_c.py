"""`eqsat-uopc render-c`: print the C the backend generates for a .uir program."""

from __future__ import annotations

import argparse
from pathlib import Path

from eqsat_uopc.cli.common import load

__all__ = ["add_parsers"]


def _cmd_render_c(args: argparse.Namespace) -> int:
    from eqsat_uopc.backend import render_c

    print(render_c(load(Path(args.file)).program), end="")
    return 0


def add_parsers(sub: argparse._SubParsersAction) -> None:
    c = sub.add_parser("render-c", help="print the C the backend generates for a .uir program")
    c.add_argument("file", help="a .uir file")
    c.set_defaults(fn=_cmd_render_c)
