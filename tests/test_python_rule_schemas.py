"""Every Python rewrite proved as a schema in int32 arithmetic with the guards its code checks
(eqsat_uopc.verify.schemas), and the schemas have teeth: the guards the index algebra lacked before
are refuted at the int32 edges without them."""

import pytest
import z3
from eqsat_uopc.rules import FAMILIES

from eqsat_uopc.ir.dtype import I32_MAX
from eqsat_uopc.ir.uir import uir_line
from eqsat_uopc.verify.proof import prove_equivalent
from eqsat_uopc.verify.schemas import (
    PYTHON_SCHEMAS,
    Schema,
    verify_python_rules,
    verify_schema,
)
from eqsat_uopc.verify.schemas.question import Form, Question, Value

INSTANCES = 4  # parameter draws per schema and int semantics in the suite (24 by default)


@pytest.fixture(scope="module")
def reports():
    # the nonlinear schemas: the test below; the int32 model: test_schema_int32_model.py
    return verify_python_rules(instances=INSTANCES, nonlinear_instances=0, model=False)


def test_every_python_rule_is_proved_or_says_why_not(reports):
    python_rules = [r.name for f in FAMILIES.values() for r in f.python_rules]
    assert sorted({r.rule for r in reports}) == sorted(python_rules)
    assert [str(r) for r in reports if r.status in ("refuted", "unknown", "vacuous")] == []
    unproved = {(r.rule, r.reason) for r in reports if r.status == "not_attempted"}
    assert unproved == {
        (
            "fold/f64-to-f32",
            "f32: the constant is truncate(f32, v), exec_alu's own rounding; z3 proves no f32",
        ),
        ("evaluate/literal", "evaluation of literals by the greedy `run`, the reference evaluator itself"),
        (
            "evaluate/inline-call",
            "a substitution (inline_call), the reference evaluator's own CALL semantics",
        ),
    }
    # every schema is asked under each int semantics its rule runs under: the algebra under both,
    # the piecewise comparisons under no_overflow only
    by_semantics = {(r.name, r.int_semantics) for r in reports if r.status != "not_attempted"}
    assert len(by_semantics) == len(reports) - 6
    assert ("linear/divmod-fold/nested-mod", "wrap") in by_semantics
    assert ("linear/piecewise-compare/add", "wrap") not in by_semantics
    tested = [r for r in reports if r.status == "tested"]
    few_draws = {"identities/cmp-self/shaped": 2, "evaluate/index-stack/constant": 3}  # all there are
    assert tested and all(r.instances == few_draws.get(r.name, INSTANCES) for r in tested)
    # a draw z3 cannot decide within its budget is said, and another drawn: rare
    assert sum(r.undecided for r in reports) <= 6
    assert {r.name for r in reports if r.status == "proved"} >= {
        "linear/max-bounds/bounds",
        "evaluate/index-empty/any",
        "evaluate/index-index/any",
        "linear/piecewise-compare/add",
    }
    assert len(PYTHON_SCHEMAS) == 80


def _schema_named(name):
    [s] = [s for s in PYTHON_SCHEMAS if s.name == name]
    return s


def _nested_mod_without_the_inner_guard(q: Question):
    """_nested_mod as it was: the inner numerator's form read without checking that it fits."""
    inner_atom = q.atom("i")
    inner = Form(((q.param("h"), inner_atom),), q.constant("j"))
    m, c = q.param("m"), q.param("c")
    t = q.bounded("t", q.mod(q.read(inner), m))
    b = q.atom("b")
    f, g = q.param("f"), q.param("g")
    lx = Form(((f, t), (g, b)), q.constant("k"))
    out = Form(((f * q.param("h"), inner_atom), (g, b)), f * inner.const + lx.const)
    q.guard(q.writable(out))
    e = q.exact(lx)
    return Value(q.floormod(e, c), q.fits(lx)), q.mod(q.written(out), c)


def test_the_guards_the_algebra_lacked_are_refuted_without_them():
    """((v + 1) % 6 - 1) % 3 -> v % 3 was returned for any int32 v: the nested-remainder fold read
    `v + 1` as exact. Without the guard its schema is refuted under wrap, with a v where v + 1
    wraps; with it (the code now) it holds."""
    params = {"h": 1, "m": 6, "c": 3, "f": 1, "g": 0}
    old = Schema(
        "linear/divmod-fold",
        "old-nested-mod",
        "",
        "",
        _nested_mod_without_the_inner_guard,
        lambda rng: dict(params),
    )
    r = verify_schema(old, "wrap", instances=1)
    assert r.status == "refuted"
    i, j = r.counterexample["i"], r.counterexample["j"]
    assert not -(2**31) <= i + j <= 2**31 - 1  # the inner sum wraps at the counterexample
    now = Schema(
        "linear/divmod-fold",
        "nested-mod",
        "",
        "",
        _schema_named("linear/divmod-fold/nested-mod").build,
        lambda rng: dict(params),
    )
    assert verify_schema(now, "wrap", instances=1).status == "tested"  # proved on that one draw
    # under no_overflow the inner sum cannot wrap: the input is undefined where it would
    assert verify_schema(old, "no_overflow", instances=1).status == "tested"


