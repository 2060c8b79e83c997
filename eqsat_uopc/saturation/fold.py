"""The Python folding step that runs between egglog iterations: rules egglog cannot state exactly.

egglog's f64 is not IEEE f32 and has no sin/exp2/log2, variable-arity terms (STACK, INDEX) are
awkward to rewrite in egglog, and CALL inlining is a substitution that must respect scopes. So
these rules read a Snapshot of the e-graph, compute with the project's own reference code
(`exec_alu`, the greedy `run` and `inline_call`) and add the resulting terms and unions through the
Lowerer. Each rule is idempotent: it skips a class that already holds its result, so a step that
adds nothing means the Python rules are saturated too. The rules read e-nodes by op, dtype and shape
(serialize.SNode), never by egglog's constructor names or type strings, and each family is one
entry of `_SWEEPS`: the ops it looks at and its handler.

Families (the rules are declared as values in eqsat_uopc.rules.python_rules):
  fold        scalar ALU of constants -> exec_alu's value (every op and dtype, exactly; None from
              exec_alu means "do not fold"; under no_overflow an i32 ADD, MUL or FLOORDIV whose
              exact value leaves int32 is not folded either: a wrapped constant would bring
              overflow into a term that had none); an f32 double constant -> the f32 it denotes.
  identities  CMPLT/CMPNE(x, x) for a shaped int/bool x -> False of x's shape (the chapter's scalar
              False was a defect); scalars and CAST to the operand's own dtype are egglog rules.
  evaluate    any node over fully known data (CONST/STACK literals) -> greedy `run` of that node
              (movement ops, REDUCE, ALU of tensors, INDEX of literals: the same code, so the same
              values and the same IndexOutOfBoundsError; under no_overflow, not where an
              intermediate of the evaluation overflows); ALU through STACK; INDEX() -> x; INDEX of
              INDEX;
              INDEX of STACK at a constant; CALL -> its body with the arguments substituted
              (`inline_call`, which never enters a nested CALL's body).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from egglog import bindings

from eqsat_uopc.errors import IndexOutOfBoundsError
from eqsat_uopc.ir.dtype import dtypes, f32_bits, truncate
from eqsat_uopc.ir.ops import ALU, Ops
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.rules.python_rules import (
    CMP_SELF,
    EXEC_ALU,
    F64_TO_F32,
    INDEX_EMPTY,
    INDEX_INDEX,
    INDEX_STACK,
    INLINE_CALL,
    LITERAL,
    PUSH_STACK,
)
from eqsat_uopc.saturation.errors import SaturationBug
from eqsat_uopc.saturation.lower import Lowerer
from eqsat_uopc.saturation.serialize import Snapshot, SNode
from eqsat_uopc.saturation.terms import type_string
from eqsat_uopc.semantics.alu import exec_alu
from eqsat_uopc.semantics.int_semantics import overflows

__all__ = ["FoldStep", "needs_python_step"]

# the Python rules' names, as eqsat_uopc.rules.python_rules declares them
FOLD_EXEC_ALU = EXEC_ALU.name
FOLD_F64_TO_F32 = F64_TO_F32.name
IDENTITIES_CMP_SELF = CMP_SELF.name
EVALUATE_LITERAL = LITERAL.name
EVALUATE_PUSH_STACK = PUSH_STACK.name
EVALUATE_INDEX_EMPTY = INDEX_EMPTY.name
EVALUATE_INDEX_INDEX = INDEX_INDEX.name
EVALUATE_INDEX_STACK = INDEX_STACK.name
EVALUATE_INLINE_CALL = INLINE_CALL.name

_INT_TYPES = (dtypes.i32, dtypes.bool)
_ALU_ORDER = tuple(sorted(ALU, key=lambda o: o.value))  # the order the sweeps visit ALU e-nodes in
_STRUCTURAL = (Ops.INDEX, Ops.CALL, Ops.RESHAPE, Ops.EXPAND, Ops.PERMUTE, Ops.SHRINK, Ops.REDUCE)
_EVAL_OPS = frozenset(ALU | set(_STRUCTURAL))
_SCALAR_INT_OPS = frozenset(ALU | {Ops.CONST, Ops.PARAM, Ops.RANGE})


def needs_python_step(nodes: list[UOp]) -> bool:
    """Can the Python step ever fire on an e-graph grown from these nodes? Only with f32 values,
    tensors or the ops it evaluates: rules never make new types, so an i32/bool scalar program
    (index arithmetic, the Caviar corpus) saturates in egglog alone."""
    return any(u.dtype is dtypes.f32 or u.shape or u.op not in _SCALAR_INT_OPS for u in nodes)


# -- which e-nodes a sweep looks at (see _SWEEPS)
Wanted = Callable[[SNode, Snapshot], bool]


def _any(n: SNode, snap: Snapshot) -> bool:
    return True


def _shaped(n: SNode, snap: Snapshot) -> bool:
    return bool(n.shape)


def _double(n: SNode, snap: Snapshot) -> bool:
    return n.holds_double


def _float_related(n: SNode, snap: Snapshot) -> bool:
    """Scalar nodes egglog's own folding cannot do: f32 results, or comparisons/casts of f32 operands."""
    if n.dtype is dtypes.f32 and not n.shape:
        return True
    if n.op is Ops.CMPLT or n.op is Ops.CMPNE or n.op is Ops.CAST:
        dtype, shape = snap.type_of(n.kids[0])
        return dtype is dtypes.f32 and not shape
    return False


