"""Rule families of your own from the command line: `--rules default+my_rules.egg`, checked against
the engine's schema when loaded (file, line, column), proved when loaded (refuted rules refused,
unverifiable ones said), carried by sweeps and recorded in their settings by content."""

from __future__ import annotations

import json
from pathlib import Path

import egglog.bindings
import pytest
from eqsat_uopc.rules import (
    FAMILIES,
    PRIMITIVES,
    DeclarationError,
    RuleSet,
    check_rule,
    parse_family,
    read_rules,
    rule_set,
    split_rules_spec,
)

from eqsat_uopc import UOp, optimize
from eqsat_uopc.cli import main
from eqsat_uopc.saturation import ENGINE_SCHEMA, SaturationConfig, SaturationError, load_rules, saturate
from eqsat_uopc.saturation.terms import SCHEMA
from eqsat_uopc.user_cache import user_cache_dir
from eqsat_uopc.verify import (
    UnsoundRuleError,
    family_verdicts,
    load_verified_rules,
    rule_verdicts,
    verify_saturation_rules,
)

x = UOp.param(0)
HEAD = "; mine: rules of my own, for the tests.\n\n"
DOUBLE = '; x * 2 -> x + x\n(rewrite (Mul t x (Int 2)) (Add t x x) :name "mine/double")\n'
# sound (where x is 0 the left-hand side is undefined), over the type variable t: FLOORDIV is i32 only
DIV_SELF = '; x // x -> 1\n(rewrite (Div t x x) (Int 1) :name "mine/div-self")\n'
SIN = (
    "; sin(sin(x)) -> sin(x)   (the verifier encodes no SIN)\n"
    '(rewrite (Sin t (Sin t x)) (Sin t x) :name "mine/sin")\n'
)
MUL_DIV = (
    "; (x * 2) // 2 -> x   (x * 2 wraps)\n"
    '(rewrite (Div t (Mul t x (Int 2)) (Int 2)) x :name "mine/mul-div")\n'
)


def family_file(tmp_path: Path, *rules: str, name: str = "mine") -> Path:
    path = tmp_path / f"{name}.egg"
    path.write_text(HEAD + "".join(rules))
    return path


def program_file(tmp_path: Path, text: str = "%0 = param : slot=0 dtype=i32\n%1 = mul %0, 2\n") -> Path:
    path = tmp_path / "x.uir"
    path.write_text(text)
    return path


# ---------------------------------------------------------------------------
# the spec


@pytest.mark.parametrize(
    ("spec", "parts"),
    [
        ("default", (("rule set", "default"),)),
        ("default+synth", (("rule set", "default+synth"),)),  # a registered name is read whole
        ("default+mine.egg", (("rule set", "default"), ("file", "mine.egg"))),
        (
            "symbolic+boolean+evaluate",
            (("rule set", "symbolic"), ("family", "boolean"), ("rule set", "evaluate")),
        ),
        ("a++b.egg", (("file", "a+b.egg"),)),  # '++' is a '+' of a file name
        ("default++x.egg", (("file", "default+x.egg"),)),
        ("dir/x.egg+y.egg", (("file", "dir/x.egg"), ("file", "y.egg"))),
    ],
)
def test_a_spec_is_names_and_files_joined_by_plus(spec, parts):
    assert split_rules_spec(spec) == parts


UNKNOWN = (
    " (known: none, symbolic, evaluate, run, ac, default, default+synth; or a bundled family, identities, "
    "fold, reassociation, distribution, divmod, recombination, comparisons, intervals, comm_assoc, boolean, "
    "minmax, linear, divisibility, digits, offsets, synth_small, evaluate; or a .egg file; joined by '+', "
    "with '++' for a '+' in a file name)"
)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (
            "default+",
            "'default+' has an empty part: a rule set (NAME), a bundled family (NAME), a .egg family file "
            "(PATH), or a composition of them joined by '+' (default+my_rules.egg); a '+' inside a file name "
            "is written '++'",
        ),
        ("a+b.egg", f"unknown rule set 'a'{UNKNOWN}"),  # a file a+b.egg is written a++b.egg
        ("defalt", f"unknown rule set 'defalt'{UNKNOWN}"),
    ],
)
def test_a_spec_naming_nothing_known_is_refused(spec, message):
    with pytest.raises(ValueError) as info:
        split_rules_spec(spec)
    assert str(info.value) == message


