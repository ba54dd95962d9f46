"""The language of derived metrics: its tokens, its grammar and the tree a text parses to, never `eval`.

    expression  := comparison
    comparison  := additive (("<" | "<=" | ">" | ">=" | "==" | "!=") additive)*
    additive    := term (("+" | "-") term)*
    term        := unary (("*" | "/") unary)*
    unary       := ("-" | "+") unary | power
    power       := primary ("**" unary)?            (right-associative: 2 ** -1, -x ** 2 is -(x ** 2))
    primary     := NUMBER | CONSTANT | NAME | `QUOTED` | "(" expression ")"
                 | FUNCTION "(" expression ("," expression)* ")"

A NAME is a tag: letters, digits and `_`, with `/` or `.` between them (`train/loss`, `layer.0/grad`), so `a/b` is
one tag and division needs a space before or after the slash (`a / b`). Any other tag goes in backticks
(`` `val-loss` ``; a backtick inside is doubled). The constants `pi`, `inf` and `nan` are reserved: a tag of one of
those names goes in backticks too. Texts beyond MAX_LENGTH characters, trees beyond MAX_NODES nodes and nestings
beyond MAX_DEPTH are refused while they are read, so a hostile text costs microseconds per character at most.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from trainboard.errors import ExpressionError

MAX_LENGTH = 2_000
MAX_NODES = 500
MAX_DEPTH = 40

CONSTANTS = {"pi": math.pi, "inf": math.inf, "nan": math.nan}
# Each function with its count of arguments; the ones in LITERAL_ARGUMENTS take a number literal there.
FUNCTIONS = {
    "log": 1,
    "log10": 1,
    "exp": 1,
    "sqrt": 1,
    "abs": 1,
    "clip": 3,
    "min": 2,
    "max": 2,
    "ema": 2,
    "diff": 1,
    "cumsum": 1,
    "cummax": 1,
    "cummin": 1,
    "rolling_mean": 2,
    "where": 3,
    "asof": 1,
}
LITERAL_ARGUMENTS = {"ema": 1, "rolling_mean": 1}
COMPARISONS = ("<", "<=", ">", ">=", "==", "!=")

_TOKEN = re.compile(
    r"""(?P<space>\s+)
    |(?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)
    |(?P<name>[A-Za-z_][A-Za-z0-9_]*(?:[./][A-Za-z0-9_]+)*)
    |(?P<quoted>`(?:[^`]|``)*`)
    |(?P<operator>\*\*|<=|>=|==|!=|[-+*/<>(),])""",
    re.VERBOSE,
)


@dataclass(frozen=True, slots=True)
class Number:
    value: float
    position: int


@dataclass(frozen=True, slots=True)
class Name:
    """A tag (or another derived metric) by name."""

    tag: str
    position: int


@dataclass(frozen=True, slots=True)
class Call:
    function: str
    arguments: tuple[Node, ...]
    position: int


@dataclass(frozen=True, slots=True)
class Unary:
    operator: str
    operand: Node
    position: int


@dataclass(frozen=True, slots=True)
class Binary:
    operator: str
    left: Node
    right: Node
    position: int


Node = Number | Name | Call | Unary | Binary


@dataclass(frozen=True, slots=True)
class _Token:
    kind: str  # number, name, quoted, operator, end
    text: str
    position: int


def parse(text: str) -> Node:
    """The tree of an expression; an `ExpressionError` naming the position of the first fault."""
    if len(text) > MAX_LENGTH:
        raise ExpressionError(f"the expression is longer than {MAX_LENGTH:,} characters", MAX_LENGTH)
    parser = _Parser(_tokens(text))
    tree = parser.expression()
    parser.expect_end()
    return tree


def names(tree: Node) -> list[Name]:
    """The names the tree refers to, in the order they appear."""
    if isinstance(tree, Name):
        return [tree]
    if isinstance(tree, Call):
        return [name for argument in tree.arguments for name in names(argument)]
    if isinstance(tree, Unary):
        return names(tree.operand)
    if isinstance(tree, Binary):
        return names(tree.left) + names(tree.right)
    return []


def _tokens(text: str) -> list[_Token]:
    tokens = []
    position = 0
    while position < len(text):
        found = _TOKEN.match(text, position)
        if found is None:
            raise ExpressionError(f"unexpected character {text[position]!r}", position)
        kind = found.lastgroup or ""
        if kind != "space":
            tokens.append(_Token(kind, found.group(), position))
        position = found.end()
    tokens.append(_Token("end", "", len(text)))
    return tokens


class _Parser:
    """Recursive descent over the tokens, counting nodes and depth as it goes."""

    def __init__(self, tokens: list[_Token]) -> None:
        self._tokens = tokens
        self._at = 0
        self._nodes = 0
        self._depth = 0

    def expression(self) -> Node:
        self._depth += 1
        if self._depth > MAX_DEPTH:
            raise ExpressionError(f"the expression nests deeper than {MAX_DEPTH} levels", self._peek().position)
        tree = self._comparison()
        self._depth -= 1
        return tree

    def expect_end(self) -> None:
        token = self._peek()
        if token.kind != "end":
            raise ExpressionError(f"unexpected {token.text!r}", token.position)

    def _comparison(self) -> Node:
        tree = self._additive()
        while self._peek().text in COMPARISONS and self._peek().kind == "operator":
            token = self._next()
            tree = self._node(Binary(token.text, tree, self._additive(), token.position))
        return tree

    def _additive(self) -> Node:
        tree = self._term()
        while self._peek().kind == "operator" and self._peek().text in ("+", "-"):
            token = self._next()
            tree = self._node(Binary(token.text, tree, self._term(), token.position))
        return tree

    def _term(self) -> Node:
        tree = self._unary()
        while self._peek().kind == "operator" and self._peek().text in ("*", "/"):
            token = self._next()
            tree = self._node(Binary(token.text, tree, self._unary(), token.position))
        return tree

    def _unary(self) -> Node:
        token = self._peek()
        if token.kind == "operator" and token.text in ("-", "+"):
            self._next()
            self._depth += 1
            if self._depth > MAX_DEPTH:
                raise ExpressionError(f"the expression nests deeper than {MAX_DEPTH} levels", token.position)
            operand = self._unary()
            self._depth -= 1
            return self._node(Unary(token.text, operand, token.position))
        return self._power()

    def _power(self) -> Node:
        tree = self._primary()
        token = self._peek()
        if token.kind == "operator" and token.text == "**":
            self._next()
            self._depth += 1
            if self._depth > MAX_DEPTH:
                raise ExpressionError(f"the expression nests deeper than {MAX_DEPTH} levels", token.position)
            exponent = self._unary()
            self._depth -= 1
            tree = self._node(Binary("**", tree, exponent, token.position))
        return tree

    def _primary(self) -> Node:
        token = self._next()
        if token.kind == "number":
            return self._node(Number(float(token.text), token.position))
        if token.kind == "quoted":
            tag = token.text[1:-1].replace("``", "`")
            if not tag:
                raise ExpressionError("empty tag name", token.position)
            return self._node(Name(tag, token.position))
        if token.kind == "name":
            if self._peek().text == "(" and self._peek().kind == "operator":
                return self._call(token)
            if token.text in CONSTANTS:
                return self._node(Number(CONSTANTS[token.text], token.position))
            return self._node(Name(token.text, token.position))
        if token.kind == "operator" and token.text == "(":
            tree = self.expression()
            self._expect(")", token.position)
            return tree
        if token.kind == "end":
            raise ExpressionError("the expression ends too early", token.position)
        raise ExpressionError(f"unexpected {token.text!r}", token.position)

    def _call(self, name: _Token) -> Node:
        arity = FUNCTIONS.get(name.text)
        if arity is None:
            known = ", ".join(sorted(FUNCTIONS))
            raise ExpressionError(f"unknown function {name.text!r} (the functions are {known})", name.position)
        opening = self._next()
        arguments = [self.expression()]
        while self._peek().kind == "operator" and self._peek().text == ",":
            self._next()
            arguments.append(self.expression())
        self._expect(")", opening.position)
        if len(arguments) != arity:
            raise ExpressionError(
                f"{name.text} takes {arity} argument{'s' if arity > 1 else ''}, not {len(arguments)}", name.position
            )
        literal = LITERAL_ARGUMENTS.get(name.text)
        if literal is not None:
            _check_literal(name.text, arguments[literal])
        return self._node(Call(name.text, tuple(arguments), name.position))

    def _node(self, node: Node) -> Node:
        self._nodes += 1
        if self._nodes > MAX_NODES:
            raise ExpressionError(f"the expression has more than {MAX_NODES} terms", node.position)
        return node

    def _expect(self, text: str, opened: int) -> None:
        token = self._peek()
        if token.kind != "operator" or token.text != text:
            raise ExpressionError(f"expected {text!r} for the '(' at position {opened}", token.position)
        self._next()

    def _peek(self) -> _Token:
        return self._tokens[self._at]

    def _next(self) -> _Token:
        token = self._tokens[self._at]
        if token.kind != "end":
            self._at += 1
        return token


def _check_literal(function: str, argument: Node) -> None:
    if not isinstance(argument, Number):
        raise ExpressionError(f"{function}'s second argument must be a number", argument.position)
    if function == "ema" and not 0 <= argument.value < 1:
        raise ExpressionError("ema's weight must be at least 0 and below 1", argument.position)
    if function == "rolling_mean" and not (argument.value.is_integer() and 1 <= argument.value <= 1_000_000):
        raise ExpressionError("rolling_mean's window must be a whole number from 1 to 1,000,000", argument.position)
