"""Pictures of e-graphs: Graphviz DOT, egglog's visualizer JSON, and SVG/PNG/PDF through `dot`.

A saturated e-graph is hard to reason about from its report alone: which e-classes merged, which
alternatives a rule added, and which of them extraction picked. These pictures show exactly that:
one box (cluster) per e-class, its e-nodes inside, edges from an e-node to its child e-classes, the
extracted choice filled and bold, the root e-class drawn thick and labelled "root".

A saturated e-graph of a few hundred e-nodes drawn whole is a picture tens of thousands of pixels
wide that no one can read. So a picture can be a *view* (`select_view`): the root's neighbourhood,
e-classes taken breadth-first from the root (the extracted e-node of each first, then a few more),
up to a number of e-nodes that fits a screen; an edge into an e-class left out ends at a grey
`c17 …` stub, an e-class drawn in part says how many e-nodes it holds, and the picture's legend
counts what was left out.

Everything is deterministic (e-classes in natural id order, e-nodes in e-class order), so a
picture can be diffed and tested. Graphviz is an optional system binary: `.dot` and `.json`
never need it; `.svg`, `.png` and `.pdf` run it and say how to install it when it is missing.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eqsat_uopc.extract.egraph import ClassId, EClass, EGraph, ENode
from eqsat_uopc.ir.dtype import DType
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import ParamArg
from eqsat_uopc.saturation.errors import DrawError

__all__ = [
    "DEFAULT_MAX_ENODES",
    "DEFAULT_PER_CLASS",
    "DEFAULT_VIEW_ENODES",
    "FORMATS",
    "View",
    "check_readable",
    "draw",
    "picture_format",
    "select_view",
    "to_dot",
    "to_visualizer_json",
]

DEFAULT_MAX_ENODES = 2_000  # beyond this a picture is a grey smear, and dot takes minutes
# a view that fits a screen: about 40 boxes over a dozen ranks is still readable at 100%
DEFAULT_VIEW_ENODES = 40
DEFAULT_PER_CLASS = 4  # e-nodes drawn per e-class (associativity fills some with dozens)
_GRAPHVIZ_FORMATS = ("svg", "png", "pdf")
FORMATS = (".dot", ".json", *(f".{f}" for f in _GRAPHVIZ_FORMATS))
_MAX_LABEL = 40
_CHOSEN = 'style="filled,bold", fillcolor="#ffd966", penwidth=2'
_ROOT = 'penwidth=3, color="#1f4e99"'


def _natural(cid: ClassId) -> tuple:
    """Sort key putting c2 before c10: digit runs compare as numbers."""
    return tuple(int(p) if i % 2 else p for i, p in enumerate(re.split(r"(\d+)", cid)))


def _arg_text(arg: Any) -> str:
    """A short, readable form of an e-node's arg (PARAM by slot, dtypes and ops by name)."""
    if isinstance(arg, ParamArg):
        text = f"slot {arg.slot}"
        return text if arg.bounds is None else f"{text} in [{arg.bounds[0]}, {arg.bounds[1]}]"
    if isinstance(arg, bool):
        return "true" if arg else "false"
    if isinstance(arg, DType):
        return arg.name
    if isinstance(arg, Ops):
        return arg.name
    if isinstance(arg, tuple):
        return "(" + ", ".join(_arg_text(a) for a in arg) + ")"
    return repr(arg) if isinstance(arg, float) else str(arg)


def _node_label(node: ENode) -> str:
    """The op, and the arg if it has one (shortened past a readable length)."""
    if node.arg is None:
        return node.op.name
    label = f"{node.op.name} {_arg_text(node.arg)}"
    return label if len(label) <= _MAX_LABEL else label[: _MAX_LABEL - 1] + "…"


