"""Rules as values: one declaration per rule, its forms generated from it; families that compose;
a new family in one file; docs/rules.md generated from the values (and never stale)."""

from __future__ import annotations

import pickle
import re
from pathlib import Path

import pytest
from eqsat_uopc.rules import (
    FAMILIES,
    PYTHON_RULES,
    DeclarationError,
    Rule,
    RuleSet,
    egglog_program,
    load_family,
    parse_family,
    rule_set,
)
from eqsat_uopc.rules import docs as rules_docs

from eqsat_uopc import UOp, dtypes
from eqsat_uopc.saturation import saturate
from eqsat_uopc.verify import verify_saturation_rules

ROOT = Path(__file__).resolve().parent.parent
x = UOp.param(0)
r = UOp.range(10, "r")  # in [0, 9]

# a family of one no_overflow rule, with the guard that lets "wrap" run it
SUCC = """; succ: x + 1 is above x, unless it wraps. A family of one rule, written for the tests.

; x + 1 < x -> false   (x + 1 must not wrap)
(rule ((= e (Lt "bool" (Add "i32" x (Int 1)) x))) ((union e (Bool false)))
      :name "succ/lt-self" :semantics no_overflow
      :guard ((= h (hi x)) (< h 2147483647)))
"""


def test_a_new_family_is_one_file_and_one_line(tmp_path):
    path = tmp_path / "succ.egg"
    path.write_text(SUCC)
    succ = load_family(path)  # the one line: a value, composed into rule sets below
    assert [(rule.name, rule.forms()) for rule in succ.rules] == [("succ/lt-self", ("guarded", "noovf"))]
    rules = rule_set("none") + "intervals" + succ
    assert (rules.name, rules.family_names) == ("none+intervals+succ", ("intervals", "succ"))
    p, bounded = (x + 1) < x, (r + 1) < r
    false = UOp.const(False)
    fired = saturate(p, rules=rules, int_semantics="no_overflow", seed_greedy=False)
    assert fired.equivalent(p, false) and fired.report.matches["succ/lt-self"] == 1
    # under wrap the guarded form runs: it proves nothing for a PARAM (x + 1 wraps at MAX) ...
    assert not saturate(p, rules=rules, seed_greedy=False).equivalent(p, false)
    # ... and fires where the interval analysis bounds x below MAX
    assert saturate(bounded, rules=rules, seed_greedy=False).equivalent(bounded, false)
    # the suite's verifier proves both forms, each under what it is sound under
    reports = verify_saturation_rules([succ])
    assert [(v.rule, v.form, v.int_semantics, v.status) for v in reports] == [
        ("succ/lt-self", "guarded", "wrap", "proved"),
        ("succ/lt-self", "noovf", "no_overflow", "proved"),
    ]
    assert "succ" not in FAMILIES  # nothing registered anywhere
    assert "| `lt-self` | `x + 1 < x -> false   (x + 1 must not wrap)` | no_overflow | guarded | noovf |" in (
        rules_docs.render([succ])
    )


def test_a_guard_that_does_not_prove_the_precondition_is_refuted():
    wrong = parse_family("succ", SUCC.replace("(< h 2147483647)", "(<= h 2147483647)"))
    [guarded, unguarded] = verify_saturation_rules([wrong])
    assert (guarded.form, guarded.status, guarded.counterexample["x"]) == ("guarded", "refuted", 2147483647)
    assert (unguarded.form, unguarded.status) == ("noovf", "proved")


def test_engines_are_keyed_by_family_values_not_names():
    double = parse_family(
        "mine", '; x * 2 -> x + x\n(rewrite (Mul "i32" x (Int 2)) (Add "i32" x x) :name "mine/double")'
    )
    empty = parse_family("mine", "")
    p = x * 2
    assert saturate(p, rules=RuleSet("m", (double,))).equivalent(p, x + x)
    assert not saturate(p, rules=RuleSet("m", (empty,))).equivalent(p, x + x)
    assert RuleSet("m", (double,)) != RuleSet("m", (empty,))


