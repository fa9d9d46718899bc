"""Regression tests for issue 18's "exit 3 and resource exhaustion" reproductions.

Each case once ended in exit 3 (a TypeError, a RecursionError, a BrokenPipeError, an
OSError), in gigabytes of memory, or in a truncated output file; each is now exit 2 with a
message naming the file and position, or a quiet, documented exit.
"""

from __future__ import annotations

import errno
import io
import json
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import FIXTURES, REPO_ROOT
from review_quorum.cli import main

FINDINGS = str(FIXTURES / "review.findings.json")
NATIVE = str(REPO_ROOT / "examples" / "native" / "findings.json")
HUGE = "99999999999999999999999"
DEEP = "[" * 1000 + "]" * 1000


def quorum(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


# --- an absurd bot count --------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        ["review", "--format", "json"],
        ["review", "--format", "sarif"],
        ["consensus", "--format", "json"],
    ],
)
@pytest.mark.parametrize(
    ("bots", "shown"),
    [(HUGE, f'"{HUGE}"'), ("10001", '"10001"'), ("9" * 5000, '"' + "9" * 58 + "…")],
)
def test_a_bot_count_beyond_the_bound_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], command: list[str], bots: str, shown: str
) -> None:
    assert quorum(capsys, *command, FINDINGS, "--bots", bots) == (
        2,
        "",
        f"quorum: error: --bots: expected at most 10,000 bots, not {shown}\n",
    )


def test_the_bound_itself_is_a_bot_count(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["consensus", FINDINGS, "--bots", "010000", "--gate-level", "none", "--format", "json"]
    status, out, _ = quorum(capsys, *argv)
    assert (status, {f["bots_ran"] for f in json.loads(out)["findings"]}) == (0, {10_000})


def test_a_bot_count_beyond_the_bound_in_the_config_names_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "quorum.toml"
    config.write_text(f"[tool.quorum]\nbots = {HUGE}\n")
    status, out, err = quorum(
        capsys, "review", FINDINGS, "--config", str(config), "--format", "json"
    )
    assert (status, out) == (2, "")
    assert err == (
        f"quorum: error: {config}: bad value for 'bots': 99999999… (23 digits): "
        "expected at most 10,000 bots\n"
    )


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ('bots = "a,,b"', 'bad value for \'bots\': "a,,b": an empty bot name in "a,,b"'),
        ('bots = ["a", "-2"]', 'bad value for \'bots\': ["a", "-2"]: "-2" is a number, '),
        ('bots = "0"', 'bad value for \'bots\': "0": expected at least 1 bot, not "0"'),
        (
            f'bots = "{HUGE}"',
            f'bad value for \'bots\': "{HUGE}": expected at most 10,000 bots, not "{HUGE}"\n',
        ),
    ],
)
def test_a_bot_list_the_flag_would_refuse_is_refused_in_the_config_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], setting: str, message: str
) -> None:
    config = tmp_path / "quorum.toml"
    config.write_text(f"[tool.quorum]\n{setting}\n")
    status, out, err = quorum(
        capsys, "review", FINDINGS, "--config", str(config), "--format", "json"
    )
    assert (status, out) == (2, "")
    assert err.startswith(f"quorum: error: {config}: {message}")


