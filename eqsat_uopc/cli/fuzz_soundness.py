"""`eqsat-uopc fuzz-soundness`: the soundness fuzzer (eqsat_uopc/fuzz/soundness); its options and
report live there, this module only passes the optimizers (optimize sits above the fuzzer's layer).

What it checks is `optimize` with the DAG-size cost as a user calls it, twice over: with its check of
the result off ("rewrites": what the rewrites alone return) and on ("validated": what optimize
returns by default, which must never be a refuted program). One validated call gives both: its
validation runs after the last pulse and records the extracted program it refuted
(`.validation.replaced`), which is what the same call with validation off returns. Where optimize
has no validation, "rewrites" is optimize itself.
"""

from __future__ import annotations

import argparse
import dataclasses
import inspect
from typing import Any

from eqsat_uopc.ir.uop import UOp

__all__ = ["add_parsers", "optimizers", "rewrites_optimizer", "validated_optimizer", "validation_setting"]

# the last validated call's results in this process: (program, int semantics) -> (rewrites, validated)
_last: dict[tuple[UOp, str], tuple[UOp, UOp]] = {}


def validation_setting() -> str | None:
    """The name of optimize's setting that turns the check of its result on and off (`validate`), or
    None where optimize has none."""
    from eqsat_uopc.pipeline import optimization
    from eqsat_uopc.saturation import SaturationConfig

    names = {f.name for f in dataclasses.fields(SaturationConfig)}
    names |= set(inspect.signature(optimization.optimize).parameters)
    return "validate" if "validate" in names else None


def _optimize(program: UOp, int_semantics: str, validate: bool | None) -> Any:
    from eqsat_uopc.pipeline import optimization

    setting = validation_setting()
    extra = {setting: validate} if setting and validate is not None else {}
    return optimization.optimize(program, "dag_size", int_semantics=int_semantics, **extra)


def rewrites_optimizer(program: UOp, int_semantics: str) -> UOp:
    """`optimize` with the DAG-size cost and its result check off (module-level, so that worker
    processes can import it)."""
    return _optimize(program, int_semantics, False).program


def _both(program: UOp, int_semantics: str) -> tuple[UOp, UOp]:
    """(the rewrites' result, the validated result) of one validated optimize call, kept for the next
    call on the same program."""
    key = (program, int_semantics)
    if key not in _last:
        result = _optimize(program, int_semantics, True)
        replaced = getattr(getattr(result, "validation", None), "replaced", ())
        extracted = [r.program for r in replaced if r.candidate == "extracted"]
        _last.clear()
        _last[key] = (extracted[0] if extracted else result.program, result.program)
    return _last[key]


def validated_optimizer(program: UOp, int_semantics: str) -> UOp:
    """`optimize` with the DAG-size cost and its result check on (optimize's default)."""
    return _both(program, int_semantics)[1]


def _rewrites_of_validated(program: UOp, int_semantics: str) -> UOp:
    """What `rewrites_optimizer` returns, read off the validated call that `validated_optimizer` makes
    next (a call that raises is made again with validation off, so that the raise is the rewrites')."""
    try:
        return _both(program, int_semantics)[0]
    except Exception:
        return rewrites_optimizer(program, int_semantics)


def optimizers() -> dict[str, Any]:
    """What fuzz-soundness checks, by label: the rewrites, and the validated optimize where there is one."""
    if validation_setting() is None:
        return {"rewrites": rewrites_optimizer}
    return {"rewrites": _rewrites_of_validated, "validated": validated_optimizer}


def add_parsers(sub: argparse._SubParsersAction) -> None:
    from eqsat_uopc.fuzz.soundness import command

    z = sub.add_parser(
        "fuzz-soundness",
        help="random expressions at the int32 edges through optimize under both int semantics: every "
        "result proved or tested sound, every failure minimized",
    )
    command.add_arguments(z)
    z.set_defaults(fn=lambda args: command.run(args, optimizers()))