def _semantic(n: SNode) -> Any:
    """A constant's value as the ops see it (an f32 double rounds to f32), for the soundness check."""
    v = n.const_value()
    if n.dtype is dtypes.f32:
        return ("f", f32_bits(truncate(dtypes.f32, v)))
    return (type(v).__name__, v)


class FoldStep:
    """One instance per saturation: remembers which CALLs it has inlined.

    Calling it on a Snapshot runs the sweeps of the families it was given (`_SWEEPS`, in order)."""

    def __init__(self, lowerer: Lowerer, families: frozenset[str] | set[str], int_semantics: str = "wrap"):
        self.lowerer = lowerer
        self.exact = int_semantics == "no_overflow"  # fold only what fits int32 exactly
        self._sweeps = tuple(s for s in _SWEEPS if s.family in families)
        self.inlined = 0  # lowerer.calls[:inlined] are done
        self.matches: dict[str, int] = {}  # rule name -> unions written (the runner collects and clears it)

    @property
    def active(self) -> bool:
        return bool(self._sweeps)

    def __call__(self, snap: Snapshot) -> int:
        """Apply every Python rule once to the snapshot; returns the number of unions written."""
        self._snap = snap
        self._named: dict[bindings.Value, int] = {}
        self._reps: dict[bindings.Value, SNode] | None = None
        self._lits: dict[bindings.Value, UOp | None] = {}
        self._unions = 0
        multi: dict[bindings.Value, int] = {}
        for v, _ in snap.nodes_of(Ops.CONST):
            multi[v] = multi.get(v, 0) + 1
        for v, k in multi.items():
            if k > 1:
                self._check_constants(v, snap.classes[v])
        for sweep in self._sweeps:
            for v in sweep.classes(snap):
                sweep.handler(self, v, snap.classes[v])
            if sweep.then is not None:
                sweep.then(self)
        return self._unions

    # -- naming e-classes in loader rows
    def _name(self, v: bindings.Value) -> int:
        """An N id for class v: its lowered name, or its representative written as a row (iteratively)."""
        named, names = self._named, self._snap.names
        if (hit := named.get(v)) is not None:
            return hit
        stack = [(v, False)]
        while stack:
            c, expanded = stack.pop()
            if c in named:
                continue
            if (k := names.get(c)) is not None:
                named[c] = k
                continue
            rep = self._representatives()[c]
            if not expanded:
                stack.append((c, True))
                stack.extend((k, False) for k in rep.kids if k not in named)
                continue
            named[c] = self._write(rep, tuple(named[k] for k in rep.kids))
        return named[v]

    def _write(self, n: SNode, kids: tuple[int, ...]) -> int:
        if n.op is Ops.CONST:
            return self.lowerer.const(n.const_value())
        return self.lowerer.row(n.op, n.t, kids, n.prim)

    def _representatives(self) -> dict[bindings.Value, SNode]:
        """One e-node per class whose children are resolved before it: an acyclic choice (Kahn order)."""
        if self._reps is not None:
            return self._reps
        snap = self._snap
        waiting: dict[bindings.Value, list[tuple[bindings.Value, SNode, list[int]]]] = {}
        reps: dict[bindings.Value, SNode] = {}
        ready: list[bindings.Value] = []
        for v, nodes in snap.classes.items():
            for n in nodes:
                pending = [k for k in set(n.kids)]
                if not pending:
                    if v not in reps:
                        reps[v] = n
                        ready.append(v)
                    continue
                cell = [len(pending)]
                for k in pending:
                    waiting.setdefault(k, []).append((v, n, cell))
        while ready:
            k = ready.pop()
            for v, n, cell in waiting.pop(k, ()):
                cell[0] -= 1
                if cell[0] == 0 and v not in reps:
                    reps[v] = n
                    ready.append(v)
        self._reps = reps
        return reps

    def _union(self, rule: str, v: bindings.Value, n_id: int) -> None:
        self.lowerer.union(self._name(v), n_id)
        self._unions += 1
        self.matches[rule] = self.matches.get(rule, 0) + 1

    def _lower(self, u: UOp) -> int:
        return self.lowerer.lower(u)

    # -- constants
    def _check_constants(self, v: bindings.Value, nodes: list[SNode]) -> None:
        seen = None
        for n in nodes:
            if n.op is Ops.CONST:
                s = _semantic(n)
                if seen is None:
                    seen = (s, n)
                elif s != seen[0]:
                    raise SaturationBug(
                        f"unsound merge: one e-class holds the constants {seen[1].const_value()!r} and "
                        f"{n.const_value()!r}"
                    )

    def _const_of(self, v: bindings.Value) -> SNode | None:
        return self._node_of(v, Ops.CONST)

    def _fold(self, v: bindings.Value, nodes: list[SNode]) -> None:
        c = self._const_of(v)
        if c is not None:
            if c.holds_double and not any(n.op is Ops.CONST and not n.holds_double for n in nodes):
                self._union(FOLD_F64_TO_F32, v, self.lowerer.const(truncate(dtypes.f32, c.const_value())))
            return
        for n in nodes:
            if n.shape or n.op not in ALU:
                continue
            kids = [self._const_of(k) for k in n.kids]
            if any(k is None for k in kids):
                continue
            args = [k.const_value() for k in kids]
            if self.exact and n.dtype is dtypes.i32 and overflows(n.op, args):
                continue
            r = exec_alu(n.op, n.dtype, args)
            if r is not None:
                self._union(FOLD_EXEC_ALU, v, self._lower(UOp(Ops.CONST, (), r)))
                return

    # -- identities that need the operands' types
    def _identities(self, v: bindings.Value, nodes: list[SNode]) -> None:
        for n in nodes:
            if (n.op is Ops.CMPLT or n.op is Ops.CMPNE) and n.kids[0] == n.kids[1]:  # x < x, x != x -> False
                dtype, shape = self._snap.type_of(n.kids[0])
                if shape and dtype in _INT_TYPES and self._const_of(v) is None:
                    false = UOp.const(False, dtypes.bool, shape)
                    if self._lowered_class(false) != v:
                        self._union(IDENTITIES_CMP_SELF, v, self._lower(false))

    def _lowered_class(self, u: UOp) -> bindings.Value | None:
        i = self.lowerer.ids.get(u)
        return None if i is None else self._snap.by_name.get(i)

    # -- evaluate
    def _literal(self, v: bindings.Value) -> UOp | None:
        """The CONST/STACK literal in class v, if it holds one."""
        if v in self._lits:
            return self._lits[v]
        out = None
        for n in self._snap.classes[v]:
            if n.op is Ops.CONST:
                out = UOp(Ops.CONST, (), n.const_value())
                break
        if out is None:
            for n in self._snap.classes[v]:
                if n.op is Ops.STACK:
                    elems = [self._literal(k) for k in n.kids]
                    if all(e is not None for e in elems):
                        out = UOp(Ops.STACK, tuple(elems))
                        break
        self._lits[v] = out
        return out

    def _node_of(self, v: bindings.Value, op: Ops) -> SNode | None:
        """The first e-node of op in class v, if it has one."""
        for n in self._snap.classes[v]:
            if n.op is op:
                return n
        return None

    def _evaluate(self, v: bindings.Value, nodes: list[SNode]) -> None:
        from eqsat_uopc.greedy import run  # the greedy engine is the reference evaluator
        from eqsat_uopc.semantics.evaluation import evaluate

        if self._literal(v) is None:
            for n in nodes:
                if not n.kids or n.op not in _EVAL_OPS:
                    continue
                lits = [self._literal(k) for k in n.kids]
                if any(x is None for x in lits):
                    continue
                arg = n.dtype if n.op is Ops.CAST else (None if n.prim is None else self.lowerer.args[n.prim])
                term = UOp(n.op, tuple(lits), arg)
                if self.exact and evaluate(term, {}, {}, "no_overflow").overflowed:
                    continue
                res = run(term)
                if res.op is Ops.CONST or (res.op is Ops.STACK and _is_literal(res)):
                    self._union(EVALUATE_LITERAL, v, self._lower(res))
                    return
        has_stack = self._node_of(v, Ops.STACK) is not None
        for n in nodes:
            if n.op in ALU and n.shape and not has_stack:
                if any(self._node_of(k, Ops.STACK) is not None for k in n.kids):
                    self._push_stack(v, n)
                    has_stack = True
            elif n.op is Ops.INDEX:
                self._index(v, n)

    def _push_stack(self, v: bindings.Value, n: SNode) -> None:
        """f(STACK(a0, a1), b) -> STACK(f(a0, b[0]), f(a1, b[1]))."""
        shape = n.shape
        elem_t = type_string(n.dtype, shape[1:])
        per_kid = []
        for k in n.kids:
            s = self._node_of(k, Ops.STACK)
            if s is not None:
                per_kid.append([self._name(e) for e in s.kids])
            else:
                kd, ks = self._snap.type_of(k)
                kt = type_string(kd, ks[1:])
                base = self._name(k)
                per_kid.append(
                    [
                        self.lowerer.row(Ops.INDEX, kt, (base, self._lower(UOp.const(i))))
                        for i in range(shape[0])
                    ]
                )
        elems = tuple(self.lowerer.row(n.op, elem_t, tuple(p[i] for p in per_kid)) for i in range(shape[0]))
        self._union(EVALUATE_PUSH_STACK, v, self.lowerer.row(Ops.STACK, n.t, elems))

    def _index(self, v: bindings.Value, n: SNode) -> None:
        base, idx = n.kids[0], n.kids[1:]
        if not idx:  # INDEX(x) -> x
            if base != v:
                self._union(EVALUATE_INDEX_EMPTY, v, self._name(base))
            return
        inner = self._node_of(base, Ops.INDEX)
        if inner is not None and len(inner.kids) > 1:  # INDEX(INDEX(a, i...), j...) -> INDEX(a, i..., j...)
            kids = (inner.kids[0], *inner.kids[1:], *idx)
            if self._snap.class_of(Ops.INDEX, n.t, kids) != v:
                self._union(
                    EVALUATE_INDEX_INDEX,
                    v,
                    self.lowerer.row(Ops.INDEX, n.t, tuple(self._name(k) for k in kids)),
                )
        stack = self._node_of(base, Ops.STACK)
        const = self._const_of(idx[0])  # an index is an i32: its constant is an int
        if stack is None or const is None:
            return
        i, size = const.const_value(), len(stack.kids)
        if not 0 <= i < size:
            raise IndexOutOfBoundsError(f"index {i} out of bounds for STACK of {size}")
        elem, rest = stack.kids[i], idx[1:]
        if not rest:
            if elem != v:
                self._union(EVALUATE_INDEX_STACK, v, self._name(elem))
        elif self._snap.class_of(Ops.INDEX, n.t, (elem, *rest)) != v:
            self._union(
                EVALUATE_INDEX_STACK,
                v,
                self.lowerer.row(Ops.INDEX, n.t, tuple(self._name(k) for k in (elem, *rest))),
            )

    def _inline_calls(self) -> None:
        from eqsat_uopc.greedy import inline_call

        calls = self.lowerer.calls
        while self.inlined < len(calls):
            call = calls[self.inlined]
            self.inlined += 1
            self.lowerer.union(self.lowerer.ids[call], self._lower(inline_call(call)))
            self._unions += 1
            self.matches[EVALUATE_INLINE_CALL] = self.matches.get(EVALUATE_INLINE_CALL, 0) + 1


