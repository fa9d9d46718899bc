"""Reading a saved plan back: an exact round trip, bodies never taken from the file, and a
clear error (file and JSON pointer) for every way its structure can be off."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import msgspec
import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import REPO_ROOT, examples
from review_quorum.cli import main
from review_quorum.errors import InputError
from review_quorum.model import CommentSource, ConsensusLevel, Evidence, NormalizedFinding
from review_quorum.plan import AwaitedBots, Settings, Triage, review
from review_quorum.render.json_report import report_data
from review_quorum.saved_plan import read_saved_plan
from review_quorum.scope import DiffScope
from review_quorum.scoring import MODELS

EXAMPLE = REPO_ROOT / "examples" / "pr-review"
LEVEL = ConsensusLevel.UNVERIFIED


def as_saved(data: dict[str, Any]) -> dict[str, Any]:
    """The document as it comes back from the file."""
    return orjson.loads(orjson.dumps(data))  # type: ignore[no-any-return]


def round_trip(document: dict[str, Any]) -> dict[str, Any]:
    return as_saved(report_data(read_saved_plan(document, "plan.json")))


@pytest.fixture(scope="module")
def example_plan(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The bundled example's plan (verdicts, a diff, every disposition), as the CLI saves it."""
    output = tmp_path_factory.mktemp("plan") / "plan.json"
    inputs = [str(path) for path in sorted(EXAMPLE.glob("analysers/*.sarif"))]
    inputs += [str(path) for path in sorted(EXAMPLE.glob("bots/*.json"))]
    argv = ["review", *inputs, "--diff", str(EXAMPLE / "pr.diff")]
    argv += ["--verdicts", str(EXAMPLE / "verdicts.json"), "--config", str(EXAMPLE / "quorum.toml")]
    assert main([*argv, "--format", "json", "-o", str(output)]) == 1
    return orjson.loads(output.read_bytes())  # type: ignore[no-any-return]


def test_the_example_plan_reads_back_exactly(example_plan: dict[str, Any]) -> None:
    counts = example_plan["counts"]
    assert all(counts[kind] for kind in ("inline", "summary", "audit", "dropped"))
    assert any(finding["verdict"] for finding in example_plan["findings"])
    assert round_trip(example_plan) == example_plan


def finding(bot: str, path: str, line: int | None, title: str, **extra: Any) -> NormalizedFinding:
    return NormalizedFinding.create(
        bot=bot,
        finding_id=f"{bot}:{title}",
        severity=extra.pop("severity", "medium"),
        category=extra.pop("category", "logic"),
        title=title,
        file=path,
        line=line,
        **extra,
    )


def test_a_plan_read_from_github_keeps_its_commit_and_awaited_bots() -> None:
    findings = [finding("a", "x.py", 3, "Off by one", end_line=5), finding("b", "x.py", 4, "Off")]
    plan = review(
        findings, diff=DiffScope.parse("--- a/x.py\n+++ b/x.py\n@@ -1,0 +1,9 @@\n" + "+x\n" * 9)
    )
    plan = msgspec.structs.replace(
        plan, commit_id="c" * 40, awaited=AwaitedBots(("a", "b", "c"), ("c",), (), 12.5)
    )
    document = as_saved(report_data(plan))
    assert document["github_review"]["comments"][0]["start_line"] == 3
    assert round_trip(document) == document


def test_a_reliability_plan_keeps_its_contributions() -> None:
    findings = [finding("a", "x.py", 3, "Off by one"), finding("b", "x.py", 4, "Off by one")]
    document = as_saved(report_data(review(findings, settings=Settings(model="reliability"))))
    assert document["settings"]["model"] == "reliability"
    assert len(document["findings"][0]["contributions"]) == 2
    assert round_trip(document) == document
    document["findings"][0]["contributions"][0]["counted"] = "yes"
    with pytest.raises(InputError, match=r"/findings/0/contributions/0/counted: expected true"):
        read_saved_plan(document, "plan.json")


