"""Consistency of the pr-review example (examples/pr-review): sources, diff, tool output, bots.

The example is the input `quorum review` runs on in the README, so its files must agree with
each other: the diff must be the diff of base/ and head/, every analyser result and every bot
comment must point at a real line of head/app that the pull request shows on its RIGHT side,
the counts the bots announce must match what they posted, the verdicts must name real lines
(with `in_changed_code` true exactly for added lines), and the agreements the README promises
must hold within the consensus line window.
"""

from __future__ import annotations

import importlib.util
import json
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
from unidiff.patch import PatchSet

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "pr-review"
HEAD = EXAMPLE / "head"
BASE = EXAMPLE / "base"
ANALYSERS = ("bandit", "ruff", "semgrep")
LINE_WINDOW = 3


def read_json(*parts: str) -> Any:
    return json.loads(EXAMPLE.joinpath(*parts).read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def patch() -> PatchSet:
    return PatchSet(EXAMPLE.joinpath("pr.diff").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def right_lines(patch: PatchSet) -> dict[str, set[int]]:
    """Per path, the head line numbers the diff shows (added or context lines)."""
    return {
        patched.path: {
            line.target_line_no
            for hunk in patched
            for line in hunk
            if not line.is_removed and line.target_line_no is not None
        }
        for patched in patch
    }


@pytest.fixture(scope="module")
def added_lines(patch: PatchSet) -> dict[str, set[int]]:
    return {
        patched.path: {
            line.target_line_no
            for hunk in patched
            for line in hunk
            if line.is_added and line.target_line_no is not None
        }
        for patched in patch
    }


def head_line(path: str, line: int) -> str:
    """The text of `line` in head/`path`; fails the test when either does not exist."""
    file = HEAD / path
    assert file.is_file(), f"{path} does not exist in head/"
    lines = file.read_text(encoding="utf-8").splitlines()
    assert 1 <= line <= len(lines), f"{path}:{line} is past the end ({len(lines)} lines)"
    return lines[line - 1]


def assert_on_right_side(right_lines: dict[str, set[int]], path: str, *lines: int) -> None:
    for line in lines:
        head_line(path, line)
        assert line in right_lines.get(path, set()), f"{path}:{line} is not shown by pr.diff"


# --- the diff ----------------------------------------------------------------------------


def test_diff_paths_are_repository_relative_and_cover_every_changed_file(patch: PatchSet) -> None:
    changed = sorted(
        path.relative_to(HEAD).as_posix()
        for path in HEAD.joinpath("app").glob("*.py")
        if path.read_bytes() != BASE.joinpath(path.relative_to(HEAD)).read_bytes()
    )
    assert sorted(patched.path for patched in patch) == changed
    assert all(patched.source_file == f"a/{patched.path}" for patched in patch)
    assert all(patched.target_file == f"b/{patched.path}" for patched in patch)


def test_diff_lines_match_base_and_head_sources(patch: PatchSet) -> None:
    for patched in patch:
        base = BASE.joinpath(patched.path).read_text(encoding="utf-8").splitlines()
        head = HEAD.joinpath(patched.path).read_text(encoding="utf-8").splitlines()
        for hunk in patched:
            for line in hunk:
                text = line.value.rstrip("\n")
                if line.source_line_no is not None:
                    assert base[line.source_line_no - 1] == text, (patched.path, line)
                if line.target_line_no is not None:
                    assert head[line.target_line_no - 1] == text, (patched.path, line)


# --- analyser output ---------------------------------------------------------------------


def sarif_locations(tool: str) -> list[tuple[str, str, int]]:
    """(rule id, repository-relative path, start line) of every result of one tool."""
    found = []
    for run in read_json("analysers", f"{tool}.sarif")["runs"]:
        for result in run["results"]:
            location = result["locations"][0]["physicalLocation"]
            found.append(
                (
                    result["ruleId"],
                    relative_uri(location["artifactLocation"]["uri"]),
                    location["region"]["startLine"],
                )
            )
    return found


def relative_uri(uri: str) -> str:
    """`app/x.py` from a relative URI or from Ruff's absolute file:// URI under the
    neutral checkout prefix that regen.sh writes (and quorum.toml names as `root`)."""
    if not uri.startswith("file://"):
        return uri
    root = "file://" + tomllib.loads((EXAMPLE / "quorum.toml").read_text())["root"] + "/"
    assert uri.startswith(root), f"{uri} is not under the example's root {root}"
    return uri.removeprefix(root)


@pytest.mark.parametrize("tool", ANALYSERS)
def test_analyser_output_is_sarif_with_results_on_real_lines(
    tool: str, right_lines: dict[str, set[int]]
) -> None:
    document = read_json("analysers", f"{tool}.sarif")
    assert document["version"] == "2.1.0"
    locations = sarif_locations(tool)
    assert locations, f"{tool}.sarif has no results"
    for _, path, line in locations:
        assert path.startswith("app/")
        assert_on_right_side(right_lines, path, line)


def test_versions_file_names_every_tool_and_its_result_count() -> None:
    versions = EXAMPLE.joinpath("analysers", "VERSIONS.txt").read_text(encoding="utf-8")
    for tool in ANALYSERS:
        assert re.search(rf"^{tool}: .*\d+\.\d+\.\d+$", versions, re.MULTILINE), tool
        assert f"{tool}: {len(sarif_locations(tool))} results" in versions


# --- bot comments ------------------------------------------------------------------------


def test_every_inline_comment_points_at_a_line_the_diff_shows(
    right_lines: dict[str, set[int]],
) -> None:
    comments = read_json("bots", "pulls-comments.json")
    assert len(comments) >= 10
    for comment in comments:
        assert comment["side"] == "RIGHT" and "in_reply_to_id" not in comment
        assert comment["user"]["type"] == "Bot"
        start, line = comment["start_line"], comment["line"]
        assert start is None or start < line
        assert comment["original_line"] == line
        assert_on_right_side(right_lines, comment["path"], *([start] if start else []), line)
        assert comment["diff_hunk"].splitlines()[-1][1:] == head_line(comment["path"], line)


def reviews_by(login: str) -> list[dict[str, Any]]:
    return [
        review
        for review in read_json("bots", "pulls-reviews.json")
        if review["user"]["login"] == login
    ]


def inline_count(review_id: int) -> int:
    comments = read_json("bots", "pulls-comments.json")
    return sum(comment["pull_request_review_id"] == review_id for comment in comments)


@pytest.mark.parametrize(
    ("login", "announced"),
    [
        ("coderabbitai[bot]", r"^\*\*Actionable comments posted: (\d+)\*\*"),
        ("copilot-pull-request-reviewer[bot]", r"and generated (\d+) comments\."),
        ("sourcery-ai[bot]", r"^Hey - I've found (\d+) issues"),
    ],
)
def test_review_bodies_announce_as_many_comments_as_were_posted(login: str, announced: str) -> None:
    reviews = reviews_by(login)
    assert reviews
    for review in reviews:
        match = re.search(announced, review["body"], re.MULTILINE)
        assert match, review["id"]
        assert int(match.group(1)) == inline_count(review["id"]) > 0


# Locations bots write into text rather than into the comment's path/line fields.
BODY_LOCATIONS = [
    ("coderabbit prompt", r"In `?@(app/[\w/]+\.py)`? (?:around lines (\d+) - (\d+)|at line (\d+))"),
    ("coderabbit nitpick", r"<summary>(app/[\w/]+\.py) \(\d+\)</summary>[\s\S]*?`(\d+)-(\d+)`:"),
    ("copilot suppressed", r"\*\*(app/[\w/]+\.py):(\d+)\*\*"),
    ("sourcery location", r'<location path="(app/[\w/]+\.py)" line_range="(\d+)-(\d+)" />'),
]


def all_bot_text() -> str:
    comments = read_json("bots", "pulls-comments.json")
    reviews = read_json("bots", "pulls-reviews.json")
    return "\n".join(item["body"] for item in comments + reviews)


@pytest.mark.parametrize(("kind", "pattern"), BODY_LOCATIONS, ids=[k for k, _ in BODY_LOCATIONS])
def test_locations_inside_bodies_point_at_lines_the_diff_shows(
    kind: str, pattern: str, right_lines: dict[str, set[int]]
) -> None:
    matches = list(re.finditer(pattern, all_bot_text()))
    assert matches, f"no {kind} location in the bot files"
    for match in matches:
        path, *numbers = match.groups()
        assert_on_right_side(right_lines, path, *(int(n) for n in numbers if n))


def test_issue_comments_hold_a_walkthrough_and_a_human_comment() -> None:
    comments = read_json("bots", "issue-comments.json")
    walkthrough, human = comments
    assert walkthrough["user"]["login"] == "coderabbitai[bot]"
    assert walkthrough["body"].startswith(
        "<!-- This is an auto-generated comment: summarize by coderabbit.ai -->"
    )
    assert "<!-- walkthrough_start -->" in walkthrough["body"]
    assert "<!-- internal state end -->" in walkthrough["body"]
    assert human["user"]["type"] == "User"


def test_one_comment_carries_every_hostile_construct() -> None:
    hostile = [
        comment
        for comment in read_json("bots", "pulls-comments.json")
        if "<!-- review-quorum:summary -->" in comment["body"]
    ]
    assert len(hostile) == 1
    body = hostile[0]["body"]
    title = re.search(r"^\*\*(.+?)\*\*$", body, re.MULTILINE)
    assert title
    for construct in ("<!-- review-quorum:summary -->", "@everyone", "````", "onerror="):
        assert construct in title.group(1)
    assert "\n<!-- review-quorum:summary -->\n" in body


def test_bot_files_are_what_the_generator_writes() -> None:
    spec = importlib.util.spec_from_file_location(
        "pr_review_bots", EXAMPLE / "bots" / "generate.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name, value in module.documents().items():
        assert read_json("bots", name) == value, f"bots/{name} is stale: run regen.sh"


# --- verdicts ----------------------------------------------------------------------------


def test_verdicts_point_at_real_lines_and_flag_changed_code_correctly(
    right_lines: dict[str, set[int]], added_lines: dict[str, set[int]]
) -> None:
    verdicts = read_json("verdicts.json")["verdicts"]
    assert {verdict["verdict"] for verdict in verdicts} == {"CONFIRMED", "LIKELY", "DISMISSED"}
    for verdict in verdicts:
        path, line = verdict["file"], verdict["line"]
        assert_on_right_side(right_lines, path, line)
        assert verdict["in_changed_code"] is (line in added_lines[path]), (path, line)
        assert verdict["severity"] in {"high", "medium", "low"}
        assert verdict["evidence_strength"] in {"direct", "circumstantial", "speculative"}
        assert verdict["context_completeness"] in {"full", "partial", "none"}


# --- the agreements the README promises -------------------------------------------------


BOT_NAMES = {
    "coderabbitai[bot]": "coderabbit",
    "Copilot": "copilot",
    "copilot-pull-request-reviewer[bot]": "copilot",
    "sourcery-ai[bot]": "sourcery",
}
# Findings that exist only in a review body: CodeRabbit nitpicks, Copilot's suppressed comments.
REVIEW_BODY_FINDINGS = {
    "coderabbit": BODY_LOCATIONS[1][1],
    "copilot": BODY_LOCATIONS[2][1],
}


def source_lines() -> dict[str, list[tuple[str, int]]]:
    """Every source's (path, line) hits: analysers by tool, bots by name."""
    hits: dict[str, list[tuple[str, int]]] = {
        tool: [(path, line) for _, path, line in sarif_locations(tool)] for tool in ANALYSERS
    }
    for comment in read_json("bots", "pulls-comments.json"):
        hits.setdefault(BOT_NAMES[comment["user"]["login"]], []).append(
            (comment["path"], comment["line"])
        )
    for review in read_json("bots", "pulls-reviews.json"):
        bot = BOT_NAMES[review["user"]["login"]]
        for match in re.finditer(REVIEW_BODY_FINDINGS.get(bot, "(?!)"), review["body"]):
            hits[bot].append((match.group(1), int(match.group(2))))
    return hits


ALL = {"bandit", "ruff", "semgrep", "coderabbit", "copilot", "sourcery"}
PROMISED = [
    ("sql injection in search_parts", "app/db.py", 67, ALL - {"sourcery"}),
    ("md5 password hash", "app/auth.py", 19, ALL - {"copilot"}),
    ("shell=True archive", "app/export.py", 48, ALL - {"copilot"}),
    ("hard-coded token key", "app/auth.py", 12, {"bandit", "ruff", "semgrep"}),
    ("constant f-string in get_part", "app/db.py", 54, {"bandit", "ruff", "semgrep"}),
    ("leaked report handle", "app/export.py", 27, {"semgrep", "copilot", "sourcery"}),
    ("page offset off by one", "app/db.py", 59, {"coderabbit", "copilot", "sourcery"}),
    ("inverted token expiry", "app/auth.py", 59, {"coderabbit", "copilot"}),
    ("try-except-pass", "app/export.py", 40, {"bandit", "ruff", "coderabbit"}),
    ("unused json import", "app/cli.py", 6, {"ruff", "copilot"}),
    ("subprocess import", "app/export.py", 7, {"bandit"}),
    ("reorder list in python", "app/stock.py", 40, {"sourcery"}),
    ("hostile report title", "app/cli.py", 33, {"coderabbit"}),
    ("export reads one page", "app/cli.py", 58, {"copilot"}),
]


@pytest.mark.parametrize(
    ("problem", "path", "line", "sources"), PROMISED, ids=[p[0] for p in PROMISED]
)
def test_exactly_the_promised_sources_report_each_problem(
    problem: str, path: str, line: int, sources: set[str]
) -> None:
    reporting = {
        source
        for source, hits in source_lines().items()
        if any(
            hit_path == path and abs(hit_line - line) <= LINE_WINDOW for hit_path, hit_line in hits
        )
    }
    assert reporting == sources, problem
