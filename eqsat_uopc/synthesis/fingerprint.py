"""Fingerprints: a term's values on a fixed table of inputs (Ruler's "characteristic vectors").

`make_inputs(grammar, seed)` draws one table of rows, each a value for every variable:

- *generic* rows: small values (|x| <= 40, constants in [-9, 9] and never 0), where no term of the
  sizes enumerated overflows and sums of variables are rarely 0. They give the hash key;
- *edge* rows: int32 edge values (-2^31, 2^31 - 1, -1, 0, 1, 2^30, ...) mixed with small ones,
  where overflow, wraparound, division by zero and INT_MIN // -1 show. They filter candidates.

Both kinds are also drawn *inside* every side condition of the grammar (`0 <= x < c`, `c2 | c1`,
...), so that every condition has generic rows for a key and edge rows for a check.

`Vec` is a term's column: int64 values (i32 results wrapped, bools 0/1) and a `defined` mask.
Values agree with `exec_alu` bit for bit wherever it is defined (tests compare every op on every
row). Undefined: where exec_alu refuses (division by zero, INT_MIN // -1), and under
`int_semantics="no_overflow"` where an i32 ADD or MUL leaves the int32 range; undefinedness
propagates to users except through the branch a WHERE does not select (as in semantics.interpret).
An undefined slot is a "don't care": two columns are compatible where both are defined.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from eqsat_uopc.ir.dtype import I32_MAX, I32_MIN
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.synthesis.grammar import Condition, Grammar

__all__ = ["EDGES", "Inputs", "Vec", "apply_op", "compatible", "make_inputs", "refines"]


EDGES = (I32_MIN, I32_MIN + 1, -(2**30), -7, -2, -1, 0, 1, 2, 3, 7, 2**30, I32_MAX - 1, I32_MAX)
_UNDEFINED = np.int64(2**40)  # stands for an undefined slot in a hash key (no int32 value)


@dataclass
class Vec:
    """A term's values on the input rows: `values` (int64) and where they are `defined`."""

    values: np.ndarray
    defined: np.ndarray

    def key(self, rows: np.ndarray) -> bytes:
        """The hash key on the given row indices (undefined slots are a value of their own)."""
        return np.where(self.defined[rows], self.values[rows], _UNDEFINED).tobytes()


@dataclass
class Inputs:
    """The fingerprint table: values per variable, which rows are generic, and condition masks."""

    rows: dict[str, np.ndarray]
    generic: np.ndarray  # bool per row
    size: int

    def leaf(self, name: str) -> Vec:
        return Vec(self.rows[name], np.ones(self.size, dtype=bool))

    def constant(self, value: int) -> Vec:
        return Vec(np.full(self.size, int(value), dtype=np.int64), np.ones(self.size, dtype=bool))

    def mask(self, condition: Condition | None) -> np.ndarray:
        return np.ones(self.size, dtype=bool) if condition is None else condition.mask(self.rows)


