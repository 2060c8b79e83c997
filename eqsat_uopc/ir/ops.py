"""The operations of the IR, and the groups of them that rules and passes talk about."""

from __future__ import annotations

from enum import Enum, auto

__all__ = ["ALU", "BINARY", "COMMUTATIVE", "MOVEMENT", "REDUCE_OPS", "TRANSCENDENTAL", "UNARY", "Ops"]


class Ops(Enum):
    # declaration order is the chapter's (it shows up in by_op listings)
    CONST = auto()
    PARAM = auto()
    RANGE = auto()
    STACK = auto()
    CALL = auto()
    INDEX = auto()
    CAST = auto()
    RECIP = auto()
    ADD = auto()
    MUL = auto()
    CMPLT = auto()
    FLOORDIV = auto()
    FLOORMOD = auto()
    WHERE = auto()
    CMPNE = auto()
    MAX = auto()
    EXP2 = auto()
    LOG2 = auto()
    SQRT = auto()
    SIN = auto()
    RESHAPE = auto()
    EXPAND = auto()
    PERMUTE = auto()
    SHRINK = auto()
    REDUCE = auto()

    def __repr__(self) -> str:
        return f"Ops.{self.name}"

    # Members are singletons: identity hashing is exact, and C-level, where Enum's default hashes
    # the name in Python. Every UOp construction hashes its op, so this is on the hottest path.
    __hash__ = object.__hash__


BINARY = frozenset({Ops.ADD, Ops.MUL, Ops.MAX, Ops.CMPLT, Ops.CMPNE, Ops.FLOORDIV, Ops.FLOORMOD})
TRANSCENDENTAL = frozenset({Ops.RECIP, Ops.EXP2, Ops.LOG2, Ops.SQRT, Ops.SIN})
UNARY = TRANSCENDENTAL | {Ops.CAST}
ALU = BINARY | UNARY | {Ops.WHERE}
COMMUTATIVE = frozenset({Ops.ADD, Ops.MUL, Ops.MAX, Ops.CMPNE})
MOVEMENT = frozenset({Ops.RESHAPE, Ops.EXPAND, Ops.PERMUTE, Ops.SHRINK})
REDUCE_OPS = frozenset({Ops.ADD, Ops.MUL, Ops.MAX})
