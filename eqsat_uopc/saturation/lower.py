"""Lowering: UOp programs into an egglog e-graph, through tab-separated loader files.

One loader row per UOp node (sharing is kept: a node is written once, however many users it has),
then one egglog iteration of the `load` ruleset turns every row into its term and names it `(N id)`.
This is linear and fast (about 600,000 nodes/s in egglog); writing one `let` command per node costs
about 70 us per node inside egglog, which is why the text program is not a list of lets.

The same `Lowerer` writes the folding step's new terms and unions (`row` and `union`), so every
change the Python side makes to the e-graph goes through one path. Its tables only grow: a run that
undoes an iteration with the Python step on replays from a fresh Lowerer (runner.py).
"""

from __future__ import annotations

import atexit
import math
import os
import shutil
import struct
import tempfile
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from egglog import bindings

from eqsat_uopc.ir.dtype import f32_bits, f32_from_bits
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp, arg_key
from eqsat_uopc.saturation.terms import KINDS, LOADER_SORTS, type_string

__all__ = ["Lowerer", "arg_key", "const_row", "term_key"]

_CONST_KEY = {
    "LdInt": ("Int", "i32"),
    "LdBool": ("Bool", "bool"),
    "LdFlt": ("Flt", "f32"),
    "LdDbl": ("Dbl", "f32"),
}


def const_row(v: Any) -> tuple[str, int]:
    """The loader relation and payload of a scalar constant: LdInt v, LdBool 0|1, LdFlt bits, LdDbl bits64."""
    if isinstance(v, bool):
        return "LdBool", int(v)
    if isinstance(v, int):
        return "LdInt", v
    bits = f32_bits(v)
    back = f32_from_bits(bits)
    if (math.isnan(v) and math.isnan(back)) or struct.pack("<d", back) == struct.pack("<d", v):
        return "LdFlt", bits
    return "LdDbl", struct.unpack("<q", struct.pack("<d", v))[0]


def term_key(u: UOp, lowerer: Lowerer, kids: list[Any]) -> tuple | None:
    """The key of u's e-node in a read-back index, (constructor, type, payload, child classes), given
    its sources' classes; None when its arg was never lowered (so no such e-node can exist)."""
    if u.op is Ops.CONST:
        rel, payload = const_row(u.arg)
        ctor, t = _CONST_KEY[rel]
        return (ctor, t, bool(payload) if ctor == "Bool" else payload, ())
    prim = None
    if "k" in KINDS[u.op].fields:
        prim = lowerer.keys.get(arg_key(u.arg))
        if prim is None:
            return None
    return (KINDS[u.op].ctor, type_string(u.dtype, u.shape), prim, tuple(kids))


