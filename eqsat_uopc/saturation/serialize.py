"""Reading egglog's e-graph back: a Snapshot (for the folding step) and the extractors' EGraph.

`Snapshot` freezes the live egglog e-graph once and indexes it: every UOp-valued e-class (keyed by
egglog's canonical Value) with its e-nodes (subsumed ones left out: a rule marked the left-hand side
it replaced as not worth matching or extracting) (constructor, type string, payload, child e-classes in
UOp source order, OpLists flattened), and the `(N id)` names the lowering gave to classes.

`to_egraph` turns a snapshot into `eqsat_uopc.extract.EGraph`: one EClass per UOp-valued e-class
(ids `c0, c1, ...` in egglog's Value order, so they are deterministic), UOp-level ENodes whose arg
is exactly the UOp arg (table keys resolved, f32 bit patterns turned back into floats, CAST's
target dtype read from its type string). Helper sorts (type strings, OpLists, intervals, names,
loader rows) are not e-classes there.

`EgglogExtractor` lives in `EGraph.meta["egglog"]`: `extract(mode, roots)` with mode "tree" or
"dag" runs egglog's own extractor (egglog.bindings.extract_best_with_dag_cost_model, every UOp
e-node costing 1, lists and literals 0; "dag" is egglog's greedy-DAG extractor) on the live egglog
e-graph and returns the choice as {ClassId: ENode} for every e-class the chosen terms use.
It is only valid while the e-graph is the one that was serialized (Saturation keeps it so).
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from functools import cached_property
from typing import Any, NamedTuple

from egglog import bindings

from eqsat_uopc.extract.egraph import ClassId, EClass, EGraph, ENode
from eqsat_uopc.ir.dtype import DType, f32_from_bits
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.saturation.errors import SaturationBug, SaturationError
from eqsat_uopc.saturation.terms import CONST_CTORS, CTOR_OF, DOUBLE_CTOR, KINDS, OP_OF, parse_type

__all__ = ["EgglogExtractor", "SNode", "Snapshot"]

_CONST_TYPE = {"Int": "i32", "Bool": "bool", "Flt": "f32", "Dbl": "f32"}
_KEYED = {k.ctor for k in KINDS.values() if "k" in k.fields}
_LISTED = {k.ctor for k in KINDS.values() if "l" in k.fields}
_OP_OF_CTOR: dict[str, Ops] = {**dict.fromkeys(CONST_CTORS, Ops.CONST), **OP_OF}
_PLAIN_OP = {c: op for c, op in OP_OF.items() if op is not Ops.CAST}  # not constants, not CAST
_EXACT_CONST = frozenset(("Int", "Bool"))  # the constants whose payload is the UOp arg (SNode.const_value)


class SNode(NamedTuple):
    """One UOp-valued egglog e-node: constructor, type string, payload, child e-classes.

    The four fields are egglog's spelling (and an SNode hashes as that tuple: the read-back index
    is keyed by it); `op`, `dtype`, `shape` and `holds_double` are what they mean for the UOp, from
    the term encoding's own tables (terms.py), so that code reading e-nodes never matches strings."""

    ctor: str
    t: str
    prim: Any  # constant payload (int, bool, bit pattern) or arg-table key, else None
    kids: tuple[bindings.Value, ...]

    @property
    def op(self) -> Ops:
        return _OP_OF_CTOR[self.ctor]

    @property
    def dtype(self) -> DType:
        return parse_type(self.t)[0]

    @property
    def shape(self) -> tuple[int, ...]:
        return parse_type(self.t)[1]

    @property
    def holds_double(self) -> bool:
        """Is this an f32 constant that holds a double which is no f32 value (`Dbl`: 0.1)?"""
        return self.ctor == DOUBLE_CTOR

    def const_value(self) -> Any:
        """The Python value of a constant e-node, as the UOp CONST arg."""
        if self.ctor == "Flt":
            return f32_from_bits(self.prim)
        if self.ctor == "Dbl":
            return struct.unpack("<d", struct.pack("<q", self.prim))[0]
        return self.prim


