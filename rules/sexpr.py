"""egglog text as data: tokens, S-expressions read into nested lists, and printed back.

Every reader of rule text uses these: the declaration reader (declaration.py), the relevance
analysis of the engine (saturation/relevance.py) and the rule verifier (verify/egg_text.py).
Printing is the inverse of reading up to white space and comments, so a rule read from a family
file and printed again is the text egglog would have parsed from the file.

    >>> tree = read_sexprs('(rewrite (Add t x (Int 0)) x :name "identities/add-zero") ; x + 0 -> x')
    >>> show(tree[0])
    '(rewrite (Add t x (Int 0)) x :name "identities/add-zero")'
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["EGG_TOKEN", "Spans", "Str", "freeze", "read_sexprs", "show", "thaw"]

# egglog's tokens: white space, a `;` comment, a string (escapes included), a parenthesis, an atom
EGG_TOKEN = re.compile(r'\s+|;[^\n]*|"(?:[^"\\]|\\.)*"|[()]|[^\s()";]+')
_INT = re.compile(r"-?\d+")
# where the lists of a text were read (read_sexprs): id(list) -> (offset of its '(', its elements' offsets)
Spans = dict[int, tuple[int, tuple[int, ...]]]


class Str(str):
    """A string literal of an egglog text (a type string), as opposed to a symbol."""


def read_sexprs(text: str, spans: Spans | None = None, offset: int = 0) -> list[Any]:
    """The top-level S-expressions of an egglog text as nested lists: symbols as str, string
    literals as Str, integers as int (comments dropped). Raises ValueError when unbalanced.

    With `spans`, where each list was read: spans[id(lst)] = (offset of its '(', offsets of its
    elements), counted from `offset` (the text's own offset in a larger text), for error messages
    that give a line and a column (a list is keyed by its id: keep the tree alive while reading them).
    """
    stack: list[list[Any]] = [[]]
    starts: list[tuple[int, list[int]]] = [(offset, [])]
    for m in EGG_TOKEN.finditer(text):
        tok = m.group(0)
        if tok[0].isspace() or tok[0] == ";":
            continue
        starts[-1][1].append(offset + m.start())
        if tok == "(":
            stack.append([])
            starts.append((offset + m.start(), []))
        elif tok == ")":
            starts[-1][1].pop()  # the ')' is no element
            if len(stack) == 1:
                raise ValueError(f"unbalanced ')' at offset {m.start()}")
            done = stack.pop()
            start, elements = starts.pop()
            if spans is not None:
                spans[id(done)] = (start, tuple(elements))
            stack[-1].append(done)
        elif tok[0] == '"':
            stack[-1].append(Str(tok[1:-1]))
        elif _INT.fullmatch(tok):
            stack[-1].append(int(tok))
        else:
            stack[-1].append(tok)
    if len(stack) != 1:
        raise ValueError("unbalanced '(' at the end of the text")
    return stack[0]


def show(x: Any) -> str:
    """egglog text of an S-expression (nested lists or tuples), on one line."""
    if isinstance(x, list | tuple):
        return "(" + " ".join(show(e) for e in x) + ")"
    return f'"{x}"' if isinstance(x, Str) else str(x)


def freeze(x: Any) -> Any:
    """An S-expression with every list made a tuple: immutable and hashable, for rule values."""
    return tuple(freeze(e) for e in x) if isinstance(x, list | tuple) else x


def thaw(x: Any) -> Any:
    """The inverse of freeze: every tuple a list, as read_sexprs gives them."""
    return [thaw(e) for e in x] if isinstance(x, list | tuple) else x