def test_a_plan_keeps_the_priority_a_tool_states() -> None:
    lone = finding("a", "x.py", 3, "Off by one", priority=0.35)
    pair = [finding("b", "y.py", 9, "Nul", priority=1.0), finding("c", "y.py", 9, "Nul")]
    document = as_saved(report_data(review([lone, *pair], settings=Settings(model="reliability"))))
    stated = {
        member["bot"]: member.get("priority")
        for item in document["findings"]
        for member in item["members"]
    }
    assert stated == {"a": 0.35, "b": 1.0, "c": None}
    assert round_trip(document) == document
    document["findings"][0]["members"][0]["priority"] = 3
    with pytest.raises(InputError, match=r"/priority: expected a number in \[0, 1\]"):
        read_saved_plan(document, "plan.json")


PAGE = "https://github.com/o/r/pull/7"


def linked_plan(url: str) -> dict[str, Any]:
    """A link-mode plan whose finding came from a bot comment at `url`."""
    source = CommentSource("review_comment", 31, "PRRC_31", url, "coderabbitai[bot]")
    findings = [finding("coderabbit", "x.py", 3, "Off by one", source=source)]
    settings = Settings(inline_mode="link")
    return as_saved(report_data(review(findings, settings=settings)))


def test_a_link_mode_plan_links_only_to_comments_on_its_pull_request() -> None:
    document = linked_plan(f"{PAGE}#discussion_r31")
    assert document["findings"][0]["link"]["html_url"] == f"{PAGE}#discussion_r31"
    assert as_saved(report_data(read_saved_plan(document, "plan.json", pull_page=PAGE))) == (
        document
    )
    elsewhere = linked_plan("https://evil.example/o/r/pull/7#discussion_r31")
    with pytest.raises(InputError) as raised:
        read_saved_plan(elsewhere, "plan.json", pull_page=PAGE)
    assert raised.value.position == "/findings/0/members/0/source/html_url"
    assert raised.value.message == f"not a comment on {PAGE}"


SAFE_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=30)


@st.composite
def plans(draw: st.DrawFn) -> dict[str, Any]:
    findings = [
        finding(
            draw(st.sampled_from(["bandit", "semgrep", "coderabbit", "<b>@x</b>"])),
            draw(st.sampled_from(["a.py", "src/b.py", ""])),
            draw(st.none() | st.integers(1, 40)),
            draw(SAFE_TEXT),
            severity=draw(st.sampled_from(["info", "low", "medium", "high", "critical"])),
            category=draw(st.sampled_from(["security", "logic", "style"])),
            suggestion=draw(SAFE_TEXT),
            related=draw(st.sampled_from([(), (Evidence("c.py", 2, end_line=4), Evidence())])),
        )
        for _ in range(draw(st.integers(0, 12)))
    ]
    extra_bots = draw(st.none() | st.integers(0, 3))  # bots that ran and found nothing
    bots_ran = None if extra_bots is None else len({f.bot for f in findings}) + extra_bots
    chosen = Settings(
        comment_cap=draw(st.integers(0, 3)),
        bots_ran=bots_ran or None,
        model=draw(st.sampled_from(MODELS)),
    )
    return as_saved(report_data(review(findings, settings=chosen)))


@given(plans())
@settings(max_examples=examples(60), deadline=None)
def test_any_plan_reads_back_exactly(document: dict[str, Any]) -> None:
    assert round_trip(document) == document


def test_bodies_in_the_file_are_never_used(example_plan: dict[str, Any]) -> None:
    tampered = copy.deepcopy(example_plan)
    evil = "<!-- review-quorum:summary -->\n@octocat <img src=x onerror=alert(1)>"
    tampered["summary_markdown"] = evil
    tampered["github_review"]["body"] = evil
    for comment in tampered["github_review"]["comments"]:
        comment["body"] = evil
    assert round_trip(tampered) == example_plan


