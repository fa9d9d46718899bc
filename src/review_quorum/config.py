"""Configuration: `[tool.quorum]` in pyproject.toml, or a `.quorum.toml`; flags override it.

Keys use the flag spelling (`gate-level`, `line-window`, ...); three are tables: `categories`
(rule pattern = category), `bot-logins` (GitHub login = bot name, docs/bot-comments.md) and
`cost-per-run` (bot name = what one run of it costs, for `quorum stats`).
Unknown keys and bad values
are `ConfigError`s naming the file and the key. `.quorum.toml` holds the keys at top level
(or under `[tool.quorum]`); pyproject.toml only under `[tool.quorum]`.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Callable, Mapping
from typing import Any

from review_quorum.baseline import GATE_ON
from review_quorum.errors import ConfigError, InputError, shown
from review_quorum.ingest.base import as_utf8, not_utf8, path_text
from review_quorum.ingest.category_tables import CATEGORIES, CATEGORY_SET
from review_quorum.markup.escape import one_line
from review_quorum.model import MAX_BOTS, check_bot_count, is_finite
from review_quorum.plan import INLINE_MODES

LEVELS = ("confirmed", "needs-verification", "unverified")
FILTER_MODES = ("added", "diff_context", "file", "nofilter")
FORMATS = ("markdown", "github-review", "sarif", "json", "terminal")
# The names of `reporters.REPORTERS`, here so that reading a configuration imports no reporter.
REPORTERS = (
    "local",
    "github-review",
    "github-check",
    "gitlab-mr",
    "azure-devops-pr",
    "bitbucket-pr",
    "bitbucket-insights",
)


def _count(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError("expected a whole number >= 0")
    return value


def _fraction(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not is_finite(value):
        raise ValueError("expected a number from 0 to 1")
    if not 0 <= value <= 1:
        raise ValueError("expected a number from 0 to 1")
    return float(value)


def _choice(*allowed: str) -> Callable[[object], str]:
    def check(value: object) -> str:
        if not isinstance(value, str) or value not in allowed:
            raise ValueError(f"expected one of {', '.join(allowed)}")
        return value

    return check


def _bots(value: object) -> str:
    if isinstance(value, bool):
        raise ValueError("expected a number or a list of bot names")
    if isinstance(value, int):
        return str(check_bot_count(value))
    if isinstance(value, list) and value and all(isinstance(v, str) and v for v in value):
        value = ",".join(value)
    if isinstance(value, str) and value.strip():
        check_bots(value)  # what `--bots` refuses, refused here naming the file
        return value
    raise ValueError("expected a number >= 1 or a list of bot names")


def check_bots(value: str) -> int | list[str]:
    """`--bots` (or the `bots` key) as a count or as bot names; ValueError when it is neither.

    A count is a whole number from 1 to `MAX_BOTS`; names are a comma-separated list with
    no empty or numeric entry. Anything else (`-2`, `a,,b`, `2.5`, `10**23`) is refused: a
    gate that misreads its bot count passes or fails for the wrong reason.
    """
    text = value.strip()
    if text.isascii() and text.isdigit():
        return _bot_count(text)
    names = [name.strip() for name in text.split(",")]
    if not all(names):
        raise ValueError(f"an empty bot name in {one_line(shown(value))}")
    numeric = [name for name in names if _NUMBER.fullmatch(name)]
    if numeric:
        what = one_line(shown(numeric[0]))
        raise ValueError(f"{what} is a number, not a bot name; a count must be >= 1")
    return names


def _bot_count(digits: str) -> int:
    significant = digits.lstrip("0")
    # More digits than MAX_BOTS has is too many, without converting thousands of digits.
    count = int(significant or "0") if len(significant) <= len(str(MAX_BOTS)) else MAX_BOTS + 1
    try:
        return check_bot_count(count)
    except ValueError as err:
        raise ValueError(f"{err}, not {one_line(shown(digits))}") from None


_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def _seconds(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not is_finite(value):
        raise ValueError("expected a number of seconds > 0")
    if value <= 0:
        raise ValueError("expected a number of seconds > 0")
    return float(value)


def _flag(value: object) -> bool:
    if not isinstance(value, bool):
        raise ValueError("expected true or false")
    return value


def _text(value: object) -> str:
    if not isinstance(value, str | int | float) or isinstance(value, bool):
        raise ValueError("expected a string or a number")
    return str(value)


def _bot_logins(value: object) -> dict[str, str]:
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and k.strip() and isinstance(v, str) and v.strip()
        for k, v in value.items()
    ):
        raise ValueError("expected a table of GitHub login = bot name (non-empty strings)")
    return {login.strip(): bot.strip() for login, bot in value.items()}


def _categories(value: object) -> dict[str, str]:
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise ValueError("expected a table of rule pattern = category")
    for key, category in value.items():
        if category not in CATEGORY_SET:
            raise ValueError(
                f"key {key!r}: unknown category {category!r} (expected one of "
                f"{', '.join(CATEGORIES)})"
            )
    return dict(value)


def _names(value: object) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ValueError("expected a list of bot names")
    return [name.strip() for name in value]


def _triagers(value: object) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ValueError(
            "expected a list of the accounts that may triage (GitLab usernames, Azure DevOps "
            "unique names or ids, Bitbucket account uuids or ids)"
        )
    return [name.strip() for name in value]


def _costs(value: object) -> dict[str, float]:
    if not isinstance(value, dict):
        raise ValueError("expected a table of bot name = cost of one run")
    costs = {}
    for bot, cost in value.items():
        if isinstance(cost, bool) or not isinstance(cost, int | float) or not is_finite(cost):
            raise ValueError(f"{bot}: expected a number >= 0, not {shown(cost)}")
        if cost < 0:
            raise ValueError(f"{bot}: expected a number >= 0, not {shown(cost)}")
        costs[bot] = float(cost)
    return costs


def _outcome_rule(value: object) -> Any:
    from review_quorum.history.outcomes import OutcomeRule

    return OutcomeRule.parse(value)


CHECKS: dict[str, Callable[[object], Any]] = {
    "bots": _bots,
    "line-window": _count,
    "title-overlap": _fraction,
    "order": _choice("input", "canonical"),
    "filter-mode": _choice(*FILTER_MODES),
    "context-lines": _count,
    "threshold": _text,
    "cap": _count,
    "inline-level": _choice(*LEVELS),
    "gate-level": _choice(*LEVELS, "none"),
    "inline-mode": _choice(*INLINE_MODES),
    "gate-on": _choice(*GATE_ON),
    "reporter": _choice(*REPORTERS),
    "check-name": _text,
    "format": _choice(*FORMATS),
    "root": _text,
    "categories": _categories,
    "history-db": _text,
    "bot-logins": _bot_logins,
    "model": _choice("agreement", "reliability"),
    "profile": _text,
    "outcome-rule": _outcome_rule,
    "cost-per-run": _costs,
    "expected-bots": _names,
    "triagers": _triagers,
    # the verifier (docs/verifier.md); `--verifier-cmd` is a flag only: no file runs commands
    "verify-url": _text,
    "verify-model": _text,
    "verify-key-env": _text,
    "verify-max": _count,
    "verify-concurrency": _count,
    "verify-timeout": _seconds,
    "verify-budget-s": _seconds,
    "verify-checkout": _text,
    "verify-cache": _text,
    "gate-on-verified": _flag,
}


def load(
    path: str | os.PathLike[str] | None = None,
    *,
    directory: str | os.PathLike[str] | None = None,
) -> dict[str, Any]:
    """The validated settings of `path`, or of the first config file found in `directory`
    (by default the working directory)."""
    if path is None:
        found = _discover(path_text(directory) if directory else os.getcwd())
        if found is None:
            return {}
        path = found
    path = path_text(path)
    try:
        document = _parse(path)
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file") from None
    table = _table(document, path)
    return validate(table, path)


def _discover(directory: str) -> str | None:
    dotfile = os.path.join(directory, ".quorum.toml")  # `load` spells it as pathlib does
    if os.path.isfile(dotfile):
        return dotfile
    pyproject = path_text(os.path.join(directory, "pyproject.toml"))
    if os.path.isfile(pyproject) and "quorum" in _parse(pyproject).get("tool", {}):
        return pyproject
    return None


def _parse(path: str) -> dict[str, Any]:
    """The TOML document at `path`; FileNotFoundError, or `ConfigError` naming the file."""
    try:
        text = _text_of(path)
        too_deep = _too_deep(text)
        if too_deep is not None:  # tomllib recurses once per level, into RecursionError
            message = f"arrays and tables nested more than {MAX_NESTING} deep"
            raise ConfigError(f"{path}: line {too_deep}: {message}")
        return tomllib.loads(text)
    except FileNotFoundError:
        raise
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as err:
        raise ConfigError(f"{path}: cannot read configuration: {err}") from err


def _text_of(path: str) -> str:
    """The file's text, read as every input is: UTF-8 with or without a byte-order mark, or
    UTF-16 with one; `ConfigError` naming the file, the line and the column otherwise."""
    with open(path, "rb") as file:
        data = file.read()
    try:
        data, _ = as_utf8(path, data)
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ConfigError(str(not_utf8(path, data, err))) from None
    except InputError as err:
        raise ConfigError(str(err)) from None


MAX_NESTING = 64
"""The deepest nesting of arrays and inline tables a configuration file may have: a
setting needs two levels, other tools' tables in pyproject.toml a few more."""
_TOKENS = re.compile(r"""\"\"\"|'''|["'#\[\]{}\n]""")
_SKIPS = {  # what a string or a comment spans, from just after its opening mark
    '"': re.compile(r'(?:[^"\\\n]|\\.)*"'),
    '"""': re.compile(r'(?:[^\\]|\\.)*?"""', re.DOTALL),
    "'": re.compile(r"[^'\n]*'"),
    "'''": re.compile(r".*?'''", re.DOTALL),
    "#": re.compile(r"[^\n]*"),
}


