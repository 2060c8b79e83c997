"""Rule synthesis: fingerprints agree with exec_alu, enumeration finds the expected candidates,
orientation and egglog text are exact, proofs and derivability decide, runs resume, the CLI works,
and the bundled synthesized family is verified and loads like the hand-written ones."""

import json
import random
from pathlib import Path

import numpy as np
import pytest
from eqsat_uopc.rules import FAMILIES, RULE_SETS, load_family, read_rules, rule_set

from eqsat_uopc import UOp, dtypes
from eqsat_uopc.cli import main
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.saturation import saturate
from eqsat_uopc.synthesis import Condition, Grammar, derives, parse_ops, synthesize, with_family
from eqsat_uopc.synthesis import search as synthesize_module
from eqsat_uopc.synthesis.enumeration import Enumerator
from eqsat_uopc.synthesis.fingerprint import make_inputs
from eqsat_uopc.synthesis.measure import corpus_rows, derivability, handwritten_instances
from eqsat_uopc.synthesis.prove import prove_rule
from eqsat_uopc.synthesis.rule import SynthRule, infix, instance, orient, rule_text
from eqsat_uopc.verify import evaluate, parse_egg_rules, verify_egg_rule, verify_saturation_rules

X, Y = UOp.param(0, dtypes.i32), UOp.param(1, dtypes.i32)
C1, C2 = UOp.param(16, dtypes.i32), UOp.param(17, dtypes.i32)
G = Grammar(parse_ops("add,mul,max,lt"), max_size=5, variables=("x", "y"))
NAMES = G.names()


# -- grammar -------------------------------------------------------------------------------------


def test_ops_are_parsed_and_unknown_ones_named():
    assert parse_ops("lt, add,mul,add") == (Ops.ADD, Ops.MUL, Ops.CMPLT)
    with pytest.raises(ValueError, match="unknown op 'sub' in --ops"):
        parse_ops("add,sub")
    with pytest.raises(ValueError, match="at least one term variable"):
        Grammar(parse_ops("add"), variables=())


def test_condition_text_masks_and_egglog_atoms():
    rows = {"x": np.array([0, 3, 5, -1]), "c1": np.array([4, 4, 4, 4]), "c2": np.array([2, 3, 0, 2])}
    below = Condition("below", ("x", "c1"))
    assert str(below) == "0 <= x < c1"
    assert below.mask(rows).tolist() == [True, True, False, False]
    assert Condition("divides", ("c1", "c2")).mask(rows).tolist() == [True, False, False, True]
    assert below.egg_atoms() == ["(= lo_x (lo x))", "(= hi_x (hi x))", "(>= lo_x 0)", "(< hi_x c1)"]
    assert Condition("divides", ("c1", "c2")).egg_atoms() == ["(> c2 0)", "(= 0 (% c1 c2))"]
    with pytest.raises(ValueError, match="unknown condition kind 'odd'"):
        Condition("odd", ("c1",))


# -- fingerprints --------------------------------------------------------------------------------


@pytest.mark.parametrize("int_semantics", ["wrap", "no_overflow"])
def test_fingerprints_agree_with_exec_alu_bit_for_bit(int_semantics):
    g = Grammar(parse_ops("add,mul,max,lt,ne,floordiv,floormod,where"), max_size=5, bool_variables=("b",))
    inputs = make_inputs(g, seed=3)
    enum = Enumerator(g, inputs, int_semantics)
    terms = [t for d in enum.representatives.values() for ts in d.values() for t in ts]
    list(enum.run())
    terms = [t for d in enum.representatives.values() for ts in d.values() for t in ts if t.size > 1]
    rng = random.Random(0)
    names = g.names()
    checked = 0
    for t in rng.sample(terms, 60):
        for row in rng.sample(range(inputs.size), 25):
            params = {slot: int(inputs.rows[name][row]) for slot, name in names.items()}
            params = {s: bool(v) if s == 3 else v for s, v in params.items()}
            want = evaluate(t.uop, params, int_semantics=int_semantics)
            assert bool(t.vec.defined[row]) == want.defined, (infix(t.uop, names), params)
            if want.defined:
                assert int(t.vec.values[row]) == int(want.value), (infix(t.uop, names), params)
                checked += 1
    assert checked > 1000


