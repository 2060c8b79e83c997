"""The eqsat-uopc command line: the front door for users who have .uir files, not Python.

Every failure a user can cause (missing file, malformed program, bad option, a program that
cannot be evaluated) is one line on stderr and exit status 1 (2 for usage errors, as argparse
does); a traceback means a bug in eqsat-uopc.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from eqsat_uopc.allocator import MallocError, malloc_in_use, reexec_with_jemalloc
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.semantics.values import bind_params, same_value

if TYPE_CHECKING:
    from eqsat_uopc.extract import Extraction
    from eqsat_uopc.ir.examples import Example
    from eqsat_uopc.saturation import SaturationReport

__all__ = ["main"]


class CliError(Exception):
    """A user-facing failure: printed as one line, exit status 1."""


def _uir_files(target: Path) -> Iterator[Path]:
    if target.is_dir():
        files = sorted(target.glob("*.uir"))
        if not files:
            raise CliError(f"{target}: no .uir files in this directory")
        yield from files
    elif target.is_file():
        yield target
    else:
        raise CliError(f"{target}: no such file or directory")


def _load(path: Path) -> Example:
    from eqsat_uopc.ir.examples import load_example

    try:
        return load_example(path)
    except OSError as e:
        raise CliError(f"{path}: cannot read: {e.strerror}") from None
    except ValueError as e:
        raise CliError(str(e) if str(path) in str(e) else f"{path}: {e}") from None


def _evaluate(program: UOp, backend: str, inputs: Sequence | None) -> object:
    """The program's value on inputs (one per PARAM slot), by the interpreter or the C backend."""
    if backend == "c":
        from eqsat_uopc.backend import compile_c

        return compile_c(program)(*(inputs or ()))
    from eqsat_uopc.greedy import run, to_python

    if inputs is not None:
        program = bind_params(program, dict(enumerate(inputs)))
    return to_python(run(program))


def _cmd_run(args: argparse.Namespace) -> int:
    """Evaluate each program; a header `# expect:` / `# expect-error:` is checked, not just shown."""
    from eqsat_uopc.ir.uir import to_uir

    cli_inputs = [json.loads(v) for v in args.input] if args.input else None
    failures = 0
    for path in _uir_files(Path(args.target)):
        example = _load(path)
        inputs = cli_inputs if cli_inputs is not None else example.inputs
        try:
            value, error = _evaluate(example.program, args.backend, inputs), None
        except (ValueError, IndexError, TypeError, ArithmeticError) as e:
            value, error = None, f"{type(e).__name__}: {e}"
        checked = cli_inputs is None and (example.expect is not None or example.expect_error is not None)
        if checked and example.expect_error is not None:
            # the C backend words its errors its own way: any error satisfies an expected one there
            ok = error == example.expect_error or (args.backend == "c" and error is not None)
        elif checked:
            ok = error is None and same_value(value, example.expect)
        else:
            ok = error is None
        failures += not ok
        if args.json:
            print(json.dumps({"file": str(path), "value": value, "error": error, "ok": ok}))
            continue
        print(f"# {path}")
        if inputs is not None:
            print(f"# inputs: {json.dumps(inputs)}")
        print(to_uir(example.program), end="")
        verdict = (" (as expected)" if ok else " (UNEXPECTED)") if checked else ""
        print(f"=> {error if error is not None else value}{verdict}\n")
        if not ok:
            print(
                f"eqsat-uopc: error: {path}: {error or f'got {value}, expected {example.expect}'}",
                file=sys.stderr,
            )
    return 1 if failures else 0


def _cmd_render_c(args: argparse.Namespace) -> int:
    from eqsat_uopc.backend import render_c

    print(render_c(_load(Path(args.file)).program), end="")
    return 0


