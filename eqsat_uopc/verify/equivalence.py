"""check_equivalent: are two programs equal? Random inputs through every engine, and a z3 proof.

The checks, in order (each is recorded with what it compared and whether it held):
- "reference": the concrete evaluator (exec_alu with definedness, concrete.py) on random inputs.
  It also decides which inputs count: an input on which either program is undefined is discarded
  (as the proof ignores it), and so, under "no_overflow", is an input on which an intermediate
  i32 result that a program's value depends on overflows.
- "interpreter": the greedy engine's `run` on each program with its PARAMs (and RANGEs) bound to
  the same inputs, then `to_python`.
- "c": the C backend (`compile_c`, one batch per program), when it is importable and compiles
  both programs.
- "z3": `prove_equivalent` for int32/bool programs ("not run" for f32 ones: not attempted;
  "vacuous" when no input is defined for both programs, so that nothing could be compared).

Inputs are drawn with a bias to the edges, where wraparound and rounding bugs live: int32 limits,
0, +-1, and the programs' own constants and their neighbours; for f32 also -0.0, infinities, NaN
and subnormals. Values are compared exactly (f32 by bit pattern, except that NaN equals NaN).
Everything is deterministic for a seed. The first counterexample found (in check order) is kept,
as PARAM values by slot or by the caller's names.
"""

from __future__ import annotations

import importlib
import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from eqsat_uopc.ir.dtype import I32_MAX, I32_MIN, DType, dtypes, f32_from_bits, truncate
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp, call_params, rebuild
from eqsat_uopc.semantics.evaluation import evaluate
from eqsat_uopc.semantics.values import bind_params, bounded_int, same_value
from eqsat_uopc.verify.proof import Proof, check_comparable, format_inputs, input_key, prove_equivalent

__all__ = ["BACKENDS", "Check", "InputSampler", "Verdict", "check_equivalent", "named_inputs"]

BACKENDS = ("interpreter", "c")
_INT_EDGES = (0, 1, -1, 2, -2, 3, I32_MAX, I32_MIN, I32_MAX - 1, I32_MIN + 1, 2**30, -(2**30), 2**16)
_F32_EDGES = (
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    2.0,
    math.inf,
    -math.inf,
    math.nan,
    1e-45,
    1.17549435e-38,
    3.4028235e38,
)


@dataclass(frozen=True)
class Check:
    """One way of checking: what it compared and whether the programs agreed."""

    name: str  # "reference" | "interpreter" | "c" | "z3"
    status: str  # "held" | "failed" | "vacuous" (z3: no input is defined for both) | "unknown" | "not_run"
    compared: int = 0  # inputs on which both programs were evaluated and compared
    discarded: int = 0  # inputs left out (undefined, overflowing, or the engine could not evaluate)
    detail: str = ""
    counterexample: dict[Any, Any] | None = None
    values: tuple[Any, Any] | None = None  # both programs' values at the counterexample

    def __str__(self) -> str:
        text = f"{self.name}: {self.status}"
        if self.name != "z3":
            text += f" ({self.compared} compared, {self.discarded} discarded)"
        if self.counterexample is not None:
            text += f" at {format_inputs(self.counterexample)}"
            if self.values is not None:
                text += f": first = {self.values[0]!r}, second = {self.values[1]!r}"
        if self.detail:
            text += f"; {self.detail}"
        return text


