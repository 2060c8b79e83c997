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
from eqsat_uopc.extract.latency import machine_table_path

from eqsat_uopc.ir.dtype import dtypes
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.user_cache import machine, machine_name

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
        (-math.inf, "cost -inf; costs must be finite and non-negative"),
        (-0.5, "cost -0.5; costs must be finite and non-negative"),
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
    args = ["--out", str(out), "--elements", "4096", "--repeats", "3", "--ops", "ADD", "CMPLT", "SIN"]
    assert main(args) == 0
    printed = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in printed] == ["ADD", "CMPLT", "SIN", "4", "wrote"]
    data = json.loads(out.read_text())
    assert data["source"].startswith("calibrate: ") and data["source"].endswith("4096 elements, best of 3")
    assert (data["elements"], data["repeats"], data["machine"]) == (4096, 3, machine())
    measured = data["measured"]
    assert {op: set(e) for op, e in measured.items()} == {
        "ADD": {"i32", "f32"},
        "CMPLT": {"bool"},
        "SIN": {"f32"},
    }
    defaults = DEFAULT_LATENCY_TABLE["ADD"]["i32"] + DEFAULT_LATENCY_TABLE["ADD"]["f32"] + 0.3 + 12.0
    scale = sum(ns for e in measured.values() for ns in e.values()) / defaults
    assert data["scale"] == pytest.approx(scale, rel=1e-12)
    assert printed[3] == (
        f"4 entries measured; the other {sum(map(len, data['costs'].values())) - 4} are the default table's "
        f"times {data['scale']:.4g} (measured / default over the measured entries)"
    )
    costs = data["costs"]
    assert set(costs) == set(DEFAULT_LATENCY_TABLE)
    assert costs["ADD"] == {"bool": round(0.3 * data["scale"], 4), **measured["ADD"]}  # bool: rescaled
    assert costs["CMPLT"] == {"*": round(0.3 * data["scale"], 4), "bool": measured["CMPLT"]["bool"]}
    assert costs["MUL"] == {k: round(v * data["scale"], 4) for k, v in DEFAULT_LATENCY_TABLE["MUL"].items()}
    model = load_latency_table(out)
    assert model.node_cost(Ops.SIN, None, dtypes.f32, (2,)) == 2 * costs["SIN"]["f32"] > 0
    assert model.describe() == f"table {out} ({data['date']}, {machine_name()})"


def test_a_partial_calibration_rescales_every_entry_it_did_not_measure():
    from eqsat_uopc.extract.calibrate import rescaled_table

    # SIN and FLOORDIV cost 12 + 8 = 20 ns by default; measured 30 + 10 = 40: scale exactly 2
    table, scale = rescaled_table({"SIN": {"f32": 30.0}, "FLOORDIV": {"i32": 10.0}})
    assert scale == 2.0
    expected = {op: {dt: round(v * 2.0, 4) for dt, v in e.items()} for op, e in DEFAULT_LATENCY_TABLE.items()}
    expected["SIN"]["f32"] = 30.0
    expected["FLOORDIV"]["i32"] = 10.0
    assert table == expected
    assert table["FLOORDIV"] == {"*": 16.0, "i32": 10.0} and table["MUL"] == {
        "bool": 0.6,
        "i32": 2.0,
        "f32": 2.6,
    }
    assert table["CONST"] == {"*": 0.0} and table["RANGE"] == {"*": 0.6}
    half, scale = rescaled_table({"ADD": {"i32": 0.15, "f32": 0.65}})  # 0.8 measured / 1.6 default
    assert (
        scale == pytest.approx(0.5, rel=1e-15) and half["SIN"] == {"*": 6.0} and half["ADD"]["bool"] == 0.15
    )


def test_a_calibration_that_measured_nothing_is_refused():
    from eqsat_uopc.extract.calibrate import calibrate, rescaled_table

    with pytest.raises(CostModelError) as e:
        rescaled_table({"ADD": {"i32": 0.0, "f32": 0.0}})
    assert str(e.value) == (
        "calibrate: every entry measured (ADD) cost no more than copying its input, so there is nothing to "
        "scale the rest of the table by; measure more elements or more ops"
    )
    with pytest.raises(CostModelError, match=r"^calibrate: nothing was measured"):
        rescaled_table({})
    with pytest.raises(CostModelError) as e:
        calibrate(ops=["ADD", "FMA"])
    assert str(e.value).startswith("calibrate: cannot measure op 'FMA' (measured ops: ADD, MUL, MAX, CMPLT, ")
    with pytest.raises(CostModelError, match=r"^calibrate: elements must be a positive int, got 0$"):
        calibrate(elements=0)
    with pytest.raises(
        CostModelError, match=r"^calibrate: ops must be a non-empty list of op names, got 'ADD'$"
    ):
        calibrate(ops="ADD")


