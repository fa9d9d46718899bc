"""The github-comments reader: REST shapes, pages, validation, authors, dedupe, real samples."""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest

from conftest import FIXTURES
from review_quorum import ingest
from review_quorum.errors import InputError, Skipped
from review_quorum.ingest.base import Batch, ReadOptions, Source
from review_quorum.ingest.bots import PARSERS, Comment, CommentKind, Parsed, ParsedFinding
from review_quorum.ingest.bots.authors import KODUS_HINT, OWN
from review_quorum.ingest.bots.generic import NO_FINDINGS
from review_quorum.ingest.comments import PullComment, read_comments
from review_quorum.ingest.github_comments import HUMAN, READER, REPLY
from review_quorum.model import CommentSource, Evidence, Severity

COMMENTS = FIXTURES / "comments"
BAD_USER = "field 'user' must be an object with a 'login' string"


def load(name: str) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = json.loads((COMMENTS / name).read_text(encoding="utf-8"))
    return records


def all_records() -> list[dict[str, Any]]:
    """The three endpoints of one pull request in one array, as `jq -s add` would join them."""
    return [
        *load("github.pull-request-comments.json"),
        *load("github.pull-request-reviews.json"),
        *load("github.issue-comments.json"),
    ]


def read(data: object, options: ReadOptions | None = None, name: str = "comments.json") -> Batch:
    raw = data if isinstance(data, bytes) else orjson.dumps(data)
    return ingest.read(Source(name, raw, options))


def rows(batch: Batch) -> list[tuple[object, ...]]:
    return [
        (f.finding_id, f.bot, f.severity.label, f.category, f.file, f.line, f.evidence.end_line)
        for f in batch.findings
    ]


def skips(batch: Batch) -> list[tuple[str, str]]:
    return [(skipped.position, skipped.reason) for skipped in batch.skipped]


def test_inline_comments_endpoint() -> None:
    batch = read((COMMENTS / "github.pull-request-comments.json").read_bytes())
    assert rows(batch) == [
        ("review-comment:1001", "coderabbit", "critical", "logic_error", "src/ledger/export.py", 33,
         None),
        ("review-comment:1002", "sourcery", "high", "logic_error", "src/ledger/export.py", 34, 35),
        ("review-comment:1003", "gemini", "high", "other", "src/ledger/report.py", 30, None),
        ("review-comment:1004", "copilot", "medium", "other", "src/ledger/settings.py", 8, None),
        ("review-comment:1005#code-scanning/41", "github-advanced-security", "medium", "security",
         "src/ledger/upload.py", 21, None),
        ("review-comment:1008", "coderabbit", "medium", "maintainability", "src/ledger/money.py",
         10, 14),
    ]  # fmt: skip
    assert skips(batch) == [("/5", HUMAN), ("/6", REPLY)]
    assert batch.findings[1].suggestion == "    if entry.posted_at.date() <= end:"


def test_reviews_endpoint() -> None:
    batch = read((COMMENTS / "github.pull-request-reviews.json").read_bytes())
    assert [finding.finding_id for finding in batch.findings] == [
        *(f"review:900#{number}" for number in range(1, 6)),
        "review:901#1",
        "review:901#2",
        "review:903#1",
        "review:903#2",
    ]
    assert [finding.confidence for finding in batch.findings][-2:] == [0.3, 0.3]
    assert skips(batch) == [("/3/body", "empty code-scanning review body"), ("/4", HUMAN)]


def test_issue_comments_endpoint() -> None:
    batch = read((COMMENTS / "github.issue-comments.json").read_bytes())
    assert rows(batch) == [
        ("issue-comment:3002#1", "qodo", "high", "logic_error", "src/ledger/refunds.py", 40, 46),
        ("issue-comment:3002#3", "qodo", "medium", "security", "src/ledger/webhooks.py", 18, None),
        ("issue-comment:3002#5", "qodo", "medium", "error_handling", "", None, None),
    ]
    assert skips(batch) == [
        ("/0/body", "CodeRabbit walkthrough, not a finding"),
        ("/1/body", "Qodo finding 2 'Unused import left behind' is marked resolved"),
        ("/1/body", "Qodo finding 4 'Timeout not configurable' is marked dismissed"),
    ]


