"""`eqsat-uopc verify-rules`: prove the rules of .egg family files and print each rule's verdict
(proved, tested, vacuous, refuted with a counterexample, unverifiable with the reason); status 1
when a rule is refuted."""

from __future__ import annotations

import argparse
import json
from collections import Counter
from typing import TYPE_CHECKING, Any

from eqsat_uopc.cli.common import CliError
from eqsat_uopc.cli.rule_files import rules_spec
from eqsat_uopc.cli_options import UsageError, option

if TYPE_CHECKING:
    from eqsat_uopc.verify import RuleVerdict

__all__ = ["add_parsers"]


def _cmd_verify_rules(args: argparse.Namespace) -> int:
    from pathlib import Path

    from eqsat_uopc.rules import DeclarationError, escape_rules_path
    from eqsat_uopc.verify import load_verified_rules

    refuted = 0
    for file in args.files:
        if not file.endswith(".egg"):
            raise UsageError(f"argument FILE: expected a .egg family file, got {file!r}")
        if not Path(file).is_file():
            raise CliError(f"{file}: no such file")
        spec = (
            escape_rules_path(file)
            if args.with_rules == "none"
            else f"{args.with_rules}+{escape_rules_path(file)}"
        )
        try:
            loaded = load_verified_rules(spec, allow_unsound=True, cache=not args.no_cache)
        except DeclarationError as e:
            raise CliError(str(e)) from None
        counts = Counter(v.status for v in loaded.verdicts)
        refuted += counts["refuted"]
        if args.json:
            for v in loaded.verdicts:
                print(json.dumps(_row(file, v), sort_keys=True))
            continue
        for v in loaded.verdicts:
            print(v)
        shown = ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))
        print(f"{file}: {len(loaded.verdicts)} rule(s): {shown or 'none'}")
    return 1 if refuted else 0


def _row(file: str, v: RuleVerdict) -> dict[str, Any]:
    forms = [
        {
            "form": f.form,
            "int_semantics": f.int_semantics,
            "status": f.status,
            "reason": f.reason,
            "counterexample": f.counterexample,
            "f32_untested": f.f32_untested,
        }
        for f in v.forms
    ]
    return {
        "file": file,
        "where": v.where,
        "rule": v.rule,
        "status": v.status,
        "reason": v.reason,
        "forms": forms,
    }


def add_parsers(sub: argparse._SubParsersAction) -> None:
    m = sub.add_parser(
        "verify-rules",
        help="prove the rules of .egg family files: each rule's verdict (status 1 if one is refuted)",
    )
    m.add_argument("files", nargs="+", metavar="FILE", help="a .egg family file (named after its file)")
    option(
        m,
        "--with",
        dest="with_rules",
        type=rules_spec,
        default="default",
        metavar="SPEC",
        help="the rule set the files are composed with, whose declarations (relations) their rules may use "
        "and whose rule names they must not take ('none': alone)",
    )
    m.add_argument("--json", action="store_true", help="one JSON object per rule (default: a line each)")
    m.add_argument(
        "--no-cache",
        action="store_true",
        help="prove every rule again (default: verdicts from the per-user cache, kept per rule text)",
    )
    m.set_defaults(fn=_cmd_verify_rules)
