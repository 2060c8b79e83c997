"""A digest of `optimize`'s results on the bundled corpora, to show that a change of structure changed
no result.

    .venv/bin/python bench/digest.py                       # every corpus, both int semantics
    .venv/bin/python bench/digest.py --out before.json     # also every result's hash, per expression
    .venv/bin/python bench/digest.py --against before.json # name the expressions whose result differs

Runs `optimize` (default rule set and settings, DAG size) under `wrap` and `no_overflow` on the
Caviar dev corpus (1,303 expressions), the tinygrad capture (1,483) and 500 generated index
expressions (`index_expressions(500, seed=0)`, loop variables as bounded inputs), and prints one
digest per corpus and semantics: the hash of every result's `.uir` text in corpus order. Two trees
with the same digests return the same program for every expression. Times are not measured here
(`bench/revision.py` compares speed).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import results

from eqsat_uopc import optimize, to_uir
from eqsat_uopc.corpus import caviar_dev, index_expressions, tinygrad_capture

RESULTS_SECTIONS = ("digest",)  # docs/results.md, written with --write-results (bench/results.py)

SEMANTICS = ("wrap", "no_overflow")


def corpora(limit: int | None) -> dict[str, list]:
    out = {
        "caviar": [e.program for e in caviar_dev()],
        "capture": [e.program for e in tinygrad_capture()],
        "index": [e.bounded_program for e in index_expressions(500, seed=0)],
    }
    return {name: programs[:limit] for name, programs in out.items()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, help="write every result's hash to this JSON file")
    ap.add_argument("--against", type=Path, help="a JSON file written by --out: list what differs")
    ap.add_argument("--limit", type=int, help="the first N expressions of each corpus only")
    ap.add_argument(results.FLAG, action="store_true", help=results.FLAG_HELP)
    args = ap.parse_args()
    partial = (
        f"--limit {args.limit}: the first {args.limit} expressions of each corpus" if args.limit else None
    )
    with results.recorded("digest", args.write_results, partial):
        return measure(args)


def measure(args: argparse.Namespace) -> int:
    hashes: dict[str, list[str]] = {}
    for name, programs in corpora(args.limit).items():
        for sem in SEMANTICS:
            key = f"{name}/{sem}"
            rows = []
            for p in programs:
                r = optimize(p, "dag_size", int_semantics=sem)
                rows.append(hashlib.sha256(to_uir(r.program).encode()).hexdigest()[:16])
            hashes[key] = rows
            digest = hashlib.sha256("".join(rows).encode()).hexdigest()[:16]
            print(f"{key:20s} {len(rows):5d} expressions  digest {digest}", flush=True)
    if args.out:
        args.out.write_text(json.dumps(hashes))
    if args.against:
        before = json.loads(args.against.read_text())
        differ = [
            f"{key}#{i}"
            for key, rows in hashes.items()
            for i, (a, b) in enumerate(zip(rows, before.get(key, []), strict=False))
            if a != b
        ]
        listed = f" ({', '.join(differ[:20])})" if differ else ""
        print(f"differ from {args.against}: {len(differ)}{listed}")
        return 1 if differ else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
