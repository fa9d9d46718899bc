"""Repository-relative POSIX paths from what tools write: URIs, absolute and Windows paths.

Findings only merge when their files are equal, so every reader passes its paths through a
`PathResolver`. It decodes ``file://`` URIs and percent-encoding, turns Windows separators
into ``/``, resolves SARIF ``uriBaseId`` chains, and makes absolute paths relative: to the
repository root when one is given, else to the outermost declared absolute base that
contains them (SARIF ``originalUriBaseIds``, a run's working directory: a base nested in
another, like SRC in SRCROOT, is a folder of the repository, not its root), else to a known
CI checkout directory (`CI_CHECKOUTS`). An absolute path that none of these contain is
kept absolute: guessing a root from the paths themselves would depend on which files had
findings.
Results are cached per distinct input: a report repeats the same few paths many times.
"""

from __future__ import annotations

import functools
import os
import posixpath
import re
from collections.abc import Iterable, Mapping

# Checkout directories of hosted CI runners: `<work>/<repo>/<repo>/` on GitHub Actions
# (Linux, macOS, Windows, container jobs), fixed directories elsewhere; each pattern is
# compiled when the first absolute path is met (`_checkouts`): most runs meet none.
CI_CHECKOUTS: tuple[tuple[str, str], ...] = (
    ("GitHub Actions (Linux)", r"/home/runner/work/([^/]+)/\1/"),
    ("GitHub Actions (macOS)", r"/Users/runner/work/([^/]+)/\1/"),
    ("GitHub Actions (Windows)", r"[a-z]:/a/([^/]+)/\1/"),
    ("GitHub Actions (container job)", r"/__w/([^/]+)/\1/"),
    ("GitHub Actions (Docker action)", r"/github/workspace/"),
    ("Azure Pipelines (Linux)", r"/home/vsts/work/\d+/s/"),
    ("Azure Pipelines (Windows)", r"[a-z]:/a/\d+/s/"),
    ("CircleCI", r"/home/circleci/project/"),
    ("Bitbucket Pipelines", r"/opt/atlassian/pipelines/agent/build/"),
    ("Drone", r"/drone/src/"),
)


@functools.cache
def _checkouts() -> tuple[re.Pattern[str], ...]:
    """`CI_CHECKOUTS` compiled (Windows paths compare case-insensitively)."""
    return tuple(
        re.compile(pattern, re.IGNORECASE if name.endswith("(Windows)") else 0)
        for name, pattern in CI_CHECKOUTS
    )


_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]+:")


def uri_to_path(uri: str) -> str:
    """The POSIX-form path a URI reference names; URIs of other schemes come back unchanged."""
    if uri[:5].lower() == "file:":
        rest = uri[5:]
        if rest.startswith("//"):
            host, _, tail = rest[2:].partition("/")
            rest = "/" + tail if host.lower() in ("", "localhost") else f"//{host}/{tail}"
        path = _unquote(rest)
        if len(path) > 2 and path[0] == "/" and path[2] == ":" and path[1].isalpha():
            path = path[1:]  # file:///C:/x names the drive path C:/x
        return path.replace("\\", "/")
    if _SCHEME.match(uri):
        return uri
    return _unquote(uri).replace("\\", "/")


def _unquote(text: str) -> str:
    """`text` with its percent-encoding decoded (`urllib.parse.unquote`), which only a
    text holding a ``%`` can have: urllib.parse, and the ipaddress it imports, load then."""
    if "%" not in text:
        return text
    from urllib.parse import unquote

    return unquote(text)


def is_absolute(path: str) -> bool:
    """Whether a POSIX-form path is absolute: ``/x``, ``//host/x`` or a drive path ``C:/x``."""
    return path.startswith("/") or (len(path) > 2 and path[1] == ":" and path[2] == "/")


def outside_repository(path: str) -> bool:
    """Whether a resolved `path` cannot name a file of the repository: absolute (``/x``,
    ``C:/x``, a UNC ``//host/x``), climbing out of it (``../x``) or a URL (``https:``,
    ``javascript:``)."""
    return bool(path) and (
        is_absolute(path) or path == ".." or path.startswith("../") or bool(_SCHEME.match(path))
    )


