"""Which comments are duplicates, and the record's states: the pure decisions."""

from __future__ import annotations

from review_quorum.delivery.draft import DraftFinding
from review_quorum.github.duplicates import (
    HIDDEN,
    HIDING,
    UNHIDDEN,
    PostedComment,
    decide_hiding,
    find_duplicates,
    mismatches,
    read_record,
    record_markers,
)
from review_quorum.model import CommentSource
from review_quorum.scoring.confidence import Disposition

URL = "https://github.com/o/r/pull/1#discussion_r"


def source(kind: str, rest_id: int) -> CommentSource:
    return CommentSource(kind, rest_id, f"N{rest_id}", f"{URL}{rest_id}", f"bot{rest_id}[bot]")  # type: ignore[arg-type]


def found(
    fingerprint: str, *members: tuple[str, CommentSource], disposition: str = "inline"
) -> DraftFinding:
    return DraftFinding(fingerprint, Disposition(disposition), tuple(members))


RABBIT = ("coderabbit", source("review_comment", 1))
PILOT = ("copilot", source("review_comment", 2))
DIGEST = ("coderabbit", source("issue_comment", 3))  # one comment listing several findings
GEMINI = ("gemini", source("review", 4))


def test_comments_of_two_bots_on_a_reported_finding_are_duplicates() -> None:
    assert find_duplicates([found("a", RABBIT, PILOT)], "post") == {
        "review_comment:1",
        "review_comment:2",
    }
    assert (
        find_duplicates([found("a", RABBIT, ("coderabbit", source("review", 9)))], "post") == set()
    )
    assert find_duplicates([found("a", RABBIT, PILOT, disposition="dropped")], "post") == set()
    assert find_duplicates([found("a", RABBIT, PILOT, disposition="audit")], "post") == set()


def test_a_digest_stays_while_one_of_its_findings_is_said_only_there() -> None:
    findings = [found("a", DIGEST, PILOT), found("b", DIGEST, disposition="summary")]
    assert find_duplicates(findings, "post") == {"review_comment:2"}
    findings = [found("a", DIGEST, PILOT), found("b", DIGEST, GEMINI, disposition="summary")]
    assert find_duplicates(findings, "post") == {"issue_comment:3", "review_comment:2", "review:4"}


def test_link_mode_keeps_the_linked_comment() -> None:
    finding = DraftFinding("a", Disposition.INLINE, (RABBIT, PILOT), link=RABBIT[1])
    assert find_duplicates([finding], "link") == {"review_comment:2"}
    assert find_duplicates([finding], "post") == {"review_comment:1", "review_comment:2"}


def comment(key: str, **state: object) -> PostedComment:
    return PostedComment(key, f"N{key}", "bot[bot]", True, **state)  # type: ignore[arg-type]


def test_the_record_decides_what_is_ours() -> None:
    findings = [found("a", RABBIT, PILOT)]
    comments = {
        "review_comment:1": comment("review_comment:1", minimized="duplicate"),
        "review_comment:2": comment("review_comment:2"),
        "review_comment:7": comment("review_comment:7", minimized="duplicate"),
        "review_comment:8": comment("review_comment:8", minimized="off-topic"),
    }
    record = {
        "review_comment:1": HIDING,  # an interrupted run hid it: ours now
        "review_comment:7": HIDDEN,  # its finding is gone: back it comes
        "review_comment:8": HIDDEN,  # someone hid it again, for another reason: theirs
    }
    hiding = decide_hiding(findings, "post", comments, record, "quorum-bot")
    assert [c.key for c in hiding.hide] == ["review_comment:2"]
    assert [c.key for c in hiding.restore] == ["review_comment:7"]
    assert hiding.record == {
        "review_comment:1": HIDDEN,
        "review_comment:2": HIDING,
        "review_comment:7": HIDDEN,
    }
    assert hiding.settle(["review_comment:2"], ["review_comment:7"]) == {
        "review_comment:1": HIDDEN,
        "review_comment:2": HIDDEN,
    }
    assert hiding.settle([], []) == {"review_comment:1": HIDDEN, "review_comment:7": HIDDEN}


def test_people_ourselves_and_refusing_tokens() -> None:
    findings = [found("a", RABBIT, PILOT)]
    person = PostedComment("review_comment:1", "N1", "alice", False)
    ours = PostedComment("review_comment:2", "N2", "Quorum-Bot", True)
    hiding = decide_hiding(findings, "post", {c.key: c for c in (person, ours)}, {}, "quorum-bot")
    assert (hiding.hide, hiding.restore, dict(hiding.record)) == ((), (), {})
    refused = {k: comment(k, can_minimize=False) for k in ("review_comment:1", "review_comment:2")}
    hiding = decide_hiding(findings, "post", refused, {"review_comment:9": UNHIDDEN}, "quorum-bot")
    assert hiding.refused and hiding.hide == () and dict(hiding.record) == {}


def test_the_record_round_trips_through_markers() -> None:
    record = {"review_comment:2": HIDDEN, "issue_comment:10": UNHIDDEN, "review:3": HIDING}
    text = "summary\n\n" + "\n".join(record_markers(record))
    assert read_record(text) == record
    assert record_markers(record)[0] == "<!-- review-quorum:unhidden issue_comment:10 -->"


def claimed(fingerprint: str, *members: tuple[str, CommentSource, bytes]) -> DraftFinding:
    """A finding whose members carry what the plan says each comment holds."""
    pairs = tuple((bot, where) for bot, where, _ in members)
    return DraftFinding(
        fingerprint, Disposition.INLINE, pairs, identities=tuple(m for *_, m in members)
    )


def test_what_github_shows_decides_which_comments_are_duplicates() -> None:
    read = {"review_comment:1": frozenset({b"sql"}), "review_comment:2": frozenset({b"sql"})}
    agreed = claimed("a", (*RABBIT, b"sql"), (*PILOT, b"sql"))
    assert find_duplicates([agreed], "post", read) == {"review_comment:1", "review_comment:2"}
    assert mismatches([agreed], read) == []
    # The plan says both comments hold a nit; GitHub shows the SQL injection: nothing hidden.
    forged = claimed("a", (*RABBIT, b"nit"), (*PILOT, b"nit"))
    assert find_duplicates([forged], "post", read) == set()
    assert mismatches([forged], read) == ["review_comment:1", "review_comment:2"]
    # One forged member: the other bot no longer has company, so neither is a duplicate.
    half = claimed("a", (*RABBIT, b"sql"), (*PILOT, b"nit"))
    assert find_duplicates([half], "post", read) == set()
    assert mismatches([half], read) == ["review_comment:2"]
    # A comment whose other finding the plan leaves out stays: it says something more.
    more = {**read, "review_comment:1": frozenset({b"sql", b"leak"})}
    assert find_duplicates([agreed], "post", more) == {"review_comment:2"}
    # Members the plan gives no contents for never match GitHub.
    assert find_duplicates([found("a", RABBIT, PILOT)], "post", read) == set()