@pytest.fixture
def user_cache(tmp_path, monkeypatch):
    """A per-user cache of this test's own (the latency model re-reads it: its path changed)."""
    monkeypatch.setenv("EQSAT_UOPC_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_the_latency_model_uses_this_machines_table_when_present_and_says_so(user_cache):
    path = user_cache / "latency.json"
    assert machine_table_path() == path
    lat = COST_MODELS["latency"]
    assert lat.describe() == (
        "default table (estimates for a ~3 GHz x86-64 core); "
        f"`eqsat-uopc calibrate` measures this machine into {path}"
    )
    assert cost_of(X + Y, "latency") == 0.3
    table = {op: dict(e) for op, e in DEFAULT_LATENCY_TABLE.items()} | {"ADD": {"*": 0.05}}
    user_cache.mkdir()
    save_latency_table(table, path, meta={"date": "2025-01-02 03:04 UTC", "machine": machine()})
    assert cost_of(X + Y, "latency") == 0.05 and cost_of(X + Y, "fastest") == 0.05
    assert lat.describe() == f"calibrated table {path} (2025-01-02 03:04 UTC, {machine_name()})"
    assert Latency(DEFAULT_LATENCY_TABLE).node_cost(Ops.ADD, None, dtypes.i32, ()) == 0.3  # a given table
    elsewhere = {**machine(), "host": "elsewhere"}
    save_latency_table(table | {"ADD": {"*": 0.07}}, path, meta={"date": "d", "machine": elsewhere})
    assert cost_of(X + Y, "latency") == 0.07  # the file changed: read again
    assert lat.describe() == (
        f"calibrated table {path} (d, {machine_name(elsewhere)}); "
        f"measured on another machine than this one ({machine_name()})"
    )
    path.unlink()
    assert cost_of(X + Y, "latency") == 0.3 and lat.describe().startswith("default table")


def test_the_machine_table_is_a_cache_of_one_entry_checked_at_lookup_and_forgotten_on_request(user_cache):
    from eqsat_uopc.extract.latency import forget_machine_table

    lat = cost_model("latency")  # a lookup: the cache now holds this cache directory's (no) table
    assert lat.per_element(Ops.ADD, dtypes.i32) == 0.3
    user_cache.mkdir()
    table = {op: dict(e) for op, e in DEFAULT_LATENCY_TABLE.items()} | {"ADD": {"*": 0.05}}
    save_latency_table(table, user_cache / "latency.json", meta={"date": "d", "machine": machine()})
    assert lat.per_element(Ops.ADD, dtypes.i32) == 0.3  # per node: the cached entry, no stat
    forget_machine_table()
    assert lat.per_element(Ops.ADD, dtypes.i32) == 0.05  # emptied: read again
    save_latency_table(table | {"ADD": {"*": 0.07}}, user_cache / "latency.json", meta={"date": "e"})
    assert cost_model("latency").per_element(Ops.ADD, dtypes.i32) == 0.07  # a lookup checks the stamp


def test_a_broken_machine_table_is_an_error_naming_the_file(user_cache):
    path = user_cache / "latency.json"
    user_cache.mkdir()
    path.write_text("{not json")
    with pytest.raises(CostModelError, match=rf"^cannot read latency table '{path}': Expecting"):
        cost_of(X + Y, "latency")
    path.write_text(json.dumps({"costs": {"ADD": {"i32": -1}}}))
    with pytest.raises(CostModelError) as e:
        cost_model("latency")
    assert str(e.value) == (
        f"latency table from '{path}': ADD i32 costs -1; costs must be finite and non-negative "
        "(run `eqsat-uopc calibrate` again, or delete the file to use the default table)"
    )
    path.write_text(json.dumps({"costs": {"ADD": {"i32": 1.0}}}))
    with pytest.raises(
        CostModelError, match=rf"^calibrated latency table '{path}' has no entry for CALL, CAST, "
    ):
        cost_of(X + Y, "latency")


def test_calibrate_machine_writes_the_table_the_latency_model_then_uses(user_cache):
    from eqsat_uopc.extract.calibrate import calibrate_machine

    cal = calibrate_machine(elements=4096, repeats=3, ops=["SIN"])
    assert cal.path == user_cache / "latency.json" and set(cal.measured) == {"SIN"}
    assert cal.scale == pytest.approx(cal.measured["SIN"]["f32"] / 12.0, rel=1e-12)
    lat = COST_MODELS["latency"]
    assert lat.per_element(Ops.SIN, dtypes.f32) == cal.table["SIN"]["f32"] == cal.measured["SIN"]["f32"]
    assert lat.per_element(Ops.MUL, dtypes.i32) == round(1.0 * cal.scale, 4)
    assert lat.describe() == f"calibrated table {cal.path} ({cal.date}, {machine_name()})"
