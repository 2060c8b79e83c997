"""`eqsat-uopc explain`: optimize a .uir program and print why: the chain of rewrites from the input
to the result, one step a line, each naming its rule and checked (eqsat_uopc.verify.explanation)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from eqsat_uopc.cli.common import load, program_errors, saturation_config, saturation_options

__all__ = ["add_parsers", "print_explanation"]


def print_explanation(explanation: Any, prefix: str = "") -> None:
    """The explanation's lines, each after prefix (`# ` under optimize's program)."""
    for line in explanation.lines():
        print(f"{prefix}{line}")


def _cmd_explain(args: argparse.Namespace) -> int:
    from eqsat_uopc.ir.uir import to_uir
    from eqsat_uopc.pipeline.optimization import optimize

    program = load(Path(args.file)).program
    config = saturation_config(args)
    with program_errors(Path(args.file)):
        ext = optimize(program, None, config)
        explanation = ext.explain()
    if args.json:
        print(json.dumps({"program": to_uir(ext.program), "explanation": explanation.to_dict()}))
        return 0
    print_explanation(explanation)
    return 0


def add_parsers(sub: argparse._SubParsersAction) -> None:
    e = sub.add_parser(
        "explain", help="optimize a .uir program and print the checked chain of rewrites to its result"
    )
    e.add_argument("file", help="a .uir file")
    saturation_options(e)
    e.add_argument("--json", action="store_true", help="the explanation as one JSON object (default: text)")
    e.set_defaults(fn=_cmd_explain)