def clean(path: str) -> str:
    """`path` without ``.`` segments, doubled slashes or resolvable ``..``; ``""`` for none."""
    if not path:
        return ""
    cleaned = posixpath.normpath(path)
    return "" if cleaned == "." else cleaned


def relative_to(path: str, root: str) -> str | None:
    """`path` relative to the directory `root`, or None when `root` does not contain it."""
    prefix = root if root.endswith("/") else root + "/"
    if _has_drive(root):  # Windows paths compare case-insensitively
        if path[: len(prefix)].lower() == prefix.lower():
            return path[len(prefix) :]
    elif path.startswith(prefix):
        return path[len(prefix) :]
    return None


def _has_drive(path: str) -> bool:
    return len(path) > 1 and path[1] == ":" and path[0].isalpha()


def strip_checkout(path: str) -> str | None:
    """`path` relative to the CI checkout directory it lies in, if it lies in a known one."""
    for pattern in _checkouts():
        match = pattern.match(path)
        if match is not None:
            return path[match.end() :]
    return None


def normalize_root(root: str | None) -> str | None:
    """The repository root as an absolute POSIX path without a trailing slash."""
    if not root:
        return None
    path = uri_to_path(root) if root[:5].lower() == "file:" else root.replace("\\", "/")
    if not is_absolute(path):
        path = os.path.abspath(path).replace("\\", "/")
    return clean(path)


def _is_anchor(path: str) -> bool:
    """Whether `path` can be a repository root: absolute, and not a filesystem root."""
    return (
        is_absolute(path)
        and path.rstrip("/") not in ("", "//")
        and not (_has_drive(path) and len(path.rstrip("/")) == 2)
    )


def _is_plain_relative(path: str) -> bool:
    """Whether `path` is already a clean relative POSIX path (the common case, kept as is)."""
    return (
        bool(path)
        and path[0] not in "/."
        and "/." not in path
        and "//" not in path
        and ":" not in path
        and not path.endswith("/")
    )


def join(base: str, path: str) -> str:
    return f"{base.rstrip('/')}/{path}" if base else path


MAX_BASES = 1_000
"""The most ``originalUriBaseIds`` one run may declare: tools declare a handful."""
MAX_BASE_CHAIN = 32
"""The longest ``uriBaseId`` chain followed: tools chain two or three bases."""
MAX_BASE_PATH = 4_096
"""The longest path a base may resolve to (Linux's PATH_MAX): with the two limits above,
resolving every base of a run costs little whatever the log declares."""


class BaseIdError(ValueError):
    """``originalUriBaseIds`` beyond a limit above; `name` is the base, None the table."""

    def __init__(self, name: str | None, message: str) -> None:
        self.name = name
        super().__init__(message)


def resolve_base_ids(declared: object) -> dict[str, str]:
    """SARIF ``originalUriBaseIds`` as id -> path, following ``uriBaseId`` chains.

    Entries that are not objects, have no usable ``uri`` or take part in a cycle are left
    out; results that name them are then read as relative to the repository root. Chains
    are followed in a loop, each base once; more bases, a longer chain or a longer path
    than the limits above is a `BaseIdError`.
    """
    if not isinstance(declared, dict):
        return {}
    if len(declared) > MAX_BASES:
        raise BaseIdError(None, f"more than {MAX_BASES:,} bases")
    resolved: dict[str, tuple[str, int] | None] = {}
    for name in declared:
        if name not in resolved:
            _resolve_chain(declared, name, resolved)
    return {name: found[0] for name, found in resolved.items() if found is not None}


