"""Posting a review as one GitHub check run on the head commit, idempotently.

`post_check_run` finds the check run this configuration made on the commit before (by head
SHA, name and our `external_id`, through the list for the commit), and updates it; only
when there is none does it create one. GitHub takes at most 50 annotations per request and
appends those of every update to the run's list, so the first request carries the first 50
and updates carry the rest, 50 at a time. Since an annotation once made cannot be taken
back, the run's `output.text` records on a marker line which findings it has annotated
(their fingerprints): a re-run annotates only findings not recorded there, and changes
nothing at all when conclusion, title, summary and annotations are what the run already
shows. A write that fails with a server error or a lost connection may have been applied
all the same, and resending it blindly could duplicate what it made: after such a failure
of the create, the run is looked up again before the create is retried; after one of an
update carrying annotations (which GitHub would append a second time), the run is read
again and the batch counts as sent when the run's record already holds its fingerprints,
else it is sent again (within the client's retry attempts and wait budget, whose end is a
`GitHubError`). An update without annotations only replaces what it sets, so the client
resends it as it does any PATCH.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any
from urllib.parse import quote

import msgspec

from review_quorum.errors import GitHubError
from review_quorum.github.client import GitHubClient
from review_quorum.markup.markers import find_markers, marker
from review_quorum.render.check_run import Annotation, CheckOutput
from review_quorum.retrying import write_once

ANNOTATIONS_PER_REQUEST = 50  # GitHub's limit for checks/create and checks/update
EXTERNAL_ID = "review-quorum"
ANNOTATED = "annotated"
# In a dry run the run to update has not been created: its id is shown as this.
UNCREATED = "NEW"


class CheckResult(msgspec.Struct, frozen=True):
    """What one run did to the check run."""

    repository: str
    head_sha: str
    name: str
    action: str  # "created", "updated" or "unchanged"
    conclusion: str
    annotated: int  # annotations added by this run
    requests: int
    outside_diff: int
    url: str | None = None
    dry_run: bool = False

    def describe(self) -> str:
        verb = {"created": "create", "updated": "update"}.get(self.action)
        done = f"would {verb}" if self.dry_run and verb else self.action
        where = f"{self.repository}@{self.head_sha[:12]}"
        text = f"{where}: check run {self.name!r} {done} ({self.conclusion})"
        if self.action != "unchanged":
            text += f", {self.annotated} new annotation(s) in {self.requests} request(s)"
        if self.outside_diff:
            text += f"; {self.outside_diff} finding(s) outside the diff annotated"
        return text + (f": {self.url}" if self.url and not self.dry_run else "")


def post_check_run(
    client: GitHubClient,
    repository: str,
    head_sha: str,
    name: str,
    output: CheckOutput,
    *,
    dry_run: bool = False,
) -> CheckResult:
    """Create or update the check run `name` on `head_sha` in `repository` (OWNER/NAME)."""
    run = _Run(client, f"/repos/{repository}", head_sha, name, dry_run=dry_run or client.dry_run)
    return run.post(output, repository)


class _Run:
    def __init__(
        self, client: GitHubClient, path: str, head_sha: str, name: str, *, dry_run: bool
    ) -> None:
        self.client, self.path, self.head_sha, self.name = client, path, head_sha, name
        self.dry_run = dry_run
        self.requests = 0

    def post(self, output: CheckOutput, repository: str) -> CheckResult:
        existing = self._existing()
        annotated = recorded(existing)
        new = [item for item in output.annotations if item.fingerprint not in annotated]
        action = "updated" if existing else "created"
        if existing and not new and _shows(existing, output, text(output, annotated)):
            action = "unchanged"
        else:
            existing = self._write(existing, output, new, annotated)
        return CheckResult(
            repository=repository,
            head_sha=self.head_sha,
            name=self.name,
            action=action,
            conclusion=output.conclusion,
            annotated=len(new) if action != "unchanged" else 0,
            requests=self.requests,
            outside_diff=output.outside_diff,
            url=_url(existing),
            dry_run=self.dry_run,
        )

    def _existing(self) -> dict[str, Any] | None:
        """Our check run of this name on the head commit, as checks/get answers it."""
        found = self._find()
        if found is None:
            return None
        run = self.client.get(f"{self.path}/check-runs/{found}")
        return run if isinstance(run, dict) else None

    def _find(self) -> int | None:
        query = f"check_name={quote(self.name, safe='')}&filter=all&per_page=100"
        listing = self.client.get(f"{self.path}/commits/{self.head_sha}/check-runs?{query}")
        runs = listing.get("check_runs") if isinstance(listing, dict) else None
        ids = [
            run["id"]
            for run in runs or []
            if isinstance(run, dict)
            and run.get("name") == self.name
            and run.get("external_id") == EXTERNAL_ID
            and run.get("head_sha") == self.head_sha
            and isinstance(run.get("id"), int)
        ]
        return max(ids, default=None)  # the newest, should a second one ever exist

    def _write(
        self,
        existing: dict[str, Any] | None,
        output: CheckOutput,
        new: Sequence[Annotation],
        annotated: set[str],
    ) -> dict[str, Any] | None:
        size = ANNOTATIONS_PER_REQUEST
        batches = [new[start : start + size] for start in range(0, len(new), size)] or [[]]
        run_id: object = existing["id"] if existing else None
        for batch in batches:
            annotated = annotated | {item.fingerprint for item in batch}
            body: dict[str, Any] = {"output": _output(output, annotated, batch)}
            if run_id is None:
                created = self._create(body | self._identity(output))
                existing = created if isinstance(created, dict) else None
                run_id = existing["id"] if existing else UNCREATED
            else:
                body |= {"status": "completed", "conclusion": output.conclusion}
                self._update(f"{self.path}/check-runs/{run_id}", body, batch)
        return existing

    def _identity(self, output: CheckOutput) -> dict[str, Any]:
        return {
            "name": self.name,
            "head_sha": self.head_sha,
            "external_id": EXTERNAL_ID,
            "status": "completed",
            "conclusion": output.conclusion,
        }

    def _create(self, body: dict[str, Any]) -> Any:
        """POST the new run; after a failure that may have been applied, look for it."""
        try:
            return self._once("POST", f"{self.path}/check-runs", body, self._existing)
        except GitHubError as err:
            if err.status == 403 and err.method == "POST":
                raise _read_only(err) from err
            raise

    def _update(self, path: str, body: dict[str, Any], batch: Sequence[Annotation]) -> None:
        """PATCH the run. GitHub appends the annotations of every update, so a batch is
        sent once: after a failure that may have been applied, the run is read, and the
        batch is sent again only when the run does not record it."""
        if not batch:  # replaces title, summary, text and conclusion: safe to resend
            self._send("PATCH", path, body)
            return
        fingerprints = {item.fingerprint for item in batch}

        def applied() -> object | None:
            run = self.client.get(path)
            return run if isinstance(run, dict) and fingerprints <= recorded(run) else None

        self._once("PATCH", path, body, applied)

    def _once(
        self, method: str, path: str, body: dict[str, Any], applied: Callable[[], object | None]
    ) -> Any:
        """`method` `body` to `path`, never resent blindly (`retrying.write_once`)."""

        def send(method: str, path: str, body: Mapping[str, Any]) -> Any:
            return self._send(method, path, body, idempotent=False)

        return write_once(send, self.client.wait_before_retry, method, path, body, applied)

    def _send(
        self, method: str, path: str, body: Mapping[str, Any], *, idempotent: bool | None = None
    ) -> Any:
        self.requests += 1
        return self.client.write(method, path, body, dry_run=self.dry_run, idempotent=idempotent)


def recorded(run: dict[str, Any] | None) -> set[str]:
    """The fingerprints a run's `output.text` says it has annotated."""
    output = run.get("output") if run else None
    body = output.get("text") if isinstance(output, dict) else None
    if not isinstance(body, str):
        return set()
    return {
        fingerprint
        for kind, payload in find_markers(body)
        if kind == ANNOTATED
        for fingerprint in payload.split(".")
        if fingerprint
    }


