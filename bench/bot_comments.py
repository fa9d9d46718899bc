"""Benchmark reading GitHub bot comments and free text against parsing the JSON (not a test).

Workloads, built in memory from the bodies in tests/fixtures/comments: a REST array of
many comments (every fixture body, each under its bot's login, repeated), and one
megabyte of adversarial markup per bot (openers without closers, repeated prefixes of
every construct the parsers look for). Prints the time of orjson.loads, of the
github-comments reader on the same bytes, their ratio and the cost per comment; then the
time per adversarial megabyte, which stays near the per-megabyte cost of ordinary bodies
because every parser is linear, for every bot reader (past each one's first checks) and
every text helper they share.

    python bench/bot_comments.py                 # 20,000 comments
    python bench/bot_comments.py --comments 2000
"""

from __future__ import annotations

import argparse
import functools
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from review_quorum.ingest import freetext, github_comments
from review_quorum.ingest.base import Source
from review_quorum.ingest.bots.keywords import guess_category
from review_quorum.ingest.bots.text import (
    bare_label,
    bold_title,
    first_sentence,
    layout,
    lines_of,
    plain,
    summary_raw,
    unquote,
)

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "comments"
LOGINS = {
    "coderabbit": "coderabbitai[bot]",
    "copilot": "Copilot",
    "sourcery": "sourcery-ai[bot]",
    "gemini": "gemini-code-assist[bot]",
    "qodo": "qodo-code-review[bot]",
    "ghas": "github-advanced-security[bot]",
}
# Openers without closers and repeated prefixes of every construct the parsers look for;
# those that hide the rest of a body (fences, collapsed blocks, comments) come last.
ATTACKS = [
    "<summary>x",
    "**",
    "*a",
    "In `@",
    '<location path="',
    "<location>`",
    "![",
    "![high](",
    "[a](",
    "<a ",
    '<img alt="',
    "[a[R1-",
    "> ",
    "> > ",
    "_a_ | ",
    "`1-2`: ",
    "a.",
    "<summary>  1.  ",
    "<td rowspan=1>",
    "[high] ",
    "a/b.py:1 ",
    "x" * 300,
    "\n",
    "`",
    "<details>",
    "```",
    "<!--",
]
INLINE: dict[str, object] = {"path": "a.py", "line": 3}
REVIEW: dict[str, object] = {"state": "COMMENTED"}
# (login, where the comment sits, valid markup that gets the parser past its first checks)
TARGETS: list[tuple[str, dict[str, object], str]] = [
    ("coderabbitai", INLINE, "_⚠️ Potential issue_ | _🟠 Major_\n\n**Title.**\n"),
    ("coderabbitai", REVIEW, "**Actionable comments posted: 1**\n<details>\n"
     "<summary>🧹 Nitpick comments (1)</summary><blockquote>\n<details>\n"
     "<summary>a.py (1)</summary><blockquote>\n`1-2`: "),
    ("Copilot", INLINE, ""),
    ("copilot-pull-request-reviewer", REVIEW, "<details>\n"
     "<summary>Comments suppressed due to low confidence (1)</summary>\n**a.py:1**\n* "),
    ("sourcery-ai", INLINE, "**issue (bug_risk):** "),
    ("sourcery-ai", REVIEW, '## Individual Comments\n### Comment 1\n<location path="a.py" />\n'
     "<issue_to_address>\n**issue:** "),
    ("gemini-code-assist", INLINE, "![high](https://x/high.svg)\n\n"),
    ("qodo-code-review", {},
     "<h3>Code Review by Qodo</h3>\n<details>\n<summary>  1.  t</summary>\n"),
    ("qodo-merge-pro", {}, "## PR Code Suggestions\n<tr><td rowspan=1>General</td>\n"),
    ("qodo-merge-pro", {}, "## PR Reviewer Guide\n<details><summary><a href='#diff-"
     + "a" * 64 + "R1-R2'><strong>F</strong></a>\n"),
    ("github-advanced-security", INLINE, "## CodeQL / X\n\n"),
    ("cursor", INLINE, "### Title\n\n**High Severity**\n<!-- LOCATIONS START\n"),
    ("greptile-apps", INLINE, "**Title**\n<details><summary>Prompt To Fix With AI</summary>\n"),
    ("greptile-apps", {}, "<details>\n<summary>Additional Comments (1)</summary>\n**`a.py`**\n"),
    ("chatgpt-codex-connector", INLINE, "**<sub><sub>![P1 Badge](x)</sub></sub>  T**\n"),
    ("chatgpt-codex-connector", REVIEW, "### 💡 Codex Review\n\n"
     "https://github.com/o/r/blob/0123456/a.py#L1\n**![P1 Badge](x) T**\n"),
    ("claude", {}, "## 🔴 Issues\n### 1. **[High] Title** `a.py:1`\n"),
    ("devin-ai-integration", INLINE, '<!-- devin-review-comment {"id": "BUG_1"} -->\n🔴 **T**\n'),
    ("augmentcode", INLINE, "`a.py:3` Text.\n\n**Severity: high**\n"),
    ("cubic-dev-ai", INLINE, '<!-- metadata:{"confidence":9} -->\nP1: Text.\n'),
    ("codeant-ai", {}, "## Nitpicks 🔍\n"),
    ("macroscopeapp", INLINE, "🟡 **Medium** `a.py:4`\n\n"),
    ("codoki-pr-intelligence", INLINE, "<!-- CODOKI_INLINE -->\n⚠️ **High**: "),
    ("some-new-reviewer[bot]", INLINE, "### Title\n\n"),
    ("some-new-reviewer[bot]", REVIEW, "## Findings\n### [High] Title `a.py:3`\n"),
]  # fmt: skip


