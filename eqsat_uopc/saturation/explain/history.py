"""The run's own history, rebuilt when an explanation needs it: the e-graph after every iteration of a
rerun, and the proof-forest search over it (egg's method: every union has a reason, a rule applied at
one place or congruence, and the explanation of a ~ b is a path of such unions, each explained).

egglog's Python bindings cannot switch its proofs on, and recording the run's unions while it
saturates would cost every run, asked or not. So a pair the other moves of the search leave
unexplained is rerun: a fresh e-graph of the run's start (its program, the greedy seed's root terms
united with it, the hooks' equalities) and the pair's two sides, the run's matched egglog rules
iterated until the two sides are in one e-class (at most HISTORY_ITERATIONS iterations), the
e-graph read back after each iteration (`History`: layer i is the e-graph after i iterations).

`HistoryExplainer.explain(t, u)` then finds the chain between two terms of one e-class, by the
iteration i that first put them in one e-class (their *merge time*):

- i = 0: the start's own unions (the seed, the hooks' equalities): the search's other moves
  (`at_start`), whose Python rules and named equalities made them;
- same operator, argument and type with sources pairwise in one e-class at i: congruence, the
  sources explained pair by pair;
- one named rule from t to u (on an e-graph of the two alone);
- otherwise a path through the e-classes of layer i - 1 that iteration i united into one (its
  *pre-classes*): from t's to u's, each hop a congruence (two e-nodes whose sources iteration i put
  in one e-class, explained source by source) or one rule (a term m of the pre-class rewritten by one
  named rule, `one_rule`, into a term m' that one iteration of the rules puts in m's e-class,
  `iterate`: m' lies in another pre-class, or is congruent at i to one of its e-nodes), found by a
  breadth-first search, congruence hops first; between two hops, the two terms of one pre-class are
  explained at an earlier merge time (the recursion ends at 0); where no such path is found, the
  search's other moves (`at_start`) on the pair.

The intermediate terms are any terms of the rerun's e-graph (its e-nodes over the smallest term of
each source's e-class), not only subterms of the input: each step is one rule at one place or a
congruence, and the caller checks every step and replays the chain. The work is bounded by counts
(HISTORY_MEMBERS terms of a pre-class tried, HISTORY_CALLS pairs searched; the fresh e-graphs are the
search's own budget): the same input gives the same chain.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.saturation.explain.chain import RewriteStep, reversed_steps, same_head
from eqsat_uopc.saturation.serialize import Snapshot

__all__ = ["HISTORY_CALLS", "HISTORY_ITERATIONS", "HISTORY_MEMBERS", "History", "HistoryExplainer", "Layer"]

HISTORY_ITERATIONS = 12  # iterations of the rerun at most (the pair must be in one e-class by then)
HISTORY_MEMBERS = 8  # terms of one pre-class tried as the start of a rule hop, at most
HISTORY_CALLS = 400  # pairs one history explanation searches, at most
RESPELLINGS = 4  # variants of one term of an iteration with its sources respelt, at most
HISTORY_DEPTH = 40  # nesting of the search (pairs within pairs), at most

NodeKey = tuple[Ops, Any, Any, tuple[str, ...]]  # (op, arg, dtype, source e-classes)
_MADE = ""  # the search's goal when it is a term the iteration made, not a pre-class


class Layer:
    """The rerun's e-graph after some iterations, read back: each e-class's e-nodes (subsumed ones
    included: a term once in the e-graph stays findable), the hash-cons index, and per UOp its
    e-class (None: not in this e-graph)."""

    def __init__(self, snapshot: Snapshot, args: list[Any]):
        ids = snapshot.class_ids()
        self.members: dict[str, list[NodeKey]] = {}
        self.index: dict[NodeKey, str] = {}
        for snode, value in snapshot.index.items():
            if snode.shape or value not in ids:
                continue
            op, dtype = snode.op, snode.dtype
            if op is Ops.CONST:
                arg: Any = snode.const_value()
            elif op is Ops.CAST:
                arg = dtype
            else:
                arg = None if snode.prim is None else args[snode.prim]
            key = (op, arg, dtype, tuple(ids[k] for k in snode.kids))
            cls = ids[value]
            if key not in self.index:
                self.index[key] = cls
                self.members.setdefault(cls, []).append(key)
        self._classes: dict[UOp, str | None] = {}
        self._reps: dict[str, UOp | None] | None = None
        self._sizes: dict[str, int] = {}

    def class_of(self, u: UOp) -> str | None:
        """u's e-class in this layer, None if one of its e-nodes is not in it."""
        memo = self._classes
        if u in memo:
            return memo[u]
        for n in u.toposort(enter_call_bodies=False):
            if n in memo:
                continue
            kids = tuple(memo[s] for s in n.src)
            memo[n] = None if n.shape or None in kids else self.index.get(_key(n, kids))
        return memo[u]

    def rep(self, cls: str) -> UOp | None:
        """The smallest term of e-class cls (fewest nodes; the first e-node of the least size)."""
        if self._reps is None:
            self._reps = {}
            self._sizes = self._least_sizes()
        if cls not in self._reps:
            self._reps[cls] = None
            best = self._best_node(cls)
            if best is not None:
                kids = [self.rep(k) for k in best[3]]
                self._reps[cls] = node_term(best, kids)
        return self._reps[cls]

    def term(self, key: NodeKey) -> UOp | None:
        """An e-node over the smallest term of each source's e-class."""
        return node_term(key, [self.rep(k) for k in key[3]])

    def _least_sizes(self) -> dict[str, int]:
        """Each e-class's least term size, to a fixed point (an e-class of no finite term has none)."""
        sizes: dict[str, int] = {}
        changed = True
        while changed:
            changed = False
            for cls, nodes in self.members.items():
                for n in nodes:
                    if all(k in sizes for k in n[3]):
                        s = 1 + sum(sizes[k] for k in n[3])
                        if s < sizes.get(cls, 1 << 60):
                            sizes[cls] = s
                            changed = True
        return sizes

    def _best_node(self, cls: str) -> NodeKey | None:
        """The first e-node of cls of the least size (None if it has no finite term)."""
        sizes, best, least = self._sizes, None, 1 << 60
        for n in self.members.get(cls, ()):
            if all(k in sizes for k in n[3]):
                s = 1 + sum(sizes[k] for k in n[3])
                if s < least:
                    best, least = n, s
        return best


