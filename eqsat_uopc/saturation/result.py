"""Saturation: a finished run of one program, what it found and the queries on its e-graph.

The runner (runner.py) builds the e-graph; this object holds it: the report, the e-graph read back
from egglog once when something first needs it (extraction, queries, pictures), and the run's hold
on its egglog engine until `close()` (or until nothing refers to it).
"""

from __future__ import annotations

import dataclasses
import time
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from egglog import bindings

from eqsat_uopc.bulk import gc_paused
from eqsat_uopc.extract import (
    EgglogExtractor,
    Extraction,
    build_programs,
    cost_model,
    cost_of,
    extract,
    extraction_depth,
    extractor_named,
)
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.saturation.admissible import admissible_under_no_overflow
from eqsat_uopc.saturation.config import SaturationConfig
from eqsat_uopc.saturation.errors import SaturationError
from eqsat_uopc.saturation.lower import Lowerer, term_key
from eqsat_uopc.saturation.picture import DEFAULT_MAX_ENODES, check_readable, draw
from eqsat_uopc.saturation.report import SaturationReport
from eqsat_uopc.saturation.serialize import Snapshot

if TYPE_CHECKING:
    from eqsat_uopc.extract.egraph import ClassId, EGraph
    from eqsat_uopc.saturation.hooks import Seeds

__all__ = ["Lease", "Saturation"]


class Lease:
    """A run's hold on its engine, ended by end() or when nothing refers to it any more. The
    Saturation and the egglog extractors of the EGraph it reads back both refer to it, so egglog's
    extractors work while either is held; it refers to neither, so no reference cycle keeps a run's
    snapshot and EGraph alive until the cyclic GC frees them, late and in bursts (what fragmented
    the heap egglog's push and pop allocate from)."""

    __slots__ = ("__weakref__", "_end")

    def __init__(self, release: Callable[[], object]) -> None:
        self._end = weakref.finalize(self, release)

    @property
    def alive(self) -> bool:
        return self._end.alive

    def end(self) -> None:
        self._end()


@dataclasses.dataclass
class LiveEGraph:
    """The egglog e-graph a run ended with: the engine's e-graph, how the program was lowered into it,
    and the last snapshot read, if it is still current."""

    egraph: bindings.EGraph
    lowerer: Lowerer
    root: int  # the program's N id
    snapshot: Snapshot | None = None
    trusted: frozenset[int] = frozenset()  # N ids of the program, greedy seed, hooks' rewrites


