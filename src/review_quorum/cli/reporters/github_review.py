"""The `github-review` reporter: one GitHub review plus one sticky summary comment.

This is `quorum post` as it always was: the plan's bodies are rendered afresh into a
`ReviewDraft` and posted by `github.post_review` with the posting options of
`cli.post.add_post_arguments` (see `cli.posting.post_to_github`).
"""

from __future__ import annotations

from review_quorum.cli.posting import post_to_github
from review_quorum.cli.reporters.base import Delivery


def report(delivery: Delivery) -> int:
    return post_to_github(
        delivery.options,
        delivery.plan,
        delivery.source,
        env=delivery.env,
        http=delivery.http,
        reading=delivery.reading,
        rebuild=delivery.rebuild,
        lines=delivery.lines,
    )