new_snode = tuple.__new__  # SNode(...) without NamedTuple's Python-level __new__: a hot loop


def _snode(ctor: str, row: Any, s: Any, to_int: Any, to_bool: Any, flat: Any) -> SNode:
    """One row as an SNode (the slow path, for the few subsumed rows that are kept)."""
    if ctor in _CONST_TYPE:
        return SNode(ctor, _CONST_TYPE[ctor], (to_bool if ctor == "Bool" else to_int)(row.inputs[0]), ())
    ins = row.inputs
    keyed = ctor in _KEYED
    prim = to_int(ins[-1]) if keyed else None
    rest = ins[1:-1] if keyed else ins[1:]
    kids = (*rest[:-1], *flat(rest[-1])) if ctor in _LISTED else tuple(rest)
    return SNode(ctor, s(ins[0]), prim, kids)


class Snapshot:
    """The live egglog e-graph frozen and indexed. Deterministic: everything is in Value order."""

    def __init__(self, egraph: bindings.EGraph):
        # One pass over egglog's frozen tables (lists, then constants and ops, then subsumed rows,
        # then names and types), kept in one function on purpose: it is the read-back's hot loop,
        # measured per e-node in bench/engine.py, and its locals are the caches of that pass.
        fz = egraph.freeze()
        strings: dict[bindings.Value, str] = {}
        to_str, to_int, to_bool = egraph.value_to_string, egraph.value_to_i64, egraph.value_to_bool

        def s(v: bindings.Value) -> str:
            r = strings.get(v)
            if r is None:
                r = strings[v] = to_str(v)
            return r

        cons: dict[bindings.Value, tuple[bindings.Value, bindings.Value]] = {}
        nil: set[bindings.Value] = set()
        funcs = fz.functions
        for row in funcs["Cons"].rows:
            cons[row.output] = (row.inputs[0], row.inputs[1])
        for row in funcs["Nil"].rows:
            nil.add(row.output)
        lists: dict[bindings.Value, tuple[bindings.Value, ...]] = {}

        def flat(v: bindings.Value) -> tuple[bindings.Value, ...]:
            # only the lists an e-node holds are flattened, each by one walk down its cells: a tuple
            # per suffix (k of them for a k-element STACK) would copy k**2 / 2 elements
            out = lists.get(v)
            if out is None:
                heads = []
                cell = v
                while cell not in nil:
                    head, cell = cons[cell]
                    heads.append(head)
                out = lists[v] = tuple(heads)
            return out

        classes: dict[bindings.Value, list[SNode]] = {}
        hidden: list[tuple[str, Any]] = []  # subsumed rows: used only for a class that has nothing else
        by_ctor: dict[str, list[tuple[bindings.Value, SNode]]] = {}
        for ctor, f in funcs.items():
            if ctor in _CONST_TYPE:
                conv = to_bool if ctor == "Bool" else to_int
                t = _CONST_TYPE[ctor]
                mine = by_ctor.setdefault(ctor, [])
                for row in f.rows:
                    if row.subsumed:
                        hidden.append((ctor, row))
                        continue
                    n = new_snode(SNode, (ctor, t, conv(row.inputs[0]), ()))
                    out = row.output  # each access makes a new Python object
                    classes.setdefault(out, []).append(n)
                    mine.append((out, n))
            elif ctor in OP_OF:
                keyed, listed = ctor in _KEYED, ctor in _LISTED
                mine = by_ctor.setdefault(ctor, [])
                for row in f.rows:
                    if row.subsumed:
                        hidden.append((ctor, row))
                        continue
                    ins = row.inputs
                    t = s(ins[0])
                    prim = to_int(ins[-1]) if keyed else None
                    rest = ins[1:-1] if keyed else ins[1:]
                    if listed:
                        kids = (*rest[:-1], *flat(rest[-1]))
                    else:
                        kids = tuple(rest)
                    n = new_snode(SNode, (ctor, t, prim, kids))
                    out = row.output
                    classes.setdefault(out, []).append(n)
                    mine.append((out, n))
        orphans = {row.output for _, row in hidden if row.output not in classes}
        self._hidden: list[tuple[bindings.Value, SNode]] = []  # hidden from matching, not from lookup
        for ctor, row in hidden:
            n = _snode(ctor, row, s, to_int, to_bool, flat)
            self._hidden.append((row.output, n))
            if row.output in orphans:
                classes.setdefault(row.output, []).append(n)
                by_ctor.setdefault(ctor, []).append((row.output, n))
        names: dict[bindings.Value, int] = {}
        by_name: dict[int, bindings.Value] = {}
        for row in funcs["N"].rows:
            k = to_int(row.inputs[0])
            by_name[k] = row.output
            if row.output not in names or k < names[row.output]:
                names[row.output] = k
        # the interval tables, read only when `bounds` is asked (under no_overflow): a row per e-class
        self._interval_tables = (funcs.get("lo"), funcs.get("hi"), to_int)
        self.order = sorted(classes)
        self.classes = {v: classes[v] for v in self.order}
        self.by_ctor = by_ctor  # constructor -> [(class, e-node)], in egglog's row order
        self.names = names  # class -> smallest N id naming it
        self.by_name = by_name  # N id -> class
        self.types: dict[bindings.Value, str] = {}
        for v, nodes in self.classes.items():
            t = nodes[0].t
            for n in nodes[1:]:
                if n.t != t:
                    raise SaturationBug(
                        f"e-class {v} mixes types {t} and {n.t} ({nodes[0].ctor} and {n.ctor}): "
                        "a rule changed a type"
                    )
            self.types[v] = t
        for v in by_name.values():
            if v not in self.classes:
                raise SaturationBug(f"e-class {v} has a name but no UOp e-node (a loader row is missing)")

    @cached_property
    def bounds(self) -> dict[bindings.Value, tuple[int | None, int | None]]:
        """Each e-class's known interval (lo, hi), from the bookkeeping tables `lo` and `hi` of the
        frozen e-graph (a bound not known is None). Built on first use: only extraction under
        no_overflow asks (admissible.py), and the tables hold a row per e-class."""
        lo_table, hi_table, to_int = self._interval_tables
        lows = {row.inputs[0]: to_int(row.output) for row in lo_table.rows} if lo_table else {}
        highs = {row.inputs[0]: to_int(row.output) for row in hi_table.rows} if hi_table else {}
        return {v: (lows.get(v), highs.get(v)) for v in lows.keys() | highs.keys()}

    @cached_property
    def index(self) -> dict[tuple, bindings.Value]:
        """The hash-cons index, subsumed e-nodes included: (ctor, type, payload, kids) -> e-class.
        Built on first use: the folding step and lookups need it, extraction does not."""
        index = {n: v for v, nodes in self.classes.items() for n in nodes}  # an SNode hashes as its tuple
        index.update((n, v) for v, n in self._hidden)
        return index

    def nodes_of(self, op: Ops) -> list[tuple[bindings.Value, SNode]]:
        """The e-nodes of op with their e-classes, in egglog's row order (for CONST: the i32, bool,
        f32 and double constants in turn)."""
        if op is Ops.CONST:
            return [vn for ctor in CONST_CTORS for vn in self.by_ctor.get(ctor, ())]
        return self.by_ctor.get(CTOR_OF[op], [])

    def type_of(self, v: bindings.Value) -> tuple[DType, tuple[int, ...]]:
        """The (dtype, shape) of e-class v."""
        return parse_type(self.types[v])

    def class_of(self, op: Ops, t: str, kids: tuple[bindings.Value, ...]) -> bindings.Value | None:
        """The e-class of the e-node `op` (not a CONST, no payload) of type string t over the child
        e-classes kids, subsumed e-nodes included; None when the e-graph has no such e-node."""
        return self.index.get((CTOR_OF[op], t, None, kids))

    @property
    def num_enodes(self) -> int:
        return sum(len(ns) for ns in self.classes.values())

    @property
    def num_eclasses(self) -> int:
        return len(self.classes)

    def class_ids(self) -> dict[bindings.Value, ClassId]:
        return {v: f"c{i}" for i, v in enumerate(self.order)}

    def region(
        self, roots: tuple[bindings.Value, ...], steps: int
    ) -> dict[bindings.Value, list[SNode]] | None:
        """The sub-e-graph of the terms at most `steps` + 1 nodes deep below the roots: the e-classes
        at most `steps` child steps below them, each with its e-nodes whose children are all kept (an
        e-class left with none goes, and the e-nodes over it in turn), in `classes`' order; None when
        that is the whole e-graph. Each of its terms is one of the e-graph's, and every term of the
        e-graph no deeper than that is one of its."""
        classes = self.classes
        seen = set(roots)
        frontier = list(roots)
        for _ in range(steps):
            reached = []
            for v in frontier:
                for n in classes[v]:
                    for k in n[3]:
                        if k not in seen:
                            seen.add(k)
                            reached.append(k)
            if not reached:
                break
            frontier = reached
        if len(seen) == len(classes):
            return None
        kept = {v: [n for n in nodes if seen.issuperset(n[3])] for v, nodes in classes.items() if v in seen}
        gone = [v for v, nodes in kept.items() if not nodes]
        if gone:
            users: dict[bindings.Value, list[bindings.Value]] = {}
            for v, nodes in kept.items():
                for n in nodes:
                    for k in n[3]:
                        users.setdefault(k, []).append(v)
            while gone:
                g = gone.pop()
                for u in users.get(g, ()):
                    if kept[u]:
                        kept[u] = [n for n in kept[u] if g not in n[3]]
                        if not kept[u]:
                            gone.append(u)
        return {v: nodes for v, nodes in kept.items() if nodes}

    def to_egraph(
        self,
        args: list[Any],
        roots: tuple[bindings.Value, ...],
        live: bindings.EGraph | None,
        is_live: Callable[[], bool] = lambda: True,
        region: dict[bindings.Value, list[SNode]] | None = None,
    ) -> EGraph:
        """The extractors' EGraph (see the module docstring); `args` is the lowering's arg table.
        egglog's own extractors work on `live` while is_live() says it still holds this e-graph.
        With `region` (a `region()` holding the roots), the EGraph of that sub-e-graph; its e-class
        ids are the whole e-graph's."""
        ids = self.class_ids()
        id_of = ids.__getitem__
        parsed: dict[str, tuple] = {}  # type string -> (dtype, shape): a few dozen distinct ones
        classes: dict[ClassId, EClass] = {}
        op_of = _PLAIN_OP  # the e-nodes whose ENode needs no more than op, arg and children
        for v, nodes in (self.classes if region is None else region).items():
            t = self.types[v]
            dtype, shape = parsed.get(t) or parsed.setdefault(t, parse_type(t))
            cid = ids[v]
            enodes = []
            for n in nodes:  # _enode, inlined for the common e-nodes: one call per e-node saved
                op = op_of.get(n[0])
                if op is None:
                    # an int or bool constant's payload is its value (a quarter of a sum chain's e-nodes)
                    exact = n[0] in _EXACT_CONST
                    enodes.append(ENode(Ops.CONST, n[2], ()) if exact else _enode(n, args, id_of))
                else:
                    prim, kids = n[2], n[3]
                    arg = None if prim is None else args[prim]
                    enodes.append(ENode(op, arg, tuple(map(id_of, kids)) if kids else ()))
            classes[cid] = EClass(cid, tuple(enodes), dtype, shape)
        meta = {} if live is None else {"egglog": EgglogExtractor(live, self, ids, args, is_live)}
        return EGraph(classes, tuple(ids[r] for r in roots), meta)


