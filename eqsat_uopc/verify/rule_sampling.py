"""Soundness by testing (the chapter's exercise 6): instantiate a rule's pattern, fire it, evaluate.

`check_rule(rule)` synthesizes random instances of the rule's pattern (random subterms over PARAMs,
RANGEs and edge-biased constants, respecting dtypes, list and tuple sources and allow_any_len),
applies the rule as `PatternMatcher.rewrite` would (first binding whose function returns a new
node), and when it fires evaluates the program before and after on random inputs: int32 values
drawn over the whole range with a bias to the edges, where wraparound bugs live.

The rule is held to what it declares (docs/DESIGN.md, "Integer semantics"):
- "wrap": before and after must agree on every input where `before` is defined;
- "no_overflow": they must agree on every input where no intermediate i32 result of either side
  overflowed. The evaluator here detects that: every i32 ADD, MUL and REDUCE step is also computed
  in unbounded integers, and an input where one leaves the int32 range is an overflowing input.
For a "no_overflow" rule the report also records the first input where the two sides disagree
under plain wraparound (`wrap_counterexample`): the evidence that the declaration is needed.

"Agree" is exact: same type, same bits for floats (-0.0 is not 0.0, NaN equals NaN). An input on
which `before` is undefined (exec_alu refuses: division by zero, INT_MIN // -1) is skipped: a rewrite
may define what was undefined, never the reverse. A rewrite that changes dtype or shape is a
counterexample by itself.

The evaluator is the project's one evaluator of programs (eqsat_uopc.semantics.evaluation),
independent of the rewrite engine. As the chapter asks, `run` is the oracle too: on the first input
of every fired instance, `run` of the closed program must give the evaluator's value.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from eqsat_uopc.greedy.oneline import one_line
from eqsat_uopc.ir.dtype import I32_MAX, I32_MIN, DType, dtypes, truncate
from eqsat_uopc.ir.ops import ALU, MOVEMENT, REDUCE_OPS, TRANSCENDENTAL, Ops
from eqsat_uopc.ir.uop import UOp, UOpError, call_params, prod
from eqsat_uopc.semantics.evaluation import evaluate
from eqsat_uopc.semantics.values import bind_params, random_value, same_value

__all__ = [
    "Counterexample",
    "RuleReport",
    "check_rule",
    "check_rules",
    "evaluate_checked",
    "pattern_instances",
    "same_value",
]


def evaluate_checked(
    u: UOp, params: Mapping[int, Any], ranges: Mapping[UOp, int] | None = None
) -> tuple[Any, bool]:
    """(value, overflowed): u's value under int32 wraparound (nested lists for tensors; None when
    any element is undefined) for PARAM values by slot and RANGE values by node, and whether an
    intermediate i32 result overflowed (the one evaluator: eqsat_uopc.semantics.evaluation)."""
    e = evaluate(u, params, {r.arg: v for r, v in (ranges or {}).items()}, "wrap")
    return e.value, e.overflowed


# ---------------------------------------------------------------------------
# instances of a pattern


class _NoInstance(Exception):
    """This attempt could not build a well-typed instance; try again."""


_INT_EDGES = (
    0,
    1,
    -1,
    2,
    -2,
    3,
    4,
    7,
    8,
    16,
    -8,
    2**31 - 1,
    -(2**31),
    2**31 - 2,
    -(2**31) + 1,
    2**30,
    -(2**30),
)
_F32_EDGES = (0.0, -0.0, 1.0, -1.0, 2.0, 0.5, math.inf, -math.inf, math.nan, 3.4028234663852886e38)


class _Synth:
    """Random well-typed terms, and random nodes that a given pattern matches."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.slots: dict[tuple[DType, tuple[int, ...], int], UOp] = {}
        self.n_ranges = 0
        self.pool: list[int] = []  # the i32 constants of this instance so far

    # -- leaves
    def const_value(self, dtype: DType) -> Any:
        r = self.rng
        if dtype is dtypes.bool:
            return r.random() < 0.5
        if dtype is dtypes.i32:
            if self.pool and r.random() < 0.35:  # reuse a constant (or a multiple): divisors then divide
                return truncate(dtypes.i32, r.choice(self.pool) * r.choice((1, 1, 2, 3, -1)))
            v = self._fresh_int()
            self.pool.append(v)
            return v
        return r.choice(_F32_EDGES) if r.random() < 0.4 else float(r.randint(-20, 20)) / r.choice((1, 2, 4))

    def _fresh_int(self) -> int:
        r, p = self.rng, self.rng.random()
        if p < 0.4:
            return r.choice(_INT_EDGES)
        if p < 0.85:
            return r.randint(-20, 20)
        return r.randint(I32_MIN, I32_MAX)

    def param(self, dtype: DType, shape: tuple[int, ...]) -> UOp:
        k = self.rng.randrange(2)
        key = (dtype, shape, k)
        if key not in self.slots:
            self.slots[key] = UOp.param(len(self.slots), dtype, shape)
        return self.slots[key]

    def leaf(self, dtype: DType, shape: tuple[int, ...]) -> UOp:
        r = self.rng.random()
        if shape:
            if r < 0.35:
                return self.param(dtype, shape)
            if r < 0.55:
                return UOp.const(self.const_value(dtype), dtype, shape)
            return UOp(Ops.STACK, tuple(self.leaf(dtype, shape[1:]) for _ in range(shape[0])))
        if r < 0.45:
            return self.param(dtype, shape)
        if r < 0.6 and dtype is dtypes.i32:
            self.n_ranges += 1
            return UOp.range(self.rng.choice((1, 2, 4, 8, 100)), ident=("check_rule", self.n_ranges))
        return UOp.const(self.const_value(dtype), dtype)

    def literal(self, dtype: DType, shape: tuple[int, ...]) -> UOp:
        if not shape:
            return UOp.const(self.const_value(dtype), dtype)
        return UOp(Ops.STACK, tuple(self.literal(dtype, shape[1:]) for _ in range(shape[0])))

    # -- random terms
    def term(self, dtype: DType, shape: tuple[int, ...], depth: int) -> UOp:
        if depth <= 0 or self.rng.random() < 0.35:
            return self.leaf(dtype, shape)
        r = self.rng
        if dtype is dtypes.bool:
            op = r.choice((Ops.CMPLT, Ops.CMPNE, Ops.WHERE))
        elif dtype is dtypes.i32:
            op = r.choice(
                (Ops.ADD, Ops.ADD, Ops.MUL, Ops.MUL, Ops.MAX, Ops.FLOORDIV, Ops.FLOORMOD, Ops.WHERE, Ops.CAST)
            )
        else:
            op = r.choice(
                (Ops.ADD, Ops.MUL, Ops.MAX, Ops.WHERE, Ops.RECIP, Ops.SQRT, Ops.EXP2, Ops.LOG2, Ops.SIN)
            )
        return self.build(op, dtype, shape, None, depth - 1)

    def operand_dtypes(self, op: Ops, dtype: DType) -> list[DType]:
        if op in (Ops.CMPLT, Ops.CMPNE):
            return [self.rng.choice((dtypes.i32, dtypes.i32, dtypes.f32, dtypes.bool))] * 2
        if op is Ops.WHERE:
            return [dtypes.bool, dtype, dtype]
        if op is Ops.CAST:
            return [self.rng.choice(dtypes.all)]
        if op in TRANSCENDENTAL:
            return [dtype]
        return [dtype, dtype]

    def result_dtype(self, op: Ops, allowed: frozenset | None) -> DType:
        if op in (Ops.CMPLT, Ops.CMPNE):
            choices = [dtypes.bool]
        elif op in (Ops.FLOORDIV, Ops.FLOORMOD, Ops.RANGE):
            choices = [dtypes.i32]
        elif op in TRANSCENDENTAL:
            choices = [dtypes.f32]
        else:
            choices = [dtypes.i32, dtypes.i32, dtypes.f32, dtypes.bool]
        if allowed is not None:
            choices = [d for d in choices if d in allowed] or [d for d in dtypes.all if d in allowed]
        return self.rng.choice(choices)

    def build(self, op: Ops, dtype: DType, shape: tuple[int, ...], srcs: list | None, depth: int) -> UOp:
        """An ALU node of op; srcs (when given) are the operands already built."""
        if srcs is None:
            srcs = [self.term(d, shape, depth) for d in self.operand_dtypes(op, dtype)]
        if op is Ops.CAST:
            return UOp(Ops.CAST, tuple(srcs), dtype)
        return UOp(op, tuple(srcs))

    # -- instances of a pattern
    def instance(
        self, pat: Any, dtype: DType | None, shape: tuple[int, ...] | None, store: dict[str, UOp]
    ) -> UOp:
        if pat.name is not None and pat.name in store:
            return store[pat.name]
        u = self._fresh(pat, dtype, shape, store)
        if pat.name is not None:
            store[pat.name] = u
        return u

    def _fresh(
        self, pat: Any, dtype: DType | None, shape: tuple[int, ...] | None, store: dict[str, UOp]
    ) -> UOp:
        r = self.rng
        if pat.dtype is not None:
            if dtype is not None and dtype not in pat.dtype:
                raise _NoInstance
            dtype = dtype or r.choice(sorted(pat.dtype, key=lambda d: d.name))
        if shape is None:
            shape = () if r.random() < 0.7 else (r.choice((2, 3)),)
        ops = sorted(pat.op, key=lambda o: o.value) if pat.op is not None else None
        if ops is None and pat.src is None:
            return self.term(
                dtype or r.choice((dtypes.i32, dtypes.i32, dtypes.f32, dtypes.bool)), shape, r.randint(0, 2)
            )
        op = r.choice(ops) if ops is not None else r.choice(sorted(ALU, key=lambda o: o.value))
        if op is Ops.CONST:
            return self._const(pat, dtype, shape)
        if op is Ops.PARAM:
            return self.param(dtype or dtypes.i32, shape)
        if op is Ops.RANGE:
            self.n_ranges += 1
            return UOp.range(r.choice((1, 2, 4, 8, 100)), ident=("check_rule", self.n_ranges))
        if op is Ops.STACK:
            d = dtype or self.result_dtype(Ops.ADD, None)
            inner = shape[1:] if shape else ()
            n = shape[0] if shape else r.choice((1, 2, 3))
            pats = list(pat.src) if pat.src is not None else [None] * n
            return UOp(Ops.STACK, tuple(self._sub(p, d, inner, store, 1) for p in pats))
        if op is Ops.INDEX:
            return self._index(pat, dtype, shape, store)
        if op is Ops.CALL:
            return self._call(dtype, shape)
        if op in MOVEMENT or op is Ops.REDUCE:
            return self._movement(op, dtype or dtypes.i32, store, pat)
        # an ALU op
        d = dtype or self.result_dtype(op, pat.dtype)
        operand = self.operand_dtypes(op, d)
        if pat.src is None:
            return self.build(op, d, shape, None, r.randint(0, 2))
        pats = list(pat.src)
        if len(pats) != len(operand):
            raise _NoInstance
        srcs = [self._sub(p, t, shape, store, 2) for p, t in zip(pats, operand, strict=True)]
        if isinstance(pat.src, list):
            r.shuffle(srcs)  # any order matches a list source: place the operands at random
        return self.build(op, d, shape, srcs, 0)

    def _sub(self, pat: Any, dtype: DType, shape: tuple[int, ...], store: dict[str, UOp], depth: int) -> UOp:
        if pat is None:
            return self.term(dtype, shape, depth)
        return self.instance(pat, dtype, shape, store)

    def _const(self, pat: Any, dtype: DType | None, shape: tuple[int, ...]) -> UOp:
        if shape:
            raise _NoInstance  # a CONST is a scalar
        if pat.arg is None:
            d = dtype or self.rng.choice((dtypes.i32, dtypes.i32, dtypes.f32, dtypes.bool))
            return UOp.const(self.const_value(d), d)
        if not isinstance(pat.arg, int | float):
            raise _NoInstance
        # args compare with ==: arg=1 matches 1, 1.0 and True, and an instance may be any of them
        variants = [v for v in (int(pat.arg), float(pat.arg), bool(pat.arg)) if v == pat.arg]
        variants = [v for v in variants if dtype is None or dtypes.of(v) is dtype]
        if not variants:
            raise _NoInstance
        return UOp.const(self.rng.choice(variants))

    def _index(self, pat: Any, dtype: DType | None, shape: tuple[int, ...], store: dict[str, UOp]) -> UOp:
        r = self.rng
        n_idx = len(pat.src) - 1 if pat.src else r.randint(0, 2)
        extra = r.randint(0, 1) if pat.allow_any_len else 0
        base_shape = tuple(r.choice((2, 3)) for _ in range(n_idx + extra)) + shape
        d = dtype or r.choice((dtypes.i32, dtypes.f32))
        base = self._sub(pat.src[0] if pat.src else None, d, base_shape, store, 1)
        if base.shape[: n_idx + extra] != base_shape[: n_idx + extra] or base.shape[n_idx + extra :] != shape:
            raise _NoInstance
        idx = []
        for k in range(n_idx + extra):
            p = pat.src[1 + k] if pat.src and 1 + k < len(pat.src) else None
            if p is not None and p.op is not None and Ops.CONST in p.op and p.name not in store:
                i = UOp.const(r.randrange(base.shape[k]) if r.random() < 0.95 else base.shape[k] + 2)
                if p.name is not None:
                    store[p.name] = i
            elif p is None and r.random() < 0.8:  # an index that is usually in bounds
                i = (
                    UOp.const(r.randrange(base.shape[k]))
                    if r.random() < 0.6
                    else UOp.range(base.shape[k], ("i", k))
                )
            else:
                i = self._sub(p, dtypes.i32, (), store, 1)
            idx.append(i)
        return base.index(*idx)

    def _call(self, dtype: DType | None, shape: tuple[int, ...]) -> UOp:
        d = dtype or dtypes.i32
        inner = _Synth(self.rng)  # a body has its own PARAMs, numbered from 0
        body = inner.term(d, shape, 2)
        params = call_params(body)
        if any(p.op is Ops.RANGE for p in body.toposort()):
            raise _NoInstance  # keep bodies closed over their PARAMs only
        args = [self.term(p.dtype, p.shape, 1) for p in params]
        return UOp(Ops.CALL, (body, *args), "f")

    def _movement(self, op: Ops, dtype: DType, store: dict[str, UOp], pat: Any) -> UOp:
        r = self.rng
        shape = r.choice(((2, 3), (3, 1), (2, 2, 2), (4,)))
        if op is Ops.REDUCE and dtype is dtypes.bool:
            raise _NoInstance
        src_pat = pat.src[0] if pat.src else None
        if src_pat is None and r.random() < 0.6:  # known data, which the evaluate rules compute
            x = self.literal(dtype, shape)
        else:
            x = self._sub(src_pat, dtype, shape, store, 1)
        if op is Ops.RESHAPE:
            return x.reshape((prod(shape),))
        if op is Ops.PERMUTE:
            order = list(range(len(shape)))
            r.shuffle(order)
            return x.permute(tuple(order))
        if op is Ops.EXPAND:
            return x.reshape((*shape, 1)).expand((*shape, 3))
        if op is Ops.SHRINK:
            return x.shrink(tuple((0, max(1, d - 1)) for d in shape))
        return x.reduce(r.choice(sorted(REDUCE_OPS, key=lambda o: o.value)), r.randint(1, len(shape)))