def text(output: CheckOutput, annotated: set[str]) -> str:
    """The run's `output.text`: what was annotated, and the record of it."""
    count = len(output.annotations)
    lines = [f"{count} finding{'s' if count != 1 else ''} on a line annotated."]
    if output.outside_diff:
        lines.append(
            f"{output.outside_diff} of them lie outside the pull request's diff: a review "
            "cannot comment there, so they are shown here only."
        )
    if output.left_out:
        lines.append(f"{output.left_out} more are not annotated (at most 1,000 are).")
    record = marker(ANNOTATED, ".".join(sorted(annotated))) if annotated else marker(ANNOTATED)
    return "\n\n".join(lines) + "\n\n" + record + "\n"


def _output(
    output: CheckOutput, annotated: set[str], batch: Sequence[Annotation]
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "title": output.title,
        "summary": output.summary,
        "text": text(output, annotated),
    }
    if batch:
        body["annotations"] = [item.payload for item in batch]
    return body


def _shows(run: dict[str, Any], output: CheckOutput, wanted_text: str) -> bool:
    """Whether `run` already shows `output` (its annotations aside)."""
    value = run.get("output")
    shown: dict[str, Any] = value if isinstance(value, dict) else {}
    return (
        run.get("status") == "completed"
        and run.get("conclusion") == output.conclusion
        and shown.get("title") == output.title
        and shown.get("summary") == output.summary
        and shown.get("text") == wanted_text
    )


def _url(run: dict[str, Any] | None) -> str | None:
    url = run.get("html_url") if run else None
    return url if isinstance(url, str) else None


def _read_only(err: GitHubError) -> GitHubError:
    return GitHubError(
        f"{err}: this token cannot create check runs. In a workflow give the job "
        "`permissions: checks: write`; a pull_request run from a fork only ever gets a "
        "read-only token, so post its saved plan from a workflow_run job (docs/github.md)",
        status=403,
        method=err.method,
        path=err.path,
    )