@pytest.mark.parametrize("digits", [20, 5000])
def test_a_cwe_id_beyond_every_cwe_skips_its_finding_and_the_plan_reads_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], digits: int
) -> None:
    """A tag `cwe-999...9` crashed int() past 4,300 digits (exit 3); past 64 bits it was
    written into a plan that quorum post then refused."""
    rules = [
        {"id": "B1", "properties": {"tags": ["external/cwe/cwe-89"]}},
        {"id": "B2", "properties": {"tags": ["external/cwe/cwe-" + "9" * digits]}},
    ]
    results = [
        {
            "ruleId": rule,
            "message": {"text": f"finding {rule}"},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": "app.py"},
                        "region": {"startLine": 3},
                    }
                }
            ],
        }
        for rule in ("B1", "B2")
    ]
    run = {"tool": {"driver": {"name": "Bandit", "rules": rules}}, "results": results}
    sarif, plan = tmp_path / "bandit.sarif", tmp_path / "plan.json"
    sarif.write_text(json.dumps({"version": "2.1.0", "runs": [run]}), encoding="utf-8")
    argv = ["review", str(sarif), "--bots", "1", "--format", "json", "-o", str(plan)]
    assert quorum(capsys, *argv)[0] in (0, 1)
    report = json.loads(plan.read_text(encoding="utf-8"))
    assert [m["finding_id"] for f in report["findings"] for m in f["members"]] == ["B1"]
    assert [s["reason"] for s in report["skipped"]] == [
        "finding 'B2' from 'bandit': CWE ids must be at most 2147483647"
    ]
    assert quorum(capsys, "verify", str(plan), "--verifier-cmd", "true")[0] == 0


# --- nesting and chains that once recursed ----------------------------------------------


def sarif_with_a_base_chain(length: int) -> str:
    bases: dict[str, object] = {"B0": {"uri": "file:///work/shop/"}}
    bases.update({f"B{i}": {"uri": f"d{i}/", "uriBaseId": f"B{i - 1}"} for i in range(1, length)})
    location = {"artifactLocation": {"uri": "a.py", "uriBaseId": f"B{length - 1}"}}
    result = {
        "ruleId": "B1",
        "message": {"text": "x"},
        "locations": [{"physicalLocation": location}],
    }
    run = {"tool": {"driver": {"name": "Bandit"}}, "originalUriBaseIds": bases, "results": [result]}
    return json.dumps({"version": "2.1.0", "runs": [run]})


def test_a_thousand_chained_sarif_bases_are_refused_at_the_first_too_deep(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "chain.sarif"
    path.write_text(sarif_with_a_base_chain(1000))
    assert quorum(capsys, "consensus", str(path), "--bots", "1", "--format", "json") == (
        2,
        "",
        f"quorum: error: {path}:/runs/0/originalUriBaseIds/B32: "
        "a uriBaseId chain of more than 32 bases\n",
    )


def test_a_chain_of_32_sarif_bases_is_followed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "chain.sarif"
    path.write_text(sarif_with_a_base_chain(32))
    status, out, _ = quorum(capsys, "consensus", str(path), "--bots", "1", "--format", "json")
    folders = "/".join(f"d{i}" for i in range(1, 32))
    assert (status, [f["file"] for f in json.loads(out)["findings"]]) == (0, [f"{folders}/a.py"])


@pytest.mark.parametrize(
    "text",
    [
        "bots = " + DEEP[400:-400] + "\n",
        'root = "x"\n\n[tool.other]\nkey = ' + "{a = " * 600 + "1" + "}" * 600 + "\n",
    ],
)
def test_a_config_nested_600_deep_names_its_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str
) -> None:
    config = tmp_path / ".quorum.toml"
    config.write_text(text)
    line = text.count("\n", 0, text.index("[" * 10 if "[[" in text else "{a")) + 1
    assert quorum(capsys, "review", FINDINGS, "--config", str(config)) == (
        2,
        "",
        f"quorum: error: {config}: line {line}: arrays and tables nested more than 64 deep\n",
    )


def test_brackets_in_config_strings_and_comments_are_not_nesting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / ".quorum.toml"
    brackets = "[" * 100
    config.write_text(
        f"# {brackets}\nroot = \"{brackets}\\\"\"\nthreshold = '''\n{brackets}'''\n"
        f'gate-level = "none"\n'
    )
    status, _, _ = quorum(capsys, "review", FINDINGS, "--config", str(config), "--bots", "3")
    assert status == 0


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ('{"format": ' + DEEP + "}", "/format: expected 'review-quorum-profile', not [[[…]]]"),
        (
            '{"format": "review-quorum-profile", "version": ' + DEEP + "}",
            "/version: unsupported version [[[…]]]",
        ),
        (
            '{"format": "review-quorum-profile", "version": 1, "sources": [{"bot": "b", '
            '"reliability": ' + DEEP + "}]}",
            "/sources/0/reliability: must be a number strictly between 0 and 1, not [[[…]]]",
        ),
    ],
)
def test_a_profile_value_nested_1000_deep_is_an_error_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], document: str, message: str
) -> None:
    profile = tmp_path / "profile.json"
    profile.write_text(document)
    assert quorum(capsys, "review", FINDINGS, "--bots", "3", "--profile", str(profile)) == (
        2,
        "",
        f"quorum: error: {profile}:{message}\n",
    )


