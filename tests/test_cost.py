"""Cost models: exact costs of known programs, user models, rejected costs, latency tables."""

import json
import math

import pytest
from eqsat_uopc.extract import (
    COST_MODELS,
    DEFAULT_LATENCY_TABLE,
    CostModelError,
    EGraph,
    Latency,
    cost_model,
    cost_of,
    costs_of,
    extract,
    load_latency_table,
    save_latency_table,
)

from eqsat_uopc.ir.dtype import dtypes
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp

X = UOp.param(0, dtypes.i32)
Y = UOp.param(1, dtypes.i32)
F = UOp.param(2, dtypes.f32)


def test_sizes_and_depth_of_a_shared_program():
    s = X + Y
    prog = s * s  # tree: MUL, 2 x (ADD, X, Y) = 7; DAG: MUL, ADD, X, Y = 4; depth 3
    assert costs_of(prog) == {"tree_size": 7, "dag_size": 4, "depth": 3, "latency": 1.0 + 0.3}
    assert cost_of(X, "tree_size") == 1 and cost_of(X, "depth") == 1 and cost_of(X, "latency") == 0.0


def test_several_roots():
    s = X + Y
    assert cost_of([s, s * 2], "dag_size") == 5  # X, Y, ADD (shared by both roots), CONST 2, MUL
    assert cost_of([s, s * 2], "tree_size") == 3 + 5
    assert cost_of([s, s * 2], "depth") == 3
    assert cost_of([], "depth") == 0


def test_aliases_and_unknown_names():
    assert cost_model("smallest") is COST_MODELS["dag_size"]
    assert cost_model("fastest") is COST_MODELS["latency"]
    msg = r"^unknown cost model 'tiny' \(known: dag_size, depth, fastest, latency, smallest, tree_size\)$"
    with pytest.raises(CostModelError, match=msg):
        cost_of(X, "tiny")


def test_latency_is_per_element_and_by_dtype():
    v = UOp.stack(1.0, 2.0, 3.0)  # STACK of 3 f32 elements
    lat = COST_MODELS["latency"]
    assert lat.node_cost(Ops.ADD, None, dtypes.f32, (3,)) == 1.3 * 3
    assert lat.node_cost(Ops.ADD, None, dtypes.i32, ()) == 0.3
    assert lat.node_cost(Ops.CMPLT, None, dtypes.bool, (2, 2)) == 0.3 * 4
    assert cost_of(v + v, "latency") == pytest.approx(0.3 * 3 + 1.3 * 3)
    assert cost_of((F * 2.0).sin(), "latency") == pytest.approx(1.3 + 12.0)


class Mults:
    """A user model: multiplications cost 10, everything else 1, tree aggregation."""

    name = "mults"
    kind = "tree"

    def node_cost(self, op, arg, dtype, shape):
        return 10 if op is Ops.MUL else 1


def test_user_cost_model_in_cost_of_and_extract():
    assert cost_of(X * 2 + X, Mults()) == 10 + 1 + 1 + 1 + 1
    g = EGraph.from_programs(X * 2 + X)
    r = extract(g, Mults())
    assert (r.cost, r.cost_model, r.extractor, r.optimal) == (14, "mults", "bottom_up", True)


class Bad:
    kind = "dag"

    def __init__(self, value):
        self.value = value

    def node_cost(self, op, arg, dtype, shape):
        return self.value if op is Ops.ADD else 1


@pytest.mark.parametrize(
    "value, problem",
    [
        (-1, "cost -1; costs must be finite and non-negative"),
        (math.inf, "cost inf; costs must be finite and non-negative"),
        (math.nan, "cost nan; costs must be finite and non-negative"),
    ],
)
def test_bad_costs_are_rejected_naming_the_op(value, problem):
    msg = f"cost model 'Bad' gave ADD {problem} [at ADD (i32 ())]"
    with pytest.raises(CostModelError) as e:
        cost_of(X + 1, Bad(value))
    assert str(e.value) == msg
    with pytest.raises(CostModelError) as e:
        extract(EGraph.from_programs(X + 1), Bad(value))
    assert str(e.value) == msg


