"""Exact DAG extraction: an integer linear program solved by HiGHS (highspy), within a branch limit.

Variables: x_n in {0, 1} per e-node (chosen or not), y_c in {0, 1} per e-class (needed or not).
Constraints:
- sum of an e-class's x_n = y_c (one e-node per needed e-class); y_c = 1 for the roots;
- a chosen e-node needs each child e-class: x_n <= y_d (two non-zeros a row: a sparse, fast LP, and
  HiGHS can branch on whole e-classes);
- acyclicity, by cycle cuts added lazily: for a set S of e-classes and one of them, c0,
      sum of x_n over e-nodes n of S with no child in S  >=  y_c0
  (if c0 is chosen, the chosen DAG restricted to S has a sink: a generalized subtour elimination
  constraint). Every e-class set on a cycle of the e-class graph (its strongly connected components,
  found with networkx) gets these cuts up front; then the ILP is solved, and while its solution has a
  cycle, the cuts for the chosen cycles' e-classes are added and it is solved again.
Objective: sum of node_cost(n) x_n, the "dag" aggregation (each needed e-class paid once).

Why cuts and not the textbook level variables (t_c >= t_d + 1 - M (1 - x_n)): on saturated e-graphs
(associativity and commutativity make large cycles) the big-M rows are nearly free in the LP
relaxation and HiGHS spent 20 s proving what the cuts prove in a fraction of a second.

Each solve is a relaxation of the true problem (fewer cycle cuts), so its optimum is a valid lower
bound; an acyclic optimum is therefore optimal. When a limit stops the search, the best acyclic
choice known (the warm start or a better one found) is returned with `optimal=False`, the last
proved bound, and `info["limit"]` naming the limit. The limits: `branch_limit`, the branch-and-bound
nodes HiGHS may explore over all the solves (its `mip_max_nodes`, given what is left to each
solve), deterministic, so a search it stops stops at the same place on any machine; MAX_ROUNDS cut
rounds and NEC_BUDGET below, deterministic too; and `time_limit`, wall-clock, off unless given,
which under load cuts the search elsewhere. HiGHS has no deterministic limit on the work before its
first node (presolve, the root's cuts and heuristics): that work depends on the model's size only,
which "auto" bounds by choosing this extractor for small e-graphs only (registry.py).

Necessary e-classes (`necessary_classes`): the e-classes every finite term of an e-class contains,
a greatest fixpoint over the e-graph. They give valid rows y_c <= y_d (d necessary for c; y_d = 1
if d is necessary for a root), which the LP relaxation, fond of splitting a choice into fractions,
cannot dodge; and a lower bound on a term's DAG cost: the sum of the cheapest e-node of each
e-class it must contain.

Before solving, the problem is pruned: only e-classes reachable from the roots; no e-node that has
its own e-class as a child or must contain it (never part of an acyclic choice), or a child with no
finite term, or a lower bound above the greedy DAG cost (two bounds: node cost + the largest child
bound, the depth aggregation; and the necessary-class sum above); and no e-node dominated by another
of its e-class (no dearer, needing a subset of its child e-classes: commutative twins). Every solve
is warm-started with the greedy DAG choice (hill-climbed), so the result is never worse than greedy.

With integer node costs the solver stops when the gap is below 1 (no better integer cost exists);
otherwise the gap tolerance is 1e-9. Optimality is only claimed for "dag" cost models (for "tree"
and "depth" the ILP minimizes the DAG aggregation of the same node costs and makes no claim). Ties
between optima are whatever HiGHS finds first. HiGHS runs single-threaded with a fixed seed, so
results are deterministic unless a time limit cuts the search short.
"""

from __future__ import annotations

import math
import os
import time
from typing import Any

import networkx as nx
import numpy as np
from eqsat_uopc.extract.bottom_up import bottom_up_costs
from eqsat_uopc.extract.greedy_dag import greedy_dag_choice, improve_choice
from eqsat_uopc.extract.problem import ExtractionProblem, Solution

__all__ = ["IlpExtractor"]

_banner_silenced = False
MAX_ROUNDS = 200  # cut rounds before giving up (with the best acyclic choice, optimal=False)
NEC_BUDGET = 2_000_000  # set elements the necessary-class analysis may build before it gives up