def _after_key(u: UOp, layer: Layer) -> NodeKey:
    """u's e-node in layer, its sources by their e-classes there."""
    return _key(u, tuple(layer.class_of(s) for s in u.src))


def _key(n: UOp, kids: tuple[str, ...]) -> NodeKey:
    return (n.op, n.dtype if n.op is Ops.CAST else n.arg, n.dtype, kids)


def node_term(key: NodeKey, kids: list[UOp | None]) -> UOp | None:
    """The term of an e-node over the terms kids (None if one is missing or the types disagree)."""
    op, arg, dtype, _ = key
    if any(k is None for k in kids):
        return None
    if op is Ops.CONST:
        return UOp.const(arg, dtype)
    try:
        term = UOp(op, tuple(kids), arg)
    except Exception:  # an e-node over terms of another type than the class's
        return None
    return term if term.dtype is dtype and not term.shape else None


class History:
    """The layers of a rerun: layers[i] is its e-graph after i iterations (layers[0]: the start)."""

    def __init__(self, layers: list[Layer]):
        self.layers = layers

    def merge_time(self, t: UOp, u: UOp) -> int | None:
        """The first layer in which t and u are in one e-class (None if none is)."""
        for i, layer in enumerate(self.layers):
            c = layer.class_of(t)
            if c is not None and c == layer.class_of(u):
                return i
        return None


Steps = list[RewriteStep]


