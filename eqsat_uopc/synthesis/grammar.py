"""The search language of rule synthesis: which terms are enumerated, and which side conditions.

A `Grammar` names the IR ops to combine, the variables and constants at the leaves, and a size
limit. Leaves are UOps, so every enumerated term is an ordinary hash-consed UOp of the IR:

- a *term variable* (`x`, `y`, `z`: i32; `b`: bool) is a PARAM; in a rule it matches any e-class;
- a *constant variable* (`c1`, `c2`) is a PARAM too, but in a rule it matches only an integer
  literal `(Int c1)`, so that conditions can be asked of its value in egglog's query;
- a *constant* (`0`, `1`, `-1`, `2`) is a CONST.

A `Condition` is a side condition under which a candidate equality may hold although it does not
hold everywhere: a question on constant variables (`c > 0`, `c != 0`, `c2 | c1`) or on the interval
analysis of a term variable's e-class (`0 <= x`, `0 <= x < c`), the two kinds of guards the
hand-written rules use. Each knows its mask on the fingerprint inputs, its egglog query atoms, and
a concrete instance (values for the constants, a RANGE for a bounded variable) used to check
whether saturation derives a rule.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from eqsat_uopc.ir.dtype import dtypes
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.synthesis.errors import SynthesisError

__all__ = ["COMMUTATIVE", "OP_NAMES", "Condition", "Grammar", "default_constant_values", "parse_ops"]

# command-line op names -> IR ops (both the IR's names and short ones)
OP_NAMES: dict[str, Ops] = {
    "add": Ops.ADD,
    "mul": Ops.MUL,
    "max": Ops.MAX,
    "lt": Ops.CMPLT,
    "cmplt": Ops.CMPLT,
    "ne": Ops.CMPNE,
    "cmpne": Ops.CMPNE,
    "floordiv": Ops.FLOORDIV,
    "div": Ops.FLOORDIV,
    "floormod": Ops.FLOORMOD,
    "mod": Ops.FLOORMOD,
    "where": Ops.WHERE,
}
COMMUTATIVE = frozenset({Ops.ADD, Ops.MUL, Ops.MAX, Ops.CMPNE})
_CONST_SLOT0 = 16  # constant variables take PARAM slots from here on


def parse_ops(text: str) -> tuple[Ops, ...]:
    """`"add,mul,max,lt"` -> the ops, in a canonical order (SynthesisError naming an unknown op)."""
    out = []
    for name in (t.strip().lower() for t in text.split(",") if t.strip()):
        if name not in OP_NAMES:
            raise SynthesisError(f"unknown op {name!r} in --ops (known: {', '.join(OP_NAMES)})")
        out.append(OP_NAMES[name])
    if not out:
        raise SynthesisError("--ops names no op")
    return tuple(sorted(set(out), key=lambda op: op.value))


@dataclass(frozen=True)
class Grammar:
    """What the enumerator combines: ops, leaves and the largest term size (nodes of the tree)."""

    ops: tuple[Ops, ...]
    max_size: int = 5
    variables: tuple[str, ...] = ("x", "y", "z")
    bool_variables: tuple[str, ...] = ()
    constant_variables: tuple[str, ...] = ("c1", "c2")
    constants: tuple[int, ...] = (-1, 0, 1, 2)
    conditions: bool = True  # enumerate conditional candidates too

    def __post_init__(self) -> None:
        allowed = set(OP_NAMES.values())
        bad = [op for op in self.ops if op not in allowed]
        if bad:
            raise SynthesisError(
                f"grammar: ops {[op.name for op in bad]} are not synthesized (only {sorted(OP_NAMES)})"
            )
        if self.max_size < 1:
            raise SynthesisError(f"grammar: max_size must be >= 1, got {self.max_size}")
        names = [*self.variables, *self.bool_variables, *self.constant_variables]
        if len(set(names)) != len(names):
            raise SynthesisError(f"grammar: variable names must differ, got {names}")
        if not self.variables and not self.bool_variables:
            raise SynthesisError("grammar: at least one term variable is needed")

    # -- leaves
    def leaves(self) -> list[UOp]:
        """Every leaf: term variables, constant variables, then constants."""
        out = [UOp.param(k, dtypes.i32) for k in range(len(self.variables))]
        n = len(self.variables)
        out += [UOp.param(n + k, dtypes.bool) for k in range(len(self.bool_variables))]
        out += [UOp.param(_CONST_SLOT0 + k, dtypes.i32) for k in range(len(self.constant_variables))]
        out += [UOp.const(c, dtypes.i32) for c in self.constants]
        if self.bool_variables or {Ops.WHERE, Ops.CMPLT, Ops.CMPNE} & set(self.ops):
            out += [UOp.const(True, dtypes.bool), UOp.const(False, dtypes.bool)]
        return out

    def names(self) -> dict[int, str]:
        """PARAM slot -> variable name."""
        out = {k: v for k, v in enumerate(self.variables)}
        n = len(self.variables)
        out.update({n + k: v for k, v in enumerate(self.bool_variables)})
        out.update({_CONST_SLOT0 + k: v for k, v in enumerate(self.constant_variables)})
        return out

    def is_constant_variable(self, leaf: UOp) -> bool:
        return leaf.op is Ops.PARAM and leaf.arg.slot >= _CONST_SLOT0

    def param(self, name: str) -> UOp:
        """The PARAM of a variable, by name."""
        for slot, n in self.names().items():
            if n == name:
                dtype = dtypes.bool if name in self.bool_variables else dtypes.i32
                return UOp.param(slot, dtype)
        raise KeyError(f"grammar has no variable {name!r}")

    def condition_catalog(self) -> list[Condition]:
        """Every side condition over this grammar's variables, weakest (true most often) first."""
        cs, xs = self.constant_variables, self.variables
        if not self.conditions:
            return []
        out = [Condition("nonzero", (c,)) for c in cs]
        out += [Condition("nonneg", (x,)) for x in xs]
        out += [Condition("positive", (c,)) for c in cs]
        out += [Condition("negative", (c,)) for c in cs]
        out += [Condition("le", (a, b)) for a in cs for b in cs if a != b]
        out += [Condition("lt", (a, b)) for a in cs for b in cs if a != b]
        out += [Condition("divides", (a, b)) for a in cs for b in cs if a != b]
        out += [Condition("below", (x, c)) for x in xs for c in cs]
        return out

    def describe(self) -> str:
        ops = ",".join(op.name.lower() for op in self.ops)
        leaves = [*self.variables, *self.bool_variables, *self.constant_variables, *map(str, self.constants)]
        return f"ops {ops}; leaves {' '.join(leaves)}; size <= {self.max_size}"


