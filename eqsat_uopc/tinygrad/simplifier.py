"""One kernel's index expressions through one e-graph: saturate, extract the whole DAG, prove, keep or not.

`simplify_kernel(sink, renderer)` is what the mode (mode.py) runs on every kernel tinygrad compiles,
after tinygrad's final symbolic pass:

1. **The expressions** (kernel.py): every int32/bool ALU subgraph the kernel uses, as programs here
   over shared inputs (loop and GPU indices with their ranges, kernel variables, loaded ints).
1b. **Masked indices where their mask holds.** An index root read only under one valid mask
   (every use of it outside the pure subgraph a `where(gate, root, Invalid)`: kernel.gates) has a
   value that matters only where the gate holds. `linear.conditions.assume` simplifies it there:
   divisions and remainders kept in one period by the mask (`(L + 98) % 540 -> L + 98` under
   `2 <= p0 <= 11 && 2 <= 4*p1 + p2 <= 10`), or whose remainder the mask pins (`(p0 + 1) // 2 ->
   p0 // 2 + 1` where p0 is odd), comparisons the mask decides. The narrowed program goes into the
   e-graph in its place when the cost model finds it no costlier, is proved as `where(gate, ., 0)`
   on both sides (step 5), and replaces the root in its masked uses only (other roots that contain
   it keep its value everywhere).
2. **One e-graph per kernel.** The programs are bundled into one program, a STACK of them (a bool
   expression as a CAST to i32, since a STACK holds one dtype), and saturated once: one engine
   lease, one budget, every shared subterm one e-class. The start hooks (greedy seed, index
   algebra, decided comparisons) rewrite the bundle; `StackElements` unions each of their elements
   with the program's element, since a union of two STACKs does not union their elements. The
   Python folding step is left out: it is for f32 and tensors, and a STACK root would make it read
   the e-graph back after every iteration for nothing.
3. **The whole DAG extracted.** The saturated e-graph is re-rooted at the expressions' own e-classes
   (a bool expression's, not its CAST's), and extraction chooses one term per root under the cost
   model with DAG cost: a subterm that several indices share is paid once. tinygrad's expressions,
   the greedy seed's and the algebra's are candidates, so the choice is never costlier than they are.
4. **Counted in tinygrad's own terms.** The changed expressions are built back into tinygrad nodes
   over the kernel's own leaves, and tinygrad's decompositions (kernel.lowered_int_ops) count the
   integer ALU ops the kernel's expressions become on the renderer. Each changed expression in turn
   goes back to tinygrad's form when that adds no op (the cost model found it cheaper, tinygrad's
   lowering does not; or a rewrite as cheap, which would only cost a proof: `_worth_it`). Unless
   what remains is strictly fewer ops than tinygrad's, the kernel stays as it was.
5. **Proved.** Every remaining change is proved equal to tinygrad's expression by z3
   (verify.prove_equivalent) as a refinement (wherever tinygrad's expression is defined, ours is,
   with the same value), twice: under `wrap` (the value at every input, as the PYTHON device and any
   wrapping backend compute it) and under `no_overflow` (no intermediate of ours overflows where none
   of tinygrad's does: a C backend without -fwrapv, where signed overflow is undefined, gets no new
   overflow). The `wrap` proof is implied, and skipped, when the interval analysis shows tinygrad's
   expression never overflows within its inputs' bounds (`never_overflows`, the usual case). With a
   fixed z3 resource limit (`rlimit`), so the verdict is the same on every machine. All changes in
   one query first; if that is not proved, each on its own; an expression not proved goes back to
   tinygrad's form, and the count is made again. Any error on the way leaves the kernel as tinygrad
   made it.

`per_expression=True` runs the same steps with one saturation per expression instead (what one
would do without a whole-kernel e-graph); bench/tinygrad_kernels.py compares the two.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from eqsat_uopc.errors import UserError
from eqsat_uopc.extract import cost_of, extract
from eqsat_uopc.ir.dtype import I32_MAX, I32_MIN, dtypes
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.linear import assume, shared_multiples, shared_zero_tests, simplify_algebra
from eqsat_uopc.rules.python_rules import COMPARE_FOLD, SUM_FOLD
from eqsat_uopc.saturation import HOOKS, Additions, Hook, RunSetup, SaturationConfig, Seeds, saturate
from eqsat_uopc.semantics.intervals import bounds
from eqsat_uopc.tinygrad.bridge import tinygrad_ops
from eqsat_uopc.tinygrad.cost import TINYGRAD_OPS
from eqsat_uopc.tinygrad.fused import common_part_sums, fused_sums, offset_sums, unscaled_comparisons
from eqsat_uopc.tinygrad.kernel import KernelExpressions, kernel_expressions, lowered_int_ops
from eqsat_uopc.verify import prove_equivalent

__all__ = [
    "KERNEL_CONFIG",
    "KERNEL_HOOKS",
    "KernelReport",
    "SharedMultiples",
    "SharedZeroTests",
    "SimplifierSettings",
    "StackElements",
    "simplify_kernel",
]


class StackElements(Hook):
    """Each start hook's rewrite of a STACK program, element by element: the union of two STACKs
    does not union their elements (no rule makes STACK injective), so without these equalities the
    greedy seed's and the algebra's forms would be in the bundle's e-class only, out of reach of an
    extraction rooted at the elements."""

    name = "stack-elements"

    @classmethod
    def applies(cls, setup: RunSetup) -> bool:
        return setup.program.op is Ops.STACK

    def start(self, seeds: Seeds) -> Additions:
        program = seeds.program
        pairs: dict[tuple[UOp, UOp], None] = {}
        for term in seeds.root_terms.values():
            if term.op is not Ops.STACK or len(term.src) != len(program.src):
                continue
            for a, b in zip(program.src, term.src, strict=True):
                a, b = _element(a, b)
                if a is not b:
                    pairs[(a, b)] = None
        return Additions(equalities=tuple(pairs))


def _element(a: UOp, b: UOp) -> tuple[UOp, UOp]:
    """The pair to union for elements a (the program's) and b (a rewrite's): the bools under both
    CASTs when both are casts of bools, else the elements themselves."""
    if a.op is Ops.CAST and b.op is Ops.CAST and a.src[0].dtype is dtypes.bool is b.src[0].dtype:
        return a.src[0], b.src[0]
    return a, b


class SharedZeroTests(Hook):
    """A kernel's zero tests on the sums its other expressions compute (linear.shared_zero_tests):
    a valid mask `0 < x + y` (x, y >= 0) is `0 < 2*x + y` where a load's index computes `2*x + y`,
    which extraction, with DAG cost, then reads instead of adding x and y again. The start terms of
    the whole kernel (program, greedy seed, algebra) are searched, so the sums of every index
    expression are candidates for the tests of every other."""

    name = "shared-zero-tests"

    def start(self, seeds: Seeds) -> Additions:
        exact = self.setup.config.int_semantics == "no_overflow"
        pairs = shared_zero_tests(seeds.terms(), exact)
        return Additions(equalities=tuple(pairs), matches={COMPARE_FOLD.name: len(pairs)} if pairs else {})


class SharedMultiples(Hook):
    """A kernel's sums as multiples of its other sums (linear.shared_multiples): `g*33 + l*11` is
    `(g*3 + l)*11` where a mask computes `g*3 + l`, one product where there were two and an
    addition; across the whole kernel's start terms, as SharedZeroTests."""

    name = "shared-multiples"

    def start(self, seeds: Seeds) -> Additions:
        pairs = shared_multiples(seeds.terms())
        return Additions(equalities=tuple(pairs), matches={SUM_FOLD.name: len(pairs)} if pairs else {})


