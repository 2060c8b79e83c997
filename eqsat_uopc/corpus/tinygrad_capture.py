"""Index and validity expressions of real tinygrad kernels, bundled as package data.

Made by `eqsat-uopc capture-tinygrad` (eqsat_uopc/tinygrad/capture.py) with tinygrad 0.14.0 on its
NULL device: matmuls of odd shapes, convolutions with stride, padding, dilation and groups,
pooling, movement chains, reductions, arange/one-hot/gather, cumsum, interpolation, a small CNN and
a transformer block. Each entry has its variables' bounds and tinygrad's own simplification of the
expression (`tinygrad`), so it can be compared with tinygrad without tinygrad installed.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from eqsat_uopc.corpus.format import CorpusEntry, load_corpus

__all__ = ["tinygrad_capture", "tinygrad_capture_path"]


def tinygrad_capture_path() -> Path:
    """The bundled tinygrad_capture.jsonl (data/README.md says how it was made)."""
    return Path(str(resources.files(__package__).joinpath("data", "tinygrad_capture.jsonl")))


def tinygrad_capture() -> list[CorpusEntry]:
    """Every entry of the bundled tinygrad capture, in file order."""
    return load_corpus(tinygrad_capture_path())
