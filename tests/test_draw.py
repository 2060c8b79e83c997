"""Pictures of e-graphs: exact DOT, egglog's visualizer JSON, Graphviz output, errors, the CLI."""

import json
import re
import shutil

import pytest

from eqsat_uopc import EClass, EGraph, ENode, Ops, UOp, dtypes, saturate
from eqsat_uopc.cli import main
from eqsat_uopc.saturation import DrawError, SaturationError, draw, picture, to_dot, to_visualizer_json

X = UOp.param(0, dtypes.i32)

# x + x under the symbolic rules: the root e-class holds ADD(x, x) and MUL(x, 2); dag_size picks ADD
X_PLUS_X_DOT = """\
digraph egraph {
  compound=true;
  rankdir=TB;
  graph [fontname="Helvetica"];
  node [shape=box, style=rounded, fontname="Helvetica"];
  edge [fontname="Helvetica", fontsize=10];
  subgraph "cluster_c0" {
    graph [label="c0 : i32", color="#888888"];
    "c0.0" [label="CONST 2"];
  }
  subgraph "cluster_c1" {
    graph [label="root c1 : i32", penwidth=3, color="#1f4e99"];
    "c1.0" [label="ADD", style="filled,bold", fillcolor="#ffd966", penwidth=2];
    "c1.1" [label="MUL"];
  }
  subgraph "cluster_c2" {
    graph [label="c2 : i32", color="#888888"];
    "c2.0" [label="PARAM slot 0", style="filled,bold", fillcolor="#ffd966", penwidth=2];
  }
  "c1.0" -> "c2.0" [lhead="cluster_c2", label="0", penwidth=2];
  "c1.0" -> "c2.0" [lhead="cluster_c2", label="1", penwidth=2];
  "c1.1" -> "c2.0" [lhead="cluster_c2", label="0"];
  "c1.1" -> "c0.0" [lhead="cluster_c0", label="1"];
}
"""

UIR_X_PLUS_X = "%0 = param : slot=0 dtype=i32\n%1 = add %0, %0\n"


@pytest.fixture(scope="module")
def x_plus_x():
    sat = saturate(X + X, rules="symbolic")
    yield sat, sat.extract()
    sat.close()


def _eclass(cid, *nodes):
    return EClass(cid, nodes, dtypes.i32, ())


def test_exact_dot_of_a_three_class_egraph(x_plus_x):
    sat, ext = x_plus_x
    assert ext.program is X + X  # dag_size: ADD(x, x) is 2 nodes, MUL(x, 2) 3
    assert to_dot(sat.egraph, ext.choice) == X_PLUS_X_DOT


def test_x_plus_0_is_two_clusters_with_the_param_chosen_and_the_root_marked():
    sat = saturate(X + 0, rules="symbolic")
    ext = sat.extract()
    assert ext.program is X
    dot = to_dot(sat.egraph, ext.choice)
    assert dot.count("subgraph ") == 2 == sat.egraph.num_eclasses
    (root,) = sat.egraph.roots
    assert f'graph [label="root {root} : i32", penwidth=3' in dot
    assert dot.count("root ") == 1
    chosen = [line.strip() for line in dot.splitlines() if "filled" in line]
    assert chosen == [
        f'"{root}.0" [label="PARAM slot 0", style="filled,bold", fillcolor="#ffd966", penwidth=2];'
    ]
    assert 'label="CONST 0"];' in dot  # the unused constant is drawn, not highlighted


def test_without_a_choice_nothing_is_highlighted_and_root_can_be_given(x_plus_x):
    sat, _ = x_plus_x
    dot = to_dot(sat.egraph, root="c2")
    assert "filled" not in dot and "penwidth=2" not in dot
    assert '"root c2 : i32"' in dot and '"root c1' not in dot
    with pytest.raises(DrawError, match=r"^root 'nope' is not an e-class of the e-graph$"):
        to_dot(sat.egraph, root="nope")


def test_hand_built_egraph_natural_order_quoting_self_loops_and_bad_choice():
    g = EGraph(
        {
            "c10": _eclass("c10", ENode(Ops.CONST, 1, ())),
            "c2": _eclass("c2", ENode(Ops.RANGE, 'say "hi"', ("c10",)), ENode(Ops.MUL, None, ("c2", "c10"))),
        },
        roots=("c2",),
    )
    dot = to_dot(g, {"c2": ENode(Ops.RANGE, 'say "hi"', ("c10",)), "c10": ENode(Ops.CONST, 1, ())})
    assert dot.index("cluster_c2") < dot.index("cluster_c10")  # c2 before c10, not text order
    assert '"c2.0" [label="RANGE say \\"hi\\"", style="filled,bold"' in dot
    assert '  "c2.1" -> "c2.0" [label="0"];\n' in dot  # an edge into its own class: no lhead
    assert '  "c2.1" -> "c1' + '0.0" [lhead="cluster_c10", label="1"];\n' in dot
    with pytest.raises(DrawError, match=r"^the choice's e-node CONST\[2\]\(\) for e-class 'c10' is not in"):
        to_dot(g, {"c10": ENode(Ops.CONST, 2, ())})