def test_forms_are_generated_from_one_declaration():
    lt_add = FAMILIES["comparisons"].rule("comparisons/lt-add-const")
    assert lt_add.forms() == ("guarded", "noovf")
    query = "(= e (Lt t (Add t2 x (Int a)) (Int b))) (= d (- b a)) (>= d -2147483648) (<= d 2147483647)"
    guard = "(= l (lo x)) (= h (hi x)) (>= (+ l a) -2147483648) (<= (+ h a) 2147483647)"
    tail = '((union e (Lt t x (Int d)))) :ruleset u7 :name "comparisons/lt-add-const")'
    assert lt_add.text("guarded", "u7") == f"(rule ({query} {guard}) {tail}"
    assert lt_add.text("noovf", "u7") == f"(rule ({query}) {tail}"
    add = FAMILIES["fold"].rule("fold/add")
    assert (add.forms(), add.form_for("wrap"), add.form_for("no_overflow")) == (
        ("wraponly", "exact"),
        "wraponly",
        "exact",
    )
    assert add.text("wraponly", "u1") == (
        "(rewrite (Add t (Int a) (Int b)) (Int (- (& (+ (+ a b) 2147483648) 4294967295) 2147483648)) "
        ':subsume :ruleset u1 :name "fold/add")'
    )
    assert add.text("exact", "u1") == (
        "(rule ((= e (Add t (Int a) (Int b))) (= s (+ a b)) (>= s -2147483648) (<= s 2147483647)) "
        '((subsume (Add t (Int a) (Int b))) (union e (Int s))) :ruleset u1 :name "fold/add")'
    )
    # a rewrite with a guard becomes a rule in its guarded form
    factor = FAMILIES["minmax"].rule("minmax/max-add-factor")
    assert factor.text("noovf", "u2").startswith("(rewrite (Max ")
    assert factor.text("guarded", "u2").startswith(
        '(rule ((= e (Max "i32" (Add "i32" a c) (Add "i32" b c))) (= la (lo a))'
    )
    pow2 = FAMILIES["divisibility"].rule("divisibility/add-pow2")
    assert (pow2.forms(), pow2.runs_under("no_overflow"), pow2.covered_by) == (
        ("wrapcase",),
        False,
        "divisibility/add",
    )
    with pytest.raises(KeyError, match=r"divisibility/add-pow2 has no 'guarded' form \(it has: wrapcase\)"):
        pow2.form("guarded", "u0")
    # a claim true of int32 values only: "wrap" runs it as declared, "no_overflow" does not run it
    full = FAMILIES["intervals"].rule("intervals/full-add")
    assert (full.forms(), full.runs_under("wrap"), full.runs_under("no_overflow")) == (
        ("wrapcase",),
        True,
        False,
    )
    assert full.text("wrapcase", "u3") == (
        '(rule ((= e (Add "i32" a b))) ((set (lo e) -2147483648) (set (hi e) 2147483647)) '
        ':ruleset u3 :name "intervals/full-add")'
    )
    view = FAMILIES["digits"].rule("digits/view-mod")
    text, units = egglog_program(rule_set("default"), "no_overflow")
    assert view.text("wrap", "bookkeeping") in text.splitlines()  # maintained: in no unit
    assert "digits/view-mod" not in {name for _, name in units}


def test_python_rules_are_values_named_once():
    assert [(p.name, p.semantics) for p in PYTHON_RULES if p.semantics != "wrap"] == [
        ("linear/piecewise-compare", "no_overflow")
    ]
    assert [p.name for p in FAMILIES["evaluate"].rules] == [
        "evaluate/literal",
        "evaluate/push-stack",
        "evaluate/index-empty",
        "evaluate/index-index",
        "evaluate/index-stack",
        "evaluate/inline-call",
    ]
    # the code that implements them refers to the values: no copy of a name as a string literal
    sources = {p: p.read_text() for p in (ROOT / "eqsat_uopc").rglob("*.py")}
    copies = [(str(p.relative_to(ROOT)), rule.name) for p, s in sources.items() for rule in PYTHON_RULES
              if f'"{rule.name}"' in s]  # fmt: skip
    assert copies == []
    f = UOp.param(1, dtypes.f32)
    s = saturate(UOp.const(1.5) * UOp.const(2.0) + f, rules="evaluate")
    assert s.report.matches["fold/exec-alu"] == 1