# the registered start hooks, then StackElements, SharedZeroTests and SharedMultiples; not the
# Python folding step (module docstring)
KERNEL_HOOKS: tuple[type[Hook], ...] = (
    *(h for h in HOOKS if not h.iterates),
    StackElements,
    SharedZeroTests,
    SharedMultiples,
)


# the mode's saturation settings: no_overflow rules (the proofs check both semantics), the index-op
# cost model; the default work limits (a kernel is one run, however many expressions it has), and no
# wall-clock limit, so that a kernel gets the same program under any load
KERNEL_CONFIG = SaturationConfig(int_semantics="no_overflow", cost=TINYGRAD_OPS)


@dataclass(frozen=True)
class SimplifierSettings:
    """How the mode optimizes a kernel: the saturation config (its int semantics is the run's, the
    proofs are under both), z3's resource limit per query, and one run per kernel or per expression."""

    config: SaturationConfig = KERNEL_CONFIG
    rlimit: int = 2_000_000  # z3's resource limit per query: it decides, the same on every machine
    timeout_ms: int = 60_000  # a safety net only, far above what the rlimit allows on this machine
    per_expression: bool = False
    max_reverts: int = 64  # changed expressions tried one by one back in tinygrad's form, at most

    def replace(self, **changes: Any) -> SimplifierSettings:
        """A copy with fields changed, its own or its SaturationConfig's (`node_budget=2_000`); an
        unknown name is a SaturationError naming it."""
        own = {f.name for f in dataclasses.fields(self)}
        config = {k: v for k, v in changes.items() if k not in own}
        out = dataclasses.replace(self, **{k: v for k, v in changes.items() if k in own})
        return dataclasses.replace(out, config=out.config.replace(**config)) if config else out


