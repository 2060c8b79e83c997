"""Equality saturation: lowering UOps into egglog, the budgeted runner, reading the e-graph back.

saturate(program, config=None, **settings) -> Saturation
SaturationConfig       every setting of a run and of extraction from it (config.py)
Saturation.report      SaturationReport (stop_reason, iterations, enodes/eclasses per
                       iteration, time in egglog / folding / lowering / raising)
Saturation.egraph      the serialized eqsat_uopc.extract.EGraph; its meta["egglog"] is an
                       EgglogExtractor: .extract(mode, roots) with mode "tree" or "dag" runs
                       egglog's own extractors and returns {ClassId: ENode}
Saturation.extract(cost=None, extractor=None) -> eqsat_uopc.extract.Extraction
Saturation.equivalent(a, b) -> bool
Saturation.literal()   the CONST/STACK literal in the root's e-class, or None
Saturation.draw(path, extraction=None) a picture: .dot, .json (egglog's visualizer), .svg/.png/.pdf

Modules: config (the settings), terms (the term encoding and egglog declarations), lower (UOps
into egglog), serialize (egglog back into an EGraph; egglog's extractors), runner (saturate, the
loop), hooks/ (the Python steps of a run, in the order of hooks.HOOKS: the greedy seed, the index
algebra, the decided comparisons, the Python folding step), fold (the folding step's rules),
piecewise/ (the piecewise-linear comparisons), rule_loading (rule sets named by a spec, family
files checked against the engine's schema: load_rules), seed_graph (the e-graph of a run decided before any
rule, built without egglog), scheduler (per-rule back-off and hold-back), relevance (the rules that
can fire), engine (Engine handles and pools), result (Saturation, Lease), picture (pictures of
e-graphs: DOT, egglog's visualizer JSON, Graphviz), explain/ (the chain of rewrites from a run's
program to its result, searched after the run: what `optimize(...).explain()` checks), report,
errors. The e-graph soundness check is eqsat_uopc.verify's; docs/DESIGN.md says how the parts fit.
Import from this package with `from eqsat_uopc.saturation import ...`: once the top-level package
re-exports the function `saturate`, the attribute eqsat_uopc.saturation is that function.
"""

from eqsat_uopc.saturation.config import DEFAULT_CONFIG, FIELD_HELP, SaturationConfig, resolve_config
from eqsat_uopc.saturation.engine import Engine, EnginePool, clear_pool, default_pool, engine_stats
from eqsat_uopc.saturation.errors import DrawError, SaturationBug, SaturationError
from eqsat_uopc.saturation.hooks import HOOKS, Additions, Hook, RunSetup, Seeds, StopRun
from eqsat_uopc.saturation.picture import View, draw, select_view, to_dot, to_visualizer_json
from eqsat_uopc.saturation.report import SaturationReport, StopReason
from eqsat_uopc.saturation.result import Saturation
from eqsat_uopc.saturation.rule_loading import ENGINE_SCHEMA, TERM_TYPINGS, check_rule_set, load_rules
from eqsat_uopc.saturation.runner import Runner, saturate
from eqsat_uopc.saturation.serialize import EgglogExtractor

__all__ = [
    "DEFAULT_CONFIG",
    "ENGINE_SCHEMA",
    "FIELD_HELP",
    "HOOKS",
    "TERM_TYPINGS",
    "Additions",
    "DrawError",
    "EgglogExtractor",
    "Engine",
    "EnginePool",
    "Hook",
    "RunSetup",
    "Runner",
    "Saturation",
    "SaturationBug",
    "SaturationConfig",
    "SaturationError",
    "SaturationReport",
    "Seeds",
    "StopReason",
    "StopRun",
    "View",
    "check_rule_set",
    "clear_pool",
    "default_pool",
    "draw",
    "engine_stats",
    "load_rules",
    "resolve_config",
    "saturate",
    "select_view",
    "to_dot",
    "to_visualizer_json",
]
