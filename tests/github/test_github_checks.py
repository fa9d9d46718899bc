"""`github.checks.post_check_run` against the stand-in, in process, with faults injected:
interruptions, and creates and annotation updates whose answer was lost (a 502 or a reset
connection after GitHub applied them), which must not add an annotation twice."""

from __future__ import annotations

import pytest
from msgspec.structs import replace

from github.fake import FakeGitHub, Interrupted
from github.github_support import new_fake
from review_quorum.errors import GitHubError
from review_quorum.github import RetryPolicy
from review_quorum.github.checks import post_check_run, recorded
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


def lines(fake: FakeGitHub) -> list[int]:
    [run] = fake.checks.named("q")
    return [annotation["start_line"] for annotation in fake.checks.annotations[run["id"]]]


def lose_answer(fake: FakeGitHub, how: str, *, apply: bool) -> None:
    """The first annotation update (the run's 51st to 100th) fails: GitHub answers 502 or
    the connection is reset, after applying the request or before."""
    if how == "502":
        fake.fail("checks/update", 502, body={"message": "Bad Gateway"}, apply=apply)
    else:
        fake.lose("checks/update", apply=apply)


@pytest.mark.parametrize("how", ["502", "reset"])
@pytest.mark.parametrize("applied", [True, False], ids=["applied", "not-applied"])
def test_an_annotation_update_whose_answer_was_lost_is_sent_again_only_if_not_applied(
    fake: FakeGitHub, how: str, applied: bool
) -> None:
    lose_answer(fake, how, apply=applied)
    assert post(fake, 120) == "created"
    assert lines(fake) == list(range(1, 121))  # each annotation exactly once
    [run] = fake.checks.named("q")
    assert len(recorded(run)) == 120
    run_path = f"/repos/octo-org/widgets/check-runs/{run['id']}"
    failed = 502 if how == "502" else 0
    resent = [] if applied else [("PATCH", run_path, 200)]
    after_create = fake.log[fake.log.index(("POST", "/repos/octo-org/widgets/check-runs", 201)) :]
    assert after_create[1:] == [  # the run is read before the batch would be sent again
        ("PATCH", run_path, failed),
        ("GET", run_path, 200),
        *resent,
        ("PATCH", run_path, 200),  # annotations 101 to 120
    ]
    assert post(fake, 120) == "unchanged"


def test_an_update_without_annotations_is_retried_by_the_client(fake: FakeGitHub) -> None:
    assert post(fake, 3) == "created"
    fake.fail("checks/update", 502, body={"message": "Bad Gateway"}, apply=True)
    client = fake.client(TOKEN)
    changed = replace(output(3), conclusion="success", title="Gate passed")
    result = post_check_run(client, "octo-org/widgets", fake.head_sha, "q", changed)
    assert (result.action, result.annotated) == ("updated", 0)
    [run] = fake.checks.named("q")
    assert (run["conclusion"], run["output"]["title"]) == ("success", "Gate passed")
    assert [(method, code) for method, _, code in fake.log[-2:]] == [("PATCH", 502), ("PATCH", 200)]
    assert lines(fake) == [1, 2, 3]


def test_an_annotation_update_that_keeps_failing_ends_in_a_clear_error(fake: FakeGitHub) -> None:
    fake.fail("checks/update", 502, body={"message": "Bad Gateway"}, times=10)
    client = fake.client(TOKEN, retry=RetryPolicy(write_interval=0))
    with pytest.raises(
        GitHubError,
        match=r"PATCH https://api.github.com/repos/octo-org/widgets/check-runs/\d+ returned 502: "
        r"Bad Gateway \(gave up after 6 attempts\)",
    ):
        post_check_run(client, "octo-org/widgets", fake.head_sha, "q", output(120))
    assert lines(fake) == list(range(1, 51))  # the create's batch, once; nothing repeated
    assert fake.time.slept == [1.0, 2.0, 4.0, 8.0, 16.0]