def _new_highs():
    """A silent Highs instance (highspy prints a banner to fd 1 the first time one is created)."""
    global _banner_silenced
    import highspy

    if _banner_silenced:
        h = highspy.Highs()
    else:
        saved = os.dup(1)
        try:
            with open(os.devnull, "w") as devnull:
                os.dup2(devnull.fileno(), 1)
                h = highspy.Highs()
        finally:
            os.dup2(saved, 1)
            os.close(saved)
        _banner_silenced = True
    h.setOptionValue("output_flag", False)
    return h


def necessary_classes(
    problem: ExtractionProblem, usable: list[bool], budget: int = NEC_BUDGET
) -> list[frozenset[int] | None] | None:
    """For each e-class, the e-classes every finite term of it contains (None: it has no term).

    Returns None instead when the sets would hold more than `budget` elements in all (a long chain
    makes them quadratic): the analysis only strengthens the exact extractor, which does without it.

    The greatest fixpoint of nec(c) = {c} | intersection over c's usable e-nodes n of the union of
    nec(d) over n's children d, computed downwards from "everything" (None) with a worklist. Sound by
    induction on a term's height: the root e-node is one of the intersected ones.
    """
    nec: list[frozenset[int] | None] = [None] * problem.num_classes
    children = problem.node_children
    parents = problem.parents
    work = list(range(problem.num_classes))
    queued = [True] * problem.num_classes
    while work:
        c = work.pop()
        queued[c] = False
        acc: frozenset[int] | None = None  # None = the universe
        for n in problem.class_nodes[c]:
            if not usable[n]:
                continue
            union: set[int] = set()
            top = False
            for d in children[n]:
                if nec[d] is None:
                    top = True
                    break
                union |= nec[d]
            if top:
                continue
            acc = frozenset(union) if acc is None else acc & union
        new = None if acc is None else acc | {c}
        if new is not None:
            budget -= len(new)
            if budget < 0:
                return None
        if new != nec[c]:
            nec[c] = new
            for p in parents[c]:
                k = problem.node_class[p]
                if not queued[k]:
                    queued[k] = True
                    work.append(k)
    return nec


def _undominated(problem: ExtractionProblem, nodes: list[int], replaced: dict[int, int]) -> list[int]:
    """nodes without those another one dominates, recording replaced[dropped] = its dominator.

    m dominates n (same e-class) if m costs no more and needs a subset of n's child e-classes: any
    acyclic choice using n stays acyclic and gets no dearer with m instead. Commutative twins
    (a + b, b + a) are the common case; of equals the earlier e-node is kept.
    """
    out: list[tuple[int, frozenset[int]]] = []
    order = sorted(nodes, key=lambda n: (problem.node_cost[n], len(set(problem.node_children[n])), n))
    for n in order:
        kids = frozenset(problem.node_children[n])
        cost = problem.node_cost[n]
        dom = next((m for m, mk in out if problem.node_cost[m] <= cost and mk <= kids), None)
        if dom is None:
            out.append((n, kids))
        else:
            replaced[n] = dom
    return sorted(n for n, _ in out)


