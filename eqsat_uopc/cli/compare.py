"""`eqsat-uopc compare`: greedy against saturation on a .uir file, a directory of them or a .jsonl
corpus: a table (or JSON/CSV rows) and a summary, in isolated workers, resumable from `--out` (a
file of rows computed under other settings is refused, or left alone for a separate file)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from eqsat_uopc.cli.common import (
    CliError,
    load,
    program_errors,
    saturation_config,
    saturation_options,
    say,
    uir_files,
    writable,
)
from eqsat_uopc.cli_options import UsageError, integer, option, seconds, subset

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


def _results_file(out: str | None, settings: dict, if_differ: str) -> Path | None:
    """The --out file to resume, checked before any work: rows computed under other settings are
    refused (a usage error naming what differs), or, with `--if-settings-differ separate`, left
    alone for the file of these settings beside it (a rerun resumes that one)."""
    from eqsat_uopc.pipeline.sweep import separate_out, settings_differences

    if out is None:
        return None
    differences = settings_differences(out, settings)
    if not differences:
        return Path(out)
    if if_differ == "refuse":
        raise UsageError(
            f"argument --out: {out} holds rows computed under other settings ({'; '.join(differences)}); "
            "rerun with those settings, give another --out, or --if-settings-differ separate"
        )
    separate = separate_out(out, settings)
    if more := settings_differences(separate, settings):  # pragma: no cover  (a digest collision)
        raise UsageError(f"argument --out: {separate} holds rows of other settings too ({'; '.join(more)})")
    print(f"eqsat-uopc: {out} holds rows of other settings: these go to {separate}", file=sys.stderr)
    return separate


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
    from eqsat_uopc.pipeline.sweep import read_rows, sweep

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
    settings = {"config": config.to_dict(), "options": {**options, "against": args.against}}
    out = _results_file(args.out, settings, args.if_settings_differ)
    if (
        target.is_file()
        and target.suffix == ".uir"
        and not (args.json or args.csv or args.out or args.against)
    ):
        with program_errors(target):
            c = compare(load(target).program, config, **options)
        print(c)
        if hint := verify_hint(c.times):  # advice, not a result: stderr
            print(hint, file=sys.stderr)
        refuted = c.verdict is not None and c.verdict.status == "refuted"
        return 1 if refuted or (c.validation is not None and c.validation.replaced) else 0
    tasks, expected_errors = _compare_tasks(target, args.limit)
    for t in tasks:
        t.payload["config"] = config
        t.payload["options"] = options
        t.payload["against"] = args.against
    workers = 0 if len(tasks) == 1 else args.workers
    rows = sweep(
        tasks,
        compare_job,
        out=out,
        settings=settings,
        workers=workers,
        memory_limit_mb=args.memory_limit,
        time_limit=args.task_time_limit,
        scheduler=args.scheduler,
        progress=None if sys.stderr.isatty() else "lines",  # a bar on a terminal, else a line now and then
        progress_label="compare",
    )
    if out is not None:  # the results file holds earlier runs' rows too (same settings): summarize them all
        rows = read_rows(out)
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
    if replaced := summary["validation_replaced"]:
        bugs += replaced
        say(
            f"{replaced} result(s) refuted by validation and replaced by greedy's or the input: "
            "a bug of eqsat-uopc's rewrites (see the validated column)"
        )
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
        help="JSON-lines results file, appended to and resumed from; it records the settings of its rows",
    )
    option(
        m,
        "--if-settings-differ",
        choices=("refuse", "separate"),
        default="refuse",
        help="when --out holds rows computed under other settings (the saturation options, --samples, "
        "--backends, --no-verify, --no-prove, --against): refuse (status 2, before any work), or write "
        "these rows to a separate file beside it, named by a digest of the settings",
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