def _draw(rng: random.Random, g: Grammar, edge: bool, condition: Condition | None) -> dict[str, int]:
    """One row: edge-biased or generic values, then adjusted so that `condition` holds."""

    def term_value() -> int:  # generic values are never 0: x // x is then 1 on every generic row
        if edge and rng.random() < 0.7:
            return rng.choice(EDGES)
        return rng.choice([v for v in range(-40, 41) if v != 0])

    def const_value() -> int:
        if edge and rng.random() < 0.6:
            return rng.choice(EDGES)
        return rng.choice([v for v in range(-9, 10) if v != 0])

    row = {x: term_value() for x in g.variables}
    row.update({b: rng.randint(0, 1) for b in g.bool_variables})
    row.update({c: const_value() for c in g.constant_variables})
    if condition is None:
        return row
    v = condition.variables
    if condition.kind in ("nonzero", "positive"):
        row[v[0]] = abs(row[v[0]]) if row[v[0]] not in (0, I32_MIN) else (I32_MAX if edge else 3)
    elif condition.kind == "negative":
        row[v[0]] = -abs(row[v[0]]) if row[v[0]] != 0 else -1
    elif condition.kind in ("le", "lt"):
        a, b = sorted((row[v[0]], row[v[1]]))
        if condition.kind == "lt" and a == b:
            a, b = (a - 1, b) if a > I32_MIN else (a, b + 1)
        row[v[0]], row[v[1]] = a, b
    elif condition.kind == "divides":
        b = abs(row[v[1]]) if row[v[1]] not in (0, I32_MIN) else 4
        if edge and rng.random() < 0.5:
            b = rng.choice((1, 2, 2**15, 2**30, I32_MAX))
        elif not edge:
            b = rng.randint(1, 9)
        k_max = I32_MAX // b
        k = rng.choice((0, 1, -1, 2, k_max, -k_max)) if edge else rng.randint(-6, 6)
        k = max(-k_max, min(k_max, k))  # b * k stays an int32
        row[v[1]], row[v[0]] = b, b * k
    elif condition.kind == "nonneg":
        row[v[0]] = abs(row[v[0]]) if row[v[0]] != I32_MIN else I32_MAX
    elif condition.kind == "below":
        c = abs(row[v[1]]) if row[v[1]] not in (0, I32_MIN) else 5
        if not edge:
            c = rng.randint(1, 12)
        row[v[1]] = c
        row[v[0]] = rng.choice((0, c - 1, c // 2)) if edge else rng.randint(min(1, c - 1), c - 1)
    return row


def make_inputs(grammar: Grammar, seed: int = 0, generic: int = 24, edge: int = 192) -> Inputs:
    """The fingerprint table of a grammar: `generic` + `edge` rows, and as many again per condition
    (a quarter as many per condition: enough for its own key and check). Deterministic in seed."""
    rng = random.Random(f"synthesis-inputs:{seed}")
    drawn: list[tuple[dict[str, int], bool]] = []
    for cond in (None, *grammar.condition_catalog()):
        n_generic, n_edge = (generic, edge) if cond is None else (max(8, generic // 2), max(16, edge // 4))
        drawn += [(_draw(rng, grammar, False, cond), True) for _ in range(n_generic)]
        drawn += [(_draw(rng, grammar, True, cond), False) for _ in range(n_edge)]
    # every pair of edge values for the first term variable and the first constant variable
    x = grammar.variables[0] if grammar.variables else None
    c = grammar.constant_variables[0] if grammar.constant_variables else None
    if x is not None:
        for a in EDGES:
            for b in EDGES if c is not None else (0,):
                row = _draw(rng, grammar, True, None)
                row[x] = a
                if c is not None:
                    row[c] = b
                drawn.append((row, False))
    names = [*grammar.variables, *grammar.bool_variables, *grammar.constant_variables]
    rows = {n: np.array([r[n] for r, _ in drawn], dtype=np.int64) for n in names}
    return Inputs(rows, np.array([g for _, g in drawn], dtype=bool), len(drawn))


def _wrap(r: np.ndarray) -> np.ndarray:
    return ((r + 2**31) & (2**32 - 1)) - 2**31


def apply_op(op: Ops, operands: list[Vec], operand_is_bool: bool, int_semantics: str) -> Vec:
    """The column of op applied to operand columns, as exec_alu computes it, with definedness."""
    if op is Ops.WHERE:
        c, a, b = operands
        cond = c.values != 0
        return Vec(np.where(cond, a.values, b.values), c.defined & np.where(cond, a.defined, b.defined))
    a, b = operands
    va, vb = a.values, b.values
    defined = a.defined & b.defined
    if operand_is_bool:
        x, y = va != 0, vb != 0
        table = {
            Ops.ADD: x | y,
            Ops.MUL: x & y,
            Ops.MAX: x | y,
            Ops.CMPLT: ~x & y,
            Ops.CMPNE: x ^ y,
        }
        return Vec(table[op].astype(np.int64), defined)
    if op is Ops.ADD or op is Ops.MUL:
        r = va + vb if op is Ops.ADD else va * vb  # exact in int64: |operands| <= 2^31
        if int_semantics == "no_overflow":
            defined = defined & (r >= I32_MIN) & (r <= I32_MAX)
        return Vec(_wrap(r), defined)
    if op is Ops.MAX:
        return Vec(np.maximum(va, vb), defined)
    if op is Ops.CMPLT:
        return Vec((va < vb).astype(np.int64), defined)
    if op is Ops.CMPNE:
        return Vec((va != vb).astype(np.int64), defined)
    safe_b = np.where(vb == 0, 1, vb)
    if op is Ops.FLOORDIV:
        bad = (vb == 0) | ((va == I32_MIN) & (vb == -1))
        return Vec(_wrap(np.floor_divide(va, safe_b)), defined & ~bad)
    if op is Ops.FLOORMOD:
        return Vec(np.mod(va, safe_b), defined & (vb != 0))
    raise ValueError(f"apply_op: {op.name} is not a synthesized op")


def compatible(a: Vec, b: Vec, mask: np.ndarray) -> bool:
    """Do a and b agree on every row of mask where both are defined?"""
    both = mask & a.defined & b.defined
    return bool(np.array_equal(a.values[both], b.values[both]))


def refines(lhs: Vec, rhs: Vec, mask: np.ndarray) -> bool:
    """Is rhs defined and equal to lhs on every row of mask where lhs is defined?"""
    m = mask & lhs.defined
    return bool(np.all(rhs.defined[m]) and np.array_equal(lhs.values[m], rhs.values[m]))


def generic_rows(inputs: Inputs, mask: np.ndarray) -> np.ndarray:
    """Indices of the generic rows inside mask: the key of a condition."""
    return np.flatnonzero(inputs.generic & mask)


def describe_inputs(inputs: Inputs) -> Mapping[str, int]:
    return {"rows": inputs.size, "generic": int(inputs.generic.sum())}
