"""One-line mutants of the code added since 2026-12-02, and whether the tests kill them.

Each mutant is a rule a user relies on, broken in one line (a wrong comparison, an
off-by-one, a dropped condition, a swapped status): `MUTANTS` lists its file, line, the
text replaced and its replacement, and the test files that should notice. The runner
applies one mutant at a time, runs those tests (``-x -q``, time-boxed) and records killed
or survived; the file is always restored, with its modification time, so no stale bytecode
of a mutant is ever used (the runs write none).

    .venv/bin/python bench/mutants.py            # every mutant
    .venv/bin/python bench/mutants.py 3 17       # only these (numbers from the listing)
    .venv/bin/python bench/mutants.py --list     # the listing, without running
    .venv/bin/python bench/mutants.py --check    # each mutant's text found once on its line

Each mutant names its line: when the code moves, `--check` (run by the test suite) says
which mutant no longer applies, so the listing cannot silently measure other code.

Issue 34 item 4: the kill rate and every survivor's fate go in the report.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "review_quorum"
TIMEOUT = 420.0


class Mutant(NamedTuple):
    file: str  # under src/review_quorum
    line: int
    old: str
    new: str
    why: str  # what a user would see
    tests: tuple[str, ...]


GITLAB = ("tests/gitlab",)
DELIVERY = ("tests/delivery", "tests/gitlab")
# The poster every thread platform shares (delivery/threads.py).
THREADS = ("tests/delivery", "tests/gitlab", "tests/azure_devops", "tests/bitbucket")
TRIAGE = (
    "tests/history/test_platform_triage.py",
    "tests/history/test_platform_rules.py",
    "tests/history/test_conversation_reading.py",
    "tests/history/test_honour.py",
    "tests/history/test_history_rules.py",
    "tests/test_plan_gate.py",
)
COVERAGE = (
    "tests/history/test_history_rules.py",
    "tests/history/test_platform_coverage.py",
    "tests/history/test_conversation_reading.py",
    "tests/delivery/test_delivery_draft.py",
)
OUTCOMES = (
    "tests/history/test_history_rules.py",
    "tests/history/test_stats_counts.py",
    "tests/history/test_successive.py",
    "tests/history/test_successive_edges.py",
    "tests/history/test_gitlab_history.py",
    "tests/history/test_ado_bitbucket_history.py",
)
READERS = (
    "tests/history/test_platform_triage.py",
    "tests/history/test_platform_rules.py",
    "tests/history/test_gitlab_history.py",
    "tests/history/test_ado_bitbucket_history.py",
)
SCORING = (
    "tests/scoring/test_scoring_edges.py",
    "tests/scoring/test_witnesses.py",
    "tests/markup",
    "tests/test_plan.py",
)
PLAN = (
    "tests/test_plan_gate.py",
    "tests/test_plan.py",
    "tests/test_baseline.py",
    "tests/history/test_honour.py",
)
BASELINE = (
    "tests/test_baseline.py",
    "tests/test_baseline_moves.py",
    "tests/history/test_baseline_db.py",
)
IDENTITY = ("tests/test_identity.py", "tests/delivery", "tests/test_checked_plan.py")
VERIFIER = (
    "tests/verifier/test_select.py",
    "tests/verifier/test_answer.py",
    "tests/verifier/test_stage.py",
)
PIPE_TEST = "tests/cli/test_output_pipes.py"
CLIENTS = (
    "tests/test_retrying.py",
    "tests/github/test_github_client.py",
    "tests/gitlab/test_gitlab_client.py",
    "tests/gitlab/test_gitlab_post_faults.py",
)
VERIFIER_REQUEST = (
    "tests/verifier/test_request.py",
    "tests/verifier/test_stage.py",
    "tests/verifier/test_review_cli.py",
)
RETRYING = (
    "tests/test_retrying.py",
    "tests/gitlab/test_gitlab_post_faults.py",
    "tests/gitlab/test_gitlab_poster_rules.py",
    "tests/github/test_github_client.py",
)

MUTANTS: tuple[Mutant, ...] = (
    # The GitLab poster's promises.
    Mutant(
        "gitlab/poster.py",
        143,
        "if t not in placed and not t.replied",
        "if t not in placed",
        "a replied thread standing elsewhere is deleted",
        GITLAB,
    ),
    Mutant(
        "gitlab/poster.py",
        148,
        "for thread in threads if not thread.replied]",
        "for thread in threads]",
        "a replied thread is deleted when re-anchored",
        GITLAB,
    ),
    Mutant(
        "gitlab/poster.py",
        155,
        "if thread.replied:",
        "if False:",
        "a replied thread of a gone finding is resolved",
        GITLAB,
    ),
    Mutant(
        "gitlab/poster.py",
        246,
        "return not thread.replied and ",
        "return ",
        "a replied thread's text is edited",
        GITLAB,
    ),
    Mutant(
        "delivery/threads.py",
        249,
        '"DELETE", path), 404)',
        '"DELETE", path), 409)',
        "a delete answered 404 (already gone) fails the run",
        THREADS,
    ),
    Mutant(
        "delivery/threads.py",
        221,
        "if err.status != 400:",
        "if err.status != 422:",
        "an anchor the platform refuses fails the run instead of going to the summary",
        THREADS,
    ),
    Mutant(
        "gitlab/poster.py",
        215,
        "if not thread.resolved:",
        "if thread.resolved:",
        "a fixed finding's thread is not resolved",
        GITLAB,
    ),
    Mutant(
        "gitlab/poster.py",
        159,
        '.get("head_sha") == self.refs',
        '.get("head_sha") != self.refs',
        "a thread GitLab carried to the new version is taken as outdated",
        GITLAB,
    ),
    Mutant(
        "delivery/threads.py",
        152,
        "if len(work.moved) > planned_moves and sticky_id is not None:",
        "if False:",
        "a refused anchor's finding is missing from the summary note",
        THREADS,
    ),
    Mutant(
        "gitlab/poster.py",
        224,
        'state = "failed" if gate.failed else "success"',
        'state = "success" if gate.failed else "failed"',
        "the commit status is swapped",
        GITLAB,
    ),
    Mutant(
        "gitlab/poster.py",
        236,
        "if err.status != 409:",
        "if err.status != 429:",
        "a status update racing another (409) fails the run",
        GITLAB,
    ),
    Mutant(
        "gitlab/reconcile.py",
        65,
        '("new_path", "new_line", "head_sha")',
        '("new_path", "new_line")',
        "a retried create is matched to a thread on another head",
        GITLAB,
    ),
    Mutant(
        "gitlab/reconcile.py",
        48,
        "for n in notes[1:])",
        "for n in notes[2:])",
        "a thread with one reply is not counted as replied",
        GITLAB,
    ),
    Mutant(
        "gitlab/reconcile.py",
        38,
        'if note.get("system") is not True]',
        "]",
        "a system note (a push) counts as someone replying",
        GITLAB,
    ),
    Mutant(
        "gitlab/reconcile.py",
        39,
        "if not notes or not is_ours(_author(notes[0]), username):",
        "if not notes:",
        "a marker someone else wrote is taken as ours",
        GITLAB,
    ),
    # Neutral delivery rules.
    Mutant(
        "delivery/reconcile.py",
        43,
        "if fingerprint and not any(kind == FIXED for kind, _ in markers):",
        "if fingerprint:",
        "a thread already marked fixed is live again",
        DELIVERY,
    ),
    Mutant(
        "delivery/reconcile.py",
        50,
        '.replace("\\r\\n", "\\n").strip()',
        '.replace("\\r\\n", "\\n")',
        "a thread differing only in outer blank space is edited on every run",
        DELIVERY,
    ),
    Mutant(
        "delivery/reconcile.py",
        31,
        "return bool(ours) and author.casefold() == ours",
        "return author.casefold() == ours",
        "without a login, an authorless comment is ours",
        DELIVERY,
    ),
    Mutant(
        "delivery/fixing.py",
        57,
        "if recorded in known:",
        "if recorded not in known:",
        "code still there counts as fixed",
        DELIVERY,
    ),
    Mutant(
        "delivery/fixing.py",
        60,
        "return False  # the whole file",
        "return True  # the whole file",
        "a file read whole without the flagged text keeps its thread open",
        DELIVERY,
    ),
    Mutant(
        "delivery/fixing.py",
        74,
        "return Gone(fixed=True)",
        "return Gone(fixed=False)",
        "a hand-made draft's gone findings are never fixed",
        DELIVERY,
    ),
    Mutant(
        "delivery/fixing.py",
        78,
        "return Gone(fixed=False, compared=False)",
        "return Gone(fixed=True, compared=False)",
        "a thread whose code cannot be compared is resolved",
        DELIVERY,
    ),
    Mutant(
        "delivery/fixing.py",
        79,
        "there = not outdated",
        "there = outdated",
        "the platform's outdated word is read backwards",
        DELIVERY,
    ),
    Mutant(
        "delivery/fixing.py",
        61,
        "return False if line is not None and lines.line(path, line) is not None else None",
        "return None",
        "the diff's other text on the thread's line is not a fix",
        DELIVERY,
    ),
    # Triage.
    Mutant(
        "history/triage.py",
        107,
        "if is_bot(user) and not bots:",
        "if False:",
        "a bot's /quorum ack is a decision (GitHub)",
        TRIAGE,
    ),
    Mutant(
        "history/triage.py",
        205,
        "if account is None or account.bot:",
        "if account is None:",
        "a bot listed as a triager decides",
        TRIAGE,
    ),
    Mutant(
        "history/triage.py",
        79,
        "if own and _record_login(r) == own)",
        ")",
        "someone else's comment with our marker is ours",
        TRIAGE,
    ),
    Mutant(
        "history/triage.py",
        173,
        "permission(decision.actor) in WRITERS",
        'permission(decision.actor) != "none"',
        "a reader (fork author) triages",
        TRIAGE,
    ),
    Mutant(
        "history/triage.py",
        207,
        "key.casefold() in allowed",
        "key in allowed",
        "a triager configured in another case is refused",
        TRIAGE,
    ),
    # Coverage.
    Mutant(
        "history/coverage.py",
        98,
        "if any(on_head and notice(body) != UNDER_WAY_NOTICE for",
        "if any(on_head for",
        "an 'under way' notice counts as a review",
        COVERAGE,
    ),
    Mutant(
        "history/coverage.py",
        113,
        'if item.get("state") != "PENDING":',
        "if True:",
        "a pending review counts as a review",
        COVERAGE,
    ),
    Mutant(
        "history/coverage.py",
        121,
        "moment > committed",
        "moment < committed",
        "a comment before the head's push counts as reviewing it",
        COVERAGE,
    ),
    Mutant(
        "history/coverage.py",
        95,
        "latest = items[-1][1]",
        "latest = items[0][1]",
        "a bot that declined, then reviewed, is declined",
        COVERAGE,
    ),
    # Outcomes.
    Mutant(
        "history/outcomes.py",
        180,
        'frozenset({"-1", "confused"})',
        'frozenset({"-1"})',
        "a confused reaction is not a thumbs-down",
        OUTCOMES,
    ),
    Mutant(
        "history/successive.py",
        82,
        "if old == new:",
        "if old is None:",
        "a re-run on the same head cannot tell a finding went away",
        OUTCOMES,
    ),
    Mutant(
        "history/successive.py",
        139,
        "lines[at] <= moved.end + LINE_SLACK",
        "lines[at] < moved.end + LINE_SLACK",
        "a finding found again at the slack's edge is gone",
        OUTCOMES,
    ),
    # Platform history readers.
    Mutant(
        "history/gitlab_reads.py",
        61,
        '"thumbsdown": "-1",',
        '"thumbsdown": "thumbsdown",',
        "a GitLab thumbs-down is not counted",
        READERS,
    ),
    Mutant(
        "history/gitlab_reads.py",
        127,
        "if index == len(heads) - 1 else",
        "if index == len(heads) else",
        "a note on the newest version counts as changed by a later one",
        READERS,
    ),
    Mutant(
        "history/gitlab_reads.py",
        222,
        "bot=is_bot_account(login) or login in bot_logins",
        "bot=login in bot_logins",
        "a GitLab bot account triages",
        READERS,
    ),
    Mutant(
        "history/bitbucket_reads.py",
        126,
        "parent = parents[parent]",
        "parent = parent",
        "a reply to a reply in our Bitbucket thread does not triage",
        READERS,
    ),
    Mutant(
        "history/bitbucket_reads.py",
        135,
        'bot = user.get("type") == APP_ACCOUNT or login_of(user) in bot_logins',
        "bot = login_of(user) in bot_logins",
        "a Bitbucket app account triages",
        READERS,
    ),
    Mutant(
        "history/azure_devops_reads.py",
        186,
        "bot=is_service_identity(person) or login_of(person) in bot_logins",
        "bot=login_of(person) in bot_logins",
        "an Azure DevOps service identity triages",
        READERS,
    ),
    # Scoring edges and escaping.
    Mutant(
        "scoring/confidence/attach.py",
        86,
        "for distance in range(window + 1):",
        "for distance in range(window):",
        "a verdict exactly line_window away matches nothing",
        SCORING,
    ),
    Mutant(
        "scoring/confidence/attach.py",
        93,
        "return min(found)",
        "return max(found)",
        "an equidistant verdict goes to the later finding",
        SCORING,
    ),
    Mutant(
        "scoring/families.py",
        79,
        "return count >= ECHO_MIN and",
        "return count > ECHO_MIN and",
        "echoes at exactly ECHO_MIN do not make a family",
        SCORING,
    ),
    Mutant(
        "scoring/families.py",
        79,
        "and count >= ECHO_SHARE * min(",
        "and count > ECHO_SHARE * min(",
        "echoes at exactly the share do not make a family",
        SCORING,
    ),
    Mutant(
        "scoring/families.py",
        125,
        "keep, drop = sorted(",
        "drop, keep = sorted(",
        "a merged family takes the last name",
        SCORING,
    ),
    Mutant(
        "scoring/families.py",
        89,
        "if merged != bots:",
        "if True:",
        "a detected family absorbs every witness",
        SCORING,
    ),
    Mutant(
        "markup/escape.py",
        25,
        'r"^(\\d*)([#>=+.)-])"',
        'r"^(\\d*)([#>=+.-])"',
        "a title '1) text' renders as a list",
        SCORING,
    ),
    Mutant(
        "markup/escape.py",
        89,
        'match.group(2) not in ".)"',
        'match.group(2) not in "."',
        "a title '1) text' renders as a list",
        SCORING,
    ),
    # The gate policy in plan.py.
    Mutant(
        "plan.py",
        621,
        "and item.triage is None",
        "and True",
        "a triaged finding still fails the gate",
        PLAN,
    ),
    Mutant(
        "plan.py",
        622,
        'item.baseline_state == "unchanged"',
        'item.baseline_state == "updated"',
        "with --gate-on new, pre-existing findings block and updated ones do not",
        PLAN,
    ),
    Mutant(
        "plan.py",
        627,
        "item.finding.level.rank >= rank",
        "item.finding.level.rank > rank",
        "a finding exactly at the gate level passes",
        PLAN,
    ),
    Mutant(
        "plan.py",
        419,
        "if decision.silences and target in known:",
        "if target in known:",
        "a thumbs reaction silences a finding",
        PLAN,
    ),
    Mutant(
        "plan.py",
        418,
        "target = at.get(triage.places[target], target)",
        "target = target",
        "a decision on an earlier identity does not follow its finding",
        PLAN,
    ),
    Mutant(
        "plan.py",
        466,
        "if c.state is State.REVIEWED}",
        "if c.state is not State.ABSENT}",
        "a stale or declined bot votes",
        PLAN + COVERAGE,
    ),
    Mutant(
        "plan.py",
        104,
        'frozenset({"false-positive", "wont-fix", "ack"})',
        'frozenset({"false-positive", "wont-fix"})',
        "a writer's ack does not silence",
        PLAN,
    ),
    # Baseline and identity.
    Mutant(
        "baseline.py",
        81,
        "if base[index].severity == finding.severity else",
        "if base[index].severity != finding.severity else",
        "unchanged and updated swapped",
        BASELINE,
    ),
    Mutant(
        "baseline.py",
        51,
        "finding.line in change.old_lines:",
        "finding.line in ():",
        "a base finding on a rewritten line takes the head's text",
        BASELINE,
    ),
    Mutant(
        "baseline.py",
        55,
        "if place is None and diff is not None:",
        "if place is None and diff is None:",
        "a base finding in a deleted file keeps its place",
        BASELINE,
    ),
    Mutant(
        "identity.py",
        85,
        "return lines[line - 1] if",
        "return lines[line] if",
        "the flagged line's text is read one line off",
        IDENTITY,
    ),
    Mutant(
        "identity.py",
        53,
        'return "".join(text.split())',
        "return text.strip()",
        "re-indented code counts as changed",
        IDENTITY,
    ),
    Mutant(
        "identity.py",
        226,
        "ranked = sorted(indices, key=lambda index: _order(findings[index]))",
        "ranked = indices",
        "identities swap when the input order changes",
        IDENTITY,
    ),
    # The verifier.
    Mutant(
        "verifier/select.py",
        82,
        "if family_count >= 2 and",
        "if family_count >= 1 and",
        "a one-family confirmed finding is never verified",
        VERIFIER,
    ),
    Mutant(
        "verifier/select.py",
        90,
        "<= probability < CONFIRMED_PROBABILITY",
        "<= probability <= CONFIRMED_PROBABILITY",
        "a finding at the confirmed cut is verified",
        VERIFIER,
    ),
    Mutant(
        "verifier/select.py",
        113,
        "key=lambda candidate: -candidate.value)",
        "key=lambda candidate: candidate.value)",
        "the budget goes to the least valuable",
        VERIFIER,
    ),
    Mutant(
        "verifier/select.py",
        85,
        "finding.severity <= Severity.LOW",
        "finding.severity < Severity.LOW",
        "low-severity summary findings are sent to the verifier",
        VERIFIER,
    ),
    Mutant(
        "verifier/answer.py",
        96,
        "if verdict is Verdict.DISMISSED and not cites_code(",
        "if verdict is Verdict.DISMISSED and cites_code(",
        "a dismissal citing no code dismisses",
        VERIFIER,
    ),
    Mutant(
        "verifier/answer.py",
        129,
        "return bool(lines) and all(",
        "return all(",
        "a dismissal citing no line at all dismisses",
        VERIFIER,
    ),
    Mutant(
        "verifier/answer.py",
        83,
        " or not self.verdict.in_changed_code",
        "",
        "a verdict on unchanged code does not drop the finding",
        VERIFIER,
    ),
    Mutant(
        "retrying.py",
        349,
        "err.status < 500:",
        "err.status <= 500:",
        "a create answered 500 is not checked and retried",
        RETRYING,
    ),
    # A second batch: clients, the verifier's request and cache, a saved plan's check,
    # output files.
    Mutant(
        "retrying.py",
        73,
        "if parsed.userinfo:",
        "if False:",
        "a token is sent to an API URL holding credentials",
        CLIENTS,
    ),
    Mutant(
        "retrying.py",
        77,
        '(parsed.scheme == "http" and _loopback(parsed.host))',
        '(parsed.scheme == "http")',
        "a token goes over plain http to a remote host",
        CLIENTS,
    ),
    Mutant(
        "retrying.py",
        101,
        "return float(max(seconds, 0))",
        "return float(seconds)",
        "a negative Retry-After makes a negative sleep",
        CLIENTS,
    ),
    Mutant(
        "retrying.py",
        175,
        "if attempt + 1 >= self._retry.attempts:",
        "if attempt + 1 > self._retry.attempts:",
        "one attempt more than configured",
        CLIENTS,
    ),
    Mutant(
        "retrying.py",
        179,
        "if self.waited + delay > self._retry.budget:",
        "if delay > self._retry.budget:",
        "the retry budget forgets the time already waited",
        CLIENTS,
    ),
    Mutant(
        "retrying.py",
        209,
        "if not idempotent:",
        "if False:",
        "a POST whose connection was lost is resent blindly (a duplicate)",
        CLIENTS,
    ),
    Mutant(
        "verifier/request.py",
        211,
        "if not target.is_relative_to(root) or not target.is_file():",
        "if not target.is_file():",
        "a symbolic link out of the checkout is read and sent",
        VERIFIER_REQUEST,
    ),
    Mutant(
        "verifier/request.py",
        373,
        "if suspect_injection(*raw, *code, *rules):",
        "if suspect_injection(*raw):",
        "an injection in the code window is sent to the model",
        VERIFIER_REQUEST,
    ),
    Mutant(
        "verifier/request.py",
        351,
        "if is_instruction_file(finding.file):",
        "if False:",
        "a repository instruction file (AGENTS.md) is sent",
        VERIFIER_REQUEST,
    ),
    Mutant(
        "verifier/request.py",
        120,
        'lowered.startswith(prefix) or f"/{prefix}" in lowered',
        "lowered.startswith(prefix)",
        "a nested .claude/ or .cursor/ file is sent",
        VERIFIER_REQUEST,
    ),
    Mutant(
        "verifier/request.py",
        389,
        "        model,",
        '        "",',
        "an answer cached for one model is reused for another",
        VERIFIER_REQUEST,
    ),
    Mutant(
        "verifier/cache.py",
        64,
        "if stored.version == CACHE_VERSION:",
        "if True:",
        "a cache written by another version is trusted",
        VERIFIER_REQUEST,
    ),
    Mutant(
        "checked_plan.py",
        138,
        "if m.source is not None or m.bot in bots]",
        "if m.source is not None]",
        "a saved plan passes a bot's finding off as an analyser's",
        ("tests/test_checked_plan.py",),
    ),
    Mutant(
        "checked_plan.py",
        139,
        "if identity(m) not in read)",
        "if identity(m) in read)",
        "a saved plan's claims no comment says are kept",
        ("tests/test_checked_plan.py",),
    ),
    Mutant(
        "checked_plan.py",
        184,
        "level if level.rank <= other.rank else other",
        "level if level.rank >= other.rank else other",
        "a saved plan raises a level",
        ("tests/test_checked_plan.py",),
    ),
    Mutant(
        "cli/output.py",
        66,
        "_new_file_mode() if mode is None else mode)",
        "_new_file_mode())",
        "an output file loses its mode",
        ("tests/cli/test_exhaustion.py",),
    ),
    Mutant(
        "cli/output.py",
        47,
        "if mode is None or stat.S_ISREG(mode):",
        "if True:",
        "an output to a pipe or device is replaced by a file",
        # Only the test that writes to a named pipe in its own folder: with this mutant the
        # suite's `-o /dev/null` test replaces the machine's /dev/null with a file.
        (PIPE_TEST,),
    ),
)


# Survivors that no test can kill because no input a user gives tells them apart, each
# with the reason (by file and replaced text).
EQUIVALENT = {
    ("baseline.py", "if place is None and diff is not None:"): (
        "place is None only for a file the diff deleted; its base findings keep their line,"
        " but their identity is the removed line's text (every line of a deleted file is in"
        " the diff's base side) and no head finding has that file's text, so every state and"
        " the absent list are the same (the one input told apart: base and head both"
        " reporting a line past the end of the deleted file, where neither answer is wrong)"
    ),
}


def apply(mutant: Mutant) -> tuple[Path, str, int]:
    """Write the mutant; return the file, its old text and modification time."""
    path = PACKAGE / mutant.file
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    line = lines[mutant.line - 1]
    if line.count(mutant.old) != 1:
        raise SystemExit(f"{mutant.file}:{mutant.line}: {mutant.old!r} not found once in {line!r}")
    lines[mutant.line - 1] = line.replace(mutant.old, mutant.new)
    stamp = path.stat().st_mtime_ns
    path.write_text("\n".join(lines), encoding="utf-8")
    return path, text, stamp


def run(mutant: Mutant) -> str:
    path, text, stamp = apply(mutant)
    try:
        environment = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
        command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider"]
        try:
            done = subprocess.run(
                [*command, *mutant.tests],
                cwd=ROOT,
                env=environment,
                capture_output=True,
                timeout=TIMEOUT,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return "timeout"
        return "survived" if done.returncode == 0 else "killed"
    finally:
        path.write_text(text, encoding="utf-8")
        os.utime(path, ns=(stamp, stamp))


USAGE = "usage: bench/mutants.py [--list | --check | NUMBER ...]"


def stale() -> list[str]:
    """Each mutant whose text is not found once on its line, as the runner would say it."""
    problems = []
    for number, mutant in enumerate(MUTANTS, 1):
        lines = (PACKAGE / mutant.file).read_text(encoding="utf-8").split("\n")
        line = lines[mutant.line - 1] if 0 < mutant.line <= len(lines) else ""
        if line.count(mutant.old) != 1:
            problems.append(f"{number}: {mutant.file}:{mutant.line}: {mutant.old!r} not found once")
    return problems


def chosen_numbers(arguments: list[str]) -> list[int] | None:
    """The mutants' numbers asked for (all when none), or None when one is not a number."""
    if not arguments:
        return list(range(1, len(MUTANTS) + 1))
    if not all(a.isdigit() and 1 <= int(a) <= len(MUTANTS) for a in arguments):
        return None
    return [int(a) for a in arguments]


