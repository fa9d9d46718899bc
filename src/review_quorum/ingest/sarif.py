"""SARIF 2.1.0 input: every run is one bot, every result one finding (or one Skipped).

Mapping choices, documented for users in ``docs/categories.md``:

- bot: the run's ``tool.driver.name`` as `categories.tool_name` spells it ("Semgrep OSS"
  -> "semgrep", "nodejsscan" -> "njsscan"); ``--bot NAME=FILE`` overrides it.
- severity: the level comes from the SARIF fallback order (``result.level``; a ``kind``
  other than ``fail`` means ``none``; the rule's ``defaultConfiguration.level``; else
  ``warning``) and maps error -> high, warning -> medium, note -> low, none -> info, which
  keeps SARIF's three problem levels three distinct steps and leaves critical to CVSS.
  A problem whose rule or result carries ``properties.security-severity`` takes the CVSS
  band of that score instead (>= 9 critical, >= 7 high, >= 4 medium, > 0 low); level
  ``none`` stays info. Results of kind ``pass``/``notApplicable``, suppressed results and
  results with ``baselineState: absent`` are not findings: each becomes a Skipped.
- confidence: what the result's properties state (Bandit's ``issue_confidence``,
  ``confidence``, ``precision``: a level name of `PRECISION_CONFIDENCE` or a number from 0
  to 1), else the rule's (a Semgrep ``HIGH CONFIDENCE`` tag first, then its properties),
  else 1.0.
- priority: ``rank`` / 100 (/ 1 for flawfinder, which writes its risk level / 5 there and
  so also sets the severity), -1 without one; range-checked, never a confidence.
- CWE ids: the rule's tags, its ``cwe`` property and its relationships to the CWE taxonomy.
- title: the first sentence of the message (``text``, or ``id`` looked up in the rule's
  ``messageStrings`` with ``arguments`` substituted), else of the rule's description.
- file and lines: the first location, resolved by `paths.PathResolver`; no location means
  a global finding. ``finding_id`` is the rule id, plus ``:fingerprint`` when one is given.

Rule metadata is digested once per rule (`sarif_rules.RuleTable`) and titles and paths are
cached per run, so the per-result work is lookups plus building the finding.

Two paths read the same mapping. The typed fast path (`sarif_typed`) decodes the bytes
straight into msgspec Structs holding only the members used, skipping the rest in C; it
runs unless the document was already parsed as JSON. When that decode fails (a member of
an unexpected type, broken JSON, another SARIF version) the generic path
(`sarif_results`) reads the parsed JSON with every type checked, and it alone words
`InputError` messages and `Skipped` reasons; the typed path hands it unusual results one
by one, so both paths give the same findings and Skipped records. Detection looks for a
top-level ``"runs": [`` at the head of the text before it parses anything.
"""

from __future__ import annotations

import functools
import re

from review_quorum.errors import InputError, Skipped, shown
from review_quorum.ingest import sarif_typed
from review_quorum.ingest.base import Batch, Source, pointer
from review_quorum.ingest.categories import Categorizer
from review_quorum.ingest.duplicates import check
from review_quorum.ingest.sarif_results import RunReader

# A top-level object whose members before "runs" are scalars, then "runs": [ (how every
# SARIF writer we know starts); anything else is checked by parsing.
_STRING = r'"(?:[^"\\]|\\.)*"'
_SCALAR = rf"(?:{_STRING}|-?[0-9][0-9.eE+-]*|true|false|null)"
_SARIF_HEAD = re.compile(rf'\{{\s*(?:{_STRING}\s*:\s*{_SCALAR}\s*,\s*)*"runs"\s*:\s*\[')


NOT_RUN = '"runs" is null: the tool did not run (SARIF 2.1.0), so the file holds no results'


@functools.cache
def _sarif_schema() -> re.Pattern[str]:
    """A SARIF `$schema` (compiled for the first log whose runs are null)."""
    return re.compile(r'"\$schema"\s*:\s*"[^"]*sarif', re.IGNORECASE)


class SarifReader:
    name = "sarif"

    def detect(self, source: Source) -> bool:
        if not source.head(64).startswith("{"):
            return False
        if source.parsed() is None and _SARIF_HEAD.match(source.head()):
            return True  # no parse: the typed path reads the bytes itself
        document = source.json_or_none()
        if not isinstance(document, dict):
            return False
        runs = document.get("runs", ())
        not_run = runs is None and (
            document.get("version") == "2.1.0" or bool(_sarif_schema().search(source.head()))
        )
        return isinstance(runs, list) or not_run

    def read(self, source: Source) -> Batch:
        if source.parsed() is None:
            batch = sarif_typed.read(source)
            if batch is not None:
                return batch
        return read_parsed(source)


def read_parsed(source: Source) -> Batch:
    """The generic path: every finding of the document as parsed JSON, types checked."""
    document = source.json()
    if not isinstance(document, dict):
        raise InputError(source.name, "/", "expected a SARIF log object")
    version = document.get("version")
    if version is not None and version != "2.1.0":
        raise InputError(
            source.name, "/version", f"unsupported SARIF version {shown(version)}; expected 2.1.0"
        )
    runs = document.get("runs")
    if runs is None and "runs" in document:
        return Batch(skipped=[Skipped(source.name, "/runs", NOT_RUN)])
    if not isinstance(runs, list):
        raise InputError(source.name, "/runs", "expected an array of runs")
    with_results = sum(1 for run in runs if isinstance(run, dict) and "results" in run)
    most = {"runs": 1, "results": with_results}
    check(source.name, source.data, sarif_typed.LOG_AND_RUNS, most)
    batch = Batch()
    categorizer = Categorizer(source.options.categories)
    for index, run in enumerate(runs):
        if isinstance(run, dict):
            RunReader(source, run, index, categorizer).read_into(batch)
        else:
            where = pointer("runs", index)
            batch.skipped.append(Skipped(source.name, where, "a run must be an object"))
    return batch


READER = SarifReader()