class _Model:
    """The pruned ILP: columns are the kept e-nodes; rows are added as (indices, values, lo, hi)."""

    def __init__(self, problem: ExtractionProblem, kept: dict[int, list[int]]) -> None:
        import highspy

        self.hs = highspy
        self.problem = problem
        self.kept = kept
        self.classes = sorted(kept)
        self.nodes = [n for c in self.classes for n in kept[c]]
        self.col = {n: j for j, n in enumerate(self.nodes)}
        self.rows = 0
        self.bb_nodes = 0
        self.lp_iterations = 0
        self.cuts: set[tuple[frozenset[int], int]] = set()
        self.h = h = _new_highs()
        h.setOptionValue("threads", 1)
        h.setOptionValue("random_seed", 0)
        h.setOptionValue("mip_rel_gap", 0.0)
        costs = [float(problem.node_cost[n]) for n in self.nodes]
        self.integral = all(c.is_integer() for c in costs)
        h.setOptionValue("mip_abs_gap", 0.999 if self.integral else 1e-9)
        # columns: x_n per kept e-node, then y_c per e-class (y_c = 1 iff the e-class is needed)
        self.ycol = {c: len(self.nodes) + k for k, c in enumerate(self.classes)}
        ncol = len(self.nodes) + len(self.classes)
        roots = set(problem.roots)
        lp = highspy.HighsLp()
        lp.num_col_ = ncol
        lp.col_cost_ = np.array(costs + [0.0] * len(self.classes))
        lp.col_lower_ = np.array([0.0] * len(self.nodes) + [1.0 if c in roots else 0.0 for c in self.classes])
        lp.col_upper_ = np.ones(ncol)
        lp.integrality_ = [highspy.HighsVarType.kInteger] * ncol
        h.passModel(lp)
        batch = []
        for c in self.classes:
            xs = [self.col[n] for n in kept[c]]
            batch.append(([*xs, self.ycol[c]], [1.0] * len(xs) + [-1.0], 0.0, 0.0))  # sum x_n = y_c
        for n in self.nodes:
            for ch in dict.fromkeys(problem.node_children[n]):
                x_n_needs_y_d = ([self.col[n], self.ycol[ch]], [1.0, -1.0], -highspy.kHighsInf, 0.0)
                batch.append(x_n_needs_y_d)
        self.add_rows(batch)

    def add_rows(self, batch: list[tuple[list[int], list[float], float, float]]) -> None:
        if not batch:
            return
        starts, index, value = [], [], []
        for xs, vs, _, _ in batch:
            starts.append(len(index))
            index.extend(xs)
            value.extend(vs)
        self.h.addRows(
            len(batch),
            np.array([b[2] for b in batch]),
            np.array([b[3] for b in batch]),
            len(index),
            np.array(starts, dtype=np.int32),
            np.array(index, dtype=np.int32),
            np.array(value),
        )
        self.rows += len(batch)

    def necessary(self, nec: list[frozenset[int] | None]) -> None:
        """y_c <= y_d for every e-class d that every term of c contains; the roots' fixed to 1."""
        batch = []
        for c in self.classes:
            for d in sorted(nec[c] or ()):
                if d != c and d in self.ycol:
                    batch.append(([self.ycol[c], self.ycol[d]], [1.0, -1.0], -self.hs.kHighsInf, 0.0))
        for r in self.problem.roots:
            for d in nec[r] or ():
                if d in self.ycol:
                    self.h.changeColBounds(self.ycol[d], 1.0, 1.0)
        self.add_rows(batch)

    def cycle_cuts(self, component: set[int]) -> int:
        """Add the sink cuts of an e-class set (one per member c0); returns how many were new."""
        exits = [
            self.col[n]
            for c in sorted(component)
            for n in self.kept[c]
            if not any(ch in component for ch in self.problem.node_children[n])
        ]
        key_set = frozenset(component)
        batch = []
        for c0 in sorted(component):
            if (key_set, c0) in self.cuts:
                continue
            self.cuts.add((key_set, c0))
            xs = [*exits, self.ycol[c0]]
            vs = [1.0] * len(exits) + [-1.0]
            batch.append((xs, vs, 0.0, self.hs.kHighsInf))
        self.add_rows(batch)
        return len(batch)

    def solve(
        self, start: dict[int, int], time_limit: float | None, branch_limit: int | None
    ) -> tuple[str, dict[int, int] | None, float]:
        """Run the MIP from the warm start: (status, chosen e-node per e-class or None, lower bound).
        The status is "optimal", "Branch limit reached" (branch_limit nodes explored), or HiGHS's."""
        h, hs = self.h, self.hs
        if time_limit is not None:
            h.setOptionValue("time_limit", max(time_limit, 0.0))
        if branch_limit is not None:
            h.setOptionValue("mip_max_nodes", max(branch_limit, 0))
        x = [0.0] * (len(self.nodes) + len(self.classes))
        for c in self.problem.needed(start):
            x[self.col[start[c]]] = 1.0
            x[self.ycol[c]] = 1.0
        sol = hs.HighsSolution()
        sol.col_value = x
        h.setSolution(sol)
        h.run()
        status = h.getModelStatus()
        info = h.getInfo()
        bound = info.mip_dual_bound
        self.bb_nodes += info.mip_node_count
        self.lp_iterations += info.simplex_iteration_count
        choice = None
        if info.primal_solution_status == 2:
            values = h.getSolution().col_value
            choice = {self.problem.node_class[n]: n for n, j in self.col.items() if values[j] > 0.5}
        if status == hs.HighsModelStatus.kOptimal:
            name = "optimal"
        elif branch_limit is not None and info.mip_node_count >= branch_limit:
            name = "Branch limit reached"  # HiGHS says "Solution limit reached" for its node limit
        else:
            name = h.modelStatusToString(status)
        return name, choice, bound