# --- a labels range of a hundred billion lines ------------------------------------------

LIMITED = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
from review_quorum.cli import main
sys.exit(main(sys.argv[1:]))
"""


def quorum_in_a_gibibyte(*argv: str) -> subprocess.CompletedProcess[str]:
    """`quorum ARGV` in a child limited to 1 GiB of address space: what once grew to
    12 GB fails fast there (MemoryError, exit 3) instead of eating the machine."""
    return subprocess.run(
        [sys.executable, "-c", LIMITED, *argv],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS bounds memory on Linux")
@pytest.mark.parametrize("command", ["evaluate", "calibrate"])
def test_a_labels_range_of_a_hundred_billion_lines_fits_in_a_gibibyte(
    tmp_path: Path, command: str
) -> None:
    labels = tmp_path / "big.labels.jsonl"
    labels.write_text(
        '{"file":"app/store.py","start_line":1,"end_line":100000000000,"real":true}\n'
    )
    argv = [command, str(labels), NATIVE, "--labels-format", "jsonl", "--bots", "4"]
    done = quorum_in_a_gibibyte(*argv, *(["--format", "json"] if command == "evaluate" else []))
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    if command == "evaluate":
        assert done.stderr == ""
        rows = [(row["name"], row["true"]) for row in document["rows"] if row["kind"] == "source"]
    else:  # what moved from the shipped profile, which the learned sources lead and extend
        assert done.stderr.startswith("quorum: calibrate: 4 source(s) learned over the shipped")
        rows = [(source["bot"], source["true"]) for source in document["sources"][:4]]
    assert rows == [("bandit", 1), ("coderabbit", 1), ("copilot", 0), ("semgrep", 1)]


# --- standard output: a closed pipe, a full disk ----------------------------------------


def many_findings(tmp_path: Path, count: int = 2000) -> str:
    """A native findings file whose reports fill far more than a pipe's 64 KiB buffer."""
    records = [
        {"bot": f"b{i % 3}", "finding_id": str(i), "severity": "low", "category": "bug",
         "title": f"Problem number {i}", "evidence": {"file": f"f{i}.py", "line": 1}}
        for i in range(count)
    ]  # fmt: skip
    path = tmp_path / "many.json"
    path.write_text(json.dumps(records))
    return str(path)


def child_environment(buffered: bool) -> dict[str, str]:
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    return environment if buffered else {**environment, "PYTHONUNBUFFERED": "1"}


