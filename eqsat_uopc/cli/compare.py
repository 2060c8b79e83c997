"""`eqsat-uopc compare`: greedy against saturation on a .uir file, a directory of them or a .jsonl
corpus: a table (or JSON/CSV rows) and a summary, in isolated workers, resumable from `--out`."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from eqsat_uopc.cli.common import (
    CliError,
    load,
    saturation_config,
    saturation_options,
    say,
    uir_files,
    writable,
)
from eqsat_uopc.cli_options import integer, option, seconds, subset

__all__ = ["add_parsers"]


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
    for path in list(uir_files(target))[:limit]:
        example = load(path)
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
    writable(args.out, "--out")
    writable(args.csv, "--csv")
    config = saturation_config(args)
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
        c = compare(load(target).program, config, **options)
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
        say(f"{len(errors)} program(s) could not be compared (see 'not compared' above, or the rows' error)")
    return 1 if bugs or errors else 0


def add_parsers(sub: argparse._SubParsersAction) -> None:
    from eqsat_uopc.verify import BACKENDS

    m = sub.add_parser("compare", help="greedy vs saturated on a .uir file, a directory or a .jsonl corpus")
    m.add_argument("target", help="a .uir file or directory, a .jsonl corpus, or a bundled corpus by name")
    saturation_options(m)
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
