"""Azure DevOps' and Bitbucket's markdown read links and mentions into text GitHub's leaves
inert: the dialect passes break them, outside code only, and leave our markers intact."""

from __future__ import annotations

from review_quorum.markup import dialects, escape
from review_quorum.markup.markers import find_markers, marker

WJ = "\u2060"
HOSTILE = "see #123 and !45, ping @[Stock Room]\\Admins and @{5f00aa} <b>hi</b>"


def test_azure_devops_work_items_pull_requests_and_groups_are_not_linked() -> None:
    text = dialects.azure_devops(escape.inline(HOSTILE))
    assert f"#{WJ}123" in text and f"!{WJ}45" in text
    assert "@[Stock" not in text  # a group mention: its bracket escaped for every platform
    assert dialects.azure_devops("@[Stock Room]\\Admins") == f"@{WJ}[Stock Room]\\Admins"
    assert "#123" not in text and "!45" not in text
    assert "<b>" not in text  # HTML was already escaped for every platform


def test_bitbucket_account_mentions_are_not_linked() -> None:
    text = dialects.bitbucket(escape.inline(HOSTILE))
    assert f"@{WJ}{{5f00aa}}" in text and "@{5f00aa}" not in text
    assert "#123" in text  # not a link on Bitbucket


def test_code_is_left_as_written_and_markers_survive() -> None:
    body = (
        f"{marker('finding', 'ab12')}\n### Title #1\n\nIn `a[#1]` and\n```\n!2 @{{x}}\n```\nbut #3"
    )
    for convert in (dialects.azure_devops, dialects.bitbucket):
        out = convert(body)
        assert find_markers(out) == [("finding", "ab12")]
        assert "`a[#1]`" in out and "```\n!2 @{x}\n```" in out
    assert dialects.azure_devops(body).endswith(f"but #{WJ}3")
    assert "### Title #" in dialects.azure_devops(body)  # a heading is no link


def test_gitlab_quick_actions_at_the_start_of_a_line_are_broken() -> None:
    """GitLab runs a line that starts with `/command` in a new note as a quick action
    (`/merge`, `/approve`, `/close`) under the poster's token."""
    body = f"{marker('finding', 'ab12')}\nx: t  \n/merge\n  /approve now\nsee a/b\n```\n/close\n```"
    out = dialects.gitlab(body)
    assert f"\n{WJ}/merge\n" in out and f"\n  {WJ}/approve now\n" in out
    assert "see a/b" in out and "```\n/close\n```" in out  # mid-line and code: as written
    assert find_markers(out) == [("finding", "ab12")]
    assert dialects.gitlab("no slash at all") == "no slash at all"