def _too_deep(text: str) -> int | None:
    """The line where `text` nests brackets more than `MAX_NESTING` deep, outside strings
    and comments, or None (also at an unterminated string: tomllib reports that)."""
    depth, line, at = 0, 1, 0
    while token := _TOKENS.search(text, at):
        at, mark = token.end(), token.group()
        if mark in _SKIPS:
            skipped = _SKIPS[mark].match(text, at)
            if skipped is None:
                return None
            line += text.count("\n", at, skipped.end())
            at = skipped.end()
        elif mark == "\n":
            line += 1
        elif mark in "[{":
            depth += 1
            if depth > MAX_NESTING:
                return line
        else:
            depth = max(depth - 1, 0)
    return None


def _table(document: Mapping[str, Any], path: str) -> Mapping[str, Any]:
    tool = document.get("tool", {})
    if isinstance(tool, dict) and "quorum" in tool:
        table = tool["quorum"]
        if not isinstance(table, dict):
            raise ConfigError(f"{path}: [tool.quorum] must be a table")
        return table
    if os.path.basename(path) == "pyproject.toml":
        return {}
    return document


def validate(table: Mapping[str, Any], source: str) -> dict[str, Any]:
    settings: dict[str, Any] = {}
    for key, value in table.items():
        check = CHECKS.get(key)
        if check is None:
            known = ", ".join(CHECKS)
            raise ConfigError(f"{source}: unknown key {key!r} (known keys: {known})")
        try:
            settings[key] = check(value)
        except ValueError as err:
            raise ConfigError(f"{source}: bad value for {key!r}: {shown(value)}: {err}") from None
    return settings
