"""Benchmark corpora: programs to measure the greedy engine and equality saturation on.

- The Caviar/Halide expressions (`caviar_dev()`) and the index expressions of real tinygrad kernels
  (`tinygrad_capture()`), bundled as package data (data/README.md: where they come from); any file
  in the corpus format (format.py) loads with `load_corpus(path)`.
- Generated index expressions (`index_expressions(n, seed)`): views over N-d buffers.
- The Caviar expressions with their constants perturbed (`perturbed_caviar(seed)`): a corpus the
  rules were not tuned on, for what they decide beyond the expressions they were written against.
- S-expressions over the IR's ops (`parse_sexpr`, `to_sexpr`), the corpus file syntax.

A corpus is named on the command line by its name in `CORPORA` (`eqsat-uopc compare caviar-dev`)
or by the path of any `.jsonl` file in the same format; `corpus_path` resolves either.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from eqsat_uopc.corpus.caviar import caviar_dev, caviar_path
from eqsat_uopc.corpus.errors import CorpusError
from eqsat_uopc.corpus.format import VERDICTS, CorpusEntry, load_corpus
from eqsat_uopc.corpus.indexing import IndexExpression, index_expressions
from eqsat_uopc.corpus.perturbed import perturb_constants, perturbed_caviar
from eqsat_uopc.corpus.sexpr import parse_sexpr, sexpr_var_names, to_sexpr
from eqsat_uopc.corpus.tinygrad_capture import tinygrad_capture, tinygrad_capture_path

__all__ = [
    "CORPORA",
    "VERDICTS",
    "CorpusEntry",
    "CorpusError",
    "IndexExpression",
    "caviar_dev",
    "caviar_path",
    "corpus_path",
    "index_expressions",
    "load_corpus",
    "parse_sexpr",
    "perturb_constants",
    "perturbed_caviar",
    "sexpr_var_names",
    "tinygrad_capture",
    "tinygrad_capture_path",
    "to_sexpr",
]

# bundled corpora by the name the CLI knows them by -> the path of their .jsonl file
CORPORA: dict[str, Callable[[], Path]] = {
    "caviar-dev": caviar_path,
    "tinygrad-capture": tinygrad_capture_path,
}


def corpus_path(name_or_path: str | Path) -> Path:
    """The .jsonl file of a bundled corpus named in CORPORA, or the given path itself."""
    if isinstance(name_or_path, str) and name_or_path in CORPORA:
        return CORPORA[name_or_path]()
    return Path(name_or_path)