def test_summary_copies_of_inline_findings_are_dropped_as_duplicates() -> None:
    records = all_records()
    coderabbit_review = len(load("github.pull-request-comments.json"))  # reviews follow inline
    sourcery_review = coderabbit_review + 1
    sourcery_inline = {
        "id": 1010,
        "pull_request_review_id": 901,
        "user": {"login": "sourcery-ai[bot]", "type": "Bot"},
        "body": "**issue (bug_risk):** Totals are keyed by account name, so two accounts with "
        "the same name are merged.",
        "path": "src/ledger/report.py",
        "line": 34,
        "start_line": 30,
    }
    before = read(records)
    after = read([*records, sourcery_inline])
    assert (f"/{coderabbit_review}", "same finding as the inline comment at /0") in skips(before)
    assert (f"/{sourcery_review}", f"same finding as the inline comment at /{len(records)}") in (
        skips(after)
    )
    ids = [finding.finding_id for finding in after.findings]
    assert "review:900#5" not in ids and "review:901#1" not in ids
    assert ids[-1] == "review-comment:1010"
    assert len(after.findings) == len(before.findings)  # one inline in, its summary copy out
    record_numbers = [int(position.split("/")[1]) for position, _ in skips(after)]
    assert record_numbers == sorted(record_numbers)  # duplicates are reported in input order


def test_paginated_pages_back_to_back() -> None:
    data = (COMMENTS / "github.paginated-pages.json").read_bytes()
    assert ingest.detect_format(Source("pages.json", data)) == "github-comments"
    batch = read(data)
    single = read((COMMENTS / "github.pull-request-comments.json").read_bytes())
    assert rows(batch) == rows(single)
    assert skips(batch) == [("/1/2", HUMAN), ("/1/3", REPLY)]


def test_slurped_pages() -> None:
    records = load("github.pull-request-comments.json")
    batch = read([records[:3], records[3:], "not a page"])
    assert rows(batch) == rows(read(records))
    assert skips(batch) == [
        ("/1/2", HUMAN),
        ("/1/3", REPLY),
        ("/2", "record must be an object, not str"),
    ]


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b'[{"user": {"login": "a"}, "body": "x"}]', "github-comments"),
        (b'[[{"user": {"login": "a"}, "body": "x"}]]', "github-comments"),
        (b'[{"user": {"login": "a"}, "body": "trunc', "github-comments"),
        (b'\xef\xbb\xbf[{"id": 1, "user": null, "body": null}]', "github-comments"),
        (b"[]", "native"),
        (b'[{"bot": "a", "severity": "high", "category": "other", "title": "t"}]', "native"),
    ],
)
def test_detection(data: bytes, expected: str) -> None:
    assert ingest.detect_format(Source("x.json", data)) == expected


@pytest.mark.parametrize(
    "data",
    [b'{"user": {"login": "a"}, "body": "x"}', b'[{"user": {"login": "a"}}]', b"[1, 2]", b"[[]]"],
)
def test_not_detected(data: bytes) -> None:
    assert not READER.detect(Source("x.json", data))


@pytest.mark.parametrize(
    ("data", "position", "message"),
    [
        (b'[{"user": {"login": "a"}, "body": "x"', "line 1 column 38", "invalid JSON"),
        (b'{"message": "Bad credentials", "status": "401"}', "/",
         r"expected a JSON array of GitHub comments .*\(GitHub said: Bad credentials\)"),
        (b'{"comments": []}', "/", "expected a JSON array of GitHub comments"),
        (b'[{"user": {"login": "a"}, "body": "x"}] [1', "line 1 column 41", "invalid JSON"),
        (b'[{"user": {"login": "a"}, "body": "x"}] {"a": 1}', "line 1 column 41", "invalid JSON"),
        (b"[" * 2000 + b"]" * 2000, "line 1 column", "invalid JSON"),
        (b'[{"user": {"login": "a"}, "body": "\xff"}]', "line 1 column 36", "not UTF-8"),
    ],
)  # fmt: skip
def test_broken_files_raise_input_error(data: bytes, position: str, message: str) -> None:
    with pytest.raises(InputError, match=message) as raised:
        READER.read(Source("broken.json", data))
    assert raised.value.source == "broken.json"
    assert raised.value.position.startswith(position)


