"""`quorum stats` and `quorum calibrate` over the synced scene, on both backends."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from msgspec.structs import replace

from github.github_support import TOKEN
from history import history_scene
from review_quorum.cli import main
from review_quorum.history import open_history
from review_quorum.history.outcomes import DEFAULT_RULE
from review_quorum.history.rates import calibrate, rate
from review_quorum.history.report import render_csv, render_text, stats_data
from review_quorum.history.show import Filters
from review_quorum.history.stats import Agreement, Stats, Tally, compute_stats
from review_quorum.history.sync import sync
from review_quorum.scoring.fitting import beta_interval
from review_quorum.scoring.profile import Profile

TEXT = """\
5 pull request(s); rate = addressed / (addressed + dismissed)

Bots
  bot         comments  findings      dup  addressed  dismissed  unknown  rate
  sourcery           3         3   0 (0%)          2          0        1  100%
  copilot            3         3  2 (67%)          2          1        0   67%
  coderabbit         4         4  2 (50%)          1          2        1   33%
  gemini             3         3   0 (0%)          0          3        0    0%  << mostly ignored

Sources, runs and reliability (95% interval)
  bot         runs    from  posted  kept  dropped  went away              reliability  n
  sourcery       0  sync:3       0     0        0          0  0.59 [0.26-0.89] (thin)  2
  copilot        0  sync:3       0     0        0          0  0.42 [0.14-0.74] (thin)  3
  coderabbit     0  sync:4       0     0        0          0  0.29 [0.06-0.61] (thin)  3
  gemini         0  sync:3       0     0        0          0  0.21 [0.03-0.52] (thin)  3

What each bot is worth
  bot         only it  only it addressed                 without it  cost/addressed
  sourcery          3                  2     2 addressed lost (40%)               -
  copilot           1                  1     1 addressed lost (20%)               -
  coderabbit        2                  0  no addressed finding lost               -
  gemini            3                  0  no addressed finding lost               -

Rules
  bot rule                 comments  findings      dup  addressed  dismissed  unknown  rate
  coderabbit (no rule id)         4         4  2 (50%)          1          2        1   33%
  copilot (no rule id)            3         3  2 (67%)          2          1        0   67%
  gemini (no rule id)             3         3   0 (0%)          0          3        0    0%
  sourcery (no rule id)           3         3   0 (0%)          2          0        1  100%

Agreement
  bots                  shared  jaccard
  coderabbit + copilot       2      40%

Addressed rate by month
  bot         2026-01  2026-02  2026-03
  sourcery       100%     100%        -
  copilot        100%      50%        -
  coderabbit     100%       0%        -
  gemini           0%       0%        -
