"""A finding's identity: "this issue, at this code" (SPEC section 11).

The plan, every reporter (the markers of inline comments and check annotations), the
history, triage and SARIF `partialFingerprints` all use the identity made here. It is made
from, in this order of preference:

1. the issue's kind and the code it flags: the file, the cluster's category (the shared
   vocabulary that CWEs and rule families such as Bandit's and Ruff's ports of one rule
   are mapped onto, so that every bot that reports the issue gives the same kind) and the
   flagged line's text with its whitespace removed (`code_hash`), read from the checkout
   when the file is there, else from the diff's hunk lines, plus an ordinal among the
   review's findings of that kind on identical lines of that file. It survives code moving
   up or down, and stays the same across pushes while that line's text does not change;
2. when neither the checkout nor the diff holds the line: the file, the category and the
   smallest fingerprint that an analyser member gave itself (SARIF ``fingerprints`` or
   ``partialFingerprints``, GitLab's ``fingerprint``);
3. otherwise: the file, the category and the line number (a finding without a line: the
   file and category alone). This one changes when the line moves.

None of these depend on which bots reported the finding, on their wording or on the order
of the members. Two distinct findings of one review never share an identity: when two
would, the later ones (in the order of line, end line and members) get an ordinal. An
identity is 32 hex digits. The reporters map an id they do not know (an earlier version's
24-digit one, or one made from a line number) onto today's findings by location.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from review_quorum.digests import sha256
from review_quorum.ingest.base import path_text
from review_quorum.model import ConsensusFinding
from review_quorum.scope import DiffScope

if TYPE_CHECKING:
    from pathlib import Path

IDENTITY_DIGITS = 32
MAX_SOURCE_BYTES = 4 << 20  # a larger file is not read for its lines (generated code)


def _digest(*parts: str, digits: int = IDENTITY_DIGITS) -> str:
    text = "\0".join(parts)
    return sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:digits]


def normal_line(text: str) -> str:
    """A line's text as the identity sees it: every whitespace character removed."""
    return "".join(text.split())


class CodeLines:
    """The text of lines on the head side, from a checkout directory, else from the diff.

    A file is read from `root` only when its repository-relative path stays inside it and
    it is a regular file of at most `MAX_SOURCE_BYTES`; each file is read once.
    """

    def __init__(self, *, root: str | Path | None = None, diff: DiffScope | None = None):
        # A checkout that is a loop of links holds no file, as one that is not there.
        self._root = os.path.realpath(root) if root is not None else None
        self._diff = diff
        self._files: dict[str, list[str] | None] = {}
        self._hashes: dict[str, frozenset[str] | None] = {}

    @property
    def has_root(self) -> bool:
        """Whether a checkout directory was given."""
        return self._root is not None

    def has_file(self, file: str) -> bool:
        """Whether the checkout holds `file` (a regular file inside it)."""
        return self._root is not None and self._checkout(file) is not None

    def line(self, file: str, line: int | None) -> str | None:
        """The text of `file`'s head-side `line`, or None when nothing here holds it."""
        if not file or line is None:
            return None
        lines = self._checkout(file)
        if lines is not None:
            return lines[line - 1] if 0 < line <= len(lines) else None
        change = self._diff.files.get(file) if self._diff is not None else None
        return change.lines.get(line) if change is not None else None

    def hashes(self, file: str) -> frozenset[str] | None:
        """`code_hash` of every head-side line of `file` known here: the whole file from
        the checkout, else the diff's hunk lines (None when neither holds the file)."""
        if file not in self._hashes:
            lines = self._checkout(file)
            if lines is None:
                change = self._diff.files.get(file) if self._diff is not None else None
                lines = list(change.lines.values()) if change is not None else None
            self._hashes[file] = None if lines is None else frozenset(map(code_hash, lines))
        return self._hashes[file]

    def gone(self, file: str) -> bool:
        """Whether `file` is no longer on the head side: the diff deletes it, or the
        checkout has nothing at its path (a file too large to read is not gone)."""
        change = self._diff.files.get(file) if self._diff is not None else None
        if change is not None and change.deleted:
            return True
        if self._root is None or not file:
            return False
        try:
            path = path_text(os.path.join(self._root, file))
            return _inside(_resolved(path), self._root) and not _exists(path)
        except (OSError, ValueError, RuntimeError):  # RuntimeError: a loop of links
            return False

    def _checkout(self, file: str) -> list[str] | None:
        if self._root is None:
            return None
        if file not in self._files:
            self._files[file] = _read_lines(self._root, file)
        return self._files[file]


