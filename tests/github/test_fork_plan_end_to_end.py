"""The fork flow end to end over HTTP: a plan saved by a `pull_request` job, posted by a
`workflow_run` job with a write token, against the GitHub stand-in served on 127.0.0.1 and
seeded with the bundled example's bot comments (GitHub's ids, past 2^31 for ours).

The plan is the fork's output, so each test writes one a fork could write (a valid plan,
checked by `quorum post` like any other) and checks that it decides nothing about the bots:
what is posted, listed and hidden is what an honest plan of the same analysers gives, and
nothing is resolved or struck through "Fixed" on the head commit it was reported on.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson
import pytest
from msgspec.structs import replace

from conftest import REPO_ROOT
from github.action_harness import with_example_comments
from github.fake import FakeGitHub
from github.fake_server import serve
from github.github_support import BOT, TOKEN, addressable, new_fake
from review_quorum.cli import main
from review_quorum.comment_links import link_targets
from review_quorum.markup.markers import find_markers
from review_quorum.model import ConsensusFinding, ConsensusLevel, NormalizedFinding, Severity
from review_quorum.plan import (
    PlannedFinding,
    ReviewPlan,
    assemble,
    fingerprint,
    place_finding,
    review,
)
from review_quorum.render.json_report import report_data
from review_quorum.saved_plan import read_saved_plan
from review_quorum.scoring.confidence import Disposition

EXAMPLE = REPO_ROOT / "examples" / "pr-review"
TARGET = ["--repo", "acme/stockroom", "--pr", "1"]
INVENTED = "Typo in the docstring"
SQL = "SQL injection"


class Posted:
    """What a posting run left on the pull request, as a reader of it would check."""

    def __init__(self, fake: FakeGitHub, status: int, err: str) -> None:
        self.status, self.err = status, err
        [sticky] = fake.issue_comments_by(BOT) or [{"body": ""}]
        self.sticky: str = sticky["body"]
        self.hidden = set(fake.graphql.state.minimized)
        self.inline = sorted((c["path"], c["line"], c["body"]) for c in fake.comments_by(BOT))
        # The summary's finding lines, and its headline (the assessment).
        self.listed = [line for line in self.sticky.splitlines() if line.startswith("- **")]
        self.headline = next((line for line in self.sticky.splitlines() if "##" in line), "")
        self.bodies = [self.sticky, *(body for _, _, body in self.inline)]
        self.bodies += [review["body"] for review in fake.submitted_reviews_by(BOT)]

    def same_review_as(self, honest: Posted) -> None:
        assert self.status == 0, self.err
        assert (self.inline, self.listed, self.headline) == (
            honest.inline,
            honest.listed,
            honest.headline,
        )


@contextmanager
def served_pull(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeGitHub]:
    """The example's pull request on a served stand-in, `quorum post` pointed at it."""

    def build(url: str) -> FakeGitHub:
        fake = new_fake(owner="acme", repo="stockroom", number=1, api_url=url)
        fake.set_diff(addressable(EXAMPLE / "pr.diff"))
        with_example_comments(fake)
        return fake

    for name in ("GITHUB_ACTIONS", "GITHUB_EVENT_PATH", "GITHUB_REPOSITORY", "GITHUB_GRAPHQL_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    monkeypatch.setenv("GITHUB_SERVER_URL", "https://github.com")  # as in Actions
    with serve(build) as (fake, errors):
        monkeypatch.setenv("GITHUB_API_URL", fake.api_url)
        yield fake
        assert errors == []


@pytest.fixture
def pull(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeGitHub]:
    with served_pull(monkeypatch) as fake:
        yield fake


def example_plan(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *inputs: str) -> ReviewPlan:
    """What the fork's `pull_request` job saves: `quorum review --github` of the pull
    request's comments (read from the stand-in) and the example's analysers' `inputs`."""
    monkeypatch.chdir(EXAMPLE)
    output = tmp_path / "reviewed.json"
    files = [str(path.relative_to(EXAMPLE)) for pattern in inputs for path in EXAMPLE.glob(pattern)]
    argv = ["review", *sorted(files), "--github", *TARGET, "--diff", "pr.diff"]
    argv += ["--config", "quorum.toml", "--allow-empty"]
    assert main([*argv, "--format", "json", "-o", str(output)]) in (0, 1)
    return read_saved_plan(orjson.loads(output.read_bytes()), str(output))


def saved(tmp_path: Path, plan: ReviewPlan, name: str = "plan.json") -> str:
    path = tmp_path / name
    path.write_bytes(orjson.dumps(report_data(plan)))
    return str(path)


def post(fake: FakeGitHub, capsys: pytest.CaptureFixture[str], plan: str, *options: str) -> Posted:
    capsys.readouterr()
    status = main(["post", plan, *TARGET, "--hide-duplicates", "--resolve-fixed", *options])
    return Posted(fake, status, capsys.readouterr().err)


def honest_run(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    plan: ReviewPlan,
) -> Posted:
    """What an honest plan posts on a pull request of its own (a second stand-in)."""
    with pytest.MonkeyPatch.context() as patch, served_pull(patch) as fake:
        return post(fake, capsys, saved(tmp_path, plan, "honest.json"))


ALL = ("analysers/*.sarif",)
BOTS = ()


def members(plan: ReviewPlan) -> list[NormalizedFinding]:
    return [member for item in plan.findings for member in item.finding.members]


def replanned(plan: ReviewPlan, findings: list[PlannedFinding]) -> ReviewPlan:
    """`plan` with other findings, every derived value recomputed, as a fork can write it."""
    links = link_targets([item.finding for item in findings])
    linked = [
        replace(item, link=link, fingerprint=fingerprint(item.finding))
        for item, link in zip(findings, links, strict=True)
    ]
    return assemble(linked, plan.settings, bots_ran=plan.bots_ran, input_count=plan.input_count)


def by_bot(plan: ReviewPlan) -> list[PlannedFinding]:
    return [i for i in plan.findings if any(m.source for m in i.finding.members)]


def test_the_honest_plan_hides_the_real_duplicates(
    pull: FakeGitHub,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    plan = example_plan(tmp_path, monkeypatch, *ALL)
    posted = post(pull, capsys, saved(tmp_path, plan))
    assert posted.status == 0, posted.err
    assert len(posted.hidden) == 13
    bots = {c["node_id"] for c in pull.review_comments if c["user"]["type"] == "Bot"}
    assert posted.hidden <= bots - {c["node_id"] for c in pull.comments_by(BOT)}
    assert min(c["id"] for c in pull.comments_by(BOT)) > 2**31
    assert "review-quorum hid 13 bot comment(s) repeating findings listed here" in posted.sticky
    assert "Not credited" not in posted.sticky and "otherwise than" not in posted.sticky


def test_forged_cluster_fields_and_grouping_hide_nothing_real_and_approve_nothing(
    pull: FakeGitHub,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    honest = example_plan(tmp_path, monkeypatch, *BOTS)
    said = [m for m in members(honest) if m.source is not None]
    forged = []
    for start in range(0, len(said), 3):  # every real member, regrouped and retitled
        group = tuple(said[start : start + 3])
        finding = ConsensusFinding(
            file=group[0].file,
            line=group[0].line,
            category="style",
            title=INVENTED,
            severity=Severity.LOW,
            detected_by=("coderabbit", "copilot", "sourcery"),
            bots_ran=3,
            agreement_ratio=1.0,
            max_confidence=1.0,
            consensus_score=1.0,
            level=ConsensusLevel.CONFIRMED,
            members=group,
        )
        forged.append(place_finding(finding, None, None, honest.settings))
    plan = replanned(honest, forged)
    assert plan.assessment.value == "APPROVE"  # what the fork's plan says
    posted = post(pull, capsys, saved(tmp_path, plan))
    expected = honest_run(tmp_path, monkeypatch, capsys, honest)
    posted.same_review_as(expected)
    assert posted.hidden == expected.hidden  # only comments whose finding the review shows
    assert "🟢" not in posted.headline and "CRITICAL" in posted.headline
    assert not any(INVENTED in body for body in posted.bodies)
    assert any(SQL in line and "coderabbit, copilot" in line for line in posted.listed)
    assert "finding(s) from the bots otherwise than their comments say" in posted.sticky


@pytest.mark.parametrize(
    ("change", "note"),
    [
        ("retitled", "The plan showed 1 finding(s) from the bots otherwise than their comments"),
        ("dropped", "Shown although the plan left them out: 2 finding(s) from the bots"),
        (
            "deleted",
            "otherwise than their comments say (grouping, title, severity or place), "
            "and left out or changed 1",
        ),
    ],
)
def test_the_plan_cannot_retitle_drop_or_leave_out_a_bots_finding(
    pull: FakeGitHub,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    change: str,
    note: str,
) -> None:
    honest = example_plan(tmp_path, monkeypatch, *ALL)
    findings = list(honest.findings)
    index = next(i for i, item in enumerate(findings) if SQL.lower() in item.finding.title.lower())
    item = findings[index]
    if change == "retitled":
        findings[index] = replace(item, finding=replace(item.finding, title=INVENTED))
    elif change == "dropped":  # as if outside the diff
        findings[index] = replace(
            item, disposition=Disposition.DROPPED, in_diff=False, reason="out of the diff"
        )
    else:  # and with it the analysers' findings there, which are the plan's to leave out
        del findings[index]
        bots_only = replace(
            item.finding, members=tuple(m for m in item.finding.members if m.source)
        )
        kept = list(honest.findings)
        kept[index] = replace(item, finding=bots_only)
        honest = replanned(honest, kept)
    posted = post(pull, capsys, saved(tmp_path, replanned(honest, findings)))
    expected = honest_run(tmp_path, monkeypatch, capsys, honest)
    posted.same_review_as(expected)
    assert posted.hidden == expected.hidden
    assert not any(INVENTED in body for body in posted.bodies)
    assert note in posted.sticky


def test_an_empty_plan_on_the_same_head_strikes_nothing_through(
    pull: FakeGitHub,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    honest = example_plan(tmp_path, monkeypatch, *ALL)
    first = post(pull, capsys, saved(tmp_path, honest))
    ours = {c["id"]: c["body"] for c in pull.comments_by(BOT)}
    assert first.inline and min(ours) > 2**31
    empty = replace(review([], settings=honest.settings), commit_id=None)
    then = post(pull, capsys, saved(tmp_path, empty, "empty.json"))
    assert then.status == 0
    assert not any(kind == "fixed" for body in then.bodies for kind, _ in find_markers(body))
    assert not any("Fixed in" in body for body in then.bodies)
    # Our comments stay open: refreshed maybe, never struck through nor resolved.
    assert all("~~" not in c["body"] for c in pull.comments_by(BOT) if c["id"] in ours)
    assert pull.graphql.state.resolved == {}
    # Why they stay open is said: posted on this head, or their bots' findings not
    # re-checked (an empty plan reports none of them).
    assert (
        "were left open: they were posted on the head commit" in then.err
        or "not re-checked (their bots did not report)" in then.err
    )
    # The bots' findings are still reported: the empty plan cannot drop them.
    assert any(SQL in line for line in then.listed)


def test_bots_the_plan_names_without_a_comment_are_not_credited(
    pull: FakeGitHub,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    honest = example_plan(tmp_path, monkeypatch, *ALL)
    findings = list(honest.findings)
    index = next(i for i, item in enumerate(findings) if SQL.lower() in item.finding.title.lower())
    item = findings[index]
    ghosts = tuple(
        NormalizedFinding.create(
            bot=bot,
            finding_id=f"{bot}-1",
            severity="info",
            category="security",
            title="SQL injection reports here are false positives",
            file=item.finding.file,
            line=item.finding.line,
        )
        for bot in ("cursor", "greptile")
    )
    credited = replace(
        item.finding,
        members=(*item.finding.members, *ghosts),
        detected_by=(*item.finding.detected_by, "cursor", "greptile"),
    )
    findings[index] = replace(item, finding=credited)
    posted = post(pull, capsys, saved(tmp_path, replanned(honest, findings)))
    expected = honest_run(tmp_path, monkeypatch, capsys, honest)
    posted.same_review_as(expected)
    assert not any("cursor" in line or "greptile" in line for line in posted.listed)
    assert not any("false positives" in body for body in posted.bodies)
    assert "Not credited: cursor, greptile (named by the plan, no comment here)." in posted.sticky
    assert "not credited: cursor, greptile" in posted.err
    assert posted.hidden == set()  # a plan that claims what GitHub does not show hides nothing


def forged_members(plan: ReviewPlan, forge: Any) -> tuple[ReviewPlan, list[NormalizedFinding]]:
    """`plan` with the members of its first finding from a bot comment passed to `forge`."""
    findings = list(plan.findings)
    index = next(i for i, item in enumerate(findings) if item in by_bot(plan))
    item = findings[index]
    changed = tuple(forge(m) if m.source is not None else m for m in item.finding.members)
    findings[index] = replace(item, finding=replace(item.finding, members=changed))
    return replanned(plan, findings), [m for m in changed if m.source is not None]


@pytest.mark.parametrize("forgery", ["wrong place", "a person's comment"])
def test_members_github_does_not_bear_out_are_left_out_and_hide_nothing(
    pull: FakeGitHub,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    forgery: str,
) -> None:
    honest = example_plan(tmp_path, monkeypatch, *ALL)
    person = next(c for c in pull.issue_comments if c["user"]["type"] == "User")

    def forge(member: NormalizedFinding) -> NormalizedFinding:
        if forgery == "wrong place":
            evidence = replace(member.evidence, file="README.md", line=3, end_line=None)
            return replace(member, evidence=evidence)
        assert member.source is not None
        source = replace(
            member.source,
            kind="issue_comment",
            rest_id=person["id"],
            node_id=person["node_id"],
            html_url=person["html_url"],
        )
        return replace(member, source=source, title=person["body"][:60])

    plan, forged = forged_members(honest, forge)
    posted = post(pull, capsys, saved(tmp_path, plan))
    expected = honest_run(tmp_path, monkeypatch, capsys, honest)
    posted.same_review_as(expected)
    assert posted.hidden == set()
    assert f"Left out: {len(forged)} finding(s) the plan attributes to bots" in posted.sticky
    assert not any("README.md" in line for line in posted.listed)
    assert person["body"][:30] not in posted.sticky


def test_marker_text_in_a_title_stays_text(
    pull: FakeGitHub,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    honest = example_plan(tmp_path, monkeypatch, *ALL)
    expected = honest_run(tmp_path, monkeypatch, capsys, honest)
    target = next(
        c
        for c in pull.review_comments
        if c["user"]["type"] == "Bot" and c["node_id"] not in expected.hidden
    )
    forged = f"<!-- review-quorum:hidden review_comment:{target['id']} -->"
    findings = list(honest.findings)
    index = next(i for i, item in enumerate(findings) if item not in by_bot(honest))
    item = findings[index]
    titled = tuple(replace(m, title=forged) for m in item.finding.members)
    findings[index] = replace(item, finding=replace(item.finding, title=forged, members=titled))
    posted = post(pull, capsys, saved(tmp_path, replanned(honest, findings)))
    assert posted.status == 0, posted.err
    assert posted.hidden == expected.hidden
    record = [payload for kind, payload in find_markers(posted.sticky) if kind != "summary"]
    assert record == [p for k, p in find_markers(expected.sticky) if k != "summary"]
    assert all(forged not in body for body in posted.bodies)
    assert "&lt;!-- review-quorum:hidden" in posted.sticky


def test_a_plan_for_another_head_posts_nothing(
    pull: FakeGitHub,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    plan = replace(example_plan(tmp_path, monkeypatch, *ALL), commit_id="c" * 40)
    posted = post(pull, capsys, saved(tmp_path, plan))
    assert posted.status == 0
    assert pull.writes() == []
    assert posted.err.endswith(
        f"quorum: acme/stockroom#1: not posted: the plan reviewed {'c' * 40}, but the head "
        f"of acme/stockroom#1 is {pull.head_sha}; a plan is posted only on the commit it "
        "reviewed (a later run reviews it)\n"
    )


def test_a_plan_reviewed_on_this_head_posts_its_review_on_it(
    pull: FakeGitHub,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    plan = replace(example_plan(tmp_path, monkeypatch, *ALL), commit_id=pull.head_sha)
    assert post(pull, capsys, saved(tmp_path, plan)).status == 0
    [ours] = pull.submitted_reviews_by(BOT)
    assert ours["commit_id"] == pull.head_sha


@pytest.mark.parametrize(
    "page", ["https://github.com/acme/stockroom/pull/2", "https://github.com/acme/other/pull/1"]
)
def test_a_plan_about_another_pull_request_is_refused(
    pull: FakeGitHub,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    page: str,
) -> None:
    honest = example_plan(tmp_path, monkeypatch, *ALL)

    def elsewhere(member: NormalizedFinding) -> NormalizedFinding:
        assert member.source is not None
        anchor = member.source.html_url.partition("#")[2]
        return replace(member, source=replace(member.source, html_url=f"{page}#{anchor}"))

    plan, _ = forged_members(honest, elsewhere)
    posted = post(pull, capsys, saved(tmp_path, plan))
    assert posted.status == 2
    assert pull.writes() == []
    assert "not a comment on https://github.com/acme/stockroom/pull/1" in posted.err
