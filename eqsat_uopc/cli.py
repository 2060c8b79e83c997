"""The eqsat-uopc command line: the front door for users who have .uir files, not Python.

Exit statuses (docs/cli.md says more):
- 0: done, and nothing wrong was found;
- 1: something named or computed failed: a missing or malformed file, a program that cannot be
  evaluated, a budget the program does not fit in, a soundness bug found by `compare`; one line
  `eqsat-uopc: error: ...` on stderr;
- 2: the command line itself is wrong: an unknown option, a value out of range or not among the
  choices, --input given a number of times the program does not take; one line naming the option,
  the value and what is allowed, before any work (eqsat_uopc.cli_options);
- 70: a bug in eqsat-uopc: its traceback, and how to report it;
- 130: interrupted (Ctrl-C).
A failure is a user's when its exception is a UserError (eqsat_uopc.errors) or an OSError on a
file; anything else is a bug, never dressed up as bad input.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import traceback
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from eqsat_uopc.allocator import MallocError, malloc_in_use, reexec_with_jemalloc
from eqsat_uopc.cli_options import (
    Parser,
    UsageError,
    integer,
    json_value,
    option,
    seconds,
    subset,
    suffixed,
    usage_line,
    yes_no,
)
from eqsat_uopc.errors import UserError
from eqsat_uopc.ir.uop import UOp, call_params
from eqsat_uopc.semantics.values import bind_params, describe_input, same_value

if TYPE_CHECKING:
    from eqsat_uopc.extract import Extraction
    from eqsat_uopc.ir.examples import Example

__all__ = ["BUG_REPORT", "CliError", "main"]

BUG_REPORT = (
    "eqsat-uopc: internal error: this is a bug in eqsat-uopc, not in your input; please report it "
    "with the command line, the files it names and the traceback above (docs/cli.md, 'Reporting a bug')"
)


class CliError(UserError):
    """A failure the command itself finds (a missing file, an empty directory): its message is the
    whole line, exit status 1."""


def _say(message: str) -> None:
    print(f"eqsat-uopc: error: {message}", file=sys.stderr)


# ---------------------------------------------------------------------------
# files


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
    from eqsat_uopc.ir.uir import UirError

    try:
        return load_example(path)
    except UnicodeDecodeError:
        raise CliError(f"{path}: not a .uir text file (not UTF-8)") from None
    except FileNotFoundError:
        raise CliError(f"{path}: no such file or directory") from None
    except OSError as e:
        raise CliError(f"{path}: cannot read: {e.strerror}") from None
    except UirError as e:  # its message names the file, line and column
        raise CliError(str(e)) from None


def _writable(path: str | None, flag: str) -> None:
    """Refuse, before any work, an output file whose directory does not exist."""
    if path is None:
        return
    parent = Path(path).resolve().parent
    if not parent.is_dir():
        raise CliError(f"{flag} {path}: directory {parent} does not exist")


# ---------------------------------------------------------------------------
# run


def _inputs_taken(program: UOp, backend: str) -> list[str]:
    """The inputs a program takes, described: one per PARAM slot 0..max slot (and, compiled, one per
    free RANGE), as `input 0 (PARAM slot 0): i32 scalar`."""
    if backend == "c":
        from eqsat_uopc.backend.lower import lower

        return [s.describe() for s in lower(program).inputs]
    params = {p.arg.slot: p for p in call_params(program)}
    return [
        describe_input(k, params[k].dtype, params[k].shape) if k in params else f"input {k} (unused)"
        for k in range(max(params) + 1 if params else 0)
    ]


def _check_input_count(path: Path, program: UOp, given: list[Any], backend: str) -> None:
    taken = _inputs_taken(program, backend)
    if len(given) == len(taken):
        return
    times = "once" if len(given) == 1 else f"{len(given)} times"
    hint = ""
    if len(given) == 1 and isinstance(given[0], list) and len(given[0]) == len(taken):
        hint = " (" + " ".join(f"--input {json.dumps(v)}" for v in given[0]) + ")"
    raise UsageError(
        f"argument --input: given {times}, but {path} takes {len(taken)} input(s): "
        f"{'; '.join(taken) or 'none'}; repeat --input once per input, in slot order{hint}"
    )


# what evaluating a program may raise that is the program's (or its inputs') failure, not ours:
# UserErrors (inputs, undefined behaviour, an index out of bounds), and for the interpreter the
# chapter's own `run` failures (IndexError for a constant index out of bounds, ValueError for a
# program that does not evaluate to a value)
_INTERPRETER_FAILURES = (UserError, IndexError, ValueError)


def _evaluate(program: UOp, backend: str, inputs: Sequence | None) -> object:
    """The program's value on inputs (one per PARAM slot), by the interpreter or the C backend."""
    if backend == "c":
        from eqsat_uopc.backend import compile_c

        return compile_c(program)(*(inputs or ()))
    from eqsat_uopc.greedy import run, to_python

    if inputs is not None:
        program = bind_params(program, dict(enumerate(inputs)))
    elif call_params(program):
        from eqsat_uopc.errors import InputError

        taken = "; ".join(_inputs_taken(program, backend))
        raise InputError(f"no inputs given: the program takes {taken} (give them with --input)")
    return to_python(run(program))