def _saturation_options(p: argparse.ArgumentParser, extra_costs: Sequence[str] = ()) -> None:
    """One option per SaturationConfig setting, with the config's defaults and help; extra_costs
    are more choices of --cost that the command handles itself (optimize's "measured")."""
    import dataclasses

    from eqsat_uopc.extract import COST_MODELS, EXTRACTORS
    from eqsat_uopc.rules import INT_SEMANTICS, RULE_SETS
    from eqsat_uopc.saturation import DEFAULT_CONFIG, FIELD_HELP

    choices = {
        "rules": list(RULE_SETS),
        "int_semantics": list(INT_SEMANTICS),
        "cost": [*COST_MODELS, *extra_costs],
        "extractor": ["auto", *EXTRACTORS],
    }
    for f in dataclasses.fields(DEFAULT_CONFIG):
        default = getattr(DEFAULT_CONFIG, f.name)
        flags = [f"--{f.name.replace('_', '-')}", *(["--budget"] if f.name == "node_budget" else [])]
        kw: dict = {"dest": f.name, "default": default, "help": f"{FIELD_HELP[f.name]} (default: {default})"}
        if isinstance(default, bool):
            kw["type"] = _yes_no
            kw["metavar"] = "yes|no"
        elif f.name in choices:
            kw["choices"] = choices[f.name]
        elif f.name == "extract_time_limit":
            kw["type"] = _seconds_or_none
        else:
            kw["type"] = type(default)
        p.add_argument(*flags, **kw)


def _yes_no(text: str) -> bool:
    if text not in ("yes", "no"):
        raise argparse.ArgumentTypeError(f"expected yes or no, got {text!r}")
    return text == "yes"


def _seconds_or_none(text: str) -> float | None:
    return None if text == "none" else float(text)


def _saturation_config(args: argparse.Namespace):
    import dataclasses

    from eqsat_uopc.saturation import SaturationConfig

    return SaturationConfig(**{f.name: getattr(args, f.name) for f in dataclasses.fields(SaturationConfig)})


def _cmd_optimize(args: argparse.Namespace) -> int:
    from eqsat_uopc.ir.uir import to_uir
    from eqsat_uopc.pipeline.optimization import optimize

    measured = args.cost == "measured"
    if measured:  # a selection over candidates after saturation, not a cost model (pipeline/fastest.py)
        _need_compiler("--cost measured")
        args.cost = "dag_size"
    program = _load(Path(args.file)).program
    config = _saturation_config(args)
    ext = optimize(program, "measured" if measured else None, config)
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
            out["latency_table"] = _latency_table()
        print(json.dumps(out))
        return 0
    print(to_uir(ext.program), end="")
    if measured:
        _print_measured(ext.info["measured"], config.int_semantics)
    else:
        proof = {True: "proved optimal", False: "not proved optimal", None: "optimality unknown"}[ext.optimal]
        print(f"# cost ({ext.cost_model}): {ext.cost:g}, {proof}; int semantics {config.int_semantics}")
        if config.cost == "latency":
            print(f"# latency table: {_latency_table()}")
    for name, pulses in runs:
        for k, p in enumerate(pulses, 1):
            _print_pulse(p, (f" ({name} run)" if name else "") + _pulse_of(k, len(pulses)))
    return 0


def _pulse_of(k: int, n: int) -> str:
    return "" if n == 1 else f", pulse {k} of {n}"


def _print_pulse(p: Extraction, which: str) -> None:
    """One `# saturation` line: a pulse's report and its extraction."""
    r = p.report
    left_out = f"{r.rules_pruned} rules left out (they cannot fire)"
    rules = "decided before any rule ran, no engine" if r.decided_without_engine else left_out
    print(
        f"# saturation{which}: {r.stop_reason.value} after {r.iterations} iterations{_held(r)}; "
        f"{rules}; e-nodes per iteration {r.enodes}; "
        f"lowering {r.lower_time:.3f} s, egglog {r.egglog_time:.3f} s, "
        f"folding {r.fold_time:.3f} s, read-back {r.raise_time:.3f} s; extraction {p.seconds:.3f} s "
        f"({p.extractor}, cost {p.cost:g})"
    )


def _need_compiler(what: str) -> None:
    """Refuse, before any work, an option that needs the C compiler when there is none."""
    from eqsat_uopc.backend import CompilerNotFoundError
    from eqsat_uopc.backend.toolchain import compiler_command

    try:
        compiler_command()
    except CompilerNotFoundError as e:
        raise CliError(f"{what} times programs compiled by the C backend: {e}") from None


def _latency_table() -> str:
    from eqsat_uopc.extract import cost_model

    return cost_model("latency").describe()


def _print_measured(m: dict, int_semantics: str) -> None:
    """The measured choice and every candidate's time, as `# ` lines after the program."""
    chosen = m["candidates"][m["chosen"]]
    how = f"over {m['lanes']} lanes" if m["batched"] else "timed whole"
    again = ", timed twice (the first run chose another than the smallest)" if m["confirmed"] else ""
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


