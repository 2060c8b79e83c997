"""The interface of the runner's hooks: Python steps that take part in a saturation run beside egglog.

egglog states rules over terms; some knowledge is better computed in Python (exact f32 folding,
CALL inlining, decisions over the linear forms of sums). A hook is one such step, with one small
interface, in two phases:

- `start(seeds)`, before any rule runs, on UOps: the program and what earlier hooks added (the
  greedy result, decided comparisons). It returns `Additions`: terms equal to the program (unioned
  with the root and offered to extraction as candidates) and pairs of equal terms (unioned), each
  named by the rule that made it (`rules`; else by the hook), which the run keeps for `explain()`
  (`Seeds.named_equalities()`: an explanation's step through the hook's union names it). This
  phase needs no e-graph, so a run whose root it decides to be a constant needs no egglog engine.
- `after_iteration(snapshot)`, after each egglog iteration, on the e-graph read back (a
  `Snapshot`): it writes new terms and unions through the `Lowerer` it was attached to and returns
  how many unions it wrote (0: nothing new, which lets the run saturate).

The runner makes one instance of each hook that `applies` to a run (no work in the constructor),
calls the start phases in the registered order, then `attach`es the hooks that iterate to each
e-graph it builds (a replay after an overshoot builds it again: a hook keeps no state across
`attach`) and calls them in order after every egglog iteration.

A hook reads the run's report so far (`self.report`: sizes, matches, times; the runner sets it
before the start phases) and can stop the run, as egg's hooks can: `before_iteration()`, called on
every hook before each iteration, returns a reason to stop (or None), and any phase may raise
`StopRun(reason)`. The run then stops with stop_reason "hook" and the reason, prefixed with the
hook's name, in `stop_detail`; an iteration a hook stopped after is kept. A hook that stops the
run in its start phase stops it before any rule runs (the e-graph is the program and the seeds so
far, built in Python as for a run decided without an engine). Each hook's time is in the report
(`start_times`, `hook_times`).

A hook of one's own, run after the registered ones (`saturate(..., hooks=...)`); with the rule set
"none" only the hook's equality is in the e-graph:

    >>> from eqsat_uopc.ir.uop import UOp
    >>> from eqsat_uopc.saturation import HOOKS, Additions, Hook, saturate
    >>> class Triple(Hook):
    ...     name = "triple"
    ...     def start(self, seeds):
    ...         x = seeds.program.src[0]
    ...         return Additions(equalities=((x * 3, x + x + x),), matches={"triple/start": 1})
    >>> x = UOp.param(0)
    >>> s = saturate(x * 3, rules="none", hooks=(*HOOKS, Triple))
    >>> s.equivalent(x * 3, x + x + x), s.report.matches["triple/start"]
    (True, 1)
    >>> saturate(x * 3, rules="none").equivalent(x * 3, x + x + x)
    False

A hook that stops a run when the e-graph passes 40 e-nodes, reading the report:

    >>> from eqsat_uopc.saturation import Hook, saturate
    >>> class Small(Hook):
    ...     name = "small"
    ...     def before_iteration(self):
    ...         n = self.report.enodes[-1]
    ...         return f"{n} e-nodes, more than 40" if n > 40 else None
    >>> r = saturate(((x + 1) * (x + 2)) * ((x + 3) * (x + 4)), hooks=(*HOOKS, Small)).report
    >>> r.stop_reason.value, r.stop_detail, r.iterations
    ('hook', 'small: 42 e-nodes, more than 40', 2)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar

from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp

if TYPE_CHECKING:
    from eqsat_uopc.saturation.config import SaturationConfig
    from eqsat_uopc.saturation.lower import Lowerer
    from eqsat_uopc.saturation.report import SaturationReport
    from eqsat_uopc.saturation.serialize import Snapshot

__all__ = ["Additions", "Hook", "RunSetup", "Seeds", "StopRun"]


class StopRun(Exception):
    """Raised by a hook (in any phase) to stop the run: stop_reason "hook", `reason` in the report."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class RunSetup:
    """What a hook may know about a run before it starts: the program, the settings, the rules."""

    program: UOp
    config: SaturationConfig
    nodes: tuple[UOp, ...]  # the program's nodes, sources first
    rules: frozenset[str]  # the names of the rules the run has (its rule set under its int semantics)


