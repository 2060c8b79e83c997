"""Enumeration by size with one representative per fingerprint class, and candidate equalities.

Terms of size k (nodes of the tree) are built from the *representatives* of smaller sizes only, as
Ruler does: a term whose fingerprint matches an earlier representative's is a candidate equality
with it and is not kept, so the work grows with the number of distinct behaviours, not of terms.

Matching: the hash key is a term's values on the generic rows (fingerprint.py); inside one key,
the first representative whose full column is compatible (equal wherever both are defined, on the
edge rows too) is the match. A term that matches no representative unconditionally is looked up
again under each side condition whose variables it uses, weakest first: the key is then its values
on the generic rows inside the condition, the check its values on every row inside it. A match
there is a *conditional* candidate (the equality holds where the condition does).

Pruned: terms without a term variable (constant folding covers them), terms undefined on every
generic row (x // 0), the mirror image of a commutative op's operands.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from eqsat_uopc.ir.dtype import dtypes
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.synthesis.fingerprint import Inputs, Vec, apply_op, compatible, generic_rows
from eqsat_uopc.synthesis.grammar import COMMUTATIVE, Condition, Grammar

__all__ = ["Candidate", "Enumerator", "Term"]

_COMPARISONS = (Ops.CMPLT, Ops.CMPNE)


@dataclass(eq=False)
class Term:
    """One enumerated term: its UOp, tree size, fingerprint column and the variables it uses."""

    uop: UOp
    size: int
    vec: Vec
    variables: frozenset[str]
    index: int  # enumeration order (deterministic)


@dataclass(frozen=True)
class Candidate:
    """Two terms that agree on every input row (inside `condition`, if there is one)."""

    a: Term = field(compare=False)
    b: Term = field(compare=False)
    condition: Condition | None


class _Classes:
    """Representatives bucketed by hash key, for one row set (everything, or one condition)."""

    def __init__(self, inputs: Inputs, condition: Condition | None) -> None:
        self.condition = condition
        self.mask = inputs.mask(condition)
        self.key_rows = generic_rows(inputs, self.mask)
        self.buckets: dict[tuple[bool, bytes], list[Term]] = {}

    def key(self, t: Term) -> tuple[bool, bytes]:
        return (t.uop.dtype is dtypes.bool, t.vec.key(self.key_rows))

    def match(self, t: Term) -> Term | None:
        for rep in self.buckets.get(self.key(t), ()):
            if compatible(t.vec, rep.vec, self.mask):
                return rep
        return None

    def add(self, t: Term) -> None:
        self.buckets.setdefault(self.key(t), []).append(t)


class Enumerator:
    """Enumerate a grammar's terms by size; yield candidates as they are found.

    `representatives[dtype][size]` holds the kept terms. `stop()` (checked once per term) ends the
    enumeration early: a candidate budget or a time limit.
    """

    def __init__(self, grammar: Grammar, inputs: Inputs, int_semantics: str = "wrap") -> None:
        self.grammar = grammar
        self.inputs = inputs
        self.int_semantics = int_semantics
        self.representatives: dict[bool, dict[int, list[Term]]] = {False: {}, True: {}}
        self.terms_seen = 0
        self.stopped = False  # run() ended early: stop() said so
        self._count = 0
        self._classes = _Classes(inputs, None)
        self._conditional = [
            c
            for c in (_Classes(inputs, cond) for cond in grammar.condition_catalog())
            if len(c.key_rows) >= 4
        ]
        self._names = grammar.names()

    # -- leaves and terms
    def _leaf_term(self, leaf: UOp) -> Term:
        if leaf.op is Ops.PARAM:
            name = self._names[leaf.arg.slot]
            vec, variables = self.inputs.leaf(name), frozenset({name})
        else:
            vec, variables = self.inputs.constant(int(leaf.arg)), frozenset()
        return self._new(leaf, 1, vec, variables)

    def _new(self, uop: UOp, size: int, vec: Vec, variables: frozenset[str]) -> Term:
        self._count += 1
        return Term(uop, size, vec, variables, self._count)

    def _has_term_variable(self, variables: frozenset[str]) -> bool:
        return any(v in self.grammar.variables or v in self.grammar.bool_variables for v in variables)

    def run(self, stop: Callable[[], bool] = lambda: False) -> Iterator[Candidate]:
        for leaf in self.grammar.leaves():  # distinct by construction: every leaf is a representative
            self._keep(self._leaf_term(leaf), leaf.dtype is dtypes.bool)
        for size in range(2, self.grammar.max_size + 1):
            for op in self.grammar.ops:
                for t, is_bool in self._terms(op, size):
                    self.terms_seen += 1
                    yield from self._consider(t, is_bool)
                    if stop():
                        self.stopped = True
                        return

    def _consider(self, t: Term, is_bool: bool) -> Iterator[Candidate]:
        rep = self._classes.match(t)
        if rep is not None:
            yield Candidate(t, rep, None)
            return
        for classes in self._conditional:
            if not set(classes.condition.variables) <= t.variables:
                continue
            rep = classes.match(t)
            if rep is not None:
                yield Candidate(t, rep, classes.condition)
                break
        self._keep(t, is_bool)

    def _keep(self, t: Term, is_bool: bool) -> None:
        self.representatives[is_bool].setdefault(t.size, []).append(t)
        self._classes.add(t)
        for classes in self._conditional:
            classes.add(t)

    def _reps(self, is_bool: bool, size: int) -> list[Term]:
        return self.representatives[is_bool].get(size, [])

    def _terms(self, op: Ops, size: int) -> Iterator[tuple[Term, bool]]:
        """The terms op(children) of exactly `size` nodes, over smaller representatives."""
        if op is Ops.WHERE:
            for sc in range(1, size - 2):
                for sa in range(1, size - 1 - sc):
                    sb = size - 1 - sc - sa
                    for c in self._reps(True, sc):
                        for result_bool in (False, True):
                            for a in self._reps(result_bool, sa):
                                for b in self._reps(result_bool, sb):
                                    if a is b:
                                        continue
                                    yield from self._build(op, (c, a, b), result_bool, False)
            return
        operand_types = (False, True) if op in (Ops.ADD, Ops.MUL, Ops.MAX, *_COMPARISONS) else (False,)
        for operand_bool in operand_types:
            if operand_bool and not self.grammar.bool_variables:
                continue
            result_bool = operand_bool or op in _COMPARISONS
            for sa in range(1, size - 1):
                sb = size - 1 - sa
                if op in COMMUTATIVE and sa > sb:
                    continue
                for a in self._reps(operand_bool, sa):
                    for b in self._reps(operand_bool, sb):
                        if op in COMMUTATIVE and sa == sb and b.index < a.index:
                            continue
                        yield from self._build(op, (a, b), result_bool, operand_bool)

    def _build(
        self, op: Ops, kids: tuple[Term, ...], result_bool: bool, operand_bool: bool
    ) -> Iterator[tuple[Term, bool]]:
        variables = frozenset().union(*(k.variables for k in kids))
        if not self._has_term_variable(variables):
            return
        vec = apply_op(op, [k.vec for k in kids], operand_bool, self.int_semantics)
        if not vec.defined[self.inputs.generic].any():
            return
        size = 1 + sum(k.size for k in kids)
        uop = UOp(op, tuple(k.uop for k in kids))
        yield self._new(uop, size, vec, variables), result_bool