def _held(report: SaturationReport) -> str:
    """The rules a run held back for the node budget, with their forecast matches (the first three)."""
    if not report.held_back:
        return ""
    ranked = sorted(report.held_back.items(), key=lambda kv: kv[1])
    shown = ", ".join(f"{name} ({n:,} matches forecast)" for name, n in ranked[:3])
    more = f" and {len(ranked) - 3} more" if len(ranked) > 3 else ""
    return f", holding back {shown}{more}"


def _cmd_calibrate(args: argparse.Namespace) -> int:
    """Measure this machine's latency table (eqsat_uopc.extract.calibrate) and say where it went."""
    from eqsat_uopc.extract.calibrate import calibrate_machine

    _need_compiler("calibrate")
    cal = calibrate_machine(args.elements, args.repeats, args.ops, args.out)
    print("\n".join(cal.lines()))
    if args.out is None:
        print(
            "the latency cost model uses this table from now on (delete the file to go back to the default)"
        )
    return 0


def _cmd_show(args: argparse.Namespace) -> int:
    """Saturate one program and draw its e-graph, the extracted program highlighted."""
    from eqsat_uopc.saturation import saturate
    from eqsat_uopc.saturation.picture import picture_format

    picture_format(args.out)  # a bad suffix is refused before the work
    program = _load(Path(args.file)).program
    sat = saturate(program, _saturation_config(args))
    try:
        path = sat.draw(args.out, max_enodes=args.max_enodes)
        g = sat.egraph
    finally:
        sat.close()
    print(f"drew {g.num_eclasses} e-classes, {g.num_enodes} e-nodes to {path}")
    return 0


def _compare_tasks(target: Path, limit: int | None) -> list:
    """Sweep tasks for a .uir file, a directory of them, or a .jsonl corpus (format.py)."""
    from eqsat_uopc.corpus import VERDICTS, CorpusError, load_corpus
    from eqsat_uopc.pipeline.sweep import SweepTask

    tasks = []
    if target.suffix == ".jsonl" and target.is_file():
        try:
            entries = load_corpus(target)
        except (CorpusError, ValueError) as e:
            raise CliError(str(e)) from None
        for e in entries[:limit]:
            payload = {"program": e.program, "names": list(e.var_names), "meta": {"verdict": e.verdict}}
            if e.verdict != "unknown":  # the samples say which constant, if any, is right
                payload["expected"] = VERDICTS[e.verdict]
                payload["meta"]["halide_proved"] = e.halide_simplifier_proved
            if e.tinygrad is not None:
                payload["tinygrad"] = e.tinygrad
            tasks.append(SweepTask(e.id, payload))
        return tasks
    for path in list(_uir_files(target))[:limit]:
        tasks.append(SweepTask(str(path), {"program": _load(path).program}))
    return tasks


_TABLE = (
    ("program", "key", "{}"),
    ("size", "size", "{}"),
    ("greedy", "greedy_cost", "{:g}"),
    ("saturated", "saturated_cost", "{:g}"),
    ("ratio", "ratio", "{:.3f}"),
    ("outcome", "outcome", "{}"),
    ("stop", "stop_reason", "{}"),
    ("verdict", "verdict", "{}"),
    ("seconds", "seconds", "{:.2f}"),
)


_AGAINST_TINYGRAD = (("tinygrad", "tinygrad_cost", "{:g}"), ("vs tinygrad", "vs_tinygrad", "{}"))


def _table(rows: list[dict], cost: str, against: str | None = None) -> str:
    columns = _TABLE[:4] + _AGAINST_TINYGRAD + _TABLE[4:] if against == "tinygrad" else _TABLE
    cells = [[h for h, _, _ in columns]]
    for r in rows:
        if r["status"] != "ok":
            failed = {"key": r["key"], "stop_reason": r["status"], "verdict": r["error"][:60]}
            cells.append([failed.get(k, "") for _, k, _ in columns[:-1]] + [f"{r['seconds'] or 0:.2f}"])
            continue
        view = {
            **r,
            "greedy_cost": r[f"greedy_{cost}"],
            "saturated_cost": r[f"saturated_{cost}"],
            "tinygrad_cost": r.get(f"tinygrad_{cost}"),
        }
        cells.append(["" if view.get(k) is None else fmt.format(view[k]) for _, k, fmt in columns])
    widths = [max(len(row[i]) for row in cells) for i in range(len(columns))]
    return "\n".join(
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in cells
    )


