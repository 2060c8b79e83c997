"""The e-graph as extractors see it: e-classes of UOp-level e-nodes, nothing egglog-specific.

The saturation layer serializes egglog's e-graph into this form (dropping the helper sorts that
carry dtypes, shapes and intervals); extractors, cost models and their tests work on it alone, so
an extractor can be tested on hand-built and random e-graphs without egglog.

An ENode is one UOp operator (op and arg as in UOp) over child e-classes, in UOp source order.
Choosing one e-node per needed e-class and building bottom-up gives a hash-consed UOp program.

ENode equality follows UOp's hash consing, not Python's numeric tower: CONST 0, 0.0, -0.0 and
False are four different e-nodes, and a NaN constant equals itself. `EGraph.validate` checks the
structural promises extractors rely on (see its docstring); `to_json`/`from_json` give a
lossless text form (meta is not serialized), and `EGraph.from_programs` the trivial e-graph of
UOp programs (one e-class per node), which is how `cost_of` and the tests reuse the extractors'
machinery on plain programs.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from eqsat_uopc.errors import UserError
from eqsat_uopc.ir.dtype import DType, dtypes
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import ParamArg, UOp, arg_key

__all__ = ["ClassId", "EClass", "EGraph", "EGraphError", "ENode", "arg_key"]

ClassId = str


class EGraphError(UserError, ValueError):
    """A malformed e-graph or e-graph text: the message names the e-class, e-node or field."""


class ENode:
    """One operator over child e-classes; equal when op, arg (by UOp's rules) and children are.

    Immutable; its key (op, arg_key(arg), children) is computed once, since e-graphs of a million
    e-nodes hash every one of them several times (validation, indexing, lookups)."""

    __slots__ = ("_hash", "arg", "children", "key", "op")

    def __init__(self, op: Ops, arg: Any, children: tuple[ClassId, ...]) -> None:
        key = (op, arg_key(arg), children)
        _set_op(self, op)  # the slots' own setters: __setattr__ refuses, and object's is slower
        _set_arg(self, arg)
        _set_children(self, children)
        _set_key(self, key)
        _set_hash(self, hash(key))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"ENode is immutable (cannot set {name})")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ENode) and self._hash == other._hash and self.key == other.key

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self) -> tuple:
        return (ENode, (self.op, self.arg, self.children))

    def __repr__(self) -> str:
        kids = ", ".join(self.children)
        arg = "" if self.arg is None else f"[{self.arg!r}]"
        return f"{self.op.name}{arg}({kids})"


_set_op, _set_arg, _set_children, _set_key, _set_hash = (
    ENode.__dict__[name].__set__ for name in ("op", "arg", "children", "key", "_hash")
)


@dataclass(frozen=True, init=False)
class EClass:
    id: ClassId
    nodes: tuple[ENode, ...]
    dtype: DType
    shape: tuple[int, ...]

    def __init__(self, id: ClassId, nodes: tuple[ENode, ...], dtype: DType, shape: tuple[int, ...]) -> None:
        # the fields written straight into the instance's dict: a frozen dataclass's own __init__
        # sets each through object.__setattr__, twice as slow, and read-back builds one per e-class
        d = self.__dict__
        d["id"], d["nodes"], d["dtype"], d["shape"] = id, nodes, dtype, shape


@dataclass
class EGraph:
    classes: dict[ClassId, EClass]
    roots: tuple[ClassId, ...]
    meta: Mapping[str, Any] = field(default_factory=dict)
    _owner: dict[ENode, ClassId] | None = field(default=None, init=False, repr=False, compare=False)

    def __iter__(self) -> Iterator[EClass]:
        return iter(self.classes.values())

    @property
    def num_enodes(self) -> int:
        return sum(len(c.nodes) for c in self.classes.values())

    @property
    def num_eclasses(self) -> int:
        return len(self.classes)

    def validate(self) -> EGraph:
        """Check what extractors rely on, raising EGraphError naming the first problem; returns self.

        - at least one root, and every root is an e-class;
        - every e-class is stored under its own id, has at least one e-node, and a dtype and shape;
        - every child of every e-node is an e-class;
        - no e-node is in two e-classes (the e-graph is hash-consed, so that one e-class builds one UOp
          and DAG cost counted over e-classes equals DAG cost counted over the built program).
        Type-checking of e-nodes happens when a program is built from a choice (UOp checks it).
        """
        if not self.roots:
            raise EGraphError("e-graph has no roots")
        for r in self.roots:
            if r not in self.classes:
                raise EGraphError(f"root {r!r} is not an e-class")
        owner: dict[ENode, ClassId] = {}
        for cid, ec in self.classes.items():
            if not isinstance(ec, EClass):
                raise EGraphError(f"e-class {cid!r} is a {type(ec).__name__}, not an EClass")
            if ec.id != cid:
                raise EGraphError(f"e-class stored under {cid!r} has id {ec.id!r}")
            if not ec.nodes:
                raise EGraphError(f"e-class {cid!r} has no e-nodes")
            if not isinstance(ec.dtype, DType):
                raise EGraphError(f"e-class {cid!r} dtype must be a DType, got {ec.dtype!r}")
            for k, n in enumerate(ec.nodes):
                if not isinstance(n, ENode) or not isinstance(n.op, Ops):
                    raise EGraphError(f"e-class {cid!r} e-node {k} is not an ENode over an Ops member: {n!r}")
                for ch in n.children:
                    if ch not in self.classes:
                        raise EGraphError(
                            f"e-class {cid!r} e-node {k} ({n!r}) has child {ch!r}, not an e-class"
                        )
                if (other := owner.setdefault(n, cid)) != cid:
                    raise EGraphError(
                        f"e-node {n!r} is in e-classes {other!r} and {cid!r} (one e-class per e-node)"
                    )
        return self

    def lookup(self) -> dict[ENode, ClassId]:
        """The hash-cons index: e-node -> the e-class holding it."""
        return {n: ec.id for ec in self.classes.values() for n in ec.nodes}

    def parents(self) -> dict[ClassId, list[tuple[ClassId, ENode]]]:
        """For each e-class, the (e-class, e-node) pairs that use it as a child, each pair once."""
        out: dict[ClassId, list[tuple[ClassId, ENode]]] = {cid: [] for cid in self.classes}
        for ec in self.classes.values():
            for n in ec.nodes:
                for ch in dict.fromkeys(n.children):
                    out[ch].append((ec.id, n))
        return out

    def _owners(self) -> dict[ENode, ClassId]:
        """The hash-cons index (lookup()), built once and kept: the e-graph does not change."""
        if self._owner is None:
            self._owner = self.lookup()
        return self._owner

    def class_of(self, u: UOp) -> ClassId | None:
        """The e-class of u's term (its nodes looked up bottom-up), or None if it is not in the e-graph."""
        owner = self._owners()
        ids: dict[UOp, ClassId] = {}
        for v in u.toposort():
            cid = owner.get(ENode(v.op, v.arg, tuple(ids[s] for s in v.src)))
            if cid is None:
                return None
            ids[v] = cid
        return ids[u]

    def choice_of(self, programs: tuple[UOp, ...]) -> dict[ClassId, ENode] | None:
        """The choice that builds these programs (one per root) from this e-graph's e-nodes, or None
        if some node is not an e-node here, a program is not in its root's e-class, or two nodes
        fall into one e-class (the programs are then not a choice of one e-node per e-class)."""
        if len(programs) != len(self.roots):
            return None
        owner = self._owners()
        ids: dict[UOp, ClassId] = {}
        choice: dict[ClassId, ENode] = {}
        for p in programs:
            for u in p.toposort():
                if u in ids:
                    continue
                node = ENode(u.op, u.arg, tuple(ids[s] for s in u.src))
                cid = owner.get(node)
                if cid is None or choice.setdefault(cid, node) != node:
                    return None
                ids[u] = cid
        return choice if all(ids[p] == r for p, r in zip(programs, self.roots, strict=True)) else None

    @staticmethod
    def from_programs(*programs: UOp) -> EGraph:
        """The e-graph of UOp programs: one e-class per distinct node (ids 'u0', 'u1', ... in toposort)."""
        ids: dict[UOp, ClassId] = {}
        classes: dict[ClassId, EClass] = {}
        for p in programs:
            for u in p.toposort():
                if u in ids:
                    continue
                cid = ids[u] = f"u{len(ids)}"
                node = ENode(u.op, u.arg, tuple(ids[s] for s in u.src))
                classes[cid] = EClass(cid, (node,), u.dtype, u.shape)
        return EGraph(classes, tuple(ids[p] for p in programs))

    # -- JSON form: lossless for every arg the IR uses (floats by hex, so -0.0/NaN/inf survive)
    def to_json(self) -> str:
        classes = [
            {
                "id": ec.id,
                "dtype": ec.dtype.name,
                "shape": list(ec.shape),
                "nodes": [
                    {"op": n.op.name, "arg": _enc(n.arg), "children": list(n.children)} for n in ec.nodes
                ],
            }
            for ec in self.classes.values()
        ]
        return json.dumps({"roots": list(self.roots), "classes": classes}, separators=(",", ":"))

    @staticmethod
    def from_json(text: str) -> EGraph:
        try:
            data = json.loads(text)
            classes: dict[ClassId, EClass] = {}
            for c in data["classes"]:
                nodes = tuple(ENode(Ops[n["op"]], _dec(n["arg"]), tuple(n["children"])) for n in c["nodes"])
                classes[c["id"]] = EClass(c["id"], nodes, dtypes.by_name(c["dtype"]), tuple(c["shape"]))
            return EGraph(classes, tuple(data["roots"]))
        except (KeyError, TypeError, ValueError) as e:
            raise EGraphError(f"bad e-graph JSON: {type(e).__name__}: {e}") from None


def _enc(a: Any) -> Any:
    if a is None:
        return None
    if isinstance(a, bool):
        return {"b": a}
    if isinstance(a, int):
        return {"i": a}
    if isinstance(a, float):
        return {"f": a.hex() if math.isfinite(a) else repr(a)}
    if isinstance(a, str):
        return {"s": a}
    if isinstance(a, DType):
        return {"dtype": a.name}
    if isinstance(a, Ops):
        return {"op": a.name}
    if isinstance(a, ParamArg):
        return {"param": [a.slot, a.dtype.name, list(a.shape), a.addrspace]}
    if isinstance(a, tuple):
        return {"t": [_enc(x) for x in a]}
    raise EGraphError(f"e-node arg {a!r} of type {type(a).__name__} has no JSON form")


def _dec(a: Any) -> Any:
    if a is None:
        return None
    (tag, v), *rest = a.items()
    if rest:
        raise ValueError(f"arg object must have one key, got {sorted(a)}")
    if tag == "b":
        return bool(v)
    if tag == "i":
        return int(v)
    if tag == "f":
        return float(v) if v in ("inf", "-inf", "nan") else float.fromhex(v)
    if tag == "s":
        return str(v)
    if tag == "dtype":
        return dtypes.by_name(v)
    if tag == "op":
        return Ops[v]
    if tag == "param":
        slot, dt, shape, space = v
        return ParamArg(slot, dtypes.by_name(dt), tuple(shape), space)
    if tag == "t":
        return tuple(_dec(x) for x in v)
    raise ValueError(f"unknown arg tag {tag!r}")
