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


class _CountedChoice:
    """A DAG choice with reference counts over its chosen e-classes and an undo log.

    Reference counts make a switch's cost change local: the classes a new e-node pulls in (through
    the choice) are added, the classes only the old e-node kept alive are freed.
    """

    def __init__(self, problem: ExtractionProblem, choice: dict[int, int]):
        self.problem, self.choice = problem, choice
        self.refs: dict[int, int] = {}
        self.log: list[tuple[str, int, int]] = []  # ("ref", class, old count) / ("choice", class, old node)
        self.total = sum(self._inc(r) for r in problem.roots)
        self.log.clear()
        self.rank: dict[int, int] | None = None  # _ranks(): None when a switch made it stale
        self.uphill = False  # did the last cycle check meet a class ranked above the switched one

    def _inc(self, c: int) -> float:
        added, stack = 0.0, [c]
        children, node_cost, choice = self.problem.node_children, self.problem.node_cost, self.choice
        while stack:
            k = stack.pop()
            old = self.refs.get(k, 0)
            self.log.append(("ref", k, old))
            self.refs[k] = old + 1
            if old == 0:
                added += node_cost[choice[k]]
                stack.extend(dict.fromkeys(children[choice[k]]))
        return added

    def _dec(self, c: int) -> float:
        freed, stack = 0.0, [c]
        children, node_cost, choice = self.problem.node_children, self.problem.node_cost, self.choice
        while stack:
            k = stack.pop()
            old = self.refs[k]
            self.log.append(("ref", k, old))
            self.refs[k] = old - 1
            if old == 1:
                freed += node_cost[choice[k]]
                stack.extend(dict.fromkeys(children[choice[k]]))
        return freed

    def _undo(self, mark: int) -> None:
        while len(self.log) > mark:
            what, k, old = self.log.pop()
            if what == "choice":
                self.choice[k] = old
            elif old:
                self.refs[k] = old
            else:
                self.refs.pop(k, None)

    def _ranks(self) -> dict[int, int]:
        """A topological rank of the chosen e-classes (each above the classes its chosen e-node
        needs), computed when the last one was made stale."""
        if self.rank is None:
            children, choice = self.problem.node_children, self.choice
            rank: dict[int, int] = {}
            for top in choice:
                if top in rank:
                    continue
                stack: list[tuple[int, bool]] = [(top, False)]
                while stack:
                    k, expanded = stack.pop()
                    if expanded:
                        rank.setdefault(k, len(rank))
                        continue
                    if k in rank:
                        continue
                    stack.append((k, True))
                    stack.extend((ch, False) for ch in children[choice[k]] if ch not in rank and ch in choice)
            self.rank = rank
        return self.rank

    def _reaches_itself(self, start: int) -> bool:
        """Does the class `start` (just switched) reach itself through the choice? A class ranked
        below `start` cannot reach it (the ranks are a topological order of the choice before the
        switch), so the search visits only classes ranked above it: none when every class the new
        e-node needs ranks below, which is the common switch, so a hill climb over a long chain
        costs O(1) a switch instead of a walk of the whole chain."""
        rank = self._ranks()
        floor = rank[start]
        children, choice = self.problem.node_children, self.choice
        seen: set[int] = set()
        stack = [k for k in dict.fromkeys(children[choice[start]]) if rank[k] >= floor]
        self.uphill = bool(stack)
        while stack:
            k = stack.pop()
            if k == start:
                return True
            if k not in seen:
                seen.add(k)
                stack.extend(ch for ch in children[choice[k]] if rank[ch] >= floor)
        return False

    def try_switch(self, c: int, n: int, neutral: bool = False) -> bool:
        """Choose e-node n for class c if that lowers the DAG cost (or, with neutral, keeps it) and
        stays acyclic; else undo."""
        children, node_cost = self.problem.node_children, self.problem.node_cost
        self._ranks()  # of the choice before the switch (acyclic)
        old = self.choice[c]
        mark = len(self.log)
        self.log.append(("choice", c, old))
        self.choice[c] = n
        delta = node_cost[n] - node_cost[old]
        for ch in dict.fromkeys(children[n]):
            delta += self._inc(ch)
        for ch in dict.fromkeys(children[old]):
            delta -= self._dec(ch)
        eps = 1e-9 * max(1.0, abs(self.total))
        if (delta < -eps or (neutral and delta <= eps)) and not self._reaches_itself(c):
            self.total += delta
            self.log.clear()
            if self.uphill:
                self.rank = None  # c now needs a class ranked above it: rank again when next asked
            return True
        self._undo(mark)
        return False


def improve_choice(problem: ExtractionProblem, choice: dict[int, int], max_passes: int = 4) -> dict[int, int]:
    """Hill climbing on a DAG choice: switch one e-class to another e-node while that lowers the DAG cost.

    A switch is kept only if it lowers the cost and leaves the choice acyclic (checked by a search
    from the switched e-class); otherwise it is undone. Once no switch lowers the cost, a second
    round of passes also takes switches that keep it (each e-class at most once): sharing often
    needs two switches of which only the second pays, as `x + 2` for `x + -2` under a `% 4`, and
    then `x < 2` for `1 < x` sharing its constant. The second round starts from the first one's
    optimum and never raises the cost; afterwards every sidestep that did not pay is undone (an
    equal-cost switch back), so that ties keep the first choice (`x + 2`, not `2 + x`). E-classes
    are visited in first-visit order from the roots and e-nodes in e-class order, so the result is
    deterministic.
    """
    choice = dict(choice)
    if any(r not in choice for r in problem.roots):
        return choice  # a root without a finite term: nothing to improve (extract reports it)
    children = problem.node_children
    counted = _CountedChoice(problem, choice)
    usable = [all(ch in choice for ch in kids) for kids in children]
    sidestepped: dict[int, int] = {}  # e-class switched once at equal cost -> its e-node before
    for sidestep in (False, True):
        for _ in range(max_passes):
            moved = False
            for c in problem.needed(choice):
                if counted.refs.get(c, 0) == 0:
                    continue
                for n in problem.class_nodes[c]:
                    if n != choice[c] and usable[n] and c not in children[n]:
                        before, old = counted.total, choice[c]
                        if counted.try_switch(c, n, neutral=sidestep and c not in sidestepped):
                            moved = True
                            if counted.total >= before:
                                sidestepped[c] = old
            if not moved:
                break
    # undo the sidesteps that did not pay: back to the e-node before wherever that costs nothing
    for c, old in sidestepped.items():
        if choice[c] != old:
            if counted.refs.get(c, 0) == 0:
                choice[c] = old
            else:
                counted.try_switch(c, old, neutral=True)
    return choice


class GreedyDagExtractor:
    """Greedy DAG choice (faster-greedy-dag style), then hill climbing; never cyclic, not optimal.

    improve=False gives the plain greedy choice.
    """

    name = "greedy_dag"
    optimal_for = None

    def __init__(self, improve: bool = True) -> None:
        self.improve = improve

    def extract(
        self, problem: ExtractionProblem, time_limit: float | None = None, branch_limit: int | None = None
    ) -> Solution:
        choice, _ = greedy_dag_choice(problem)
        if self.improve:
            choice = improve_choice(problem, choice)
        return Solution(choice)
