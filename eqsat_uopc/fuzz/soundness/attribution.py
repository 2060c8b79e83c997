"""Which rewrite to suspect for a failure: the step, the fold or the rule family that went wrong.

(A crash names its own site: check.crash_site.) For an unsound result, in order, the first of these
that is itself unsound on the program:

1. a step of the index algebra (`simplify_algebra_steps`: each fold it applied, as (rule, term,
   rewrite), checked like a result): `linear/divmod-fold`, `linear/sum-fold`, ... with the term and
   its rewrite;
2. the greedy symbolic rules sound under the int semantics (`simplify_under`), the saturation's seed:
   `greedy/symbolic`;
3. the piecewise comparisons (no_overflow only: `decided_comparisons`): `piecewise`, with the
   comparison and the value it was decided to;
4. the egglog rule families: saturation (default rules) is run once per family with that family left
   out; the families without which the extracted result is sound are the suspects
   (`egglog/<family>`, or several). A failure that one saturation does not reproduce (it needs
   optimize's later pulses) is reported as such.
"""

from __future__ import annotations

from typing import Any

from eqsat_uopc.fuzz.soundness.check import DEFAULT_RLIMIT, Reference, check_result
from eqsat_uopc.fuzz.soundness.inputs import edge_inputs
from eqsat_uopc.ir.uir import to_uir
from eqsat_uopc.ir.uop import UOp

__all__ = ["suspect"]

_SAMPLES = 48
_RLIMIT = DEFAULT_RLIMIT // 2


def _unsound(program: UOp, result: UOp, int_semantics: str) -> bool:
    if result is program:
        return False
    ref = Reference(program, int_semantics, edge_inputs(program, _SAMPLES, "attribution"))
    return check_result(program, result, ref, _RLIMIT).status == "unsound"


def _algebra_step(program: UOp, int_semantics: str) -> dict[str, Any] | None:
    from eqsat_uopc.linear.rules import simplify_algebra_steps

    _, steps = simplify_algebra_steps(program, int_semantics)
    for name, term, rewrite in steps:
        if _unsound(term, rewrite, int_semantics):
            return {"family": f"linear/{name}", "term": to_uir(term), "rewrite": to_uir(rewrite)}
    return None


def _greedy(program: UOp, int_semantics: str) -> dict[str, Any] | None:
    from eqsat_uopc.greedy.symbolic import simplify_under

    result = simplify_under(program, int_semantics)
    if _unsound(program, result, int_semantics):
        return {"family": "greedy/symbolic", "rewrite": to_uir(result)}
    return None


def _piecewise(program: UOp, int_semantics: str) -> dict[str, Any] | None:
    if int_semantics != "no_overflow":
        return None
    from eqsat_uopc.saturation.piecewise import decided_comparisons

    for u, value in decided_comparisons(program.toposort()):
        if _unsound(u, UOp.const(value), int_semantics):
            return {"family": "piecewise", "term": to_uir(u), "rewrite": to_uir(UOp.const(value))}
    return None


def _saturated(program: UOp, int_semantics: str, rules: Any) -> UOp | None:
    from eqsat_uopc.saturation import saturate

    try:
        sat = saturate(program, rules=rules, int_semantics=int_semantics)
        try:
            return sat.extract().program
        finally:
            sat.close()
    except Exception:  # a crash without the family: no verdict either way
        return None


def _egglog_families(program: UOp, int_semantics: str) -> dict[str, Any]:
    from eqsat_uopc.rules import rule_set

    default = rule_set("default")
    full = _saturated(program, int_semantics, default)
    if full is None or not _unsound(program, full, int_semantics):
        why = "one saturation with the default rules is sound here: optimize's later pulses"
        return {"family": "unknown", "detail": why}
    suspects = []
    for name in default.family_names:
        out = _saturated(program, int_semantics, default.without(name))
        if out is not None and not _unsound(program, out, int_semantics):
            suspects.append(name)
    if not suspects:
        return {"family": "unknown", "detail": "unsound without any one rule family"}
    return {"family": " or ".join(f"egglog/{n}" for n in suspects), "detail": "sound without this family"}


def suspect(program: UOp, int_semantics: str) -> dict[str, Any]:
    """What to suspect for an unsound result of optimize on program (see the module docstring):
    `{"family": ..., ...}` with the term and its rewrite where a single step is to blame."""
    for find in (_algebra_step, _greedy, _piecewise):
        found = find(program, int_semantics)
        if found is not None:
            return found
    return _egglog_families(program, int_semantics)