def test_a_composition_is_a_union_of_families():
    assert load_rules("symbolic+evaluate") == RuleSet(
        "symbolic+evaluate", (*rule_set("symbolic").family_names, "evaluate")
    )  # fold once
    assert load_rules("default") is rule_set("default")


# ---------------------------------------------------------------------------
# mistakes said when the file is loaded, at file:line:column


BAD = [
    (
        '; x * 2 -> x + x\n(rewrite (Mul t x (Int 2)) (Addd t x x) :name "mine/double")\n',
        "mine.egg:4:29: mine/double: unknown constructor Addd (did you mean Add?)",
    ),
    (
        '; x + 0 -> x\n(rewrite (Add t x) x :name "mine/add-zero")\n',
        "mine.egg:4:11: mine/add-zero: Add takes 3 argument(s) (String Op Op), got 2: (Add t x)",
    ),
    (
        '; c -> c mod 2\n(rule ((= e (Int a)) (= b (mod a 2))) ((union e (Int b))) :name "mine/mod")\n',
        "mine.egg:4:28: mine/mod: unknown primitive mod (did you mean %?)",
    ),
    (
        '; x + 0 -> x * y\n(rewrite (Add t x (Int 0)) (Mul t x y) :name "mine/free")\n',
        "mine.egg:4:37: mine/free: the variable y is not bound by the left-hand side",
    ),
    (
        '; c -> c\n(rule ((= e (Int a)) (> c 0)) ((union e (Int a))) :name "mine/ground")\n',
        "mine.egg:4:22: mine/ground: the variable c is not bound by the query: a query variable must be an "
        "argument of a term, a function or a relation, or (= v EXPR) of bound variables",
    ),
    (
        '; c\n(rule ((= e (Int a)) (= l (lo e))) ((set (Int a) l)) :name "mine/set")\n',
        "mine.egg:4:42: mine/set: Int is a constructor: only a function's value is set "
        "(a term is merged with union)",
    ),
    (
        '; x -> x + 0\n(rewrite x (Add "i32" x (Int 0)) :name "mine/grow")\n',
        "mine.egg:4:10: mine/grow: the left-hand side of a rewrite must be a term, not a variable (x): "
        "egglog matches terms",
    ),
    (
        '; e\n(rule ((= e (Int a))) ((union a e)) :name "mine/union")\n',
        "mine.egg:4:31: mine/union: union merges terms; a is an i64",
    ),
]
# well sorted for egglog (it would run them), but no term of the IR matches them
ILL_TYPED = [
    (
        '; x + 1 < x -> false\n(rewrite (Lt t (Add t x (Int 1)) x) (Bool false) :name "mine/lt-succ")\n',
        "mine.egg:4:14: mine/lt-succ: the type variable t is both a bool (a comparison, Lt, is a bool, "
        "at 4:14) and an i32 ((Int ...) is an i32, at 4:26): a type variable stands for one type string; "
        "give the other type a variable of its own, or write the type string",
    ),
    (
        '; x + 1 -> where(x, x, x)\n(rewrite (Add t x (Int 1)) (Where t x x x) :name "mine/odd")\n',
        "mine.egg:4:37: mine/odd: the variable x is both a bool (the condition of Where is a bool, at 4:37) "
        "and an i32 ((Int ...) is an i32, at 4:20)",
    ),
    (
        '; x + 1 -> x\n(rewrite (Add "i33" x (Int 1)) x :name "mine/i33")\n',
        'mine.egg:4:15: mine/i33: "i33" is no type string (a dtype, i32, bool, f32, shaped as "f32[2,3]")',
    ),
]
ADD_ZERO = '; x + 0 -> x\n(rewrite (Add t x (Int 0)) x :name "mine/add-zero"'
MALFORMED = [
    (ADD_ZERO + "\n", "mine.egg:4:1: this form is not closed (a ')' is missing)"),
    (ADD_ZERO + "))\n", "mine.egg:4:52: unbalanced ')': no '(' opens it"),
    (ADD_ZERO.removesuffix('"') + ")\n", "mine.egg:4:36: this string is not closed (a '\"' is missing)"),
    ("rewrite\n", "mine.egg:3:1: 'rewrite' outside any form"),
    (
        "; x + 0 -> x\n(rewrite (Add t x (Int 0)) x)\n",
        'mine.egg:4: this rewrite has no name: add :name "mine/..."',
    ),
    (
        '; x + 0 -> x\n(rewrite (Add t x (Int 0)) x :name "mine/a")\n'
        '; 0 + x -> x\n(rewrite (Add t (Int 0) x) x :name "mine/a")\n',
        "mine.egg:6: rule 'mine/a' is declared twice (first at mine.egg:4): give each rule a name of its own",
    ),
    (
        "; x\n(relation Mult (Op i64))\n",
        "mine.egg:4: Mult is already declared (relation): choose another name",
    ),
]


