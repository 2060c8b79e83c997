"""The extractor registry and the "auto" policy.

Every extractor has `name`, `optimal_for` ("tree": optimal for tree and depth cost models, "dag":
optimal for DAG cost models, None: a heuristic) and `extract(problem, time_limit) -> Solution`;
an extractor whose search a deterministic budget bounds (exact: branch-and-bound nodes) takes a
`branch_limit` keyword too. Register your own with `EXTRACTORS[name] = obj`.

"auto" policy (`choose_extractor`):
- a "tree" or "depth" cost model: bottom_up (optimal, O(E log C));
- a "dag" cost model on an e-graph of at most AUTO_EXACT_MAX_ENODES e-nodes: exact (an ILP warm-
  started with the greedy DAG result, so never worse than greedy), within the caller's branch
  limit (AUTO_BRANCH_LIMIT branch-and-bound nodes unless given) and time limit (none unless given);
- a "dag" cost model on an e-graph of at most AUTO_GREEDY_MAX_ENODES e-nodes: greedy_dag (its
  cost sets make it quadratic on long chains);
- a "dag" cost model on a larger e-graph: bottom_up (the tree aggregation of the same costs,
  linear; extraction's candidates keep it from doing worse than a known program).

    >>> from eqsat_uopc.extract import EXTRACTORS
    >>> {name: e.optimal_for for name, e in EXTRACTORS.items()}
    {'bottom_up': 'tree', 'greedy_dag': None, 'exact': 'dag', 'egglog_tree': None, 'egglog_dag': None}
"""

from __future__ import annotations

from typing import Any

from eqsat_uopc.extract.bottom_up import BottomUpExtractor
from eqsat_uopc.extract.egglog_extract import EgglogExtractor
from eqsat_uopc.extract.errors import ExtractionError
from eqsat_uopc.extract.greedy_dag import GreedyDagExtractor
from eqsat_uopc.extract.ilp import IlpExtractor

__all__ = [
    "AUTO_BRANCH_LIMIT",
    "AUTO_EXACT_MAX_ENODES",
    "AUTO_GREEDY_MAX_ENODES",
    "EXTRACTORS",
    "choose_extractor",
    "extractor_named",
]

# the ILP's time grows fast with size: on the tinygrad capture, median 1.2 s at 400-700 e-nodes and
# the 5 s limit hit on 22 of 28 e-graphs of 1,500-2,000, where greedy_dag takes milliseconds
AUTO_EXACT_MAX_ENODES = 400
AUTO_GREEDY_MAX_ENODES = 50_000  # greedy_dag's cost sets grow with depth: quadratic on long chains
# branch-and-bound nodes the exact extractor's solves may explore in all, by default: a deterministic
# bound on its search (a time limit is not: under load it cuts the search elsewhere). On the bundled
# corpora (6,113 exact extractions, bench/work_limits.py) one search took more (116 nodes, 4.8 CPU
# seconds; at 100 it returns the same program, unproved), the next most 65; a node costs 0.02-0.2
# CPU seconds on these ILPs (up to 400 e-nodes), so the limit keeps a search to seconds, as the 5 s
# wall-clock default it replaces did on a quiet machine
AUTO_BRANCH_LIMIT = 100

EXTRACTORS: dict[str, Any] = {
    "bottom_up": BottomUpExtractor(),
    "greedy_dag": GreedyDagExtractor(),
    "exact": IlpExtractor(),
    "egglog_tree": EgglogExtractor("egglog_tree", "tree"),
    "egglog_dag": EgglogExtractor("egglog_dag", "dag"),
}


def extractor_named(name: str) -> Any:
    if name not in EXTRACTORS:
        known = ", ".join(["auto", *sorted(EXTRACTORS)])
        raise ExtractionError(f"unknown extractor {name!r} (known: {known})")
    return EXTRACTORS[name]


def choose_extractor(kind: str, num_enodes: int) -> Any:
    """The extractor "auto" uses for a cost kind and e-graph size."""
    if kind in ("tree", "depth"):
        return EXTRACTORS["bottom_up"]
    if num_enodes <= AUTO_EXACT_MAX_ENODES:
        return EXTRACTORS["exact"]
    if num_enodes <= AUTO_GREEDY_MAX_ENODES:
        return EXTRACTORS["greedy_dag"]
    return EXTRACTORS["bottom_up"]
