"""optimize: the one call for "give me the best equivalent of this program".

It is saturation followed by extraction under one SaturationConfig, so the CLI, compare, the
sweeps and the notebooks mean the same thing by a budget or a cost model. Under the default
`seed_greedy=True` the greedy result (its rules sound under the chosen int_semantics) is in the
root's e-class before saturation starts, and extraction is never allowed to return a program
costlier than that one: optimize never does worse than the greedy engine.
"""

from __future__ import annotations

from typing import Any

from eqsat_uopc.extract import Extraction
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.saturation import SaturationConfig, saturate

__all__ = ["optimize"]


def optimize(
    program: UOp, cost: Any = None, config: SaturationConfig | None = None, /, **settings: Any
) -> Extraction:
    """The best program equivalent to `program` under `cost` (default: the config's), with the
    saturation report and run (`.report`, `.saturation`).

    Any setting of SaturationConfig can be given by keyword (`optimize(p, "latency",
    node_budget=50_000, int_semantics="no_overflow")`). The result's `.program`, `.cost` and
    `.optimal` say what was found and whether the extractor proved it optimal for the e-graph.
    """
    if cost is not None:
        settings["cost"] = cost
    sat = saturate(program, config, **settings)
    try:
        return sat.extract()
    finally:
        sat.close()
