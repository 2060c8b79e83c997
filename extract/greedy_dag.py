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

from eqsat_uopc.extract.problem import ExtractionProblem, Solution

__all__ = ["GreedyDagExtractor", "greedy_dag_choice"]


def greedy_dag_choice(problem: ExtractionProblem) -> tuple[dict[int, int], list[float]]:
    ncls = problem.num_classes
    cost = [math.inf] * ncls
    best = [-1] * ncls
    final = [False] * ncls
    sets: list[set[int] | None] = [None] * ncls
    cand_sets: dict[int, set[int]] = {}
    children = problem.node_children
    node_cost = problem.node_cost
    node_class = problem.node_class
    pos = problem.node_position
    parents = problem.parents
    pending = [len(set(k)) for k in children]
    readers = [len(p) for p in parents]  # e-nodes still to read each final e-class's set
    heap: list[tuple[float, int, int, int]] = []

    def release(ch: int) -> None:
        readers[ch] -= 1
        if readers[ch] == 0:
            sets[ch] = None  # nobody reads it again: keeps memory at the frontier of the search

    def relax(n: int) -> None:
        k = node_class[n]
        kids = sorted(set(children[n]), key=lambda ch: -len(sets[ch]))  # type: ignore[arg-type]
        if final[k]:
            for ch in kids:
                release(ch)
            return
        if kids:
            first = kids[0]
            # the last reader takes the largest set over instead of copying it: a chain costs O(1) a link
            base = sets[first] if readers[first] == 1 else set(sets[first])  # type: ignore[arg-type]
            sets[first] = None if readers[first] == 1 else sets[first]
            readers[first] -= 1
            total = cost[first]
            for ch in kids[1:]:
                for c in sets[ch]:  # type: ignore[union-attr]
                    if c not in base:
                        base.add(c)
                        total += node_cost[best[c]]
                release(ch)
        else:
            base, total = set(), 0
        base.add(k)
        total += node_cost[n]
        b = best[k]
        if b < 0 or total < cost[k] or (total == cost[k] and pos[n] < pos[b]):
            cost[k] = total
            best[k] = n
            cand_sets[k] = base
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


def improve_choice(problem: ExtractionProblem, choice: dict[int, int], max_passes: int = 4) -> dict[int, int]:
    """Hill climbing on a DAG choice: switch one e-class to another e-node while that lowers the DAG cost.

    Reference counts over the chosen DAG make a switch's cost change local: the classes a new e-node
    pulls in (through `choice`) are added, the classes only the old e-node kept alive are freed. A
    switch is kept only if it lowers the cost and leaves the choice acyclic (checked by a search from
    the switched e-class); otherwise it is undone. E-classes are visited in first-visit order from the
    roots and e-nodes in e-class order, so the result is deterministic.
    """
    choice = dict(choice)
    if any(r not in choice for r in problem.roots):
        return choice  # a root without a finite term: nothing to improve (extract reports it)
    children = problem.node_children
    node_cost = problem.node_cost
    refs: dict[int, int] = {}
    total = 0.0
    log: list[tuple[str, int, int]] = []  # ("ref", class, old count) / ("choice", class, old node)

    def inc(c: int) -> float:
        added = 0.0
        stack = [c]
        while stack:
            k = stack.pop()
            old = refs.get(k, 0)
            log.append(("ref", k, old))
            refs[k] = old + 1
            if old == 0:
                added += node_cost[choice[k]]
                stack.extend(dict.fromkeys(children[choice[k]]))
        return added

    def dec(c: int) -> float:
        freed = 0.0
        stack = [c]
        while stack:
            k = stack.pop()
            old = refs[k]
            log.append(("ref", k, old))
            refs[k] = old - 1
            if old == 1:
                freed += node_cost[choice[k]]
                stack.extend(dict.fromkeys(children[choice[k]]))
        return freed

    def undo(mark: int) -> None:
        while len(log) > mark:
            what, k, old = log.pop()
            if what == "ref":
                if old:
                    refs[k] = old
                else:
                    refs.pop(k, None)
            else:
                choice[k] = old

    def reaches(start: int, target: int) -> bool:
        seen: set[int] = set()
        stack = list(dict.fromkeys(children[choice[start]]))
        while stack:
            k = stack.pop()
            if k == target:
                return True
            if k not in seen:
                seen.add(k)
                stack.extend(children[choice[k]])
        return False

    for r in problem.roots:
        total += inc(r)
    log.clear()
    usable = [all(ch in choice for ch in kids) for kids in children]
    for _ in range(max_passes):
        improved = False
        for c in problem.needed(choice):
            if refs.get(c, 0) == 0:
                continue
            for n in problem.class_nodes[c]:
                old = choice[c]
                if n == old or not usable[n] or c in children[n]:
                    continue
                mark = len(log)
                log.append(("choice", c, old))
                choice[c] = n
                delta = node_cost[n] - node_cost[old]
                for ch in dict.fromkeys(children[n]):
                    delta += inc(ch)
                for ch in dict.fromkeys(children[old]):
                    delta -= dec(ch)
                if delta < -1e-9 * max(1.0, abs(total)) and not reaches(c, c):
                    total += delta
                    log.clear()
                    improved = True
                else:
                    undo(mark)
        if not improved:
            break
    return choice


class GreedyDagExtractor:
    """Greedy DAG choice (faster-greedy-dag style), then hill climbing; never cyclic, not optimal.

    improve=False gives the plain greedy choice.
    """

    name = "greedy_dag"
    optimal_for = None

    def __init__(self, improve: bool = True) -> None:
        self.improve = improve

    def extract(self, problem: ExtractionProblem, time_limit: float | None = None) -> Solution:
        choice, _ = greedy_dag_choice(problem)
        if self.improve:
            choice = improve_choice(problem, choice)
        return Solution(choice)
