"""Greedy DAG extraction in the style of extraction-gym's faster-greedy-dag.

Each e-class gets the e-node whose *set* of needed e-classes (itself plus the union of its
children's sets) has the smallest total cost: shared subterms are paid once, which tree extraction
cannot see. As in bottom_up.py, e-classes are finalized in increasing cost order from a priority
queue (a node's DAG cost is never below a child's when costs are non-negative), and an e-node is
only considered once all its children are final, so the choice can never be cyclic.

The result is a heuristic: the best set for an e-class is chosen for that e-class alone, and a
parent that combines two children cannot make them share more. Ties break as in bottom_up.py
(cost, then e-class order, then e-node order). Unions start from the largest child set, which is
extraction-gym's "faster" trick.
"""

from __future__ import annotations

import heapq
import math

from .problem import ExtractionProblem, Solution

__all__ = ["GreedyDagExtractor", "greedy_dag_choice"]


def greedy_dag_choice(problem: ExtractionProblem) -> tuple[dict[int, int], list[float]]:
    ncls = problem.num_classes
    cost = [math.inf] * ncls
    best = [-1] * ncls
    final = [False] * ncls
    sets: list[frozenset[int] | None] = [None] * ncls
    cand_sets: dict[int, frozenset[int]] = {}
    children = problem.node_children
    node_cost = problem.node_cost
    node_class = problem.node_class
    pos = problem.node_position
    parents = problem.parents
    pending = [len(set(k)) for k in children]
    heap: list[tuple[float, int, int, int]] = []

    def relax(n: int) -> None:
        k = node_class[n]
        if final[k]:
            return
        kids = sorted(set(children[n]), key=lambda ch: -len(sets[ch]))  # type: ignore[arg-type]
        if kids:
            base = set(sets[kids[0]])  # type: ignore[arg-type]
            total = cost[kids[0]]
            for ch in kids[1:]:
                for c in sets[ch]:  # type: ignore[union-attr]
                    if c not in base:
                        base.add(c)
                        total += node_cost[best[c]]
        else:
            base, total = set(), 0
        base.add(k)
        total += node_cost[n]
        b = best[k]
        if b < 0 or total < cost[k] or (total == cost[k] and pos[n] < pos[b]):
            cost[k] = total
            best[k] = n
            cand_sets[k] = frozenset(base)
            heapq.heappush(heap, (total, k, pos[n], n))

    for n in range(problem.num_nodes):
        if pending[n] == 0:
            relax(n)
    while heap:
        _, k, _, n = heapq.heappop(heap)
        if final[k] or best[k] != n:
            continue
        final[k] = True
        sets[k] = cand_sets.pop(k)
        for p in parents[k]:
            pending[p] -= 1
            if pending[p] == 0:
                relax(p)
    return {k: n for k, n in enumerate(best) if n >= 0}, cost


class GreedyDagExtractor:
    """Cheapest set of needed e-classes per e-class, bottom-up; never cyclic, not optimal."""

    name = "greedy_dag"
    optimal_for = None

    def extract(self, problem: ExtractionProblem, time_limit: float | None = None) -> Solution:
        choice, _ = greedy_dag_choice(problem)
        return Solution(choice)
