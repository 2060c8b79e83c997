"""SaturationConfig: every knob of a saturation run and of extraction from it, defaults in one place.

`saturate`, `optimize`, `compare`, the sweeps, the experiments and the CLI all take one
SaturationConfig and pass it through, so a budget or a cost model means the same thing everywhere
(the CLI makes one option per field, from `FIELD_HELP`). Keyword overrides build a new config:

    >>> from eqsat_uopc.saturation.config import SaturationConfig
    >>> SaturationConfig().replace(node_budget=2_000).node_budget
    2000

A config is validated when it is made: a bad value raises SaturationError naming the setting,
before any work. The defaults finish in seconds per program, for interactive use and corpus
sweeps; raise `node_budget` for larger e-graphs, and the match budget follows it unless one is set
(`match_budget_in_effect`: 100 matches per e-node of the node budget, at least 1,000,000):

    >>> [SaturationConfig(node_budget=n).match_budget_in_effect for n in (10_000, 500_000)]
    [1000000, 50000000]

The limits that stop a run by default measure work, not time, so that the same program and
settings give the same result on any machine under any load (docs/DESIGN.md, "Determinism"):
`node_budget` (e-nodes), `iter_limit` (iterations) and `match_budget` (egglog's rule matches over
the run) for saturation, `extract_branch_limit` (the ILP solver's branch-and-bound nodes) for an
exact extractor. The wall-clock limits, `time_limit` and `extract_time_limit`, are off (None) by
default: set one as a safety net, knowing that a run it stops stops earlier on a loaded machine,
with another result (the report says so: stop reason "time_limit", or the exact extractor's
status "Time limit reached").
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from eqsat_uopc.extract import AUTO_BRANCH_LIMIT
from eqsat_uopc.rules import INT_SEMANTICS, RULE_SETS, RuleSet, resolve_rule_set
from eqsat_uopc.saturation.errors import SaturationError

__all__ = [
    "DEFAULT_CONFIG",
    "DEFAULT_MATCH_BUDGET",
    "FIELD_HELP",
    "MATCHES_PER_BUDGET_ENODE",
    "SaturationConfig",
    "resolve_config",
]

# egglog rule matches a run may make by default. Above every run of the bundled corpora (6,814 runs
# of 6,572 programs, both int semantics: at most 755,227, the 99th percentile 70,572;
# bench/work_limits.py), so that it changes none of their results; a run that reaches it has spent
# a few CPU seconds (130,000 to 850,000 matches a CPU second on the corpora's largest runs), about
# what the 5 s wall-clock default it replaces allowed on a quiet machine. The floor of the budget a
# run gets when none is set (SaturationConfig.match_budget_in_effect)
DEFAULT_MATCH_BUDGET = 1_000_000
# ... above which the budget grows with the node budget: this many matches per e-node it allows
# (100 x the default 10,000 e-nodes is the floor). A node budget sized to a larger program (it must
# be: it may not be below the program's size) buys the work to fill it: with a fixed 1,000,000, a
# 200,000-node program given 1,000,000 e-nodes stopped at the match budget after a few iterations,
# where the same program at 25,000 nodes saturated or filled its budget (docs/DESIGN.md, "Scale")
MATCHES_PER_BUDGET_ENODE = 100

FIELD_HELP: dict[str, str] = {
    "rules": "saturation rule set: a name in eqsat_uopc.rules.RULE_SETS, a bundled family, a .egg family "
    "file, or a composition of them joined by '+' (default+my_rules.egg; '++' is a '+' inside a file name); "
    "or a RuleSet",
    "int_semantics": "'wrap' (int32 wraparound) or 'no_overflow' (no intermediate result overflows)",
    "node_budget": "e-nodes the e-graph may hold; an iteration that overshoots is rolled back",
    "iter_limit": "saturation iterations at most",
    "match_budget": "egglog rule matches over the run at most, the deterministic measure of saturation's "
    "work (checked between iterations: the iteration that passes it is kept); None: 100 per e-node of "
    "node_budget, at least 1,000,000",
    "time_limit": "seconds of saturation at most, checked between iterations (None: no limit); wall-clock, "
    "so a run it stops depends on the machine's load: a safety net, off by default",
    "match_limit": "back-off: a rule matching more often in one iteration is banned ...",
    "ban_length": "... for this many iterations (both double at each new ban of that rule)",
    "stop_at_constant": "stop as soon as the root's e-class holds a constant, the cheapest program under "
    "every built-in cost model (a user cost model that prices constants above other ops may want no)",
    "seed_greedy": "put the greedy result (its rules sound under int_semantics) in the root's e-class "
    "before saturating, so extraction never does worse (rule sets with the symbolic families, "
    "programs without f32)",
    "shortcut_decided": "when the root is a constant before any rule runs (the greedy seed is one, the "
    "piecewise-linear step decides the root comparison, or the seed folds to a constant with the "
    "comparisons it decides), build that e-graph, the program and its seeds unioned, in Python instead "
    "of on an egglog engine; egglog's own extractors cannot run on it (the config's extractor being one "
    "of them turns this off)",
    "prune_rules": "run only the rules whose query can ever match the program (the constructors it needs are "
    "in the program or built by rules that can fire); no runs every rule (same e-graph, more time)",
    "cost": "cost model for extraction (a name in COST_MODELS, or a model object)",
    "extractor": "extractor (a name in EXTRACTORS, or 'auto')",
    "extract_branch_limit": "branch-and-bound nodes an exact extractor's ILP solver may explore over all "
    "its solves, the deterministic measure of its search (None: no limit)",
    "extract_time_limit": "seconds an exact extractor may take (None: no limit); wall-clock, so a result it "
    "cuts short depends on the machine's load: a safety net, off by default",
    "pulses": "optimize only: saturations at most, each restarted from the previous one's extracted "
    "program while a run stops at the node budget or iteration limit and its extraction is cheaper "
    "than the program it started from (Caviar's pulsing)",
    "validate": "optimize and compare: check the result against the input before returning it (z3 within "
    "a fixed resource budget, then the evaluator on edge and random inputs) and return greedy's result, "
    "else the input, in place of a refuted one; no returns the result unchecked",
}


@dataclass(frozen=True)
class SaturationConfig:
    """Settings of one saturation and extraction (see the module docstring and FIELD_HELP)."""

    rules: str | RuleSet = "default"
    int_semantics: str = "wrap"
    node_budget: int = 10_000
    iter_limit: int = 30
    match_budget: int | None = None
    time_limit: float | None = None
    match_limit: int = 1000
    ban_length: int = 5
    seed_greedy: bool = True
    stop_at_constant: bool = True
    shortcut_decided: bool = True
    prune_rules: bool = True
    cost: Any = "dag_size"
    extractor: Any = "auto"
    extract_branch_limit: int | None = AUTO_BRANCH_LIMIT
    extract_time_limit: float | None = None
    pulses: int = 3
    validate: bool = True

    def __post_init__(self) -> None:
        from eqsat_uopc.saturation.rule_loading import load_rules

        if isinstance(self.rules, RuleSet) or (isinstance(self.rules, str) and self.rules not in RULE_SETS):
            # a composition or a file is loaded once, here, into the value every run uses (a sweep's
            # workers get the value, not the file); a RuleSet made in Python is checked like a file
            object.__setattr__(self, "rules", load_rules(self.rules))
        resolve_rule_set(self.rules, SaturationError)
        if self.int_semantics not in INT_SEMANTICS:
            raise SaturationError(
                f"int_semantics must be 'wrap' or 'no_overflow', got {self.int_semantics!r}"
            )
        for name in ("node_budget", "iter_limit", "match_limit", "ban_length", "pulses"):
            _check_positive(name, getattr(self, name), integer=True)
        for name in ("match_budget", "extract_branch_limit"):
            if getattr(self, name) is not None:
                _check_positive(name, getattr(self, name), integer=True)
        for name in ("time_limit", "extract_time_limit"):
            if getattr(self, name) is not None:
                _check_positive(name, getattr(self, name), integer=False)
        for name in ("seed_greedy", "stop_at_constant", "shortcut_decided", "prune_rules", "validate"):
            if not isinstance(getattr(self, name), bool):
                raise SaturationError(f"{name} must be True or False, got {getattr(self, name)!r}")
        from eqsat_uopc.extract import cost_model, extractor_named

        cost_model(self.cost)  # CostModelError naming the problem
        if isinstance(self.extractor, str) and self.extractor != "auto":
            extractor_named(self.extractor)  # ExtractionError listing the known ones

    @property
    def match_budget_in_effect(self) -> int:
        """The rule matches a run may make: `match_budget` when set, else MATCHES_PER_BUDGET_ENODE per
        e-node of `node_budget`, at least DEFAULT_MATCH_BUDGET (so that a run's work grows with the
        e-graph it may build, as a larger program needs; the default node budget gets the floor)."""
        if self.match_budget is not None:
            return self.match_budget
        return max(DEFAULT_MATCH_BUDGET, MATCHES_PER_BUDGET_ENODE * self.node_budget)

    @property
    def rule_set(self) -> RuleSet:
        return resolve_rule_set(self.rules, SaturationError)

    def replace(self, **changes: Any) -> SaturationConfig:
        """A copy with some settings changed; an unknown setting is a SaturationError naming it."""
        known = {f.name for f in dataclasses.fields(self)}
        unknown = sorted(set(changes) - known)
        if unknown:
            raise SaturationError(f"unknown setting {unknown[0]!r} (known: {', '.join(sorted(known))})")
        return dataclasses.replace(self, **changes) if changes else self

    def to_dict(self) -> dict[str, Any]:
        """The settings as JSON-able values (a rule set or cost model object by its name; a rule set
        that is not the one registered under its name, such as one with a family file, by its name
        and a digest of its rules, so that a file edited is a setting changed)."""
        out = {}
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if isinstance(v, RuleSet) and not v.registered:
                out[f.name] = f"{v.name} (sha256 {v.digest[:16]})"
            else:
                out[f.name] = v if v is None or isinstance(v, str | int | float | bool) else _name_of(v)
        return out


def _name_of(value: Any) -> str:
    name = getattr(value, "name", None)
    return name if isinstance(name, str) else type(value).__name__


def _check_positive(name: str, value: Any, integer: bool) -> None:
    if isinstance(value, bool) or not isinstance(value, int if integer else int | float):
        kind = "an int" if integer else "a number of seconds"
        raise SaturationError(f"{name} must be {kind}, got {value!r}")
    if not value > 0:  # NaN too
        raise SaturationError(f"{name} must be positive, got {value!r}")


DEFAULT_CONFIG = SaturationConfig()


def resolve_config(caller: str, config: Any, settings: dict[str, Any]) -> SaturationConfig:
    """The config an entry point runs: `config` (DEFAULT_CONFIG if None) with the keyword settings
    replaced. Anything but a SaturationConfig is refused, naming the entry point."""
    if config is not None and not isinstance(config, SaturationConfig):
        raise SaturationError(f"{caller}: config must be a SaturationConfig, got {type(config).__name__}")
    return (config or DEFAULT_CONFIG).replace(**settings)
