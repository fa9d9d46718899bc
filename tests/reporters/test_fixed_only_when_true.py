"""Issue 28's "fixed only when it is true" on the thread platforms, end to end over HTTP
against the Azure DevOps and Bitbucket stand-ins (`delivery.fixing`, the rule GitHub and
GitLab apply too).

Greptile reports three findings and Gemini one; on the next push Greptile reports only the
third (it ran), Gemini nothing (it did not run). Of Greptile's two findings no longer
reported, the one whose line the push rewrote is fixed; the one whose line is unchanged
stays open, and so does Gemini's, "not re-checked". Without the head's code at hand
nothing is marked fixed: the threads say why.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pytest

from azure_devops import ado_support
from bitbucket import bitbucket_support
from review_quorum.cli import main
from review_quorum.markup.markers import find_markers

PATH = "src/stock.py"
PUSHED = "d" * 40
GREPTILE, GEMINI = "greptile-apps", "gemini-code-assist"
NOTES = {  # line -> (bot, body)
    10: (GREPTILE, "**Unbounded retry loop**\n\nThe sync retries forever when it is down."),
    20: (GREPTILE, "**Stock read outside the lock**\n\nTwo workers reserve the last item."),
    30: (GREPTILE, "**Batch size without a limit**\n\nOne call can load every product."),
    14: (
        GEMINI,
        "![high](https://www.gstatic.com/codereviewagent/high-priority.svg)\n\n"
        "The lookup table is rebuilt on every call, which makes the loop quadratic.",
    ),
}
OPTIONS = [
    "--resolve-fixed", "--inline-level", "unverified", "--threshold", "30", "--cap", "50",
    "--line-window", "0", "--gate-level", "unverified",
]  # fmt: skip


def write_checkout(root: Path, fixed: bool) -> None:
    """The head's src/stock.py, 40 lines; the push rewrites line 20 (`fixed`)."""
    lines = [f"stock_{n} = load_stock({n})" for n in range(1, 41)]
    if fixed:
        lines[19] = "with stock_lock: stock_20 = load_stock(20)"
    (root / "src").mkdir(parents=True, exist_ok=True)
    (root / PATH).write_text("\n".join(lines) + "\n", encoding="utf-8")


class Platform:
    """What the scenario needs of one platform's stand-in."""

    name: str
    argv: list[str]
    quorum: str

    def serve(self, monkeypatch: pytest.MonkeyPatch) -> AbstractContextManager[Any]:
        raise NotImplementedError

    def seed(self, fake: Any, line: int, bot: str, body: str) -> None:
        raise NotImplementedError

    def drop(self, fake: Any, line: int) -> None:
        raise NotImplementedError

    def push(self, fake: Any, monkeypatch: pytest.MonkeyPatch) -> None:
        raise NotImplementedError

    def ours(self, fake: Any) -> dict[int, tuple[str, bool]]:
        """Our finding threads by line: (text, marked fixed on the platform)."""
        raise NotImplementedError


class Azure(Platform):
    name = "azure"
    argv = ["review", "--azure-devops", *ado_support.PULL, "--reporter", "azure-devops-pr"]
    quorum = ado_support.QUORUM

    def serve(self, monkeypatch: pytest.MonkeyPatch) -> AbstractContextManager[Any]:
        return ado_support.over_http(monkeypatch)

    def seed(self, fake: Any, line: int, bot: str, body: str) -> None:
        fake.add_thread(bot, body, path=PATH, line=line)

    def drop(self, fake: Any, line: int) -> None:
        for thread in fake.threads:
            context = thread.get("threadContext") or {}
            author = thread["comments"][0]["author"]["displayName"]
            if author != self.quorum and context.get("rightFileEnd", {}).get("line") == line:
                thread["isDeleted"] = True

    def push(self, fake: Any, monkeypatch: pytest.MonkeyPatch) -> None:
        fake.push(PUSHED, {PATH: 40}, lambda path, line: line)

    def ours(self, fake: Any) -> dict[int, tuple[str, bool]]:
        return {
            t["threadContext"]["rightFileEnd"]["line"]: (
                t["comments"][0]["content"],
                t["status"] == "fixed",
            )
            for t in fake.threads_by(self.quorum)
            if "threadContext" in t
        }