def _class_label(ec: EClass) -> str:
    shape = "" if not ec.shape else "[" + ",".join(map(str, ec.shape)) + "]"
    return f"{ec.id} : {ec.dtype.name}{shape}"


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _checked(
    egraph: EGraph, choice: Mapping[ClassId, ENode] | None, root: ClassId | None
) -> tuple[dict[ClassId, int], tuple[ClassId, ...]]:
    """The chosen e-node's index per e-class and the root e-classes; a choice or root that is not
    in this e-graph is refused, since a picture of it would silently show something else."""
    chosen: dict[ClassId, int] = {}
    for cid, node in (choice or {}).items():
        ec = egraph.classes.get(cid)
        if ec is None or node not in ec.nodes:
            raise DrawError(f"the choice's e-node {node!r} for e-class {cid!r} is not in the e-graph")
        chosen[cid] = ec.nodes.index(node)
    roots = egraph.roots if root is None else (root,)
    for r in roots:
        if r not in egraph.classes:
            raise DrawError(f"root {r!r} is not an e-class of the e-graph")
    return chosen, roots


def _node_id(cid: ClassId, k: int) -> str:
    return f"{cid}.{k}"


def _target(cid: ClassId, chosen: Mapping[ClassId, int]) -> str:
    """The e-node an edge into e-class cid lands on: the chosen one, else the first."""
    return _node_id(cid, chosen.get(cid, 0))


@dataclass(frozen=True)
class View:
    """The part of an e-graph a picture shows: for each e-class drawn, the indices of its e-nodes
    drawn, and the limits that left the rest out."""

    nodes: dict[ClassId, tuple[int, ...]]
    total_enodes: int
    total_eclasses: int
    max_enodes: int | None
    per_class: int | None
    depth: int | None

    @property
    def drawn_enodes(self) -> int:
        return sum(map(len, self.nodes.values()))

    @property
    def drawn_eclasses(self) -> int:
        return len(self.nodes)

    @property
    def complete(self) -> bool:
        return self.drawn_enodes == self.total_enodes

    def legend(self) -> str:
        """What the picture leaves out, in one sentence (empty when it shows everything)."""
        if self.complete:
            return ""
        within = "" if self.depth is None else f" within {self.depth} steps"
        each = "" if self.per_class is None else f", at most {self.per_class} e-nodes each"
        return (
            f"drawn: {self.drawn_enodes} of {self.total_enodes} e-nodes in {self.drawn_eclasses} of "
            f"{self.total_eclasses} e-classes: the extracted program (filled) and the e-classes nearest "
            f"the root{within}{each}; 'c17 …': an e-class not drawn; '+N more': e-nodes not drawn"
        )


def select_view(
    egraph: EGraph,
    choice: Mapping[ClassId, ENode] | None = None,
    root: ClassId | None = None,
    *,
    max_enodes: int | None = DEFAULT_VIEW_ENODES,
    per_class: int | None = DEFAULT_PER_CLASS,
    depth: int | None = None,
) -> View:
    """The root's neighbourhood, at most max_enodes e-nodes: first the extracted program (the
    choice's e-nodes reachable from the root, breadth-first), then e-classes breadth-first from the
    root, each filled up to per_class e-nodes (its e-nodes in order), no further than `depth` steps
    below the root. None lifts a limit."""
    for name, value, least in (
        ("max_enodes", max_enodes, 1),
        ("per_class", per_class, 1),
        ("depth", depth, 0),
    ):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < least):
            raise DrawError(f"{name} must be an int >= {least} or None, got {value!r}")
    chosen, roots = _checked(egraph, choice, root)
    nodes: dict[ClassId, list[int]] = {}
    budget = [max_enodes]

    def room() -> int | None:
        return budget[0]

    def spend(n: int) -> None:
        if budget[0] is not None:
            budget[0] -= n

    def breadth_first(children_of: Any) -> None:
        queue = deque((r, 0) for r in roots)
        seen = set(roots)
        while queue and (room() is None or room() > 0):
            cid, d = queue.popleft()
            drawn = children_of(cid)
            if depth is not None and d >= depth:
                continue
            for k in drawn:
                for ch in egraph.classes[cid].nodes[k].children:
                    if ch not in seen:
                        seen.add(ch)
                        queue.append((ch, d + 1))

    def the_choice(cid: ClassId) -> list[int]:
        if cid not in chosen:
            return []
        nodes[cid] = [chosen[cid]]
        spend(1)
        return nodes[cid]

    def fill(cid: ClassId) -> list[int]:
        have = nodes.setdefault(cid, [])
        n = len(egraph.classes[cid].nodes)
        want = n if per_class is None else min(n, per_class)
        extra = [k for k in range(n) if k not in have][: max(0, want - len(have))]
        if room() is not None:
            extra = extra[: max(0, room())]
        have += extra
        spend(len(extra))
        if not have:
            del nodes[cid]
        return have

    breadth_first(the_choice)
    breadth_first(fill)
    return View(
        {cid: tuple(ks) for cid, ks in nodes.items()},
        egraph.num_enodes,
        egraph.num_eclasses,
        max_enodes,
        per_class,
        depth,
    )