_KINDS = ("nonzero", "nonneg", "positive", "negative", "le", "lt", "divides", "below")


@dataclass(frozen=True)
class Condition:
    """A side condition: kind and the variables it is about.

    nonzero (c): c != 0          positive (c): c > 0          negative (c): c < 0
    le (a, b): a <= b            lt (a, b): a < b
    divides (a, b): b > 0 and b divides a                      (a, b constant variables)
    nonneg (x): 0 <= x           below (x, c): 0 <= x < c     (x a term variable: its interval)
    """

    kind: str
    variables: tuple[str, ...]

    def __post_init__(self) -> None:
        if self.kind not in _KINDS:
            raise ValueError(f"unknown condition kind {self.kind!r} (known: {', '.join(_KINDS)})")

    def __str__(self) -> str:
        v = self.variables
        return {
            "nonzero": lambda: f"{v[0]} != 0",
            "positive": lambda: f"{v[0]} > 0",
            "negative": lambda: f"{v[0]} < 0",
            "le": lambda: f"{v[0]} <= {v[1]}",
            "lt": lambda: f"{v[0]} < {v[1]}",
            "divides": lambda: f"{v[1]} > 0 and {v[1]} divides {v[0]}",
            "nonneg": lambda: f"0 <= {v[0]}",
            "below": lambda: f"0 <= {v[0]} < {v[1]}",
        }[self.kind]()

    def mask(self, rows: Mapping[str, np.ndarray]) -> np.ndarray:
        """Where the condition holds on the fingerprint inputs."""
        v = [rows[n] for n in self.variables]
        if self.kind == "nonzero":
            return v[0] != 0
        if self.kind == "positive":
            return v[0] > 0
        if self.kind == "negative":
            return v[0] < 0
        if self.kind == "le":
            return v[0] <= v[1]
        if self.kind == "lt":
            return v[0] < v[1]
        if self.kind == "divides":
            b = np.where(v[1] > 0, v[1], 1)
            return (v[1] > 0) & (np.mod(v[0], b) == 0)
        if self.kind == "nonneg":
            return v[0] >= 0
        return (v[0] >= 0) & (v[0] < v[1])  # below

    def egg_atoms(self) -> list[str]:
        """The condition as egglog query atoms (constant variables are bound by `(Int c)` patterns)."""
        v = self.variables
        if self.kind == "nonzero":
            return [f"(!= {v[0]} 0)"]
        if self.kind == "positive":
            return [f"(> {v[0]} 0)"]
        if self.kind == "negative":
            return [f"(< {v[0]} 0)"]
        if self.kind in ("le", "lt"):
            return [f"({'<=' if self.kind == 'le' else '<'} {v[0]} {v[1]})"]
        if self.kind == "divides":
            return [f"(> {v[1]} 0)", f"(= 0 (% {v[0]} {v[1]}))"]
        if self.kind == "nonneg":
            return [f"(= lo_{v[0]} (lo {v[0]}))", f"(>= lo_{v[0]} 0)"]
        return [
            f"(= lo_{v[0]} (lo {v[0]}))",
            f"(= hi_{v[0]} (hi {v[0]}))",
            f"(>= lo_{v[0]} 0)",
            f"(< hi_{v[0]} {v[1]})",
        ]

    def constant_values(self) -> dict[str, int]:
        """Values of its constant variables in the instance a derivability check uses."""
        v = self.variables
        if self.kind == "negative":
            return {v[0]: -4}
        if self.kind in ("le", "lt"):
            return {v[0]: 3, v[1]: 5}
        if self.kind == "divides":
            return {v[0]: 12, v[1]: 4}
        if self.kind == "below":
            return {v[1]: 4}
        if self.kind in ("nonzero", "positive"):
            return {v[0]: 4}
        return {}

    def bounded_variables(self, constants: Mapping[str, int]) -> dict[str, int]:
        """Term variable -> the RANGE extent standing for it in an instance (0 <= x < extent)."""
        if self.kind == "nonneg":
            return {self.variables[0]: 2**31 - 1}
        if self.kind == "below":
            return {self.variables[0]: constants[self.variables[1]]}
        return {}


def default_constant_values(names: Sequence[str]) -> dict[str, int]:
    """Instance values of constant variables no condition constrains (distinct, not 0 or 1)."""
    pool = (3, 5, 7, 11, 13)
    return {n: pool[k % len(pool)] for k, n in enumerate(names)}