@pytest.mark.parametrize("buffered", [True, False])
# markdown is capped at GitHub's comment size, which a pipe and the reader's buffer can
# hold whole; the terminal table is not
@pytest.mark.parametrize("output", ["json", "terminal"])
def test_a_reader_that_closes_the_pipe_ends_quorum_quietly_with_141(
    tmp_path: Path, buffered: bool, output: str
) -> None:
    argv = ["review", many_findings(tmp_path), "--bots", "3", "--format", output]
    with subprocess.Popen(
        [sys.executable, "-m", "review_quorum", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=child_environment(buffered),
    ) as child:  # `quorum review ... | head -c 100`
        assert child.stdout is not None and child.stderr is not None
        assert len(child.stdout.read(100)) == 100
        child.stdout.close()
        err = child.stderr.read()
        assert (child.wait(timeout=120), err) == (141, b"")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("buffered", [True, False])
@pytest.mark.parametrize(
    "argv",
    [
        ["review", "{many}", "--bots", "3", "--format", "json"],
        ["review", "{many}", "--bots", "3", "--format", "markdown"],
        ["consensus", "{many}", "--bots", "3", "--format", "json"],
        ["--version"],
    ],
)
def test_standard_output_on_a_full_disk_is_an_error_naming_it(
    tmp_path: Path, buffered: bool, argv: list[str]
) -> None:
    many = many_findings(tmp_path)
    with open("/dev/full", "wb") as full:
        done = subprocess.run(
            [sys.executable, "-m", "review_quorum", *(a.format(many=many) for a in argv)],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            env=child_environment(buffered),
            timeout=120,
            check=False,
        )
    last = done.stderr.splitlines()[-1]
    assert (done.returncode, last) == (
        2,
        "quorum: error: <stdout>: cannot write: No space left on device",
    )


@pytest.mark.parametrize(
    ("closed", "extra", "status", "last"),
    [
        (">&-", [], 2, "quorum: error: <stdout>: cannot write: standard output is closed"),
        (">&-", ["-o", "{out}"], 1, None),  # nothing goes to standard output: all is written
        ("2>&-", ["-o", "{out}"], 1, None),  # nothing can be said, the review is written
    ],
)
def test_a_closed_standard_stream_is_an_error_naming_it_not_a_crash(
    tmp_path: Path, closed: str, extra: list[str], status: int, last: str | None
) -> None:
    """`quorum review ... >&-`: Python starts without sys.stdout (or sys.stderr)."""
    out = tmp_path / "review.md"
    argv = ["review", FINDINGS, "--bots", "3", *(a.format(out=out) for a in extra)]
    done = subprocess.run(
        ["sh", "-c", f'exec "$0" -m review_quorum "$@" {closed}', sys.executable, *argv],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    said = done.stdout + done.stderr
    assert "internal error" not in said and "Traceback" not in said
    lines = done.stderr.splitlines()
    assert (done.returncode, lines[-1] if last else out.read_text()[:30]) == (
        status,
        last or "<!-- review-quorum:summary -->",
    )


class FailingStream(io.StringIO):
    def __init__(self, error: OSError) -> None:
        super().__init__()
        self.error = error

    def write(self, text: str) -> int:
        raise self.error


@pytest.mark.parametrize(
    ("error", "status", "message"),
    [
        (BrokenPipeError(errno.EPIPE, "Broken pipe"), 141, ""),
        (
            OSError(errno.ENOSPC, "No space left on device"),
            2,
            "quorum: error: <stdout>: cannot write: No space left on device\n",
        ),
    ],
)
@pytest.mark.parametrize("output", ["json", "markdown"])
def test_main_turns_standard_output_failures_into_statuses(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    error: OSError,
    status: int,
    message: str,
    output: str,
) -> None:
    monkeypatch.setattr(sys, "stdout", FailingStream(error))
    assert main(["review", FINDINGS, "--bots", "3", "--format", output]) == status
    assert capsys.readouterr().err.replace(SKIPPED_WARNING, "") == message


SKIPPED_WARNING = "quorum: warning: 1 input record(s) skipped (listed in the JSON report)\n"


# --- -o FILE is whole or untouched -----------------------------------------------------


def leftovers(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir() if path.name.endswith(".tmp"))


def test_ctrl_c_while_writing_leaves_the_previous_output_and_no_temporary_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from review_quorum.render import json_report

    chunks = json_report.chunks

    def interrupted(plan: object) -> Iterator[bytes | memoryview]:
        yield next(iter(chunks(plan)))  # type: ignore[arg-type]
        raise KeyboardInterrupt

    monkeypatch.setattr(json_report, "chunks", interrupted)
    target = tmp_path / "plan.json"
    target.write_text("the previous plan\n")
    argv = ["review", FINDINGS, "--bots", "3", "--format", "json", "-o", str(target)]
    assert quorum(capsys, *argv)[:2] == (130, "")
    assert (target.read_text(), leftovers(tmp_path)) == ("the previous plan\n", [])
    target.unlink()
    assert quorum(capsys, *argv)[:2] == (130, "")
    assert list(tmp_path.iterdir()) == []


FSIZE_LIMITED = """
import resource, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG
resource.setrlimit(resource.RLIMIT_FSIZE, (256, 256))
from review_quorum.cli import main
sys.exit(main(sys.argv[1:]))
"""
LABELS_FILE = str(FIXTURES / "labels" / "lines.labels.jsonl")
WRITERS = [
    ["review", "{many}", "--bots", "3", "--format", "json"],
    ["review", "{many}", "--bots", "3", "--format", "markdown"],
    ["consensus", "{many}", "--bots", "3", "--format", "json"],
    ["consensus", "{many}", "--bots", "3", "--format", "markdown"],
    ["evaluate", LABELS_FILE, NATIVE, "--bots", "4"],
    ["calibrate", LABELS_FILE, NATIVE, "--bots", "4"],
    ["score", str(FIXTURES / "score.mixed-dispositions.json")],
]


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_FSIZE fails writes on Linux")
@pytest.mark.parametrize(
    "argv",
    WRITERS,
    ids=[
        "review-json",
        "review-md",
        "consensus-json",
        "consensus-md",
        "evaluate",
        "calibrate",
        "score",
    ],
)
def test_a_failing_write_leaves_the_previous_output_and_no_temporary_file(
    tmp_path: Path, argv: list[str]
) -> None:
    many = many_findings(tmp_path)
    target = tmp_path / "out" / "result"
    target.parent.mkdir()
    target.write_text("the previous result\n")
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            FSIZE_LIMITED,
            *(a.format(many=many) for a in argv),
            "-o",
            str(target),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.splitlines()[-1] == f"quorum: error: {target}: cannot write: File too large"
    assert (target.read_text(), leftovers(target.parent)) == ("the previous result\n", [])


def test_a_written_output_keeps_the_targets_mode_and_writes_through_links(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "plan.json"
    target.write_text("old")
    target.chmod(0o640)
    link = tmp_path / "link.json"
    link.symlink_to(target)
    assert (
        quorum(capsys, "review", FINDINGS, "--bots", "3", "--format", "json", "-o", str(link))[0]
        == 1
    )
    assert (link.is_symlink(), stat.S_IMODE(target.stat().st_mode)) == (True, 0o640)
    assert json.loads(target.read_text())["bots_ran"] == 3
    assert sorted(path.name for path in tmp_path.iterdir()) == ["link.json", "plan.json"]


def test_a_new_output_gets_a_new_files_mode(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    umask = os.umask(0o027)
    try:
        quorum(
            capsys,
            "review",
            FINDINGS,
            "--bots",
            "3",
            "--format",
            "json",
            "-o",
            str(tmp_path / "a.json"),
        )
    finally:
        os.umask(umask)
    assert stat.S_IMODE((tmp_path / "a.json").stat().st_mode) == 0o640


@pytest.mark.parametrize(
    ("name", "message"),
    [("missing/out.json", "No such file or directory"), (".", "Is a directory")],
)
def test_an_output_that_cannot_be_a_file_is_an_error_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, message: str
) -> None:
    target = str(tmp_path / name)
    argv = ["review", FINDINGS, "--bots", "3", "--format", "json", "-o", target]
    status, out, err = quorum(capsys, *argv)
    assert (status, out) == (2, "")
    assert err.splitlines()[-1] == f"quorum: error: {target}: cannot write: {message}"
    assert leftovers(tmp_path) == []


@pytest.mark.skipif(not os.path.exists("/dev/null"), reason="needs /dev/null")
def test_a_device_output_is_written_in_place(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["review", FINDINGS, "--bots", "3", "--format", "json", "-o", "/dev/null"]
    assert quorum(capsys, *argv)[:2] == (1, "")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
