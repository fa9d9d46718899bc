"""The `local` reporter: the review as markdown on standard output (or `--output`).

`quorum review` writes its `--format` output whatever the reporter, so there `local` adds
nothing; `quorum post --reporter local` prints the saved plan's review as markdown, which
shows what would be delivered without a token or a network.
"""

from __future__ import annotations

from review_quorum.cli.common import ExitCode, write_output
from review_quorum.cli.reporters.base import Delivery
from review_quorum.render import review


def report(delivery: Delivery) -> int:
    write_output(review.render(delivery.plan), delivery.options.output)
    return ExitCode.OK
