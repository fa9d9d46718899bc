"""`--verifier-cmd`: a command that reads drafter findings and writes verifier verdicts.

quorum writes the clusters to the command's standard input in the drafter schema that
`quorum score` reads (`{"findings": [...]}`, each finding with its `id` and, beside the
drafter fields, the same windows, hunks and quoted reports a model gets), and reads the
verifier schema (`{"verdicts": [...]}`, validated strictly) from its standard output.
A verdict names its finding by `id`, or by `file` and `line`; it may carry `cited_lines`.
The command runs once, without a shell, within the time budget; any failure (it cannot
start, exits non-zero, times out, or writes something else) leaves every cluster
unverified.
"""

from __future__ import annotations

import shlex
import subprocess
from collections.abc import Sequence
from typing import Any

import orjson

from review_quorum.errors import InputError, RecordsError
from review_quorum.model import ConsensusFinding
from review_quorum.scoring.confidence.verdicts import (
    Category,
    VerifierSeverity,
    parse_verifier_output,
)
from review_quorum.verifier.answer import AnswerItem, NoVerdict, item_from_record
from review_quorum.verifier.request import ClusterRequest

_CATEGORIES = {category.value for category in Category}


def drafter_document(
    requests: Sequence[tuple[ClusterRequest, ConsensusFinding]],
) -> dict[str, Any]:
    """The clusters in the drafter schema, with what a verifier needs to judge them."""
    findings = []
    for request, finding in requests:
        category = finding.category if finding.category in _CATEGORIES else "other"
        findings.append(
            {
                "id": request.id,
                "file": request.file,
                "line": request.line,
                "severity": VerifierSeverity.from_severity(finding.severity).value,
                "category": category,
                "issue": request.payload["reports"][0]["message"].split("\n", 1)[0]
                or finding.category,
                "in_diff": True,
                **{key: request.payload[key] for key in ("rules", "cwes", "reports", "diff_hunks")},
                "head_window": request.payload["head_window"],
                "base_window": request.payload["base_window"],
            }
        )
    return {"findings": findings}


def run_command(
    command: str,
    requests: Sequence[tuple[ClusterRequest, ConsensusFinding]],
    timeout: float,
) -> dict[str, AnswerItem | NoVerdict] | str:
    """Each request's answer entry by id, or why the command gave none at all."""
    try:
        argv = shlex.split(command)
    except ValueError as err:
        return f"verifier command not understood: {err}"
    if not argv:
        return "verifier command is empty"
    if timeout <= 0:
        return "time budget"
    document = orjson.dumps(drafter_document(requests))
    try:
        done = subprocess.run(
            argv, input=document, capture_output=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired:
        return "verifier command timed out"
    except OSError as err:
        return f"verifier command did not start: {err.strerror or err}"
    if done.returncode != 0:
        return f"verifier command exited with status {done.returncode}"
    by_id = {request.id: request for request, _ in requests}
    try:
        answer = orjson.loads(done.stdout)
        entries = parse_verifier_output(_placed(answer, by_id), "verifier command output")
    except orjson.JSONDecodeError:
        return "verifier command wrote invalid JSON"
    except (InputError, RecordsError):
        return "verifier command output does not follow the verifier schema"
    by_place = {(request.file, request.line): request.id for request, _ in requests}
    asked = {request.id for request, _ in requests}
    found: dict[str, AnswerItem | NoVerdict] = {}
    for index, record in entries:
        raw = answer["verdicts"][index]
        if "id" in raw:  # an id that was not asked about is ignored
            named = raw["id"]
            cluster_id = named if isinstance(named, str) and named in asked else None
        else:
            cluster_id = by_place.get((record["file"], record["line"]))
        if cluster_id is None or cluster_id in found:
            continue  # a verdict on nothing that was asked is ignored
        found[cluster_id] = item_from_record({**record, **_cited(raw)}, cluster_id)
    return found


def _placed(answer: Any, by_id: dict[str, ClusterRequest]) -> Any:
    """`answer` with every verdict that names an asked finding by `id` given that finding's
    file and line where it names none: the verifier schema requires them, a command need
    not repeat them."""
    verdicts = answer.get("verdicts") if isinstance(answer, dict) else None
    if not isinstance(verdicts, list):
        return answer
    placed = [
        {"file": by_id[raw["id"]].file, "line": by_id[raw["id"]].line, **raw}
        if isinstance(raw, dict) and isinstance(raw.get("id"), str) and raw["id"] in by_id
        else raw
        for raw in verdicts
    ]
    return {**answer, "verdicts": placed}


def _cited(raw: dict[str, Any]) -> dict[str, Any]:
    return {"cited_lines": raw["cited_lines"]} if "cited_lines" in raw else {}
