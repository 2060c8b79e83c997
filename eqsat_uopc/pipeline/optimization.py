"""optimize: the one call for "give me the best equivalent of this program".

It is saturation followed by extraction under one SaturationConfig, so the CLI, compare, the
sweeps and the notebooks mean the same thing by a budget or a cost model. Under the default
`seed_greedy=True` the greedy result (its rules sound under the chosen int_semantics) is in the
root's e-class before saturation starts, and extraction is never allowed to return a program
costlier than that one: optimize never does worse than the greedy engine.

A saturation that stops at its node budget or iteration limit has usually spent the budget on
associativity around terms that a cheaper equivalent no longer has. optimize then pulses, as
Caviar does: it saturates again from the program it just extracted, with a fresh budget, while
each pulse's result is strictly cheaper than its start (at most `config.pulses` saturations),
and while a new pulse may find more (`_may_improve`).
Each pulse is sound for the program it starts from, so the result is equivalent to the input,
and the cost only falls, so it is never costlier than greedy's either.

Before it returns, optimize validates the result against the input (`config.validate`, on by
default; eqsat_uopc.verify.validation): z3 within a fixed resource budget, then the evaluator on
edge and random inputs, under the run's int semantics. Whatever the rewrites did, a refuted program
is never returned: the next candidate is, greedy's result (the run's seed), then the input itself,
and the result's `.validation` says what was refuted, where, and what was returned instead. The
final result of all pulses is validated against the original input, once.

`cost="measured"` is not a cost model but a selection step after saturation (fastest.py): optimize
runs twice, under dag_size and under latency, gathers candidates from both runs (the smallest, the
latency model's choice, its choices by other extractors and by tree aggregation, the latency
choice from the smallest run's e-graph, greedy's result and the input) and returns the one the C
backend measures fastest, preferring the smallest unless another is faster beyond the run's spread.

    >>> from eqsat_uopc import UOp, optimize
    >>> x = UOp.param(0)
    >>> best = optimize((x * 4 + 8) // 4, int_semantics="no_overflow")
    >>> best.program is x + 2, best.cost, best.optimal, best.report.stop_reason.value
    (True, 3, True, 'saturated')
    >>> best.validation.status, best.validation.check
    ('proved', 'z3, integers')
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

from eqsat_uopc.backend.toolchain import compiler_command
from eqsat_uopc.bulk import gc_paused
from eqsat_uopc.extract import Extraction, cost_model, cost_of
from eqsat_uopc.greedy.symbolic import simplify_under
from eqsat_uopc.ir.dtype import dtypes
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uir import to_uir
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.pipeline.early_validation import EarlyValidation
from eqsat_uopc.pipeline.fastest import (
    MeasureError,
    Measurement,
    MeasureSettings,
    cached_candidates,
    candidates_key,
    measure_fastest,
    store_candidates,
)
from eqsat_uopc.saturation import (
    HOOKS,
    SaturationConfig,
    SaturationReport,
    StopReason,
    resolve_config,
    saturate,
)
from eqsat_uopc.verify.explanation import explainer, not_explained
from eqsat_uopc.verify.validation import Validation, not_validated, validate_candidates

__all__ = ["optimize"]

# a measured choice is one candidate among two runs' (and greedy's, the input): no one chain leads to it
_MEASURED_NOT_EXPLAINED = (
    "a cost='measured' result is not explained (it is chosen among the candidates of two runs); "
    "explain the run under dag_size or latency instead"
)


def optimize(
    program: UOp, cost: Any = None, config: SaturationConfig | None = None, /, **settings: Any
) -> Extraction:
    """The best program equivalent to `program` under `cost` (default: the config's), with the
    saturation report and run (`.report`, `.saturation`).

    Any setting of SaturationConfig can be given by keyword (`optimize(p, "latency",
    node_budget=50_000, int_semantics="no_overflow")`). The result's `.program`, `.cost` and
    `.optimal` say what was found and whether the extractor proved it optimal among the e-graph's
    terms (not among every equivalent program: one the rules never derived is not a candidate).
    After more than one pulse, `.report` and `.saturation` are the last pulse's and
    `.info["pulses"]` holds every pulse's Extraction (its program, report and saturation), first to
    last.

    `.validation` is the check of the program against `program` (eqsat_uopc.verify.Validation; a
    "not_attempted" one with validate=False). When it replaced a refuted result by greedy's or by
    the input, `.program`, `.cost` and `.choice` are the replacement's (its choice in the first
    pulse's e-graph, whose `.report` and `.saturation` the result then has), `.optimal` is None and
    `.validation.replaced` holds each refuted program with its counterexample.

    cost="measured" (see the module docstring) returns the candidate measured fastest: `.cost` is its
    median time in ns per lane, `.cost_model` "measured", `.optimal` None, `.info["measured"]`
    every candidate (labels, hash, dag_size, latency estimate, ns per round, min, median, quartiles,
    spread, .uir text) and how they were timed (fastest.Measurement.to_dict), and `.info["runs"]`
    the two optimize results it took its candidates from ({"dag_size": ..., "latency": ...}).
    `.report` and `.saturation` are those of the run the chosen program came from. The fields of
    MeasureSettings (lanes, rounds, seed, round_seconds, best_of, margin, confirm, cache) may then
    be given by keyword too. With the candidates of an earlier call in the cache, nothing is
    saturated: `.report`, `.saturation` are None, `.choice` is empty and there are no "runs".
    """
    if cost is None and settings.get("cost") == "measured":
        cost = settings.pop("cost")
    if isinstance(cost, str) and cost == "measured":
        measure = MeasureSettings().replace(
            **{k: settings.pop(k) for k in MeasureSettings.names() if k in settings}
        )
        compiler_command()  # CompilerNotFoundError now, not after saturating
        return _optimize_measured(program, resolve_config("optimize", config, settings), measure)
    misplaced = sorted(set(settings) & set(MeasureSettings.names()))
    if misplaced:
        raise MeasureError(f"{misplaced[0]} is a setting of cost='measured' only")
    if cost is not None:
        settings["cost"] = cost
    config = resolve_config("optimize", config, settings)
    with gc_paused():  # see _pulses
        return _pulses(program, config)


def _pulses(program: UOp, config: SaturationConfig) -> Extraction:
    """optimize's saturations and extractions (pulses) and the validation of their result.

    Runs with the cyclic garbage collector paused (bulk.py): each phase (saturation, read-back,
    extraction) pauses it for its own bulk work, but between them it ran over everything the
    phases before had built, and the e-graph read back, alive until the end, was scanned three
    times (a quarter of the read-back's and extraction's time on a 100,000-node sum chain)."""
    pulses: list[Extraction] = []
    start = program
    early = EarlyValidation(program, config.int_semantics) if config.validate else None
    try:
        while True:
            hooks = early.hooks(HOOKS) if early is not None and not pulses else None
            sat = saturate(start, config, hooks=hooks)
            try:
                result = sat.extract()
            finally:
                sat.close()
            pulses.append(result)
            if (
                len(pulses) == config.pulses
                or not _may_improve(result.report)
                or result.program.op is Ops.CONST
                or result.cost >= cost_of(start, config.cost)
            ):
                break
            start = result.program
        if len(pulses) > 1:
            result = dataclasses.replace(result, info={**result.info, "pulses": tuple(pulses)})
        validated = _validated(program, result, pulses[0], config, early)
    finally:
        if early is not None:
            early.drop()
    return dataclasses.replace(validated, explainer=explainer(program))


def _validated(
    program: UOp,
    result: Extraction,
    first: Extraction,
    config: SaturationConfig,
    early: EarlyValidation | None = None,
) -> Extraction:
    """result with its validation against program; a refuted program replaced by the first candidate
    that is not: greedy's result (the first pulse's seed), else the input. early: the checks begun
    while the first pulse ran."""
    if not config.validate:
        return dataclasses.replace(result, validation=not_validated(config.int_semantics))
    saturation = first.saturation
    greedy = saturation.seed if saturation is not None else None
    chosen, validation = validate_candidates(
        program,
        [("extracted", result.program), ("greedy", greedy)],
        config.int_semantics,
        begun=early.begun if early is not None else None,
    )
    if chosen is result.program:
        return dataclasses.replace(result, validation=validation)
    return _replaced(result, chosen, validation, first, config.cost)


def _replaced(
    result: Extraction, chosen: UOp, validation: Validation, first: Extraction, cost: Any
) -> Extraction:
    """result with `chosen` (greedy's result or the input: both in the first pulse's e-graph) in place
    of its refuted program: the first pulse's report and e-graph, no optimality claim."""
    egraph = first.saturation.egraph if first.saturation is not None else None
    choice = (egraph.choice_of((chosen,)) if egraph is not None else None) or {}
    return dataclasses.replace(
        result,
        choice=choice,
        programs=(chosen,),
        cost=cost_of(chosen, cost),
        optimal=None,
        bound=None,
        report=first.report,
        saturation=first.saturation,
        validation=validation,
    )