def test_long_args_are_shortened():
    g = EGraph({"a": _eclass("a", ENode(Ops.RANGE, "n" * 100, ()))}, roots=("a",))
    (label,) = re.findall(r'label="(RANGE [^"]*)"', to_dot(g))
    assert len(label) == 40 and label.endswith("…")


def test_visualizer_json_is_egglogs_serialized_format(x_plus_x):
    sat, ext = x_plus_x
    data = to_visualizer_json(sat.egraph, ext.choice)
    assert data == {
        "nodes": {
            "c0.0": {"op": "CONST 2", "children": [], "eclass": "c0", "cost": 1.0, "subsumed": False},
            "c1.0": {
                "op": "ADD",
                "children": ["c2.0", "c2.0"],
                "eclass": "c1",
                "cost": 1.0,
                "subsumed": False,
            },
            "c1.1": {
                "op": "MUL",
                "children": ["c2.0", "c0.0"],
                "eclass": "c1",
                "cost": 1.0,
                "subsumed": False,
            },
            "c2.0": {"op": "PARAM slot 0", "children": [], "eclass": "c2", "cost": 1.0, "subsumed": False},
        },
        "root_eclasses": ["c1"],
        "class_data": {
            "c0": {"type": "i32"},
            "c1": {"type": "i32", "chosen": "c1.0"},
            "c2": {"type": "i32", "chosen": "c2.0"},
        },
    }
    assert json.loads(json.dumps(data)) == data
    assert len(data["nodes"]) == sat.egraph.num_enodes and len(data["class_data"]) == sat.egraph.num_eclasses
    # every child is a node id, as egglog's visualizer looks children up among the nodes
    assert all(ch in data["nodes"] for n in data["nodes"].values() for ch in n["children"])


def test_json_has_the_keys_egglog_itself_writes():
    from egglog import bindings

    eg = bindings.EGraph()
    eg.parse_and_run_program("(datatype E (Num i64) (Add E E)) (Add (Num 1) (Num 2))")
    theirs = json.loads(eg.serialize([]).to_json())
    ours = to_visualizer_json(EGraph.from_programs(X + 1))
    assert set(ours) == set(theirs) == {"nodes", "root_eclasses", "class_data"}
    their_node, our_node = next(iter(theirs["nodes"].values())), next(iter(ours["nodes"].values()))
    assert set(our_node) == set(their_node)
    assert {"type"} <= set(next(iter(ours["class_data"].values())))


def test_two_runs_give_identical_pictures():
    def picture_of(program):
        sat = saturate(program, rules="symbolic")
        try:
            ext = sat.extract()
            return to_dot(sat.egraph, ext.choice), json.dumps(to_visualizer_json(sat.egraph, ext.choice))
        finally:
            sat.close()

    p = (X + 0) * 2 + X * 2
    assert picture_of(p) == picture_of(p)


def test_saturation_draw_writes_dot_and_json_with_the_configured_extraction(x_plus_x, tmp_path):
    sat, ext = x_plus_x
    assert sat.draw(tmp_path / "g.dot") == tmp_path / "g.dot"
    assert (tmp_path / "g.dot").read_text() == X_PLUS_X_DOT
    sat.draw(tmp_path / "g.json")
    assert json.loads((tmp_path / "g.json").read_text()) == to_visualizer_json(sat.egraph, ext.choice)


def test_missing_dot_binary_is_a_clear_error(x_plus_x, tmp_path, monkeypatch):
    sat, _ = x_plus_x
    monkeypatch.setattr(picture.shutil, "which", lambda name: None)
    message = (
        "the 'dot' binary (graphviz) is not installed; write .dot or .json instead, "
        "or install graphviz (apt-get install graphviz)"
    )
    with pytest.raises(DrawError) as e:
        sat.draw(tmp_path / "g.svg")
    assert str(e.value) == message
    assert isinstance(e.value, SaturationError) and isinstance(e.value, ValueError)
    assert not (tmp_path / "g.svg").exists()


def test_a_failing_dot_is_reported(x_plus_x, tmp_path, monkeypatch):
    sat, _ = x_plus_x
    monkeypatch.setattr(picture.shutil, "which", lambda name: "/bin/false")
    with pytest.raises(DrawError, match=r"^dot failed to write .*g\.png: exit status 1$"):
        sat.draw(tmp_path / "g.png")