def _enode(n: SNode, args: list[Any], id_of: Callable[[bindings.Value], ClassId]) -> ENode:
    ctor, t, prim, kids = n
    if ctor in _CONST_TYPE:
        return ENode(Ops.CONST, n.const_value(), ())
    op = OP_OF[ctor]
    if op is Ops.CAST:
        arg: Any = parse_type(t)[0]
    else:
        arg = None if prim is None else args[prim]
    return ENode(op, arg, tuple(map(id_of, kids)) if kids else ())


class EgglogExtractor:
    """egglog's own tree and greedy-DAG extractors over the live e-graph (see the module docstring)."""

    def __init__(
        self,
        live: bindings.EGraph,
        snap: Snapshot,
        ids: dict[bindings.Value, ClassId],
        args: list[Any],
        is_live: Callable[[], bool],
    ):
        self._live, self._snap, self._ids, self._args, self._is_live = live, snap, ids, args, is_live
        self._value_of = {cid: v for v, cid in ids.items()}

    def extract(self, mode: str, roots: tuple[ClassId, ...] | list[ClassId]) -> dict[ClassId, ENode]:
        if not self._is_live():
            raise SaturationError(
                "egglog's extractors need the live e-graph, which was released when the saturation "
                "closed: extract with them before close() (optimize and compare close it)"
            )
        if mode not in ("tree", "dag"):
            raise SaturationError(f"egglog extraction mode must be 'tree' or 'dag', got {mode!r}")
        for r in roots:
            if r not in self._value_of:
                raise SaturationError(f"egglog extraction root {r!r} is not an e-class of this e-graph")
        model = bindings.DagCostModel(
            0,
            lambda name, _args: 0 if name in ("Cons", "Nil") else 1,
            lambda _name, _v: 0,
            lambda _name, _v: 0,
        )
        termdag, results = bindings.extract_best_with_dag_cost_model(
            self._live,
            [("Op", self._value_of[r]) for r in roots],
            model,
            extractor="tree" if mode == "tree" else "greedy-dag",
        )
        choice: dict[ClassId, ENode] = {}
        memo: dict[int, Any] = {}
        for r, res in zip(roots, results, strict=True):
            if res is None:
                raise SaturationBug(f"egglog found no term for e-class {r!r}")
            self._walk(termdag, res[1], memo, choice)
        return choice

    def _walk(self, termdag: bindings.TermDag, root: int, memo: dict[int, Any], choice: dict) -> None:
        """Map every term under root to its e-class (bottom-up, iterative), recording chosen e-nodes."""
        stack = [(root, False)]
        while stack:
            tid, expanded = stack.pop()
            if tid in memo:
                continue
            term = termdag.get(tid)
            if isinstance(term, bindings.TermLit):
                memo[tid] = term.value.value if hasattr(term.value, "value") else None
                continue
            if not expanded:
                stack.append((tid, True))
                stack.extend((a, False) for a in term.args if a not in memo)
                continue
            kids = [memo[a] for a in term.args]
            if term.name == "Nil":
                memo[tid] = ()
                continue
            if term.name == "Cons":
                memo[tid] = (kids[0], *kids[1])
                continue
            memo[tid] = self._lookup(term.name, kids, choice)

    def _lookup(self, ctor: str, kids: list[Any], choice: dict) -> bindings.Value:
        if ctor in _CONST_TYPE:
            key = (ctor, _CONST_TYPE[ctor], kids[0], ())
        else:
            t, rest = kids[0], kids[1:]
            prim = rest.pop() if ctor in _KEYED else None
            flat_kids = (*rest[:-1], *rest[-1]) if ctor in _LISTED else tuple(rest)
            key = (ctor, t, prim, flat_kids)
        v = self._snap.index.get(key)
        if v is None:
            raise SaturationBug(f"egglog extracted a {ctor} e-node that is not in the serialized e-graph")
        for n in self._snap.classes[v]:
            if (n.ctor, n.t, n.prim, n.kids) == key:
                choice[self._ids[v]] = _enode(n, self._args, self._ids.__getitem__)
                break
        return v
