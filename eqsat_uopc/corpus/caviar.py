"""The Caviar/Halide corpus: 1,303 Halide simplifier expressions, bundled as package data.

`caviar_dev()` reads the bundled file (data/README.md says where it comes from) into `CorpusEntry`s;
the format is format.py's.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from eqsat_uopc.corpus.format import CorpusEntry, load_corpus

__all__ = ["caviar_dev", "caviar_path"]


def caviar_path() -> Path:
    """The bundled caviar_dev.jsonl (package data of eqsat_uopc.corpus; data/README.md says where
    it comes from)."""
    return Path(str(resources.files(__package__).joinpath("data", "caviar_dev.jsonl")))


def caviar_dev() -> list[CorpusEntry]:
    """Every entry of the bundled Caviar development corpus, in file order."""
    return load_corpus(caviar_path())