@dataclass
class KernelReport:
    """What the mode did to one kernel, and why."""

    name: str
    expressions: int = 0  # index expressions found (translated)
    skipped: int = 0  # expressions left alone: no exact translation
    tinygrad_ops: int = 0  # integer ALU ops of tinygrad's expressions, lowered for the renderer
    ops: int = 0  # of the expressions the kernel keeps (tinygrad's, or ours when fewer)
    changed: int = 0  # expressions replaced
    replaced: bool = False
    outcome: str = ""  # "smaller", or why the kernel kept tinygrad's expressions
    unproved: int = 0  # changed expressions z3 did not prove (kept as tinygrad's)
    saturations: int = 0  # saturation runs (1 per kernel; one per expression with per_expression)
    enodes: int = 0  # e-nodes of the (largest) e-graph
    stop_reason: str = ""
    seconds: float = 0.0  # the whole step: find, saturate, extract, prove, count
    saturate_seconds: float = 0.0
    prove_seconds: float = 0.0
    details: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def simplify_kernel(
    sink: Any, renderer: Any, settings: SimplifierSettings | None = None, name: str = ""
) -> tuple[Any, KernelReport]:
    """The kernel with its index expressions replaced by proved, smaller ones (or as it was), and the
    report of what was done. Never raises for a kernel: an error is the report's outcome."""
    settings = settings or SimplifierSettings()
    report = KernelReport(name)
    start = time.perf_counter()
    try:
        sink = _simplify(sink, renderer, settings, report)
    except (UserError, ValueError, ArithmeticError, RecursionError, AssertionError) as e:
        report.replaced, report.outcome = False, f"error: {type(e).__name__}: {e}"[:300]
    report.seconds = time.perf_counter() - start
    return sink, report


def _simplify(sink: Any, renderer: Any, settings: SimplifierSettings, report: KernelReport) -> Any:
    ke = kernel_expressions(sink)
    report.expressions, report.skipped = len(ke.programs), len(ke.skipped)
    report.tinygrad_ops = report.ops = lowered_int_ops(ke.roots, renderer)
    if not ke.programs:
        report.outcome = "no index expressions"
        return sink
    t = time.perf_counter()
    programs = _given_gates(ke, settings.config)
    report.details["narrowed"] = sum(p is not q for p, q in zip(ke.programs, programs, strict=True))
    chosen = (
        _per_expression(programs, settings, report)
        if settings.per_expression
        else _whole(programs, settings, report)
    )
    chosen = _spelled(ke, chosen, renderer)
    report.saturate_seconds = time.perf_counter() - t
    changed = [k for k, (p, q) in enumerate(zip(ke.programs, chosen, strict=True)) if p is not q]
    if not changed:
        report.outcome = "no change"
        return sink
    replacements = list(ke.roots)
    for k, node in zip(changed, ke.rebuild([chosen[k] for k in changed]), strict=True):
        replacements[k] = node
    ops = lowered_int_ops(replacements, renderer)
    report.details["candidate_ops"] = ops
    kept = _worth_it(ke, replacements, changed, ops, renderer, settings)
    ops = lowered_int_ops(replacements, renderer)
    if ops >= report.tinygrad_ops:
        report.outcome = "not smaller in tinygrad's ops"
        return sink
    t = time.perf_counter()
    proved = _proved(*_under_gates(ke, programs, chosen), kept, settings)
    report.prove_seconds = time.perf_counter() - t
    report.unproved = len(kept) - len(proved)
    for k in set(kept) - set(proved):
        replacements[k] = ke.roots[k]
    ops = lowered_int_ops(replacements, renderer)
    if ops >= report.tinygrad_ops:
        report.outcome = "unproved" if report.unproved else "not smaller in tinygrad's ops"
        return sink
    report.ops, report.changed, report.replaced, report.outcome = ops, len(proved), True, "smaller"
    masked = [k for k in proved if ke.programs[k] is not programs[k]]  # equal under their gates only
    return ke.substitute(sink, replacements, masked)