def to_dot(
    egraph: EGraph,
    choice: Mapping[ClassId, ENode] | None = None,
    root: ClassId | None = None,
    *,
    view: View | None = None,
) -> str:
    """Graphviz DOT text of egraph: one cluster per e-class (labelled "id : dtype"), one box per
    e-node (labelled "OP arg"), edges from an e-node to its child e-classes (clipped at the child's
    cluster, numbered by argument position when there are several), the choice's e-nodes filled and
    bold, and the root e-class (default: the e-graph's roots) drawn thick and labelled "root".

    With a view (select_view), only its e-nodes are drawn: an edge into an e-class it leaves out
    ends at a dashed grey stub, a cluster drawn in part says "+N more", and the legend at the
    bottom says what was left out."""
    chosen, roots = _checked(egraph, choice, root)
    shown = (
        {cid: tuple(range(len(ec.nodes))) for cid, ec in egraph.classes.items()}
        if view is None
        else view.nodes
    )
    lines = [
        "digraph egraph {",
        "  compound=true;",
        "  rankdir=TB;",
        '  graph [fontname="Helvetica"];',
        '  node [shape=box, style=rounded, fontname="Helvetica"];',
        '  edge [fontname="Helvetica", fontsize=10];',
    ]
    ids = sorted(shown, key=_natural)

    def target(cid: ClassId) -> str:  # the chosen e-node if drawn, else the first drawn
        drawn = shown[cid]
        return _node_id(cid, chosen[cid] if chosen.get(cid) in drawn else min(drawn))

    for cid in ids:
        ec = egraph.classes[cid]
        label = ("root " if cid in roots else "") + _class_label(ec)
        if (more := len(ec.nodes) - len(shown[cid])) > 0:
            label += f" (+{more} more)"
        style = _ROOT if cid in roots else 'color="#888888"'
        lines.append(f"  subgraph {_quote('cluster_' + cid)} {{")
        lines.append(f"    graph [label={_quote(label)}, {style}];")
        for k in sorted(shown[cid]):
            extra = f", {_CHOSEN}" if chosen.get(cid) == k else ""
            lines.append(f"    {_quote(_node_id(cid, k))} [label={_quote(_node_label(ec.nodes[k]))}{extra}];")
        lines.append("  }")
    stubs: list[ClassId] = []
    for cid in ids:
        for k in sorted(shown[cid]):
            node = egraph.classes[cid].nodes[k]
            for pos, child in enumerate(node.children):
                if child in shown:
                    attrs = [] if child == cid else [f"lhead={_quote('cluster_' + child)}"]
                    head = target(child)
                else:
                    attrs = ['style=dashed, color="#888888"']
                    head = f"{child}.more"
                    if child not in stubs:
                        stubs.append(child)
                if len(node.children) > 1:
                    attrs.append(f'label="{pos}"')
                if chosen.get(cid) == k:
                    attrs.append("penwidth=2")
                tail = f" [{', '.join(attrs)}]" if attrs else ""
                lines.append(f"  {_quote(_node_id(cid, k))} -> {_quote(head)}{tail};")
    for child in sorted(stubs, key=_natural):
        label = f"{child} …"
        lines.append(
            f'  {_quote(child + ".more")} [label={_quote(label)}, shape=plaintext, fontcolor="#888888"];'
        )
    if view is not None and (legend := view.legend()):
        lines.append(f"  label={_quote(legend)};")
        lines.append('  labelloc=b; labeljust=l; fontsize=12; fontcolor="#444444";')
    lines.append("}")
    return "\n".join(lines) + "\n"