@pytest.mark.parametrize(("text", "message"), BAD + ILL_TYPED + MALFORMED)
def test_a_mistake_in_a_family_file_is_said_where_it_is(tmp_path, monkeypatch, text, message):
    monkeypatch.chdir(tmp_path)
    family_file(tmp_path, text)
    with pytest.raises(DeclarationError) as info:
        load_rules("default+mine.egg")
    assert str(info.value) == message


def test_a_rule_named_like_a_bundled_one_is_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    family_file(
        tmp_path, '; x\n(rewrite (Div t (Div t x (Int a)) (Int b)) x :name "divmod/div-div")\n', name="divmod"
    )
    with pytest.raises(DeclarationError) as info:
        load_rules("default+divmod.egg")
    line = FAMILIES["divmod"].rule("divmod/div-div").where
    assert str(info.value) == (
        f"divmod.egg:4: rule 'divmod/div-div' is declared by the bundled family divmod too ({line}): "
        "a family of your own needs a name of its own (a file's family is named after the file)"
    )
    with pytest.raises(SaturationError, match=r"^nope\.egg: no such file$"):
        load_rules("default+nope.egg")


@pytest.mark.parametrize(("text", "message"), BAD)
def test_egglog_refuses_what_the_check_refuses(text, message):
    """The check says what egglog would say, earlier and with the place: the same rules fail in egglog."""
    [rule] = read_rules(text)
    assert not _egglog_parses(rule.text(rule.forms()[0], "u"))


@pytest.mark.parametrize(("text", "message"), ILL_TYPED)
def test_egglog_runs_an_ill_typed_rule_that_can_never_match(text, message):
    [rule] = read_rules(text)
    assert _egglog_parses(rule.text(rule.forms()[0], "u"))


def _egglog_parses(rule_text: str) -> bool:
    egraph = egglog.bindings.EGraph()
    try:
        egraph.run_program(*egraph.parse_program(f"{SCHEMA}\n(ruleset u)\n{rule_text}"))
    except egglog.bindings.EggSmolError:
        return False
    return True


def test_every_bundled_rule_passes_the_check_and_every_primitive_is_egglogs():
    declared = ENGINE_SCHEMA
    from eqsat_uopc.rules import read_sexprs

    declared = declared.extended(
        (read_sexprs(d)[0], f.source) for f in FAMILIES.values() for d in f.declarations
    )
    for family in FAMILIES.values():
        for rule in family.egg_rules:
            check_rule(rule, declared)
    value = {"i64": "a", "f64": "(to-f64 a)", "String": '"s"', "bool": "true"}
    for name, signatures in PRIMITIVES.items():
        for p in signatures:
            args = " ".join(value[s] for s in (p.args * 2 if p.variadic else p.args))
            call = f"({name} {args})"
            atom = call if p.result == "Unit" else f"(= r {call})"
            assert _egglog_parses(f"(rule ((= e (Int a)) {atom}) ((union e (Int a))) :ruleset u)"), (name, p)