# Plain os.path rather than pathlib, whose import (with urllib.parse and ipaddress) costs
# a small review 4% of its start-up; each helper does what the pathlib call it replaces did.


def _resolved(path: str | Path) -> str:
    """`str(Path(path).resolve())`: absolute, symbolic links followed; a loop of them is
    the RuntimeError pathlib raises."""
    resolved = os.path.realpath(path)
    try:
        os.stat(resolved)
    except OSError as err:
        if err.errno == errno.ELOOP:
            raise RuntimeError(f"Symlink loop from {resolved!r}") from None
    return resolved


def _inside(path: str, root: str) -> bool:
    """`Path(path).is_relative_to(root)` for two resolved paths (spelt with `os.sep`, a
    backslash on Windows)."""
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _exists(path: str) -> bool:
    """`Path(path).exists()`: a missing file is not there; any other failure is raised."""
    try:
        os.stat(path)
    except OSError as err:
        if err.errno not in (errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP):
            raise
        return False
    except ValueError:
        return False
    return True


def _read_lines(root: str, file: str) -> list[str] | None:
    try:
        path = _resolved(os.path.join(root, file))
        if not _inside(path, root) or not os.path.isfile(path):
            return None
        if os.stat(path).st_size > MAX_SOURCE_BYTES:
            return None
        with open(path, "rb") as source:
            data = source.read()
    except (OSError, ValueError, RuntimeError):  # RuntimeError: a loop of links
        return None
    return data.decode("utf-8", "replace").splitlines()


def code_hash(text: str | None) -> str:
    """The flagged line's text, hashed as the identity uses it ("" when unknown)."""
    return "" if text is None else _digest("line", normal_line(text), digits=16)


def code_hashes(findings: Sequence[ConsensusFinding], lines: CodeLines | None) -> list[str]:
    """`code_hash` of each finding's flagged (first) line, "" where `lines` lacks it."""
    if lines is None:
        return [""] * len(findings)
    return [code_hash(lines.line(finding.file, finding.line)) for finding in findings]


def tool_fingerprint(finding: ConsensusFinding) -> str:
    """The smallest fingerprint an analyser member gave itself ("" when none did).

    Readers write such a member's `finding_id` as ``rule:fingerprint``; a bot comment's
    id (its members have a `source`) is where it was posted, not what it found.
    """
    given = [
        member.finding_id[len(member.rule_id) + 1 :]
        for member in finding.members
        if member.source is None
        and member.rule_id
        and member.finding_id.startswith(f"{member.rule_id}:")
    ]
    return min(given, default="")


def _order(finding: ConsensusFinding) -> tuple[int, int, str]:
    """Where a finding stands among those that would share an identity."""
    titles = "\0".join(sorted(f"{m.bot}\0{m.title}" for m in finding.members))
    return (finding.line or 0, finding.end_line or 0, titles)


def identities(findings: Sequence[ConsensusFinding], hashes: Sequence[str]) -> list[str]:
    """The identity of each finding (`hashes` from `code_hashes`), distinct within the review.

    See the module docstring for what each is made of.
    """
    keys: list[tuple[str, ...]] = []
    for finding, hashed in zip(findings, hashes, strict=True):
        if hashed:
            keys.append((finding.file, finding.category, "code", hashed))
            continue
        given = tool_fingerprint(finding)
        if given:
            keys.append((finding.file, finding.category, "tool", given))
        else:
            line = "" if finding.line is None else str(finding.line)
            keys.append((finding.file, finding.category, "line", line))
    groups: dict[tuple[str, ...], list[int]] = {}
    for index, key in enumerate(keys):
        groups.setdefault(key, []).append(index)
    result = [""] * len(findings)
    for key, indices in groups.items():
        ranked = sorted(indices, key=lambda index: _order(findings[index]))
        for ordinal, index in enumerate(ranked):
            result[index] = _digest("identity", *key, str(ordinal))
    return result
