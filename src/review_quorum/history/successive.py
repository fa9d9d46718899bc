"""What happened to each finding between two recorded runs of one pull request.

When a run is recorded, every member (one source's finding) of the run before it on the
same pull request is looked for in the new run: the same source and rule, and either the
same fingerprint, the same finding id, or a line inside where the diff between the two
heads moved its lines (`changes.follow`). A member found again is *persisted* (its story
goes on in the new run); one not found is *addressed* when the diff changed its lines,
*went away* when it did not (not evidence either way), and *gone* when the diff is
unknown (a head git cannot show, or a finding with no line). `git_changes` reads the diff
between two heads from the local repository; the members of a pull request's last run
have no row here, and count as *not addressed* once the pull request is merged.
"""

from __future__ import annotations

import bisect
import re
import subprocess
from collections import defaultdict
from collections.abc import Callable, Sequence

import msgspec

from review_quorum.history.changes import Change, Commit, CommitFile, Span, follow
from review_quorum.history.database import Database

Changes = Callable[[str, str], Commit | None]
LINE_SLACK = 3

PERSISTED, ADDRESSED, WENT_AWAY, GONE = "persisted", "addressed", "went_away", "gone"


class Sighting(msgspec.Struct, frozen=True):
    """One member of a recorded run, as stored."""

    member_id: int
    bot: str
    rule_id: str
    finding_key: str
    fingerprint: str
    file: str
    line: int | None
    end_line: int | None

    @property
    def span(self) -> Span | None:
        if not self.file or self.line is None:
            return None
        return Span(self.file, self.line, max(self.end_line or self.line, self.line))


def link_previous_run(database: Database, run_id: int, changes: Changes | None) -> int:
    """Label the members of the run recorded before `run_id` on its pull request.

    Returns how many members were labelled; runs in the caller's transaction.
    """
    rows = database.rows(
        "SELECT prev.id, prev.head_sha, cur.head_sha FROM runs cur"
        " JOIN runs prev ON prev.pull_request_id = cur.pull_request_id AND prev.id < cur.id"
        " WHERE cur.id = ? ORDER BY prev.id DESC LIMIT 1",
        (run_id,),
    )
    if not rows:
        return 0
    previous, old_head, new_head = rows[0]
    commit = _between(old_head, new_head, changes)
    labels = [
        (sighting.member_id, run_id, outcome, detail)
        for sighting, (outcome, detail) in label(
            sightings(database, int(previous)), sightings(database, run_id), commit
        ).items()
    ]
    database.execute_many(
        "INSERT INTO run_outcomes (member_id, next_run_id, outcome, detail) VALUES (?, ?, ?, ?)"
        " ON CONFLICT (member_id) DO NOTHING",
        labels,
    )
    return len(labels)


def _between(old: str, new: str, changes: Changes | None) -> Commit | None:
    if old == new:
        return Commit(new, "", files=())
    return None if changes is None else changes(old, new)


def sightings(database: Database, run_id: int) -> list[Sighting]:
    rows = database.rows(
        "SELECT m.id, m.bot, m.rule_id, m.finding_key, f.fingerprint, m.file, m.line,"
        " m.end_line FROM members m JOIN findings f ON f.id = m.finding_id"
        " WHERE f.run_id = ? ORDER BY m.id",
        (run_id,),
    )
    return [Sighting(int(row[0]), *row[1:]) for row in rows]


def label(
    before: Sequence[Sighting], after: Sequence[Sighting], commit: Commit | None
) -> dict[Sighting, tuple[str, str]]:
    """Each earlier sighting's outcome and a short reason."""
    index = _Index(after)
    labels: dict[Sighting, tuple[str, str]] = {}
    for sighting in before:
        span = sighting.span
        verdict = follow(span, [commit]) if span is not None and commit is not None else None
        if index.finds(sighting, verdict.span if verdict is not None else None):
            labels[sighting] = (PERSISTED, "still reported by the next run")
        elif verdict is None or verdict.change is Change.UNKNOWN:
            labels[sighting] = (GONE, "gone; whether its lines changed is unknown")
        elif verdict.change is Change.CHANGED:
            labels[sighting] = (ADDRESSED, "gone, and the new head changed its lines")
        else:
            labels[sighting] = (WENT_AWAY, "gone, though its lines did not change")
    return labels


class _Index:
    """The next run's sightings, looked up by source and fingerprint, id, or file and line."""

    def __init__(self, after: Sequence[Sighting]) -> None:
        self.fingerprints = {(s.bot, s.rule_id, s.fingerprint) for s in after if s.fingerprint}
        self.keys = {(s.bot, s.rule_id, s.finding_key, s.file) for s in after if s.finding_key}
        lines: dict[tuple[str, str, str], list[int]] = defaultdict(list)
        for s in after:
            if s.line is not None:
                lines[(s.bot, s.rule_id, s.file)].append(s.line)
        self.lines = {key: sorted(values) for key, values in lines.items()}

    def finds(self, old: Sighting, moved: Span | None) -> bool:
        """Whether the next run reports `old` again (its lines now at `moved`)."""
        if old.fingerprint and (old.bot, old.rule_id, old.fingerprint) in self.fingerprints:
            return True
        if old.finding_key and (old.bot, old.rule_id, old.finding_key, old.file) in self.keys:
            return True
        if moved is None:
            return False
        lines = self.lines.get((old.bot, old.rule_id, moved.path), [])
        at = bisect.bisect_left(lines, moved.start - LINE_SLACK)
        return at < len(lines) and lines[at] <= moved.end + LINE_SLACK


_DIFF_FILE = re.compile(r"^diff --git a/(.*) b/(.*)$")


def git_changes(old: str, new: str, cwd: str | None = None) -> Commit | None:
    """The diff from commit `old` to commit `new` in the local repository (None if unknown)."""
    command = ["git", "diff", "--no-color", "--no-ext-diff", "-M", "-U0", old, new, "--"]
    try:
        done = subprocess.run(command, capture_output=True, check=False, cwd=cwd)
    except OSError:
        return None
    if done.returncode != 0:
        return None
    return Commit(new, "", files=tuple(parse_diff(done.stdout.decode("utf-8", "replace"))))


def parse_diff(text: str) -> list[CommitFile]:
    """The files of a `git diff`, each with its status and its hunks as the patch."""
    files: list[CommitFile] = []
    for block in re.split(r"(?m)^(?=diff --git )", text):
        header = _DIFF_FILE.match(block.partition("\n")[0])
        if header is None:
            continue
        old_path, path = header.group(1), header.group(2)
        lines = block.splitlines()
        status = "modified"
        if any(line.startswith("deleted file mode") for line in lines):
            status = "removed"
        elif any(line.startswith("new file mode") for line in lines):
            status = "added"
        elif old_path != path:
            status = "renamed"
        hunks = [i for i, line in enumerate(lines) if line.startswith("@@")]
        binary = any(line.startswith("Binary files ") for line in lines)
        patch = "\n".join(lines[hunks[0] :]) if hunks else ("" if not binary else None)
        previous = old_path if status == "renamed" else ""
        files.append(CommitFile(path if status != "removed" else old_path, status, patch, previous))
    return files