def test_a_family_made_in_python_is_checked_before_egglog_sees_it():
    bad = parse_family(
        "mine", '; x * 2 -> x + x\n(rewrite (Mul t x (Int 2)) (Addd t x x) :name "mine/double")'
    )
    with pytest.raises(DeclarationError) as info:
        saturate(x * 2, rules=rule_set("symbolic") + bad)
    assert str(info.value) == "<family mine>:2: mine/double: unknown constructor Addd (did you mean Add?)"


# ---------------------------------------------------------------------------
# proved where loaded


def test_each_rule_has_a_verdict_and_floordiv_over_a_type_variable_is_proved(tmp_path):
    family = parse_family("mine", HEAD + DOUBLE + DIV_SELF + SIN + MUL_DIV, "mine.egg")
    assert [str(v) for v in rule_verdicts(family, cache=False)] == [
        "mine.egg:4: mine/double: proved under wrap and no_overflow",
        "mine.egg:6: mine/div-self: proved under wrap and no_overflow",
        "mine.egg:8: mine/sin: unverifiable under wrap and no_overflow: constructor Sin on the left-hand "
        "side",
        "mine.egg:10: mine/mul-div: refuted under wrap (wrap form), at x = -2147483648",
    ]
    # FLOORDIV over t is i32 only: the bool typing is no question (it was "FLOORDIV on bool is not encoded")
    div_self = [v.status for v in verify_saturation_rules([family]) if v.rule == "mine/div-self"]
    assert div_self == ["proved", "proved"]


def test_verdicts_are_kept_per_rule_form_in_the_user_cache(tmp_path, monkeypatch):
    family = parse_family("mine", HEAD + DOUBLE + DIV_SELF)
    first = rule_verdicts(family)

    def no_prover(*args, **kwargs):
        raise AssertionError("proved again")

    monkeypatch.setattr(family_verdicts, "verify_egg_rule", no_prover)
    assert rule_verdicts(family) == first  # from the cache: nothing proved again
    edited = parse_family("mine", HEAD + DOUBLE.replace("(Int 2)", "(Int 3)"))
    with pytest.raises(AssertionError, match="proved again"):
        rule_verdicts(edited)  # another rule text: proved anew
    assert len(list((user_cache_dir() / "rule_verdicts").glob("*.json"))) >= 4


