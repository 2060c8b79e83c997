"""Bottom-up extraction: optimal for tree and depth costs, and a fast heuristic for DAG costs.

The classic fixpoint ("every e-class takes its cheapest e-node given its children's costs") run in
Knuth's generalization of Dijkstra's algorithm: tree cost (node + sum of children) and depth cost
(node + max of children) never fall below a child's cost when costs are non-negative, so e-classes
can be finalized in increasing cost order from a priority queue. An e-node is considered once all
its child e-classes are final, so every chosen e-node's children were finalized before its own
e-class: the choice is acyclic by construction, also with zero-cost e-nodes and with e-classes that
contain themselves (x = x * 1 after a merge). Each e-node is relaxed once: O(E log C).

Ties break deterministically: lower cost first; among equal costs the e-class earlier in e-graph
order is finalized first, and within an e-class the e-node earlier in its tuple wins.
For "dag" cost models the extractor minimizes the tree aggregation of the same node costs and makes
no optimality claim.
"""

from __future__ import annotations

import heapq
import math

from eqsat_uopc.extract.problem import ExtractionProblem, Solution

__all__ = ["BottomUpExtractor", "bottom_up_costs"]


def bottom_up_costs(problem: ExtractionProblem, kind: str) -> tuple[list[float], list[int]]:
    """Optimal per-class cost under "tree" or "depth" aggregation, and the e-node achieving it (-1: none)."""
    ncls = problem.num_classes
    cost = [math.inf] * ncls
    best = [-1] * ncls
    final = [False] * ncls
    children = problem.node_children
    node_cost = problem.node_cost
    node_class = problem.node_class
    pos = problem.node_position
    parents = problem.parents
    # each e-node waits for its distinct children (most have two, or one, or none: no set for them)
    pending = [m if (m := len(k)) < 2 else 2 - (k[0] == k[1]) if m == 2 else len(set(k)) for k in children]
    heap: list[tuple[float, int, int, int]] = []
    is_tree = kind == "tree"
    cost_of_class = cost.__getitem__

    def relax(n: int) -> None:
        k = node_class[n]
        if final[k]:
            return
        kids = children[n]
        if is_tree:
            c = node_cost[n] + sum(map(cost_of_class, kids))
        else:
            c = node_cost[n] + max(map(cost_of_class, kids), default=0)
        b = best[k]
        if b < 0 or c < cost[k] or (c == cost[k] and pos[n] < pos[b]):
            cost[k] = c
            best[k] = n
            heapq.heappush(heap, (c, k, pos[n], n))

    for n in range(problem.num_nodes):
        if pending[n] == 0:
            relax(n)
    while heap:
        _, k, _, n = heapq.heappop(heap)
        if final[k] or best[k] != n:
            continue
        final[k] = True
        for p in parents[k]:
            pending[p] -= 1
            if pending[p] == 0:
                relax(p)
    return cost, best


class BottomUpExtractor:
    """Cheapest e-node per e-class bottom-up; optimal for "tree" (and "depth") cost models."""

    name = "bottom_up"
    optimal_for = "tree"

    def extract(
        self, problem: ExtractionProblem, time_limit: float | None = None, branch_limit: int | None = None
    ) -> Solution:
        kind = "depth" if problem.kind == "depth" else "tree"
        cost, best = bottom_up_costs(problem, kind)
        choice = {k: n for k, n in enumerate(best) if n >= 0}
        exact = problem.kind in ("tree", "depth")
        claimed = None
        if exact and all(r in choice for r in problem.roots):
            per_root = [cost[r] for r in problem.roots]
            claimed = sum(per_root) if kind == "tree" else max(per_root)
        return Solution(choice, optimal=True if exact else None, bound=claimed, claimed_cost=claimed)
