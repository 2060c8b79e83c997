"""`eqsat-uopc fuzz-tinygrad`: the differential fuzzer against tinygrad (eqsat_uopc/tinygrad/fuzz); its
options and report live there, this module only passes the optimizer (optimize sits above the
bridges)."""

from __future__ import annotations

import argparse

from eqsat_uopc.ir.uop import UOp

__all__ = ["add_parsers", "fuzz_optimizer"]


def fuzz_optimizer(program: UOp, int_semantics: str) -> UOp:
    """What fuzz-tinygrad checks: `optimize` with the DAG-size cost, as a user calls it (module-level,
    so that worker processes can import it)."""
    from eqsat_uopc.pipeline import optimization

    return optimization.optimize(program, "dag_size", int_semantics=int_semantics).program


def add_parsers(sub: argparse._SubParsersAction) -> None:
    from eqsat_uopc.tinygrad.fuzz import command as fuzz_command

    z = sub.add_parser(
        "fuzz-tinygrad",
        help="random index expressions through tinygrad's simplifier and optimize: sizes, soundness, "
        "minimized regressions (needs tinygrad)",
    )
    fuzz_command.add_arguments(z)
    z.set_defaults(fn=lambda args: fuzz_command.run(args, fuzz_optimizer))