@dataclass(frozen=True)
class Verdict:
    """What check_equivalent found. status: "proved" (z3), "refuted" (some check failed), "tested"
    (every check that ran held, without a proof), "vacuous" (z3: no input is defined for both
    programs, so they agree only because nothing can be compared) or "unknown" (nothing could be
    compared, and z3 did not show why)."""

    status: str
    int_semantics: str
    checks: tuple[Check, ...]
    proof: Proof | None = None
    counterexample: dict[Any, Any] | None = None
    counterexample_check: str | None = None
    values: tuple[Any, Any] | None = field(default=None)

    @property
    def equivalent(self) -> bool | None:
        """True if proved, False if refuted, None if only tested (or nothing ran)."""
        return {"proved": True, "refuted": False}.get(self.status)

    @property
    def ran(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.checks if c.status != "not_run")

    @property
    def held(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.checks if c.status == "held")

    def check(self, name: str) -> Check:
        for c in self.checks:
            if c.name == name:
                return c
        raise KeyError(f"no check named {name!r} (checks: {', '.join(c.name for c in self.checks)})")

    def __str__(self) -> str:
        lines = [f"equivalence ({self.int_semantics}): {self.status}"]
        if self.counterexample is not None:
            lines.append(
                f"  counterexample ({self.counterexample_check}): {format_inputs(self.counterexample)}"
            )
        lines += [f"  {c}" for c in self.checks]
        return "\n".join(lines)


# ---------------------------------------------------------------------------
# inputs


class InputSampler:
    """Edge-biased random values for the programs' PARAMs and RANGEs."""

    def __init__(self, rng: random.Random, programs: Sequence[UOp]) -> None:
        self.rng = rng
        pool = set(_INT_EDGES)
        for p in programs:
            for u in p.toposort():
                if u.op is Ops.CONST and u.dtype is dtypes.i32:
                    pool.update(truncate(dtypes.i32, u.arg + d) for d in (-1, 0, 1))
                    pool.add(truncate(dtypes.i32, -u.arg))
        self.int_pool = sorted(pool)

    def scalar(self, dtype: DType) -> Any:
        r = self.rng
        if dtype is dtypes.bool:
            return r.random() < 0.5
        p = r.random()
        if dtype is dtypes.i32:
            if p < 0.4:
                return r.choice(self.int_pool)
            if p < 0.75:
                return r.randint(-64, 64)
            return r.randint(I32_MIN, I32_MAX)
        if p < 0.3:
            return truncate(dtypes.f32, r.choice(_F32_EDGES))
        if p < 0.8:
            return truncate(dtypes.f32, r.uniform(-100.0, 100.0))
        return _any_f32(r.getrandbits(32))

    def value(self, dtype: DType, shape: tuple[int, ...], bounds: tuple[int, int] | None = None) -> Any:
        """A value for an input; a bounded i32 input's lies inside its bounds."""
        if shape:
            return [self.value(dtype, shape[1:], bounds) for _ in range(shape[0])]
        if bounds is None:
            return self.scalar(dtype)
        inside = [v for v in self.int_pool if bounds[0] <= v <= bounds[1]]
        return (
            self.rng.choice(inside) if inside and self.rng.random() < 0.4 else bounded_int(self.rng, bounds)
        )

    def range_value(self, ident: Any, extent: int) -> int:
        r = self.rng
        return r.choice((0, extent - 1, r.randrange(extent)))

    def edges(self, dtype: DType, bounds: tuple[int, int] | None = None) -> list[Any]:
        """Every edge value of a scalar input, in a fixed order: for an i32 the int32 limits, +-2**30,
        2**16, 0, +-1 and the programs' constants, their neighbours and negations (inside bounds,
        with the bounds' ends); for an f32 +-0.0, infinities, NaN, the smallest subnormal and normal,
        the largest finite; both bools."""
        if dtype is dtypes.bool:
            return [False, True]
        if dtype is dtypes.f32:
            return [truncate(dtypes.f32, v) for v in _F32_EDGES]
        if bounds is None:
            return list(self.int_pool)
        lo, hi = bounds
        return sorted({lo, hi, *(v for v in self.int_pool if lo <= v <= hi)})


def _any_f32(bits: int) -> float:
    """The f32 with this bit pattern (every NaN as math.nan, as the IR's values hold NaN)."""
    v = f32_from_bits(bits)
    return math.nan if math.isnan(v) else v


def _params_of(a: UOp, b: UOp) -> dict[int, UOp]:
    out = {p.arg.slot: p for p in call_params(a)}
    for p in call_params(b):
        out.setdefault(p.arg.slot, p)
    return dict(sorted(out.items()))