@pytest.mark.parametrize(
    ("record", "reason"),
    [
        ("text", "record must be an object, not str"),
        (None, "record must be an object, not null"),
        ({"user": None, "body": "x"}, HUMAN),
        ({"user": "coderabbitai", "body": "x"}, BAD_USER),
        ({"user": {"login": 7}, "body": "x"}, BAD_USER),
        ({"user": {"login": "Copilot"}, "body": 5}, "field 'body' must be a string, not int"),
        ({"user": {"login": "Copilot"}, "body": "x", "path": ["a"]},
         "field 'path' must be a string, not list"),
        ({"user": {"login": "Copilot"}, "body": "x", "path": "a.py", "line": 0},
         "field 'line' must be a positive integer or null, not 0"),
        ({"user": {"login": "Copilot"}, "body": "x", "path": "a.py", "line": "3"},
         "field 'line' must be a positive integer or null, not \"3\""),
        ({"user": {"login": "Copilot"}, "body": "x", "path": "a.py", "start_line": True},
         "field 'start_line' must be a positive integer or null, not true"),
        ({"user": {"login": "Copilot"}, "body": "x", "path": "a.py", "original_line": 1.5},
         "field 'original_line' must be a positive integer or null, not 1.5"),
        ({"user": {"login": "Copilot"}, "body": "x", "in_reply_to_id": 3}, REPLY),
        ({"user": {"login": "octocat", "type": "User"}, "body": "[high] a.py:1 bad"}, HUMAN),
        ({"user": {"login": "claude", "type": "User"}, "body": "[high] a.py:1 bad"}, HUMAN),
        ({"user": {"login": "github-actions[bot]"},
          "body": "<!-- review-quorum:summary -->\n[high] a.py:1 bad"}, OWN),
        ({"user": {"login": "github-actions[bot]", "type": "Bot"},
          "body": "<!-- review-quorum:finding abc -->\r\nThe loop never ends.", "path": "a.py"},
         OWN),
    ],
)  # fmt: skip
def test_unusable_records_are_skipped_with_their_pointer(record: object, reason: str) -> None:
    good = {"user": {"login": "Copilot"}, "body": "The loop never ends.", "path": "a.py", "line": 2}
    batch = READER.read(Source("c.json", orjson.dumps([good, record])))
    assert [finding.title for finding in batch.findings] == ["The loop never ends"]
    deliberate = reason in (HUMAN, REPLY, OWN)  # by design no finding, not broken
    assert batch.skipped == [Skipped("c.json", "/1", reason, not_a_finding=deliberate)]


def test_include_humans_reads_human_comments() -> None:
    records = [
        {"id": 1, "user": {"login": "alice"}, "body": "This leaks the file handle.",
         "path": "src/a.py", "line": 4, "start_line": 2},
        {"id": 2, "user": {"login": "bob"}, "body": "[high] src/b.py:9 SQL injection\n[low]",
         "state": "COMMENTED"},
        {"id": 3, "user": {"login": "carol"}, "body": "Thanks!"},
        {"id": 4, "user": {"login": "github-code-quality[bot]"}, "body": "## Unused import",
         "path": "src/c.ts", "line": 1},
        {"id": 5, "user": None, "body": "ghost"},
        {"id": 6, "user": {"login": "dave"}, "body": "<!-- only -->", "path": "a.py", "line": 1},
    ]  # fmt: skip
    batch = read(records, ReadOptions(include_humans=True))
    assert rows(batch) == [
        ("review-comment:1", "alice", "medium", "resource_leak", "src/a.py", 2, 4),
        ("review:2", "bob", "high", "security", "src/b.py", 9, None),
        ("review-comment:4", "github-code-quality", "medium", "maintainability", "src/c.ts", 1,
         None),
    ]  # fmt: skip
    assert skips(batch) == [
        ("/1/body", "severity tag without a finding message"),
        ("/2/body", f"carol {NO_FINDINGS}"),
        ("/4", HUMAN),
        ("/5/body", "dave comment with no text"),
    ]
    assert [f.title for f in batch.findings] == [
        "This leaks the file handle",
        "SQL injection",
        "Unused import",
    ]


def test_people_are_skipped_by_default_and_bots_never_are() -> None:
    records = [
        {"id": 1, "user": {"login": "alice", "type": "User"}, "body": "This leaks the handle.",
         "path": "src/a.py", "line": 4},
        {"id": 2, "user": {"login": "github-code-quality[bot]"}, "body": "## Unused import",
         "path": "src/c.ts", "line": 1},
        {"id": 3, "user": {"login": "graphite-app", "type": "Bot"},
         "body": "**High:** the retry loop never stops.", "path": "src/d.py", "line": 7},
        {"id": 4, "user": {"login": "renovate[bot]", "type": "Bot"}, "body": "Config updated."},
    ]  # fmt: skip
    batch = read(records)
    assert rows(batch) == [
        ("review-comment:2", "github-code-quality", "medium", "maintainability", "src/c.ts", 1,
         None),
        ("review-comment:3", "graphite-app", "high", "error_handling", "src/d.py", 7, None),
    ]  # fmt: skip
    assert skips(batch) == [
        ("/0", HUMAN),
        ("/3/body", f"renovate {NO_FINDINGS}"),
    ]