def _cmd_compare(args: argparse.Namespace) -> int:
    import csv

    from eqsat_uopc.corpus import CORPORA, corpus_path
    from eqsat_uopc.pipeline.comparison import compare, compare_job, summarize
    from eqsat_uopc.pipeline.sweep import sweep

    target = corpus_path(args.target)
    if not target.exists():
        names = ", ".join(CORPORA)
        raise CliError(f"{args.target}: no such file or directory, nor a bundled corpus ({names})")
    config = _saturation_config(args)
    options = {
        "verify": not args.no_verify,
        "samples": args.samples,
        "backends": tuple(b for b in args.backends.split(",") if b),
        "prove": not args.no_prove,
    }
    if (
        target.is_file()
        and target.suffix == ".uir"
        and not (args.json or args.csv or args.out or args.against)
    ):
        print(compare(_load(target).program, config, **options))
        return 0
    tasks = _compare_tasks(target, args.limit)
    for t in tasks:
        t.payload["config"] = config
        t.payload["options"] = options
        t.payload["against"] = args.against
    workers = 0 if len(tasks) == 1 else args.workers
    rows = sweep(
        tasks,
        compare_job,
        out=args.out,
        workers=workers,
        memory_limit_mb=args.memory_limit,
        time_limit=args.task_time_limit,
        scheduler=args.scheduler,
    )
    if args.out:  # the results file holds earlier runs' rows too: summarize them all
        rows = [json.loads(line) for line in Path(args.out).read_text().splitlines() if line.strip()]
    order = {t.key: i for i, t in enumerate(tasks)}
    rows.sort(key=lambda r: order.get(r["key"], len(order)))
    summary = {"int_semantics": config.int_semantics, "cost_model": args.cost, **summarize(rows)}
    if args.csv:
        fields = sorted({k for r in rows for k in r})
        with open(args.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=fields)
            w.writeheader()
            w.writerows(rows)
    if args.json:
        for r in rows:
            print(json.dumps(r, sort_keys=True))
        print(json.dumps({"summary": summary}, sort_keys=True))
    else:
        print(_table(rows, args.cost, args.against))
        print()
        for k, v in summary.items():
            print(f"{k:>18}: {round(v, 4) if isinstance(v, float) else v}")
    bugs = summary.get("saturated_wrong", 0) + summary["verdict"].get("refuted", 0)
    return 1 if bugs else 0


def _cmd_capture_tinygrad(args: argparse.Namespace) -> int:
    from eqsat_uopc.tinygrad.capture import capture_tinygrad, write_capture

    workloads = [w for w in args.workloads.split(",") if w] if args.workloads else None
    capture = capture_tinygrad(workloads, progress=lambda w: print(f"workload {w}", file=sys.stderr))
    write_capture(capture, args.out)
    exprs = capture.expressions
    print(
        f"{len(exprs)} distinct expressions written to {args.out} "
        f"({capture.seen} seen, {capture.duplicates} duplicates, {sum(capture.skipped.values())} left out)"
    )
    for w in capture.workloads:
        print(f"  {w:>22}: {capture.per_workload.get(w, 0)}")
    for reason, n in sorted(capture.skipped.items()):
        print(f"  left out ({n}): {reason}")
    simplified = sum(e.tinygrad_size < e.size for e in exprs)
    print(f"tinygrad's simplifier makes {simplified} of {len(exprs)} smaller on their own")
    return 0


