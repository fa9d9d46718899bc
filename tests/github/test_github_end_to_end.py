"""`quorum review --format json` on the bundled example, then `quorum post` to the fake, twice."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from conftest import REPO_ROOT
from github.action_harness import with_example_comments
from github.github_support import BOT, TOKEN, addressable, new_fake
from review_quorum.cli import main, posting
from review_quorum.markup.markers import find_markers

EXAMPLE = REPO_ROOT / "examples" / "pr-review"


def example_plan(output: Path, *options: str) -> Path:
    """`quorum review --format json` of the example (run in its folder) into `output`."""
    inputs = [str(path.relative_to(EXAMPLE)) for path in sorted(EXAMPLE.glob("analysers/*.sarif"))]
    inputs += [str(path.relative_to(EXAMPLE)) for path in sorted(EXAMPLE.glob("bots/*.json"))]
    argv = ["review", *inputs, "--diff", "pr.diff", *options]
    argv += ["--config", "quorum.toml", "--format", "json", "-o", str(output)]
    assert main(argv) == 1  # the example's confirmed findings fail the gate
    return output


@pytest.fixture
def plan(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(EXAMPLE)
    return example_plan(tmp_path / "plan.json", "--verdicts", "verdicts.json")


def test_the_example_review_posts_once_and_only_once(
    plan: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fake = new_fake(owner="acme", repo="stockroom", number=1)
    fake.set_diff(addressable(EXAMPLE / "pr.diff"))
    with_example_comments(fake)  # the saved bot comments are the pull request's own
    monkeypatch.setattr(
        posting,
        "make_http_client",
        lambda: httpx.Client(transport=httpx.MockTransport(fake.handle)),
    )
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    for name in ("GITHUB_ACTIONS", "GITHUB_EVENT_PATH", "GITHUB_API_URL"):
        monkeypatch.delenv(name, raising=False)
    # A saved plan is a proposal: its verdicts are not used, so it posts as a plan made
    # without them does.
    unverified = example_plan(plan.parent / "unverified.json")
    comments = json.loads(unverified.read_text(encoding="utf-8"))["github_review"]["comments"]
    inline = len({find_markers(comment["body"])[0] for comment in comments})  # once each
    assert inline > 0
    argv = ["post", str(plan), "--repo", "acme/stockroom", "--pr", "1", "--resolve-fixed"]
    assert main(argv) == 0
    assert main(argv) == 0
    err = [line for line in capsys.readouterr().err.splitlines() if "warning" not in line]
    assert err[-2] == "quorum: posting to acme/stockroom#1 ..."
    assert err[-3].startswith(f"quorum: acme/stockroom#1: posted {inline} new inline comment(s)")
    assert err[-1].startswith(
        f"quorum: acme/stockroom#1: posted 0 new inline comment(s) in 0 review(s), "
        f"{inline} already there, 0 moved to the review body, 0 refreshed, 0 marked fixed"
    )
    assert len(fake.submitted_reviews_by(BOT)) == 1
    assert len(fake.comments_by(BOT)) == inline
    [sticky] = fake.issue_comments_by(BOT)
    assert [kind for kind, _ in find_markers(sticky["body"])] == ["summary"]
    assert "Not used: the plan's 7 verifier verdict(s)." in sticky["body"]