def test_bot_option_overrides_the_bot_name() -> None:
    batch = read(load("github.pull-request-comments.json"), ReadOptions(bot="team-review"))
    assert {finding.bot for finding in batch.findings} == {"team-review"}


def test_root_option_normalises_absolute_paths() -> None:
    record = {"user": {"login": "Copilot"}, "body": "Bad.", "path": "/repo/src/a.py", "line": 3}
    batch = read([record], ReadOptions(root="/repo"))
    assert batch.findings[0].file == "src/a.py"


def test_record_without_an_id_is_named_by_its_pointer() -> None:
    record = {"user": {"login": "Copilot"}, "body": "Bad.", "path": "a.py", "line": 3}
    assert read([record, record]).findings[1].finding_id == "review-comment:/1"


def test_qodo_diff_anchors_resolve_to_paths_seen_in_the_input() -> None:
    guide = (COMMENTS / "qodo.merge-reviewer-guide.md").read_text(encoding="utf-8")
    records = [
        {"id": 1, "user": {"login": "qodo-merge-pro[bot]"}, "body": guide},
        {"id": 2, "user": {"login": "octocat"}, "body": "?", "path": "src/ledger/export.py",
         "line": 1},
    ]  # fmt: skip
    batch = read(records)
    assert rows(batch) == [
        ("issue-comment:1#1", "qodo", "medium", "resource_leak", "src/ledger/export.py", 21, 24),
        ("issue-comment:1#2", "qodo", "medium", "logic_error", "", None, None),
    ]


def test_consensus_cli_reads_comment_files(capsys: pytest.CaptureFixture[str]) -> None:
    from review_quorum.cli import main

    code = main(
        [
            "consensus",
            "--format",
            "json",
            "--gate-level",
            "none",
            str(COMMENTS / "github.pull-request-comments.json"),
        ]
    )
    document = json.loads(capsys.readouterr().out)
    assert code == 0
    export = [item for item in document["findings"] if item["file"] == "src/ledger/export.py"]
    assert [(item["line"], item["detected_by"]) for item in export] == [
        (33, ["coderabbit", "sourcery"])
    ]
    assert [item["reason"] for item in document["skipped"]] == [HUMAN, REPLY]


def test_a_parser_bug_becomes_a_skipped_record(monkeypatch: pytest.MonkeyPatch) -> None:
    class Broken:
        name = "broken"

        def parse(self, comment: Comment) -> Parsed:
            draft = ParsedFinding(Severity.HIGH, "other", "t", "a.py", line=9, end_line=3)
            return Parsed(findings=(draft,))

    monkeypatch.setitem(PARSERS, "copilot", Broken())
    batch = read([{"user": {"login": "Copilot"}, "body": "x", "path": "a.py", "line": 9}])
    assert batch.findings == []
    assert len(batch.skipped) == 1 and "end_line 3" in batch.skipped[0].reason


def test_findings_keep_their_comment_body_suggestion_and_locations() -> None:
    record = {
        "id": 77, "node_id": "PRRC_x77", "html_url": "https://github.com/acme/ledger/pull/7#r77",
        "user": {"login": "cursor[bot]", "type": "Bot"},
        "body": (COMMENTS / "cursor.inline-severity-line.md").read_text(encoding="utf-8"),
        "path": "/repo/src/ledger/refunds.py", "line": 46,
    }  # fmt: skip
    (finding,) = read([record], ReadOptions(root="/repo")).findings
    assert finding.source == CommentSource(
        "review_comment", 77, "PRRC_x77", "https://github.com/acme/ledger/pull/7#r77", "cursor[bot]"
    )
    assert (finding.file, finding.line, finding.evidence.end_line) == (
        "src/ledger/refunds.py",
        40,
        46,
    )
    assert finding.related == (Evidence("src/ledger/report.py", 12, end_line=13),)
    assert finding.body.startswith("The refund total sums only full refunds")
    assert finding.category_certainty == 0.0