def _spelled(ke: KernelExpressions, chosen: list[UOp], renderer: Any) -> list[UOp]:
    """The chosen expressions in the spelling tinygrad counts the fewest ops for, of: as extracted;
    sums that differ only in their constants as offsets of one (fused.offset_sums); sums over their
    common parts (fused.common_part_sums); both. For a renderer with a fused multiply-add, each is
    first spelled for it (comparisons of multiples reading the multiplicand, sums re-associated).
    The extraction's cost model prices each node once and cannot see what these change: which
    products fuse, which sums another still reads."""
    fused = _fuses_multiply_add(renderer)
    offsets = offset_sums(chosen)
    alternatives = [chosen, offsets, common_part_sums(chosen), common_part_sums(offsets)]
    spellings: list[list[UOp]] = []
    for programs in alternatives:
        spelled = fused_sums(unscaled_comparisons(programs)) if fused else list(programs)
        if spelled not in spellings:
            spellings.append(spelled)
    if len(spellings) == 1:
        return spellings[0]

    def ops(programs: list[UOp]) -> int:
        changed = [k for k, (p, q) in enumerate(zip(ke.programs, programs, strict=True)) if p is not q]
        nodes = list(ke.roots)
        for k, node in zip(changed, ke.rebuild([programs[k] for k in changed]), strict=True):
            nodes[k] = node
        return lowered_int_ops(nodes, renderer)

    return min(spellings, key=ops)  # the first of the fewest


def _fuses_multiply_add(renderer: Any) -> bool:
    """Does the renderer compute `a*b + c` in one op (tinygrad's MULACC)?"""
    tops = tinygrad_ops()
    return tops.Ops.MULACC in getattr(renderer, "code_for_op", {})


def _worth_it(
    ke: KernelExpressions, replacements: list[Any], changed: list[int], ops: int, renderer: Any, settings: Any
) -> list[int]:
    """The changed expressions that pay for themselves in tinygrad's ops: each one in turn goes back to
    tinygrad's form (in `replacements`, in place) when that does not add ops (a rewrite the cost model
    found cheaper but tinygrad's lowering does not, or one as cheap, which would only cost a proof);
    at most `settings.max_reverts` tried (each trial lowers the whole kernel's expressions)."""
    kept = list(changed)
    if len(changed) > settings.max_reverts:
        return kept
    for k in changed:
        mine = replacements[k]
        replacements[k] = ke.roots[k]
        if (trial := lowered_int_ops(replacements, renderer)) <= ops:
            ops = trial
            kept.remove(k)
        else:
            replacements[k] = mine
    return kept


def _bundle(programs: Sequence[UOp]) -> UOp:
    """One program holding them all: a STACK, bools as CASTs to i32 (a STACK holds one dtype)."""
    return UOp.stack(*(p.cast(dtypes.i32) if p.dtype is dtypes.bool else p for p in programs))


def _given_gates(ke: KernelExpressions, config: SaturationConfig) -> list[UOp]:
    """The kernel's programs, each masked index simplified where its valid mask holds (the only
    inputs at which its value is read): linear.conditions.assume folds what the mask decides
    (comparisons, divisions and remainders kept in one period: `(L + 98) % 540 -> L + 98` where
    `2 <= p0 <= 11 && 2 <= 4*p1 + p2 <= 10`), kept when the cost model finds it cheaper. Equal to
    tinygrad's expression where the mask holds only, which is what `_under_gates` has z3 prove."""
    out = list(ke.programs)
    for k, p in enumerate(ke.programs):
        gate = ke.gate(k)
        if gate is None or p.dtype is not dtypes.i32:
            continue
        narrowed = assume(p, gate, True)
        if narrowed is p:
            continue
        simpler = simplify_algebra(narrowed, "wrap")  # sound under both semantics
        narrowed = narrowed if simpler is None else simpler
        if cost_of(narrowed, config.cost) <= cost_of(p, config.cost):  # a tie may be shared
            out[k] = narrowed
    return out


def _under_gates(
    ke: KernelExpressions, programs: Sequence[UOp], chosen: Sequence[UOp]
) -> tuple[list[UOp], list[UOp]]:
    """What the proofs compare: tinygrad's expression and ours, each masked index that was
    simplified under its mask as `where(gate, expression, 0)` on both sides (equal where the mask
    holds, and both 0 elsewhere: the kernel reads neither there), the others as they are."""
    theirs, ours = list(ke.programs), list(chosen)
    for k, (p, q) in enumerate(zip(ke.programs, programs, strict=True)):
        gate = ke.gate(k)
        if p is not q and gate is not None:
            theirs[k], ours[k] = gate.where(p, 0), gate.where(chosen[k], 0)
    return theirs, ours


