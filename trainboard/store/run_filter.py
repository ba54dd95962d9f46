"""The run filter language: which runs to show, by their name, status, hyperparameters and metric summaries.

    lr < 0.01 and acc > 0.9
    optimizer = adam or name ~ "seed_[12]"
    not (val/loss >= 1) and max(val/acc) > 0.9 and status = running

A comparison is a term, an operator (= != < <= > >= ~) and a value: a number, true/false, a quoted string or a bare
word (`sgd`, `resnet-50`: a string). A term is one of:
- `name`: the run's name; `status`: its status (running, finished, failed or stalled: trainboard.store.summaries);
  `start_time` (the earlier of its first event's and its first point's wall time), `last_step`, `duration` (seconds
  from that start to its last point);
- its metadata (trainboard.store.run_metadata): `label` (also spelt `labels`) compares each of the run's labels and
  is true when one of them matches (`label = baseline`, `label ~ "^ab"`), except `label != x`, true when none is x;
  `starred` is 1 or 0 (`starred` alone means `starred = true`, so `not starred` reads as it says); `notes`,
  `display_name` (both "" when not set) and `color` ("#rrggbb", absent when not set) are text;
- a function of a scalar tag, over every point of its series (trainboard.store.summaries): `last(t)`, `first(t)`,
  `min(t)`, `max(t)`, `mean(t)`, `count(t)`, `step_of_min(t)`, `step_of_max(t)`;
- any other field: the run's hyperparameter of that name or, when it has none, the last value of its scalar series of
  that tag (`last(t)`).
A bare field or word starts with a letter or `_` and goes on with letters, digits, `_`, `/`, `.` and `-` (`val/loss`,
`model.depth`); any other name, and a field named as one of the run's own terms, is quoted in backticks
(`` `loss (train)` ``, `` `status` ``). `~` is a regular expression search (RE2) on text. A comparison with a value
the run lacks, or of another type (a number against text), is false; `and` binds tighter than `or`, `not` tighter
than both; the keywords and function names are case-insensitive.

`parse` gives the filter as a tree (`Compare`, `Not`, `And`, `Or`), `parse_terms` a list of terms (the columns and
the sort of the runs table); `trainboard.store.run_filter_sql` compiles them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from typing import Any, Union

from trainboard.errors import InvalidArgumentError

MAX_FILTER_LENGTH = 4096
MAX_DEPTH = 32
MAX_COMPARISONS = 256
RUN_NAME = "name"
# The run's own terms besides its name (bare words; a field of the same name is quoted), their expressions in
# `trainboard.store.run_filter_sql.Compiler.term`: its times and status, then its metadata.
STATUS = "status"
LABELS = "labels"
STARRED = "starred"
METADATA_TERMS = ("display_name", "color", LABELS, STARRED, "notes")
RUN_TERMS = (STATUS, "start_time", "last_step", "duration", *METADATA_TERMS)
# Other spellings of run terms: `label = baseline` reads better than `labels = baseline`.
_SPELLINGS = {"label": LABELS}
# Functions of a scalar tag's series.
FUNCTIONS = ("last", "first", "min", "max", "mean", "count", "step_of_min", "step_of_max")
OPERATORS = ("=", "!=", "<", "<=", ">", ">=", "~")

_TOKEN = re.compile(
    r"""\s*(?:
      (?P<number>[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?(?![\w.]))
    | (?P<word>[A-Za-z_][A-Za-z0-9_./-]*)
    | `(?P<quoted>[^`]*)`
    | (?P<string>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')
    | (?P<operator>!=|<=|>=|=|<|>|~)
    | (?P<paren>[()])
    | (?P<comma>,)
    | (?P<minus>-)
    )""",
    re.VERBOSE | re.DOTALL,
)
_KEYWORDS = frozenset({"and", "or", "not", "true", "false"})
_BARE = re.compile(r"[A-Za-z_][A-Za-z0-9_./-]*")


def _reserved(word: str) -> bool:
    return word.lower() in _KEYWORDS or word == RUN_NAME or word in RUN_TERMS or word in _SPELLINGS


@dataclass(frozen=True, slots=True)
class Term:
    """What a comparison, a column or a sort reads of a run: `kind` is "name", one of RUN_TERMS, one of FUNCTIONS
    (of the tag `field`) or "field" (the hyperparameter `field`, else `last(field)`)."""

    kind: str
    field: str

    @property
    def label(self) -> str:
        """The term as the language writes it (`max(val/acc)`, `` `loss (train)` ``)."""
        if self.kind == "name" or self.kind in RUN_TERMS:
            return self.kind
        quoted = self.field if _BARE.fullmatch(self.field) and not _reserved(self.field) else f"`{self.field}`"
        return quoted if self.kind == "field" else f"{self.kind}({quoted})"


@dataclass(frozen=True, slots=True)
class Compare:
    # `name` with is_name: the run's name; else a hyperparameter or metric, or what `function` says.
    field: str
    is_name: bool
    operator: str
    value: float | str
    # For `~`: the compiled pattern (its `search` is called on texts).
    pattern: Any = dataclass_field(default=None, compare=False, hash=False)
    # One of RUN_TERMS (`field` is the same), or one of FUNCTIONS of the tag `field`; None for a field or the name.
    function: str | None = None

    @property
    def term(self) -> Term:
        return Term("name" if self.is_name else self.function or "field", self.field)


@dataclass(frozen=True, slots=True)
class Not:
    operand: RunFilter


@dataclass(frozen=True, slots=True)
class And:
    operands: tuple[RunFilter, ...]


@dataclass(frozen=True, slots=True)
class Or:
    operands: tuple[RunFilter, ...]


RunFilter = Union[Compare, Not, And, Or]  # noqa: UP007 (a runtime alias)


@dataclass(frozen=True, slots=True)
class _Token:
    kind: str  # number, word, field, string, operator, paren, end
    text: str
    position: int


class FilterSyntaxError(InvalidArgumentError):
    """A filter that is not of the language: where (0-based character position) and what was expected there."""

    def __init__(self, position: int, expected: str, found: str) -> None:
        super().__init__(f"filter: at position {position}: expected {expected}, found {found}")
        self.position = position
        self.expected = expected


def parse(text: str, compile_pattern: Callable[[str], Any]) -> RunFilter:
    """The filter's tree; `compile_pattern` compiles the patterns of `~` (raising InvalidArgumentError for a bad
    one)."""
    if len(text) > MAX_FILTER_LENGTH:
        raise InvalidArgumentError(f"filter: longer than {MAX_FILTER_LENGTH} characters")
    parser = _Parser(_tokens(text), compile_pattern)
    tree = parser.disjunction(0)
    end = parser.peek()
    if end.kind != "end":
        raise FilterSyntaxError(end.position, "and, or or the end", _shown(end))
    return tree


def parse_terms(text: str, *, descending: bool = False) -> list[tuple[Term, bool]]:
    """Terms separated by commas (the columns of the runs table), each with whether a `-` before it asks for
    descending order (its sort; refused unless `descending`)."""
    parser = _Parser(_tokens(text), _no_pattern)
    terms = []
    while True:
        minus = parser.peek()
        if descending and minus.kind == "minus":
            parser.take()
        terms.append((parser.term(), minus.kind == "minus"))
        separator = parser.take()
        if separator.kind == "end":
            return terms
        if separator.kind != "comma":
            raise FilterSyntaxError(separator.position, "',' or the end", _shown(separator))


def _no_pattern(pattern: str) -> Any:
    raise AssertionError("a term has no pattern")


def comparisons(tree: RunFilter | None) -> Iterator[Compare]:
    if tree is None:
        return
    if isinstance(tree, Compare):
        yield tree
        return
    for operand in (tree.operand,) if isinstance(tree, Not) else tree.operands:
        yield from comparisons(operand)


def _tokens(text: str) -> list[_Token]:
    tokens, position = [], 0
    while True:
        while position < len(text) and text[position].isspace():
            position += 1
        if position == len(text):
            tokens.append(_Token("end", "", position))
            return tokens
        match = _TOKEN.match(text, position)
        if match is None or match.lastgroup is None:
            raise FilterSyntaxError(position, "a field, a value, an operator or a parenthesis", repr(text[position]))
        kind = match.lastgroup
        value = match.group(kind)
        start = match.start(kind) - (1 if kind == "quoted" else 0)
        if kind == "quoted":
            kind = "field"
        elif kind == "string":
            value = re.sub(r"\\(.)", r"\1", value[1:-1], flags=re.DOTALL)
        elif kind == "word" and value.lower() in _KEYWORDS:
            kind, value = value.lower(), value.lower()
        tokens.append(_Token(kind, value, start))
        position = match.end()


def _shown(token: _Token) -> str:
    return "the end" if token.kind == "end" else repr(token.text) if token.kind != "string" else "a string"


class _Parser:
    def __init__(self, tokens: list[_Token], compile_pattern: Callable[[str], Any]) -> None:
        self._tokens = tokens
        self._compile_pattern = compile_pattern
        self._next = 0
        self._comparisons = 0

    def peek(self) -> _Token:
        return self._tokens[self._next]

    def take(self) -> _Token:
        token = self._tokens[self._next]
        self._next += 1
        return token

    def disjunction(self, depth: int) -> RunFilter:
        operands = [self._conjunction(depth)]
        while self.peek().kind == "or":
            self.take()
            operands.append(self._conjunction(depth))
        return operands[0] if len(operands) == 1 else Or(tuple(operands))

    def _conjunction(self, depth: int) -> RunFilter:
        operands = [self._negation(depth)]
        while self.peek().kind == "and":
            self.take()
            operands.append(self._negation(depth))
        return operands[0] if len(operands) == 1 else And(tuple(operands))

    def _negation(self, depth: int) -> RunFilter:
        token = self.peek()
        if depth > MAX_DEPTH:
            raise FilterSyntaxError(token.position, f"at most {MAX_DEPTH} nested not or parentheses", "more")
        if token.kind == "not":
            self.take()
            return Not(self._negation(depth + 1))
        if token.kind == "paren" and token.text == "(":
            self.take()
            inner = self.disjunction(depth + 1)
            closing = self.take()
            if closing.kind != "paren" or closing.text != ")":
                raise FilterSyntaxError(closing.position, "')'", _shown(closing))
            return inner
        return self._comparison()

    def term(self) -> Term:
        name = self.take()
        if name.kind not in ("word", "field"):
            raise FilterSyntaxError(name.position, "a field name, 'not' or '('", _shown(name))
        following = self.peek()
        if name.kind == "field" or following.kind != "paren" or following.text != "(":
            bare = name.kind == "word"
            if bare and name.text == RUN_NAME:
                return Term("name", name.text)
            run_term = _SPELLINGS.get(name.text, name.text)
            return Term(run_term, run_term) if bare and run_term in RUN_TERMS else Term("field", name.text)
        function = name.text.lower()
        if function not in FUNCTIONS:
            raise FilterSyntaxError(name.position, f"a function ({', '.join(FUNCTIONS)})", _shown(name))
        self.take()
        tag = self.take()
        if tag.kind not in ("word", "field"):
            raise FilterSyntaxError(tag.position, "a tag name", _shown(tag))
        closing = self.take()
        if closing.kind != "paren" or closing.text != ")":
            raise FilterSyntaxError(closing.position, "')'", _shown(closing))
        return Term(function, tag.text)

    def _comparison(self) -> Compare:
        first = self.peek()
        term = self.term()
        self._comparisons += 1
        if self._comparisons > MAX_COMPARISONS:
            raise FilterSyntaxError(first.position, f"at most {MAX_COMPARISONS} comparisons", "more")
        is_name = term.kind == "name"
        function = None if term.kind in ("name", "field") else term.kind
        if term.kind == STARRED and self.peek().kind != "operator":
            return Compare(term.field, False, "=", 1.0, None, function)
        operator = self.take()
        if operator.kind != "operator":
            raise FilterSyntaxError(operator.position, "an operator (= != < <= > >= ~)", _shown(operator))
        value = self.take()
        if operator.text == "~":
            if value.kind not in ("string", "word"):
                raise FilterSyntaxError(
                    value.position, "a regular expression after ~ (quoted, or a word)", _shown(value)
                )
            try:
                pattern = self._compile_pattern(value.text)
            except InvalidArgumentError as error:
                raise FilterSyntaxError(value.position, "a valid regular expression", error.message) from None
            return Compare(term.field, is_name, "~", value.text, pattern, function)
        if value.kind == "number":
            literal: float | str = float(value.text)
        elif value.kind in ("true", "false"):
            literal = 1.0 if value.kind == "true" else 0.0
        elif value.kind in ("string", "word"):
            literal = value.text
        else:
            raise FilterSyntaxError(
                value.position, "a value (a number, a word, a quoted string, true or false)", _shown(value)
            )
        return Compare(term.field, is_name, operator.text, literal, None, function)
