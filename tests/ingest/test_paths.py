"""Repository-relative POSIX paths from URIs, base ids, absolute and Windows paths."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import FIXTURES
from review_quorum.ingest import read
from review_quorum.ingest.base import ReadOptions, Source
from review_quorum.ingest.paths import (
    CI_CHECKOUTS,
    BaseIdError,
    PathResolver,
    normalize_root,
    resolve_base_ids,
    strip_checkout,
    uri_to_path,
)


@pytest.mark.parametrize(
    ("uri", "path"),
    [
        ("src/a.py", "src/a.py"),
        ("src/my%20file.py", "src/my file.py"),
        ("src%5Cwin.py", "src/win.py"),
        ("file:///home/me/repo/a.py", "/home/me/repo/a.py"),
        ("file:/home/me/repo/a.py", "/home/me/repo/a.py"),
        ("file://localhost/srv/a.py", "/srv/a.py"),
        ("file://fileserver/share/a.py", "//fileserver/share/a.py"),
        ("file:///C:/Work/a%20b.py", "C:/Work/a b.py"),
        ("FILE:///c:/x.py", "c:/x.py"),
        ("C:\\Work\\a.py", "C:/Work/a.py"),
        ("https://example.invalid/a.py", "https://example.invalid/a.py"),
    ],
)
def test_uri_to_path(uri: str, path: str) -> None:
    assert uri_to_path(uri) == path


@pytest.mark.parametrize(
    ("root", "uri", "expected"),
    [
        ("/home/me/repo", "file:///home/me/repo/src/a.py", "src/a.py"),
        ("/home/me/repo/", "file:///home/me/repo/src/a.py", "src/a.py"),
        ("file:///home/me/repo", "file:///home/me/repo/src/a.py", "src/a.py"),
        ("/home/me/repo", "file:///home/me/repository/a.py", "/home/me/repository/a.py"),
        ("C:\\Work\\Shop", "file:///c:/work/shop/src/a.py", "src/a.py"),
        ("/home/me/repo", "./src/./b/../a.py", "src/a.py"),
        ("/home/me/repo", "../outside.py", "../outside.py"),
        ("/", "file:///etc/x.conf", "etc/x.conf"),
        # a root that does not contain the path falls back to the CI checkout rule
        ("/home/me/repo", "file:///home/runner/work/repo/repo/src/a.py", "src/a.py"),
    ],
)
def test_root_makes_paths_repository_relative(root: str, uri: str, expected: str) -> None:
    assert PathResolver(root).uri(uri) == expected


def test_a_relative_root_is_taken_from_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert normalize_root(".") == tmp_path.as_posix()
    assert PathResolver(".").uri((tmp_path / "src" / "a.py").as_uri()) == "src/a.py"
    assert normalize_root(None) is None
    assert normalize_root("") is None


@pytest.mark.parametrize(
    ("path", "stripped"),
    [
        ("/home/runner/work/shop/shop/src/a.py", "src/a.py"),
        ("/Users/runner/work/shop/shop/src/a.py", "src/a.py"),
        ("D:/a/shop/shop/src/a.py", "src/a.py"),
        ("d:/a/shop/shop/src/a.py", "src/a.py"),
        ("/__w/shop/shop/src/a.py", "src/a.py"),
        ("/github/workspace/src/a.py", "src/a.py"),
        ("/home/vsts/work/1/s/src/a.py", "src/a.py"),
        ("D:/a/1/s/src/a.py", "src/a.py"),
        ("/home/circleci/project/src/a.py", "src/a.py"),
        ("/opt/atlassian/pipelines/agent/build/src/a.py", "src/a.py"),
        ("/drone/src/src/a.py", "src/a.py"),
        ("/home/runner/work/shop/other/src/a.py", None),  # not the <repo>/<repo> layout
        ("/home/me/shop/src/a.py", None),
    ],
)
def test_ci_checkout_directories(path: str, stripped: str | None) -> None:
    assert strip_checkout(path) == stripped


def test_every_ci_layout_is_tested() -> None:
    assert len(CI_CHECKOUTS) == 10


def test_base_ids_follow_chains_and_drop_cycles_and_junk() -> None:
    declared = {
        "ROOT": {"uri": "file:///work/shop/"},
        "SRC": {"uri": "src/", "uriBaseId": "ROOT"},
        "PKG": {"uri": "shop/", "uriBaseId": "SRC"},
        "A": {"uri": "a/", "uriBaseId": "B"},
        "B": {"uri": "b/", "uriBaseId": "A"},
        "FREE": {"uri": "lib/", "uriBaseId": "NOT-DECLARED"},
        "NOURI": {"description": {"text": "no uri"}},
        "JUNK": "not an object",
    }
    assert resolve_base_ids(declared) == {
        "ROOT": "/work/shop/",
        "SRC": "/work/shop/src/",
        "PKG": "/work/shop/src/shop/",
        "FREE": "lib/",
    }
    assert resolve_base_ids(["not", "a", "dict"]) == {}


def test_a_chain_into_a_cycle_is_dropped_in_any_order() -> None:
    declared = {
        "C": {"uri": "c/", "uriBaseId": "A"},
        "A": {"uri": "a/", "uriBaseId": "B"},
        "B": {"uri": "b/", "uriBaseId": "A"},
        "SELF": {"uri": "s/", "uriBaseId": "SELF"},
        "D": {"uri": "d/", "uriBaseId": "JUNK"},
        "JUNK": 7,
    }
    assert resolve_base_ids(declared) == {}
    assert resolve_base_ids(dict(reversed(declared.items()))) == {}


def test_a_long_chain_resolves_each_base_once_in_any_order() -> None:
    chain = {f"B{i}": {"uri": f"d{i}/", "uriBaseId": f"B{i - 1}"} for i in range(1, 32)}
    declared = {"B0": {"uri": "file:///w/"}, **chain}
    expected = {f"B{i}": "/w/" + "".join(f"d{j}/" for j in range(1, i + 1)) for i in range(32)}
    assert resolve_base_ids(declared) == expected
    assert resolve_base_ids(dict(reversed(declared.items()))) == expected


@pytest.mark.parametrize(
    ("declared", "name", "message"),
    [
        (
            {"B0": {"uri": "r/"}}
            | {f"B{i}": {"uri": "d/", "uriBaseId": f"B{i - 1}"} for i in range(1, 40)},
            "B32",
            "a uriBaseId chain of more than 32 bases",
        ),
        (
            {"ROOT": {"uri": "x" * 4000 + "/"}, "SRC": {"uri": "y" * 100, "uriBaseId": "ROOT"}},
            "SRC",
            "resolves to a path of more than 4,096 characters",
        ),
        ({f"B{i}": {"uri": "d/"} for i in range(1001)}, None, "more than 1,000 bases"),
    ],
)
def test_base_ids_beyond_the_limits_are_refused(
    declared: dict[str, object], name: str | None, message: str
) -> None:
    with pytest.raises(BaseIdError, match=f"^{message}$") as raised:
        resolve_base_ids(declared)
    assert raised.value.name == name


def test_outermost_declared_base_is_the_root_without_a_given_root() -> None:
    bases = resolve_base_ids(
        {"ROOT": {"uri": "file:///work/shop/"}, "SRC": {"uri": "src/", "uriBaseId": "ROOT"}}
    )
    resolver = PathResolver(None, bases)
    assert resolver.uri("shop/a.py", "SRC") == "src/shop/a.py"
    assert resolver.uri("README.md", "ROOT") == "README.md"
    assert resolver.uri("file:///work/shop/src/b.py") == "src/b.py"
    assert resolver.uri("x.py", "UNKNOWN") == "x.py"


def test_filesystem_roots_are_never_anchors() -> None:
    assert PathResolver(None, {"BIN": "/", "C": "C:/"}).uri("file:///opt/x.py") == "/opt/x.py"


def test_plain_paths_use_separators_but_not_percent_decoding() -> None:
    resolver = PathResolver("/repo")
    assert resolver.path("src\\a%20b.py") == "src/a%20b.py"
    assert resolver.path("/repo/src/a.py") == "src/a.py"
    assert resolver.path("") == ""


def test_the_uri_fixture_resolves_every_form() -> None:
    path = FIXTURES / "ingest" / "sarif.uri-base-ids.json"
    batch = read(Source(path.name, path.read_bytes(), ReadOptions()))
    assert [(f.title, f.file) for f in batch.findings] == [
        ("shop/orders.py", "src/shop/orders.py"),
        ("README.md", "README.md"),
        ("src/my%20file.py", "src/my file.py"),
        ("file:///work/shop/src/shop/report.py", "src/shop/report.py"),
        ("file://localhost/work/shop/docs/index.md", "docs/index.md"),
        ("./src/../src/shop/./orders.py", "src/shop/orders.py"),
        ("src\\shop\\windows.py", "src/shop/windows.py"),
        ("lib/x.py", "lib/x.py"),
        ("c.py", "c.py"),
        ("file:///opt/elsewhere/x.py", "/opt/elsewhere/x.py"),
        ("https://example.invalid/generated.py", "https://example.invalid/generated.py"),
        ("src/shop/orders.py", "src/shop/orders.py"),
        ("file:///c:/work/shop/src/shop/report.py", "src/shop/report.py"),
        ("file:///D:/a/shop/shop/src/shop/app.py", "src/shop/app.py"),
        ("C:\\Work\\Shop\\src\\shop\\cli.py", "src/shop/cli.py"),
    ]


def test_a_given_root_takes_precedence_over_declared_bases() -> None:
    path = FIXTURES / "ingest" / "sarif.uri-base-ids.json"
    batch = read(Source(path.name, path.read_bytes(), ReadOptions(root="/work")))
    assert batch.findings[0].file == "shop/src/shop/orders.py"
    assert batch.findings[9].file == "/opt/elsewhere/x.py"
