"""The schemas' integer model of int32 is 32-bit two's complement (eqsat_uopc.verify.schemas.model):
each primitive agrees with the program verifier's bit-vector encoding, and the check has teeth."""

import z3

from eqsat_uopc.ir.dtype import I32_MAX, I32_MIN
from eqsat_uopc.verify.schemas import MODEL_RULE, verify_int32_model, verify_python_rules
from eqsat_uopc.verify.schemas.question import Question, SchemaVerification, Value

# 9 of the 18 parameters (the products by 2**31 - 1 and 2**31 - 2 under wrap take 10-40 s each)
SUITE_PARAMETERS = (0, 1, -1, 2, -3, 6, 2**16, 2**30, I32_MIN)


def test_every_primitive_of_the_model_agrees_with_the_bit_vectors():
    rows = verify_int32_model(parameters=SUITE_PARAMETERS)
    assert {r.rule for r in rows} == {MODEL_RULE}
    assert [(r.name.removeprefix("int32-model/"), r.int_semantics, r.status, r.instances) for r in rows] == [
        ("sum", "wrap", "proved", 1),
        ("product by a parameter", "wrap", "tested", 9),
        ("floor quotient by a parameter", "wrap", "tested", 9),
        ("floor modulo by a parameter", "wrap", "tested", 9),
        ("floor quotient by a value", "wrap", "tested", 9),
        ("floor modulo by a value", "wrap", "tested", 9),
        ("comparison", "wrap", "proved", 1),
        ("wraparound is a ring homomorphism", "wrap", "tested", 9),
        ("read of a linear form", "wrap", "tested", 4),
        ("read of a linear form, reordered", "wrap", "tested", 4),
        ("written linear form", "wrap", "tested", 4),
        ("sum", "no_overflow", "proved", 1),
        ("product by a parameter", "no_overflow", "tested", 9),
        ("floor quotient by a parameter", "no_overflow", "tested", 9),
        ("floor modulo by a parameter", "no_overflow", "tested", 9),
        ("floor quotient by a value", "no_overflow", "tested", 9),
        ("floor modulo by a value", "no_overflow", "tested", 9),
        ("comparison", "no_overflow", "proved", 1),
        ("read of a linear form", "no_overflow", "tested", 4),
        ("read of a linear form, reordered", "no_overflow", "tested", 4),
        ("written linear form", "no_overflow", "tested", 4),
    ]
    assert [str(r) for r in rows if r.undecided] == []


def test_verify_python_rules_reports_the_model_first(monkeypatch):
    import eqsat_uopc.verify.schemas as schemas

    model_row = SchemaVerification(MODEL_RULE, "int32-model/sum", "wrap", "proved")
    monkeypatch.setattr(schemas, "verify_int32_model", lambda: [model_row])  # the whole model: 40 s
    assert verify_python_rules(["linear"], instances=0, nonlinear_instances=0) == [model_row]
    assert verify_python_rules(["linear"], instances=0, nonlinear_instances=0, model=False) == []


def _row(rows, name, sem):
    [row] = [r for r in rows if r.name == f"int32-model/{name}" and r.int_semantics == sem]
    return row


def test_a_model_without_wraparound_is_refuted(monkeypatch):
    # a sum that does not wrap: what the schemas over unbounded integers assumed
    monkeypatch.setattr(Question, "wrapped", lambda self, x: x)
    row = _row(verify_int32_model(("wrap",), parameters=(3,)), "sum", "wrap")
    assert row.status == "refuted"
    a, b = row.counterexample["p0"], row.counterexample["p1"]
    assert not I32_MIN <= a + b <= I32_MAX  # the exact sum leaves int32: the bit-vectors wrap it


def test_a_quotient_defined_at_int_min_by_minus_one_is_refuted(monkeypatch):
    # a floor quotient the model calls defined wherever the divisor is not 0: 2**31 is no int32
    def div(self, a, b):
        b = b.value if isinstance(b, Value) else b
        return Value(self.floordiv(a.value, b), b != 0)

    monkeypatch.setattr(Question, "div", div)
    for sem in ("wrap", "no_overflow"):
        row = _row(verify_int32_model((sem,), parameters=(2, -1)), "floor quotient by a parameter", sem)
        assert (row.status, row.params, row.counterexample) == ("refuted", {"parameter": -1}, {"p0": I32_MIN})
        assert row.instances == 1  # 2 agreed


def test_a_form_written_without_the_writable_guard_is_refuted(monkeypatch):
    # under wrap the written term's value is the exact one only where no partial sum wraps
    monkeypatch.setattr(Question, "writable", lambda self, form: z3.BoolVal(True))
    row = _row(verify_int32_model(("wrap",), parameters=()), "written linear form", "wrap")
    assert row.status == "refuted"
    c = row.counterexample
    assert not all(I32_MIN <= v <= I32_MAX for v in (c["p0"] + c["p1"], c["p0"] + c["p1"] + c["p2"]))


def test_a_product_defined_where_it_overflows_is_refuted(monkeypatch):
    # under no_overflow a product that leaves int32 is undefined in the bit-vectors' encoding too
    monkeypatch.setattr(Question, "_arith", lambda self, exact, a, b: Value(exact, True))
    row = _row(
        verify_int32_model(("no_overflow",), parameters=(2, 3)), "product by a parameter", "no_overflow"
    )
    assert (row.status, row.params, row.instances) == ("refuted", {"parameter": 2}, 0)
    assert not I32_MIN <= 2 * row.counterexample["p0"] <= I32_MAX