class Lowerer:
    """Writes UOps (and raw e-class-level rows) into one egglog e-graph; remembers what it wrote."""

    def __init__(self, egraph: bindings.EGraph):
        self.egraph = egraph
        self.ids: dict[UOp, int] = {}  # lowered UOp -> N id
        self.next_id = 0
        self.lists: dict[tuple[int, int] | None, int] = {}  # (head N id, tail LN id) or None (nil) -> LN id
        self.keys: dict[Any, int] = {}  # arg_key(arg) -> table key
        self.args: list[Any] = []  # table key -> arg
        self.calls: list[UOp] = []  # CALL nodes lowered, in order (the inliner walks them)
        self.rows: dict[str, list[str]] = defaultdict(list)

    # -- writing
    def fresh(self) -> int:
        i = self.next_id
        self.next_id += 1
        return i

    def key(self, arg: Any) -> int:
        k = arg_key(arg)
        hit = self.keys.get(k)
        if hit is None:
            hit = self.keys[k] = len(self.args)
            self.args.append(arg)
        return hit

    def list_id(self, items: tuple[int, ...]) -> int:
        """The LN id of a list of N ids: cons cells hash-consed on (head, tail id), so suffixes are
        shared and a list costs O(its length), written from the back without recursion (a
        100,000-element STACK is as deep a list as that)."""
        cells = self.lists
        tail = cells.get(None)
        if tail is None:
            tail = cells[None] = len(cells)
            self.rows["LdNil"].append(f"{tail}")
        for item in reversed(items):
            cell = (item, tail)
            lid = cells.get(cell)
            if lid is None:
                lid = cells[cell] = len(cells)
                self.rows["LdCons"].append(f"{lid}\t{item}\t{tail}")
            tail = lid
        return tail

    def row(self, op: Ops, t: str, children: tuple[int, ...] = (), key: int | None = None) -> int:
        """Write one non-constant term over N ids; returns its N id."""
        kind = KINDS[op]
        i = self.fresh()
        f = kind.fields
        if f == "k":
            rest = (key,)
        elif f in ("a", "ab", "abc"):
            rest = children
        elif f == "ak":
            rest = (children[0], key)
        elif f == "l":
            rest = (self.list_id(children),)
        elif f == "al":
            rest = (children[0], self.list_id(children[1:]))
        else:  # alk
            rest = (children[0], self.list_id(children[1:]), key)
        self.rows[kind.loader].append("\t".join((str(i), op.name, t, *map(str, rest))))
        return i

    def const(self, v: Any) -> int:
        rel, payload = const_row(v)
        i = self.fresh()
        self.rows[rel].append(f"{i}\t{payload}")
        return i

    def union(self, a: int, b: int) -> None:
        self.rows["LdUnion"].append(f"{a}\t{b}")

    def lower(self, root: UOp, nodes: Sequence[UOp] | None = None) -> int:
        """Write every node of root not written yet; returns root's N id. `nodes`: root.toposort(),
        when the caller has it already (the runner walks the program once for every use)."""
        ids = self.ids
        if (hit := ids.get(root)) is not None:
            return hit
        for u in root.toposort() if nodes is None else nodes:
            if u in ids:
                continue
            op = u.op
            if op is Ops.CONST:
                ids[u] = self.const(u.arg)
                continue
            kids = tuple(ids[s] for s in u.src)
            key = None
            if op is Ops.PARAM or op is Ops.RANGE or op is Ops.CALL or op is Ops.REDUCE or op in _MOVEMENT:
                key = self.key(u.arg)
            ids[u] = self.row(op, type_string(u.dtype, u.shape), kids, key)
            if op is Ops.PARAM and u.arg.bounds is not None:
                self.rows["LdBound"].append(f"{ids[u]}\t{u.arg.bounds[0]}\t{u.arg.bounds[1]}")
            if op is Ops.CALL:
                self.calls.append(u)
        return ids[root]

    def flush(self) -> bool:
        """Load every pending row into egglog (one iteration of `load`); False if there was none.

        A few rows go in as egglog facts in the command text; many go through TSV files and
        `(input ...)`, which egglog reads far faster than it parses one fact per row."""
        if not self.rows:
            return False
        if sum(map(len, self.rows.values())) <= INLINE_ROWS:
            facts = [_fact(rel, line) for rel, lines in self.rows.items() for line in lines]
            self.rows.clear()
            self.egraph.parse_and_run_program("\n".join([*facts, "(run load 1)"]))
            return True
        cmds = []
        for rel, lines in self.rows.items():
            path = os.path.join(_scratch_dir(), f"{rel}.tsv")
            with open(path, "w") as f:
                f.write("\n".join(lines))
                f.write("\n")
            cmds.append(f'(input {rel} "{path}")')
        self.rows.clear()
        cmds.append("(run load 1)")
        self.egraph.parse_and_run_program("\n".join(cmds))
        return True


_MOVEMENT = frozenset({Ops.RESHAPE, Ops.EXPAND, Ops.PERMUTE, Ops.SHRINK})
_SCRATCH: list[str] = []


def _scratch_dir() -> str:
    """One directory per process for the loader files (rewritten by every flush), removed at exit."""
    if not _SCRATCH:
        _SCRATCH.append(tempfile.mkdtemp(prefix="eqsat_uopc_"))
        atexit.register(shutil.rmtree, _SCRATCH[0], True)
    return _SCRATCH[0]


INLINE_ROWS = 2_000  # up to this many rows, facts in the command text cost less than files


def _fact(rel: str, line: str) -> str:
    """One loader row as an egglog fact: `(LdB 3 "ADD" "i32" 1 2)` (the String fields quoted)."""
    fields = line.split("\t")
    sorts = LOADER_SORTS[rel]
    return (
        "("
        + " ".join([rel, *(f'"{v}"' if t == "String" else v for v, t in zip(fields, sorts, strict=True))])
        + ")"
    )
