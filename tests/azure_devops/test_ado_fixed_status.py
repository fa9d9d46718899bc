"""A finding the bots that reported it no longer report, whose flagged line a push
rewrote, gets its Azure DevOps thread set to ``fixed`` and its text says so; a thread a
person already set to fixed is not set again (`delivery.threads` drives the run)."""

from __future__ import annotations

from pathlib import Path

import pytest

from azure_devops.ado_support import PATH, over_http, seed_bot_threads
from azure_devops.test_ado_posting import POST, ours
from bitbucket.test_bitbucket_posting import write_head  # the same 40-line file at PATH
from gitlab.gitlab_support import BOT_NOTES
from review_quorum.cli import main


def test_a_fixed_finding_s_thread_is_set_to_fixed_once(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    with over_http(monkeypatch) as (fake, errors):
        seed_bot_threads(fake)
        assert main([*POST, *write_head(tmp_path)]) == 1
        first, second = sorted(
            ours(fake), key=lambda t: t["threadContext"]["rightFileEnd"]["line"]
        )[:2]
        first["status"] = "fixed"  # a person set it to fixed already
        # the first two bots' lines are rewritten: their findings there are gone, and both
        # bots (which ran) report another finding on the same head
        gone = (BOT_NOTES[0][1], BOT_NOTES[1][1])
        for thread in fake.threads:
            if thread["comments"][0]["author"]["displayName"] in gone:
                thread["isDeleted"] = True
        for (_, username, _, body), line in zip(BOT_NOTES[:2], (36, 38), strict=True):
            fake.add_thread(username, body.replace("The ", "Also: the ", 1), path=PATH, line=line)
        capsys.readouterr()
        writes = len(fake.writes())
        assert main([*POST, *write_head(tmp_path, (12, 14))]) == 1
        err = capsys.readouterr().err
        assert errors == []
    set_fixed = [
        (m, p) for m, p, _ in fake.writes()[writes:] if p.endswith(f"/threads/{second['id']}")
    ]
    assert set_fixed == [("PATCH", set_fixed[0][1])]  # the second only: the first already was
    assert not [p for _, p, _ in fake.writes()[writes:] if p.endswith(f"/threads/{first['id']}")]
    for thread in (first, second):
        assert thread["status"] == "fixed"
        assert "review-quorum no longer reports this finding" in thread["comments"][0]["content"]
    assert "2 set to fixed" in err
