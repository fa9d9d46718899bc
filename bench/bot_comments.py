"""Benchmark reading GitHub bot comments and free text against parsing the JSON (not a test).

Workloads, built in memory from the bodies in tests/fixtures/comments: a REST array of
many comments (every fixture body, each under its bot's login, repeated), and one
megabyte of adversarial markup per bot (openers without closers, repeated prefixes of
every construct the parsers look for). Prints the time of orjson.loads, of the
github-comments reader on the same bytes, their ratio and the cost per comment; then the
time per adversarial megabyte, which stays near the per-megabyte cost of ordinary bodies
because every parser is linear.

    python bench/bot_comments.py                 # 20,000 comments
    python bench/bot_comments.py --comments 2000
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from review_quorum.ingest import freetext, github_comments
from review_quorum.ingest.base import Source

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "comments"
LOGINS = {
    "coderabbit": "coderabbitai[bot]",
    "copilot": "Copilot",
    "sourcery": "sourcery-ai[bot]",
    "gemini": "gemini-code-assist[bot]",
    "qodo": "qodo-code-review[bot]",
    "ghas": "github-advanced-security[bot]",
}
ATTACKS = ["<summary>x", "**", "In `@", '<location path="', "![", "[a](", "> ", "a.", "\n"]
ATTACKS += ["`", "<details>", "```", "<!--"]


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


def _attack(megabytes: int = 1) -> str:
    size = (megabytes << 20) // len(ATTACKS)
    return "\n".join((attack * (size // len(attack) + 1))[:size] for attack in ATTACKS)


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
    body = _attack()
    print(f"adversarial 1 MB bodies (ordinary bodies: {per_megabyte * 1e3:.1f} ms per MB):")
    for login in dict.fromkeys(LOGINS.values()):
        for fields in ({"path": "a.py", "line": 3}, {"state": "COMMENTED"}):
            raw = orjson.dumps([{"user": {"login": login}, "body": body, **fields}])
            seconds = _best(lambda raw=raw: github_comments.READER.read(Source("a.json", raw)), 1)
            kind = "inline" if "path" in fields else "review"
            print(f"  {login:32} {kind:6} {seconds * 1e3:8.1f} ms")
    text = body.encode()
    seconds = _best(lambda: freetext.READER.read(Source("a.txt", text)), 1)
    print(f"  {'freetext':32} {'lines':6} {seconds * 1e3:8.1f} ms")


if __name__ == "__main__":
    main()