@dataclass
class _Sample:
    params: dict[int, Any]
    ranges: dict[Any, int]
    values: tuple[Any, Any]


# ---------------------------------------------------------------------------
# the checks


def check_equivalent(
    a: UOp,
    b: UOp,
    *,
    int_semantics: str = "wrap",
    samples: int = 200,
    seed: int = 0,
    backends: Sequence[str] = BACKENDS,
    prove: bool = True,
    timeout_ms: int = 10_000,
    names: Mapping[int, str] | None = None,
) -> Verdict:
    """Check that a and b agree: on `samples` random inputs through the reference evaluator and
    each of `backends` ("interpreter", "c"), and (prove=True) by a z3 proof for int/bool programs."""
    check_comparable(a, b)
    if int_semantics not in ("wrap", "no_overflow"):
        raise ValueError(f"int_semantics must be 'wrap' or 'no_overflow', got {int_semantics!r}")
    unknown = [x for x in backends if x not in BACKENDS]
    if unknown:
        raise ValueError(f"unknown backend {unknown[0]!r} (expected some of {', '.join(BACKENDS)})")
    rng = random.Random(f"check_equivalent:{seed}")
    draw = InputSampler(rng, (a, b))
    params = _params_of(a, b)
    kept: list[_Sample] = []
    reference, discarded = None, {"undefined": 0, "overflow": 0}
    for _ in range(samples):
        pv = {s: draw.value(p.dtype, p.shape, p.arg.bounds) for s, p in params.items()}
        rv: dict[Any, int] = {}
        ea = evaluate(a, pv, rv, "wrap", draw.range_value)
        eb = evaluate(b, pv, rv, "wrap", draw.range_value)
        if not (ea.defined and eb.defined):
            discarded["undefined"] += 1
            continue
        if int_semantics == "no_overflow":
            ea, eb = evaluate(a, pv, rv, int_semantics), evaluate(b, pv, rv, int_semantics)
            if not (ea.defined and eb.defined):
                discarded["overflow"] += 1
                continue
        sample = _Sample(pv, dict(rv), (ea.value, eb.value))
        kept.append(sample)
        if reference is None and not same_value(ea.value, eb.value):
            reference = sample
    n_discarded = sum(discarded.values())
    why = ", ".join(f"{v} {k}" for k, v in discarded.items() if v)
    checks = [_from_samples("reference", len(kept), n_discarded, reference, names, why)]
    if "interpreter" in backends:
        checks.append(_interpreter_check(a, b, kept, n_discarded, names))
    if "c" in backends:
        checks.append(_c_check(a, b, kept, n_discarded, names))
    proof = None
    if prove:
        proof = prove_equivalent(a, b, int_semantics, timeout_ms, names=names)
        checks.append(_from_proof(proof))
    return _verdict(int_semantics, tuple(checks), proof)


def _from_samples(
    name: str,
    compared: int,
    discarded: int,
    bad: _Sample | None,
    names: Mapping[int, str] | None,
    detail: str = "",
) -> Check:
    if bad is not None:
        cex = named_inputs(bad.params, bad.ranges, names)
        return Check(name, "failed", compared, discarded, detail, cex, bad.values)
    if compared == 0:
        return Check(name, "not_run", 0, discarded, detail or "no input could be compared")
    return Check(name, "held", compared, discarded, detail)


def named_inputs(
    params: Mapping[int, Any], ranges: Mapping[Any, int], names: Mapping[int, str] | None
) -> dict[Any, Any]:
    """Inputs as a counterexample prints them: PARAMs by slot (or name), then "range <identifier>"."""
    out: dict[Any, Any] = {input_key(k, names): v for k, v in params.items()}
    out.update({f"range {ident!r}": v for ident, v in ranges.items()})
    return out