def _cmd_run(args: argparse.Namespace) -> int:
    """Evaluate each program; a header `# expect:` / `# expect-error:` is checked, not just shown."""
    from eqsat_uopc.ir.uir import to_uir

    cli_inputs = args.input or None
    examples = [(path, _load(path)) for path in _uir_files(Path(args.target))]
    if cli_inputs is not None:  # before any program runs
        for path, example in examples:
            _check_input_count(path, example.program, cli_inputs, args.backend)
    failures = []
    failing = UserError if args.backend == "c" else _INTERPRETER_FAILURES
    for path, example in examples:
        inputs = cli_inputs if cli_inputs is not None else example.inputs
        try:
            value, error = _evaluate(example.program, args.backend, inputs), None
        except failing as e:
            value, error = None, f"{type(e).__name__}: {e}"
        checked = cli_inputs is None and (example.expect is not None or example.expect_error is not None)
        if checked and example.expect_error is not None:
            # the C backend words its errors its own way: any error satisfies an expected one there
            ok = error == example.expect_error or (args.backend == "c" and error is not None)
        elif checked:
            ok = error is None and same_value(value, example.expect)
        else:
            ok = error is None
        if not ok:
            failures.append(path)
        if args.json:
            print(json.dumps({"file": str(path), "value": value, "error": error, "ok": ok}))
        else:
            print(f"# {path}")
            if inputs is not None:
                print(f"# inputs: {json.dumps(inputs)}")
            print(to_uir(example.program), end="")
            verdict = (" (as expected)" if ok else " (UNEXPECTED)") if checked else ""
            print(f"=> {error if error is not None else value}{verdict}\n")
        if checked and not ok:  # what was expected is not on stdout: say it
            want = f"error {example.expect_error}" if example.expect_error is not None else example.expect
            _say(f"{path}: got {error if error is not None else value}, expected {want}")
    if failures:
        names = ", ".join(map(str, failures[:3])) + (
            f" and {len(failures) - 3} more" if len(failures) > 3 else ""
        )
        _say(f"{len(failures)} of {len(examples)} program(s) failed: {names}")
    return 1 if failures else 0


def _cmd_render_c(args: argparse.Namespace) -> int:
    from eqsat_uopc.backend import render_c

    print(render_c(_load(Path(args.file)).program), end="")
    return 0


# ---------------------------------------------------------------------------
# saturation settings, one option per SaturationConfig field


