"""The z3 encoding and the concrete evaluator against each other and against `run`, on random
well-typed int/bool programs (every op, shapes, CALLs with shared PARAM nodes, RANGEs)."""

import z3
from hypothesis import given, settings
from hypothesis import strategies as st

from eqsat_uopc.greedy import run, to_python
from eqsat_uopc.ir.dtype import dtypes
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp, rebuild
from eqsat_uopc.semantics.interpret import interpret
from eqsat_uopc.semantics.values import bind_params, same_value
from eqsat_uopc.verify import Z3Domain, evaluate, prove_equivalent
from eqsat_uopc.verify.smt_text import SmtTextDomain
from tests.strategies import inputs_for, programs, range_bindings

INT_PROGRAMS = programs(dtypes=(dtypes.i32, dtypes.bool), shaped=True, calls=True, ranges=True, max_ops=12)


def _z3_elements(program, params, ranges, sem, encoding):
    """[(value, defined)] of program's elements at the inputs, as the z3 encoding defines them."""
    domain = Z3Domain(sem, encoding)
    elems = interpret(program, domain)
    s = z3.Solver()
    s.add(*domain.hypotheses)
    for slot, (node, vars_) in domain.params.items():
        flat = params[slot]
        for _ in node.shape:
            flat = [x for e in flat for x in (e if isinstance(e, list) else [e])]
        flat = flat if isinstance(flat, list) else [flat]
        s.add(*[v == x for v, x in zip(vars_, flat, strict=True)])
    s.add(*[v == ranges[ident] for ident, v in domain.ranges.items()])
    assert s.check() == z3.sat
    m = s.model()
    out = []
    for v, d in elems:
        defined = d is True or z3.is_true(m.eval(d, model_completion=True))
        r = m.eval(v, model_completion=True)
        if z3.is_bool(r):
            value = z3.is_true(r)
        else:
            value = r.as_signed_long() if z3.is_bv_value(r) else r.as_long()
        out.append((value, defined))
    return out


def _text_elements(program, params, ranges, sem, encoding):
    """The same as _z3_elements for the encoding written as SMT-LIB text (smt_text.py), which
    prove_equivalent asks z3: each element's value and definedness named, the inputs pinned."""
    domain = SmtTextDomain(sem, encoding)
    elems = interpret(program, domain)
    sort = "(_ BitVec 32)" if encoding == "bv" else "Int"
    for i, (v, d) in enumerate(elems):
        value_sort = "Bool" if program.dtype is dtypes.bool else sort
        domain.lines += [f"(declare-const |out{i}| {value_sort})", f"(declare-const |def{i}| Bool)"]
        domain.hypotheses += [f"(= |out{i}| {v})", f"(= |def{i}| {d})"]
    script = domain.script()
    s = script.solver(z3.Solver())
    for slot, (_node, vars_) in script.params.items():
        flat = _flat(params[slot]) if isinstance(params[slot], list) else [params[slot]]
        s.add(*[v == x for v, x in zip(vars_, flat, strict=True)])
    s.add(*[v == ranges[ident] for ident, v in script.ranges.items()])
    assert s.check() == z3.sat
    m = s.model()
    out = []
    for i in range(len(elems)):
        r = m.eval(z3.Bool(f"out{i}") if program.dtype is dtypes.bool else domain_var(f"out{i}", encoding))
        value = z3.is_true(r) if z3.is_bool(r) else (r.as_signed_long() if z3.is_bv_value(r) else r.as_long())
        out.append((value, z3.is_true(m.eval(z3.Bool(f"def{i}"), model_completion=True))))
    return out


def domain_var(name, encoding):
    return z3.BitVec(name, 32) if encoding == "bv" else z3.Int(name)


def _flat(v):
    return [x for e in v for x in _flat(e)] if isinstance(v, list) else [v]


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_z3_encoding_evaluator_and_run_agree(data):
    program = data.draw(INT_PROGRAMS)
    params = data.draw(inputs_for(program))
    bound = data.draw(range_bindings(program))
    ranges = {r.arg: v for r, v in bound.items()}
    for sem, encodings in (("wrap", ("bv", "int")), ("no_overflow", ("int", "bv"))):
        ref = evaluate(program, params, ranges, sem)
        for encoding in encodings:
            for elements in (_z3_elements, _text_elements):
                elems = elements(program, params, ranges, sem, encoding)
                if ref.defined:
                    assert all(d for _, d in elems) and [v for v, _ in elems] == _flat(ref.value)
                else:
                    assert not all(d for _, d in elems)
    ref = evaluate(program, params, ranges, "wrap")
    if ref.defined:  # run agrees wherever the reference semantics is defined
        closed = rebuild(
            bind_params(program, params),
            lambda u: UOp.const(ranges[u.arg]) if u.op is Ops.RANGE else None,
            enter_call_bodies=True,
        )
        assert same_value(to_python(run(closed)), ref.value)


@settings(max_examples=25, deadline=None)
@given(INT_PROGRAMS)
def test_every_program_is_proved_equal_to_itself_and_to_its_simplification(program):
    from eqsat_uopc.greedy import simplify

    itself = prove_equivalent(program, program).status
    assert itself in ("proved", "vacuous")  # vacuous: defined for no input (`r // r` with r in [0, 0])
    p = prove_equivalent(program, simplify(program), refinement=True, timeout_ms=5_000)
    assert p.status in (itself, "unknown"), p


def test_a_script_is_the_domain_as_text_and_its_inputs_read_a_model():
    x, r = UOp.param(0), UOp.range(4, "r")
    domain = SmtTextDomain("no_overflow", "int")
    ((quotient, defined),) = interpret((x + r) // 2, domain)
    script = domain.script()
    assert script.text.splitlines() == [
        "(declare-const |p0| Int)",
        "(declare-const |range 'r'| Int)",
        "(define-fun t!0 () Int (+ |p0| |range 'r'|))",
        "(define-fun t!1 () Bool (and (<= (- 2147483648) t!0) (<= t!0 2147483647)))",
        "(declare-const div!2 Int)",
        "(declare-const mod!3 Int)",
        "(assert (and (<= (- 2147483648) |p0|) (<= |p0| 2147483647)))",
        "(assert (and (<= (- 2147483648) |range 'r'|) (<= |range 'r'| 2147483647)))",
        "(assert (and (<= 0 |range 'r'|) (< |range 'r'| 4)))",
        "(assert (=> (not (= 2 0)) (and (= t!0 (+ (* div!2 2) mod!3)) "
        "(ite (< 0 2) (and (<= 0 mod!3) (< mod!3 2)) (and (< 2 mod!3) (<= mod!3 0))))))",
    ]
    assert script.asserting(defined, f"(= {quotient} 5)") == "\n".join(
        [script.text, f"(assert {defined})", f"(assert (= {quotient} 5))"]
    )
    # the solver reads the script; the inputs, by name, are the solver's variables: they read its model
    s = script.solver(z3.Solver(), defined, f"(= {quotient} 1073741823)", "(= |range 'r'| 3)")
    assert s.check() == z3.sat
    (node, (p0,)), range_r = script.params[0], script.ranges["r"]
    assert node is x and s.model().eval(range_r).as_long() == 3
    assert s.model().eval(p0).as_long() in (2**31 - 5, 2**31 - 4)  # (p0 + 3) // 2 = 2**30 - 1, no overflow
