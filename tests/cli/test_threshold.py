"""`quorum threshold`: the resolved score and band, a warning for junk, always exit 0."""

from __future__ import annotations

import pytest

from review_quorum.cli import main

WARNING = (
    "quorum: warning: VALUE {value!r} is not a band name (strong, moderate, medium, weak) or a "
    "number: using the default 55 (moderate)\n"
)


@pytest.fixture(autouse=True)
def _no_threshold_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CONFIDENCE_THRESHOLD", raising=False)


@pytest.mark.parametrize(
    ("value", "json_out", "recognized"),
    [
        ("strong", '{"score": 80, "band": "strong", "recognized": true}', True),
        (" Moderate ", '{"score": 55, "band": "moderate", "recognized": true}', True),
        ("MEDIUM", '{"score": 55, "band": "moderate", "recognized": true}', True),
        ("weak", '{"score": 30, "band": "weak", "recognized": true}', True),
        ("", '{"score": 55, "band": "moderate", "recognized": true}', True),
        ("72.4", '{"score": 72, "band": "moderate", "recognized": true}', True),
        ("150", '{"score": 100, "band": "strong", "recognized": true}', True),
        ("10", '{"score": 30, "band": "weak", "recognized": true}', True),
        ("banana", '{"score": 55, "band": "moderate", "recognized": false}', False),
        ("7x", '{"score": 55, "band": "moderate", "recognized": false}', False),
        ("-5", '{"score": 55, "band": "moderate", "recognized": false}', False),
        ("8 0", '{"score": 55, "band": "moderate", "recognized": false}', False),
        ("0x10", '{"score": 55, "band": "moderate", "recognized": false}', False),
        ("NaN", '{"score": 55, "band": "moderate", "recognized": false}', False),
        ("infinity", '{"score": 55, "band": "moderate", "recognized": false}', False),
    ],
)
def test_json_format(
    capsys: pytest.CaptureFixture[str], value: str, json_out: str, recognized: bool
) -> None:
    assert main(["threshold", value, "--format", "json"]) == 0
    out, err = capsys.readouterr()
    assert out == json_out + "\n"
    assert err == ("" if recognized else WARNING.format(value=value))


@pytest.mark.parametrize(
    ("argv", "out"),
    [
        (["threshold", "strong"], "80 (strong)\n"),
        (["threshold", "72.5"], "73 (moderate)\n"),
        (["threshold"], "55 (moderate)\n"),
        (["threshold", "banana"], "55 (moderate)\n"),
    ],
)
def test_text_format(capsys: pytest.CaptureFixture[str], argv: list[str], out: str) -> None:
    assert main(argv) == 0
    assert capsys.readouterr().out == out


def test_without_a_value_the_environment_is_read(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CONFIDENCE_THRESHOLD", "weak")
    assert main(["threshold"]) == 0
    assert capsys.readouterr().out == "30 (weak)\n"
    monkeypatch.setenv("CONFIDENCE_THRESHOLD", "7x")
    assert main(["threshold", "--format", "json"]) == 0
    out, err = capsys.readouterr()
    assert out == '{"score": 55, "band": "moderate", "recognized": false}\n'
    assert err.startswith("quorum: warning: CONFIDENCE_THRESHOLD '7x' is not a band name")
