"""Every real bot comment in ../shared parses to what its body says.

The bodies stay in ../shared (never copied here); these tables are what we read in each
one: for findings (severity, category, file (None: the comment's own path), line, end line,
title start), for other comments the skip reasons. Records are built as the REST API
returns them: inline comments with path and line (``original_*`` when the sample notes the
comment was outdated, ``start_line`` when it was multi-line), reviews with a state, and the
sample's login with ``user.type`` "Bot" (Kodus's comments come from a person's account,
mapped to Kodus the way the configuration does it). Samples marked truncated may lack
markers; the expectations say what their text still shows.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

import orjson
import pytest

from conftest import shared_path
from review_quorum.ingest.base import Batch, ReadOptions, Source
from review_quorum.ingest.bots.authors import HUMAN
from review_quorum.ingest.github_comments import READER
from review_quorum.ingest.titles import TITLE_LIMIT

C, H, M, L, INFO = "critical", "high", "medium", "low", "info"
Row = tuple[str, str, str | None, int | None, int | None, str]
Expected = tuple[str | None, Sequence[Row] | Sequence[str]]

OTTO = "memory/persona/otto/conversations/2026-05-07-aaron-stainback-resume-combined-otto.md"

# samples.json: index -> (bot, findings) or (None, skip reason prefixes)
SAMPLES: dict[int, Expected] = {
    0: ("coderabbit", [
        (H, "logic_error", None, 1944, 1950, "Reject or canonicalize mixed-case"),
    ]),
    1: ("coderabbit", [
        (C, "logic_error", None, 204, 205, "Validate stored manifest paths"),
    ]),
    2: ("coderabbit", [
        (H, "maintainability", None, 691, 810, "Wrap these new cases in"),
    ]),
    3: ("coderabbit", [
        (L, "maintainability", None, 439, 441, "Redundant slice copy"),
    ]),
    4: ("coderabbit", [
        (H, "logic_error", None, 2009, 2015, "Do not report per-Run fallback"),
    ]),
    5: ("coderabbit", [
        (L, "maintainability", None, 109, 113, "Name the prompts that this answer"),
    ]),
    6: ("coderabbit", [
        (L, "performance", None, 253, 288, "Every evidence poll now makes"),
    ]),
    7: ("coderabbit", [
        (H, "maintainability", None, 38, 48, "Add missing trailing commas per"),
    ]),
    8: ("coderabbit", [
        (L, "maintainability", None, 7, None, "Consider the implications of"),
    ]),
    9: ("coderabbit", [
        (C, "security", None, 62, None, "Run trusted review code, not the"),
    ]),
    10: (None, ["CodeRabbit review summary with no findin"]),
    11: ("coderabbit", [
        (M, "logic_error", "src/components/catalog/search-modal.tsx", 374, 379,
         "Remove the unsupported"),
        (M, "logic_error", "src/components/catalog/search-modal.tsx", 180, None,
         "Maintain 44×44px touch"),
    ]),
    12: (None, ["CodeRabbit status notice (review skipped"]),
    13: (None, ["Sourcery reviewer's guide, not a finding"]),
    14: (None, ["Sourcery did not review: the pull reques"]),
    15: (None, ["Sourcery review overview (high-level fee"]),
    16: ("copilot", [
        (M, "other", None, 819, None, "This glossary entry references"),
    ]),
    17: ("copilot", [
        (M, "security", None, 672, None, "P0 (security): pr.title from the"),
    ]),
    18: ("copilot", [
        (L, "error_handling", None, 10, None, "Missing important environment"),
    ]),
    19: ("copilot", [
        (M, "testing", None, None, None, "Consider adding a test case to"),
    ]),
    20: ("copilot", [
        (L, "other", "memory/feedback_shadow_lesson_log_otto_catches_2026_05_07.md", 613, None,
         "P1: The pattern summary"),
    ]),
    21: (None, ["Copilot review overview, not a finding ("]),
    22: (None, ["Copilot review overview, not a finding ("]),
    23: ("copilot", [
        (L, "maintainability", "playground/shared/src/Header.tsx", 135, None,
         "Consider renaming the"),
        (L, "other", "playground/shared/src/ThemeButton.tsx", 17, None,
         "Review the removal of"),
    ]),
    24: (None, ["Copilot review overview, not a finding ("]),
    25: ("github-advanced-security", [
        (M, "security", None, 282, None, "Insecure temporary file"),
    ]),
    26: ("github-advanced-security", [
        (M, "security", None, 240, None, "Improper code sanitization"),
    ]),
    27: ("github-advanced-security", [
        (M, "security", None, 18, None, "overly broad permissions"),
    ]),
    28: ("github-advanced-security", [
        (M, "security", None, 195, None, "prefer trusted publishing for"),
    ]),
    29: ("github-code-quality", [
        (M, "maintainability", None, 28, None, "Unused variable, import, function"),
    ]),
    30: (None, ["code-scanning notice, not a finding"]),
    31: ("gemini", [
        (H, "other", None, None, None, "The current implementation allows"),
    ]),
    32: ("gemini", [
        (M, "testing", None, None, None, "There's a type mismatch in the"),
    ]),
    33: ("gemini", [
        (M, "maintainability", None, None, None, "This for loop can be simplified"),
    ]),
    34: ("gemini", [
        (H, "security", None, 49, None, "The origin validation for engine"),
    ]),
    35: ("gemini", [
        (C, "other", None, 141, None, "_focusedIndex プロパティが重複して定義されています"),
    ]),
    36: ("gemini", [
        (M, "other", None, 48, None, "この型キャスト (as IEngine<...>)"),
    ]),
    37: (None, ["Gemini review summary, not a finding (it"]),
    38: (None, ["Gemini pull request summary, not a findi"]),
    39: (None, [
        "Qodo finding 1 'Non-atomic run creation'",
        "Qodo finding 2 'Human grade bypasses rev",
        "Qodo finding 3 'Git diff executes repo c",
    ]),
    40: (None, ["Qodo finding 1 'Unescaped <id> placehold"]),
    41: ("qodo", [
        (H, "maintainability", "src/lattice_types.rs", 9, 17, "Consolidate lattice core and"),
        (H, "logic_error", "lattice_code_generator/src/lib.rs", 109, 132,
         "Fix layer storage and"),
        (H, "logic_error", "generated_lattice_code/value_type.rs", 1, None,
         "Fix incomplete match"),
        (M, "logic_error", "lattice_code_generator/src/lib.rs", 41, 54,
         "Emit u8-suffixed tuple"),
        (M, "logic_error", "self/reflection/directory/devshell_graph.dot", 1, 2,
         "Add global layout"),
        (L, "logic_error", "self/reflection/directory/devshell_graph.dot", 1, None,
         "Deduplicate edges via"),
    ]),
    42: ("sourcery", [
        (H, "logic_error", None, 169, None, "When the initialVehicleId is not"),
    ]),
    43: ("sourcery", [
        (M, "maintainability", None, 1, None, "The markdown file provides a"),
    ]),
    44: ("sourcery", [
        (H, "security", None, 143, None, "Error handling in secret path"),
    ]),
    45: ("sourcery", [
        (H, "security", None, 173, None, "Detected subprocess function"),
    ]),
    46: ("sourcery", [
        (L, "documentation", None, 19, None, "Improve the grammar of \"review"),
    ]),
}  # fmt: skip

# samples-more.json (FORMATS.md section 9)
MORE: dict[int, Expected] = {
    0: ("cursor", [
        (L, "maintainability", None, 3, 4, "Shell script contains hardcoded"),
    ]),
    1: ("cursor", [
        (M, "other", None, 817, 835, "Export validation accepts formats"),
    ]),
    2: ("cursor", [
        (L, "other", None, 291, 293, "Windows path regex fails to"),
    ]),
    3: ("cursor", [
        (H, "logic_error", None, 220, None, "Character creation exits"),
    ]),
    4: ("cursor", [
        (M, "other", None, 2290, None, "Fixpr still records global runs"),
    ]),
    5: ("cursor", [
        (L, "testing", None, 263, 312, "Duplicate main function and entry"),
    ]),
    6: (None, ["Cursor Agent availability notice, not a"]),
    7: ("greptile", [
        (M, "maintainability", None, 61, 63, "HARDCODED PROJECT NAME:"),
    ]),
    8: ("greptile", [
        (M, "logic_error", None, 36, None, "The HOOK_CMD variable uses"),
    ]),
    9: ("greptile", [
        (M, "logic_error", None, 36, None, "Critical Bug: Quote escaping"),
    ]),
    10: ("greptile", [
        (M, "error_handling", None, 77, 85, "The jq command pipes directly to"),
    ]),
    11: ("greptile", [
        (H, "other", None, None, None, "Zero GPU keys break custom"),
    ]),
    12: (None, ["Greptile review summary, not a finding ("]),
    13: (None, ["Greptile overview, not a finding (its is"]),
    14: ("greptile", [
        (M, "other", "scripts/add_global_auto_register.sh", 50, 52,
         "The message says"),
    ]),
    15: ("codex", [
        (H, "other", None, 589, None, "Respect character_creation"),
    ]),
    16: ("codex", [
        (H, "other", None, 136, 139, "Handle all return values from"),
    ]),
    17: ("codex", [
        (M, "documentation", OTTO, 301, None,
         "Update stale archive"),
    ]),
    18: (None, ["Codex review summary, not a finding (its"]),
    19: (None, ["Codex usage-limit notice, not a finding"]),
    20: (None, ["Codex usage-limit notice, not a finding"]),
    21: (None, ["Codex task report (work done), not a fin"]),
    22: (None, ["Claude Code Review set-up notice, not a"]),
    23: ("claude", [
        (C, "other", "app/middleware/auth.py", 61, 62, "인증 미들웨어 우회 가능성"),
        (H, "other", "app/core/session_blacklist.py", 54, 71, "세션 블랙리스트 Redis"),
        (H, "other", "app/auth/admin_router.py", 115, 141, "사용자 캐시 무효화 누락"),
        (M, "other", "app/core/config.py", 126, 150, "시크릿 키 검증의 한계"),
        (M, "security", "app/auth/dependencies.py", 61, None, "SQL Injection 방지 확인 필요"),
        (M, "other", "", None, None, "권한 계층 구조가 일관되지 않음"),
        (L, "other", "app/auth/web_router.py", 49, 123, "중복 코드: 사용자 세션 캐싱"),
        (L, "concurrency", "app/auth/admin_router.py", 115, 141, "동시성 문제: 사용자 권한 변경"),
        (L, "other", "app/auth/dependencies.py", 51, 57, "에러 처리 누락: JWT 디코딩"),
        (M, "other", "app/auth/web_router.py", 49, 123, "세션 검증 시 다중 Redis 호출"),
        (L, "other", "app/auth/admin_router.py", 46, 59, "사용자 목록 조회 페이지네이션"),
    ]),
    24: ("claude", [
        (C, "other", "app/auth/web_router.py", None, None, "세션 관리 보안 문제"),
        (H, "other", "app/auth/router.py", 146, None, "타이밍 공격 취약점"),
        (M, "security", "app/auth/web_router.py", 154, 158, "세션 하이재킹 위험"),
        (M, "other", "manage_users.py", 88, 90, "캐시 무효화 실패 처리"),
        (M, "security", "app/auth/router.py", 68, None, "SQL Injection 방어"),
        (M, "other", "", None, None, "Rate Limiting 부재"),
        (L, "other", "app/auth/token_repository.py", 51, None, "Refresh Token 만료 시간 검증"),
        (L, "other", "app/auth/router.py", 49, 104, "비밀번호 정책 부재"),
        (L, "other", "", None, None, "타입 힌트 일관성"),
        (L, "other", "", None, None, "매직 넘버 제거"),
        (L, "other", "", None, None, "에러 메시지 국제화"),
        (L, "other", "", None, None, "통합 테스트 부족"),
        (L, "other", "", None, None, "보안 테스트"),
    ]),
    25: ("devin", [
        (H, "logic_error", None, 17, None, "Columns table PRIMARY KEY"),
    ]),
    26: ("devin", [
        (M, "logic_error", None, 44, 48, "Migration execution and recording"),
    ]),
    27: ("devin", [
        (INFO, "testing", None, 29, 39, "Singleton getDb silently ignores"),
    ]),
    28: ("devin", [
        (INFO, "logic_error", None, 36, None, "position column is INTEGER but"),
    ]),
    29: ("devin", [
        (M, "logic_error", None, 70, 79, "isEqual treats null/undefined"),
    ]),
    30: ("devin", [
        (L, "logic_error", None, 20, 63, "Merged result retains stale"),
    ]),
    31: (None, ["Devin resolution reply (the finding was"]),
    32: ("devin", [
        (H, "logic_error", None, 15, None, "CI workflow installs pnpm 9 but"),
    ]),
    33: ("augment", [
        (H, "other", None, 24, None, "These server-level"),
    ]),
    34: ("augment", [
        (M, "concurrency", None, 3, None, "There's no concurrency configured"),
    ]),
    35: ("augment", [
        (H, "security", None, 82, None, "Using -o StrictHostKeyChecking=no"),
    ]),
    36: ("augment", [
        (L, "other", None, 36, None, "location /api will also match"),
    ]),
    37: ("cubic", [
        (H, "security", None, 82, None, "StrictHostKeyChecking=no disables"),
    ]),
    38: ("cubic", [
        (H, "other", None, 824, None, "Protect the read/export"),
    ]),
    39: (None, ["cubic finding addressed in 018cd1f, not"]),
    40: (None, ["cubic finding addressed in 211ca78, not"]),
    41: ("cubic", [
        (M, "security", None, 27, None, "Avoid inlining another copy of"),
    ]),
    42: (None, ["CodeAnt pull-request summary, not a find"]),
    43: (None, ["CodeAnt review-started notice, not a fin"]),
    44: ("codeant", [
        (L, "other", "", None, None, "Memo typing"),
    ]),
    45: ("kodus", [
        (H, "logic_error", None, 30, None, "The logic to detect orphaned"),
    ]),
    46: ("kodus", [
        (H, "security", None, 159, None, "The code is vulnerable to Stored"),
    ]),
    47: ("kodus", [
        (C, "logic_error", None, 432, 434, "The code will raise an"),
    ]),
    48: ("kodus", [
        (C, "logic_error", None, 318, 320, "The handleCallback function"),
    ]),
    49: ("macroscope", [
        (M, "logic_error", None, 412, None, "When the edited file lives in a"),
    ]),
    50: (None, ["Macroscope approvability verdict, not a"]),
    51: ("codoki", [
        (H, "concurrency", None, 1, None, "Dropping and recreating this GIN"),
    ]),
    52: ("codoki", [
        (H, "other", None, 108, None, "Edit-mode prefill reads camelCase"),
    ]),
    53: ("codoki", [
        (H, "logic_error", None, 59, None, "Using floor() with a strict '<'"),
    ]),
    54: ("codoki", [
        (M, "logic_error", None, 125, None, "If cancellationReason is"),
    ]),
    55: (None, ["SonarQube Cloud quality-gate report (fai"]),
    56: (None, ["Codemetrics subscription notice, not a f"]),
}  # fmt: skip
KODUS_ACCOUNT = {"cmc0619": "kodus"}
SUPPRESSED = {("samples.json", 20), ("samples.json", 23)}  # Copilot's low-confidence block
CONFIDENCE = {("samples-more.json", 37): 0.9, ("samples-more.json", 38): 0.9,
              ("samples-more.json", 41): 0.8}  # cubic's metadata  # fmt: skip


def load(name: str) -> list[dict[str, Any]]:
    path: Path = shared_path("fixtures", "bot-comments", name)
    loaded: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
    return loaded


def as_rest(sample: dict[str, Any], index: int) -> dict[str, Any]:
    """A REST-shaped record for a sample (see the module docstring)."""
    user = {"login": sample["login"], "type": sample.get("user_type") or "Bot"}
    record: dict[str, Any] = {"id": index, "user": user, "body": sample["body"]}
    if sample.get("url"):
        record["html_url"] = sample["url"]
    note = sample.get("note") or ""
    if sample["kind"] == "inline review comment":
        outdated = "API `line` is null" in note
        record.update(path=sample["path"], pull_request_review_id=1)
        record["original_line" if outdated else "line"] = sample["line"]
        start = re.search(r"start_line (\d+)", note)
        if start is not None:
            record["original_start_line" if outdated else "start_line"] = int(start.group(1))
    elif sample["kind"] == "review body":
        record["state"] = "COMMENTED"
    return record


def read(name: str) -> tuple[list[dict[str, Any]], Batch]:
    samples = load(name)
    records = [as_rest(sample, index) for index, sample in enumerate(samples)]
    options = ReadOptions(bot_logins=KODUS_ACCOUNT)
    return samples, READER.read(Source(name, orjson.dumps(records), options))


@pytest.fixture(scope="module")
def batches() -> dict[str, tuple[list[dict[str, Any]], Batch]]:
    return {name: read(name) for name in ("samples.json", "samples-more.json")}


@pytest.mark.parametrize(
    ("name", "table"), [("samples.json", SAMPLES), ("samples-more.json", MORE)]
)
def test_every_sample_has_an_expectation(name: str, table: dict[int, Expected]) -> None:
    assert sorted(table) == list(range(len(load(name))))


CASES = [("samples.json", index) for index in SAMPLES]
CASES += [("samples-more.json", index) for index in MORE]


@pytest.mark.parametrize(("name", "index"), CASES)
def test_sample(
    name: str, index: int, batches: dict[str, tuple[list[dict[str, Any]], Batch]]
) -> None:
    samples, batch = batches[name]
    sample = samples[index]
    bot, expected = (SAMPLES if name == "samples.json" else MORE)[index]
    found = [f for f in batch.findings if f.finding_id.split("#")[0].endswith(f":{index}")]
    skipped = [s.reason for s in batch.skipped if s.position.split("/")[1] == str(index)]
    if bot is None:
        assert found == []
        assert len(skipped) == len(expected)
        for reason, prefix in zip(skipped, expected, strict=True):
            assert isinstance(prefix, str) and reason.startswith(prefix), (reason, prefix)
        return
    assert skipped == []
    rows = [
        (f.severity.label, f.category, f.file, f.line, f.evidence.end_line, f.title) for f in found
    ]
    assert len(rows) == len(expected), rows
    for row, want in zip(rows, cast("Sequence[Row]", expected), strict=True):
        assert not isinstance(want, str)
        severity, category, file, line, end_line, title = want
        assert row[:5] == (severity, category, sample["path"] if file is None else file,
                           line, end_line), row  # fmt: skip
        assert row[5].startswith(title), (row[5], title)
    for finding in found:
        assert finding.bot == bot
        assert_sane_title(finding.title)
        assert finding.source is not None and finding.source.rest_id == index
        assert finding.source.author == sample["login"]
        assert finding.source.html_url == (sample.get("url") or "")
        assert 0.0 <= finding.category_certainty <= 1.0
        confidence = 0.3 if (name, index) in SUPPRESSED else CONFIDENCE.get((name, index), 1.0)
        assert finding.confidence == confidence


def assert_sane_title(title: str) -> None:
    assert 0 < len(title) <= TITLE_LIMIT
    assert title == title.strip() and "\n" not in title
    for markup in ("**", "`", "<details", "<summary", "<!--", "](", "![", "_|_", "<img", "<a "):
        assert markup not in title, (markup, title)
    assert title[0].isalnum() or title[0] in "\"'(_" or not title[0].isascii(), title
    assert " | " not in title and not title.startswith("_ ")
    assert not title.endswith(".")


def test_every_bot_of_the_samples_is_read_by_its_own_reader(
    batches: dict[str, tuple[list[dict[str, Any]], Batch]],
) -> None:
    bots = {f.bot for _, batch in batches.values() for f in batch.findings}
    assert bots == {
        "coderabbit", "copilot", "sourcery", "gemini", "qodo", "github-advanced-security",
        "github-code-quality", "cursor", "greptile", "codex", "claude", "devin", "augment",
        "cubic", "codeant", "kodus", "macroscope", "codoki",
    }  # fmt: skip
    reasons = [s.reason for _, batch in batches.values() for s in batch.skipped]
    assert HUMAN not in reasons
