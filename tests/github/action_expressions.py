"""GitHub Actions `${{ }}` expressions, evaluated as the runner does, for the subset we use.

Supported: string, number, boolean and null literals; context paths (`inputs.gate-level`,
`github.event.pull_request.number`, `steps.review.outputs.gate`, `x['y']`); `!`, `==`,
`!=`, `&&`, `||` and parentheses; the status functions `success()`, `failure()`,
`always()` and `cancelled()`. Semantics follow GitHub's documentation: `&&`/`||` return
an operand, not a boolean; strings compare case-insensitively; operands of different types
are compared as numbers; a missing property is null; null renders as an empty string.
Anything else (another function, `<`, a context the caller did not provide) raises
`UnsupportedExpression`, so that a test never silently evaluates what it does not model.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

_TOKEN = re.compile(
    r"\s*(?:(?P<string>'(?:[^']|'')*')|(?P<number>-?\d+(?:\.\d+)?)"
    r"|(?P<op>==|!=|&&|\|\||[!().\[\],])|(?P<name>[A-Za-z_][A-Za-z0-9_-]*))"
)
_TEMPLATE = re.compile(r"\$\{\{(.*?)\}\}", re.DOTALL)
STATUS_FUNCTIONS = ("success", "failure", "always", "cancelled")


class UnsupportedExpression(Exception):
    """An expression this evaluator does not model; the test must not guess."""


@dataclass(frozen=True)
class Token:
    kind: str
    text: str


def tokenize(expression: str) -> list[Token]:
    tokens: list[Token] = []
    position = 0
    text = expression.rstrip()
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None or match.end() == position:
            raise UnsupportedExpression(f"cannot read {text[position:]!r} in {expression!r}")
        kind = match.lastgroup
        assert kind is not None
        tokens.append(Token(kind, match.group(kind)))
        position = match.end()
    return tokens


def templates(text: str) -> list[str]:
    """The expressions inside every `${{ }}` of a string."""
    return [match.group(1).strip() for match in _TEMPLATE.finditer(text)]


def context_paths(expression: str) -> Iterator[tuple[str, ...]]:
    """Each dotted context path an expression reads, e.g. ('steps', 'review', 'outputs')."""
    tokens = tokenize(expression)
    index = 0
    while index < len(tokens):
        token = tokens[index]
        is_call = index + 1 < len(tokens) and tokens[index + 1].text == "("
        if token.kind == "name" and not is_call and token.text not in ("true", "false", "null"):
            path = [token.text]
            while index + 2 < len(tokens) and tokens[index + 1].text == ".":
                path.append(tokens[index + 2].text)
                index += 2
            yield tuple(path)
        index += 1


class _Parser:
    def __init__(self, expression: str, contexts: Mapping[str, Any], status: str) -> None:
        self.expression = expression
        self.tokens = tokenize(expression)
        self.position = 0
        self.contexts = contexts
        self.status = status

    def parse(self) -> Any:
        value = self._or()
        if self.position != len(self.tokens):
            self._fail(f"unexpected {self.tokens[self.position].text!r}")
        return value

    def _fail(self, message: str) -> Any:
        raise UnsupportedExpression(f"{message} in {self.expression!r}")

    def _peek(self) -> str | None:
        return self.tokens[self.position].text if self.position < len(self.tokens) else None

    def _take(self, expected: str | None = None) -> Token:
        if self.position >= len(self.tokens):
            return self._fail("unexpected end")  # type: ignore[no-any-return]
        token = self.tokens[self.position]
        if expected is not None and token.text != expected:
            self._fail(f"expected {expected!r}, found {token.text!r}")
        self.position += 1
        return token

    def _or(self) -> Any:
        value = self._and()
        while self._peek() == "||":
            self._take()
            right = self._and()
            value = value if truthy(value) else right
        return value

    def _and(self) -> Any:
        value = self._comparison()
        while self._peek() == "&&":
            self._take()
            right = self._comparison()
            value = right if truthy(value) else value
        return value

    def _comparison(self) -> Any:
        value = self._unary()
        while self._peek() in ("==", "!="):
            operator = self._take().text
            same = equal(value, self._unary())
            value = same if operator == "==" else not same
        return value

    def _unary(self) -> Any:
        if self._peek() == "!":
            self._take()
            return not truthy(self._unary())
        return self._primary()

    def _primary(self) -> Any:
        token = self._take()
        if token.text == "(":
            value = self._or()
            self._take(")")
            return value
        if token.kind == "string":
            return token.text[1:-1].replace("''", "'")
        if token.kind == "number":
            return float(token.text) if "." in token.text else int(token.text)
        if token.kind != "name":
            return self._fail(f"unexpected {token.text!r}")
        literals = {"true": True, "false": False, "null": None}
        if token.text in literals:
            return literals[token.text]
        if self._peek() == "(":
            return self._call(token.text)
        return self._path(token.text)

    def _call(self, name: str) -> bool:
        self._take("(")
        self._take(")")
        results: dict[str, Callable[[], bool]] = {
            "success": lambda: self.status == "success",
            "failure": lambda: self.status == "failure",
            "always": lambda: True,
            "cancelled": lambda: False,
        }
        if name not in results:
            return self._fail(f"function {name}() is not modelled")  # type: ignore[no-any-return]
        return results[name]()

    def _path(self, name: str) -> Any:
        if name not in self.contexts:
            return self._fail(f"context {name!r} is not provided")
        value = self.contexts[name]
        while self._peek() in (".", "["):
            if self._take().text == ".":
                key: Any = self._take().text
            else:
                key = self._or()
                self._take("]")
            value = _property(value, key, self.expression)
        return value


def _property(value: Any, key: Any, expression: str) -> Any:
    if isinstance(value, Strict):
        if key not in value.data:
            raise UnsupportedExpression(f"{key!r} is not modelled in {expression!r}")
        return value.data[key]
    if isinstance(value, Mapping):
        matches = [item for name, item in value.items() if str(name).lower() == str(key).lower()]
        return matches[0] if matches else None
    if isinstance(value, list) and isinstance(key, int):
        return value[key] if 0 <= key < len(value) else None
    return None


@dataclass(frozen=True)
class Strict:
    """A context whose unknown properties are an error here (not null as on GitHub)."""

    data: Mapping[str, Any]


def truthy(value: Any) -> bool:
    if isinstance(value, float) and math.isnan(value):
        return False
    return value not in (None, False, 0, "")


def _number(value: Any) -> float:
    if value is None:
        return 0.0
    if isinstance(value, bool | int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip() or 0)
        except ValueError:
            return math.nan
    return math.nan


def equal(left: Any, right: Any) -> bool:
    if isinstance(left, str) and isinstance(right, str):
        return left.casefold() == right.casefold()
    if type(left) is type(right) and not isinstance(left, str | int | float):
        return bool(left is right or left == right)
    return _number(left) == _number(right)


def to_text(value: Any) -> str:
    """How the runner writes a value into a string (an env value, an input)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, str | int | float):
        return str(value)
    if isinstance(value, Strict):
        value = value.data
    return json.dumps(value, indent=2)


def evaluate(expression: str, contexts: Mapping[str, Any], *, status: str = "success") -> Any:
    """The value of one expression (without `${{ }}`)."""
    return _Parser(expression, contexts, status).parse()


def render(text: str, contexts: Mapping[str, Any]) -> str:
    """A string with every `${{ }}` replaced by its value, as in `env:` and `with:`."""
    return _TEMPLATE.sub(lambda match: to_text(evaluate(match.group(1), contexts)), text)


def condition(text: str, contexts: Mapping[str, Any], status: str) -> bool:
    """A step's `if:`: `success() && (...)` unless it calls a status function itself."""
    stripped = text.strip()
    if stripped.startswith("${{") and stripped.endswith("}}"):
        stripped = stripped[3:-2].strip()
    calls = {token.text for token in tokenize(stripped) if token.kind == "name"}
    if not calls & set(STATUS_FUNCTIONS):
        stripped = f"success() && ({stripped})"
    return truthy(evaluate(stripped, contexts, status=status))
