"""Start-up (issue 31): the paths a review reads are handled with os.path, not pathlib
(whose import, with urllib.parse and ipaddress, cost a small review 4% of its start-up).
Each helper must do exactly what the pathlib call it replaced did: these compare them on
real files, links, loops and odd spellings."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from review_quorum import config, identity
from review_quorum.cli import progress
from review_quorum.cli.common import read_bytes
from review_quorum.errors import ConfigError, InputError
from review_quorum.identity import CodeLines
from review_quorum.ingest.base import path_text
from review_quorum.ingest.paths import uri_to_path

SPELLINGS = [
    "a.toml", "dir/a.toml", "/abs/a.toml", "./a.toml", "dir//a.toml", "dir/./a.toml",
    "dir/", "dir/.", ".", "", "//host/a", "///a", "a/../b", "..", "./", ".//a", "a/./",
    "~/a", "a b/c", "é/ü.py",
]  # fmt: skip


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_a_path_is_spelt_as_pathlib_spells_it(spelling: str) -> None:
    assert path_text(spelling) == str(Path(spelling))
    assert path_text(Path(spelling)) == str(Path(spelling))


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "repo" / "src").mkdir(parents=True)
    (tmp_path / "repo" / "src" / "a.py").write_text("one\ntwo\n")
    (tmp_path / "outside.py").write_text("secret\n")
    (tmp_path / "repo" / "out").symlink_to(tmp_path / "outside.py")
    (tmp_path / "repo" / "in").symlink_to(tmp_path / "repo" / "src" / "a.py")
    (tmp_path / "repo" / "loop").symlink_to(tmp_path / "repo" / "loop")
    (tmp_path / "repo" / "dir").symlink_to(tmp_path / "repo" / "src")
    return tmp_path


FILES = ["src/a.py", "in", "out", "dir/a.py", "src/", "src/a.py/", "missing.py",
         "src/a.py/x", "../outside.py", "/etc/hostname", "", "src/./a.py", "src//a.py"]  # fmt: skip


@pytest.mark.parametrize("file", FILES)
def test_files_resolve_and_stay_inside_as_with_pathlib(tree: Path, file: str) -> None:
    root = tree / "repo"
    path = Path(root) / file
    assert identity._resolved(str(path)) == str(path.resolve())
    resolved = path.resolve()
    assert identity._inside(str(resolved), str(root.resolve())) == resolved.is_relative_to(
        root.resolve()
    )
    assert identity._exists(path_text(os.path.join(root, file))) == path.exists()


def test_a_symbolic_link_loop_is_pathlibs_runtime_error(tree: Path) -> None:
    loop = tree / "repo" / "loop"
    with pytest.raises(RuntimeError) as ours:
        identity._resolved(str(loop))
    with pytest.raises(RuntimeError) as pathlibs:
        loop.resolve()
    assert str(ours.value) == str(pathlibs.value)


@pytest.mark.parametrize(("root", "inside"), [("/", True), ("/a", True), ("/a/b", False)])
def test_inside_compares_whole_parts(root: str, inside: bool) -> None:
    assert identity._inside("/a/bc", root) is inside
    assert identity._inside("/a/bc", root) is Path("/a/bc").is_relative_to(root)


def test_the_checkout_is_read_only_inside_the_root_as_before(tree: Path) -> None:
    lines = CodeLines(root=tree / "repo")
    assert lines.line("src/a.py", 2) == lines.line("in", 2) == "two"
    assert lines.line("out", 1) is None  # a link out of the checkout
    assert lines.line("dir/a.py", 1) == "one"
    assert lines.gone("missing.py") and not lines.gone("src/a.py") and not lines.gone("out")
    assert CodeLines(root=str(tree / "repo") + "/").line("src/a.py", 1) == "one"
    assert not lines.gone("../nowhere.py")  # outside the checkout: not read, not gone


@pytest.mark.parametrize("suffix", ["", "/", "/."])
def test_an_input_is_opened_where_pathlib_opened_it(tmp_path: Path, suffix: str) -> None:
    (tmp_path / "in.json").write_bytes(b"[]")
    assert read_bytes(str(tmp_path / "in.json") + suffix) == b"[]"


def test_an_empty_input_path_is_the_working_directory_as_before() -> None:
    with pytest.raises(InputError, match="is a directory"):
        read_bytes("")


def test_a_configuration_is_named_as_pathlib_names_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "q.toml").write_text("bogus = 1\n")
    for given in ("q.toml", "./q.toml", ".//q.toml", "q.toml/"):
        with pytest.raises(ConfigError, match=r"^q\.toml: unknown key 'bogus'"):
            config.load(given)
    with pytest.raises(ConfigError, match=r"^missing\.toml: no such file"):
        config.load("./missing.toml")
    (tmp_path / ".quorum.toml").write_text("gate-level = 'nope'\n")
    with pytest.raises(ConfigError, match=rf"^{tmp_path}/\.quorum\.toml: bad value"):
        config.load()
    with pytest.raises(ConfigError, match=rf"^{tmp_path}/\.quorum\.toml: bad value"):
        config.load(directory="")  # as Path.cwd()
    with pytest.raises(ConfigError, match=r"^\.quorum\.toml: bad value"):
        config.load(directory=Path(""))


@pytest.mark.parametrize("uri", ["src/a%20b.py", "src/a b.py", "file:///w/a%2Fb.py", "100%"])
def test_percent_encoding_is_decoded_as_before(uri: str) -> None:
    from urllib.parse import unquote

    rest = uri.removeprefix("file://")
    assert uri_to_path(uri) == unquote(rest).replace("\\", "/")


def test_a_pyproject_without_a_quorum_table_holds_no_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    assert config.load("sub/pyproject.toml") == config.load(Path("sub/pyproject.toml")) == {}
    (tmp_path / "pyproject.toml").write_text("[tool.quorum]\nbogus = 1\n")
    with pytest.raises(ConfigError, match=r"^pyproject\.toml: unknown key 'bogus'"):
        config.load(directory=Path(""))
    (tmp_path / "pyproject.toml").write_text("[tool.quorum\n")
    with pytest.raises(ConfigError, match=r"^pyproject\.toml: cannot read configuration"):
        config.load(directory=Path(""))


@pytest.mark.parametrize("suffix", ["", "/", "/."])
def test_the_inputs_size_is_measured_where_pathlib_measured_it(tmp_path: Path, suffix: str) -> None:
    (tmp_path / "in.json").write_bytes(b"[]" * 10)
    assert progress._total_size([str(tmp_path / "in.json") + suffix, "-"]) == 20


def test_a_finding_on_a_symbolic_link_loop_is_an_unreadable_file_not_a_crash(
    tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A link to itself in the checkout (git stores one as any other link) names no file
    that can be read: no lines, not gone (as a file too large to read), and a review of a
    finding on it runs; `_resolved` raising pathlib's RuntimeError crashed it (exit 3),
    and on Python 3.13, whose pathlib no longer raises, it did not before os.path."""
    from review_quorum.cli import main

    lines = CodeLines(root=tree / "repo")
    assert lines.line("loop", 1) is None and lines.hashes("loop") is None
    assert not lines.has_file("loop") and not lines.gone("loop")
    findings = tmp_path / "f.json"
    record = '{"bot": "%s", "finding_id": "1", "severity": "high", "category": "bug", '
    record += '"title": "t", "evidence": {"file": "loop", "line": 1}}'
    findings.write_text(f"[{record % 'a'}, {record % 'b'}]")
    root = str(tree / "repo")
    status = main(["review", "--root", root, "--format", "json", str(findings)])
    assert "internal error" not in capsys.readouterr().err
    assert status == 1  # the gate: two bots confirm the finding