def _bind(program: UOp, params: dict[int, Any], ranges: dict[Any, int]) -> UOp:
    own = {p.arg.slot: params[p.arg.slot] for p in call_params(program)}
    closed = bind_params(program, own)
    if not ranges:
        return closed
    return rebuild(
        closed,
        lambda u: UOp.const(ranges[u.arg]) if u.op is Ops.RANGE and u.arg in ranges else None,
        enter_call_bodies=True,
    )


def _interpreter_check(
    a: UOp, b: UOp, kept: list[_Sample], discarded: int, names: Mapping[int, str] | None
) -> Check:
    try:
        greedy = importlib.import_module("eqsat_uopc.greedy")
    except ImportError as e:  # pragma: no cover  (the greedy engine is part of the package)
        return Check("interpreter", "not_run", detail=f"eqsat_uopc.greedy is not importable: {e}")
    compared, stuck, first_error, bad = 0, 0, "", None
    for s in kept:
        got = []
        for program in (a, b):
            try:
                got.append(greedy.to_python(greedy.run(_bind(program, s.params, s.ranges))))
            except Exception as e:  # run could not evaluate it: leave this input out, say why
                first_error = first_error or f"run raised {type(e).__name__}: {e}"
                break
        if len(got) < 2:
            stuck += 1
            continue
        compared += 1
        if not same_value(got[0], got[1]):
            bad = _Sample(s.params, s.ranges, (got[0], got[1]))
            break
    return _from_samples("interpreter", compared, discarded + stuck, bad, names, first_error)


def _c_check(a: UOp, b: UOp, kept: list[_Sample], discarded: int, names: Mapping[int, str] | None) -> Check:
    try:
        backend = importlib.import_module("eqsat_uopc.backend")
    except ImportError as e:
        return Check("c", "not_run", detail=f"eqsat_uopc.backend is not importable: {e}")
    try:
        compiled = backend.compile_many([a, b])
    except Exception as e:  # an unsupported program, no compiler, ...: the check does not run
        return Check("c", "not_run", detail=f"could not compile: {type(e).__name__}: {e}")
    if not kept:
        return _from_samples("c", 0, discarded, None, names)
    results = []
    for prog in compiled:
        sets = [_c_inputs(prog, s) for s in kept]
        results.append(prog.run_batch(sets))
    compared, failed_runs, first_error, bad = 0, 0, "", None
    for s, ra, rb in zip(kept, results[0], results[1], strict=True):
        if isinstance(ra, Exception) or isinstance(rb, Exception):
            err = ra if isinstance(ra, Exception) else rb
            first_error = first_error or f"the compiled program raised {type(err).__name__}: {err}"
            failed_runs += 1
            continue
        compared += 1
        if not same_value(ra, rb):
            bad = _Sample(s.params, s.ranges, (ra, rb))
            break
    return _from_samples("c", compared, discarded + failed_runs, bad, names, first_error)


def _c_inputs(prog: Any, s: _Sample) -> list[Any]:
    out = []
    for spec in prog.inputs:
        if spec.kind == "param":
            out.append(s.params[spec.slot])
        elif spec.kind == "range":
            out.append(s.ranges[spec.node.arg])
        else:
            out.append(0)
    return out


def _from_proof(proof: Proof) -> Check:
    status = {
        "proved": "held",
        "vacuous": "vacuous",
        "refuted": "failed",
        "unknown": "unknown",
        "not_attempted": "not_run",
    }
    detail = proof.reason if proof.status != "not_attempted" else f"not attempted: {proof.reason}"
    return Check(
        "z3", status[proof.status], detail=detail, counterexample=proof.counterexample, values=proof.values
    )


def _verdict(int_semantics: str, checks: tuple[Check, ...], proof: Proof | None) -> Verdict:
    failed = [c for c in checks if c.status == "failed"]
    if failed:
        first = failed[0]
        return Verdict(
            "refuted", int_semantics, checks, proof, first.counterexample, first.name, first.values
        )
    if proof is not None and proof.status in ("proved", "vacuous"):
        status = proof.status
    elif any(c.status == "held" for c in checks):
        status = "tested"
    else:
        status = "unknown"
    return Verdict(status, int_semantics, checks, proof)