def pattern_instances(pat: Any, n: int, seed: int = 0, max_tries: int | None = None) -> list[UOp]:
    """Up to n random nodes that pat matches (deterministic for a seed), from at most 20 * n tries."""
    rng = random.Random(f"instances:{seed}")
    out: list[UOp] = []
    for _ in range(20 * n if max_tries is None else max_tries):
        if len(out) >= n:
            break
        try:
            u = _Synth(rng).instance(pat, None, None, {})
        except (_NoInstance, UOpError):
            continue
        if pat.match(u, {}):
            out.append(u)
    return out


# ---------------------------------------------------------------------------
# the check


@dataclass(frozen=True)
class Counterexample:
    """An instance and an input on which a rule's two sides disagree."""

    before: UOp
    after: UOp
    params: dict[int, Any]  # PARAM values by slot
    ranges: dict[Any, int]  # RANGE values by identifier
    before_value: Any
    after_value: Any
    overflowed: bool  # some intermediate i32 result overflowed on this input
    problem: str = "value"  # "value", "dtype/shape", or "run" (the `run` oracle disagrees)

    def __str__(self) -> str:
        head = {"value": "values differ", "dtype/shape": "dtype or shape changed", "run": "run disagrees"}
        inputs = ", ".join(
            [f"p{k} = {v!r}" for k, v in sorted(self.params.items())]
            + [f"range{k} = {v}" for k, v in self.ranges.items()]
        )
        overflow = " (overflow)" if self.overflowed else ""
        return (
            f"{head[self.problem]}{overflow}: {one_line(self.before)} = {self.before_value!r} "
            f"but {one_line(self.after)} = {self.after_value!r} at {inputs or 'no inputs'}"
        )


