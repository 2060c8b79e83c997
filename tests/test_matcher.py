"""PatternMatcher and Rule: names, declared int semantics, the op index, composition, the
compiled-matcher hook."""

from __future__ import annotations

import pytest

from eqsat_uopc.greedy import PatternMatcher, Rule, UPat, evaluate, symbolic
from eqsat_uopc.greedy.matcher import interpreted_matcher, matcher_for
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp

p0, p1 = UOp.param(0), UOp.param(1)


def add_zero(x):
    return x


def test_plain_pairs_become_rules_named_after_the_function_or_position():
    pm = PatternMatcher([(UPat.var("x") + 0, add_zero), (UPat.var("x") * 1, lambda x: x)])
    assert [r.name for r in pm.rules] == ["add_zero", "rule1"]
    assert [r.int_semantics for r in pm.rules] == ["wrap", "wrap"]  # undeclared: the stricter claim
    assert all(isinstance(r, Rule) for r in pm.rules)


def test_rules_keep_their_names_through_composition_and_reordering():
    rev = PatternMatcher(symbolic.rules[1:] + symbolic.rules[:1])
    assert rev.rules[-1].name == "fold" and rev.rules[0].name == "const_to_right"
    assert [r.name for r in (symbolic + evaluate).rules][-6:] == [
        "movement",
        "index_none",
        "index_index",
        "index_stack",
        "push_stack",
        "inline_call",
    ]


def test_bad_rules_are_refused_with_their_position():
    with pytest.raises(
        TypeError, match=r"^rule 0: expected Rule\(pat, fn, name, int_semantics\) or \(pat, fn\)"
    ):
        PatternMatcher([(UPat(),)])
    with pytest.raises(TypeError, match=r"^rule 1 \(add_zero\): pattern must be a UPat, got int$"):
        PatternMatcher([(UPat(), add_zero), (3, add_zero)])
    with pytest.raises(TypeError, match=r"^rule 0 \(add_zero\): function is not callable: 3$"):
        PatternMatcher([Rule(UPat(), 3, "add_zero")])
    with pytest.raises(
        ValueError, match=r"^rule 0 \(r\): int_semantics must be 'wrap' or 'no_overflow', got 'c'$"
    ):
        PatternMatcher([Rule(UPat(), add_zero, "r", "c")])


def test_index_follows_ops_order_and_rule_order():
    a = Rule(UPat((Ops.MUL, Ops.ADD)), add_zero, "a")
    b = Rule(UPat(Ops.ADD), add_zero, "b")
    c = Rule(UPat(), add_zero, "c")
    pm = PatternMatcher([a, b, c])
    assert list(pm.by_op) == list(Ops)  # c matches every op
    assert pm.by_op[Ops.ADD] == [a, b, c]
    assert pm.by_op[Ops.MUL] == [a, c]
    assert pm.by_op[Ops.CONST] == [c]


def test_first_non_none_result_wins_and_last_fired_names_it():
    pm = PatternMatcher(
        [
            Rule(UPat(Ops.ADD, name="u"), lambda u: None, "declines"),
            Rule(UPat(Ops.ADD, src=(UPat.var("x"), UPat.var("y"))), lambda x, y: x, "first"),
            Rule(UPat(Ops.ADD, src=(UPat.var("x"), UPat.var("y"))), lambda x, y: y, "second"),
        ]
    )
    assert pm.rewrite(p0 + p1) is p0
    assert pm.last_fired.name == "first"
    assert pm.rewrite(p0 * p1) is None


def test_every_binding_is_tried_before_the_next_rule():
    pm = PatternMatcher(
        [Rule(UPat(Ops.ADD, src=[UPat.var("x"), UPat.var("y")]), lambda x, y: x if x is p1 else None, "r")]
    )
    assert pm.rewrite(p0 + p1) is p1  # the second order binds x = p1


def test_compiled_matchers_by_default_and_the_interpreter_on_request(monkeypatch):
    pat = UPat.var("x") + UPat.cvar("c")
    compiled = PatternMatcher([Rule(pat, add_zero, "r")], compiled=True)
    interp = PatternMatcher([Rule(pat, add_zero, "r")], compiled=False)
    (_, cm), (_, im) = compiled._candidates[Ops.ADD][0], interp._candidates[Ops.ADD][0]
    assert getattr(cm, "compiled_upat", False) is True
    assert getattr(im, "compiled_upat", False) is False
    assert cm(p0 + 3) == im(p0 + 3) == pat.match(p0 + 3, {})
    assert (compiled + interp).compiled is True and (interp + compiled).compiled is False
    monkeypatch.setenv("UOPC_COMPILED", "0")
    assert PatternMatcher([Rule(pat, add_zero, "r")]).compiled is False
    monkeypatch.setenv("UOPC_COMPILED", "1")
    assert PatternMatcher([Rule(pat, add_zero, "r")]).compiled is True
    monkeypatch.delenv("UOPC_COMPILED")
    assert PatternMatcher([Rule(pat, add_zero, "r")]).compiled is True


def test_interpreted_matcher_is_upat_match():
    pat = UPat(Ops.MUL, src=[UPat.var("x"), UPat.cvar("c")])
    assert interpreted_matcher(pat)(UOp.const(2) * p0) == pat.match(UOp.const(2) * p0, {})
    assert matcher_for(pat, compiled=False)(p0 * 2) == [{"x": p0, "c": UOp.const(2)}]


def test_compiled_and_interpreted_rule_sets_agree_on_the_chapter_program():
    e = (p0 + 2) * 3 + (UOp.const(1) + UOp.const(4))
    comp = PatternMatcher((symbolic + evaluate).rules, compiled=True)
    interp = PatternMatcher((symbolic + evaluate).rules, compiled=False)
    for u in e.toposort():
        assert comp.rewrite(u) is interp.rewrite(u)