def _records(count: int) -> list[dict[str, Any]]:
    templates = []
    for path in sorted(FIXTURES.glob("*.md")):
        bot = path.name.split(".")[0]
        if bot in LOGINS:
            record: dict[str, Any] = {"user": {"login": LOGINS[bot]}, "body": path.read_text()}
            if ".inline" in path.name or bot == "ghas":
                record.update(path="src/app/module.py", line=40, start_line=38)
            elif ".review" in path.name:
                record["state"] = "COMMENTED"
            templates.append(record)
    return [{**templates[n % len(templates)], "id": n} for n in range(count)]


def _best(action: Callable[[], object], repeat: int = 3) -> float:
    timings = []
    for _ in range(repeat):
        started = time.perf_counter()
        action()
        timings.append(time.perf_counter() - started)
    return min(timings)


def _attack(prefix: str = "", megabytes: int = 1) -> str:
    size = (megabytes << 20) // len(ATTACKS)
    return prefix + "\n".join((attack * (size // len(attack) + 1))[:size] for attack in ATTACKS)


def _read_comments(raw: bytes) -> object:
    """Read `raw` as GitHub comments, from a fresh source (as each timed run does)."""
    return github_comments.READER.read(Source("a.json", raw))


def _helpers(attack: str) -> None:
    """Every text helper the parsers share, over a quarter megabyte of one attack."""
    text = (attack * ((1 << 18) // len(attack) + 1))[: 1 << 18]
    lines = lines_of(text)
    plain(text)
    first_sentence(text)
    layout(lines)
    guess_category(text)
    for line in lines:
        unquote(line)
        summary_raw(line)
        bold_title(line)
        bare_label(line)
        freetext.parse_line(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--comments", type=int, default=20_000)
    args = parser.parse_args()
    data = orjson.dumps(_records(args.comments))
    parse = _best(lambda: orjson.loads(data))
    read = _best(lambda: github_comments.READER.read(Source("bench.json", data)))
    batch = github_comments.READER.read(Source("bench.json", data))
    print(f"{args.comments} comments, {len(data) / 1e6:.1f} MB:")
    print(f"  orjson.loads        {parse * 1e3:8.1f} ms")
    print(f"  github-comments     {read * 1e3:8.1f} ms  ({read / parse:.1f}x orjson)")
    print(f"  per comment         {read / args.comments * 1e6:8.1f} us")
    print(f"  findings / skipped  {len(batch.findings)} / {len(batch.skipped)}")
    per_megabyte = read / (len(data) / (1 << 20))
    print(f"adversarial 1 MB bodies (ordinary bodies: {per_megabyte * 1e3:.1f} ms per MB;")
    print("linear parsing takes about a second, quadratic backtracking minutes):")
    for login, fields, prefix in TARGETS:
        raw = orjson.dumps([{"user": {"login": login}, "body": _attack(prefix), **fields}])
        seconds = _best(functools.partial(_read_comments, raw), 1)
        print(f"  {login:32} {prefix[:20]!r:24} {seconds * 1e3:8.1f} ms")
    text = _attack().encode()
    seconds = _best(lambda: freetext.READER.read(Source("a.txt", text)), 1)
    print(f"  {'freetext':32} {'':24} {seconds * 1e3:8.1f} ms")
    print("text helpers, a quarter megabyte of each attack:")
    for attack in ATTACKS:
        seconds = _best(functools.partial(_helpers, attack), 1)
        print(f"  {attack[:20]!r:24} {seconds * 1e3:8.1f} ms")


if __name__ == "__main__":
    main()
