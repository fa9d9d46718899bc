"""The GitLab note reader on its own: shapes GitLab sends, and shapes nobody should."""

from __future__ import annotations

from typing import Any

import pytest

from review_quorum.ingest.gitlab_notes import conversation, is_bot_account, read_notes

HEAD = "c" * 40


def note(username: Any, body: Any, **extra: Any) -> dict[str, Any]:
    return {"id": extra.pop("id", 1), "author": {"username": username}, "body": body, **extra}


@pytest.mark.parametrize(
    ("username", "bot"),
    [
        ("project_12_bot_0a1b2c", True),
        ("group_7_bot_ffee", True),
        ("project_bot", False),
        ("dana", False),
        (None, False),
    ],
)
def test_access_token_accounts_are_bots(username: object, bot: bool) -> None:
    assert is_bot_account(username) is bot


def test_a_multi_line_diff_note_and_a_removed_line() -> None:
    position = {
        "position_type": "text", "new_path": "a.py", "new_line": 9, "head_sha": HEAD,
        "line_range": {"start": {"new_line": 7}, "end": {"new_line": 9}},
    }  # fmt: skip
    removed = {"position_type": "text", "old_path": "b.py", "old_line": 4, "new_line": None}
    talk = conversation(
        [
            {"id": "d1", "notes": [note("coderabbitai", "x", position=position)]},
            {"id": "d2", "notes": [note("coderabbitai", "y", id=2, position=removed)]},
        ],
        head_sha=HEAD,
    )
    first, second = talk.review_comments
    assert (first["path"], first["start_line"], first["line"], first["commit_id"]) == (
        "a.py", 7, 9, HEAD,
    )  # fmt: skip
    assert (second["path"], second["line"], second["original_line"]) == ("b.py", None, 4)


def test_malformed_discussions_become_skipped_records_not_errors() -> None:
    discussions: list[Any] = [
        "not an object",
        {"id": "d1", "notes": "not a list"},
        {"id": "d2", "notes": [42]},
        {"id": "d3", "notes": [note(["not", "a", "name"], "body")]},
        {"id": "d4", "notes": [note("coderabbitai", {"not": "text"})]},
        {"id": "d5", "notes": [note("coderabbitai", "x", position={"position_type": "text",
                                                                   "new_path": "a.py",
                                                                   "new_line": "12"})]},
        {"id": "d6", "notes": [{"id": 9, "author": None, "body": "deleted account"}]},
    ]  # fmt: skip
    batch = read_notes(conversation(discussions, head_sha=HEAD))
    assert batch.findings == []
    reasons = [(skipped.position, skipped.reason) for skipped in batch.skipped]
    assert reasons == [
        ("/discussions/0", "record must be an object, not str"),
        ("/discussions/1/notes", "record must be an object, not str"),
        ("/discussions/2/notes/0", "record must be an object, not int"),
        ("/discussions/3/notes/0", "field 'user' must be an object with a 'login' string"),
        ("/discussions/4/notes/0", "field 'body' must be a string, not dict"),
        ("/discussions/5/notes/0", "field 'line' must be a positive integer or null, not \"12\""),
        ("/discussions/6/notes/0", "comment by a human/unknown author"),
    ]


def test_a_look_alike_username_is_neither_the_bot_nor_a_person() -> None:
    """Issue 33 item 3 on GitLab: a note by `coderabbit\\u0430i` (Cyrillic a) does not pass
    as CodeRabbit, and is counted as skipped with a reason that says why."""
    position = {"position_type": "text", "new_path": "a.py", "new_line": 3, "head_sha": HEAD}
    body = "_⚠️ Potential issue_\n\n**The lock is never released.**\n\nRelease it in a finally."
    discussions = [
        {"id": "d1", "notes": [note("coderabbitai", body, position=position)]},
        {"id": "d2", "notes": [note("coderabbit\u0430i", body, id=2, position=position)]},
    ]
    batch = read_notes(conversation(discussions, head_sha=HEAD))
    assert [f.bot for f in batch.findings] == ["coderabbit"]
    assert [(skipped.position, skipped.reason) for skipped in batch.skipped] == [
        (
            "/discussions/1/notes/0",
            "comment by an unknown author whose login 'coderabbit\u0430i' looks like "
            "coderabbit's but is not it",
        )
    ]
