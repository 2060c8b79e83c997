"""`eqsat-uopc compare`: greedy against saturation on a .uir file, a directory of them or a .jsonl
corpus: a table (or JSON/CSV rows) and a summary, in isolated workers, resumable from `--out` (a
file of rows computed under other settings is refused, or left alone for a separate file).

Which programs: all, the first N (`--limit N`), or a seeded random sample of N (`--sample N
--seed S`, the same N programs for the same corpus, N and S); the two are exclusive. A sample is a
setting of the rows (another sample is other programs: an --out file records it), a limit is not
(the first N rows are those of any larger limit)."""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

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

__all__ = ["add_parsers", "selected"]


def selected(count: int, limit: int | None = None, sample: int | None = None, seed: int = 0) -> list[int]:
    """The positions of the programs to compare, in corpus order: all of them, the first `limit`, or
    a random sample of `sample` drawn with `seed` (all of them when there are no more): the same
    positions for the same count, sample and seed.

    >>> selected(10, limit=3), selected(10, sample=3, seed=0), selected(2, sample=3)
    ([0, 1, 2], [0, 6, 9], [0, 1])
    """
    if sample is not None:
        return sorted(random.Random(seed).sample(range(count), min(sample, count)))
    return list(range(count if limit is None else min(limit, count)))


def _selection(args: argparse.Namespace, count: int) -> dict[str, Any] | None:
    """What the summary says of the programs chosen (None: all of them)."""
    if args.sample is not None:
        return {"how": "sample", "n": min(args.sample, count), "of": count, "seed": args.seed}
    if args.limit is not None:
        return {"how": "limit", "n": min(args.limit, count), "of": count}
    return None


def _compare_tasks(target: Path, args: argparse.Namespace) -> tuple[list, dict[str, str], int]:
    """Sweep tasks for a .uir file, a directory of them, or a .jsonl corpus (format.py), as
    --limit or --sample choose them; the errors the .uir files announce (`# expect-error:`), by task
    key; and how many programs the target holds."""
    from eqsat_uopc.corpus import VERDICTS, load_corpus
    from eqsat_uopc.pipeline.sweep import SweepTask

    tasks, expected = [], {}
    if target.suffix == ".jsonl" and target.is_file():
        entries = load_corpus(target)
        for k in selected(len(entries), args.limit, args.sample, args.seed):
            e = entries[k]
            payload = {"program": e.program, "names": list(e.var_names), "meta": {"verdict": e.verdict}}
            if e.verdict != "unknown":  # the samples say which constant, if any, is right
                payload["expected"] = VERDICTS[e.verdict]
                payload["meta"]["halide_proved"] = e.halide_simplifier_proved
            if e.tinygrad is not None:
                payload["tinygrad"] = e.tinygrad
            tasks.append(SweepTask(e.id, payload))
        return tasks, expected, len(entries)
    paths = list(uir_files(target))
    for k in selected(len(paths), args.limit, args.sample, args.seed):
        example = load(paths[k])
        tasks.append(SweepTask(str(paths[k]), {"program": example.program}))
        if example.expect_error is not None:
            expected[str(paths[k])] = example.expect_error
    return tasks, expected, len(paths)


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
    if args.seed is not None and args.sample is None:
        raise UsageError("argument --seed: it seeds --sample's choice; give --sample N too")
    args.seed = 0 if args.seed is None else args.seed
    config = saturation_config(args)
    options = {
        "verify": not args.no_verify,
        "samples": args.samples,
        "backends": args.backends,
        "prove": not args.no_prove,
    }
    settings = {"config": config.to_dict(), "options": {**options, "against": args.against}}
    if args.sample is not None:  # other programs: a different sample is a different setting
        settings["programs"] = {"sample": args.sample, "seed": args.seed}
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
    tasks, expected_errors, count = _compare_tasks(target, args)
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
    if (chosen := _selection(args, count)) is not None:
        summary["selection"] = chosen
    if out is not None:
        summary["rows_file"] = str(out)
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
    which = m.add_mutually_exclusive_group()
    option(
        which,
        "--limit",
        type=integer(minimum=1),
        default=None,
        shown="all",
        metavar="N",
        help="only the first N programs (not with --sample)",
    )
    option(
        which,
        "--sample",
        type=integer(minimum=1),
        default=None,
        shown="all",
        metavar="N",
        help="a random sample of N programs, the same for the same --seed (not with --limit; an --out "
        "file records it: another sample is another setting)",
    )
    option(
        m,
        "--seed",
        type=integer(minimum=0),
        default=None,
        shown="0",
        metavar="S",
        help="the seed of --sample's choice",
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
        "--backends, --no-verify, --no-prove, --against, --sample and its --seed): refuse (status 2, "
        "before any work), or write these rows to a separate file beside it, named by a digest of the "
        "settings",
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
