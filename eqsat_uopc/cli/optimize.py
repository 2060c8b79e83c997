"""`eqsat-uopc optimize`: saturate a .uir program and print the best equivalent, its cost and how
saturation stopped (every pulse); `--cost measured` times the candidates in C."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from eqsat_uopc.cli.common import (
    CliError,
    load,
    need_compiler,
    program_errors,
    saturation_config,
    saturation_options,
)
from eqsat_uopc.cli.explain import print_explanation

if TYPE_CHECKING:
    from eqsat_uopc.extract import Extraction

__all__ = ["OPTIMALITY", "add_parsers", "latency_table", "phase_times"]

# what the cost line says of Extraction.optimal: the extractor's claim is about the terms the
# e-graph holds, not every equivalent program (one the rules never derived is not among them)
OPTIMALITY = {
    True: "proved optimal among the e-graph's terms",
    False: "not proved optimal among the e-graph's terms (the exact extractor stopped before proving it)",
    None: "no optimality claim",
}


def _cmd_optimize(args: argparse.Namespace) -> int:
    from eqsat_uopc.ir.uir import to_uir
    from eqsat_uopc.pipeline.optimization import optimize

    measured = args.cost == "measured"
    if args.explain and measured:
        raise CliError(
            "--explain: not with --cost measured (its result is chosen among two runs' candidates)"
        )
    if measured:  # a selection over candidates after saturation, not a cost model (pipeline/fastest.py)
        need_compiler("--cost measured")
        args.cost = "dag_size"
    program = load(Path(args.file)).program
    config = saturation_config(args)
    with program_errors(Path(args.file)):
        ext = optimize(program, "measured" if measured else None, config)
        explanation = ext.explain() if args.explain else None
    if measured:  # the pulses of its two saturations (none if its candidates came from the cache)
        runs = [(name, run.info.get("pulses", (run,))) for name, run in ext.info.get("runs", {}).items()]
    else:
        runs = [("", ext.info.get("pulses", (ext,)))]
    if args.json:
        out = {
            "program": to_uir(ext.program),
            "cost_model": ext.cost_model,
            "cost": ext.cost,
            "optimal": ext.optimal,
            "extractor": ext.extractor,
            "config": config.to_dict() | ({"cost": "measured"} if measured else {}),
            "report": None if ext.report is None else ext.report.to_dict(),
            "validation": ext.validation.to_dict(),
        }
        pulse_rows = {
            name: [
                {"report": p.report.to_dict(), "cost": p.cost, "extractor": p.extractor, "seconds": p.seconds}
                for p in pulses
            ]
            for name, pulses in runs
        }
        if measured:
            out["measured"] = ext.info["measured"] | {"runs": pulse_rows}
        else:
            out["pulses"] = pulse_rows[""]
        if config.cost == "latency":
            out["latency_table"] = latency_table()
        if explanation is not None:
            out["explanation"] = explanation.to_dict()
        print(json.dumps(out))
        return 0
    print(to_uir(ext.program), end="")
    if measured:
        _print_measured(ext.info["measured"], config.int_semantics)
    else:
        proof = OPTIMALITY[ext.optimal]
        if ext.optimal is False and ext.info.get("limit"):  # the limit that stopped it, in words
            proof = proof.removesuffix(")") + f": {ext.info['limit']})"
        print(f"# cost ({ext.cost_model}): {ext.cost:g}, {proof}; int semantics {config.int_semantics}")
        if config.cost == "latency":
            print(f"# latency table: {latency_table()}")
    print(f"# validated: {ext.validation}")
    for name, pulses in runs:
        for k, p in enumerate(pulses, 1):
            _print_pulse(p, (f" ({name} run)" if name else "") + _pulse_of(k, len(pulses)))
    if explanation is not None:
        print_explanation(explanation, "# ")
    return 0


def _pulse_of(k: int, n: int) -> str:
    return "" if n == 1 else f", pulse {k} of {n}"


# the report's phases (SaturationReport.phase_times, in the order a run goes through them), as the
# `# saturation` line names them; replay is shown only when an iteration was undone
_PHASES = {
    "start": "hook starts",
    "engine": "engine",
    "lower": "lowering",
    "egglog": "egglog",
    "fold": "folding",
    "read": "read-back",
    "replay": "replay",
    "other": "other",
}
# the report fields those phases (and their total) are read from: any other `*_time` is shown after
_PHASE_FIELDS = frozenset(
    ("engine_time", "lower_time", "egglog_time", "fold_time", "raise_time", "replay_time", "other_time")
) | {"total_time"}


def phase_times(r: Any) -> str:
    """Every phase time of a report, in seconds: its phases (they add up to its total; replay only
    when an iteration was undone), then any other `*_time` field the report has, so that a time a
    report gains is shown without a change here."""
    phases = r.phase_times
    times = [(label, phases[name]) for name, label in _PHASES.items() if name != "replay" or phases[name]]
    times += [
        (name.removesuffix("_time").replace("_", " "), value)
        for name, value in r.to_dict().items()
        if name.endswith("_time") and isinstance(value, float) and name not in _PHASE_FIELDS
    ]
    return ", ".join(f"{label} {value:.3f} s" for label, value in times)


def _print_pulse(p: Extraction, which: str) -> None:
    """One `# saturation` line: a pulse's report (why it stopped, which limit in words, where the
    time went: every phase, every hook, the total) and its extraction."""
    r = p.report
    left_out = f"{r.rules_pruned} rules left out (they cannot fire)"
    rules = "decided before any rule ran, no engine" if r.decided_without_engine else left_out
    held = f", {r.held_back_summary()}" if r.held_back else ""
    limit = r.stop_reason.value not in ("saturated", "constant") and r.stop_detail
    detail = f"; {r.stop_detail}" if limit else ""
    hooks = ", ".join(f"{name} {t:.3f} s" for name, t in r.hook_seconds().items())
    print(
        f"# saturation{which}: {r.stop_reason.value} after {r.iterations} iterations{held}{detail}; "
        f"{rules}; e-nodes per iteration {r.enodes}; {phase_times(r)}"
        f"{'; hooks ' + hooks if hooks else ''}; total {r.total_time:.3f} s; extraction {p.seconds:.3f} s "
        f"({p.extractor}, cost {p.cost:g})"
    )


def latency_table() -> str:
    from eqsat_uopc.extract import cost_model

    return cost_model("latency").describe()


def _print_measured(m: dict, int_semantics: str) -> None:
    """The measured choice and every candidate's time, as `# ` lines after the program."""
    chosen = m["candidates"][m["chosen"]]
    how = f"over {m['lanes']} lanes" if m["batched"] else "timed whole"
    twice = ", timed twice (the first run chose another than the smallest, or could not tell)"
    again = twice if m["confirmed"] else ""
    cached = " (measurements from the cache)" if m["cached"] else ""
    print(
        f"# cost (measured): {chosen['median']:.4g} {m['unit']}, median of {m['rounds']} rounds {how}"
        f"{again}{cached}; chosen: {', '.join(chosen['labels'])}; int semantics {int_semantics}"
    )
    print(f"# latency table (the estimates below): {m['latency_table']}")
    for k, c in enumerate(m["candidates"]):
        if c["error"] is not None:
            timing = f"error: {c['error']}"
        else:
            timing = f"median {c['median']:.4g}, min {c['min']:.4g}, quartiles {c['q25']:.4g}-{c['q75']:.4g}"
        print(
            f"# {'*' if k == m['chosen'] else ' '} {', '.join(c['labels'])}: {c['dag_size']} nodes, "
            f"latency estimate {c['latency']:.4g}; {timing} [{c['hash']}]"
        )
    if m.get("candidates_cached"):
        print("# saturation: not run (the candidates of an earlier call, from the cache)")


def add_parsers(sub: argparse._SubParsersAction) -> None:
    o = sub.add_parser("optimize", help="saturate a .uir program and print the best equivalent")
    o.add_argument("file", help="a .uir file")
    saturation_options(o, extra_costs=("measured",))
    o.add_argument("--json", action="store_true", help="the result as one JSON object (default: text)")
    o.add_argument(
        "--explain",
        action="store_true",
        help="also print the checked chain of rewrites to the result (default: not printed)",
    )
    o.set_defaults(fn=_cmd_optimize)