@dataclass
class RuleReport:
    """What check_rule did for one rule, and the first counterexample under its declaration."""

    rule: str
    int_semantics: str
    tried: int = 0  # instances synthesized (well-typed or not)
    instances: int = 0  # well-typed instances that the pattern matched
    fired: int = 0  # instances on which the rule returned a new node
    inputs: int = 0  # inputs compared
    skipped_undefined: int = 0  # inputs where `before` is undefined
    excused_by_overflow: int = 0  # no_overflow rules: inputs where the sides differ after an overflow
    raised: int = 0  # instances on which the rule raised (IndexError for a bad constant index)
    counterexample: Counterexample | None = None  # under the declared int_semantics
    wrap_counterexample: Counterexample | None = None  # no_overflow rules: a disagreement under wrap
    examples: list[tuple[UOp, UOp]] = field(default_factory=list)  # a few (before, after) pairs
    run_errors: list[str] = field(default_factory=list)  # `run` raised on a closed instance

    @property
    def sound(self) -> bool:
        return self.counterexample is None


def _rewrite_once(rule: Any, u: UOp) -> UOp | None:
    for binding in rule.pat.match(u, {}):
        if (ret := rule.fn(**binding)) is not None and ret is not u:
            return ret
    return None


def _representable(v: Any, dtype: DType) -> Any:
    """An input as the program receives it: an f32 input is an f32 value (1e-45 arrives as 2**-149)."""
    return [_representable(x, dtype) for x in v] if isinstance(v, list) else truncate(dtype, v)


