"""Exact DAG extraction: an integer linear program solved by HiGHS (highspy), with a time limit.

Variables: x_n in {0, 1} per e-node (chosen or not); t_c in [0, M-1] per e-class on a cycle of the
e-class graph (M: the size of its strongly connected component). Constraints:
- every root e-class: sum of its x_n = 1; every e-class: sum of its x_n <= 1;
- a chosen e-node needs each child e-class: x_n <= sum of the child's x_m;
- acyclicity (only for edges inside one strongly connected component, found with networkx):
  choosing n in class c with child d gives t_c >= t_d + 1, i.e. t_c - t_d + M x_n <= M - 1.
Objective: sum of node_cost(n) x_n, the "dag" aggregation (each needed e-class paid once).

Before solving, the problem is pruned: only e-classes reachable from the roots, no e-node that has
its own e-class as a child (it can never be part of an acyclic choice), no e-node with a child that
has no finite term, and no e-node whose lower bound (node cost + the largest child bound, the depth
aggregation, which never exceeds a term's DAG cost) is above the greedy DAG cost. The solver is
warm-started with the greedy DAG choice (hill-climbed), so the result is never worse than greedy,
and on a time-out the best solution found is returned with `optimal=False` and the proved lower
bound. With integer node costs the solver stops when the gap is below 1 (no better integer cost
exists); otherwise the gap tolerance is 1e-9. Optimality is only claimed for "dag" cost models (for
"tree"/"depth" the ILP minimizes the DAG aggregation of the same node costs and makes no claim).
HiGHS runs single-threaded with a fixed seed; only a time limit that cuts the search short can make
results depend on the machine's speed.
"""

from __future__ import annotations

import math
import os

import networkx as nx
import numpy as np

from .bottom_up import bottom_up_costs
from .greedy_dag import greedy_dag_choice, improve_choice
from .problem import ExtractionProblem, Solution

__all__ = ["IlpExtractor"]

_banner_silenced = False


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


