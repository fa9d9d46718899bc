"""What Azure DevOps', Bitbucket's and GitLab's markdown make of text GitHub's leaves inert.

Every body is rendered once, for GitHub-flavoured markdown, with bot text escaped by
`markup.escape`: no HTML (``<`` becomes ``&lt;``, so Azure DevOps' ``@<identity>`` mention
is inert as well), no links, no emphasis, no ``@login`` mention. Three other platforms read
more into plain text, and `azure_devops`, `bitbucket` and `gitlab` below take that away from
a whole body, outside code (fenced blocks and code spans, where nothing is linked or run):

- Azure DevOps links ``#123`` to a work item and ``!123`` to a pull request, and mentions a
  group with ``@[Project]\\Team``: a word joiner after the ``#``, ``!`` or ``@`` breaks each
  link without changing what a reader sees.
- Bitbucket mentions an account with ``@{account-id}``: the same word joiner breaks it.
- GitLab runs a line of a new note that starts with ``/command`` as a quick action
  (``/merge``, ``/approve``, ``/close``) with the poster's rights: a word joiner before the
  ``/`` keeps the line as text.

Our own markers (``<!-- review-quorum:... -->``) hold none of these, so they stay intact.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_WORD_JOINER = "\u2060"
_CODE_TEXT = r"```[\s\S]*?(?:```|\Z)|~~~[\s\S]*?(?:~~~|\Z)|`[^`\n]*`"
_CODE = re.compile(f"({_CODE_TEXT})")
_AZURE = re.compile(r"([#!])(?=\d)|@(?=\[)")
_BITBUCKET = re.compile(r"@(?=\{)")
# Code as `_CODE` finds it, kept; else a slash that starts a line (after blanks).
_GITLAB = re.compile(_CODE_TEXT + r"|^([ \t]*)/", re.MULTILINE)


def azure_devops(markdown: str) -> str:
    """`markdown` with Azure DevOps' work item, pull request and group links broken."""
    return _outside_code(markdown, lambda text: _AZURE.sub(_joined, text))


def bitbucket(markdown: str) -> str:
    """`markdown` with Bitbucket's ``@{account-id}`` mentions broken."""
    return _outside_code(markdown, lambda text: _BITBUCKET.sub("@" + _WORD_JOINER, text))


def gitlab(markdown: str) -> str:
    """`markdown` with no line that GitLab would run as a quick action."""
    return _GITLAB.sub(_before_slash, markdown)


def _before_slash(match: re.Match[str]) -> str:
    blanks = match.group(1)
    return match.group(0) if blanks is None else blanks + _WORD_JOINER + "/"


def _joined(match: re.Match[str]) -> str:
    return (match.group(1) or "@") + _WORD_JOINER


def _outside_code(markdown: str, change: Callable[[str], str]) -> str:
    parts = _CODE.split(markdown)
    # split with one group: text, code, text, code, ...; only the text is changed
    return "".join(part if index % 2 else change(part) for index, part in enumerate(parts))