def _whole(programs: Sequence[UOp], settings: SimplifierSettings, report: KernelReport) -> list[UOp]:
    """One saturation of the bundle; the whole DAG extracted at the expressions' own e-classes."""
    config = settings.config
    bundle = _bundle(programs)
    budget = max(config.node_budget, 4 * bundle.size)
    sat = saturate(bundle, config.replace(node_budget=budget), hooks=KERNEL_HOOKS)
    try:
        report.saturations, report.enodes = 1, sat.report.final_enodes
        report.stop_reason = sat.report.stop_reason.value
        egraph = sat.egraph
        roots = []
        for p in programs:
            cid = sat.class_of(p)
            if cid is None:  # pragma: no cover  (every program is lowered into the e-graph)
                raise ValueError("an expression is missing from its kernel's e-graph")
            roots.append(cid)
        rooted = dataclasses.replace(egraph, roots=tuple(roots))
        candidates = [tuple(programs)]
        for term in sat.seeds.root_terms.values():
            if term.op is Ops.STACK and len(term.src) == len(programs):
                elems = tuple(
                    e.src[0] if p.dtype is dtypes.bool and e.op is Ops.CAST else e
                    for p, e in zip(programs, term.src, strict=True)
                )
                if all(e.dtype is p.dtype for p, e in zip(programs, elems, strict=True)):
                    candidates.append(elems)
        result = extract(
            rooted,
            cost=config.cost,
            extractor=config.extractor,
            time_limit=config.extract_time_limit,
            branch_limit=config.extract_branch_limit,
            candidates=candidates,
        )
    finally:
        sat.close()
    report.details["dag_cost"] = (_dag_cost(programs, config), result.cost)
    return list(result.programs)


def _per_expression(programs: Sequence[UOp], settings: SimplifierSettings, report: KernelReport) -> list[UOp]:
    """One saturation per expression, each extracted on its own (the comparison the bench makes)."""
    config = settings.config
    chosen = []
    for p in programs:
        sat = saturate(p, config.replace(node_budget=max(config.node_budget, 4 * p.size)))
        try:
            result = sat.extract()
            report.saturations += 1
            report.enodes = max(report.enodes, sat.report.final_enodes)
        finally:
            sat.close()
        chosen.append(result.program)
    report.stop_reason = "per expression"
    return chosen


_WRAPPING = (Ops.ADD, Ops.MUL, Ops.FLOORDIV)


def never_overflows(program: UOp) -> bool:
    """Does no i32 ADD, MUL or FLOORDIV of the program leave int32 at any input within its bounds?
    True when the interval analysis bounds each such node without giving up (it answers the full
    int32 range where the exact interval might leave it, and conservatively for a node that may
    truly span it). Then the `wrap` value of the program is its exact value at every input, and the
    `no_overflow` refinement proof alone also proves the `wrap` refinement: wherever tinygrad's
    expression is defined it does not overflow, so ours does not either and has its value, and
    neither wraps (module docstring, step 4)."""
    full = (I32_MIN, I32_MAX)
    return all(bounds(u) != full for u in program.toposort() if u.op in _WRAPPING and u.dtype is dtypes.i32)


def _dag_cost(programs: Sequence[UOp], config: SaturationConfig) -> float:
    return cost_of(tuple(programs), config.cost)


def _proved(
    programs: Sequence[UOp], chosen: Sequence[UOp], changed: Sequence[int], settings: SimplifierSettings
) -> list[int]:
    """The changed expressions proved equal to tinygrad's (module docstring, step 4): all in one query
    per int semantics first, then one by one."""

    def proves(a: UOp, b: UOp) -> bool:
        semantics = ("no_overflow",) if never_overflows(a) else ("no_overflow", "wrap")
        return all(
            prove_equivalent(a, b, sem, settings.timeout_ms, refinement=True, rlimit=settings.rlimit).status
            == "proved"
            for sem in semantics
        )

    if len(changed) > 1 and proves(
        _bundle([programs[k] for k in changed]), _bundle([chosen[k] for k in changed])
    ):
        return list(changed)
    return [k for k in changed if proves(programs[k], chosen[k])]