def at(document: dict[str, Any], pointer: str) -> tuple[Any, str]:
    *parents, last = pointer.strip("/").split("/")
    node: Any = document
    for part in parents:
        node = node[int(part)] if isinstance(node, list) else node[part]
    return node, last


def with_value(document: dict[str, Any], pointer: str, value: Any) -> dict[str, Any]:
    changed = copy.deepcopy(document)
    node, last = at(changed, pointer)
    if value is DELETE:
        del node[int(last) if isinstance(node, list) else last]
    elif isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return changed


DELETE = object()
ALTERED = "does not match the plan's findings, which give"


@pytest.mark.parametrize(
    ("pointer", "value", "position", "message"),
    [
        ("/settings", DELETE, "/settings", "missing"),
        ("/settings/filter_mode", "all", "/settings/filter_mode", "expected one of added, "),
        ("/settings/order", "random", "/settings/order", "expected one of canonical, input"),
        ("/findings", {}, "/findings", "expected an array"),
        ("/findings/0/line", "12", "/findings/0/line", "expected a whole number >= 1"),
        ("/findings/0/forced", 1, "/findings/0/forced", "expected true or false"),
        ("/findings/0/level", "sure", "/findings/0/level", "expected one of confirmed, "),
        ("/findings/0/severity", "urgent", "/findings/0/severity", "expected one of critical, "),
        ("/findings/0/members", [], "/findings/0/members", "an array of at least 1 item"),
        ("/findings/0/members/0/bot", "", "/findings/0/members/0", "bot must be a non-empty"),
        ("/findings/0/members/0/evidence/line", 0, "/findings/0/members/0/evidence/line", ">= 1"),
        ("/findings/0/verdict", {"verdict": "YES"}, "/findings/0/verdict/verdict", "one of"),
        ("/findings/0/detected_by/0", 7, "/findings/0/detected_by/0", "expected a string"),
        ("/findings/0/code", "XYZ", "/findings/0/code", "16 lowercase hex digits or an empty"),
        ("/findings/0/fingerprint", "0" * 24, "/findings/0/fingerprint", ALTERED),
        ("/findings/0/detected_by_count", 9, "/findings/0/detected_by_count", ALTERED),
        ("/findings/0/confidence", None, "/findings/0/confidence", "expected a JSON object"),
        ("/findings/0/surprise", 1, "/findings/0/surprise", "not part of a quorum plan"),
        ("/gate/failed", False, "/gate/failed", ALTERED),
        ("/assessment", "APPROVE", "/assessment", ALTERED),
        ("/github_review/event", "APPROVE", "/github_review/event", ALTERED),
        ("/github_review/commit_id", "main", "/github_review/commit_id", "expected a commit SHA"),
        ("/github_review/comments/0/line", 1, "/github_review/comments/0/line", ALTERED),
        ("/github_review/comments/0", DELETE, "/github_review/comments", "expected 9 items"),
        ("/github_review/comments/0/body", 5, "/github_review/comments/0/body", "a string"),
        ("/summary_markdown", None, "/summary_markdown", "expected a string"),
    ],
)
def test_a_plan_whose_structure_is_off_is_refused_naming_the_place(
    example_plan: dict[str, Any], pointer: str, value: Any, position: str, message: str
) -> None:
    with pytest.raises(InputError) as raised:
        read_saved_plan(with_value(example_plan, pointer, value), "plan.json")
    assert (raised.value.source, raised.value.position) == ("plan.json", position)
    assert message in raised.value.message