@dataclass(frozen=True)
class Additions:
    """What a start phase adds: terms equal to the program, by name, and pairs of equal terms."""

    root_terms: dict[str, UOp] = field(default_factory=dict)
    equalities: tuple[tuple[UOp, UOp], ...] = ()
    matches: dict[str, int] = field(default_factory=dict)  # rule name -> unions, for the report
    # the rule that made each equality, in order (`linear/divmod-fold`); empty: each is named by its hook.
    # Kept on the run's Seeds (no cost beyond the list), so that an explanation names the hook's unions
    rules: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.rules and len(self.rules) != len(self.equalities):
            raise ValueError(
                f"Additions: {len(self.rules)} rule names for {len(self.equalities)} equalities "
                "(one name per equality, or none)"
            )


@dataclass
class Seeds:
    """The start phases' additions so far, in the order the runner lowers them: the program, then
    each root term (unioned with the program), then each pair of equal terms."""

    program: UOp
    root_terms: dict[str, UOp] = field(default_factory=dict)
    equalities: list[tuple[UOp, UOp]] = field(default_factory=list)
    matches: dict[str, int] = field(default_factory=dict)
    reasons: list[tuple[str, str]] = field(default_factory=list)  # (rule, hook) of each equality, in order

    def add(self, additions: Additions, by: str = "") -> None:
        """Take a start phase's additions; `by` names the hook (each equality's rule, where the
        additions name none)."""
        self.root_terms.update(additions.root_terms)
        self.equalities.extend(additions.equalities)
        if additions.equalities:
            count = len(additions.equalities)
            self.reasons.extend(zip(additions.rules or (by,) * count, (by,) * count, strict=True))
        for name, n in additions.matches.items():
            self.matches[name] = self.matches.get(name, 0) + n

    def named_equalities(self) -> tuple[tuple[UOp, UOp, str, str], ...]:
        """Each pair of equal terms with its reason: (a, b, the rule that rewrote a into b, the hook);
        a pair added without one (written into `equalities` directly) is left out."""
        return tuple(
            (a, b, rule, by)
            for (a, b), (rule, by) in zip(self.equalities, self.reasons, strict=False)
            if rule
        )

    @property
    def roots(self) -> tuple[UOp, ...]:
        """The program and the terms equal to it."""
        return (self.program, *self.root_terms.values())

    def terms(self) -> dict[UOp, None]:
        """Every node of the program and of the root terms, sources first, each once."""
        return dict.fromkeys(n for r in self.roots for n in r.toposort())

    def root_constant(self) -> bool:
        """Is a scalar constant among the program's equals (a root term, or a term paired with a root)?"""
        if any(u.op is Ops.CONST for u in self.root_terms.values()):
            return True
        roots = set(self.roots)
        return any(a in roots and b.op is Ops.CONST for a, b in self.equalities)


class Hook:
    """One Python step of saturation runs. Subclasses override what they take part in; the defaults
    add nothing."""

    name: ClassVar[str]  # short and unique, as the report and errors name it
    iterates: ClassVar[bool] = False  # does after_iteration ever add anything (the runner reads a snapshot)

    report: SaturationReport  # the run's report so far (set by the runner before the start phases)

    def __init__(self, setup: RunSetup) -> None:
        self.setup = setup
        self.matches: dict[str, int] = {}  # rule name -> unions written since the last call (runner clears)

    @classmethod
    def applies(cls, setup: RunSetup) -> bool:
        """Does this hook take part in the run at all?"""
        return True

    def start(self, seeds: Seeds) -> Additions:
        """Before any rule runs: what to add, given the program and earlier hooks' additions."""
        return Additions()

    def attach(self, lowerer: Lowerer) -> None:
        """A new e-graph (the program lowered into it by `lowerer`): forget every per-e-graph state."""
        self.lowerer = lowerer

    def before_iteration(self) -> str | None:
        """Before each iteration (every hook, iterating or not): a reason to stop the run, or None."""
        return None

    def after_iteration(self, snapshot: Snapshot) -> int:
        """After an egglog iteration: write terms and unions through the lowerer; return the unions."""
        return 0
