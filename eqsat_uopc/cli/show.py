"""`eqsat-uopc show`: saturate a .uir program and draw its e-graph, the extracted program highlighted."""

from __future__ import annotations

import argparse
from pathlib import Path

from eqsat_uopc.cli.common import load, program_errors, saturation_config, saturation_options, writable
from eqsat_uopc.cli_options import integer, option, suffixed

__all__ = ["add_parsers"]


def _cmd_show(args: argparse.Namespace) -> int:
    """Saturate one program and draw its e-graph, the extracted program highlighted: by default the
    root's neighbourhood, as much as fits a screen (picture.select_view)."""
    from eqsat_uopc.saturation import saturate
    from eqsat_uopc.saturation.picture import check_readable, draw, select_view

    writable(args.out, "--out")
    program = load(Path(args.file)).program
    with program_errors(Path(args.file)):
        sat = saturate(program, saturation_config(args))
    try:
        g = sat.egraph
        if args.whole:
            check_readable(g)  # before extracting an e-graph too big to draw
        ext = sat.extract()
        view = None
        if not args.whole:
            limits = {"max_enodes": args.max_enodes, "per_class": args.per_class, "depth": args.depth}
            view = select_view(g, ext.choice, **limits)
        path = draw(g, args.out, ext.choice, view=view)
    finally:
        sat.close()
    if view is None or view.complete or path.suffix.lower() == ".json":
        print(f"drew {g.num_eclasses} e-classes, {g.num_enodes} e-nodes to {path}")
    else:
        print(
            f"drew {view.drawn_enodes} of {g.num_enodes} e-nodes in {view.drawn_eclasses} of "
            f"{g.num_eclasses} e-classes to {path}: the extracted program and the root's neighbourhood "
            "(--max-enodes, --per-class, --depth or --whole draw more)"
        )
    return 0


# ---------------------------------------------------------------------------


def add_parsers(sub: argparse._SubParsersAction) -> None:
    from eqsat_uopc.saturation.picture import (
        DEFAULT_MAX_ENODES,
        DEFAULT_PER_CLASS,
        DEFAULT_VIEW_ENODES,
        FORMATS,
    )

    w = sub.add_parser(
        "show", help="saturate a .uir program and draw its e-graph (.svg/.png/.pdf/.dot/.json)"
    )
    w.add_argument("file", help="a .uir file")
    saturation_options(w)
    w.add_argument(
        "--out",
        required=True,
        type=suffixed(*FORMATS),
        help="the picture: .dot, .json (egglog's visualizer, always the whole e-graph), .svg/.png/.pdf "
        "(Graphviz) (required)",
    )
    option(
        w,
        "--max-enodes",
        type=integer(minimum=1),
        default=DEFAULT_VIEW_ENODES,
        metavar="N",
        help="e-nodes drawn at most: the extracted program first, then the e-classes nearest the root",
    )
    option(
        w,
        "--per-class",
        type=integer(minimum=1),
        default=DEFAULT_PER_CLASS,
        metavar="N",
        help="e-nodes drawn per e-class at most (the extracted one first)",
    )
    option(
        w,
        "--depth",
        type=integer(minimum=0),
        default=None,
        shown="as deep as --max-enodes allows",
        metavar="N",
        help="e-classes at most N steps below the root",
    )
    w.add_argument(
        "--whole",
        action="store_true",
        help=f"draw every e-node, refused above {DEFAULT_MAX_ENODES:,} (default: the root's neighbourhood)",
    )
    w.set_defaults(fn=_cmd_show)