def test_inputs_are_deterministic_and_cover_every_condition():
    a, b = make_inputs(G, seed=1), make_inputs(G, seed=1)
    assert all(np.array_equal(a.rows[k], b.rows[k]) for k in a.rows)
    assert not np.array_equal(make_inputs(G, seed=2).rows["x"], a.rows["x"])
    for cond in G.condition_catalog():
        mask = a.mask(cond)
        assert (mask & a.generic).sum() >= 8 and (mask & ~a.generic).sum() >= 16, str(cond)
    assert {-(2**31), 2**31 - 1, -1, 0, 1} <= set(a.rows["x"].tolist())


# -- enumeration, orientation, text --------------------------------------------------------------


def test_enumeration_finds_the_candidates_of_a_tiny_grammar():
    g = Grammar(parse_ops("add,mul"), max_size=3, variables=("x",), constant_variables=(), constants=(0, 1))
    found = [
        (infix(c.a.uop, g.names()), infix(c.b.uop, g.names()), c.condition)
        for c in Enumerator(g, make_inputs(g)).run()
    ]
    assert found == [("x + 0", "x", None), ("x * 0", "0", None), ("x * 1", "x", None)]


def test_conditional_candidates_carry_their_weakest_condition():
    g = Grammar(
        parse_ops("max,floordiv"), max_size=3, variables=("x",), constant_variables=("c",), constants=(0,)
    )
    found = {
        (infix(c.a.uop, g.names()), infix(c.b.uop, g.names()), str(c.condition))
        for c in Enumerator(g, make_inputs(g)).run()
    }
    assert ("MAX(x, 0)", "x", "0 <= x") in found
    assert ("x // c", "0", "0 <= x < c") in found


def test_orientation():
    assert orient(X, X + 0, None, G) == (X + 0, X)
    assert orient(X + Y, Y + X, None, G) == "a reordering by commutativity/associativity (comm_assoc.egg)"
    assert (
        orient(X * 0, Y * 0, None, G)
        == "no orientation binds every variable of the other side and of the condition"
    )
    # the condition's variables must be bound by the left-hand side
    cond = Condition("below", ("x", "c1"))
    assert orient(X.maximum(C1), C1, cond, G) == (X.maximum(C1), C1)


def test_rule_text_rewrite_rule_and_guard():
    g = Grammar(parse_ops("add,lt"), variables=("x", "y"))
    plain = SynthRule("s/add", X + 0, X, None, "wrap")
    assert rule_text(plain, g, "s") == '; x + 0 -> x\n(rewrite (Add "i32" x (Int 0)) x :name "s/add")'
    cond = SynthRule("s/max", X.maximum(C1), C1, Condition("below", ("x", "c1")), "wrap")
    assert rule_text(cond, g, "s") == (
        "; MAX(x, c1) -> c1   if 0 <= x < c1\n"
        '(rule ((= e (Max "i32" x (Int c1))) (= lo_x (lo x)) (= hi_x (hi x)) (>= lo_x 0) (< hi_x c1))\n'
        '      ((union e (Int c1))) :name "s/max")'
    )
    noovf = SynthRule("s/lt", (X + 1) < (Y + 1), X < Y, None, "no_overflow", guarded=True)
    text = rule_text(noovf, g, "s")
    assert text.startswith(
        "; (x + 1) < (y + 1) -> x < y   (no_overflow)\n"
        '(rewrite (Lt "bool" (Add "i32" x (Int 1)) (Add "i32" y (Int 1))) (Lt "bool" x y) '
        ':name "s/lt" :semantics no_overflow\n      :guard ((= lo_x (lo x)) (= hi_x (hi x))'
    )
    # one declaration; the engine generates the unguarded form and the guarded one from it
    [rule] = read_rules(text)
    assert rule.forms() == ("guarded", "noovf")
    guarded = rule.text("guarded", "u0")
    assert guarded.startswith(
        '(rule ((= e (Lt "bool" (Add "i32" x (Int 1)) (Add "i32" y (Int 1)))) (= lo_x (lo x))'
    )
    assert "(<= g0_hi 2147483647)" in guarded and guarded.endswith(':ruleset u0 :name "s/lt")')
    assert rule.text("noovf", "u1") == (
        '(rewrite (Lt "bool" (Add "i32" x (Int 1)) (Add "i32" y (Int 1))) (Lt "bool" x y) '
        ':ruleset u1 :name "s/lt")'
    )