class HistoryExplainer:
    """The proof-forest search over a History (module docstring). `one_rule(a, b)`: the step a -> b by
    one named rule, or None; `iterate(a)`: the terms one iteration of the rules puts in a's e-class on
    an e-graph of a alone; `at_start(a, b)`: the chain between two terms the start united (wholly
    named, or None)."""

    def __init__(
        self,
        history: History,
        one_rule: Callable[[UOp, UOp], RewriteStep | None],
        iterate: Callable[[UOp], list[UOp]],
        at_start: Callable[[UOp, UOp], Steps | None],
    ):
        self.history = history
        self.one_rule, self.iterate, self.at_start = one_rule, iterate, at_start
        self._memo: dict[tuple[UOp, UOp], Steps | None] = {}
        self._open: set[tuple[UOp, UOp]] = set()
        self._iterated: dict[UOp, list[UOp]] = {}
        self._rules: dict[tuple[UOp, UOp], RewriteStep | None] = {}
        self.calls = 0
        self._depth = 0

    def explain(self, t: UOp, u: UOp) -> Steps | None:
        """The steps from t to u (paths from t's root), every one named, or None."""
        if t is u:
            return []
        key = (t, u)
        if key in self._memo:
            return self._memo[key]
        if key in self._open or self.calls >= HISTORY_CALLS or self._depth >= HISTORY_DEPTH:
            return None
        self.calls += 1
        self._open.add(key)
        self._depth += 1
        try:
            found = self._explain(t, u)
        finally:
            self._open.discard(key)
            self._depth -= 1
        self._memo[key] = found
        return found

    def _explain(self, t: UOp, u: UOp) -> Steps | None:
        i = self.history.merge_time(t, u)
        if i is None:
            return None
        layer = self.history.layers[i]
        if (
            same_head(t, u)
            and t.src
            and all(layer.class_of(s) == layer.class_of(v) for s, v in zip(t.src, u.src, strict=True))
        ):
            return self._sources(t, u)
        if i == 0:
            return self.at_start(t, u)
        if (step := self._rule(t, u)) is not None:  # one rule
            return [step]
        found = self._through_layer(t, u, i)
        return found if found is not None else self.at_start(t, u)  # else the search's other moves

    def _sources(self, t: UOp, u: UOp) -> Steps | None:
        """Congruence: the sources of t and u explained pair by pair, each at its place."""
        out: Steps = []
        for j, (s, v) in enumerate(zip(t.src, u.src, strict=True)):
            inner = self.explain(s, v)
            if inner is None:
                return None
            out.extend(replace(step, path=(j, *step.path)) for step in inner)
        return out

    def _through_layer(self, t: UOp, u: UOp, i: int) -> Steps | None:
        """t and u, first in one e-class after iteration i: a path of hops between the pre-classes
        (layer i - 1's e-classes) that iteration i united, breadth first, congruence hops first. A
        side that iteration i made (not in layer i - 1) is reached through an e-node of a pre-class
        congruent to it after the iteration; t made and u not: the chain from u, read backwards."""
        before, after = self.history.layers[i - 1], self.history.layers[i]
        start, goal = before.class_of(t), before.class_of(u)
        home = after.class_of(t)
        image: dict[str, str | None] = {}

        def moved(cls: str) -> str | None:
            """A pre-class's e-class after iteration i."""
            if cls not in image:
                rep = before.rep(cls)
                image[cls] = None if rep is None else after.class_of(rep)
            return image[cls]

        # every e-node of the pre-classes of home, by its e-node after iteration i (congruence)
        congruent: dict[NodeKey, list[tuple[str, NodeKey]]] = {}
        pre = [c for c in before.members if moved(c) == home]
        for c in pre:
            for n in before.members[c]:
                kids = tuple(moved(k) for k in n[3])
                if None not in kids:
                    congruent.setdefault((n[0], n[1], n[2], kids), []).append((c, n))
        if start is None:
            if goal is not None:
                back = self.explain(u, t)
                return None if back is None else reversed_steps(u, back)
            # both made by iteration i: through a pre-class e-node congruent to t (or to u) after it
            entry = self._congruent_member(t, before, after, congruent)
            if entry is not None:
                head, rest = self.explain(t, entry), self.explain(entry, u)
                return None if head is None or rest is None else head + rest
            entry = self._congruent_member(u, before, after, congruent)
            if entry is not None:
                head, rest = self.explain(t, entry), self.explain(entry, u)
                return None if head is None or rest is None else head + rest
            return None
        # the goal: u's pre-class, or (u made by iteration i) the pre-classes with an e-node congruent
        # to u after the iteration, each with that e-node's term
        goals: dict[str, UOp] = {goal: u} if goal is not None else {}
        if goal is None:
            for c, n in congruent.get(_after_key(u, after), ()):
                if c not in goals and (m := before.term(n)) is not None:
                    goals[c] = m
            goals[_MADE] = u  # a rule hop onto a term congruent to u after the iteration
        # both ends searched breadth first, congruence hops before rule hops; a hop: (the pre-class it
        # comes from, the exit term in that one, the entry term in the next, the steps from exit to entry),
        # the goal's side recorded towards the goal (its rule hops read backwards)
        sides = [({start: None}, deque([start]), deque())]
        if goal is not None:
            sides.append(({goal: None}, deque([goal]), deque()))
        met = start if start in goals else None
        turn = 0
        while met is None and any(q or r for _, q, r in sides):
            parent, queue, rule_queue = sides[turn % len(sides)]
            other = sides[1 - turn % len(sides)][0] if len(sides) == 2 else goals
            turn += 1
            found: list[tuple[str, UOp, UOp, Callable[[], Steps | None]]] = []
            if queue:
                c = queue.popleft()
                rule_queue.append(c)
                for n in before.members[c]:
                    kids = tuple(moved(k) for k in n[3])
                    for d, m in congruent.get((n[0], n[1], n[2], kids), ()):
                        if d not in parent:
                            exit_term, entry = before.term(n), before.term(m)
                            if exit_term is not None and entry is not None:
                                found.append((d, exit_term, entry, self._congruence(exit_term, entry)))
            elif rule_queue:
                c = rule_queue.popleft()
                target = _after_key(u, after) if goal is None else None
                own = t if c == start else u if c == goal else None
                found = list(self._rule_hops(c, before, after, home, congruent, target, parent, own))
            else:
                continue
            for d, exit_term, entry, between in found:
                if d in parent:
                    continue
                if parent is sides[0][0]:
                    parent[d] = (c, exit_term, entry, between)
                else:  # towards the goal: from d's entry term back to c's exit term
                    parent[d] = (c, entry, exit_term, _backwards(exit_term, between))
                queue.append(d)
                if d in other:
                    met = d
                    break
        if met is None:
            return None
        hops = []
        c = met
        while sides[0][0][c] is not None:
            hops.append(sides[0][0][c])
            c = sides[0][0][c][0]
        hops.reverse()
        c = met
        if len(sides) == 2:
            while sides[1][0][c] is not None:
                back_to, exit_term, entry, between = sides[1][0][c]
                hops.append((c, exit_term, entry, between))
                c = back_to
        reached = c
        out: Steps = []
        current = t
        for _, exit_term, entry, between in hops:
            inside = self.explain(current, exit_term)
            hop = between()
            if inside is None or hop is None:
                return None
            out.extend(inside)
            out.extend(hop)
            current = entry
        last = self.explain(current, goals[reached])
        if last is None:
            return None
        out.extend(last)
        if goals[reached] is not u:  # the e-node congruent to u (made by iteration i): its sources
            tail = self.explain(goals[reached], u)
            if tail is None:
                return None
            out.extend(tail)
        return out

    @staticmethod
    def _congruent_member(
        t: UOp, before: Layer, after: Layer, congruent: dict[NodeKey, list[tuple[str, NodeKey]]]
    ) -> UOp | None:
        """The term of a pre-class e-node congruent to t after the iteration (t made by it), or None."""
        for _, n in congruent.get(_after_key(t, after), ()):
            if (m := before.term(n)) is not None:
                return m
        return None

    def _congruence(self, a: UOp, b: UOp) -> Callable[[], Steps | None]:
        return lambda: self._sources(a, b)

    def _rule_hops(
        self,
        cls: str,
        before: Layer,
        after: Layer,
        home: str | None,
        congruent: dict[NodeKey, list[tuple[str, NodeKey]]],
        target: NodeKey | None,
        reached: dict[str, Any],
        own: UOp | None,
    ) -> Iterator[tuple[str, UOp, UOp, Callable[[], Steps | None]]]:
        """The rule hops out of pre-class cls to pre-classes not `reached` yet: a term m of it (an
        e-node over the smallest terms, at most HISTORY_MEMBERS), a term m' that one iteration puts in
        m's e-class (or m' with a source respelt as a subterm of m of the same e-class: the iteration
        writes each e-class by one spelling) and the rerun's iteration put in home, m -> m' one named
        rule; m' in another pre-class, or congruent after the iteration to an e-node of one (the hop
        then ends at that e-node's term), or congruent to the term made by the iteration that the
        search is after (`target`, its e-node: the hop ends at m', to _MADE). `own`: the pair's side in
        cls, tried first."""
        terms = [own] if own is not None else []
        terms.extend(t for n in before.members[cls][:HISTORY_MEMBERS] if (t := before.term(n)) is not None)
        for m in dict.fromkeys(terms):
            if m not in self._iterated:
                self._iterated[m] = self.iterate(m)
            for m2 in _respelt(self._iterated[m], m, after):
                if after.class_of(m2) != home:
                    continue
                d = before.class_of(m2)
                tail: Callable[[], Steps | None] = _nothing
                if target is not None and d is None and _after_key(m2, after) == target:
                    d, entry = _MADE, m2
                elif d is not None:
                    if d == cls:
                        continue
                    entry = m2
                else:
                    hits = [(e, k) for e, k in congruent.get(_after_key(m2, after), ()) if e != cls]
                    if not hits:
                        continue
                    d, k = hits[0]
                    entry = before.term(k)
                    if entry is None:
                        continue
                    tail = self._congruence(m2, entry)
                if d in reached:
                    continue
                step = self._rule(m, m2)
                if step is None:
                    continue
                yield (d, m, entry, _then([step], tail))

    def _rule(self, a: UOp, b: UOp) -> RewriteStep | None:
        """a -> b by one named rule (on an e-graph of the two alone), once per pair."""
        if (a, b) not in self._rules:
            self._rules[(a, b)] = self.one_rule(a, b)
        return self._rules[(a, b)]