def _chosen_cycles(problem: ExtractionProblem, choice: dict[int, int]) -> list[set[int]]:
    """The e-class sets of the cycles the roots reach through choice (strongly connected components)."""
    g = nx.DiGraph()
    seen: set[int] = set()
    stack = list(problem.roots)
    while stack:
        c = stack.pop()
        if c in seen:
            continue
        seen.add(c)
        g.add_node(c)
        for ch in problem.node_children[choice[c]]:
            g.add_edge(c, ch)
            stack.append(ch)
    return [comp for comp in nx.strongly_connected_components(g) if len(comp) > 1]


def _prune(problem: ExtractionProblem, upper: float) -> tuple[list[bool], Any]:
    """Which e-nodes can be in a choice no costlier than `upper`, and the necessary classes.

    The depth aggregation of the node costs is a lower bound on the DAG cost of any term of a class
    (a term's DAG holds its root node and the DAG of each child): no e-node whose bound exceeds the
    upper bound can be in an optimal choice. The e-classes every term through n contains are
    distinct and each costs at least its cheapest e-node: a second, often much stronger bound; and
    a term through n that must contain n's own e-class is cyclic.
    """
    lower, _ = bottom_up_costs(problem, "depth")
    children, node_class, node_cost = problem.node_children, problem.node_class, problem.node_cost
    slack = 1e-9 * max(1.0, abs(upper))

    def depth_ok(n: int) -> bool:
        k = node_class[n]
        kids = children[n]
        if any(c == k or lower[c] == math.inf for c in kids):
            return False
        return node_cost[n] + max((lower[c] for c in kids), default=0) <= upper + slack

    ok = [depth_ok(n) for n in range(problem.num_nodes)]
    for _ in range(2):
        nec = necessary_classes(problem, ok)
        if nec is None:
            break
        cheapest = [
            min((node_cost[n] for n in problem.class_nodes[c] if ok[n]), default=math.inf)
            for c in range(problem.num_classes)
        ]
        for n in range(problem.num_nodes):
            if ok[n]:
                if any(nec[d] is None for d in children[n]):  # a child left with no finite term
                    ok[n] = False
                    continue
                need = set().union(*(nec[d] for d in children[n]))  # type: ignore[arg-type]
                k = node_class[n]
                ok[n] = k not in need and node_cost[n] + sum(cheapest[d] for d in need) <= upper + slack
    return ok, (necessary_classes(problem, ok) if nec is not None else None)


def _necessary_cost(problem: ExtractionProblem, ok: list[bool], nec: list) -> float:
    """A lower bound on the DAG cost of any choice: every term of a root holds each of the root's
    necessary classes, distinct, and each costs at least its cheapest usable e-node."""
    need: set[int] = set()
    for r in problem.roots:
        if nec[r] is None:
            return 0.0
        need |= nec[r]
    cheapest = (
        min((problem.node_cost[n] for n in problem.class_nodes[c] if ok[n]), default=0.0) for c in need
    )
    return float(sum(cheapest))


def _kept_nodes(problem: ExtractionProblem, ok: list[bool]) -> tuple[dict[int, list[int]], dict[int, int]]:
    """The undominated usable e-nodes of every class reachable from the roots, and the dominated
    e-nodes replaced by the one that dominates them."""
    kept: dict[int, list[int]] = {}
    replaced: dict[int, int] = {}
    stack = list(problem.roots)
    while stack:
        c = stack.pop()
        if c in kept:
            continue
        kept[c] = _undominated(problem, [n for n in problem.class_nodes[c] if ok[n]], replaced)
        for n in kept[c]:
            stack.extend(ch for ch in problem.node_children[n] if ch not in kept)
    return kept, replaced