def _resolve_chain(
    declared: dict[str, object], name: str, resolved: dict[str, tuple[str, int] | None]
) -> None:
    """Resolve `name` and the unresolved bases above it into `resolved`: each base's path
    and depth, or None for a base in a cycle or chained to a broken one."""
    chain: dict[str, str] = {}  # the unresolved bases from `name` up, with their own paths
    current: str | None = name
    while current is not None and current not in resolved:
        entry = declared[current]
        if current in chain or not isinstance(entry, dict) or not isinstance(entry.get("uri"), str):
            resolved.update(dict.fromkeys([*chain, current]))
            return  # a cycle or a broken base: the whole chain is unusable
        path = chain[current] = uri_to_path(entry["uri"])
        parent = entry.get("uriBaseId")
        chained = isinstance(parent, str) and not is_absolute(path) and parent in declared
        current = parent if chained else None
    above = None if current is None else resolved[current]
    if current is not None and above is None:
        resolved.update(dict.fromkeys(chain))  # chained to a cycle or a broken base
        return
    for base, own in reversed(chain.items()):
        path, depth = (own, 1) if above is None else (join(above[0], own), above[1] + 1)
        if depth > MAX_BASE_CHAIN:
            raise BaseIdError(base, f"a uriBaseId chain of more than {MAX_BASE_CHAIN} bases")
        if len(path) > MAX_BASE_PATH:
            raise BaseIdError(base, f"resolves to a path of more than {MAX_BASE_PATH:,} characters")
        above = resolved[base] = (path, depth)


class PathResolver:
    """Turns the paths and URIs of one input into repository-relative POSIX paths."""

    __slots__ = ("_anchors", "_bases", "_located", "_root", "cache")

    def __init__(
        self,
        root: str | None = None,
        bases: Mapping[str, str] | None = None,
        anchors: Iterable[str] = (),
    ) -> None:
        self._root = normalize_root(root)
        self._bases = dict(bases or {})
        absolute = {clean(path) for path in [*self._bases.values(), *anchors] if path}
        # outermost first: a base nested in another (SRC inside SRCROOT) is not the root
        self._anchors = sorted((p for p in absolute if _is_anchor(p)), key=len)
        # uriBaseId -> uri -> result (plain paths under the key ""); two plain dict lookups
        # cost less than building and hashing a tuple key, and readers may look up directly
        self.cache: dict[str | None, dict[str, str]] = {}
        self._located: dict[str, str] = {}  # `location`'s answers: one lookup per finding

    def uri(self, uri: str, base_id: str | None = None) -> str:
        """The repository path of a SARIF artifact location (``uri`` + ``uriBaseId``)."""
        known = self.cache.get(base_id)
        if known is None:
            known = self.cache[base_id] = {}
        found = known.get(uri)
        if found is None:
            found = known[uri] = self._resolve_uri(uri, base_id)
        return found

    def path(self, path: str) -> str:
        """The repository path of a plain file path (rdjson, GitLab, Checkstyle)."""
        known = self.cache.setdefault("", {})
        found = known.get(path)
        if found is None:
            found = known[path] = self._finish(path.replace("\\", "/"))
        return found

    def location(self, text: str) -> str:
        """The repository path of a file path or a ``file://`` URI (native findings)."""
        found = self._located.get(text)
        if found is None:
            uri = text[:5].lower() == "file:"
            found = self._located[text] = self.uri(text) if uri else self.path(text)
        return found

    def _resolve_uri(self, uri: str, base_id: str | None) -> str:
        plain = "%" not in uri and "\\" not in uri and _is_plain_relative(uri)
        if plain and (base_id is None or base_id not in self._bases):
            return uri  # the common case: already a clean repository-relative path
        if uri[:5].lower() != "file:" and _SCHEME.match(uri):
            return uri  # not a file (https:, git:): nothing to normalise
        path = uri_to_path(uri)
        if base_id is not None and not is_absolute(path):
            path = join(self._bases.get(base_id, ""), path)
        return self._finish(path)

    def _finish(self, path: str) -> str:
        if _is_plain_relative(path):
            return path
        path = clean(path)
        if not is_absolute(path):
            return path
        if self._root is not None:
            relative = relative_to(path, self._root)
            if relative is not None:
                return relative
        for anchor in self._anchors:
            relative = relative_to(path, anchor)
            if relative is not None:
                return relative
        checkout = strip_checkout(path)
        return path if checkout is None else checkout
