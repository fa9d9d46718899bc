"""The scoring's edges, one row per case: a verdict exactly `line_window` lines away (and
one line further), a verdict equally near two findings, two bots echoing each other in
exactly `ECHO_MIN` clusters and exactly `ECHO_SHARE` of them (and one fewer), the name of a
merged family, and ``1) text`` at the start of an escaped line."""

from __future__ import annotations

import msgspec
import pytest

from review_quorum.markup.escape import block
from review_quorum.model import (
    ConsensusFinding,
    ConsensusLevel,
    Evidence,
    NormalizedFinding,
    Severity,
)
from review_quorum.plan import Settings
from review_quorum.scoring import Model, compute_consensus
from review_quorum.scoring.confidence.attach import (
    AttachedVerdict,
    AttachedVerdictInput,
    attach_verdicts,
)
from review_quorum.scoring.confidence.verdicts import (
    ContextCompleteness,
    EvidenceStrength,
    Verdict,
    VerifierSeverity,
)
from review_quorum.scoring.families import ECHO_MIN, ECHO_SHARE, witness_families
from review_quorum.scoring.profile import Profile, WitnessFamily


def consensus(line: int, file: str = "app/db.py") -> ConsensusFinding:
    member = NormalizedFinding(
        "bandit", f"b-{line}", Severity.HIGH, "security", "SQL", Evidence(file, line)
    )
    return ConsensusFinding(
        file, line, "security", "SQL", Severity.HIGH, ("bandit",), 1, 1.0, 0.0, 1.0,
        ConsensusLevel.CONFIRMED, (member,),
    )  # fmt: skip


def verdict(line: int, file: str = "app/db.py") -> AttachedVerdictInput:
    attached = AttachedVerdict(
        Verdict.CONFIRMED, VerifierSeverity.HIGH, EvidenceStrength.DIRECT,
        ContextCompleteness.FULL, True, "", "", "v.json", f"/verdicts/{line}",
    )  # fmt: skip
    return AttachedVerdictInput(file, line, attached)


# (case, the findings' lines, the verdict's line, the window, index of the finding judged)
ATTACH = [
    ("on the line", [10], 10, 0, 0),
    ("exactly the window away, below", [10], 13, 3, 0),
    ("exactly the window away, above", [10], 7, 3, 0),
    ("one line past the window", [10], 14, 3, None),
    ("equidistant: the first in consensus order", [12, 8], 10, 3, 0),
    ("equidistant, the other order", [8, 12], 10, 3, 0),
    ("nearer wins over first", [13, 11], 10, 3, 1),
    ("two findings on one line: the first", [10, 10], 10, 0, 0),
]


@pytest.mark.parametrize(
    ("case", "lines", "at", "window", "judged"), ATTACH, ids=[row[0] for row in ATTACH]
)
def test_a_verdict_goes_to_the_nearest_finding_within_the_window(
    case: str, lines: list[int], at: int, window: int, judged: int | None
) -> None:
    attached, skipped = attach_verdicts([consensus(line) for line in lines], [verdict(at)], window)
    assert list(attached) == ([] if judged is None else [judged]), case
    assert len(skipped) == (1 if judged is None else 0)


def test_a_verdict_in_another_file_or_a_second_one_is_skipped_and_counted() -> None:
    attached, skipped = attach_verdicts(
        [consensus(10)], [verdict(10), verdict(10), verdict(10, "app/other.py")], 3
    )
    assert list(attached) == [0]
    assert [record.reason for record in skipped] == [
        "verdict for app/db.py:10 is a second verdict on one finding",
        "verdict for app/other.py:10 matches no finding",
    ]


def echoing(echoes: int, alone: int) -> tuple[list[list[NormalizedFinding]], list[tuple[str, ...]]]:
    """Clusters in which two bots say the same title `echoes` times, and clusters in which
    each of them speaks alone `alone` times."""
    clusters: list[list[NormalizedFinding]] = []
    for index in range(echoes):
        title = f"issue {index}"
        pair = [finding("mirror-a", title, index + 1), finding("mirror-b", title, index + 1)]
        clusters.append(pair)
    for bot in ("mirror-a", "mirror-b"):
        clusters += [[finding(bot, f"own {index}", 1000 + index)] for index in range(alone)]
    return clusters, [tuple(sorted({m.bot for m in cluster})) for cluster in clusters]


def finding(bot: str, title: str, line: int) -> NormalizedFinding:
    return NormalizedFinding(
        bot, f"{bot}-{line}", Severity.LOW, "style", title, Evidence("a.py", line)
    )


def alone_for_share(echoes: int) -> int:
    """The most lone clusters of one bot that `echoes` still covers `ECHO_SHARE` of."""
    return int(echoes / ECHO_SHARE + 1e-9) - echoes