class IlpExtractor:
    """Optimal DAG extraction by ILP (HiGHS); says whether it proved optimality within its limits."""

    name = "exact"
    optimal_for = "dag"

    def extract(
        self, problem: ExtractionProblem, time_limit: float | None = None, branch_limit: int | None = None
    ) -> Solution:
        t0 = time.perf_counter()
        greedy = improve_choice(problem, greedy_dag_choice(problem)[0])
        if any(r not in greedy for r in problem.roots):
            return Solution(greedy, info={"status": "no finite term"})  # extract reports which root
        upper = problem.dag_cost(greedy)
        ok, nec = _prune(problem, upper)
        if problem.kind == "dag" and nec is not None:
            bound = _necessary_cost(problem, ok, nec)
            if upper <= bound + 1e-9 * max(1.0, abs(upper)):  # greedy already meets a lower bound
                return Solution(greedy, optimal=True, bound=bound, info={"status": "bound met", "rounds": 0})
        kept, replaced = _kept_nodes(problem, ok)
        best = {c: replaced.get(n, n) for c, n in greedy.items()}
        if all(len(nodes) == 1 for nodes in kept.values()):
            forced = {c: nodes[0] for c, nodes in kept.items()}
            if not _chosen_cycles(problem, forced):  # one candidate per e-class: nothing to solve
                cost = problem.dag_cost(forced)
                info = {"status": "forced", "columns": len(forced), "rows": 0, "rounds": 0}
                if problem.kind != "dag":
                    return Solution(forced, optimal=None, info=info)
                return Solution(forced, optimal=True, bound=cost, info=info)
        model = _Model(problem, kept)
        if nec is not None:
            model.necessary(nec)
        graph = nx.DiGraph()
        graph.add_nodes_from(model.classes)
        graph.add_edges_from(
            (problem.node_class[n], ch) for n in model.nodes for ch in problem.node_children[n]
        )
        for comp in nx.strongly_connected_components(graph):
            if len(comp) > 1:
                model.cycle_cuts(comp)
        return _solve(problem, model, best, (time_limit, branch_limit), t0)


def _solve(
    problem: ExtractionProblem,
    model: _Model,
    best: dict[int, int],
    limits: tuple[float | None, int | None],
    t0: float,
) -> Solution:
    """Solve, cut the cycles the solution chose, solve again, until acyclic or out of branches, time
    or rounds (limits: the time limit and the branch limit, None for none)."""
    time_limit, branch_limit = limits
    best_cost = problem.dag_cost(best)
    proved, bound, status, rounds = False, None, "", 0
    while rounds < MAX_ROUNDS:
        rounds += 1
        remaining = None if time_limit is None else time_limit - (time.perf_counter() - t0)
        if remaining is not None and remaining <= 0 and rounds > 1:
            status, rounds = "Time limit reached", rounds - 1  # rounds: the solves run
            break
        branches = None if branch_limit is None else branch_limit - model.bb_nodes
        if branches is not None and branches <= 0 and rounds > 1:
            status, rounds = "Branch limit reached", rounds - 1
            break
        status, choice, round_bound = model.solve(best, remaining, branches)
        if math.isfinite(round_bound):
            bound = round_bound if bound is None else max(bound, round_bound)
        if choice is None or any(r not in choice for r in problem.roots):
            break
        cycles = _chosen_cycles(problem, choice)
        if not cycles:
            cost = problem.dag_cost(choice)
            if cost < best_cost:
                best, best_cost = choice, cost
            proved = status == "optimal"
            break
        if status != "optimal":
            break
        if not sum(model.cycle_cuts(comp) for comp in cycles):
            break  # pragma: no cover  (a chosen cycle always violates a cut not yet added)
    if bound is not None and model.integral:
        bound = math.ceil(bound - 1e-6)
    info: dict[str, Any] = {
        "status": status,
        "columns": len(model.nodes),
        "rows": model.rows,
        "rounds": rounds,
        "bb_nodes": model.bb_nodes,
        "lp_iterations": model.lp_iterations,
    }
    if not proved:
        limit = _limit_reached(status, rounds, model.bb_nodes, limits)
        if limit:
            info["limit"] = limit
    if problem.kind != "dag":
        return Solution(best, optimal=None, info=info)
    if proved:
        bound = best_cost
    elif bound is not None:
        bound = min(bound, best_cost)
    return Solution(best, optimal=proved, bound=bound, info=info)


def _limit_reached(
    status: str, rounds: int, bb_nodes: int, limits: tuple[float | None, int | None]
) -> str | None:
    """The limit that stopped an unproved search, in words (None if none did: no acyclic solution)."""
    time_limit, branch_limit = limits
    if status == "Branch limit reached":
        nodes = f"{bb_nodes:,} branch-and-bound node{'s' if bb_nodes != 1 else ''}"
        return f"branch_limit {branch_limit:,} reached ({nodes}, {rounds} solve{'s' if rounds != 1 else ''})"
    if status == "Time limit reached":
        return (
            f"time_limit {time_limit:g} s reached (wall-clock: under another load the search stops "
            "elsewhere, with another result)"
        )
    if rounds >= MAX_ROUNDS and status == "optimal":
        return f"MAX_ROUNDS {MAX_ROUNDS} cut rounds reached"
    return None