class Bitbucket(Platform):
    name = "bitbucket"
    argv = ["review", "--bitbucket", *bitbucket_support.PULL, "--reporter", "bitbucket-pr"]
    quorum = bitbucket_support.QUORUM

    def serve(self, monkeypatch: pytest.MonkeyPatch) -> AbstractContextManager[Any]:
        monkeypatch.setenv("BITBUCKET_COMMIT", bitbucket_support.HEAD)
        return bitbucket_support.over_http(monkeypatch)

    def seed(self, fake: Any, line: int, bot: str, body: str) -> None:
        fake.add_comment(bot, body, path=PATH, line=line)

    def drop(self, fake: Any, line: int) -> None:
        for comment in fake.comments:
            inline = comment.get("inline") or {}
            if comment["user"]["display_name"] != self.quorum and inline.get("to") == line:
                comment["deleted"] = True

    def push(self, fake: Any, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv("BITBUCKET_COMMIT", PUSHED)
        fake.push(PUSHED, {PATH: 40}, lambda path, line: line)

    def ours(self, fake: Any) -> dict[int, tuple[str, bool]]:
        return {
            c["inline"]["to"]: (c["content"]["raw"], "resolution" in c)
            for c in fake.comments_by(self.quorum)
            if "inline" in c
        }


PLATFORMS = [Azure(), Bitbucket()]


def scenario(
    platform: Platform,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    checkout: Callable[[bool], list[str]],
) -> tuple[dict[int, tuple[str, bool]], str]:
    """Post, push (Greptile drops lines 10 and 20, Gemini reports nothing), post again:
    our threads by line afterwards, and the second run's log."""
    with platform.serve(monkeypatch) as (fake, errors):
        for line, (bot, body) in NOTES.items():
            platform.seed(fake, line, bot, body)
        assert main([*platform.argv, *OPTIONS, *checkout(False)]) == 1
        assert sorted(platform.ours(fake)) == [10, 14, 20, 30]
        capsys.readouterr()
        platform.push(fake, monkeypatch)
        for line in (10, 20, 14):
            platform.drop(fake, line)
        assert main([*platform.argv, *OPTIONS, *checkout(True)]) == 1
        assert errors == []
    return platform.ours(fake), capsys.readouterr().err


def unchecked(body: str) -> bool:
    return any(kind == "unchecked" for kind, _ in find_markers(body))


@pytest.mark.parametrize("platform", PLATFORMS, ids=lambda p: p.name)
def test_only_the_finding_whose_line_changed_is_fixed_when_its_bot_ran(
    platform: Platform,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    def checkout(fixed: bool) -> list[str]:
        write_checkout(tmp_path / "head", fixed)
        return ["--checkout", str(tmp_path / "head")]

    threads, log = scenario(platform, monkeypatch, capsys, checkout)
    assert [line for line, (_, fixed) in threads.items() if fixed] == [20]
    assert "review-quorum no longer reports this finding" in threads[20][0]
    same, _ = threads[10]  # Greptile ran, its line is unchanged: not fixed
    assert unchecked(same) and "its lines did not change, so it is not marked fixed" in same
    gemini, _ = threads[14]  # Gemini did not run: its finding is not re-checked
    assert unchecked(gemini) and "gemini did not report" in gemini
    reported, fixed = threads[30]
    assert not fixed and not unchecked(reported)
    assert "kept open" in log and "2 kept open" in log


@pytest.mark.parametrize("platform", PLATFORMS, ids=lambda p: p.name)
def test_without_the_code_nothing_is_marked_fixed_and_the_threads_say_why(
    platform: Platform, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    threads, log = scenario(platform, monkeypatch, capsys, lambda fixed: [])
    assert not any(fixed for _, fixed in threads.values())
    for line in (10, 20):
        body, _ = threads[line]
        assert unchecked(body) and "its code was not at hand" in body
    assert "gemini did not report" in threads[14][0]
    assert "3 kept open" in log


@pytest.mark.parametrize("platform", PLATFORMS, ids=lambda p: p.name)
def test_a_bot_that_stops_reporting_resolves_nothing(
    platform: Platform,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    def checkout(fixed: bool) -> list[str]:
        write_checkout(tmp_path / "head", fixed)
        return ["--checkout", str(tmp_path / "head")]

    with platform.serve(monkeypatch) as (fake, errors):
        for line, (bot, body) in NOTES.items():
            platform.seed(fake, line, bot, body)
        assert main([*platform.argv, *OPTIONS, *checkout(False)]) == 1
        capsys.readouterr()
        platform.push(fake, monkeypatch)
        for line in NOTES:  # neither bot reports on the new head, though line 20 changed
            platform.drop(fake, line)
        assert main([*platform.argv, *OPTIONS, *checkout(True)]) == 0
        assert errors == []
    threads = platform.ours(fake)
    assert sorted(threads) == [10, 14, 20, 30]
    assert not any(fixed for _, fixed in threads.values())
    assert all(unchecked(body) and "did not report" in body for body, _ in threads.values())
    assert "4 kept open" in capsys.readouterr().err


@pytest.mark.parametrize("platform", PLATFORMS, ids=lambda p: p.name)
def test_with_the_diff_alone_the_line_the_thread_stands_on_decides(
    platform: Platform,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    """No checkout: the pull request's diff (the whole file is new) holds the head's lines;
    the thread on line 20 now stands on other text, the one on line 10 on the same."""

    def diff(fixed: bool) -> list[str]:
        write_checkout(tmp_path / "head", fixed)
        lines = (tmp_path / "head" / PATH).read_text(encoding="utf-8").splitlines()
        text = f"--- /dev/null\n+++ b/{PATH}\n@@ -0,0 +1,40 @@\n"
        (tmp_path / "pr.diff").write_text(text + "".join(f"+{x}\n" for x in lines), "utf-8")
        return ["--diff", str(tmp_path / "pr.diff")]

    threads, log = scenario(platform, monkeypatch, capsys, diff)
    assert [line for line, (_, fixed) in threads.items() if fixed] == [20]
    assert "its lines did not change" in threads[10][0]
    assert "gemini did not report" in threads[14][0]
    assert "2 kept open" in log