def test_instances_satisfy_the_condition():
    lhs, rhs = instance(X.maximum(C1), C1, Condition("below", ("x", "c1")), G)
    assert (lhs, rhs) == (UOp.range(4, "x").maximum(UOp.const(4)), UOp.const(4))
    lhs, rhs = instance(X * C1, X, None, G)
    assert lhs is X * 3


# -- proofs and derivability ---------------------------------------------------------------------


def test_proofs_record_the_semantics_or_the_reason():
    assert prove_rule(SynthRule("", X + 0, X, None, "wrap"), G).int_semantics == "wrap"
    v = prove_rule(SynthRule("", (X + 1) < (Y + 1), X < Y, None, "wrap"), G)
    assert (v.int_semantics, v.guarded) == ("no_overflow", True)
    g = Grammar(parse_ops("add,lt,floormod"), variables=("x", "y"))
    lhs, rhs = (X % Y + X) < (X % Y + Y), X < Y
    unguardable = prove_rule(SynthRule("", lhs, rhs, None, "wrap"), g)
    assert unguardable.int_semantics is None  # a synthesized no_overflow rule needs a guard
    assert unguardable.reason.endswith("; no_overflow: proved, but no guard is expressible")
    assert unguardable.reason.startswith("wrap: refuted at {")
    wrong = prove_rule(SynthRule("", X.maximum(C1), C1, None, "wrap"), G)
    assert (
        wrong.int_semantics is None
        and "wrap: refuted" in wrong.reason
        and "no_overflow: refuted" in wrong.reason
    )