def main(arguments: list[str]) -> int:
    if "-h" in arguments or "--help" in arguments:
        print(USAGE)
        print(__doc__)
        return 0
    if "--list" in arguments:
        for number, mutant in enumerate(MUTANTS, 1):
            print(f"{number:2} {mutant.file}:{mutant.line} {mutant.old!r} -> {mutant.new!r}")
        return 0
    if "--check" in arguments:
        problems = stale()
        for problem in problems:
            print(problem)
        print(f"{len(MUTANTS) - len(problems)} of {len(MUTANTS)} mutants apply")
        return 1 if problems else 0
    chosen = chosen_numbers(arguments)
    if chosen is None:
        print(f"{USAGE}\n(mutant numbers run from 1 to {len(MUTANTS)})", file=sys.stderr)
        return 2
    killed = 0
    for number in chosen:
        mutant = MUTANTS[number - 1]
        start = time.monotonic()
        outcome = run(mutant)
        killed += outcome != "survived"
        seconds = time.monotonic() - start
        print(
            f"{number:2} {outcome:8} {seconds:5.0f}s {mutant.file}:{mutant.line} {mutant.why}",
            flush=True,
        )
        if outcome == "survived" and (mutant.file, mutant.old) in EQUIVALENT:
            print(f"   equivalent: {EQUIVALENT[mutant.file, mutant.old]}", flush=True)
    clean = subprocess.run(["git", "diff", "--quiet", "--", "src"], cwd=ROOT, check=False)
    print(f"killed {killed} of {len(chosen)}; src {'clean' if clean.returncode == 0 else 'DIRTY'}")
    return 0 if clean.returncode == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
