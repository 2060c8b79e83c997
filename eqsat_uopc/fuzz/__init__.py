"""Fuzzing: what the fuzzers share, and the soundness fuzzer (`eqsat-uopc fuzz-soundness`).

Shared by the differential fuzzer against tinygrad (eqsat_uopc.tinygrad.fuzz) and the soundness
fuzzer: an rng's choices and drawing case `index` of a seed (generation.py), the IR's spellings of
the ops it lacks (spelling.py), delta debugging on expression DAGs
(shrink.py), and running cases in worker processes with a progress bar (workers.py).
"""

from eqsat_uopc.fuzz.shrink import ShrinkResult, complexity, normalize_slots, shrink
from eqsat_uopc.fuzz.workers import Phase, run_all, terminal_progress

__all__ = [
    "Phase",
    "ShrinkResult",
    "complexity",
    "normalize_slots",
    "run_all",
    "shrink",
    "terminal_progress",
]