def _nothing() -> Steps:
    return []


def _respelt(terms: list[UOp], m: UOp, after: Layer) -> list[UOp]:
    """terms, each followed by its variants with one source (then every source that has one) replaced
    by a subterm of m of that source's e-class after the iteration (at most RESPELLINGS a term)."""
    by_class: dict[str, UOp] = {}
    for s in m.toposort(enter_call_bodies=False):
        if s is not m and (c := after.class_of(s)) is not None:
            by_class[c] = s  # the outermost such subterm (toposort: sources first)
    out: dict[UOp, None] = {}
    for t in terms:
        out[t] = None
        swaps = [(j, by_class.get(after.class_of(s))) for j, s in enumerate(t.src)]
        swaps = [(j, v) for j, v in swaps if v is not None and v is not t.src[j]]
        variants = [t.replace(src=tuple(v if k == j else s for k, s in enumerate(t.src))) for j, v in swaps]
        if len(swaps) > 1:
            chosen = dict(swaps)
            variants.append(t.replace(src=tuple(chosen.get(k, s) for k, s in enumerate(t.src))))
        for v in variants[:RESPELLINGS]:
            out.setdefault(v, None)
    return list(out)


def _backwards(start: UOp, steps: Callable[[], Steps | None]) -> Callable[[], Steps | None]:
    """The steps from where `steps` (applied to their own start) end back to it, read backwards: a
    hop found from the goal's side, taken towards the goal."""

    def back() -> Steps | None:
        forward = steps()
        return None if forward is None else reversed_steps(start, forward)

    return back


def _then(first: Steps, rest: Callable[[], Steps | None]) -> Callable[[], Steps | None]:
    def steps() -> Steps | None:
        tail = rest()
        return None if tail is None else first + tail

    return steps