def _saturation_options(p: argparse.ArgumentParser, extra_costs: Sequence[str] = ()) -> None:
    """One validated option per SaturationConfig setting, with the config's defaults and help;
    extra_costs are more choices of --cost that the command handles itself (optimize's "measured")."""
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
        kw: dict[str, Any] = {"dest": f.name}
        if isinstance(default, bool):
            kw.update(type=yes_no, metavar="yes|no")
        elif f.name in choices:
            kw["choices"] = choices[f.name]
        elif f.name == "extract_time_limit":
            kw.update(type=seconds(allow_none=True), metavar="S|none")
        elif isinstance(default, float):
            kw.update(type=seconds(), metavar="S")
        else:
            kw.update(type=integer(minimum=1), metavar="N")
        help_text = FIELD_HELP[f.name].replace("(None: no limit)", "('none': no limit)")
        option(p, *flags, default=default, help=help_text, shown="none" if default is None else None, **kw)


def _saturation_config(args: argparse.Namespace):
    import dataclasses

    from eqsat_uopc.saturation import SaturationConfig

    return SaturationConfig(**{f.name: getattr(args, f.name) for f in dataclasses.fields(SaturationConfig)})


# ---------------------------------------------------------------------------
# optimize, show


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
    held = f", {r.held_back_summary()}" if r.held_back else ""
    print(
        f"# saturation{which}: {r.stop_reason.value} after {r.iterations} iterations{held}; "
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
    """Saturate one program and draw its e-graph, the extracted program highlighted: by default the
    root's neighbourhood, as much as fits a screen (picture.select_view)."""
    from eqsat_uopc.saturation import saturate
    from eqsat_uopc.saturation.picture import check_readable, draw, select_view

    _writable(args.out, "--out")
    program = _load(Path(args.file)).program
    sat = saturate(program, _saturation_config(args))
    try:
        g = sat.egraph
        if args.whole:
            check_readable(g)  # before extracting an e-graph too big to draw
        ext = sat.extract()
        view = None
        if not args.whole:
            limits = {"max_enodes": args.max_enodes, "per_class": args.per_class, "depth": args.depth}
            view = select_view(g, ext.choice, **limits)
        path = draw(g, args.out, ext.choice, view=view)
    finally:
        sat.close()
    if view is None or view.complete or path.suffix.lower() == ".json":
        print(f"drew {g.num_eclasses} e-classes, {g.num_enodes} e-nodes to {path}")
    else:
        print(
            f"drew {view.drawn_enodes} of {g.num_enodes} e-nodes in {view.drawn_eclasses} of "
            f"{g.num_eclasses} e-classes to {path}: the extracted program and the root's neighbourhood "
            "(--max-enodes, --per-class, --depth or --whole draw more)"
        )
    return 0


# ---------------------------------------------------------------------------
# compare


def _compare_tasks(target: Path, limit: int | None) -> tuple[list, dict[str, str]]:
    """Sweep tasks for a .uir file, a directory of them, or a .jsonl corpus (format.py), and the
    errors the .uir files announce (`# expect-error:`), by task key."""
    from eqsat_uopc.corpus import VERDICTS, load_corpus
    from eqsat_uopc.pipeline.sweep import SweepTask

    tasks, expected = [], {}
    if target.suffix == ".jsonl" and target.is_file():
        for e in load_corpus(target)[:limit]:
            payload = {"program": e.program, "names": list(e.var_names), "meta": {"verdict": e.verdict}}
            if e.verdict != "unknown":  # the samples say which constant, if any, is right
                payload["expected"] = VERDICTS[e.verdict]
                payload["meta"]["halide_proved"] = e.halide_simplifier_proved
            if e.tinygrad is not None:
                payload["tinygrad"] = e.tinygrad
            tasks.append(SweepTask(e.id, payload))
        return tasks, expected
    for path in list(_uir_files(target))[:limit]:
        example = _load(path)
        tasks.append(SweepTask(str(path), {"program": example.program}))
        if example.expect_error is not None:
            expected[str(path)] = example.expect_error
    return tasks, expected


def _cmd_compare(args: argparse.Namespace) -> int:
    import csv

    from eqsat_uopc.corpus import CORPORA, corpus_path
    from eqsat_uopc.pipeline.comparison import compare, compare_job, summarize
    from eqsat_uopc.pipeline.comparison_table import (
        LEGEND,
        failures_text,
        rows_table,
        summary_text,
        verify_hint,
    )
    from eqsat_uopc.pipeline.sweep import sweep

    target = corpus_path(args.target)
    if not target.exists():
        names = ", ".join(CORPORA)
        raise CliError(f"{args.target}: no such file or directory, nor a bundled corpus ({names})")
    _writable(args.out, "--out")
    _writable(args.csv, "--csv")
    config = _saturation_config(args)
    options = {
        "verify": not args.no_verify,
        "samples": args.samples,
        "backends": args.backends,
        "prove": not args.no_prove,
    }
    if (
        target.is_file()
        and target.suffix == ".uir"
        and not (args.json or args.csv or args.out or args.against)
    ):
        c = compare(_load(target).program, config, **options)
        print(c)
        if hint := verify_hint(c.times):  # advice, not a result: stderr
            print(hint, file=sys.stderr)
        return 1 if c.verdict is not None and c.verdict.status == "refuted" else 0
    tasks, expected_errors = _compare_tasks(target, args.limit)
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
        progress=None if sys.stderr.isatty() else "lines",  # a bar on a terminal, else a line now and then
        progress_label="compare",
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
        print(rows_table(rows, args.cost, args.against))
        if failed := failures_text(rows, expected_errors):
            print()
            print(failed)
        print()
        print(summary_text(summary))
        print(LEGEND)
    bugs = summary.get("saturated_wrong", 0) + summary["verdict"].get("refuted", 0)
    errors = [
        r for r in rows if r.get("status") == "error" and expected_errors.get(r["key"]) != r.get("error")
    ]
    if errors:
        _say(f"{len(errors)} program(s) could not be compared (see 'not compared' above, or the rows' error)")
    return 1 if bugs or errors else 0


# ---------------------------------------------------------------------------
# capture-tinygrad


def _cmd_capture_tinygrad(args: argparse.Namespace) -> int:
    from eqsat_uopc.tinygrad.capture import capture_tinygrad, write_capture

    _writable(args.out, "--out")
    capture = capture_tinygrad(args.workloads, progress=lambda w: print(f"workload {w}", file=sys.stderr))
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


# ---------------------------------------------------------------------------
# fuzz-tinygrad: the differential fuzzer against tinygrad (eqsat_uopc/tinygrad/fuzz); its options
# and report live there, cli.py only passes the optimizer (optimize sits above the bridges)


def fuzz_optimizer(program: UOp, int_semantics: str) -> UOp:
    """What fuzz-tinygrad checks: `optimize` with the DAG-size cost, as a user calls it (module-level,
    so that worker processes can import it)."""
    from eqsat_uopc.pipeline import optimization

    return optimization.optimize(program, "dag_size", int_semantics=int_semantics).program


def _add_fuzz_tinygrad(sub: argparse._SubParsersAction) -> None:
    from eqsat_uopc.tinygrad.fuzz import command as fuzz_command

    z = sub.add_parser(
        "fuzz-tinygrad",
        help="random index expressions through tinygrad's simplifier and optimize: sizes, soundness, "
        "minimized regressions (needs tinygrad)",
    )
    fuzz_command.add_arguments(z)
    z.set_defaults(fn=lambda args: fuzz_command.run(args, fuzz_optimizer))


# the parser


def _version() -> str:
    """The version, and the malloc this process runs on (the command re-executes itself on jemalloc
    when the system has it: eqsat_uopc.allocator)."""
    from importlib.metadata import version

    return f"eqsat-uopc {version('eqsat-uopc')} (malloc: {malloc_in_use()})"


def _parser() -> argparse.ArgumentParser:
    p = Parser(prog="eqsat-uopc", description=__doc__.splitlines()[0])
    p.add_argument("--version", action="version", version=_version())
    sub = p.add_subparsers(dest="command", required=True)

    r = sub.add_parser("run", help="evaluate .uir programs and print their values")
    r.add_argument("target", help="a .uir file or a directory of them")
    option(r, "--backend", choices=("interpreter", "c"), default="interpreter", help="what evaluates them")
    option(
        r,
        "--input",
        action="append",
        type=json_value,
        default=[],
        shown="the file's '# inputs:' line",
        metavar="JSON",
        help="the value of one input, as JSON (7, 2.5, true, [1, 2]); repeat it once per PARAM slot, in "
        "slot order: --input 5 --input '[1, 2]'",
    )
    r.add_argument("--json", action="store_true", help="one JSON object per program (default: text)")
    r.set_defaults(fn=_cmd_run)

    o = sub.add_parser("optimize", help="saturate a .uir program and print the best equivalent")
    o.add_argument("file", help="a .uir file")
    _saturation_options(o, extra_costs=("measured",))
    o.add_argument("--json", action="store_true", help="the result as one JSON object (default: text)")
    o.set_defaults(fn=_cmd_optimize)

    from eqsat_uopc.saturation.picture import (
        DEFAULT_MAX_ENODES,
        DEFAULT_PER_CLASS,
        DEFAULT_VIEW_ENODES,
        FORMATS,
    )

    w = sub.add_parser(
        "show", help="saturate a .uir program and draw its e-graph (.svg/.png/.pdf/.dot/.json)"
    )
    w.add_argument("file", help="a .uir file")
    _saturation_options(w)
    w.add_argument(
        "--out",
        required=True,
        type=suffixed(*FORMATS),
        help="the picture: .dot, .json (egglog's visualizer, always the whole e-graph), .svg/.png/.pdf "
        "(Graphviz) (required)",
    )
    option(
        w,
        "--max-enodes",
        type=integer(minimum=1),
        default=DEFAULT_VIEW_ENODES,
        metavar="N",
        help="e-nodes drawn at most: the extracted program first, then the e-classes nearest the root",
    )
    option(
        w,
        "--per-class",
        type=integer(minimum=1),
        default=DEFAULT_PER_CLASS,
        metavar="N",
        help="e-nodes drawn per e-class at most (the extracted one first)",
    )
    option(
        w,
        "--depth",
        type=integer(minimum=0),
        default=None,
        shown="as deep as --max-enodes allows",
        metavar="N",
        help="e-classes at most N steps below the root",
    )
    w.add_argument(
        "--whole",
        action="store_true",
        help=f"draw every e-node, refused above {DEFAULT_MAX_ENODES:,} (default: the root's neighbourhood)",
    )
    w.set_defaults(fn=_cmd_show)

    from eqsat_uopc.verify import BACKENDS

    m = sub.add_parser("compare", help="greedy vs saturated on a .uir file, a directory or a .jsonl corpus")
    m.add_argument("target", help="a .uir file or directory, a .jsonl corpus, or a bundled corpus by name")
    _saturation_options(m)
    option(
        m,
        "--samples",
        type=integer(minimum=0),
        default=100,
        metavar="N",
        help="random inputs per equivalence check (0: the z3 proof alone)",
    )
    option(
        m,
        "--backends",
        type=subset(BACKENDS, "evaluators"),
        default=BACKENDS,
        metavar="LIST",
        help=f"evaluators of the random-input checks, from {', '.join(BACKENDS)}",
    )
    m.add_argument(
        "--no-verify",
        action="store_true",
        help="skip the equivalence checks, which usually take most of the time (default: verify)",
    )
    m.add_argument("--no-prove", action="store_true", help="skip the z3 proofs (default: prove)")
    option(
        m,
        "--limit",
        type=integer(minimum=1),
        default=None,
        shown="all",
        metavar="N",
        help="only the first N programs",
    )
    option(
        m,
        "--workers",
        type=integer(minimum=1),
        default=None,
        shown="one per core",
        metavar="N",
        help="worker processes",
    )
    option(
        m,
        "--scheduler",
        default=None,
        shown="local workers",
        metavar="ADDRESS",
        help="run on a Dask cluster at this scheduler address",
    )
    option(
        m,
        "--memory-limit",
        type=integer(minimum=1),
        default=4096,
        metavar="MB",
        help="address space per worker",
    )
    option(
        m,
        "--task-time-limit",
        type=seconds(),
        default=120.0,
        metavar="S",
        help="seconds per program; past it the program's row says timeout",
    )
    option(
        m,
        "--out",
        default=None,
        shown="none",
        metavar="FILE",
        help="JSON-lines results file, appended to and resumed from",
    )
    m.add_argument("--json", action="store_true", help="rows and summary as JSON lines (default: a table)")
    option(m, "--csv", default=None, shown="none", metavar="FILE", help="also write the rows as CSV")
    option(
        m,
        "--against",
        choices=("tinygrad",),
        default=None,
        shown="none",
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
    c.add_argument("file", help="a .uir file")
    c.set_defaults(fn=_cmd_render_c)

    from eqsat_uopc.tinygrad.workloads import WORKLOADS

    t = sub.add_parser(
        "capture-tinygrad",
        help="record the index expressions of real tinygrad kernels as a .jsonl corpus (needs tinygrad)",
    )
    t.add_argument(
        "--out", required=True, type=suffixed(".jsonl"), help="the .jsonl file to write (required)"
    )
    option(
        t,
        "--workloads",
        type=subset(WORKLOADS, "workloads"),
        default=None,
        shown="all",
        metavar="LIST",
        help=f"comma-separated workloads, from {', '.join(WORKLOADS)}",
    )
    t.set_defaults(fn=_cmd_capture_tinygrad)

    from eqsat_uopc.synthesis import command as synthesis_command

    y = sub.add_parser("synthesize", help="synthesize proved rewrite rules into a .egg family (Ruler-style)")
    synthesis_command.add_arguments(y)
    y.set_defaults(fn=synthesis_command.run)
    _add_fuzz_tinygrad(sub)
    return p


def _os_message(e: OSError) -> str:
    where = f"{e.filename}: " if e.filename is not None else ""
    return f"{where}{e.strerror or e}"


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; user errors are one line on stderr (status 1, 2 for usage errors), and
    anything else propagates (a bug: console() prints its traceback and how to report it)."""
    args = _parser().parse_args(argv)
    try:
        return args.fn(args)
    except UsageError as e:
        sys.stderr.write(usage_line(f"eqsat-uopc {args.command}", str(e)))
        return 2
    except CliError as e:
        _say(str(e))
        return 1
    except UserError as e:
        _say(f"{type(e).__name__}: {e}")
        return 1
    except BrokenPipeError:  # stdout closed early (`| head`): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except OSError as e:  # a file named on the command line that cannot be read or written
        _say(_os_message(e))
        return 1


def _guarded(argv: Sequence[str] | None = None) -> int:
    """main(), with Ctrl-C as status 130 and a bug as its traceback, the way to report it, status 70."""
    try:
        return main(argv)
    except KeyboardInterrupt:
        print("eqsat-uopc: interrupted", file=sys.stderr)
        return 130
    except Exception:
        traceback.print_exc()
        print(BUG_REPORT, file=sys.stderr)
        return 70


def console() -> None:
    """The `eqsat-uopc` command: main() on jemalloc when the system has one (eqsat_uopc.allocator:
    the process executes itself again with it preloaded, once)."""
    try:
        reexec_with_jemalloc("eqsat_uopc.cli", sys.argv[1:])
    except MallocError as e:
        _say(str(e))
        sys.exit(1)
    sys.exit(_guarded())


if __name__ == "__main__":
    sys.exit(_guarded())