def test_non_numeric_costs_and_bad_models():
    with pytest.raises(CostModelError) as e:
        cost_of(X + 1, Bad("1"))
    assert (
        str(e.value)
        == "cost model 'Bad' gave ADD a cost of type str ('1'); costs must be numbers [at ADD (i32 ())]"
    )
    with pytest.raises(CostModelError, match=r"^cost model 'Bad' gave ADD a cost of type bool"):
        cost_of(X + 1, Bad(True))

    class NoKind:
        def node_cost(self, op, arg, dtype, shape):
            return 1

    with pytest.raises(CostModelError) as e:
        cost_of(X, NoKind())
    assert str(e.value) == "cost model 'NoKind' has kind None; expected 'tree', 'dag' or 'depth'"
    with pytest.raises(
        CostModelError, match=r"^cost model 3 has no node_cost\(op, arg, dtype, shape\) method"
    ):
        cost_of(X, 3)
    with pytest.raises(CostModelError, match=r"^cost_of needs UOp programs, got int: 3$"):
        cost_of([X, 3], "dag_size")


def test_latency_table_round_trip(tmp_path):
    path = tmp_path / "lat.json"
    save_latency_table({"ADD": {"i32": 2.0}, "CONST": {"*": 0.5}}, path, source="test")
    data = json.loads(path.read_text())
    assert data == {"unit": "ns", "source": "test", "costs": {"ADD": {"i32": 2.0}, "CONST": {"*": 0.5}}}
    model = load_latency_table(path)
    assert isinstance(model, Latency)
    assert model.node_cost(Ops.ADD, None, dtypes.i32, ()) == 2.0
    assert model.node_cost(Ops.ADD, None, dtypes.f32, ()) == DEFAULT_LATENCY_TABLE["ADD"]["f32"]  # fallback
    assert cost_of(X + 1, model) == 2.0 + 0.5 + 0.0


def test_latency_table_errors(tmp_path):
    with pytest.raises(
        CostModelError, match=r"^latency table from save_latency_table names unknown op 'FMA'$"
    ):
        save_latency_table({"FMA": {"f32": 1.0}}, tmp_path / "x.json")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"costs": {"ADD": {"i64": 1.0}}}))
    with pytest.raises(
        CostModelError, match=r"^latency table from '.*bad.json': ADD has unknown dtype 'i64'$"
    ):
        load_latency_table(bad)
    bad.write_text(json.dumps({"costs": {"ADD": {"i32": -1}}}))
    with pytest.raises(CostModelError, match=r": ADD i32 costs -1; costs must be finite and non-negative$"):
        load_latency_table(bad)
    with pytest.raises(CostModelError, match=r"^cannot read latency table '.*missing.json': "):
        load_latency_table(tmp_path / "missing.json")


def test_calibrate_writes_a_loadable_table(tmp_path, capsys):
    from eqsat_uopc.extract.calibrate import main

    out = tmp_path / "lat.json"
    args = ["--out", str(out), "--elements", "64", "--repeats", "2", "--ops", "ADD", "CMPLT", "SQRT"]
    assert main(args) == 0
    printed = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in printed] == ["ADD", "CMPLT", "SQRT", "wrote"]
    data = json.loads(out.read_text())
    assert data["source"].startswith("calibrate: ") and data["source"].endswith("64 elements, best of 2")
    costs = data["costs"]
    assert set(costs) == set(DEFAULT_LATENCY_TABLE)
    assert set(costs["ADD"]) == {"bool", "i32", "f32"} and costs["ADD"]["bool"] == 0.3  # bool not measured
    assert set(costs["CMPLT"]) == {"bool", "*"} and set(costs["SQRT"]) == {"f32", "*"}
    assert costs["MUL"] == DEFAULT_LATENCY_TABLE["MUL"]  # not asked for: the default
    model = load_latency_table(out)
    assert model.node_cost(Ops.SQRT, None, dtypes.f32, (2,)) == 2 * costs["SQRT"]["f32"] >= 0