"""


@pytest.fixture
def synced(db_target: str) -> Iterator[str]:
    database = open_history(db_target)
    try:
        sync(database, history_scene.build().client(TOKEN), "octo-org", "widgets")
    finally:
        database.close()
    yield db_target


def stats_of(target: str, filters: Filters | None = None) -> Stats:
    database = open_history(target)
    try:
        stats = compute_stats(database, DEFAULT_RULE, filters)
    finally:
        database.close()
    rate(stats)  # as `quorum stats` does: what calibrate gives each source
    return stats


def test_stats_show_the_expected_rates(synced: str) -> None:
    assert render_text(stats_of(synced)) == TEXT


def test_csv_has_a_row_per_bot_rule_and_month(synced: str) -> None:
    rows = list(csv.DictReader(io.StringIO(render_csv(stats_of(synced)))))
    bots = [(r["bot"], r["addressed_rate"]) for r in rows if r["scope"] == "bot"]
    assert bots == [
        ("sourcery", "1.0000"),
        ("copilot", "0.6667"),
        ("coderabbit", "0.3333"),
        ("gemini", "0.0000"),
    ]
    month = next(
        r for r in rows if (r["scope"], r["bot"], r["month"]) == ("month", "copilot", "2026-02")
    )
    assert (month["comments"], month["addressed"], month["dismissed"]) == ("2", "1", "1")
    assert sum(r["scope"] == "rule" for r in rows) == 4


def test_filters_narrow_the_counts(synced: str) -> None:
    later = stats_of(synced, Filters(since="2026-02-15T00:00:00Z"))
    assert sorted(later.bots) == ["coderabbit", "copilot", "gemini", "sourcery"]
    assert later.bots["coderabbit"].findings == 2  # pull requests 3 and 4
    assert later.pull_requests == 3
    one = stats_of(synced, Filters(bot="gemini"))
    assert list(one.bots) == ["gemini"] and one.agreements == []


def test_calibrate_ranks_the_bots_by_what_reviewers_did(synced: str) -> None:
    # over no base profile: each addressed rate shrunk toward the mean bot's (5 of 11)
    profile = calibrate(stats_of(synced), origin="scene", base=Profile())
    ranked = [(s.bot, s.rule, s.reliability, s.true, s.false) for s in profile.sources]
    assert ranked == [
        ("sourcery", None, 0.5948, 2, 0),
        ("copilot", None, 0.527, 2, 1),
        ("coderabbit", None, 0.4131, 1, 2),
        ("gemini", None, 0.2992, 0, 3),
    ]
    assert Profile.from_json(profile.to_json(), "calibrated").sources == profile.sources
    assert profile.origin == (
        "scene: 5 pull request(s), outcomes of synced bot comments, recorded runs and triage"
    )


def test_calibrate_shrinks_the_bots_the_shipped_profile_knows_toward_its_figures(
    synced: str,
) -> None:
    shipped = Profile.default().lookup()
    profile = calibrate(stats_of(synced), origin="scene")
    learned = {s.bot: s for s in profile.sources}
    for bot in ("copilot", "coderabbit", "gemini"):  # measured on review-bots-dev
        rate = learned[bot].true / (learned[bot].true + learned[bot].false)
        low, high = sorted((rate, shipped[bot, None].reliability))
        assert low < learned[bot].reliability < high, bot
    assert [(s.bot, s.reliability) for s in profile.sources] == [
        ("sourcery", 0.5948),  # unknown to the shipped profile: toward the mean bot
        ("copilot", 0.4215),
        ("coderabbit", 0.2933),
        ("gemini", 0.2133),
    ]


@pytest.fixture
def cli_history(synced: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.chdir(tmp_path)
    return synced


def test_stats_command_writes_text_json_csv_and_html(
    cli_history: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["stats", "--db", cli_history]) == 0
    assert capsys.readouterr().out == TEXT
    page = tmp_path / "stats.html"
    assert main(["stats", "--db", cli_history, "--format", "json", "--html", str(page)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [(b["bot"], b["mostly_ignored"]) for b in data["bots"]] == [
        ("sourcery", False),
        ("copilot", False),
        ("coderabbit", False),
        ("gemini", True),
    ]
    assert data["agreement"] == [
        {"bot": "coderabbit", "other": "copilot", "shared": 2, "jaccard": 0.4}
    ]
    html = page.read_text(encoding="utf-8")
    assert html.count('<svg class="chart"') == 4
    assert main(["stats", "--db", cli_history, "--format", "csv", "--repo", "octo-org/other"]) == 0
    assert capsys.readouterr().out == (
        "scope,bot,rule,month,comments,findings,duplicates,addressed,dismissed,unknown,"
        "addressed_rate,went_away,runs,reliability,reliability_low,reliability_high,outcomes,"
        "only_it,only_it_addressed,cost_per_addressed\n"
    )


def test_stats_show_each_bot_at_the_reliability_calibrate_and_review_give_it(
    synced: str,
) -> None:
    stats = stats_of(synced)
    learned = {source.bot: source.reliability for source in calibrate(stats, origin="x").sources}
    shown = {bot: tally.reliability for bot, tally in stats.bots.items()}
    assert learned.keys() == shown.keys()
    for bot, reliability in shown.items():
        assert reliability is not None
        assert round(reliability.estimate, 4) == learned[bot]  # one estimator, not a Laplace rate
        assert 0.0 < reliability.low < reliability.estimate < reliability.high < 1.0


def test_a_source_without_decided_outcomes_shows_no_reliability() -> None:
    stats = Stats(pull_requests=1)
    stats.bots = {"sourcery": Tally(2, 2, 0, 1, 1, 0), "kodus": Tally(2, 2, 0, 0, 0, 2)}
    stats.rules = {("sourcery", "S1"): Tally(2, 2, 0, 1, 1, 0)}
    stats.months = {("sourcery", "2026-01"): Tally(2, 2, 0, 1, 1, 0)}
    rate(stats)
    sources = render_text(stats).split("Sources, runs and reliability")[1].splitlines()
    kodus = next(line for line in sources if line.strip().startswith("kodus")).split()
    assert kodus[-2:] == ["-", "0"]
    data = stats_data(stats)
    by_bot = {bot["bot"]: bot["reliability"] for bot in data["bots"]}
    assert by_bot["kodus"] == {"estimate": None, "interval": None, "outcomes": 0, "thin": True}
    assert by_bot["sourcery"]["estimate"] is not None and len(by_bot["sourcery"]["interval"]) == 2
    assert data["rules"][0]["reliability"]["estimate"] is not None
    assert data["months"][0]["reliability"]["estimate"] is None
    rows = {(r["scope"], r["bot"]): r for r in csv.DictReader(io.StringIO(render_csv(stats)))}
    cells = ("reliability", "reliability_low", "reliability_high")
    assert [rows[("bot", "kodus")][cell] for cell in cells] == ["", "", ""]
    assert all(rows[("bot", "sourcery")][cell] for cell in cells)


def test_a_posterior_interval_narrows_as_outcomes_accumulate() -> None:
    few = beta_interval(2 + 1.2, 1 + 1.8)
    many = beta_interval(200 + 1.2, 100 + 1.8)
    assert few[0] < many[0] < 2 / 3 < many[1] < few[1]
    assert beta_interval(1, 1) == pytest.approx((0.025, 0.975), abs=1e-4)  # uniform
    assert beta_interval(2, 2)[0] == pytest.approx(0.0943, abs=1e-4)
    assert beta_interval(0.5, 0.5)[0] == pytest.approx(0.00154, abs=1e-4)
    assert beta_interval(3.0, 0.0) == (1.0, 1.0) and beta_interval(0.0, 3.0) == (0.0, 0.0)
    # skewed and many-outcome posteriors (quantiles by numerical integration of the density)
    assert beta_interval(2, 5) == pytest.approx((0.04327, 0.64123), abs=2e-4)
    assert beta_interval(30, 70) == pytest.approx((0.21467, 0.39291), abs=2e-4)


def test_stats_shrink_a_bot_toward_the_bot_it_copies_as_calibrate_does() -> None:
    # two bots nothing is known of whose findings almost always coincide are one family:
    # each is shrunk toward the other's rate, in stats as in calibrate
    stats = Stats(pull_requests=12)
    stats.bots = {
        "echo-a": Tally(12, 12, 11, 2, 10, 0),
        "echo-b": Tally(12, 12, 11, 1, 11, 0),
        "kodus": Tally(12, 12, 0, 11, 1, 0),
        "tabby": Tally(6, 6, 0, 5, 1, 0),
    }
    stats.agreements = [Agreement("echo-a", "echo-b", 11, 0.95)]
    rate(stats)
    learned = {source.bot: source.reliability for source in calibrate(stats, origin="x").sources}
    alone = calibrate(replace(stats, agreements=[]), origin="x").sources
    assert {s.bot: s.reliability for s in alone}["echo-a"] != learned["echo-a"]
    for bot, tally in stats.bots.items():
        assert tally.reliability is not None
        assert round(tally.reliability.estimate, 4) == learned[bot]


def test_calibrate_command_writes_a_profile_review_can_read(
    cli_history: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "profile.json"
    assert main(["calibrate", "--db", cli_history, "-o", str(out), "--min-decided", "3"]) == 0
    document = json.loads(out.read_text(encoding="utf-8"))
    bots = [s["bot"] for s in document["sources"]]
    assert bots[:3] == ["copilot", "coderabbit", "gemini"]
    # the learned sources extend the shipped profile: its other sources follow
    assert len(bots) == 3 + len(Profile.default().sources) - 3
    assert "copilot: 0.294 -> 0.421 (+0.127, 3 decided)" in capsys.readouterr().err
    assert document["format"] == "review-quorum-profile"
    assert Profile.load(out).sources[0].true == 2


def test_an_empty_history_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    open_history(str(tmp_path / "empty.db")).close()
    assert main(["stats", "--db", str(tmp_path / "empty.db")]) == 0
    assert capsys.readouterr().out == (
        "No findings stored (record runs with --db, or run quorum history sync).\n"
    )


def test_review_with_db_weighs_each_bot_by_its_history(
    cli_history: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    findings = [
        {
            "bot": bot,
            "finding_id": bot,
            "severity": "medium",
            "category": "logic_error",
            "title": f"{bot} finding",
            "evidence": {"file": f"app/{bot}.py", "line": 3},
        }
        for bot in ("sourcery", "gemini", "newbot")
    ]
    inputs = tmp_path / "findings.json"
    inputs.write_text(json.dumps(findings), encoding="utf-8")
    plan = tmp_path / "plan.json"
    argv = ["review", str(inputs), "--model", "reliability", "--format", "json", "-o", str(plan)]
    argv += ["--db", cli_history, "--repo", "octo-org/widgets", "--pr", "9", "--bots", "3"]
    main([*argv, "--head-sha", "9" * 40])
    assert capsys.readouterr().err == (
        "quorum: reliability from the history: 4 source(s)\n"
        "quorum: history: recorded run 1 of octo-org/widgets#9 at 999999999999 (3 findings)\n"
    )
    members = {
        member["bot"]: member
        for finding in json.loads(plan.read_text(encoding="utf-8"))["findings"]
        for member in finding["members"]
    }
    shares = {
        share["source"]: (share["reliability"], share["origin"])
        for finding in json.loads(plan.read_text(encoding="utf-8"))["findings"]
        for share in finding.get("contributions", [])
    }
    assert set(members) == {"sourcery", "gemini", "newbot"}
    assert shares["sourcery"][0] == 0.5948 and "history: " in shares["sourcery"][1]
    assert shares["gemini"][0] == 0.2133
    assert "history" not in shares["newbot"][1]


def test_stats_say_what_each_bot_is_worth_and_what_an_addressed_finding_cost(
    cli_history: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / ".quorum.toml"
    config.write_text("[cost-per-run]\nsourcery = 0.5\ncopilot = 1.25\n", encoding="utf-8")
    assert main(["stats", "--db", cli_history, "--format", "json"]) == 0
    bots = {b["bot"]: b for b in json.loads(capsys.readouterr().out)["bots"]}
    # sourcery raised 3 findings nobody else did, 2 of them addressed: 2 of the 5 addressed
    assert bots["sourcery"]["only_it"] == {"findings": 3, "addressed": 2}
    assert bots["sourcery"]["without_it"] == {"addressed_lost": 2, "share_of_addressed": 0.4}
    # copilot: 2 of its 3 findings were duplicates of coderabbit's
    assert bots["copilot"]["only_it"] == {"findings": 1, "addressed": 1}
    assert bots["gemini"]["without_it"]["addressed_lost"] == 0
    # one review per pull request commented on, at the configured cost, per addressed finding
    assert bots["sourcery"]["cost_per_run"] == 0.5
    assert bots["sourcery"]["runs"] == 0  # synced only: no recorded run
    assert bots["sourcery"]["cost_per_addressed"] == pytest.approx(0.5 * 3 / 2)
    assert bots["copilot"]["cost_per_addressed"] == pytest.approx(1.25 * 3 / 2)
    assert bots["gemini"]["cost_per_addressed"] is None  # no cost configured
    assert main(["stats", "--db", cli_history]) == 0
    assert (
        "  sourcery          3                  2     2 addressed lost (40%)            0.75"
        in (capsys.readouterr().out)
    )


def test_a_negative_cost_per_run_is_a_config_error(
    cli_history: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / ".quorum.toml").write_text("[cost-per-run]\nsourcery = -1\n", encoding="utf-8")
    assert main(["stats", "--db", cli_history]) == 2
    err = capsys.readouterr().err
    assert "cost-per-run" in err and "sourcery: expected a number >= 0, not -1" in err
