"""The `bitbucket-insights` reporter: the review as a Code Insights report with annotations.

The report goes on the head commit of the pull request that ``--repo``/``--pr`` or the
pipeline's variables name, under our own report id (``--check-name``, default
review-quorum), so that a re-run updates it in place: the Bitbucket analogue of the
`github-check` reporter. What it shows is `render.code_insights`; creating it and keeping
its annotations in line is `bitbucket.insights`. ``--dry-run`` prints the write requests.
A saved plan (`quorum post`) is rebuilt from the pull request's comments as Bitbucket
serves them now (`Delivery.rebuild`, `checked_plan`), read as ``quorum review
--bitbucket`` reads them: the report credits the bots with what they said, never with
what the plan claims.
"""

from __future__ import annotations

from review_quorum.bitbucket.client import BitbucketClient
from review_quorum.bitbucket.insights import REPORT_ID, post_insights, report_id
from review_quorum.bitbucket.target import pull_request_page, resolve_pull_request
from review_quorum.cli import posting
from review_quorum.cli.bitbucket_input import read_bitbucket_fresh
from review_quorum.cli.reporters.base import Delivery
from review_quorum.cli.reporters.threads import checked_plan, connected
from review_quorum.render.code_insights import insights_report


def report(delivery: Delivery) -> int:
    options = delivery.options
    name = report_id(options.check_name or REPORT_ID)
    target = resolve_pull_request(options.repo, options.pr, delivery.env)
    with connected(delivery, BitbucketClient.from_env, target, "reporting on") as client:
        plan = checked_plan(
            delivery,
            lambda reading: read_bitbucket_fresh(client, target, reading, delivery.env),
        )
        insights = insights_report(plan, name=name, link=pull_request_page(target))
        result = post_insights(
            client, target, insights, name=name, dry_run=options.dry_run, env=delivery.env
        )
    return posting.report_outcome(options.dry_run, client, result, "BITBUCKET_TOKEN")