class Saturation:
    """A saturated e-graph of one program: its report, its serialized EGraph, extraction, queries.

    Made by `saturate` (runner.py). The e-graph is read back from egglog once, when something first
    needs it; extraction and queries keep working after `close()`, which returns the engine.
    `optimize` and `compare` close it for you.
    """

    def __init__(
        self,
        program: UOp,
        config: SaturationConfig,
        report: SaturationReport,
        seeds: Seeds,
        live: LiveEGraph | None,
        lease: Lease,
        egraph: EGraph | None = None,
    ) -> None:
        self.program = program
        self.config = config
        self.report = report
        self.seeds = seeds
        self._live = live
        self._lease = lease
        self._egraph_cache = egraph
        self._extractable_cache: EGraph | None = None  # under no_overflow: its admissible e-nodes

    @property
    def seed(self) -> UOp | None:
        """The greedy result put in the root's e-class (hooks/greedy_seed.py), if any."""
        return self.seeds.root_terms.get("greedy")

    @property
    def folded_seed(self) -> UOp | None:
        """The root's value found by folding the decided comparisons into the seed, if any."""
        return self.seeds.root_terms.get("folded")

    def close(self) -> None:
        """Read the e-graph back (extraction and queries keep working) and give the engine back.
        After close, only egglog's own extractors (egglog_tree, egglog_dag) are unavailable. What
        is read is egglog's tables (the snapshot); the EGraph is made from them when first asked."""
        if self._lease.alive:
            try:
                if self._live is not None:
                    self._current()
            finally:
                self._lease.end()

    @property
    def closed(self) -> bool:
        return not self._lease.alive

    def _current(self) -> Snapshot:
        live = self._live
        if live.snapshot is None:
            t = time.perf_counter()
            with gc_paused():
                live.snapshot = Snapshot(live.egraph)
            self.report.raise_time += time.perf_counter() - t
        return live.snapshot

    @property
    def egraph(self) -> EGraph:
        """The serialized e-graph (eqsat_uopc.extract.EGraph), root = the program's e-class."""
        if self._egraph_cache is None:
            with gc_paused():  # the snapshot and the EGraph: objects per e-node, no cycles
                t = time.perf_counter()
                self._egraph_cache, self._extractable_cache = self._read_back()
                self.report.raise_time += time.perf_counter() - t
        return self._egraph_cache

    def _read_back(self, region: dict | None = None) -> tuple[EGraph, EGraph | None]:
        """The EGraph of the e-graph read back (of its `region` only, if given: Snapshot.region) and,
        under no_overflow, its admissible e-nodes (admissible.py)."""
        snap, live = self._current(), self._live
        root = snap.by_name[live.root]
        egg = live.egraph if not self.closed else None
        lease = self._lease  # the EGraph's egglog extractors hold the engine too (Lease)
        egraph = snap.to_egraph(live.lowerer.args, (root,), egg, lambda: lease.alive, region)
        if self.config.int_semantics != "no_overflow":
            return egraph, None
        ids = snap.class_ids()
        trusted = {ids[snap.by_name[k]] for k in live.trusted if k in snap.by_name}
        bounds = {ids[v]: b for v, b in snap.bounds.items() if v in ids}
        return egraph, admissible_under_no_overflow(egraph, trusted, bounds)

    @property
    def extractable(self) -> EGraph:
        """The e-graph extraction chooses from: `.egraph`, under `no_overflow` without the e-nodes that
        may overflow where the program does not (admissible.py)."""
        egraph = self.egraph
        return egraph if self._extractable_cache is None else self._extractable_cache

    def extract(
        self,
        cost: Any = None,
        extractor: Any = None,
        time_limit: float | None = ...,
        branch_limit: int | None = ...,
    ) -> Extraction:
        """The best equivalent program under cost (see eqsat_uopc.extract.extract); cost, extractor,
        time_limit and branch_limit default to the config's (cost, extractor, extract_time_limit,
        extract_branch_limit). They bound an exact extractor (None: no limit; branch_limit is
        deterministic, time_limit wall-clock), whose result then says if it proved optimality. The result
        is never costlier than the program itself or the terms the hooks put in its e-class (the
        greedy seed: all passed as extraction candidates, which a heuristic extractor can miss)."""
        c = self.config
        model = cost_model(c.cost if cost is None else cost)
        extractor = c.extractor if extractor is None else extractor
        candidates = (*self.seeds.root_terms.values(), self.program)
        egraph, region = self._extraction_egraph(model, extractor, candidates)
        res = extract(
            egraph,
            cost=model,
            extractor=extractor,
            time_limit=c.extract_time_limit if time_limit is ... else time_limit,
            branch_limit=c.extract_branch_limit if branch_limit is ... else branch_limit,
            candidates=candidates,
        )
        info = res.info if region is None else {**res.info, "region": region}
        return dataclasses.replace(res, report=self.report, saturation=self, info=info)

    def _extraction_egraph(
        self, model: Any, extractor: Any, candidates: tuple[UOp, ...]
    ) -> tuple[EGraph, dict[str, int] | None]:
        """The e-graph to extract from: `.extractable`, or only the part of it where a program as
        cheap as the cheapest candidate can be, when that is less; with, then, what the part is
        (the result's `info["region"]`: its e-nodes, the whole e-graph's, and the depth bound).

        A program costing at most C under a model whose nodes each cost at least m is at most C / m
        nodes deep (cost.extraction_depth), so its e-classes lie at most C / m - 1 child steps below
        the root: the e-classes deeper than that (and the e-nodes over them) cannot be in a program
        as cheap as a candidate costing C, which extraction returns anyway when the extractor finds
        nothing cheaper (extract's candidates). The region is read back alone, and the whole e-graph
        not at all: a 100,000-node sum chain whose greedy seed is `x + c` has 425,000 e-nodes, of
        which extraction then reads a handful. The region is used only when the cheapest candidate
        is one of its programs (a candidate whose e-node a rule subsumed, or which, under
        no_overflow, may overflow, bounds nothing: the best program may cost more). egglog's own
        extractors read the live e-graph, and get the whole. The region is made whether or not the
        whole EGraph was built already, so that asking `.egraph` first changes no extraction."""
        if isinstance(extractor, str) and extractor != "auto":
            extractor = extractor_named(extractor)
        if self._live is None or isinstance(extractor, EgglogExtractor):
            return self.extractable, None
        if extraction_depth(model, 0) is None:  # no lower bound on a node's cost: no candidate bounds depth
            return self.extractable, None
        best_cost, best = min(((cost_of(u, model), u) for u in candidates), key=lambda priced: priced[0])
        depth = extraction_depth(model, best_cost)
        if not depth:  # a candidate costing less than one node: nothing to bound
            return self.extractable, None
        with gc_paused():
            snap = self._current()
            t = time.perf_counter()
            root = snap.by_name[self._live.root]
            region = snap.region((root,), depth - 1)
            found = None
            if region is not None and root in region:
                egraph, admissible = self._read_back(region)
                found = egraph if admissible is None else admissible
                if found.choice_of((best,)) is None:
                    found = None
            self.report.raise_time += time.perf_counter() - t
        if found is None:
            return self.extractable, None
        size = sum(len(ec.nodes) for ec in found.classes.values())
        return found, {"enodes": size, "of": snap.num_enodes, "depth": depth}

    def draw(
        self, path: str | Path, extraction: Extraction | None = None, max_enodes: int = DEFAULT_MAX_ENODES
    ) -> Path:
        """Write a picture of the e-graph to path (.dot, .json, .svg, .png or .pdf; see
        eqsat_uopc.saturation.picture), with extraction's choice highlighted (default: extract under
        the config's cost and extractor) and the program's e-class marked as the root."""
        check_readable(self.egraph, max_enodes)  # before extracting an e-graph too big to draw
        chosen = self.extract() if extraction is None else extraction
        return draw(self.egraph, path, chosen.choice, max_enodes=max_enodes)

    def equivalent(self, a: UOp, b: UOp) -> bool:
        """Are a and b in one e-class? A term not in the e-graph is its own class (as adding it
        without running rules would make it: congruence merges it with nothing that exists)."""
        for name, u in (("a", a), ("b", b)):
            if not isinstance(u, UOp):
                raise SaturationError(f"equivalent: {name} must be a UOp, got {type(u).__name__}")
        if a is b:
            return True
        ca, cb = self._class_of(a), self._class_of(b)
        return ca is not None and ca == cb

    def class_of(self, u: UOp) -> ClassId | None:
        """The id of u's e-class in `.egraph`, or None if u's term is not in the e-graph. A term the
        run lowered (the program, a hook's addition) is found by the name the lowering gave it, even
        after a rule subsumed its e-node (the read-back leaves subsumed e-nodes out, so
        `egraph.class_of`, which looks e-nodes up, does not find it): an extraction rooted at a
        subterm of the program starts from here (`dataclasses.replace(s.egraph, roots=...)`).

            >>> from eqsat_uopc.ir.uop import UOp
            >>> from eqsat_uopc.saturation import saturate
            >>> x = UOp.param(0)
            >>> s = saturate(UOp.stack(x * 2, x + x))
            >>> s.class_of(x * 2) == s.class_of(x + x), s.class_of(x * 3)
            (True, None)
        """
        if not isinstance(u, UOp):
            raise SaturationError(f"class_of: u must be a UOp, got {type(u).__name__}")
        if self._live is None:
            return self.egraph.class_of(u)
        v = self._class_of(u)
        return None if v is None else self._current().class_ids()[v]

    def _class_of(self, u: UOp) -> Any:
        """The e-class of u's term (hash-cons lookup, bottom-up), or None if it is not in the e-graph."""
        if self._live is None:  # decided without an engine: the seed graph's own index
            return self.egraph.class_of(u)
        snap, ids, lowerer = self._current(), self._live.lowerer.ids, self._live.lowerer
        if (i := ids.get(u)) is not None:
            return snap.by_name[i]
        classes: dict[UOp, Any] = {}
        for n in u.toposort():
            if (i := ids.get(n)) is not None:
                classes[n] = snap.by_name[i]
                continue
            key = term_key(n, lowerer, [classes[k] for k in n.src])
            if key is None or (v := snap.index.get(key)) is None:
                return None
            classes[n] = v
        return classes[u]

    def literal(self) -> UOp | None:
        """The CONST/STACK literal in the root's e-class, if saturation found the program's value."""
        eg = self.egraph
        choice = {}
        for ec in eg:
            for n in ec.nodes:
                if n.op.name == "CONST":
                    choice[ec.id] = n
                    break
        changed = True
        while changed:
            changed = False
            for ec in eg:
                if ec.id in choice:
                    continue
                for n in ec.nodes:
                    if n.op.name == "STACK" and all(k in choice for k in n.children):
                        choice[ec.id] = n
                        changed = True
                        break
        return build_programs(eg, choice)[0] if eg.roots[0] in choice else None
