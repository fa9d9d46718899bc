"""Issue 33 item 2: a repeated JSON key that would replace findings is an error naming the
file and the object, on both SARIF paths; harmless repeats elsewhere are read as before."""

from __future__ import annotations

import pytest

from review_quorum.errors import InputError
from review_quorum.ingest import read, sarif_typed
from review_quorum.ingest.base import Source

RESULT = (
    '{"ruleId": "B1", "message": {"text": "Use of eval."}, "locations": [{"physicalLocation":'
    ' {"artifactLocation": {"uri": "a.py"}, "region": {"startLine": 3}}}]}'
)
# an argument of an unexpected type makes the typed decode refuse the file: the generic path reads
ODD_RESULT = RESULT.replace('"Use of eval."}', '"Use of eval.", "arguments": [1]}')
RUN = '{"tool": {"driver": {"name": "Bandit"}}, "results": [' + RESULT + "]}"
ODD_RUN = '{"tool": {"driver": {"name": "Bandit"}}, "results": [' + ODD_RESULT + "]}"
REPEATED = 'key "{key}" appears more than once in this object'


@pytest.mark.parametrize("run", [RUN, ODD_RUN], ids=["typed", "generic"])
@pytest.mark.parametrize(
    ("template", "where", "key"),
    [
        ('{{"version": "2.1.0", "runs": [{run}], "runs": []}}', "/", "runs"),
        ('{{"runs": [{run}, {run}], "version": "2.1.0", "runs": [{run}]}}', "/", "runs"),
        ('{{"version": "2.1.0", "runs": [{run}, {run_without}]}}', "/runs/1", "results"),
    ],
    ids=["runs-then-empty", "runs-then-fewer", "results-then-empty"],
)
def test_a_repeated_key_that_would_replace_findings_is_an_error(
    run: str, template: str, where: str, key: str
) -> None:
    run_without = run[:-1] + ', "results": []}'
    text = template.format(run=run, run_without=run_without)
    with pytest.raises(InputError) as raised:
        read(Source("dup.sarif", text.encode()))
    assert (raised.value.source, raised.value.position) == ("dup.sarif", where)
    assert REPEATED.format(key=key) in raised.value.message
    assert "findings would be lost" in raised.value.message


@pytest.mark.parametrize("run", [RUN, ODD_RUN], ids=["typed", "generic"])
def test_repeated_keys_that_replace_no_findings_are_read(run: str) -> None:
    """A repeat inside a property bag, or of the version, loses no finding."""
    bag = '"properties": {"owner": "a", "owner": "b"}, "results": ['
    text = '{"version": "2.1.0", "version": "2.1.0", "runs": [' + run.replace('"results": [', bag)
    batch = read(Source("ok.sarif", (text + "]}").encode()))
    assert [(f.bot, f.file, f.line) for f in batch.findings] == [("bandit", "a.py", 3)]


def test_a_results_key_in_a_message_or_property_bag_is_not_a_repeat() -> None:
    """The generic path's count of `"results"` also sees strings and bags: it then parses
    again to be sure, and reads the file when no run repeats a key."""
    noisy = ODD_RUN.replace('"text": "Use of eval."', '"text": "results"')
    noisy = noisy.replace('"results": [', '"properties": {"results": 1}, "results": [', 1)
    batch = read(Source("ok.sarif", ('{"version": "2.1.0", "runs": [' + noisy + "]}").encode()))
    assert [(f.bot, f.file, f.line) for f in batch.findings] == [("bandit", "a.py", 3)]


def test_the_generic_cases_do_take_the_generic_path() -> None:
    text = '{"version": "2.1.0", "runs": [' + ODD_RUN + "]}"
    assert sarif_typed.read(Source("odd.sarif", text.encode())) is None
    assert len(read(Source("odd.sarif", text.encode())).findings) == 1