def test_a_wrong_claim_is_refuted_with_its_counterexample():
    def floor_is_truncation(q: Question):  # x // 2 -> the truncating quotient: wrong for x < 0
        a = q.atom("a")
        x = q.read(Form(((1, a),), 0))
        return q.div(x, 2), Value(z3.If(a.value >= 0, a.value / 2, -((-a.value) / 2)))

    r = verify_schema(Schema("t", "t/trunc", "", "", floor_is_truncation), "wrap")
    assert r.status == "refuted" and r.counterexample["a"] < 0 and r.counterexample["a"] % 2 == 1
    assert r.params == {} and "refuted" in str(r)


def test_the_one_period_folds_need_the_numerator_to_fit(monkeypatch):
    """where(c, x % k, ...) -> x - q*k reads x's value as its linear form's: under wrap that needs
    the form's range to fit int32 (`lx.fits()`); without the guard the schema is refuted, with a
    counterexample where x wraps."""
    schema = _schema_named("boolean/where-assume/one-period-mod-shifted")
    params = {"p": 1, "r": 0, "s": 1, "m": 0, "g": 2**30, "c": 540, "fact_lt": 1, "value": 1}
    pinned = Schema(schema.rule, schema.name, "", "", schema.build, lambda rng: dict(params))
    assert verify_schema(pinned, "wrap", instances=1).status == "tested"
    monkeypatch.setattr(Question, "fits", lambda self, form: z3.BoolVal(True))
    r = verify_schema(pinned, "wrap", instances=1)
    assert r.status == "refuted"
    e = r.counterexample["e"]
    assert abs(e * 2**30 + r.counterexample["a"] + r.counterexample["kl"]) > 2**31 - 1  # x wraps


def test_a_shared_zero_test_needs_its_sums_to_fit(monkeypatch):
    """`x + y < 1 -> g < kg + 1` reads the values of the sums as their forms': under wrap that needs
    the forms to fit int32; without the guard the schema is refuted."""
    schema = _schema_named("linear/compare-fold/zero-test-shared")
    params = {"da": 1, "db": 1, "ha": 0, "hb": 0, "ga": 2**30, "gb": 1}
    pinned = Schema(schema.rule, schema.name, "", "", schema.build, lambda rng: dict(params))
    assert verify_schema(pinned, "wrap", instances=1).status == "tested"
    monkeypatch.setattr(Question, "fits", lambda self, form: z3.BoolVal(True))
    r = verify_schema(pinned, "wrap", instances=1)
    assert r.status == "refuted" and r.counterexample["a.lo"] >= 0 and r.counterexample["b.lo"] >= 0
    # under no_overflow g, read where the mask is, would be undefined where it leaves int32
    assert verify_schema(pinned, "no_overflow", instances=1).status == "refuted"


NONLINEAR = [s for s in PYTHON_SCHEMAS if s.nonlinear]


def test_the_variable_divisor_folds_are_the_nonlinear_schemas():
    assert [s.name for s in NONLINEAR] == [
        "linear/divmod-fold/variable-nested-mod",
        "linear/divmod-fold/variable-linear-multiple-div",
        "linear/divmod-fold/variable-linear-multiple-mod",
        "linear/divmod-fold/variable-gcd-div",
        "linear/divmod-fold/variable-gcd-mod",
        "linear/divmod-fold/variable-exact-multiples-div",
        "linear/divmod-fold/variable-exact-multiples-mod",
    ]
    assert verify_python_rules(["linear"], instances=0, nonlinear_instances=0, model=False) == []


@pytest.mark.parametrize("schema", NONLINEAR, ids=lambda s: s.name.rsplit("/", 1)[1])
def test_each_variable_divisor_fold_is_proved_on_a_drawn_program(schema):
    """One draw each in the suite (a bit-vector proof with a variable divisor takes seconds; the
    default is 4): fold_divmod's own rewrite of the drawn program, proved a refinement."""
    for sem in ("wrap", "no_overflow"):
        report = verify_schema(schema, sem, instances=1)
        assert (report.status, report.instances) == ("tested", 1), str(report)


def test_the_square_is_refuted_without_its_fit_check(monkeypatch):
    """The variable-divisor gcd with the fit check of products skipped (the bug `p0*p0 % p0 -> 0`
    had: a square counted as one factor): its rewrite of a drawn square is refuted under wrap, where
    the code as it is writes nothing."""
    import eqsat_uopc.linear.divmod as divmod_module

    [schema] = [s for s in NONLINEAR if s.name.endswith("variable-gcd-mod")]
    params = {"y.lo": 100, "y.hi": 65623, "h": 1, "g": 0, "m": 1, "square": 1}
    assert schema.build(Question("wrap", params)) is None
    monkeypatch.setattr(divmod_module, "_product_fits", lambda p: True)
    lhs, rhs = schema.build(Question("wrap", params))
    assert (uir_line(lhs), uir_line(rhs)) == ("floormod(mul(mul(p0, p0), 1), p0)", "mul(floormod(p0, 1), p0)")
    proof = prove_equivalent(lhs, rhs, "wrap", refinement=True, rlimit=2_000_000)
    assert proof.status == "refuted" and proof.counterexample[0] ** 2 > I32_MAX  # p0 * p0 wraps