def _version() -> str:
    """The version, and the malloc this process runs on (the command re-executes itself on jemalloc
    when the system has it: eqsat_uopc.allocator)."""
    from importlib.metadata import version

    return f"eqsat-uopc {version('eqsat-uopc')} (malloc: {malloc_in_use()})"


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="eqsat-uopc", description=__doc__.splitlines()[0])
    p.add_argument("--version", action="version", version=_version())
    sub = p.add_subparsers(dest="command", required=True)

    r = sub.add_parser("run", help="evaluate .uir programs and print their values")
    r.add_argument("target", help="a .uir file or a directory of them")
    r.add_argument("--backend", choices=("interpreter", "c"), default="interpreter")
    r.add_argument("--input", action="append", default=[], metavar="JSON", help="a PARAM value, per slot")
    r.add_argument("--json", action="store_true", help="one JSON object per program")
    r.set_defaults(fn=_cmd_run)

    o = sub.add_parser("optimize", help="saturate a .uir program and print the best equivalent")
    o.add_argument("file")
    _saturation_options(o, extra_costs=("measured",))
    o.add_argument("--json", action="store_true")
    o.set_defaults(fn=_cmd_optimize)

    w = sub.add_parser(
        "show", help="saturate a .uir program and draw its e-graph (.svg/.png/.pdf/.dot/.json)"
    )
    w.add_argument("file")
    _saturation_options(w)
    w.add_argument(
        "--out",
        required=True,
        help="the picture: .dot, .json (egglog's visualizer), .svg/.png/.pdf (Graphviz)",
    )
    from eqsat_uopc.saturation.picture import DEFAULT_MAX_ENODES

    w.add_argument(
        "--max-enodes",
        type=int,
        default=DEFAULT_MAX_ENODES,
        help=f"refuse bigger e-graphs, unreadable drawn (default: {DEFAULT_MAX_ENODES})",
    )
    w.set_defaults(fn=_cmd_show)

    m = sub.add_parser("compare", help="greedy vs saturated on a .uir file, a directory or a .jsonl corpus")
    m.add_argument("target", help="a .uir file or directory, a .jsonl corpus, or a bundled corpus by name")
    _saturation_options(m)
    m.add_argument("--samples", type=int, default=100, help="random inputs per equivalence check")
    m.add_argument("--backends", default="interpreter,c", help="evaluators for the random-input checks")
    m.add_argument("--no-verify", action="store_true", help="skip the equivalence checks")
    m.add_argument("--no-prove", action="store_true", help="skip the z3 proofs")
    m.add_argument("--limit", type=int, default=None, help="only the first N programs")
    m.add_argument("--workers", type=int, default=None, help="worker processes (default: one per core)")
    m.add_argument("--scheduler", default=None, metavar="ADDRESS", help="run on a Dask cluster")
    m.add_argument("--memory-limit", type=int, default=4096, metavar="MB", help="per worker")
    m.add_argument("--task-time-limit", type=float, default=120.0, metavar="S", help="per program")
    m.add_argument("--out", default=None, help="JSON-lines results file, appended to and resumed from")
    m.add_argument("--json", action="store_true", help="rows and summary as JSON lines")
    m.add_argument("--csv", default=None, metavar="FILE", help="also write the rows as CSV")
    m.add_argument(
        "--against",
        choices=("tinygrad",),
        default=None,
        help="add a column with tinygrad's own simplifier (live if installed, else the corpus's record)",
    )
    m.set_defaults(fn=_cmd_compare)

    from eqsat_uopc.extract.calibrate import add_arguments as calibrate_arguments

    k = sub.add_parser(
        "calibrate",
        help="time every op in C and write this machine's latency table (the latency model uses it)",
    )
    calibrate_arguments(k)
    k.set_defaults(fn=_cmd_calibrate)

    c = sub.add_parser("render-c", help="print the C the backend generates for a .uir program")
    c.add_argument("file")
    c.set_defaults(fn=_cmd_render_c)

    t = sub.add_parser(
        "capture-tinygrad",
        help="record the index expressions of real tinygrad kernels as a .jsonl corpus (needs tinygrad)",
    )
    t.add_argument("--out", required=True, help="the .jsonl file to write")
    t.add_argument("--workloads", default=None, help="comma-separated workload names (default: all)")
    t.set_defaults(fn=_cmd_capture_tinygrad)

    from eqsat_uopc.synthesis import command as synthesis_command

    y = sub.add_parser("synthesize", help="synthesize proved rewrite rules into a .egg family (Ruler-style)")
    synthesis_command.add_arguments(y)
    y.set_defaults(fn=synthesis_command.run)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return args.fn(args)
    except CliError as e:
        print(f"eqsat-uopc: error: {e}", file=sys.stderr)
        return 1
    except json.JSONDecodeError as e:
        print(f"eqsat-uopc: error: --input is not JSON: {e}", file=sys.stderr)
        return 1
    except (ValueError, LookupError, ArithmeticError, ConnectionError) as e:  # said in one line
        print(f"eqsat-uopc: error: {type(e).__name__}: {e}", file=sys.stderr)
        return 1


def console() -> None:
    """The `eqsat-uopc` command: main() on jemalloc when the system has one (eqsat_uopc.allocator:
    the process executes itself again with it preloaded, once)."""
    try:
        reexec_with_jemalloc("eqsat_uopc.cli", sys.argv[1:])
    except MallocError as e:
        print(f"eqsat-uopc: error: {e}", file=sys.stderr)
        sys.exit(1)
    sys.exit(main())


if __name__ == "__main__":
    sys.exit(main())