def test_derivability_by_saturation():
    assert derives(rule_set("default"), X + 0, X)
    assert not derives(with_family(("fold",), "test_empty", ""), X + 0, X)
    assert derives(rule_set("default"), UOp.range(4, "x") // 4, UOp.const(0))


# -- the loop, the log, the CLI ------------------------------------------------------------------

TINY = Grammar(
    parse_ops("add,max,floordiv"), max_size=3, variables=("x",), constant_variables=("c",), constants=(0,)
)


def test_synthesize_a_tiny_family():
    r = synthesize(TINY, base="none", family="tiny", progress=False)
    assert [(x.name, x.comment(TINY.names())) for x in r.rules] == [
        ("tiny/max", "; MAX(x, x) -> x"),
        ("tiny/add", "; x + 0 -> x"),
        ("tiny/max-if-nonneg", "; MAX(x, 0) -> x   if 0 <= x"),
    ]
    assert r.outcomes() == {"kept": 3, "derivable": 2} and r.complete
    reports = [verify_egg_rule(rule) for rule in parse_egg_rules(r.text)]
    assert [x.status for x in reports] == ["proved"] * 6  # each wrap rule under wrap and no_overflow


def test_an_interrupted_run_continues_from_its_log(tmp_path, monkeypatch):
    log = tmp_path / "tiny.egg.log.jsonl"
    first = synthesize(TINY, base="none", family="tiny", log_path=log, time_limit=1e-9, progress=False)
    assert not first.complete and first.rules == []
    full = synthesize(TINY, base="none", family="tiny", log_path=log, progress=False)
    assert [x.name for x in full.rules] == ["tiny/max", "tiny/add", "tiny/max-if-nonneg"]
    # a third run replays every decision from the log: no proof is attempted
    monkeypatch.setattr(synthesize_module, "prove_rule", lambda *a: pytest.fail("proved again"))
    again = synthesize(TINY, base="none", family="tiny", log_path=log, progress=False)
    assert again.text == full.text
    rows = [json.loads(x) for x in log.read_text().splitlines()]
    assert rows[0]["settings"]["base"] == "none" and [r["outcome"] for r in rows[1:]].count("kept") == 3
    with pytest.raises(ValueError, match="written by a synthesis run with other settings"):
        synthesize(TINY, base="none", family="tiny", log_path=log, seed=1, progress=False)


def test_cli_synthesize_writes_a_family_that_loads(tmp_path, capsys):
    out = tmp_path / "tiny_cli.egg"
    args = ["synthesize", "--ops", "add,max,floordiv", "--size", "3", "--vars", "x", "--const-vars", "c"]
    assert main([*args, "--constants", "0", "--base", "none", "--out", str(out)]) == 0
    assert capsys.readouterr().out.startswith(
        f"{out}: 3 rules (3 wrap, 0 no_overflow) from 5 candidates over 10 terms in "
    )
    fam = load_family(out)
    assert [r.name for r in fam.rules] == ["tiny_cli/max", "tiny_cli/add", "tiny_cli/max-if-nonneg"]
    assert (out.parent / "tiny_cli.egg.log").exists()
    with pytest.raises(SystemExit) as exit_:  # refused while the command line is read
        main(["synthesize", "--ops", "add,pow", "--out", str(out)])
    assert exit_.value.code == 2
    assert capsys.readouterr().err == (
        "eqsat-uopc synthesize: error: argument --ops: expected comma-separated ops from "
        + ", ".join(
            ["add", "mul", "max", "lt", "cmplt", "ne", "cmpne", "floordiv", "div", "floormod", "mod", "where"]
        )
        + ", got 'add,pow': 'pow' is unknown (see 'eqsat-uopc synthesize --help')\n"
    )


# -- the bundled family --------------------------------------------------------------------------


def test_the_bundled_family_is_verified_and_only_in_default_plus_synth():
    reports = verify_saturation_rules(["synth_small"], rlimit=1_000_000, instances=6)
    rules = FAMILIES["synth_small"].rules
    # 52 forms; the 38 wrap ones proved under wrap and under no_overflow (over the integers)
    forms = [k for r in rules for k in r.forms()]
    assert len(forms) == 52 and len(rules) == 45 and forms.count("wrap") == 38
    assert len(reports) == 52 + 38
    assert [str(r) for r in reports if r.status != "proved"] == []
    assert "synth_small" not in RULE_SETS["default"].family_names
    assert RULE_SETS["default+synth"].families == (*RULE_SETS["default"].families, FAMILIES["synth_small"])
    p = X.maximum(Y) < X
    assert saturate(p, rules="default+synth").equivalent(p, UOp.const(False))


def test_measure_helpers():
    rows = {r["rule"]: r for r in handwritten_instances(["identities", "divmod", "intervals"])}
    assert rows["identities/add-zero"]["lhs"] is X + 0 and rows["identities/add-zero"]["rhs"] is X
    assert rows["identities/add-neg-zero-f32"]["reason"] == "constructor Flt"
    assert rows["intervals/add"]["reason"] == "sets intervals only (an analysis rule)"
    small = rows["divmod/div-small"]
    assert small["lhs"].src[0].op is Ops.RANGE or small["lhs"].src[0].src[0].op is Ops.RANGE
    table = derivability([rows["identities/add-zero"], rows["intervals/add"]], rule_set("default"))
    assert [r["derived"] for r in table] == [True, None]
    out = corpus_rows([("p", (X + 0) * 1, ...)], {"none": "none", "default": "default"})
    assert [(r["rule_set"], r["dag_size"], r["right"]) for r in out] == [
        ("none", 5, None),
        ("default", 1, None),
    ]


def test_the_log_beside_a_family_is_a_build_product_git_ignores():
    # issue 39: rules/synth_small.egg.log (174 KB) was committed; nothing reads it but a rerun
    from fnmatch import fnmatch

    from eqsat_uopc.synthesis.search import log_path_for

    root = Path(__file__).resolve().parent.parent
    log = log_path_for(root / "rules" / "synth_small.egg")
    assert log == root / "rules" / "synth_small.egg.log"
    ignored = [p for p in (root / ".gitignore").read_text().splitlines() if p and not p.startswith("#")]
    assert any(fnmatch(log.name, pattern) for pattern in ignored)
