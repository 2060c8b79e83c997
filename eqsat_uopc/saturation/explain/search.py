"""Find the chain of rewrites from a run's program to the program extracted from its e-graph.

egglog's unions are not recorded while the run saturates (explanations off cost nothing): the chain
is searched for afterwards, over what the run left (its e-graph, the rules that matched, and the
start hooks' equalities, each named by the rule that made it: Seeds.named_equalities), in three
moves.

1. Congruence: the program and the result are split where they differ. At a pair of subterms of
   one e-class with the same operator, argument and type whose sources are pairwise in one
   e-class (or identical), the pair is the pairs of its sources; anywhere else it is one step.
2. Attribution, pair by pair. First one rule: a Python rule at the pair's root (a greedy rule
   `symbolic/<name>` of the seed, sound under the run's int semantics, or an index-algebra fold
   `linear/<name>`; only the Python rules of the hooks that ran), or one egglog rule: on a fresh
   engine of the run's rule set holding only the two subterms, after the analyses (the rules that
   never union) ran to a fixed point, one iteration of one rule's ruleset puts them in one
   e-class, the rule found by bisection over the rules that matched in the run (a birewrite's two
   directions count as its one rule). One iteration applies every match of the rule, so such a
   step may use it at more than one place inside the subterm.
   Then the Python rules' rewrites of both sides to their fixed points: where they meet, the
   steps of a's side, then those of b's side read backwards (`backwards`: the e-class is an
   equality). Then, in order, the first of these moves whose chain names every step (else the
   first that applied, else one unexplained step):
   - the Python rules' fixed point of a, not known to be in another e-class than b, the rest
     searched from there (at most DETOURS detours along one pair); then the seed's symbolic rules
     alone (the greedy seed's spelling, which the algebra's folds can hide);
   - a comparison the decided-comparisons hook decides (`linear/piecewise-compare`);
   - two sources in one e-class (`x != y`, x and y equal): the larger rewritten into the smaller
     first, the rest searched from there;
   - two i32 sums whose summands agree up to one place: regrouped and reordered by
     `comm_assoc/add-assoc` and `comm_assoc/add-comm`, one rotation or swap a step (regroup.py),
     then the summands that differ rewritten in place;
   - through a third member of the e-class: an e-node of its class in the run's e-graph over
     terms at hand (the subterms of both sides, the e-graph's constants) that one named rule
     reaches, and from which the rest is wholly named (at most THROUGH_CANDIDATES tried);
   - sources whose e-class holds a constant (a bound pinned, a fold): that constant first, the
     rest searched from there;
   - through one egglog iteration: where the matched rules unite the pair on a fresh e-graph
     within ITERATION_REACH iterations, the terms one iteration puts in a's class (or b's), the
     nearest the other side first, each one named rule away, the rest searched from there; in a
     run with hook equalities, then a's own e-node with one source replaced by another member of
     its class (a rewrite inside a);
   - through the hooks' own unions: a rewritten by the start hooks' equalities (the `facts`), read
     backwards (the index algebra's folds undone) or forwards, to a fixed point, each a step named
     by its rule and hook, the rest searched from there;
   - a comparison of two sums with a summand in common: both regrouped to put it first, then
     cancelled by one named rule, the rest searched from there;
   - through a's spelling over b's subterms: each outermost subterm of a whose e-class in the run
     holds an e-node of its own operator over terms built from b's subterms rewritten into that term
     first (a chain of its own), then the rest (a's shape over b's leaves) searched from there;
   - through the run's own history (history.py), only in a second search made where the first left
     a step unexplained, for a pair of one e-class of the run (at most HISTORY_MOVES pairs): the run's
     start and the pair rerun iteration by iteration, each e-graph read back, and the chain found by
     the proof-forest search over them (congruence hops and one-rule hops between the e-classes each
     iteration united), HISTORY_PROGRAMS fresh e-graphs more.
   A pair is searched once per detours left (the moves meet the same pairs again), and not again
   inside its own search (a cycle); a search makes at most EGGLOG_PROGRAMS fresh e-graphs, after
   which no more egglog attributions are tried (the count, not a clock: the same input gives the
   same chain).
3. Otherwise the pair is one step `e-graph/unexplained`: its two sides are in one e-class of the
   run, and no move above named the rules between them. Its note names the egglog rules that
   unite the two sides together in one or two iterations, where there are such (delta debugging
   over the matched rules), without claiming a chain.

Every step is still checked, named or not (eqsat_uopc.verify.explanation).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

from egglog import bindings

from eqsat_uopc.greedy.matcher import PatternMatcher
from eqsat_uopc.greedy.symbolic import sound_symbolic
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.linear.rules import ALGEBRA, ALGEBRA_NO_OVERFLOW
from eqsat_uopc.rules.python_rules import ALGEBRA_RULES, PIECEWISE_COMPARE
from eqsat_uopc.saturation.engine import Engine, default_pool, engine_program
from eqsat_uopc.saturation.explain.chain import (
    UNEXPLAINED,
    RewriteChain,
    RewriteStep,
    replace_at,
    reversed_steps,
    same_head,
    subterm_at,
)
from eqsat_uopc.saturation.explain.history import HISTORY_ITERATIONS, History, HistoryExplainer, Layer
from eqsat_uopc.saturation.explain.regroup import ADD_ASSOC, ADD_COMM, is_sum, leaf_paths, regroup
from eqsat_uopc.saturation.lower import Lowerer
from eqsat_uopc.saturation.piecewise import decided_comparisons
from eqsat_uopc.saturation.piecewise.compare import is_comparison
from eqsat_uopc.saturation.serialize import Snapshot

__all__ = ["MAX_PYTHON_STEPS", "MAX_STEPS", "ChainSearch"]

MAX_STEPS = 400  # steps of one chain at most: a longer one ends in one unexplained step
MAX_PYTHON_STEPS = 200  # firings of the Python rules in one attribution at most
DETOURS = 3  # Python fixed points through a third term of the e-class, per pair at most
THROUGH_CANDIDATES = 12  # members of an e-class tried as the middle of a step, at most
ITERATION_CANDIDATES = 8  # terms of one egglog iteration tried as the middle of a step, a side
ITERATION_MOVES = 24  # such moves in one chain at most (each runs an egglog iteration and its tries)
ITERATION_VARIANTS = 8  # terms of one source's class tried in a's own e-node by the iteration move, at most
ITERATION_DEPTH = 3  # depth of the new terms an iteration wrote that a candidate is built over
ITERATION_MAX_SIZE = 400  # terms larger than this (nodes) are not iterated on
ITERATION_REACH = 4  # iterations of the egglog rules a pair may be apart for the iteration move
EGGLOG_PROGRAMS = 60  # fresh egglog e-graphs one chain's search makes at most (then no more attributions)
HISTORY_PROGRAMS = 120  # fresh egglog e-graphs the history move may make on top of EGGLOG_PROGRAMS
HISTORY_MOVES = 8  # pairs one chain's search reruns, at most
HISTORY_MAX_SIZE = 400  # pairs larger than this (nodes, a side) are not rerun
RESPELL_DEPTH = 3  # depth of the terms over b's subterms that a's subterms are respelt into
ANALYSIS_ITERATIONS = 8  # iterations of the analyses before a rule is tried, at most
_MAY_UNION = re.compile(r"\((union|rewrite|birewrite|subsume|delete)\b")

# the algebra folds' greedy names (divmod-fold) -> the names the rule sets declare (linear/divmod-fold)
ALGEBRA_NAMES = {rule.name.split("/", 1)[1]: rule.name for rule in ALGEBRA_RULES}


class ChainSearch:
    """The chain search of one run: its e-graph (`class_of`: a UOp -> its e-class id or None;
    `constants`: e-class id -> the constant it holds; `egraph`: the read-back EGraph, for the
    members of a class), its rule set and int semantics, and the egglog rules that matched in it
    (None: every rule); `facts`, the start hooks' equalities with their reasons (a, b, rule, hook)."""

    def __init__(
        self,
        class_of: Any,
        rule_set: Any,
        int_semantics: str,
        matched: frozenset[str] | None,
        constants: dict[Any, UOp] | None = None,
        egraph: Any = None,
        hooks: frozenset[str] | None = None,
        facts: tuple[tuple[UOp, UOp, str, str], ...] = (),
        start: tuple[UOp, tuple[UOp, ...], tuple[tuple[UOp, UOp], ...]] | None = None,
        holds: Callable[[UOp, UOp], bool] | None = None,
    ):
        self.class_of = class_of
        # a step's check (does its after refine its before under the run's int semantics?), the caller's:
        # the history's chain is kept only where it has fewer steps unexplained or failing it
        self.holds = holds
        # the run's start, for the history move: its program, the root terms united with it, the hooks'
        # equalities (None: the move is not tried)
        self.start = start
        # the start hooks' equalities (a, b, the rule that rewrote a into b, the hook): the run's unions
        # that no egglog rule made, each a named step either way (Seeds.named_equalities)
        self.facts = facts
        self.constants = constants or {}
        self.egraph = egraph
        self.rule_set, self.int_semantics = rule_set, int_semantics
        # a birewrite's matches are counted per direction (`comm_assoc/add-assoc=>`), its unit by its name
        self.matched = None if matched is None else frozenset(_rule_name(n) for n in matched)
        # the Python rules of the hooks that ran: the seed's symbolic rules, the algebra's folds the rule
        # set declares (a run without them never made their rewrites)
        declared = {r.name for r in rule_set.rules(int_semantics)}
        algebra = ALGEBRA_NO_OVERFLOW if int_semantics == "no_overflow" else ALGEBRA
        folds = [r for r in algebra.rules if ALGEBRA_NAMES.get(r.name) in declared]
        symbolic = list(sound_symbolic(int_semantics).rules)
        seeded = hooks is None or "greedy-seed" in hooks
        self.python = PatternMatcher(
            (symbolic if seeded else []) + (folds if hooks is None or "index-algebra" in hooks else [])
        )
        self._seed_only = PatternMatcher(symbolic) if seeded and folds else None  # the seed's own rules
        self._algebra = frozenset(r.name for r in algebra.rules)
        self._piecewise = PIECEWISE_COMPARE.name in declared
        self._regrouping = all(  # the sum regrouping's two rules, in the run (where it matched them)
            r in declared and (self.matched is None or r in self.matched) for r in (ADD_ASSOC, ADD_COMM)
        )
        self._engine: Engine | None = None
        self._units: list[tuple[str, str]] | None = None
        self._analyses: tuple[str, ...] = ()
        self._iteration_moves = 0
        self._searched = {}
        self._open = set()
        self._programs = 0  # fresh e-graphs of this chain's search (EGGLOG_PROGRAMS at most)
        self._program_limit = EGGLOG_PROGRAMS
        self._histories: dict[tuple[UOp, UOp], list[RewriteStep] | None] = {}
        self._in_history = False
        self._history_on = False
        self.programs = 0

    def close(self) -> None:
        """Give the egglog engine the search leased back to the pool (if it leased one)."""
        if self._engine is not None:
            self._engine.release()
            self._engine = None

    # -- the chain
    def chain(self, start: UOp, result: UOp) -> RewriteChain:
        """The steps from start to result (both in the run's e-graph, in one e-class)."""
        steps, programs = self._search(start, result, history=False)
        if not all(s.explained for s in steps) and self.start is not None:
            # the run's history, only where the other moves left a step unexplained: the search again,
            # with the history move (a chain the other moves name wholly is kept as it is)
            again, more = self._search(start, result, history=True)
            programs += more
            if self._faults(again, self._faults(steps)) < self._faults(steps):
                steps = again
        self.programs = programs  # what the search took (fresh e-graphs), for a bench
        self._programs = 0  # the hints have a budget of their own
        notes: dict[tuple[UOp, UOp], str] = {}  # the hint of each unexplained step the chain kept
        steps = [
            s
            if s.explained
            else replace(s, note=notes.setdefault((s.before, s.after), self._together(s.before, s.after)))
            for s in steps
        ]
        return RewriteChain(start, result, tuple(steps), self.int_semantics)

    def _faults(self, steps: list[RewriteStep], enough: int | None = None) -> int:
        """The steps unexplained, and (with `holds`) the named steps that fail their check: under
        `no_overflow` a rerun's chain may go through spellings with more overflow than the input's
        (`(p3 * 126 + p4) * (-1) -> p3 * 126 * (-1) + p4 * (-1)`, equal over the integers, no
        refinement), named yet not checked. Counted until `enough` (the count to beat) is reached."""
        faults = sum(not s.explained for s in steps)
        for s in steps:
            if enough is not None and faults >= enough:
                break
            if s.explained and self.holds is not None and not self.holds(s.before, s.after):
                faults += 1
        return faults

    def _search(self, start: UOp, result: UOp, history: bool) -> tuple[list[RewriteStep], int]:
        """The steps from start to result (the history move tried or not), and the fresh e-graphs made."""
        steps: list[RewriteStep] = []
        self._iteration_moves = 0
        self._searched: dict[tuple[UOp, UOp, int], list[RewriteStep]] = {}
        self._open: set[tuple[UOp, UOp]] = set()  # the pairs being searched (at any detours left)
        self._programs = 0
        self._program_limit = EGGLOG_PROGRAMS
        self._histories = {}
        self._history_on = history
        self._pair(start, result, (), steps, DETOURS)
        if len(steps) > MAX_STEPS:
            steps = [RewriteStep(UNEXPLAINED, "e-graph", start, result)]
        return steps, self._programs

    def _same_class(self, a: UOp, b: UOp) -> bool:
        if a is b:
            return True
        ca = self.class_of(a)
        return ca is not None and ca == self.class_of(b)

    def _may_be_same_class(self, a: UOp, b: UOp) -> bool:
        """Not known to be apart: in one e-class, or a not in the e-graph (a read-back leaves out the
        e-nodes a rule subsumed)."""
        ca = self.class_of(a)
        return ca is None or ca == self.class_of(b)

    def _pair(self, a: UOp, b: UOp, path: tuple[int, ...], steps: list[RewriteStep], detours: int) -> None:
        """The steps from a to b (at path) appended to steps: each pair searched once per detours left
        (the moves meet the same pairs again), a pair met again while it is searched is unexplained
        there (a cycle of moves)."""
        if a is b or len(steps) > MAX_STEPS:
            return
        key = (a, b, detours)
        found = self._searched.get(key)
        if found is None and (a, b) in self._open:
            found = [RewriteStep(UNEXPLAINED, "e-graph", a, b)]  # a cycle: the pair is searched further up
        if found is None:
            self._searched[key] = [RewriteStep(UNEXPLAINED, "e-graph", a, b)]  # while it is searched
            self._open.add((a, b))
            found = []
            try:
                self._search_pair(a, b, (), found, detours)
            finally:
                self._open.discard((a, b))
            self._searched[key] = found
        steps.extend(s if not path else replace(s, path=(*path, *s.path)) for s in found)

    def _search_pair(
        self, a: UOp, b: UOp, path: tuple[int, ...], steps: list[RewriteStep], detours: int
    ) -> None:
        if same_head(a, b) and all(self._same_class(s, t) for s, t in zip(a.src, b.src, strict=True)):
            for i, (s, t) in enumerate(zip(a.src, b.src, strict=True)):
                self._pair(s, t, (*path, i), steps, detours)
            return
        out = self.python.rewrite(a)
        if out is b:
            steps.append(self._python_step(self.python.last_fired.name, a, b, path, everywhere=False))
            return
        if (unit := self._egglog_rule(a, b)) is not None:
            steps.append(RewriteStep(unit, "egglog", a, b, path))
            return
        fixed, fired = self._python_fixed_point(a)
        if self._meet(a, b, fired, path, steps):
            return
        partial: list[list[RewriteStep]] = []  # chains with an unexplained step: the first, if nothing better
        for attempt in self._attempts(a, b, path, fixed, fired, detours):
            if attempt is None:
                continue
            if all(r.explained for r in attempt):
                steps.extend(attempt)
                return
            partial.append(attempt)
        if partial:
            steps.extend(partial[0])
            return
        steps.append(RewriteStep(UNEXPLAINED, "e-graph", a, b, path))

    def _attempts(
        self,
        a: UOp,
        b: UOp,
        path: tuple[int, ...],
        fixed: UOp | None,
        fired: list[tuple[str, UOp, UOp]],
        detours: int,
    ) -> Iterator[list[RewriteStep] | None]:
        """The moves of attribution after one rule, in order, each a chain (None: the move does not
        apply); the search takes the first wholly named one, and runs the later moves only when the
        earlier ones left a step unexplained."""
        if (
            fixed is not None
            and fired
            and (fixed is b or (detours > 0 and self._may_be_same_class(fixed, b)))
        ):
            through = [self._python_step(name, n, m, path, everywhere=True) for name, n, m in fired]
            self._pair(fixed, b, path, through, detours - 1)
            yield through
            if detours > 0 and self._seed_only is not None:
                # the seed's rules alone: the greedy seed's spelling, which the algebra's folds can hide
                # from the rules that reached b (mixed-radix digits the e-graph recombined)
                seed, fired_seed = self._python_fixed_point(a, self._seed_only)
                if seed is not None and seed is not fixed and fired_seed and self._may_be_same_class(seed, b):
                    alone = [
                        self._python_step(name, n, m, path, everywhere=True) for name, n, m in fired_seed
                    ]
                    self._pair(seed, b, path, alone, detours - 1)
                    yield alone
        if self._decided(a, b):
            yield [RewriteStep(PIECEWISE_COMPARE.name, "decided-comparisons", a, b, path)]
        if (same := self._equal_sources(a)) is not None:  # one source into the other, then the rest
            i, j = same
            into: list[RewriteStep] = []
            self._pair(a.src[j], a.src[i], (*path, j), into, detours)
            src = list(a.src)
            src[j] = a.src[i]
            self._pair(a.replace(src=tuple(src)), b, path, into, detours)
            yield into
        regrouped: list[RewriteStep] = []
        yield regrouped if self._regrouped(a, b, path, regrouped, detours) else None
        through_class: list[RewriteStep] = []
        yield (
            through_class if detours > 0 and self._through_class(a, b, path, through_class, detours) else None
        )
        folded = self._constant_sources(a)
        if folded is not a:  # sources whose e-class holds a constant: those first, then the rest
            through_constants: list[RewriteStep] = []
            for i, (s, t) in enumerate(zip(a.src, folded.src, strict=True)):
                self._pair(s, t, (*path, i), through_constants, detours)
            self._pair(folded, b, path, through_constants, detours)
            yield through_constants
        iterated: list[RewriteStep] = []
        yield iterated if detours > 0 and self._through_iteration(a, b, path, iterated, detours) else None
        if detours > 0 and self.facts:
            yield from self._through_facts(a, b, path, detours)
        cancelled: list[RewriteStep] = []
        yield cancelled if detours > 0 and self._cancelled(a, b, path, cancelled, detours) else None
        respelled: list[RewriteStep] = []
        yield respelled if detours > 0 and self._respelled(a, b, path, respelled, detours) else None
        history: list[RewriteStep] = []
        yield history if self._through_history(a, b, path, history) else None

    def _through_history(self, a: UOp, b: UOp, path: tuple[int, ...], steps: list[RewriteStep]) -> bool:
        """Through the run's own history, rebuilt (history.py): the run's start and the pair rerun
        iteration by iteration, each iteration's e-graph read back, and the chain found by the
        proof-forest search over them, each hop one named rule or a congruence. Only for a pair of one
        e-class of the run, where every earlier move left a step unexplained, once per pair, and not
        inside its own search; its fresh e-graphs are HISTORY_PROGRAMS more than the search's."""
        if not self._history_on or self.start is None or self._in_history or a.shape or b.shape:
            return False
        if max(a.size, b.size) > HISTORY_MAX_SIZE or not self._same_class(a, b) or self.class_of(a) is None:
            return False
        if (a, b) not in self._histories:
            if len(self._histories) >= HISTORY_MOVES:
                return False
            self._histories[(a, b)] = None
            limit, self._program_limit = self._program_limit, self._programs + HISTORY_PROGRAMS
            self._in_history = True
            try:
                history = self._history(a, b)
                if history is not None:
                    explainer = HistoryExplainer(
                        history,
                        lambda x, y: self._one_rule(x, y, ()),
                        lambda x: [t for part in self._iteration_terms(x) for t in part],
                        self._at_start,
                    )
                    self._histories[(a, b)] = explainer.explain(a, b)
            finally:
                self._in_history = False
                self._program_limit = limit
        found = self._histories[(a, b)]
        if found is None or len(steps) + len(found) > MAX_STEPS:
            return False
        steps.extend(replace(s, path=(*path, *s.path)) for s in found)
        return True

    def _at_start(self, a: UOp, b: UOp) -> list[RewriteStep] | None:
        """The chain between two terms the run's start united (the seed, the hooks' equalities), by
        the other moves; None unless wholly named."""
        steps: list[RewriteStep] = []
        self._pair(a, b, (), steps, DETOURS)
        return steps if all(s.explained for s in steps) else None

    def _history(self, a: UOp, b: UOp) -> History | None:
        """The rerun of the run's start with a and b: the e-graph after each iteration of the matched
        egglog rules (and the analyses), until a and b are in one e-class; None if they are not within
        HISTORY_ITERATIONS, or no egglog rule matched, or the fresh e-graphs are spent."""
        with self._fresh_egraph(a, b, start=self.start) as fresh:
            if fresh is None:
                return None
            engine, lowerer = fresh
            egraph, args, ia, ib = engine.egraph, lowerer.args, lowerer.ids[a], lowerer.ids[b]
            everything = engine.combined((*self._analyses, *(r for r, _ in self._units)))
            layers = [Layer(Snapshot(egraph), args)]
            while _value(egraph, ia) != _value(egraph, ib):
                if len(layers) > HISTORY_ITERATIONS:
                    return None
                egraph.parse_and_run_program(f"(run {everything} 1)")
                egraph.parse_and_run_program("(run bookkeeping 1)")
                layers.append(Layer(Snapshot(egraph), args))
            return History(layers)

    def _through_facts(
        self, a: UOp, b: UOp, path: tuple[int, ...], detours: int
    ) -> Iterator[list[RewriteStep]]:
        """The hooks' own rewrites of a (the start phases' equalities, each named by the rule that made
        it) to a fixed point, undone (each equality read backwards: the index algebra's fold
        `(r + 74) // 64 -> (r + 10) // 64 + 1` back to the spelling the e-graph's rules recombined)
        or redone, then the rest searched from there: the run's e-graph had these unions from its
        start, and the rules that reached b may have worked on either side of one."""
        for backwards in (True, False):
            term, steps = a, []
            seen = {a}
            while len(steps) <= MAX_PYTHON_STEPS:
                present = set(term.toposort(enter_call_bodies=False))
                for x, y, rule, by in self.facts:
                    old, new = (y, x) if backwards else (x, y)
                    if old.src and old in present and (moved := term.substitute({old: new})) not in seen:
                        steps.append(
                            RewriteStep(rule, by, old, new, path, everywhere=True, backwards=backwards)
                        )
                        term = moved
                        seen.add(term)
                        break
                else:
                    break
            if steps and term is not a and self._may_be_same_class(term, b):
                self._pair(term, b, path, steps, detours - 1)
                yield steps

    def _cancelled(
        self, a: UOp, b: UOp, path: tuple[int, ...], steps: list[RewriteStep], detours: int
    ) -> bool:
        """A comparison of two i32 sums with a summand x in common: each side regrouped into `x + the
        rest` (add-assoc and add-comm steps, regroup.py), x cancelled by one named rule
        (`comparisons/ne-cancel`, `comparisons/lt-cancel`), then the rest searched from there
        (`p0 + (-40) != m * (-1) + p0 + 55 -> true`: p0 is summed on both sides at different depths,
        which egglog regroups at every level at once). Only where the run's rule set has the two
        regrouping rules and they matched."""
        if a.op not in (Ops.CMPNE, Ops.CMPLT) or len(a.src) != 2 or not self._regrouping:
            return False
        left, right = a.src
        if not (is_sum(left) and is_sum(right)):
            return False
        summands = [[t for _, t in leaf_paths(side)] for side in (left, right)]
        common = next((t for t in summands[0] if any(t is u for u in summands[1])), None)
        if common is None:
            return False
        own: list[RewriteStep] = []
        rests: list[UOp] = []
        grouped: list[UOp] = []
        for i, (side, leaves) in enumerate(zip((left, right), summands, strict=True)):
            k = next(j for j, t in enumerate(leaves) if t is common)
            rest = leaves[:k] + leaves[k + 1 :]
            total = rest[0]
            for t in rest[1:]:
                total = side.replace(src=(total, t))
            target = side.replace(src=(common, total))
            own.extend(_without_undone(regroup(side, target, (*path, i))) if target is not side else [])
            rests.append(total)
            grouped.append(target)
        middle, cancelled = a.replace(src=tuple(grouped)), a.replace(src=tuple(rests))
        one = self._one_rule(middle, cancelled, path)
        if one is None:
            return False
        own.append(one)
        self._pair(cancelled, b, path, own, detours - 1)
        return _appended(steps, own)

    def _respelled(
        self, a: UOp, b: UOp, path: tuple[int, ...], steps: list[RewriteStep], detours: int
    ) -> bool:
        """Through a's spelling over b's subterms: each outermost proper subterm u of a whose e-class in
        the run's e-graph has an e-node of u's own operator over terms built from b's proper subterms
        (to depth RESPELL_DEPTH, the smallest such) is rewritten into that term first, then the rest
        is searched from there (a's shape, b's leaves). The run recombined digits spelt over b's
        operand (`x // 64 % 5 * 64 + ... + x % 4 -> x % 320` for x = r + 14794) that the algebra's
        folds had respelt (`((r + 10) // 64 + 1) % 5`, whose fold inside a fold is not among the
        hook's recorded equalities): each digit is brought back to x's spelling, a short chain of
        its own, and the recombination is the egglog rules' on one spelling."""
        if self.egraph is None:
            return False
        home = self.class_of(a)
        known: dict[Any, UOp] = {}
        for t in b.toposort(enter_call_bodies=False):
            if t is not b and (c := self.class_of(t)) is not None:
                known.setdefault(c, t)
        memo: dict[tuple[Any, int], UOp | None] = {}

        def term(cls: Any, depth: int) -> UOp | None:
            """A term of cls over b's subterms (not through a's own class), or None."""
            if cls in known:
                return known[cls]
            if depth == 0 or cls == home or cls not in self.egraph.classes:
                return None
            if (cls, depth) not in memo:
                memo[(cls, depth)] = None  # a cycle back to this class gives nothing
                for node in self.egraph.classes[cls].nodes:
                    kids = [term(c, depth - 1) for c in node.children]
                    if (t := _term_of(node, self.egraph.classes[cls], kids)) is not None:
                        memo[(cls, depth)] = t
                        break
            return memo[(cls, depth)]

        mapping: dict[UOp, UOp] = {}
        places: list[tuple[tuple[int, ...], UOp]] = []  # where a has a subterm to respell, left first
        todo: list[tuple[UOp, tuple[int, ...]]] = [(s, (i,)) for i, s in reversed(list(enumerate(a.src)))]
        while todo:
            u, at = todo.pop()
            if u not in mapping:
                mapping[u] = self._respelling(u, home, term)
            if mapping[u] is not u:
                places.append((at, u))
            else:
                todo.extend((s, (*at, i)) for i, s in reversed(list(enumerate(u.src))))
        if not places:
            return False
        middle = a.substitute({u: mapping[u] for _, u in places})
        if middle is b:
            return False
        own: list[RewriteStep] = []
        for at, u in places:
            self._pair(u, mapping[u], (*path, *at), own, detours - 1)
            if not all(r.explained for r in own):
                return False
        self._pair(middle, b, path, own, detours - 1)
        return _appended(steps, own)

    def _respelling(self, u: UOp, home: Any, term: Callable[[Any, int], UOp | None]) -> UOp:
        """The smallest term of u's e-class with u's operator over `term`'s terms (u if none, if u is
        not scalar or not in the run's e-graph, or if the term holds u)."""
        c = self.class_of(u) if not u.shape else None
        if c is None or c == home or c not in self.egraph.classes:
            return u
        cls = self.egraph.classes[c]
        got = [
            t
            for n in cls.nodes
            if n.op is u.op
            and n.arg == u.arg
            and (t := _term_of(n, cls, [term(k, RESPELL_DEPTH - 1) for k in n.children])) is not None
            and t is not u
        ]
        best = min(got, key=lambda t: t.size) if got else None
        return u if best is None or u in best.toposort(enter_call_bodies=False) else best

    def _meet(
        self,
        a: UOp,
        b: UOp,
        fired: list[tuple[str, UOp, UOp]],
        path: tuple[int, ...],
        steps: list[RewriteStep],
    ) -> bool:
        """The Python rules' rewrites from a (`fired`, to its fixed point) and from b meet at a term t:
        the steps a -> t, then b -> t read backwards (an index-algebra fold the seed's spelling showed,
        undone towards the result's spelling). False if they do not meet."""
        _, fired_b = self._python_fixed_point(b)
        if not fired_b:
            return False
        on_b = {b: 0}
        term = b
        for k, (_, n, m) in enumerate(fired_b, 1):
            term = term.substitute({n: m})
            on_b.setdefault(term, k)
        term, taken = a, 0
        while term not in on_b:
            if taken == len(fired):
                return False
            term = term.substitute({fired[taken][1]: fired[taken][2]})
            taken += 1
        forward = [self._python_step(name, n, m, path, everywhere=True) for name, n, m in fired[:taken]]
        back = [self._python_step(name, n, m, path, everywhere=True) for name, n, m in fired_b[: on_b[term]]]
        steps.extend(forward)
        steps.extend(reversed_steps_at(b, back, path))
        return True

    def _regrouped(
        self, a: UOp, b: UOp, path: tuple[int, ...], steps: list[RewriteStep], detours: int
    ) -> bool:
        """Two i32 sums whose summands agree up to some pairs: a's summands regrouped and reordered
        into b's spelling by add-assoc and add-comm steps (regroup.py), then each summand that
        differs rewritten into b's (a wholly named chain each). Summands pair by identity, then by
        e-class; what is left is one summand of b that the rest of a's make (they become one sum in
        its place) or one of a's that the rest of b's make (rewritten into their sum first).
        Only where the run's rule set has both rules and they matched."""
        if not (is_sum(a) and is_sum(b)) or not self._regrouping:
            return False
        own: list[RewriteStep] = []
        leaves_a = [t for _, t in leaf_paths(a)]
        left_b = leaf_paths(b)
        odd_a: list[UOp] = []
        for t in leaves_a:
            k = next((i for i, (_, u) in enumerate(left_b) if u is t), None)
            if k is None:
                odd_a.append(t)
            else:
                left_b.pop(k)
        pairs: list[tuple[tuple[int, ...], UOp]] = []  # (b's summand path, the term of a's in its place)
        for t in list(odd_a):
            k = next((i for i, (_, u) in enumerate(left_b) if self._same_class(t, u)), None)
            if k is not None:
                pairs.append((left_b.pop(k)[0], t))
                odd_a.remove(t)
        if len(odd_a) == 1 and len(left_b) > 1:  # a's summand into the sum of b's summands left first
            place = next(p for p, t in leaf_paths(a) if t is odd_a[0])
            made = left_b[0][1]
            for _, u in left_b[1:]:
                made = a.replace(src=(made, u))
            self._pair(odd_a[0], made, (*path, *place), own, detours)
            a = replace_at(a, place, made)
            odd_a, left_b = [], []
        if (odd_a or left_b) and not (odd_a and len(left_b) == 1):
            return False  # several summands of each side left: no one place to rewrite them in
        if left_b:
            made = odd_a[0]
            for t in odd_a[1:]:
                made = a.replace(src=(made, t))
            pairs.append((left_b[0][0], made))
        middle = b
        for place, t in pairs:
            middle = replace_at(middle, place, t)
        if middle is a and not pairs:
            return False
        own.extend(regroup(a, middle, path))
        for place, t in pairs:
            self._pair(t, subterm_at(b, place), (*path, *place), own, detours)
        return _appended(steps, own)

    def _through_class(
        self, a: UOp, b: UOp, path: tuple[int, ...], steps: list[RewriteStep], detours: int
    ) -> bool:
        """Two steps or more through a third member m of a's e-class: one named rule from a to m, then
        a wholly named chain from m to b. The candidates m are the e-nodes of a's class over terms at
        hand (the subterms of a and b, the constants of the e-graph): at most THROUGH_CANDIDATES."""
        cls = self.class_of(a)
        if self.egraph is None or cls is None or cls not in self.egraph.classes:
            return False
        known: dict[Any, UOp] = dict(self.constants)
        for t in (*b.toposort(enter_call_bodies=False), *a.toposort(enter_call_bodies=False)):
            if t is not a and t is not b and (c := self.class_of(t)) is not None:
                known[c] = t  # a's own, where both have one
        tried = 0
        for node in self.egraph.classes[cls].nodes:
            if tried >= THROUGH_CANDIDATES:
                break
            kids = [known.get(c) for c in node.children]
            if any(k is None for k in kids):
                continue
            try:
                m = UOp(node.op, tuple(kids), node.arg)
            except Exception:  # an e-node over terms of another type than the class's: not a term here
                continue
            if m is a or m is b or m.dtype is not a.dtype:
                continue
            tried += 1
            first = self._one_rule(a, m, path)
            if first is None:
                continue
            rest: list[RewriteStep] = []
            self._pair(m, b, path, rest, detours - 1)
            if all(r.explained for r in rest) and len(steps) + len(rest) <= MAX_STEPS:
                steps.append(first)
                steps.extend(rest)
                return True
        return False

    def _through_iteration(
        self, a: UOp, b: UOp, path: tuple[int, ...], steps: list[RewriteStep], detours: int
    ) -> bool:
        """Two steps or more through a term m that one iteration of the egglog rules puts in a's e-class
        on an e-graph of a alone (the rewrites of a at its root, whatever the run's e-graph kept of
        them): one named rule from a to m, then a wholly named chain from m to b. Only where the
        matched rules unite a and b on an e-graph of the two within ITERATION_REACH iterations (k),
        and only through an m that they unite with b within k, the nearest first, then those whose
        sources are in the e-classes of b's (the rest is congruence). Failing that, the same from
        b's side: a wholly named chain from a to a term m of b's class, then m -> b by one rule, read
        backwards. At most ITERATION_CANDIDATES a side, ITERATION_MOVES such moves a chain; a move
        to an m no nearer b than a counts as one of the DETOURS of a pair."""
        reach = self._iterations_apart(a, b, ITERATION_REACH)
        if reach is None or reach < 1:
            return False  # not within reach of the egglog rules alone
        made: dict[bool, tuple[list[UOp], list[UOp]]] = {}  # each side's iteration: (its terms, variants)
        # the variants last, and only in a run with the hooks' equalities (undone by the facts move, they
        # leave digits the rules recombine inside a term); elsewhere their fresh e-graphs would spend the
        # budget other pairs' chains need (a Caviar chain lost under no_overflow)
        rounds = ((False, False), (False, True)) + (((True, False), (True, True)) if self.facts else ())
        for variants, backwards in rounds:
            start, goal = (b, a) if backwards else (a, b)
            if backwards not in made:
                if self._iteration_moves >= ITERATION_MOVES:
                    return False
                self._iteration_moves += 1
                made[backwards] = self._iteration_terms(start)
            ranked = []
            for m in made[backwards][variants]:
                apart = self._iterations_apart(m, goal, reach)
                if apart is not None:
                    ranked.append((apart, not self._congruent(m, goal), m.size, len(ranked), m))
            ranked.sort(key=lambda r: r[:4])
            tried = 0
            for apart, *_, m in ranked:
                if tried >= ITERATION_CANDIDATES:
                    break
                tried += 1
                rest: list[RewriteStep] = []
                left = detours if apart < reach else detours - 1  # nearer b, or a detour less
                if backwards:
                    self._pair(a, m, path, rest, left)
                else:
                    self._pair(m, b, path, rest, left)
                if not all(r.explained for r in rest) or len(steps) + len(rest) >= MAX_STEPS:
                    continue
                one = self._one_rule(start, m, path)
                if one is None:
                    continue
                if backwards:
                    steps.extend(rest)
                    steps.append(replace(one, before=m, after=start, backwards=not one.backwards))
                else:
                    steps.append(one)
                    steps.extend(rest)
                return True
        return False

    def _iterations_apart(self, a: UOp, b: UOp, limit: int) -> int | None:
        """The fewest iterations (at most limit) of the matched egglog rules that unite a and b on an
        e-graph of the two (after the analyses), 0 if the analyses do; None if more than limit."""
        if a is b:
            return 0
        if a.shape or b.shape or a.dtype is not b.dtype or max(a.size, b.size) > ITERATION_MAX_SIZE:
            return None
        with self._fresh_egraph(a, b) as fresh:
            if fresh is None:
                return None
            engine, lowerer = fresh
            egraph, ia, ib = engine.egraph, lowerer.ids[a], lowerer.ids[b]
            everything = engine.combined((*self._analyses, *(r for r, _ in self._units)))
            for k in range(limit + 1):
                if _value(egraph, ia) == _value(egraph, ib):
                    return k
                if k < limit:
                    egraph.parse_and_run_program(f"(run {everything} 1)")
                    egraph.parse_and_run_program("(run bookkeeping 1)")
            return None

    @contextmanager
    def _fresh_egraph(
        self, *terms: UOp, start: tuple[UOp, tuple[UOp, ...], tuple[tuple[UOp, UOp], ...]] | None = None
    ) -> Iterator[tuple[Engine, Lowerer] | None]:
        """The pool's engine holding an e-graph of the terms alone, after the bookkeeping rules and the
        analyses, and its lowerer (the terms' N ids); every change is undone by a rollback when the
        block ends. None when no egglog rule matched the run, or the EGGLOG_PROGRAMS tries are spent.
        With `start` (the run's start: its program, the root terms united with it, the hooks'
        equalities), those are lowered and united first: the history move's rerun."""
        engine = self._engine_for()
        if not self._units or self._programs >= self._program_limit:
            yield None
            return
        self._programs += 1
        engine.checkpoint()  # the pool's engine holds its program begun: each try is undone by a rollback
        try:
            lowerer = Lowerer(engine.egraph)
            if start is not None:
                program, roots, equalities = start
                root = lowerer.lower(program)
                for t in roots:
                    lowerer.union(root, lowerer.lower(t))
                for x, y in equalities:
                    lowerer.union(lowerer.lower(x), lowerer.lower(y))
            for t in terms:
                lowerer.lower(t)
            lowerer.flush()
            engine.egraph.parse_and_run_program("(run bookkeeping 1)")
            self._analyse(engine, engine.egraph)
            yield engine, lowerer
        finally:
            engine.rollback()

    def _congruent(self, m: UOp, b: UOp) -> bool:
        """Same operator, argument and type as b, and sources pairwise in one e-class of the run."""
        return same_head(m, b) and all(self._same_class(s, t) for s, t in zip(m.src, b.src, strict=True))

    def _iteration_terms(self, a: UOp) -> tuple[list[UOp], list[UOp]]:
        """The terms other than a of a's e-class after one iteration of the matched egglog rules on an
        e-graph of a alone (after the analyses): one per e-node of the class, over a's subterms and
        the terms the iteration wrote (to depth ITERATION_DEPTH); and the variants, a's own e-node
        over a's sources but one, that one another member of its class (ITERATION_VARIANTS a source
        at most)."""
        if a.shape or a.size > ITERATION_MAX_SIZE:
            return [], []
        with self._fresh_egraph(a) as fresh:
            if fresh is None:
                return [], []
            engine, lowerer = fresh
            egraph = engine.egraph
            egraph.parse_and_run_program(f"(run {engine.combined(tuple(r for r, _ in self._units))} 1)")
            egraph.parse_and_run_program("(run bookkeeping 1)")
            snapshot = Snapshot(egraph)
            ids = snapshot.class_ids()
            graph = snapshot.to_egraph(lowerer.args, (), None)
        known: dict[Any, UOp] = {}
        for u, name in lowerer.ids.items():
            value = snapshot.by_name.get(name)
            if value is not None:
                known.setdefault(ids[value], u)
        root = ids[snapshot.by_name[lowerer.ids[a]]]
        memo: dict[Any, UOp | None] = {}

        def term(cls: Any, depth: int) -> UOp | None:
            if cls in known:
                return known[cls]
            if depth == 0 or cls in memo:
                return memo.get(cls)
            memo[cls] = None  # a cycle back to this class gives nothing
            for node in graph.classes[cls].nodes:
                t = _term_of(node, graph.classes[cls], [term(c, depth - 1) for c in node.children])
                if t is not None:
                    memo[cls] = t
                    break
            return memo[cls]

        def others(cls: Any) -> list[UOp]:
            """The terms of cls's other e-nodes than the one a has (a source rewritten in place)."""
            if cls == root:
                return []
            got = (
                _term_of(node, graph.classes[cls], [term(c, ITERATION_DEPTH - 1) for c in node.children])
                for node in graph.classes[cls].nodes
            )
            return list(dict.fromkeys(t for t in got if t is not None and t is not known.get(cls)))

        out: dict[UOp, None] = {}
        for node in graph.classes[root].nodes:
            kids = [term(c, ITERATION_DEPTH) for c in node.children]
            m = _term_of(node, graph.classes[root], kids)
            if m is not None and m is not a and m.dtype is a.dtype:
                out[m] = None
        # the variants: a's own e-node with one source rewritten (the iteration rewrote inside a: two
        # digits of a sum recombined, `x // 360 % 6 * 90 + x // 72 % 5 * 18 -> x // 72 % 30 * 18`)
        variants: dict[UOp, None] = {}
        for node in graph.classes[root].nodes:
            kids = [term(c, ITERATION_DEPTH) for c in node.children]
            if _term_of(node, graph.classes[root], kids) is not a:
                continue
            for i, c in enumerate(node.children):
                for t in others(c)[:ITERATION_VARIANTS]:
                    m = _term_of(node, graph.classes[root], [*kids[:i], t, *kids[i + 1 :]])
                    if m is not None and m is not a and m.dtype is a.dtype and m not in out:
                        variants[m] = None
        return list(out), list(variants)

    def _one_rule(self, a: UOp, b: UOp, path: tuple[int, ...]) -> RewriteStep | None:
        """The step a -> b by one named rule (a Python rule at a's root, one egglog rule), or None."""
        if self.python.rewrite(a) is b:
            return self._python_step(self.python.last_fired.name, a, b, path, everywhere=False)
        if (unit := self._egglog_rule(a, b)) is not None:
            return RewriteStep(unit, "egglog", a, b, path)
        return None

    def _decided(self, a: UOp, b: UOp) -> bool:
        """Does the decided-comparisons hook (run only where the rule set has its rule) decide a as b?"""
        if not self._piecewise or b.op is not Ops.CONST or not is_comparison(a):
            return False
        return any(u is a and value == b.arg for u, value in decided_comparisons([a]))

    def _equal_sources(self, a: UOp) -> tuple[int, int] | None:
        """Two sources of a, not the same term, in one e-class (`x != y` with x and y equal), or None:
        (i, j) with source j the one to rewrite into source i, the smaller."""
        classes: dict[Any, int] = {}
        for j, s in enumerate(a.src):
            c = self.class_of(s) if not s.shape else None
            if c is None:
                continue
            if (i := classes.setdefault(c, j)) != j and a.src[i] is not s:
                return (i, j) if a.src[i].size <= s.size else (j, i)  # into the smaller
        return None

    def _constant_sources(self, a: UOp) -> UOp:
        """a with every non-constant source whose e-class holds a constant replaced by it (a itself
        if there is none): the constant was found by a rule (an interval pinned, a fold), and the
        step from a to the result is often one rule on it (`r + 0 -> r`)."""
        src = []
        for s in a.src:
            c = self.constants.get(self.class_of(s)) if s.op is not Ops.CONST and not s.shape else None
            src.append(s if c is None or c.dtype is not s.dtype else c)
        return a if all(s is t for s, t in zip(src, a.src, strict=True)) else a.replace(src=tuple(src))

    # -- Python rules
    def _python_step(self, name: str, a: UOp, b: UOp, path: tuple[int, ...], everywhere: bool) -> RewriteStep:
        if name in self._algebra:
            return RewriteStep(
                ALGEBRA_NAMES.get(name, f"linear/{name}"), "index-algebra", a, b, path, everywhere
            )
        return RewriteStep(f"symbolic/{name}", "greedy-seed", a, b, path, everywhere)

    def _python_fixed_point(
        self, term: UOp, rules: PatternMatcher | None = None
    ) -> tuple[UOp | None, list[tuple[str, UOp, UOp]]]:
        """The Python rules' (or `rules`') rewrite of term to a fixed point, innermost first, one firing
        a step (a shared subterm rewritten everywhere at once, as the greedy engine does); None past
        MAX_PYTHON_STEPS firings."""
        rules = rules or self.python
        fired: list[tuple[str, UOp, UOp]] = []
        while True:
            for n in term.toposort(enter_call_bodies=False):
                m = rules.rewrite(n)
                if m is not None and m is not n:
                    fired.append((rules.last_fired.name, n, m))
                    term = term.substitute({n: m})
                    break
            else:
                return term, fired
            if len(fired) > MAX_PYTHON_STEPS:
                return None, fired

    # -- egglog rules
    def _egglog_rule(self, a: UOp, b: UOp) -> str | None:
        """The egglog rule one iteration of which unites a and b on an e-graph of them alone, or None."""
        found = self._egglog_rules(a, b, 1, minimize=False)
        return found[0] if found is not None and len(found) == 1 else None

    def _egglog_rules(self, a: UOp, b: UOp, iterations: int, minimize: bool) -> list[str] | None:
        """Rules that, run together for `iterations` iterations on an e-graph of a and b alone (after
        the analyses), unite them; None if all the matched rules do not. Without minimize, one rule
        found by bisection (None if no single rule does it); with minimize, a set from which no rule
        can be left out (delta debugging: chunks of the rules removed while the rest still unite)."""
        if a.shape or b.shape:
            return None
        with self._fresh_egraph(a, b) as fresh:
            if fresh is None:
                return None
            engine, lowerer = fresh
            egraph, ia, ib, units = engine.egraph, lowerer.ids[a], lowerer.ids[b], self._units
            if _value(egraph, ia) == _value(egraph, ib):
                return None  # the analyses alone: no rewrite to name

            def unites(part: list[tuple[str, str]]) -> bool:
                engine.checkpoint()
                try:
                    name = engine.combined(tuple(r for r, _ in part))
                    for _ in range(iterations):
                        egraph.parse_and_run_program(f"(run {name} 1)")
                        egraph.parse_and_run_program("(run bookkeeping 1)")
                    return _value(egraph, ia) == _value(egraph, ib)
                finally:
                    engine.rollback()

            if not unites(units):
                return None
            if not minimize:
                while len(units) > 1:
                    half = len(units) // 2
                    if unites(units[:half]):
                        units = units[:half]
                    elif unites(units[half:]):
                        units = units[half:]
                    else:
                        return None  # only rules of both halves together: more than one rule
                return [units[0][1]]
            chunk = max(1, len(units) // 2)
            while True:
                i = 0
                while i < len(units) and len(units) > 1:
                    trial = units[:i] + units[i + chunk :]
                    if trial and unites(trial):
                        units = trial
                    else:
                        i += chunk
                if chunk == 1:
                    return [name for _, name in units]
                chunk = max(1, chunk // 2)

    def _together(self, a: UOp, b: UOp) -> str:
        """For an unexplained step: the egglog rules that unite a and b together, in one iteration or
        two, as a note (`needs together, in 2 iterations: r1, r2`), or ""."""
        for iterations in (1, 2):
            rules = self._egglog_rules(a, b, iterations, minimize=True)
            if rules is not None:
                plural = "s" if iterations > 1 else ""
                return (
                    f"egglog unites them with {', '.join(rules)} together, in {iterations} iteration{plural}"
                )
        return ""

    def _analyse(self, engine: Engine, egraph: bindings.EGraph) -> None:
        """The analyses' facts (bounds: rules that only set `lo`/`hi`, never union) on the two terms, to
        a fixed point (at most ANALYSIS_ITERATIONS), as the run had them when its rules fired."""
        if not self._analyses:
            return
        name = engine.combined(self._analyses)
        for _ in range(ANALYSIS_ITERATIONS):
            out = egraph.parse_and_run_program(f"(run {name} 1)")
            egraph.parse_and_run_program("(run bookkeeping 1)")
            if not out[0].report.updated:
                return

    def _engine_for(self) -> Engine:
        if self._engine is None:
            # the pool's engine of the whole rule set: built once per process, not per explanation
            self._engine = default_pool().lease(self.rule_set, self.int_semantics)
            forms: dict[str, list[str]] = {}
            for text, unit in engine_program(self.rule_set, self.int_semantics).forms:
                if unit is not None:
                    forms.setdefault(unit, []).append(text)
            analyses = {
                r for r, _ in self._engine.units if not any(_MAY_UNION.search(f) for f in forms.get(r, ()))
            }
            self._analyses = tuple(r for r, _ in self._engine.units if r in analyses)
            self._units = [
                u
                for u in self._engine.units
                if u[0] not in analyses and (self.matched is None or u[1] in self.matched)
            ]
        return self._engine


def reversed_steps_at(start: UOp, steps: list[RewriteStep], path: tuple[int, ...]) -> list[RewriteStep]:
    """reversed_steps of steps found on start, the subterm at `path` (the steps' paths are from the root)."""
    local = [replace(s, path=s.path[len(path) :]) for s in steps]
    return [replace(s, path=(*path, *s.path)) for s in reversed_steps(start, local)]


def _without_undone(steps: list[RewriteStep]) -> list[RewriteStep]:
    """steps less each step that the next one undoes at the same place (a rotation and its inverse)."""
    out: list[RewriteStep] = []
    for s in steps:
        top = out[-1] if out else None
        if top is not None and top.path == s.path and top.before is s.after and top.after is s.before:
            out.pop()
        else:
            out.append(s)
    return out


def _term_of(node: Any, cls: Any, kids: list[UOp | None]) -> UOp | None:
    """The term of an e-node of class cls over the terms kids (None if one is missing, or if the
    e-node makes no term of the class's type over them)."""
    if any(k is None for k in kids):
        return None
    if node.op is Ops.CONST:
        return UOp.const(node.arg, cls.dtype) if not cls.shape else None
    try:
        term = UOp(node.op, tuple(kids), node.arg)
    except Exception:  # an e-node over terms of another type than the class's
        return None
    return term if term.dtype is cls.dtype and term.shape == cls.shape else None


def _rule_name(matched: str) -> str:
    """The rule of a name in a report's matches: `comm_assoc/add-assoc` for either direction of it."""
    return matched[:-2] if matched.endswith(("=>", "<=")) else matched


def _value(egraph: bindings.EGraph, name: int) -> Any:
    span = bindings.PanicSpan()
    return egraph.eval_expr(bindings.Call(span, "N", [bindings.Lit(span, bindings.Int(name))]))[1]


def _appended(steps: list[RewriteStep], own: list[RewriteStep]) -> bool:
    """Append a move's own steps to the chain's when every one is explained and the chain stays within
    MAX_STEPS: did the move succeed?"""
    if not all(s.explained for s in own) or len(steps) + len(own) > MAX_STEPS:
        return False
    steps.extend(own)
    return True