@pytest.mark.parametrize(
    ("path", "root", "inside"),
    [
        ("C:\\repo\\src\\a.py", "C:\\repo", True),
        ("C:\\repo", "C:\\repo", True),
        ("C:\\repo\\a.py", "C:\\", True),
        ("C:\\repository\\a.py", "C:\\repo", False),
        ("D:\\repo\\a.py", "C:\\repo", False),
    ],
)
def test_inside_compares_whole_parts_where_the_separator_is_a_backslash(
    monkeypatch: pytest.MonkeyPatch, path: str, root: str, inside: bool
) -> None:
    """On Windows `os.path.realpath` spells paths with backslashes: `_inside` cut them at
    "/" only, so no file of a checkout was inside it (none read for its lines, none gone),
    where `Path.is_relative_to` had found them."""
    from pathlib import PureWindowsPath

    assert PureWindowsPath(path).is_relative_to(root) is inside
    monkeypatch.setattr("review_quorum.identity.os.sep", "\\")
    assert identity._inside(path, root) is inside


def test_a_checkout_that_is_a_symbolic_link_loop_reads_no_lines_and_does_not_crash(
    tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--root` (or `post --checkout`) naming a link to itself holds no file, as a checkout
    that is not there: the review runs and says the same as with a missing directory
    (it crashed with pathlib's RuntimeError, exit 3)."""
    from review_quorum.cli import main

    loop = tree / "repo" / "loop"
    lines = CodeLines(root=loop)
    assert lines.has_root and lines.line("a.py", 1) is None and not lines.has_file("a.py")
    findings = tmp_path / "f.json"
    record = '{"bot": "a", "finding_id": "1", "severity": "high", "category": "bug", '
    findings.write_text(f'[{record}"title": "t", "evidence": {{"file": "a.py", "line": 1}}}}]')
    said = []
    for root in (loop, tmp_path / "missing"):
        status = main(["review", "--root", str(root), "--format", "json", str(findings)])
        said.append((status, capsys.readouterr().out))
    assert said[0] == said[1] and said[0][0] == 0  # one bot: the gate passes