class IlpExtractor:
    """Optimal DAG extraction by ILP (HiGHS); says whether it proved optimality within the time limit."""

    name = "exact"
    optimal_for = "dag"

    def extract(self, problem: ExtractionProblem, time_limit: float | None = None) -> Solution:
        import highspy

        greedy = improve_choice(problem, greedy_dag_choice(problem)[0])
        upper = problem.dag_cost(greedy)
        # the depth aggregation of the node costs is a lower bound on the DAG cost of any term of a
        # class (a term's DAG holds its root node and the DAG of each child): no e-node whose bound
        # exceeds the greedy cost can be in an optimal choice
        lower, _ = bottom_up_costs(problem, "depth")
        children = problem.node_children
        node_class = problem.node_class
        node_cost = problem.node_cost
        slack = 1e-9 * max(1.0, abs(upper))

        def usable(n: int) -> bool:
            k = node_class[n]
            kids = children[n]
            if any(c == k or lower[c] == math.inf for c in kids):
                return False
            return node_cost[n] + max((lower[c] for c in kids), default=0) <= upper + slack

        # e-classes reachable from the roots through usable e-nodes
        reach: dict[int, None] = {}
        stack = list(problem.roots)
        while stack:
            c = stack.pop()
            if c in reach:
                continue
            reach[c] = None
            for n in problem.class_nodes[c]:
                if usable(n):
                    stack.extend(ch for ch in children[n] if ch not in reach)
        classes = sorted(reach)
        nodes = [n for c in classes for n in problem.class_nodes[c] if usable(n)]
        col = {n: j for j, n in enumerate(nodes)}

        graph = nx.DiGraph()
        graph.add_nodes_from(classes)
        graph.add_edges_from((node_class[n], ch) for n in nodes for ch in children[n])
        scc_of: dict[int, int] = {}
        scc_size: list[int] = []
        for comp in nx.strongly_connected_components(graph):
            if len(comp) > 1:
                for c in comp:
                    scc_of[c] = len(scc_size)
                scc_size.append(len(comp))
        level_classes = sorted(scc_of)
        tcol = {c: len(nodes) + j for j, c in enumerate(level_classes)}
        ncols = len(nodes) + len(level_classes)

        rows: list[tuple[list[int], list[float], float, float]] = []
        roots = set(problem.roots)
        for c in classes:
            xs = [col[n] for n in problem.class_nodes[c] if n in col]
            rows.append((xs, [1.0] * len(xs), 1.0 if c in roots else 0.0, 1.0))
        for n in nodes:
            k = node_class[n]
            for ch in dict.fromkeys(children[n]):
                xs = [col[m] for m in problem.class_nodes[ch] if m in col]
                rows.append(([col[n], *xs], [1.0] + [-1.0] * len(xs), -highspy.kHighsInf, 0.0))
                if k in scc_of and scc_of.get(ch) == scc_of[k]:
                    big_m = float(scc_size[scc_of[k]])
                    rows.append(
                        ([tcol[k], tcol[ch], col[n]], [1.0, -1.0, big_m], -highspy.kHighsInf, big_m - 1)
                    )

        lp = highspy.HighsLp()
        lp.num_col_ = ncols
        lp.num_row_ = len(rows)
        costs = [float(problem.node_cost[n]) for n in nodes]
        lp.col_cost_ = np.array(costs + [0.0] * len(level_classes))
        lp.col_lower_ = np.zeros(ncols)
        upper = [1.0] * len(nodes) + [float(scc_size[scc_of[c]] - 1) for c in level_classes]
        lp.col_upper_ = np.array(upper)
        lp.row_lower_ = np.array([r[2] for r in rows])
        lp.row_upper_ = np.array([r[3] for r in rows])
        starts, index, value = [0], [], []
        for xs, vs, _, _ in rows:
            index.extend(xs)
            value.extend(vs)
            starts.append(len(index))
        lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
        lp.a_matrix_.start_ = np.array(starts, dtype=np.int32)
        lp.a_matrix_.index_ = np.array(index, dtype=np.int32)
        lp.a_matrix_.value_ = np.array(value)
        lp.integrality_ = [highspy.HighsVarType.kInteger] * len(nodes) + [
            highspy.HighsVarType.kContinuous
        ] * len(level_classes)

        h = _new_highs()
        h.setOptionValue("threads", 1)
        h.setOptionValue("random_seed", 0)
        h.setOptionValue("mip_rel_gap", 0.0)
        integral = all(float(c).is_integer() for c in costs)
        h.setOptionValue("mip_abs_gap", 0.999 if integral else 1e-9)
        if time_limit is not None:
            h.setOptionValue("time_limit", max(float(time_limit), 0.0))
        h.passModel(lp)

        start = self._warm_start(problem, greedy, col, tcol, ncols, scc_of)
        if start is not None:
            sol = highspy.HighsSolution()
            sol.col_value = start
            h.setSolution(sol)
        h.run()
        status = h.getModelStatus()
        info = h.getInfo()
        values = h.getSolution().col_value if info.primal_solution_status == 2 else None
        choice: dict[int, int] = {}
        if values is not None:
            for n, j in col.items():
                if values[j] > 0.5:
                    choice[node_class[n]] = n
        if values is None or any(r not in choice for r in problem.roots):
            choice = dict(greedy)
        proved = status == highspy.HighsModelStatus.kOptimal
        bound = info.mip_dual_bound if math.isfinite(info.mip_dual_bound) else None
        if proved and integral and bound is not None:
            bound = math.ceil(bound - 1e-6)
        if problem.kind != "dag":
            return Solution(choice, optimal=None, info={"status": h.modelStatusToString(status)})
        if proved:
            bound = problem.dag_cost(choice)
        return Solution(
            choice,
            optimal=proved,
            bound=bound,
            info={"status": h.modelStatusToString(status), "columns": ncols, "rows": len(rows)},
        )

    @staticmethod
    def _warm_start(problem, greedy, col, tcol, ncols, scc_of) -> list[float] | None:
        needed = problem.needed(greedy)
        if any(greedy[c] not in col for c in needed):
            return None
        x = [0.0] * ncols
        for c in needed:
            x[col[greedy[c]]] = 1.0
        # levels: height in the chosen DAG restricted to each component (children first)
        height: dict[int, int] = {}
        for c in reversed(needed):
            height[c] = 0
        order = _children_first(problem, greedy, needed)
        for c in order:
            h = 0
            for ch in problem.node_children[greedy[c]]:
                if c in scc_of and scc_of.get(ch) == scc_of[c]:
                    h = max(h, height[ch] + 1)
            height[c] = h
        for c, j in tcol.items():
            x[j] = float(height.get(c, 0))
        return x


def _children_first(problem: ExtractionProblem, choice, needed: list[int]) -> list[int]:
    done: set[int] = set()
    order: list[int] = []
    for r in needed:
        stack = [(r, False)]
        while stack:
            c, expanded = stack.pop()
            if expanded:
                if c not in done:
                    done.add(c)
                    order.append(c)
                continue
            if c in done:
                continue
            stack.append((c, True))
            stack.extend((ch, False) for ch in problem.node_children[choice[c]] if ch not in done)
    return order