# Echoes in 45 of 50 clusters: exactly ECHO_SHARE (0.9), with no rounding in between.
SHARED = 9 * ECHO_MIN
# (case, clusters where they echo, clusters where one speaks alone, one family)
ECHOES = [
    ("exactly ECHO_MIN, nothing alone", ECHO_MIN, 0, True),
    ("one fewer than ECHO_MIN", ECHO_MIN - 1, 0, False),
    ("exactly ECHO_SHARE", SHARED, alone_for_share(SHARED), True),
    ("just under ECHO_SHARE", SHARED, alone_for_share(SHARED) + 1, False),
]


@pytest.mark.parametrize(("case", "echoes", "alone", "one"), ECHOES, ids=[r[0] for r in ECHOES])
def test_two_bots_are_one_family_from_exactly_the_echo_threshold(
    case: str, echoes: int, alone: int, one: bool
) -> None:
    clusters, bots_of = echoing(echoes, alone)
    # A third bot keeps the detected family from absorbing every bot of the run.
    clusters.append([finding("other", "elsewhere", 5000)])
    bots_of.append(("other",))
    family = witness_families(clusters, bots_of, Profile())
    same = family.get("mirror-a", "mirror-a") == family.get("mirror-b", "mirror-b")
    assert same is one, case


def test_the_share_row_sits_on_the_threshold() -> None:
    assert ECHO_SHARE * (SHARED + alone_for_share(SHARED)) == SHARED
    assert ECHO_SHARE * (SHARED + alone_for_share(SHARED) + 1) > SHARED


# (case, the profile's families, the bots seen, the family every one of them has)
NAMES = [
    ("versions take the first name in order", (), ["tool-v2", "tool"], "tool"),
    ("a known family keeps its name", (), ["qodo", "qodo-v2"], "qodo"),
    ("known names win by order over a version's", (), ["ruff", "ruff-v2"], "bandit-ruff"),
    (
        "a profile's family merged with a version takes the first name in order",
        (WitnessFamily("scanners", ("scan", "probe")),),
        ["scan", "scan-v3", "probe"],
        "scan-v3",
    ),
]


@pytest.mark.parametrize(("case", "declared", "bots", "name"), NAMES, ids=[r[0] for r in NAMES])
def test_a_merged_family_is_named_by_the_first_of_its_names(
    case: str, declared: tuple[WitnessFamily, ...], bots: list[str], name: str
) -> None:
    clusters = [[finding(bot, f"t {index}", index + 1)] for index, bot in enumerate(bots)]
    family = witness_families(clusters, [(bot,) for bot in bots], Profile(families=declared))
    assert {family.get(bot, bot) for bot in bots} == {name}, case


# (case, an untrusted line, how it reads once escaped)
LINE_STARTS = [
    ("a numbered item with a parenthesis", "1) text", "1\\) text"),
    ("a numbered item with a dot", "12. text", "12\\. text"),
    ("a number and a dash is text", "12- text", "12- text"),
    ("a bullet", "- text", "\\- text"),
    ("a heading", "# text", "\\# text"),
    ("a quote", "> text", "\\> text"),
    ("a plain line", "text 1) more", "text 1) more"),
]


@pytest.mark.parametrize(("case", "text", "escaped"), LINE_STARTS, ids=[r[0] for r in LINE_STARTS])
def test_a_line_never_starts_a_list_heading_or_quote(case: str, text: str, escaped: str) -> None:
    assert block(text) == escaped, case


@pytest.mark.parametrize("model", ["agreement", "reliability"])
@pytest.mark.parametrize("window", [-1, True, 1.5, "3"])
def test_a_line_window_is_a_whole_number_of_lines_in_both_models(
    model: Model, window: object
) -> None:
    with pytest.raises(ValueError, match="line_window must be a non-negative integer"):
        compute_consensus([finding("a", "t", 1)], model=model, line_window=window)  # type: ignore[arg-type]


# Two bots four lines apart: one issue within a window of 4, two within 3.
APART = [finding("a", "SQL built from input", 10), finding("b", "SQL built from input", 14)]


@pytest.mark.parametrize("model", ["agreement", "reliability"])
@pytest.mark.parametrize(
    ("settings", "keywords", "clusters", "bots_ran"),
    [
        (Settings(line_window=4), {}, 1, 2),
        (Settings(line_window=3), {}, 2, 2),
        (Settings(line_window=3), {"line_window": 4}, 1, 2),
        (Settings(line_window=4, bots_ran=5), {}, 1, 5),
        (Settings(line_window=4, bots_ran=5), {"bots_ran": 3}, 1, 3),
    ],
)
def test_compute_consensus_takes_the_settings_and_a_keyword_wins(
    model: Model, settings: Settings, keywords: dict[str, int], clusters: int, bots_ran: int
) -> None:
    settings = msgspec.structs.replace(settings, model=model)
    found = compute_consensus(APART, settings, **keywords)  # type: ignore[arg-type]
    assert (len(found), found[0].bots_ran, found[0].model) == (clusters, bots_ran, model)


def test_the_settings_model_is_the_model() -> None:
    [found] = compute_consensus(APART[:1], Settings(model="agreement"))
    assert found.model == "agreement"
    [found] = compute_consensus(APART[:1], Settings(model="agreement"), model="reliability")
    assert found.model == "reliability"