def _ranges_of(u: UOp) -> list[UOp]:
    return [n for n in u.toposort() if n.op is Ops.RANGE]


def _range_value(rng: random.Random, r: UOp) -> int:
    extent = r.src[0].arg if r.src[0].op is Ops.CONST else 1
    return rng.choice((0, extent - 1, rng.randrange(max(1, extent))))


def _run_value(u: UOp, params: dict[int, Any], ranges: dict[UOp, int]) -> Any:
    from eqsat_uopc.greedy.evaluate import run, to_python

    closed = bind_params(u, params).substitute({r: UOp.const(v) for r, v in ranges.items()})
    return to_python(run(closed))


def check_rule(
    rule: Any,
    n: int = 100,
    seed: int = 0,
    inputs_per_instance: int = 16,
    max_tries: int | None = None,
    check_run: bool = True,
) -> RuleReport:
    """Synthesize instances of rule's pattern until the rule has fired on n of them (or max_tries
    instances were tried, 20 * n by default); on each, compare before and after on
    inputs_per_instance random inputs under the rule's declared int_semantics."""
    report = RuleReport(rule.name, rule.int_semantics)
    rng = random.Random(f"{seed}:{rule.name}")
    for _ in range(20 * n if max_tries is None else max_tries):
        if report.fired >= n:
            break
        synth = _Synth(rng)
        report.tried += 1
        try:
            before = synth.instance(rule.pat, None, None, {})
        except (_NoInstance, UOpError):
            continue
        if not rule.pat.match(before, {}):
            continue
        report.instances += 1
        try:
            after = _rewrite_once(rule, before)
        except IndexError:
            report.raised += 1
            continue
        if after is None:
            continue
        report.fired += 1
        if len(report.examples) < 3:
            report.examples.append((before, after))
        if after.dtype is not before.dtype or after.shape != before.shape:
            report.counterexample = report.counterexample or Counterexample(
                before,
                after,
                {},
                {},
                (before.dtype, before.shape),
                (after.dtype, after.shape),
                False,
                "dtype/shape",
            )
            continue
        _compare(rule, before, after, rng, inputs_per_instance, check_run, report)
        if report.counterexample is not None and (rule.int_semantics == "wrap" or report.wrap_counterexample):
            break
    return report


