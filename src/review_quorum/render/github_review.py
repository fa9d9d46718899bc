"""The exact JSON body of `POST /repos/{owner}/{repo}/pulls/{number}/reviews` for a plan.

Inline comments anchor only on RIGHT-side lines the diff makes addressable; a span becomes
a multi-line comment (`start_line`/`start_side` .. `line`) only when every line of it can
anchor. Findings that cannot anchor are listed in the review body instead. In link mode
(`Settings.inline_mode == "link"`) the review carries no comments: the body links each
finding to the bot comment that raised it.
"""

from __future__ import annotations

from msgspec import UNSET

from review_quorum.plan import ReviewPlan
from review_quorum.render.json_stream import indented_document
from review_quorum.render.review import anchored, inline_comment
from review_quorum.render.review import render as render_body
from review_quorum.report import ReviewComment, ReviewPayload


def payload(plan: ReviewPlan, *, event: str = "COMMENT", body: str | None = None) -> ReviewPayload:
    """The review to post; `body` is the plan's rendered body, when the caller has it."""
    comments: list[ReviewComment] = []
    linking = plan.settings.inline_mode == "link"
    for item in () if linking else anchored(plan):
        line = item.finding.line
        if item.span_end is not None and line is not None:
            comment = ReviewComment(
                item.finding.file, item.span_end, "RIGHT", inline_comment(item), line, "RIGHT"
            )
        else:
            comment = ReviewComment(item.finding.file, line, "RIGHT", inline_comment(item))
        comments.append(comment)
    if body is None:
        body = render_body(plan)
    commit = UNSET if plan.commit_id is None else plan.commit_id
    return ReviewPayload(body, event, tuple(comments), commit)


def render(plan: ReviewPlan) -> str:
    return indented_document(payload(plan)).decode()