def _is_literal(u: UOp) -> bool:
    stack = [u]
    while stack:
        x = stack.pop()
        if x.op is Ops.CONST:
            continue
        if x.op is not Ops.STACK:
            return False
        stack.extend(x.src)
    return True


@dataclass(frozen=True)
class _Sweep:
    """One family's pass over a snapshot: the e-nodes it looks at, by op in the order visited (each
    with a test of which of them), the handler it runs once per e-class holding one (in the order
    first met), and what it does after (or None)."""

    family: str
    looks_at: dict[Ops, Wanted]
    handler: Callable[[FoldStep, bindings.Value, list[SNode]], None]
    then: Callable[[FoldStep], None] | None = None

    def classes(self, snap: Snapshot) -> list[bindings.Value]:
        """The e-classes to run the handler on, each once, in the order first met."""
        wanted = (v for op, wants in self.looks_at.items() for v, n in snap.nodes_of(op) if wants(n, snap))
        return list(dict.fromkeys(wanted))


# The Python rules, family by family: a rule for another op is an entry in its family's `looks_at`
# (and a case in the handler). Constants are checked for unsound merges before every sweep.
_SWEEPS = (
    _Sweep("fold", {**dict.fromkeys(_ALU_ORDER, _float_related), Ops.CONST: _double}, FoldStep._fold),
    _Sweep("identities", dict.fromkeys((Ops.CMPLT, Ops.CMPNE), _shaped), FoldStep._identities),
    _Sweep(
        "evaluate",
        {**dict.fromkeys(_ALU_ORDER, _shaped), **dict.fromkeys(_STRUCTURAL, _any)},
        FoldStep._evaluate,
        then=FoldStep._inline_calls,
    ),
)