def _compare(
    rule: Any, before: UOp, after: UOp, rng: random.Random, k: int, check_run: bool, report: RuleReport
) -> None:
    params = call_params(before)
    ranges = _ranges_of(before)
    for j in range(k):
        pv = {
            p.arg.slot: _representable(random_value(rng, p.dtype, p.shape, p.arg.bounds), p.dtype)
            for p in params
        }
        rv = {r: _range_value(rng, r) for r in ranges}
        b, b_over = evaluate_checked(before, pv, rv)
        if b is None:
            report.skipped_undefined += 1
            continue
        a, a_over = evaluate_checked(after, pv, rv)
        report.inputs += 1
        overflowed = b_over or a_over
        named = {r.arg: v for r, v in rv.items()}
        if check_run and j == 0 and report.counterexample is None:
            try:
                got = _run_value(before, pv, rv)
            except Exception as e:  # the engine itself failed on this program: report, don't crash
                report.run_errors.append(f"run({one_line(before)}) raised {type(e).__name__}: {e}")
                got = b
            if not same_value(got, b):
                report.counterexample = Counterexample(before, after, pv, named, b, got, overflowed, "run")
                return
        if same_value(a, b):
            continue
        cex = Counterexample(before, after, pv, named, b, a, overflowed)
        if rule.int_semantics == "no_overflow":
            report.wrap_counterexample = report.wrap_counterexample or cex
            if overflowed:
                report.excused_by_overflow += 1
                continue
        report.counterexample = report.counterexample or cex
        return


def check_rules(pm: Any, n: int = 100, seed: int = 0, inputs_per_instance: int = 16) -> list[RuleReport]:
    """check_rule over every rule of a PatternMatcher, in order."""
    return [check_rule(rule, n, seed, inputs_per_instance) for rule in pm.rules]