def test_read_comments_takes_the_kind_from_the_caller() -> None:
    body = (COMMENTS / "codex.review-with-findings.md").read_text(encoding="utf-8")
    record = {"id": 5, "user": {"login": "chatgpt-codex-connector[bot]"}, "body": body}
    batch = read_comments([PullComment(record, CommentKind.REVIEW)], name="pr")
    assert [(f.finding_id, f.source.kind if f.source else None) for f in batch.findings] == [
        ("review:5#1", "review"),
        ("review:5#2", "review"),
    ]
    notice = {**record, "body": (COMMENTS / "codex.usage-limit.md").read_text(encoding="utf-8")}
    assert read_comments([PullComment(notice, CommentKind.ISSUE, "/x")]).skipped == [
        Skipped("github", "/x/body", "Codex usage-limit notice, not a finding", True)
    ]


def test_bot_option_reads_every_comment_of_the_file_as_that_bot() -> None:
    records = [
        {"id": 1, "user": {"login": "octocat", "type": "User"}, "body": "**High:** the lock "
         "is never released.", "path": "src/a.py", "line": 3},
        {"id": 2, "user": {"login": "coderabbitai[bot]"}, "body": "_🧹 Nitpick_ | _🔵 Trivial_"
         "\n\n**Sort the imports.**", "path": "src/b.py", "line": 1},
        {"id": 3, "user": {"login": "github-actions[bot]"},
         "body": "<!-- review-quorum:summary -->\nours"},
        {"id": 4, "user": {"login": "octocat"}, "body": "why?", "in_reply_to_id": 1},
    ]  # fmt: skip
    batch = read(records, ReadOptions(bot="team-review"))
    assert rows(batch) == [
        ("review-comment:1", "team-review", "high", "other", "src/a.py", 3, None),
        ("review-comment:2", "team-review", "low", "maintainability", "src/b.py", 1, None),
    ]
    assert skips(batch) == [("/2", OWN), ("/3", REPLY)]


def test_the_configuration_maps_logins_to_bots() -> None:
    body = (COMMENTS / "kodus.inline-bug.md").read_text(encoding="utf-8")
    records = [
        {"id": 1, "user": {"login": "octo-dev", "type": "User"}, "body": body,
         "path": "src/ledger/report.py", "line": 30},
        {"id": 2, "user": {"login": "octo-dev", "type": "User"}, "body": "Fixed, thanks.",
         "path": "src/ledger/report.py", "line": 30},
    ]  # fmt: skip
    unmapped = read(records)
    mapped = read(records, ReadOptions(bot_logins={"octo-dev": "kodus"}))
    assert skips(unmapped) == [("/0", HUMAN + KODUS_HINT), ("/1", HUMAN)]
    assert rows(mapped) == [
        ("review-comment:1", "kodus", "medium", "logic_error", "src/ledger/report.py", 30, None)
    ]
    assert skips(mapped) == [
        ("/1/body", "comment without the Kodus signature (by the account's owner)")
    ]


@pytest.mark.parametrize(
    ("logins", "bots"),
    [({}, ["qodo", "qodo"]), ({"qodo-merge-pro": "qodo-merge"}, ["qodo", "qodo-merge"])],
)
def test_qodo_logins_are_one_bot_or_two(logins: dict[str, str], bots: list[str]) -> None:
    review = (COMMENTS / "qodo.code-review-open-findings.md").read_text(encoding="utf-8")
    merge = (COMMENTS / "qodo.merge-code-suggestions.md").read_text(encoding="utf-8")
    records = [
        {"id": 1, "user": {"login": "qodo-code-review[bot]"}, "body": review},
        {"id": 2, "user": {"login": "qodo-merge-pro[bot]"}, "body": merge},
    ]
    batch = read(records, ReadOptions(bot_logins=logins))
    by_comment = {f.finding_id.split("#")[0]: f.bot for f in batch.findings}
    assert list(by_comment.values()) == bots


def test_diff_anchors_resolve_against_paths_other_comments_name() -> None:
    nitpicks = (COMMENTS / "codeant.nitpicks.md").read_text(encoding="utf-8")
    records = [
        {"id": 1, "user": {"login": "codeant-ai[bot]"}, "body": nitpicks},
        {"id": 2, "user": {"login": "octocat"}, "body": "?", "path": "src/ledger/export.py",
         "line": 1},
    ]  # fmt: skip
    assert [(f.title, f.file, f.line) for f in read(records).findings] == [
        ("Page loop bound", "src/ledger/export.py", 18),
        ("Unused import", "", None),
    ]