def test_a_refuted_rule_is_refused_unless_allowed(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    family_file(tmp_path, DOUBLE, MUL_DIV)
    with pytest.raises(UnsoundRuleError) as info:
        load_verified_rules("default+mine.egg")
    assert str(info.value) == (
        "mine.egg:6: mine/mul-div is refuted under wrap (wrap form), at x = -2147483648: a refuted rule "
        "makes saturation unsound; fix it, declare it :semantics no_overflow with a :guard if it needs one, "
        "or load it anyway with allow_unsound (--allow-unsound)"
    )
    loaded = load_verified_rules("default+mine.egg", allow_unsound=True)
    assert loaded.warnings() == (
        "mine.egg:6: mine/mul-div is refuted under wrap (wrap form), at x = -2147483648; loaded anyway "
        "(allow_unsound)",
    )


def test_the_api_takes_a_spec_with_a_file(tmp_path):
    path = family_file(tmp_path, DOUBLE)
    best = optimize(x * 2, rules=f"default+{path}")
    assert best.program is x + x and best.report.matches["mine/double"] == 1
    config = SaturationConfig(rules=f"default+{path}")
    assert isinstance(config.rules, RuleSet) and config.rules.family_names[-1] == "mine"
    digest = config.rules.digest[:16]
    assert config.to_dict()["rules"] == f"default+mine (sha256 {digest})"
    path.write_text(HEAD + "; a comment changes nothing\n" + DOUBLE)
    assert SaturationConfig(rules=f"default+{path}").to_dict()["rules"] == f"default+mine (sha256 {digest})"
    path.write_text(HEAD + DOUBLE.replace("(Add t x x)", "(Add t x x) :subsume"))
    assert SaturationConfig(rules=f"default+{path}").to_dict()["rules"] != f"default+mine (sha256 {digest})"


# ---------------------------------------------------------------------------
# the command line


def test_optimize_with_a_family_file_fires_its_rule(tmp_path, capsys):
    rules = family_file(tmp_path, DOUBLE, DIV_SELF)
    assert main(["optimize", str(program_file(tmp_path)), "--rules", f"default+{rules}", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["program"] == "%0 = param : slot=0 dtype=i32\n%1 = add %0, %0\n"
    assert out["report"]["matches"]["mine/double"] == 1
    assert out["config"]["rules"].startswith("default+mine (sha256 ")


def test_a_mistake_in_a_rules_file_is_one_line_status_1(tmp_path, capsys):
    rules = family_file(tmp_path, BAD[0][0])
    assert main(["optimize", str(program_file(tmp_path)), "--rules", f"default+{rules}"]) == 1
    assert capsys.readouterr().err == f"eqsat-uopc: error: {tmp_path}/{BAD[0][1]}\n"
    assert main(["optimize", str(program_file(tmp_path)), "--rules", "default+nope.egg"]) == 1
    assert capsys.readouterr().err == "eqsat-uopc: error: nope.egg: no such file (named by --rules)\n"
    with pytest.raises(SystemExit) as exit_:  # a name unknown: a usage error, before any work
        main(["optimize", str(program_file(tmp_path)), "--rules", "defalt+nope.egg"])
    assert exit_.value.code == 2
    assert capsys.readouterr().err == (
        f"eqsat-uopc optimize: error: argument --rules: unknown rule set 'defalt'{UNKNOWN} "
        "(see 'eqsat-uopc optimize --help')\n"
    )


def test_a_refuted_rule_is_refused_and_an_unverifiable_one_said(tmp_path, capsys):
    uir = str(program_file(tmp_path))
    rules = family_file(tmp_path, DOUBLE, SIN, MUL_DIV)
    assert main(["optimize", uir, "--rules", f"default+{rules}"]) == 1
    assert capsys.readouterr().err == (
        f"eqsat-uopc: error: {rules}:8: mine/mul-div is refuted under wrap (wrap form), at x = -2147483648: "
        "a refuted rule makes saturation unsound; fix it, declare it :semantics no_overflow with a :guard if "
        "it needs one, or load it anyway with allow_unsound (--allow-unsound)\n"
    )
    assert main(["optimize", uir, "--rules", f"default+{rules}", "--allow-unsound"]) == 0
    warning = f"eqsat-uopc: warning: {rules}"
    sin = f"{warning}:6: mine/sin is not verified under wrap and no_overflow: constructor Sin on the left"
    sin += "-hand side"
    refuted = f"{warning}:8: mine/mul-div is refuted under wrap (wrap form), at x = -2147483648"
    assert capsys.readouterr().err == f"{sin}\n{refuted}; loaded anyway (allow_unsound)\n"
    assert main(["optimize", uir, "--rules", f"default+{rules}", "--allow-unsound", "--quiet-rules"]) == 0
    assert capsys.readouterr().err == f"{refuted}; loaded anyway (allow_unsound)\n"


def test_verify_rules_prints_each_rules_verdict(tmp_path, capsys):
    rules = family_file(tmp_path, DOUBLE, DIV_SELF, SIN, MUL_DIV)
    assert main(["verify-rules", str(rules)]) == 1
    assert capsys.readouterr().out == (
        f"{rules}:4: mine/double: proved under wrap and no_overflow\n"
        f"{rules}:6: mine/div-self: proved under wrap and no_overflow\n"
        f"{rules}:8: mine/sin: unverifiable under wrap and no_overflow: constructor Sin on the left-hand "
        "side\n"
        f"{rules}:10: mine/mul-div: refuted under wrap (wrap form), at x = -2147483648\n"
        f"{rules}: 4 rule(s): 2 proved, 1 refuted, 1 unverifiable\n"
    )
    good = family_file(tmp_path, DOUBLE, name="good")
    good.write_text(good.read_text().replace("mine/", "good/"))
    assert main(["verify-rules", str(good), "--json"]) == 0
    [row] = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert (row["rule"], row["status"], [f["int_semantics"] for f in row["forms"]]) == (
        "good/double",
        "proved",
        ["wrap", "no_overflow"],
    )


def test_a_sweep_carries_the_file_and_refuses_to_resume_it_changed(tmp_path, capsys):
    programs = tmp_path / "programs"
    programs.mkdir()
    (programs / "a.uir").write_text("%0 = param : slot=0 dtype=i32\n%1 = mul %0, 2\n")
    (programs / "b.uir").write_text("%0 = param : slot=0 dtype=i32\n%1 = mul %0, 2\n%2 = add %1, 1\n")
    rules = family_file(tmp_path, DOUBLE)
    out = tmp_path / "rows.jsonl"
    sweep = ["compare", str(programs), "--rules", f"default+{rules}", "--out", str(out), "--no-verify"]
    sweep.append("--json")
    assert main([*sweep, "--workers", "2"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()[:-1]]
    # the workers saturated with the file's rule: x * 2 became x + x (2 nodes) in both programs
    sizes = sorted((Path(r["key"]).name, r["saturated_dag_size"]) for r in rows)
    assert sizes == [("a.uir", 2), ("b.uir", 4)]
    settings = json.loads(out.read_text().splitlines()[0])["settings"]["config"]["rules"]
    assert settings == SaturationConfig(rules=f"default+{rules}").to_dict()["rules"]
    assert main(sweep) == 0  # the same file: resumed
    capsys.readouterr()
    rules.write_text(rules.read_text().replace("(Add t x x)", "(Add t x x) :subsume"))
    now = SaturationConfig(rules=f"default+{rules}").to_dict()["rules"]
    assert main(sweep) == 2
    assert capsys.readouterr().err == (
        f"eqsat-uopc compare: error: argument --out: {out} holds rows computed under other settings "
        f'(config.rules: "{settings}" in the file, "{now}" now); rerun with those settings, give another '
        "--out, or --if-settings-differ separate (see 'eqsat-uopc compare --help')\n"
    )


GOOD = [
    '(rewrite (Div t x x) (Int 1) :name "mine/a")',  # t: i32, as FLOORDIV needs
    '(rule ((= e (Add "i32" x y)) (= f (Lt "bool" x y)) (!= e f)) ((union e x)) :name "mine/b")',
    '(rule ((= e (Cast t x)) (= (ty x) t)) ((union e x)) :name "mine/c")',
    '(rule ((= e (Add "f32[2,3]" x y))) ((let z (Add "f32[2,3]" y x)) (union e z)) :name "mine/d")',
    '(rule ((= e (Mul "i32" x (Int c))) (> c 0) (= l (lo x))) ((set (lo e) (* l c)) (AskMult e c))'
    ' :name "mine/e")',
    '(birewrite (Max t x y) (Max t y x) :name "mine/f")',
    '(rule ((= e (Lt "bool" (Int a) (Int b))) (< a b))'
    ' ((subsume (Lt "bool" (Int a) (Int b))) (union e (Bool true))) :name "mine/g")',
]  # fmt: skip


@pytest.mark.parametrize("text", GOOD)
def test_a_well_formed_rule_passes_the_check_and_egglog(text):
    [rule] = read_rules(text)
    check_rule(rule, ENGINE_SCHEMA)
    assert all(_egglog_parses(rule.text(kind, "u")) for kind in rule.forms())
