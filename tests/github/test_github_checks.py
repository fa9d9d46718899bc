"""`github.checks.post_check_run` against the stand-in, in process, with faults injected."""

from __future__ import annotations

import pytest

from github.fake import FakeGitHub, Interrupted
from github.github_support import new_fake
from review_quorum.github.checks import post_check_run
from review_quorum.github.target import ACTIONS_BOT
from review_quorum.render.check_run import Annotation, CheckOutput

TOKEN = "ghs_checkstoken0123456789abcdefghijklmnop"


def output(count: int) -> CheckOutput:
    annotations = tuple(
        Annotation(
            f"fp{line:04d}",
            {
                "path": "src/app.py",
                "start_line": line,
                "end_line": line,
                "annotation_level": "warning",
                "title": f"Finding {line}",
                "message": "Something to look at.",
            },
        )
        for line in range(1, count + 1)
    )
    return CheckOutput("failure", "Gate failed", "## Summary", annotations, 0)


@pytest.fixture
def fake() -> FakeGitHub:
    fake = new_fake()
    fake.add_token(TOKEN, ACTIONS_BOT, installation=True)
    return fake


def post(fake: FakeGitHub, count: int) -> str:
    client = fake.client(TOKEN)
    return post_check_run(client, "octo-org/widgets", fake.head_sha, "q", output(count)).action


def test_a_run_interrupted_between_batches_is_finished_without_repeats(fake: FakeGitHub) -> None:
    fake.interrupt("checks/update", skip=1)  # killed after the create and one update
    with pytest.raises(Interrupted):
        post(fake, 120)
    [run] = fake.checks.named("q")
    assert len(fake.checks.annotations[run["id"]]) == 100
    assert post(fake, 120) == "updated"
    assert [a["start_line"] for a in fake.checks.annotations[run["id"]]] == list(range(1, 121))
    assert post(fake, 120) == "unchanged"


def test_a_create_whose_answer_was_lost_is_found_not_repeated(fake: FakeGitHub) -> None:
    fake.fail("checks/create", 502, apply=True)
    assert post(fake, 3) == "created"
    [run] = fake.checks.named("q")
    assert len(fake.checks.annotations[run["id"]]) == 3
    assert [method for method, path, _ in fake.writes()] == ["POST"]


def test_a_run_of_another_app_with_the_same_name_is_left_alone(fake: FakeGitHub) -> None:
    fake.add_token("ghs_otherapp0123456789abcdefghijklmnopqrs", "other-app[bot]")
    other = fake.client("ghs_otherapp0123456789abcdefghijklmnopqrs")
    other.write(
        "POST", "/repos/octo-org/widgets/check-runs", {"name": "q", "head_sha": fake.head_sha}
    )
    assert post(fake, 1) == "created"
    assert len(fake.checks.named("q")) == 2