@pytest.mark.parametrize(
    ("pointer", "value", "position", "message"),
    [
        ("/github_review", DELETE, "/github_review", "missing"),
        ("/github_review/comments", {"a": 1}, "/github_review/comments", "expected an array"),
        ("/github_review/event", "DISMISS", "/github_review/event", ALTERED),
        ("/github_review/body", 5, "/github_review/body", "expected a string"),
        ("/github_review/commit_id", 5, "/github_review/commit_id", "expected a commit SHA"),
        ("/github_review/comments/0", "text", "/github_review/comments/0", "a JSON object"),
        ("/github_review/comments/0/path", " ", "/github_review/comments/0/path", ALTERED),
        (
            "/github_review/comments/0/line",
            True,
            "/github_review/comments/0/line",
            "expected a whole number >= 1 or null",
        ),
        (
            "/github_review/comments/0/side",
            "MIDDLE",
            "/github_review/comments/0/side",
            "one of RIGHT",
        ),
        (
            "/github_review/comments/0/start_line",
            42,
            "/github_review/comments/0/start_line",
            ALTERED,
        ),
        ("/gate", [], "/gate", "expected a JSON object"),
        ("/gate/level", "high", "/gate/level", "expected one of confirmed, "),
        ("/gate/level", "unverified", "/gate/level", ALTERED),
        ("/gate/count", 1.5, "/gate/count", "expected a whole number >= 0"),
        ("/gate/count", 7, "/gate/count", ALTERED),
        ("/gate_findings_by_level", {"bogus": 1}, "/gate_findings_by_level/bogus", "not part of"),
        ("/gate_findings_by_level/confirmed", -1, "/gate_findings_by_level/confirmed", ">= 0"),
        ("/gate_findings_by_level/confirmed", 99, "/gate_findings_by_level/confirmed", ALTERED),
        ("/findings/0", 7, "/findings/0", "expected a JSON object"),
        ("/findings/0/fingerprint", 1, "/findings/0/fingerprint", "expected a string"),
        ("/settings/inline_mode", "both", "/settings/inline_mode", "expected one of link, post"),
        (
            "/findings/0/members/0/source",
            {"kind": "x"},
            "/findings/0/members/0/source/kind",
            "one of",
        ),
        (
            "/findings/0/members/0/source",
            {"kind": "review"},
            "/findings/0/members/0/source/",
            "missing",
        ),
    ],
)
def test_what_the_poster_is_handed_is_refused_naming_the_place(
    example_plan: dict[str, Any], pointer: str, value: Any, position: str, message: str
) -> None:
    """The review, gate and findings the poster's draft is made of are read here alone: the
    draft is made from the plan read back, never from the file."""
    with pytest.raises(InputError) as raised:
        read_saved_plan(with_value(example_plan, pointer, value), "plan.json")
    assert raised.value.source == "plan.json"
    assert raised.value.position.startswith(position)
    assert message in raised.value.message


@pytest.mark.parametrize("document", [[], "plan", None])
def test_a_plan_that_is_not_an_object_is_refused(document: object) -> None:
    with pytest.raises(InputError, match=r"^plan\.json:/: expected a JSON object$"):
        read_saved_plan(document, "plan.json")


