"""Random testing of the f32 typings of egglog rewrites, which z3 is not asked to prove.

A `(rewrite LHS RHS)` at an f32 typing is turned into two UOp programs: each term variable becomes
a PARAM of its type, each constant symbol of the left-hand side a random constant (f32 ones from
their bit patterns, biased to -0.0, infinities, NaN and subnormals). Both programs are evaluated by
the concrete evaluator (exec_alu) on random inputs, and RHS must refine LHS bit for bit (NaN equals
NaN). Only rewrites over the scalar ALU ops are built; anything else is left untested and said so.
"""

from __future__ import annotations

import math
import random
from typing import Any

from eqsat_uopc.ir.dtype import DType, dtypes, f32_from_bits, truncate
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp, UOpError, call_params
from eqsat_uopc.semantics.evaluation import evaluate
from eqsat_uopc.semantics.values import same_value
from eqsat_uopc.verify.equivalence import InputSampler

__all__ = ["random_test_f32"]

_OPS = {
    "Add": Ops.ADD,
    "Mul": Ops.MUL,
    "Max": Ops.MAX,
    "Lt": Ops.CMPLT,
    "Ne": Ops.CMPNE,
    "Div": Ops.FLOORDIV,
    "Mod": Ops.FLOORMOD,
}
_DTYPES = {"i32": dtypes.i32, "bool": dtypes.bool, "f32": dtypes.f32}
_F32_BITS = (
    0x00000000,
    0x80000000,
    0x3F800000,
    0xBF800000,
    0x7F800000,
    0xFF800000,
    0x7FC00000,
    0x00000001,
    0x7F7FFFFF,
)


class Untestable(Exception):
    """The rule uses something this builder does not turn into UOps."""


class _Builder:
    def __init__(self, var_types: dict[str, str], rng: random.Random) -> None:
        self.var_types = var_types
        self.rng = rng
        self.params: dict[str, UOp] = {}
        self.constants: dict[str, Any] = {}

    def constant(self, name: Any, dtype: DType) -> Any:
        if name in ("true", "false"):
            return name == "true"
        if not isinstance(name, str):
            if isinstance(name, int) and dtype is dtypes.f32:
                return f32_from_bits(name)
            return name
        if name not in self.constants:
            r = self.rng
            if dtype is dtypes.f32:
                bits = r.choice(_F32_BITS) if r.random() < 0.5 else r.getrandbits(32)
                v = f32_from_bits(bits)
                self.constants[name] = math.nan if math.isnan(v) else v
            elif dtype is dtypes.bool:
                self.constants[name] = r.random() < 0.5
            else:
                self.constants[name] = r.choice((0, 1, -1, 2, 7, -(2**31), 2**31 - 1))
        return self.constants[name]

    def build(self, t: Any) -> UOp:
        if isinstance(t, str):
            if t not in self.params:
                dtype = _DTYPES[self.var_types[t]]
                self.params[t] = UOp.param(len(self.params), dtype)
            return self.params[t]
        if not isinstance(t, list) or not t:
            raise Untestable(f"term {t!r}")
        head = t[0]
        if head in ("Int", "Bool", "Flt"):
            dtype = {"Int": dtypes.i32, "Bool": dtypes.bool, "Flt": dtypes.f32}[head]
            if isinstance(t[1], list):
                raise Untestable("a computed constant")
            return UOp.const(truncate(dtype, self.constant(t[1], dtype)), dtype)
        if head in _OPS:
            return UOp(_OPS[head], (self.build(t[2]), self.build(t[3])))
        if head == "Where":
            return UOp(Ops.WHERE, (self.build(t[2]), self.build(t[3]), self.build(t[4])))
        if head == "Cast" and isinstance(t[1], str) and t[1].split("[")[0] in _DTYPES:
            return self.build(t[2]).cast(_DTYPES[t[1].split("[")[0]])
        raise Untestable(f"constructor {head}")


def random_test_f32(
    lhs: Any, rhs: Any, var_types: dict[str, str], samples: int, seed: Any
) -> tuple[int, dict[str, Any] | None]:
    """(samples compared, first counterexample or None) for the rewrite lhs -> rhs."""
    rng = random.Random(f"egg_float:{seed}")
    compared = 0
    for _ in range(samples):
        b = _Builder(var_types, rng)
        try:
            before, after = b.build(lhs), b.build(rhs)
        except UOpError as e:
            raise Untestable(str(e)) from None
        sampler = InputSampler(rng, (before, after))
        slots = {p.arg.slot: p for p in call_params(before) + call_params(after)}
        params = {s: sampler.value(p.dtype, p.shape) for s, p in slots.items()}
        eb = evaluate(before, params)
        if not eb.defined:
            continue
        ea = evaluate(after, params)
        compared += 1
        if not ea.defined or not same_value(eb.value, ea.value):
            names = {p.arg.slot: n for n, p in b.params.items()}
            cex = {names[s]: v for s, v in params.items()}
            cex.update(b.constants)
            return compared, cex
    return compared, None
