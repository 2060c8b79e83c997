"""`eqsat-uopc fuzz-soundness`: the soundness fuzzer (eqsat_uopc/fuzz/soundness); its options and
report live there, this module only passes the optimizers (optimize sits above the fuzzer's layer).

What it checks is `optimize` with the DAG-size cost as a user calls it, with its own check of the
result turned off (the rewrites themselves: "rewrites") and, where `optimize` validates its results,
also with the check on ("validated"), which must never return a refuted program.
"""

from __future__ import annotations

import argparse
import dataclasses
import inspect

from eqsat_uopc.ir.uop import UOp

__all__ = ["add_parsers", "optimizers", "rewrites_optimizer", "validated_optimizer", "validation_setting"]


def validation_setting() -> str | None:
    """The name of optimize's setting that turns the check of its result on and off (`validate`), or
    None while optimize has none (then optimize returns its rewrites unchecked)."""
    from eqsat_uopc.pipeline import optimization
    from eqsat_uopc.saturation import SaturationConfig

    names = {f.name for f in dataclasses.fields(SaturationConfig)}
    names |= set(inspect.signature(optimization.optimize).parameters)
    return "validate" if "validate" in names else None


def rewrites_optimizer(program: UOp, int_semantics: str) -> UOp:
    """`optimize` with the DAG-size cost and its result check off: what the rewrites alone return
    (module-level, so that worker processes can import it)."""
    from eqsat_uopc.pipeline import optimization

    setting = validation_setting()
    extra = {setting: False} if setting else {}
    return optimization.optimize(program, "dag_size", int_semantics=int_semantics, **extra).program


def validated_optimizer(program: UOp, int_semantics: str) -> UOp:
    """`optimize` with the DAG-size cost and its result check on."""
    from eqsat_uopc.pipeline import optimization

    setting = validation_setting()
    extra = {setting: True} if setting else {}
    return optimization.optimize(program, "dag_size", int_semantics=int_semantics, **extra).program


def optimizers() -> dict:
    """What fuzz-soundness checks: the rewrites, and the validated optimize where there is one."""
    if validation_setting() is None:
        return {"rewrites": rewrites_optimizer}
    return {"rewrites": rewrites_optimizer, "validated": validated_optimizer}


def add_parsers(sub: argparse._SubParsersAction) -> None:
    from eqsat_uopc.fuzz.soundness import command

    z = sub.add_parser(
        "fuzz-soundness",
        help="random expressions at the int32 edges through optimize under both int semantics: every "
        "result proved or tested sound, every failure minimized",
    )
    command.add_arguments(z)
    z.set_defaults(fn=lambda args: command.run(args, optimizers()))