def test_a_review_body_finding_repeated_inline_is_counted_once() -> None:
    body = (COMMENTS / "codex.review-with-findings.md").read_text(encoding="utf-8")
    inline = (COMMENTS / "codex.inline-badge.md").read_text(encoding="utf-8")
    inline = inline.replace("Keep the currency when splitting a refund", "Name the refund ceiling")
    records = [
        {"id": 1, "user": {"login": "chatgpt-codex-connector[bot]"}, "body": body,
         "state": "COMMENTED"},
        {"id": 2, "user": {"login": "chatgpt-codex-connector[bot]"}, "body": inline,
         "path": "src/ledger/limits.py", "line": 3},
    ]  # fmt: skip
    batch = read(records)
    assert [f.finding_id for f in batch.findings] == ["review:1#1", "review-comment:2"]
    assert skips(batch) == [("/0", "same finding as the inline comment at /1")]


QUOTED_MARKERS = [
    "The query is built from input.\n\n```\n<!-- review-quorum:summary -->\n```",
    "The query is built from input.\n<!-- review-quorum:finding 0123abcd -->",
    "<!-- review-quorum:summary -->\nThe query is built from input.",
]


@pytest.mark.parametrize("body", QUOTED_MARKERS)
def test_a_bot_quoting_our_marker_is_read_as_usual(body: str) -> None:
    record = {"id": 9, "user": {"login": "Copilot", "type": "Bot"}, "body": body}
    batch = read([{**record, "path": "app/db.py", "line": 12}])
    assert rows(batch) == [
        ("review-comment:9", "copilot", "medium", "other", "app/db.py", 12, None)
    ]
    assert skips(batch) == []


def test_our_login_is_ours_only_when_the_body_opens_with_our_marker() -> None:
    ours = "<!-- review-quorum:finding 0123abcd -->\n**Title**"
    records = [
        {"id": 1, "user": {"login": "quorum-app[bot]", "type": "Bot"}, "body": ours},
        {"id": 2, "user": {"login": "github-actions[bot]", "type": "Bot"}, "body": ours},
        {"id": 3, "user": {"login": "github-actions[bot]", "type": "Bot"},
         "body": f"[high] a.py:1 bad\n{ours}"},
    ]  # fmt: skip
    assert skips(read(records, ReadOptions(own_login="quorum-app[bot]"))) == [
        ("/0", OWN),
        ("/1", OWN),
    ]
    default = read(records)  # quorum-app[bot] is no login of ours: read as any bot
    assert [f.bot for f in default.findings] == ["github-actions"]
    assert [where for where, reason in skips(default) if reason == OWN] == ["/1"]


def test_look_alike_logins_are_not_extra_bots() -> None:
    """Issue 33 item 3: a zero-width space is dropped before attribution (the same bot), and a
    Cyrillic i makes an unknown author, skipped with a reason naming the bot imitated."""
    body = "The token is compared with `==`, which leaks its length through timing."
    comments = [
        {"id": n, "user": {"login": login, "type": "Bot"}, "body": body, "path": "a.py", "line": 4}
        for n, login in enumerate(["Copilot", "Copilot\u200b", "Cop\u0456lot", "Copilot\u202e"])
    ]
    batch = read(comments)
    assert [f.bot for f in batch.findings] == ["copilot", "copilot", "copilot"]
    assert skips(batch) == [
        ("/2", "comment by an unknown author whose login 'cop\u0456lot' looks like copilot's "
         "but is not it"),
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("login", "imitated"),
    [
        ("c\u043ederabbitai", "coderabbit"),  # Cyrillic o
        ("gemini-c\u03bfde-assist[bot]", "gemini"),  # Greek omicron
        ("curs0r[bot]", "cursor"),  # a digit zero
        ("cl\u0430\u0301ude", "claude"),  # Cyrillic a with a combining accent
    ],
)
def test_a_look_alike_is_skipped_even_when_people_are_read(login: str, imitated: str) -> None:
    comment = {"id": 1, "user": {"login": login, "type": "User"}, "body": "A bug.", "path": "a.py"}
    batch = read([comment], ReadOptions(include_humans=True))
    assert batch.findings == []
    assert [reason for _, reason in skips(batch)] == [
        f"comment by an unknown author whose login {login.lower().removesuffix('[bot]')!r} "
        f"looks like {imitated}'s but is not it"
    ]


def test_a_login_named_in_the_configuration_is_honoured_even_if_it_looks_alike() -> None:
    comment = {
        "id": 1,
        "user": {"login": "curs0r"},
        "body": "Possible bug: x is None.",
        "path": "a.py",
    }
    batch = read([comment], ReadOptions(bot_logins={"curs0r": "house-linter"}))
    assert [f.bot for f in batch.findings] == ["house-linter"]