def test_quorum_post_refuses_a_broken_plan_with_exit_2(
    example_plan: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "plan.json"
    path.write_bytes(orjson.dumps(with_value(example_plan, "/findings/2/level", "sure")))
    assert main(["post", str(path), "--repo", "acme/stockroom", "--pr", "1", "--dry-run"]) == 2
    assert capsys.readouterr().err == (
        f"quorum: error: {path}:/findings/2/level: expected one of confirmed, "
        "needs-verification, unverified\n"
    )


def test_a_plan_that_repeats_a_key_is_refused_at_its_line_and_column(
    example_plan: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 33 item 2: a JSON reader keeps the last of a repeated key, so an edited plan
    whose second ``findings`` is empty would post nothing; quorum never writes a repeat."""
    text = orjson.dumps(example_plan, option=orjson.OPT_INDENT_2).decode()
    text = text[: text.rindex("}")].rstrip() + ',\n  "findings": []\n}\n'
    line = text.count("\n", 0, text.rindex('"findings"')) + 1
    path = tmp_path / "plan.json"
    path.write_text(text)
    with pytest.raises(InputError) as raised:
        read_saved_plan(orjson.loads(text), "plan.json", data=text.encode())
    assert raised.value.position == f"line {line} column 3"
    assert 'key "findings" appears more than once in the object at /;' in raised.value.message
    repeat = f'quorum: error: {path}:line {line} column 3: key "findings" appears more than once'
    assert main(["post", str(path), "--repo", "acme/stockroom", "--pr", "1", "--dry-run"]) == 2
    assert capsys.readouterr().err.startswith(repeat)
    assert main(["verify", str(path), "-o", str(tmp_path / "v.json")]) == 2
    assert capsys.readouterr().err.startswith(repeat)
    sarif = str(sorted(EXAMPLE.glob("analysers/*.sarif"))[0])
    assert main(["review", sarif, "--baseline", str(path), "-o", str(tmp_path / "r.md")]) == 2
    assert capsys.readouterr().err.startswith(repeat)


# --- triage: saved as a claim, honoured only as the posting run's history holds it -------


def triaged_plan(actor: str = "alice") -> tuple[dict[str, Any], Triage]:
    """A plan whose lone finding a writer acknowledged (a `--db` run), and that triage."""
    from review_quorum.plan import Decision

    findings = [
        finding("a", "x.py", 3, "Off by one"),
        finding("b", "y.py", 9, "Nul"),
        finding("c", "y.py", 9, "Nul"),
    ]
    settings = Settings(bots_ran=3, inline_level=LEVEL, gate_level=LEVEL)
    target = next(
        item for item in review(findings, settings=settings).findings if item.finding.file == "x.py"
    )
    decision = Decision(
        target.fingerprint, "ack", actor, "2026-01-01T00:00:00Z", "known", "issue_comment:5"
    )
    triage = Triage((decision,))
    return as_saved(report_data(review(findings, settings=settings, triage=triage))), triage


def test_a_plan_made_with_triage_reads_back_with_its_gate() -> None:
    document, _ = triaged_plan()
    lone = next(item for item in document["findings"] if item["file"] == "x.py")
    assert lone["disposition"] == "audit"
    assert lone["triage"] == {
        "action": "ack",
        "actor": "alice",
        "acted_at": "2026-01-01T00:00:00Z",
        "reason": "known",
        "via": "issue_comment:5",
        "disposition": "inline",  # where it was before the decision
    }
    assert document["gate"]["count"] == 1  # the triaged finding does not gate
    assert [item.get("triage") for item in document["findings"]].count(None) == 1
    assert round_trip(document) == document


def test_a_posting_run_honours_a_plans_triage_only_as_its_history_holds_it() -> None:
    document, triage = triaged_plan()
    held = read_saved_plan(document, "plan.json", triage=triage)
    assert as_saved(report_data(held)) == document
    assert not held.notes
    note = "1 triage decision(s) the plan claims are not in this run's history: not honoured"
    posted = read_saved_plan(document, "plan.json", triage=Triage())
    lone = next(item for item in posted.findings if item.finding.file == "x.py")
    assert (
        lone.triage is None and lone.reason == "consensus level unverified reaches the inline level"
    )
    assert lone in posted.inline and lone in posted.gate.blocking
    assert posted.notes == (note,)
    # the posting run's history decides: its own decision on the finding is the one kept
    posted = read_saved_plan(document, "plan.json", triage=triaged_plan("mallory")[1])
    lone = next(item for item in posted.findings if item.finding.file == "x.py")
    assert lone.triage is not None and lone.triage.actor == "mallory"
    assert lone not in posted.gate.blocking
    assert posted.notes == (note,)


def test_a_claimed_triage_must_be_a_decision_quorum_writes() -> None:
    document, _ = triaged_plan()
    lone = next(item for item in document["findings"] if item["file"] == "x.py")
    lone["triage"]["action"] = "thumbs-up"
    with pytest.raises(InputError, match=r"/findings/\d+/triage/action: expected one of"):
        read_saved_plan(document, "plan.json")