def to_visualizer_json(
    egraph: EGraph, choice: Mapping[ClassId, ENode] | None = None, root: ClassId | None = None
) -> dict[str, Any]:
    """egraph in egglog's serialized e-graph format (the `egraph-serialize` crate's JSON, as
    `egglog.bindings.SerializedEGraph.to_json()` writes it in egglog 14 and egglog's web visualizer,
    egraph-visualizer, reads it):

        {"nodes": {node_id: {"op", "children": [node ids], "eclass", "cost", "subsumed"}},
         "root_eclasses": [class ids], "class_data": {class_id: {"type": ...}}}

    A child is a node id, as in egglog: the child e-class's chosen e-node, else its first. "op" is
    the node label (op and arg), "cost" 1.0 (the format wants one; no cost model is implied),
    class_data's "type" the dtype (the visualizer colours e-classes by it), and the choice is kept
    as an extra "chosen" node id in class_data (egglog puts extra keys there too, e.g. "let")."""
    chosen, roots = _checked(egraph, choice, root)
    nodes: dict[str, Any] = {}
    class_data: dict[str, Any] = {}
    for cid in sorted(egraph.classes, key=_natural):
        ec = egraph.classes[cid]
        for k, node in enumerate(ec.nodes):
            nodes[_node_id(cid, k)] = {
                "op": _node_label(node),
                "children": [_target(ch, chosen) for ch in node.children],
                "eclass": cid,
                "cost": 1.0,
                "subsumed": False,
            }
        data: dict[str, Any] = {"type": ec.dtype.name}
        if cid in chosen:
            data["chosen"] = _node_id(cid, chosen[cid])
        class_data[cid] = data
    return {"nodes": nodes, "root_eclasses": list(roots), "class_data": class_data}


def picture_format(path: str | Path) -> str:
    """The format path's suffix names (one of FORMATS), or DrawError naming the suffix and the known
    ones: callers check it before saturating, so a typo costs nothing."""
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        known = ", ".join(FORMATS)
        raise DrawError(f"cannot draw to {path}: unknown suffix {suffix or '(none)'!r}; use one of {known}")
    return suffix


def check_readable(egraph: EGraph, max_enodes: int = DEFAULT_MAX_ENODES) -> None:
    """Refuse (DrawError) an e-graph of more than max_enodes e-nodes: no one can read its picture."""
    if egraph.num_enodes > max_enodes:
        raise DrawError(
            f"the e-graph has {egraph.num_enodes} e-nodes in {egraph.num_eclasses} e-classes, more than "
            f"max_enodes={max_enodes} can show readably; raise max_enodes to draw it anyway"
        )


def draw(
    egraph: EGraph,
    path: str | Path,
    choice: Mapping[ClassId, ENode] | None = None,
    root: ClassId | None = None,
    *,
    max_enodes: int = DEFAULT_MAX_ENODES,
    view: View | None = None,
) -> Path:
    """Write a picture of egraph to path, in the format its suffix names (see FORMATS): .dot (DOT
    text), .json (egglog's visualizer JSON), .svg/.png/.pdf (DOT run through Graphviz's `dot`).
    With a view (select_view), .dot/.svg/.png/.pdf show only its part of the e-graph (the .json,
    for an interactive visualizer, always holds all of it). Without one, e-graphs above max_enodes
    e-nodes are refused (no one can read them); raise the limit to draw them anyway. Returns the
    path written."""
    path = Path(path)
    suffix = picture_format(path)
    if view is None or suffix == ".json":
        check_readable(egraph, max_enodes)
    if suffix == ".json":
        text = json.dumps(to_visualizer_json(egraph, choice, root), indent=1) + "\n"
        path.write_text(text, encoding="utf-8")
        return path
    dot_text = to_dot(egraph, choice, root, view=view)
    if suffix == ".dot":
        path.write_text(dot_text, encoding="utf-8")
        return path
    binary = shutil.which("dot")
    if binary is None:
        raise DrawError(
            "the 'dot' binary (graphviz) is not installed; write .dot or .json instead, "
            "or install graphviz (apt-get install graphviz)"
        )
    command = [binary, f"-T{suffix[1:]}", "-o", str(path)]
    done = subprocess.run(command, input=dot_text.encode(), capture_output=True, check=False)
    if done.returncode != 0:
        lines = done.stderr.decode(errors="replace").strip().splitlines()
        why = lines[0] if lines else f"exit status {done.returncode}"
        raise DrawError(f"dot failed to write {path}: {why}")
    return path
