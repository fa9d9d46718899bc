"""Every registered input format is reachable from the CLI, alone, detected, and mixed."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from conftest import FIXTURES, shared_path
from review_quorum.cli import COMMANDS, main
from review_quorum.ingest import READERS, bots
from review_quorum.ingest.bots import BOT_NAMES, BY_NAME, PARSERS
from review_quorum.ingest.bots.authors import Attribution, resolve

INGEST = FIXTURES / "ingest"
SHOP_ROOT = "/tmp/fixproj"

# One small input per registered format, and how many findings it holds.
FORMAT_FIXTURES: dict[str, tuple[str, int]] = {
    "sarif": (str(INGEST / "sarif.semgrep-shop.json"), 4),
    "rdjson": (str(INGEST / "rdjson.ruff-shop.json"), 8),
    "rdjsonl": (str(INGEST / "rdjsonl.golangci.jsonl"), 6),
    "gitlab": (str(INGEST / "gitlab.ruff-shop.json"), 8),
    "checkstyle": (str(INGEST / "checkstyle.eslint-files.xml"), 6),
    "github-comments": (str(FIXTURES / "comments" / "github.pull-request-comments.json"), 6),
    "native": (str(FIXTURES / "native.three-bots.json"), 3),
    "freetext": (str(FIXTURES / "comments" / "freetext.llm-review.md"), 10),
}


def input_format_choices(capsys: pytest.CaptureFixture[str]) -> dict[str, list[str]]:
    """Each command that reads findings, with the --input-format choices its help lists."""
    found = {}
    for name in COMMANDS:
        assert main([name, "--help"]) == 0
        listed = re.search(r"--input-format \{([a-z,-]+)\}", capsys.readouterr().out)
        if listed is not None:
            found[name] = listed.group(1).split(",")
    return found


def consensus_json(capsys: pytest.CaptureFixture[str], *arguments: str) -> dict[str, Any]:
    status = main(["consensus", "--format", "json", "--gate-level", "none", *arguments])
    out, err = capsys.readouterr()
    assert status == 0, err
    document: dict[str, Any] = json.loads(out)
    return document


def member_count(document: dict[str, Any]) -> int:
    return sum(len(finding["members"]) for finding in document["findings"])


def test_every_registered_format_has_a_fixture_here() -> None:
    assert set(FORMAT_FIXTURES) == set(READERS), "add a fixture for each new reader"


def test_input_format_choices_are_the_registry_in_every_command(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert input_format_choices(capsys) == {
        command: sorted(READERS) for command in ("consensus", "review", "evaluate", "calibrate")
    }


@pytest.mark.parametrize("name", sorted(READERS))
def test_each_input_format_choice_loads_a_reader_of_its_own_name(name: str) -> None:
    entry = READERS[name]
    loaded = entry._loaded()  # type: ignore[attr-defined]  # what the entry defers to
    assert type(loaded) is not type(entry)
    assert type(loaded).__module__.startswith("review_quorum.ingest.")
    assert (entry.name, loaded.name) == (name, name)
    assert entry._loaded() is loaded  # type: ignore[attr-defined]  # loaded once


@pytest.mark.parametrize("name", BOT_NAMES)
def test_each_bot_name_a_user_gives_selects_that_bots_reader(name: str) -> None:
    by_option = resolve("octo-dev", "User", "x", Attribution(bot=name), PARSERS, BY_NAME)
    configured = Attribution(logins={"octo-dev": name})
    by_config = resolve("octo-dev", "User", "x", configured, PARSERS, BY_NAME)
    assert by_option == by_config
    assert by_option.bot == name
    assert by_option.parser is BY_NAME[name]
    assert by_option.parser.name == name
    assert type(by_option.parser).__module__.startswith("review_quorum.ingest.bots.")


def test_specific_readers_come_before_the_generic_ones() -> None:
    names = list(READERS)
    for specific in ("sarif", "rdjson", "rdjsonl", "gitlab", "checkstyle"):
        assert names.index(specific) < names.index("native")


@pytest.mark.parametrize("name", sorted(FORMAT_FIXTURES))
def test_each_format_reads_through_the_cli_forced_and_detected(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path, count = FORMAT_FIXTURES[name]
    forced = consensus_json(capsys, "--bots", "9", "--input-format", name, path)
    detected = consensus_json(capsys, "--bots", "9", path)
    assert forced == detected
    assert member_count(forced) == count


def test_any_mix_of_formats_in_one_run(capsys: pytest.CaptureFixture[str]) -> None:
    document = consensus_json(
        capsys,
        "--bots",
        "bandit,ruff,code-quality,semgrep",
        "--root",
        SHOP_ROOT,
        str(INGEST / "sarif.bandit-shop.json"),
        str(INGEST / "rdjson.ruff-shop.json"),
        str(INGEST / "gitlab.ruff-shop.json"),
        str(INGEST / "sarif.semgrep-shop.json"),
        str(INGEST / "checkstyle.eslint-files.xml"),
    )
    assert member_count(document) == 10 + 8 + 8 + 4 + 6
    md5 = [f for f in document["findings"] if f["file"] == "src/shop/orders.py" and f["line"] == 10]
    assert [(f["detected_by"], f["category"], f["level"]) for f in md5] == [
        (["bandit", "code-quality", "ruff", "semgrep"], "security", "confirmed")
    ]


def test_bot_option_names_the_bot_of_one_file(capsys: pytest.CaptureFixture[str]) -> None:
    document = consensus_json(
        capsys,
        "--root",
        SHOP_ROOT,
        "--bot",
        "alpha=" + str(INGEST / "sarif.bandit-shop.json"),
        "--bot",
        "beta=" + str(INGEST / "rdjson.ruff-shop.json"),
        str(INGEST / "sarif.semgrep-shop.json"),
    )
    bots = {member["bot"] for f in document["findings"] for member in f["members"]}
    assert bots == {"alpha", "beta", "semgrep"}
    assert document["bots_ran"] == 3


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (
            ["--bot", "no-equals-sign"],
            "quorum: error: --bot: expected NAME=FILE, not 'no-equals-sign'\n",
        ),
        (["--bot", "=x.json"], "quorum: error: --bot: expected NAME=FILE, not '=x.json'\n"),
        (
            [str(INGEST / "checkstyle.billion-laughs.xml")],
            f"quorum: error: {INGEST / 'checkstyle.billion-laughs.xml'}:line 3: "
            'refused the XML entity declaration "lol": '
            "entities can expand without bound or read other files\n",
        ),
        (
            ["--input-format", "sarif", str(INGEST / "gitlab.ruff-shop.json")],
            f"quorum: error: {INGEST / 'gitlab.ruff-shop.json'}:/: expected a SARIF log object\n",
        ),
    ],
)
def test_bad_bot_options_and_broken_files_exit_2_naming_them(
    arguments: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["consensus", *arguments]) == 2
    assert capsys.readouterr().err == message


def test_skipped_records_are_counted_in_the_output(capsys: pytest.CaptureFixture[str]) -> None:
    main(
        ["consensus", "--bots", "1", "--gate-level", "none", str(INGEST / "sarif.bad-records.json")]
    )
    out, err = capsys.readouterr()
    assert out.endswith("\n15 input record(s) skipped.\n")
    assert "quorum: warning: 15 input records skipped (listed in the output)\n" in err


def test_owasp_sarif_from_four_files_has_findings_both_bandit_and_ruff_detect(
    capsys: pytest.CaptureFixture[str],
) -> None:
    names = ["bandit", "ruff", "ruff-preview", "semgrep"]
    paths = [
        str(shared_path("fixtures", "sarif", f"owasp-benchmark-python.{n}.sarif")) for n in names
    ]
    document = consensus_json(capsys, "--bots", "bandit,ruff,semgrep", *paths)
    assert member_count(document) == 568 + 380 + 504 + 3605
    both = [f for f in document["findings"] if {"bandit", "ruff"} <= set(f["detected_by"])]
    assert len(both) > 300
    assert all(f["category"] == "security" and f["file"].startswith("testcode/") for f in both)


def test_each_login_selects_the_reader_of_the_bot_it_is_registered_as() -> None:
    for login in PARSERS:
        assert BY_NAME[PARSERS[login].name] is PARSERS[login], login
    assert set(BOT_NAMES) == {PARSERS[login].name for login in PARSERS} | {"kodus"}
    assert "kodus" in BY_NAME and "kodus" not in PARSERS  # reached only by name


def test_a_reader_set_by_hand_replaces_the_registered_one_until_removed() -> None:
    class Reader:
        name = "stand-in"

    registry = bots._OnFirstUse({"one": lambda: BY_NAME["coderabbit"]})  # PARSERS' kind
    stand_in: Any = Reader()
    registry["two"] = stand_in
    assert ("two" in registry, registry["two"], list(registry)) == (True, stand_in, ["one", "two"])
    assert registry["one"] is BY_NAME["coderabbit"] and len(registry) == 2
    del registry["two"]
    assert ("two" in registry, list(registry), registry.get("two")) == (False, ["one"], None)
