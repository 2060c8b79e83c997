"""The Python folding step that runs between egglog iterations: rules egglog cannot state exactly.

egglog's f64 is not IEEE f32 and has no sin/exp2/log2, variable-arity terms (STACK, INDEX) are
awkward to rewrite in egglog, and CALL inlining is a substitution that must respect scopes. So
these rules read a Snapshot of the e-graph, compute with the project's own reference code
(`exec_alu`, the greedy `run` and `inline_call`) and add the resulting terms and unions through the
Lowerer. Each rule is idempotent: it skips a class that already holds its result, so a step that
adds nothing means the Python rules are saturated too.

Families (the rules are declared as values in eqsat_uopc.rules.python_rules):
  fold        scalar ALU of constants -> exec_alu's value (every op and dtype, exactly; None from
              exec_alu means "do not fold"); an f32 double constant -> the f32 it denotes.
  identities  CMPLT/CMPNE(x, x) for a shaped int/bool x -> False of x's shape (the chapter's scalar
              False was a defect); scalars and CAST to the operand's own dtype are egglog rules.
  evaluate    any node over fully known data (CONST/STACK literals) -> greedy `run` of that node
              (movement ops, REDUCE, ALU of tensors, INDEX of literals: the same code, so the same
              values and the same IndexError); ALU through STACK; INDEX() -> x; INDEX of INDEX;
              INDEX of STACK at a constant; CALL -> its body with the arguments substituted
              (`inline_call`, which never enters a nested CALL's body).
"""

from __future__ import annotations

from typing import Any

from egglog import bindings

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
from eqsat_uopc.saturation.errors import SaturationError
from eqsat_uopc.saturation.lower import Lowerer
from eqsat_uopc.saturation.serialize import Snapshot, SNode
from eqsat_uopc.saturation.terms import CTOR_OF, parse_type, type_string
from eqsat_uopc.semantics.alu import exec_alu

__all__ = ["FoldStep", "needs_python_step"]

_INT_TYPES = (dtypes.i32, dtypes.bool)
_CONSTS = ("Int", "Bool", "Flt", "Dbl")
_EVAL_OPS = ALU | {Ops.INDEX, Ops.RESHAPE, Ops.EXPAND, Ops.PERMUTE, Ops.SHRINK, Ops.REDUCE, Ops.CALL}
_ALU_CTORS = tuple(CTOR_OF[op] for op in sorted(ALU, key=lambda o: o.value))
_EVAL_CTORS = ("Index", "Call", "Reshape", "Expand", "Permute", "Shrink", "Reduce")
_FOLD_CTORS = (*_ALU_CTORS, "Dbl")


_SCALAR_INT_OPS = frozenset(ALU | {Ops.CONST, Ops.PARAM, Ops.RANGE})


def needs_python_step(nodes: list[UOp]) -> bool:
    """Can the Python step ever fire on an e-graph grown from these nodes? Only with f32 values,
    tensors or the ops it evaluates: rules never make new types, so an i32/bool scalar program
    (index arithmetic, the Caviar corpus) saturates in egglog alone."""
    return any(u.dtype is dtypes.f32 or u.shape or u.op not in _SCALAR_INT_OPS for u in nodes)


def _float_related(n: SNode, types: dict) -> bool:
    """Scalar nodes egglog's own folding cannot do: f32 results, or comparisons/casts of f32 operands."""
    return n.t == "f32" or n.ctor == "Dbl" or (n.ctor in ("Lt", "Ne", "Cast") and types[n.kids[0]] == "f32")


def _semantic(n: SNode) -> Any:
    """A constant's value as the ops see it (an f32 double rounds to f32), for the soundness check."""
    v = n.const_value()
    if n.ctor in ("Flt", "Dbl"):
        return ("f", f32_bits(truncate(dtypes.f32, v)))
    return (type(v).__name__, v)


