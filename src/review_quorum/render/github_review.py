"""The exact JSON body of `POST /repos/{owner}/{repo}/pulls/{number}/reviews` for a plan.

Inline comments anchor only on RIGHT-side lines the diff makes addressable; a span becomes
a multi-line comment (`start_line`/`start_side` .. `line`) only when every line of it can
anchor. Findings that cannot anchor are listed in the review body instead. In link mode
(`Settings.inline_mode == "link"`) the review carries no comments: the body links each
finding to the bot comment that raised it.
"""

from __future__ import annotations

from typing import Any

import orjson

from review_quorum.plan import ReviewPlan
from review_quorum.render.review import anchored, inline_comment
from review_quorum.render.review import render as render_body


def payload(plan: ReviewPlan, *, event: str = "COMMENT", body: str | None = None) -> dict[str, Any]:
    """The review to post; `body` is the plan's rendered body, when the caller has it."""
    comments: list[dict[str, Any]] = []
    linking = plan.settings.inline_mode == "link"
    for item in () if linking else anchored(plan):
        comment: dict[str, Any] = {
            "path": item.finding.file,
            "line": item.finding.line,
            "side": "RIGHT",
            "body": inline_comment(item),
        }
        if item.span_end is not None and item.finding.line is not None:
            comment.update(start_line=item.finding.line, start_side="RIGHT", line=item.span_end)
        comments.append(comment)
    if body is None:
        body = render_body(plan)
    review: dict[str, Any] = {"body": body, "event": event, "comments": comments}
    if plan.commit_id is not None:
        review["commit_id"] = plan.commit_id
    return review


def render(plan: ReviewPlan) -> str:
    return orjson.dumps(payload(plan), option=orjson.OPT_INDENT_2).decode() + "\n"