def test_rule_sets_compose_and_refuse_what_they_cannot_hold():
    default = rule_set("default")
    assert default.without("linear", "offsets").family_names == tuple(
        n for n in default.family_names if n not in ("linear", "offsets")
    )
    assert (rule_set("ac") + rule_set("evaluate")).family_names == ("comm_assoc", "fold", "evaluate")
    with pytest.raises(ValueError, match=r"^rule set 'default\+fold' has the family fold twice$"):
        default + "fold"
    with pytest.raises(KeyError, match=r"rule set 'default' has no family 'mine'"):
        default.without("mine")
    with pytest.raises(
        TypeError, match=r"^rule set 'x': a family is a Family or a bundled family's name, got 3"
    ):
        RuleSet("x", (3,))
    with pytest.raises(TypeError):
        FAMILIES["mine"] = FAMILIES["fold"]  # a read-only catalogue


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '(rewrite (Add t x (Int 0)) x :name "t/a")',
            "<family t>:1: rule 't/a' needs its `; lhs -> rhs` comment on the line above",
        ),
        (
            '; x\n(rewrite x x :ruleset t :name "t/a")',
            "<family t>:2: rulesets are generated (one per rule): drop :ruleset "
            "(a rule of the bookkeeping ruleset is declared :maintained)",
        ),
        ("(ruleset t)", "<family t>:1: rulesets are generated (one per rule): drop (ruleset t)"),
        ('; x\n(rewrite x x :name "u/a")', "<family t>:2: rule 'u/a' of family 't' must be named 't/...'"),
        ("; x\n(rewrite x x)", '<family t>:2: this rewrite has no name: add :name "t/..."'),
        ("; x\n(rewrite x x :name t/a)", '<family t>:2: :name must be a string, as in :name "family/rule"'),
        (
            '; x\n(rewrite x x :name "t/a" :when ((= x 1)))',
            "<family t>:2: unknown option :when (known: :name, :semantics, :guard, :exact, :covered-by, "
            ":subsume, :maintained, :wrap-only)",
        ),
        (
            '; x\n(rewrite x x :name "t/a" :semantics modular)',
            "<family t>:2: t/a: :semantics must be wrap or no_overflow, got 'modular'",
        ),
        (
            '; x\n(rewrite x x :name "t/a" :guard ((= h (hi x))))',
            "<family t>:2: t/a: a :guard proves a no_overflow rule's precondition (declare it so)",
        ),
        (
            '; x\n(rewrite (Add t x (Int a)) (Int s) :name "t/a" :exact ((<= a 1)))',
            "<family t>:2: t/a: :exact must bind the new constant, as in (= s (+ a b))",
        ),
        (
            '; x\n(rewrite x x :name "t/a" :covered-by "t/b")',
            "<family t>:2: t/a is :covered-by 't/b', which must be a no_overflow rule of family 't'",
        ),
        (
            '; x\n(rewrite x x :name "t/a" :semantics no_overflow :wrap-only)',
            "<family t>:2: t/a: :wrap-only is for a wrap rule",
        ),
        (
            '; x\n(rewrite x x :name "t/a" :wrap-only :covered-by "t/b")',
            "<family t>:2: t/a: :covered-by and :wrap-only do not go together",
        ),
        (
            '; x\n(rewrite x x :name "t/a")\n; y\n(rewrite y y :name "t/a")',
            "<family t>:4: rule 't/a' is declared twice (first at <family t>:2): give each rule a name of "
            "its own",
        ),
        ('; x\n(rewrite x x :name "t/a"', "<family t>:2:1: this form is not closed (a ')' is missing)"),
    ],
)
def test_bad_declarations_say_where_and_what(text, message):
    with pytest.raises(DeclarationError) as info:
        parse_family("t", text)
    assert str(info.value) == message


def test_comments_docs_and_declarations_are_read():
    fam = parse_family(
        "t",
        "; t: a family.\n; Its doc.\n\n;; -- a section\n; x + 0 -> x\n; (two lines)\n"
        '(rewrite (Add t x (Int 0)) x :name "t/a") ; a note, no comment of t/b\n'
        "(relation R (Op))\n"
        '; y -> y\n(rewrite y y :name "t/b")\n',
    )
    assert (fam.doc, [(r.name, r.comment) for r in fam.rules]) == (
        "t: a family. Its doc.",
        [("t/a", "x + 0 -> x (two lines)"), ("t/b", "y -> y")],
    )
    assert fam.declarations == ("(relation R (Op))",)
    assert fam.rules[0] == Rule(
        "t/a", "x + 0 -> x (two lines)", kind="rewrite", lhs=["Add", "t", "x", ["Int", 0]], rhs="x",
        where="<family t>:7",
    )  # fmt: skip


def test_docs_are_generated_from_the_rule_values():
    committed = (ROOT / "docs" / "rules.md").read_text()
    assert committed == rules_docs.render(), f"docs/rules.md is stale: run `{rules_docs.COMMAND}`"
    assert committed.count("\n| `") == sum(len(f.rules) for f in FAMILIES.values()) + 7  # + the rule sets


@pytest.mark.parametrize("index", range(3))
def test_the_declaration_guide_examples_run(index):
    guide = ROOT / "docs" / "rule-declarations.md"
    blocks = re.findall(r"```python\n(.*?)```", guide.read_text(), flags=re.S)
    assert len(blocks) == 3
    exec(compile(blocks[index], f"docs/rule-declarations.md python block {index}", "exec"), {})


def test_families_pickle_without_their_cached_hash():
    """A sweep sends rule sets to worker processes, where strings hash differently."""
    fold = FAMILIES["fold"]
    hash(fold)
    copy = pickle.loads(pickle.dumps(rule_set("default")))
    assert copy == rule_set("default") and "_hash" not in copy.family("fold").__dict__