class FoldStep:
    """One instance per saturation: remembers which CALLs it has inlined."""

    def __init__(self, lowerer: Lowerer, families: frozenset[str] | set[str]):
        self.lowerer = lowerer
        self.fold = EXEC_ALU.family in families
        self.identities = CMP_SELF.family in families
        self.evaluate = LITERAL.family in families
        self.inlined = 0  # lowerer.calls[:inlined] are done
        self.matches: dict[str, int] = {}  # rule name -> unions written (kept across rollbacks: work done)

    @property
    def active(self) -> bool:
        return self.fold or self.identities or self.evaluate

    def checkpoint(self) -> int:
        return self.inlined

    def rollback(self, cp: int) -> None:
        self.inlined = cp

    def __call__(self, snap: Snapshot) -> int:
        """Apply every Python rule once to the snapshot; returns the number of unions written."""
        self._snap = snap
        self._named: dict[bindings.Value, int] = {}
        self._reps: dict[bindings.Value, SNode] | None = None
        self._lits: dict[bindings.Value, UOp | None] = {}
        self._unions = 0
        by_ctor = snap.by_ctor
        multi = {}
        for ctor in _CONSTS:
            for v, _ in by_ctor.get(ctor, ()):
                multi[v] = multi.get(v, 0) + 1
        for v, k in multi.items():
            if k > 1:
                self._check_constants(v, snap.classes[v])
        if self.fold:
            floats = [v for v, n in self._candidates(_FOLD_CTORS) if _float_related(n, snap.types)]
            for v in dict.fromkeys(floats):
                self._fold(v, snap.classes[v])
        if self.identities:
            for v in dict.fromkeys(v for v, n in self._candidates(("Lt", "Ne")) if "[" in n.t):
                self._identities(v, snap.classes[v])
        if self.evaluate:
            cands = [v for v, n in self._candidates(_ALU_CTORS) if "[" in n.t]
            cands += [v for v, _ in self._candidates(_EVAL_CTORS)]
            for v in dict.fromkeys(cands):
                self._evaluate(v, snap.classes[v])
            self._inline_calls()
        return self._unions

    def _candidates(self, ctors: tuple[str, ...]) -> list[tuple[bindings.Value, SNode]]:
        return [vn for c in ctors for vn in self._snap.by_ctor.get(c, ())]

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
        if n.ctor in _CONSTS:
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
            if n.ctor in _CONSTS:
                s = _semantic(n)
                if seen is None:
                    seen = (s, n)
                elif s != seen[0]:
                    raise SaturationError(
                        f"unsound merge: one e-class holds the constants {seen[1].const_value()!r} and "
                        f"{n.const_value()!r}"
                    )

    def _const_of(self, v: bindings.Value) -> SNode | None:
        for n in self._snap.classes[v]:
            if n.ctor in _CONSTS:
                return n
        return None

    def _fold(self, v: bindings.Value, nodes: list[SNode]) -> None:
        c = self._const_of(v)
        if c is not None:
            if c.ctor == "Dbl" and not any(n.ctor == "Flt" for n in nodes):
                self._union(F64_TO_F32.name, v, self.lowerer.const(truncate(dtypes.f32, c.const_value())))
            return
        for n in nodes:
            if "[" in n.t or n.ctor in _CONSTS or n.op not in ALU:
                continue
            kids = [self._const_of(k) for k in n.kids]
            if any(k is None for k in kids):
                continue
            dtype = parse_type(n.t)[0]
            r = exec_alu(n.op, dtype, [k.const_value() for k in kids])
            if r is not None:
                self._union(EXEC_ALU.name, v, self._lower(UOp(Ops.CONST, (), r)))
                return

    # -- identities that need the operands' types
    def _identities(self, v: bindings.Value, nodes: list[SNode]) -> None:
        types = self._snap.types
        for n in nodes:
            if n.ctor in ("Lt", "Ne") and n.kids[0] == n.kids[1]:  # x < x, x != x -> False (int/bool)
                dtype, shape = parse_type(types[n.kids[0]])
                if shape and dtype in _INT_TYPES and self._const_of(v) is None:
                    false = UOp.const(False, dtypes.bool, shape)
                    if self._lowered_class(false) != v:
                        self._union(CMP_SELF.name, v, self._lower(false))

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
            if n.ctor in _CONSTS:
                out = UOp(Ops.CONST, (), n.const_value())
                break
        if out is None:
            for n in self._snap.classes[v]:
                if n.ctor == "Stack":
                    elems = [self._literal(k) for k in n.kids]
                    if all(e is not None for e in elems):
                        out = UOp(Ops.STACK, tuple(elems))
                        break
        self._lits[v] = out
        return out

    def _node_of(self, v: bindings.Value, ctor: str) -> SNode | None:
        for n in self._snap.classes[v]:
            if n.ctor == ctor:
                return n
        return None

    def _evaluate(self, v: bindings.Value, nodes: list[SNode]) -> None:
        from eqsat_uopc.greedy import run  # the greedy engine is the reference evaluator

        if self._literal(v) is None:
            for n in nodes:
                if not n.kids or n.op not in _EVAL_OPS:
                    continue
                lits = [self._literal(k) for k in n.kids]
                if any(x is None for x in lits):
                    continue
                arg = (
                    parse_type(n.t)[0]
                    if n.op is Ops.CAST
                    else (None if n.prim is None else self.lowerer.args[n.prim])
                )
                res = run(UOp(n.op, tuple(lits), arg))
                if res.op is Ops.CONST or (res.op is Ops.STACK and _is_literal(res)):
                    self._union(LITERAL.name, v, self._lower(res))
                    return
        has_stack = self._node_of(v, "Stack") is not None
        for n in nodes:
            if n.op in ALU and "[" in n.t and not has_stack:
                if any(self._node_of(k, "Stack") is not None for k in n.kids):
                    self._push_stack(v, n)
                    has_stack = True
            elif n.ctor == "Index":
                self._index(v, n)

    def _push_stack(self, v: bindings.Value, n: SNode) -> None:
        """f(STACK(a0, a1), b) -> STACK(f(a0, b[0]), f(a1, b[1]))."""
        dtype, shape = parse_type(n.t)
        elem_t = type_string(dtype, shape[1:])
        per_kid = []
        for k in n.kids:
            s = self._node_of(k, "Stack")
            if s is not None:
                per_kid.append([self._name(e) for e in s.kids])
            else:
                kd, ks = parse_type(self._snap.types[k])
                kt = type_string(kd, ks[1:])
                base = self._name(k)
                per_kid.append(
                    [
                        self.lowerer.row(Ops.INDEX, kt, (base, self._lower(UOp.const(i))))
                        for i in range(shape[0])
                    ]
                )
        elems = tuple(self.lowerer.row(n.op, elem_t, tuple(p[i] for p in per_kid)) for i in range(shape[0]))
        self._union(PUSH_STACK.name, v, self.lowerer.row(Ops.STACK, n.t, elems))

    def _index(self, v: bindings.Value, n: SNode) -> None:
        base, idx = n.kids[0], n.kids[1:]
        if not idx:  # INDEX(x) -> x
            if base != v:
                self._union(INDEX_EMPTY.name, v, self._name(base))
            return
        inner = self._node_of(base, "Index")
        if inner is not None and len(inner.kids) > 1:  # INDEX(INDEX(a, i...), j...) -> INDEX(a, i..., j...)
            kids = (inner.kids[0], *inner.kids[1:], *idx)
            if self._snap.index.get(("Index", n.t, None, kids)) != v:
                self._union(
                    INDEX_INDEX.name,
                    v,
                    self.lowerer.row(Ops.INDEX, n.t, tuple(self._name(k) for k in kids)),
                )
        stack = self._node_of(base, "Stack")
        const = self._node_of(idx[0], "Int")
        if stack is None or const is None:
            return
        i, size = const.prim, len(stack.kids)
        if not 0 <= i < size:
            raise IndexError(f"index {i} out of bounds for STACK of {size}")
        elem, rest = stack.kids[i], idx[1:]
        if not rest:
            if elem != v:
                self._union(INDEX_STACK.name, v, self._name(elem))
        elif self._snap.index.get(("Index", n.t, None, (elem, *rest))) != v:
            self._union(
                INDEX_STACK.name,
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
            self.matches[INLINE_CALL.name] = self.matches.get(INLINE_CALL.name, 0) + 1


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