def _may_improve(report: SaturationReport) -> bool:
    """Can a new pulse, with the whole budget free, find more than the run of `report`? Not after it
    saturated, found a constant or reached its match budget or time limit (a new pulse would get
    that work again); yes after its iteration limit or an iteration
    rolled back for the budget. After a run that stopped holding rules back (their forecast matches
    exceeded the room left), only if it was held for want of room: one of them would fit in a whole
    budget, or the run had used more than half of it. A rule whose forecast exceeds the whole
    budget, held with most of the budget free, is held again by a pulse that grows to the same
    e-graph: on 200 generated index expressions such pulses were 64 of 303 and changed no result.
    """
    if report.stop_reason is StopReason.ITER_LIMIT or report.rolled_back:
        return True
    if report.stop_reason is not StopReason.NODE_BUDGET:
        return False
    return 2 * report.final_enodes > report.node_budget or any(
        f <= report.node_budget for f in report.held_back.values()
    )


def _optimize_measured(program: UOp, config: SaturationConfig, measure: MeasureSettings) -> Extraction:
    """optimize under dag_size and latency, gather the candidates, return the measured fastest.

    With measure.cache, the candidates of an earlier call on the same program and settings are
    reused (fastest.py): no saturation runs, and the result has no report, saturation or choice."""
    settings = config.to_dict()
    cacheable = measure.cache and all(
        getattr(config, f.name) == settings[f.name] for f in dataclasses.fields(config)
    )  # a rule set or extractor object given by value has no stable name to key it by
    key = ""
    if cacheable:
        key = candidates_key({"program": to_uir(program), "config": settings}, measure)
        if (candidates := cached_candidates(key)) is not None:
            start = time.perf_counter()
            m = measure_fastest(candidates, measure)
            index, validation = _validated_choice(program, m, config, {})
            return Extraction(
                {},
                (m.candidates[index].program,),
                m.candidates[index].timing.median,
                None,
                "measured (candidates cached)",
                "measured",
                time.perf_counter() - start,
                info={"measured": m.to_dict() | {"chosen": index, "candidates_cached": True}},
                validation=validation,
                explainer=not_explained(_MEASURED_NOT_EXPLAINED),
            )
    small = optimize(program, None, config.replace(cost="dag_size"))
    fast = optimize(program, None, config.replace(cost="latency"))
    start = time.perf_counter()  # .seconds: the selection (extractions, compile, timing), as extraction's
    tree_latency = dataclasses.replace(cost_model("latency"), name="latency_tree", kind="tree")
    from_run: dict[UOp, Extraction] = {}
    candidates: list[tuple[str, UOp]] = []
    for label, ext in (
        ("smallest", small),
        ("latency", fast),
        ("latency_greedy_dag", fast.saturation.extract("latency", "greedy_dag")),
        ("latency_tree", fast.saturation.extract(tree_latency, "bottom_up")),
        ("latency_on_smallest", small.saturation.extract("latency", "auto")),
    ):
        from_run.setdefault(ext.program, ext)
        candidates.append((label, ext.program))
    greedy = fast.saturation.seed
    if greedy is None and all(u.dtype is not dtypes.f32 for u in program.toposort()):
        greedy = simplify_under(program, config.int_semantics)  # f32: greedy's rules are not all exact
    if greedy is not None:
        candidates.append(("greedy", greedy))
    candidates.append(("input", program))
    m = measure_fastest(candidates, measure)
    runs = {"dag_size": small, "latency": fast}
    if cacheable:
        store_candidates(key, candidates)
    known = {r.program: r.validation for r in (small, fast) if r.validation.status != "not_attempted"}
    index, validation = _validated_choice(program, m, config, known)
    chosen = m.candidates[index].program
    src = from_run.get(chosen, small)
    choice = src.choice if chosen in from_run else (src.saturation.egraph.choice_of((chosen,)) or {})
    return dataclasses.replace(
        src,
        choice=choice,
        programs=(chosen,),
        cost=m.candidates[index].timing.median,
        optimal=None,
        cost_model="measured",
        seconds=time.perf_counter() - start,
        bound=None,
        info={
            **src.info,
            "measured": m.to_dict() | {"chosen": index, "candidates_cached": False},
            "runs": runs,
        },
        validation=validation,
        explainer=not_explained(_MEASURED_NOT_EXPLAINED),
    )


def _validated_choice(
    program: UOp, m: Measurement, config: SaturationConfig, known: dict[UOp, Validation]
) -> tuple[int, Validation]:
    """The index of the measured choice, or of what replaces it when validation refutes it (greedy's
    result, else the input: both are candidates, so both were timed), and its validation."""
    if not config.validate:
        return m.chosen, not_validated(config.int_semantics)
    greedy = m.labelled("greedy")
    chosen, validation = validate_candidates(
        program,
        [("measured", m.program), ("greedy", None if greedy is None else greedy.program)],
        config.int_semantics,
        known=known,
    )
    return next(k for k, c in enumerate(m.candidates) if c.program is chosen), validation