def test_unknown_suffix_names_it_and_the_known_ones(x_plus_x, tmp_path):
    sat, _ = x_plus_x
    with pytest.raises(DrawError) as e:
        draw(sat.egraph, tmp_path / "g.gif")
    assert str(e.value) == (
        f"cannot draw to {tmp_path / 'g.gif'}: unknown suffix '.gif'; "
        "use one of .dot, .json, .svg, .png, .pdf"
    )
    with pytest.raises(DrawError, match=r"unknown suffix '\(none\)'"):
        draw(sat.egraph, tmp_path / "g")


def test_too_big_egraph_is_refused_unless_the_limit_is_raised(x_plus_x, tmp_path):
    sat, _ = x_plus_x
    with pytest.raises(DrawError) as e:
        sat.draw(tmp_path / "g.dot", max_enodes=3)
    assert str(e.value) == (
        "the e-graph has 4 e-nodes in 3 e-classes, more than max_enodes=3 can show readably; "
        "raise max_enodes to draw it anyway"
    )
    assert not (tmp_path / "g.dot").exists()
    sat.draw(tmp_path / "g.dot", max_enodes=4)
    assert (tmp_path / "g.dot").exists()


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
@pytest.mark.parametrize("suffix", [".svg", ".png", ".pdf"])
def test_graphviz_writes_a_real_picture(x_plus_x, tmp_path, suffix):
    sat, _ = x_plus_x
    path = sat.draw(tmp_path / f"g{suffix}")
    data = path.read_bytes()
    if suffix == ".svg":
        text = data.decode()
        assert text.startswith("<?xml") and "<svg" in text
        assert "root c1 : i32" in text and "PARAM slot 0" in text
    else:
        assert data.startswith({".png": b"\x89PNG", ".pdf": b"%PDF"}[suffix])


@pytest.mark.parametrize("suffix", [".dot", ".json"])
def test_cli_show_writes_the_picture(tmp_path, capsys, suffix):
    src = tmp_path / "p.uir"
    src.write_text(UIR_X_PLUS_X)
    out = tmp_path / f"egraph{suffix}"
    assert main(["show", str(src), "--rules", "symbolic", "--out", str(out)]) == 0
    assert capsys.readouterr().out == f"drew 3 e-classes, 4 e-nodes to {out}\n"
    if suffix == ".dot":
        assert out.read_text() == X_PLUS_X_DOT
    else:
        data = json.loads(out.read_text())
        assert (len(data["nodes"]), data["root_eclasses"]) == (4, ["c1"])


def test_cli_show_errors_are_one_line(tmp_path, capsys):
    src = tmp_path / "p.uir"
    src.write_text(UIR_X_PLUS_X)
    with pytest.raises(SystemExit) as exit_:  # a bad suffix is a usage error, before any work
        main(["show", str(src), "--out", str(tmp_path / "g.gif")])
    assert exit_.value.code == 2
    assert capsys.readouterr().err == (
        f"eqsat-uopc show: error: argument --out: expected a file name ending in one of .dot, .json, .svg, "
        f".png, .pdf, got '{tmp_path / 'g.gif'}' (see 'eqsat-uopc show --help')\n"
    )
    assert main(["show", str(tmp_path / "nope.uir"), "--out", str(tmp_path / "g.dot")]) == 1
    assert (
        capsys.readouterr().err == f"eqsat-uopc: error: {tmp_path / 'nope.uir'}: no such file or directory\n"
    )
    assert main(["show", str(src), "--out", str(tmp_path / "no" / "g.dot")]) == 1
    assert capsys.readouterr().err == (
        f"eqsat-uopc: error: --out {tmp_path / 'no' / 'g.dot'}: directory {tmp_path / 'no'} does not exist\n"
    )


def test_cli_show_draws_part_of_an_e_graph_above_max_enodes(tmp_path, capsys):
    src = tmp_path / "p.uir"
    src.write_text(UIR_X_PLUS_X)
    out = tmp_path / "g.dot"
    assert main(["show", str(src), "--rules", "symbolic", "--max-enodes", "2", "--out", str(out)]) == 0
    assert capsys.readouterr().out == (
        f"drew 2 of 4 e-nodes in 2 of 3 e-classes to {out}: the extracted program and the root's "
        "neighbourhood (--max-enodes, --per-class, --depth or --whole draw more)\n"
    )
    dot = out.read_text()
    assert '"c1.0" [label="ADD", style="filled,bold"' in dot and '"c2.0" [label="PARAM slot 0"' in dot
    assert '"c1.1"' not in dot and "root c1 : i32 (+1 more)" in dot
