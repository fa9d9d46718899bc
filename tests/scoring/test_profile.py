"""Reliability profiles (contract 2): round trip, shipped schema, errors naming file and pointer."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import jsonschema
import pytest

from review_quorum import InputError, Profile, SourceReliability, WitnessFamily

GOOD = {
    "format": "review-quorum-profile",
    "version": 1,
    "origin": "labels: a test",
    "sources": [
        {"bot": "coderabbit", "rule": None, "reliability": 0.62, "true": 31, "false": 19,
         "origin": "labels: review-bots-dev (opus)"},
        {"bot": "semgrep", "rule": "javascript.express.xss", "reliability": 0.9, "true": 9,
         "false": 1, "origin": "history"},
    ],
    "families": [{"name": "bandit-ruff", "members": ["bandit", "ruff"]}],
}  # fmt: skip


def schema() -> dict[str, object]:
    text = (resources.files("review_quorum") / "schemas" / "profile.schema.json").read_text()
    return dict(json.loads(text))


def test_round_trip_keeps_every_field() -> None:
    profile = Profile.from_json(json.dumps(GOOD), "good.json")
    assert profile.sources[1] == SourceReliability(
        "semgrep", "javascript.express.xss", 0.9, 9, 1, "history"
    )
    assert profile.families == (WitnessFamily("bandit-ruff", ("bandit", "ruff")),)
    assert json.loads(profile.to_json()) == GOOD
    jsonschema.validate(GOOD, schema())


def test_shipped_default_profile_is_valid() -> None:
    text = (resources.files("review_quorum") / "profiles" / "default.json").read_text()
    jsonschema.validate(json.loads(text), schema())
    assert Profile.default().name == "review_quorum/profiles/default.json"


def test_load_reads_a_file(tmp_path: Path) -> None:
    path = tmp_path / "profile.json"
    path.write_text(json.dumps(GOOD))
    assert Profile.load(path).origin == "labels: a test"


def broken(**changes: object) -> dict[str, object]:
    document = json.loads(json.dumps(GOOD))
    for pointer, value in changes.items():
        *parents, last = pointer.split("__")
        target = document
        for part in parents:
            target = target[int(part)] if isinstance(target, list) else target[part]
        target[int(last) if isinstance(target, list) else last] = value
    return dict(document)


@pytest.mark.parametrize(
    ("document", "message"),
    [
        (broken(format="other"), "bad.json:/format: expected 'review-quorum-profile'"),
        (broken(version=2), "bad.json:/version: unsupported version 2"),
        (broken(sources__1__reliability=1.0), "bad.json:/sources/1/reliability: must be"),
        (broken(sources__0__reliability="high"), "bad.json:/sources/0/reliability: must be"),
        (broken(sources__0__true=-1), "bad.json:/sources/0/true: expected a whole number"),
        (broken(sources__1__bot=""), "bad.json:/sources/1/bot: must be a non-empty string"),
        (broken(sources__0__colour="red"), "bad.json:/sources/0/colour: unknown key"),
        (broken(families__0__members=["bandit"]), "bad.json:/families/0/members: a family"),
        (broken(sources={}), "bad.json:/sources: expected an array, not an object"),
        ([], "bad.json:/: expected an object, not an array"),
    ],
)
def test_errors_name_the_file_and_pointer(document: object, message: str) -> None:
    with pytest.raises(InputError) as caught:
        Profile.from_json(json.dumps(document), "bad.json")
    assert str(caught.value).startswith(message)
    if isinstance(document, dict) and document.get("format") == GOOD["format"]:
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(document, schema())


def test_repeated_source_is_an_error() -> None:
    document = broken()
    document["sources"] = [GOOD["sources"][0], GOOD["sources"][0]]  # type: ignore[index]
    with pytest.raises(InputError, match=r"bad.json:/sources/1: repeats /sources/0"):
        Profile.from_json(json.dumps(document), "bad.json")


def test_invalid_json_names_the_line() -> None:
    with pytest.raises(InputError, match=r"bad.json:line 2: invalid JSON"):
        Profile.from_json('{"format":\n nope}', "bad.json")
