"""Where a review goes: the literal registry of reporters, `--reporter` name -> reporter.

`local` writes the review as markdown to standard output (what `quorum review` always
writes), `github-review` posts one review plus a sticky summary comment (`github.poster`),
`github-check` creates or updates one check run with annotations (`reporters.github_check`),
`gitlab-mr` posts diff discussions, a sticky note and a commit status (`gitlab.poster`),
`azure-devops-pr` threads, a summary thread and a pull request status
(`azure_devops.poster`), `bitbucket-pr` inline comments, a summary comment and a build
status (`bitbucket.poster`), `bitbucket-insights` a Code Insights report with annotations
(`bitbucket.insights`).
Each reporter is one module behind the `Reporter` protocol of `reporters.base`; the names
the configuration accepts are `config.REPORTERS`, and a test keeps the two the same.
"""

from __future__ import annotations

from review_quorum.cli.reporters import (
    azure_devops_pr,
    bitbucket_insights,
    bitbucket_pr,
    github_check,
    github_review,
    gitlab_mr,
    local,
)
from review_quorum.cli.reporters.base import Delivery, Reporter

REPORTERS: dict[str, Reporter] = {
    "local": local.report,
    "github-review": github_review.report,
    "github-check": github_check.report,
    "gitlab-mr": gitlab_mr.report,
    "azure-devops-pr": azure_devops_pr.report,
    "bitbucket-pr": bitbucket_pr.report,
    "bitbucket-insights": bitbucket_insights.report,
}

__all__ = ["REPORTERS", "Delivery", "Reporter"]
