"""The stats page in a real headless Chromium: it renders, its charts are there, and it fetches
nothing. Chromium's network log tells which requests a page made (their initiator is the
page's origin, ``null`` for a file); a control page proves the log catches a fetch and that
the page's Content-Security-Policy stops one.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from review_quorum.history.html import CSP, render_html
from review_quorum.history.rates import rate
from review_quorum.history.stats import Stats, Tally

FLAGS = [
    "--headless",
    "--no-sandbox",  # Chromium refuses to run as root otherwise
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
TRIPWIRE = "http://127.0.0.1:9/tripwire.png"


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed: CI must install it (see .ci/services.sh)")
        pytest.skip("chromium is not installed")
    return found


def browse(page: Path, tmp_path: Path, *extra: str) -> tuple[str, list[str]]:
    """The DOM Chromium built from `page`, and the URLs the page itself asked for."""
    log = tmp_path / f"{page.stem}.netlog.json"
    command = [chromium(), *FLAGS, f"--user-data-dir={tmp_path / 'profile'}"]
    command += [f"--log-net-log={log}", *extra, page.as_uri()]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)
    events = json.loads(log.read_text(encoding="utf-8"))
    start = events["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    fetched = [
        event["params"]["url"]
        for event in events["events"]
        if event["type"] == start and event.get("params", {}).get("initiator") == "null"
    ]
    return done.stdout, fetched


def scene_stats() -> Stats:
    stats = Stats(pull_requests=5)
    stats.bots = {
        "sourcery": Tally(3, 3, 0, 2, 0, 1),
        "gemini <script>": Tally(3, 3, 0, 0, 3, 0),
        "copilot": Tally(3, 3, 2, 2, 1, 0),
    }
    stats.rules = {(bot, ""): tally for bot, tally in stats.bots.items()}
    stats.months = {
        ("sourcery", "2026-01"): Tally(1, 1, 0, 1, 0, 0),
        ("copilot", "2026-01"): Tally(1, 1, 1, 1, 0, 0),
        ("copilot", "2026-02"): Tally(2, 2, 1, 1, 1, 0),
    }
    rate(stats)  # as `quorum stats` does
    return stats


def test_the_page_renders_with_its_charts_and_fetches_nothing(tmp_path: Path) -> None:
    page = tmp_path / "stats.html"
    page.write_text(render_html(scene_stats()), encoding="utf-8")
    assert not re.search(r"(?:src|href)\s*=|url\(|https?://|//[a-z]", page.read_text("utf-8"))
    dom, fetched = browse(page, tmp_path, "--dump-dom")
    assert fetched == []
    charts = re.findall(r'<svg class="chart" data-chart="([a-z]+)"', dom)
    assert charts == ["addressed", "outcomes", "duplicates", "trend"]
    assert len(re.findall(r'<rect class="bar', dom)) == 2 * 3  # two bar charts, zeros too
    assert '<rect class="bar flagged"' in dom
    assert '<tr class="ignored"><td>gemini &lt;script&gt; &lt;&lt; mostly ignored</td>' in dom
    assert "<script>" not in dom
    assert dom.count("<polyline") == 1  # copilot has two months; sourcery one point


def test_the_page_draws_to_a_full_screenshot(tmp_path: Path) -> None:
    page = tmp_path / "stats.html"
    page.write_text(render_html(scene_stats()), encoding="utf-8")
    shot = tmp_path / "stats.png"
    _, fetched = browse(page, tmp_path, f"--screenshot={shot}", "--window-size=1000,1600")
    assert fetched == []
    header = shot.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", header[16:24]) == (1000, 1600)
    assert shot.stat().st_size > 20_000  # charts and tables, not a blank page


def test_the_network_log_catches_a_fetch_and_the_policy_stops_it(tmp_path: Path) -> None:
    open_page = tmp_path / "open.html"
    open_page.write_text(f'<!DOCTYPE html><img src="{TRIPWIRE}">', encoding="utf-8")
    closed = tmp_path / "closed.html"
    policy = f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
    closed.write_text(f'<!DOCTYPE html><head>{policy}</head><img src="{TRIPWIRE}">', "utf-8")
    assert browse(open_page, tmp_path, "--dump-dom")[1] == [TRIPWIRE]
    assert browse(closed, tmp_path, "--dump-dom")[1] == []


def test_the_page_shows_what_each_bot_is_worth_and_its_sources_table(tmp_path: Path) -> None:
    stats = scene_stats()
    stats.bots["sourcery"].only_addressed = 2
    stats.bots["sourcery"].pulls = 3
    stats.costs = {"sourcery": 0.5}
    page = tmp_path / "stats.html"
    page.write_text(render_html(stats), encoding="utf-8")
    dom, fetched = browse(page, tmp_path, "--dump-dom")
    assert fetched == []
    assert re.search(r'<table id="sources">.*<th>reliability</th>', dom)
    assert "<th>only it addressed</th>" in dom and "<th>cost/addressed</th>" in dom
    # sourcery: 3 findings, none a duplicate, 2 addressed of the 4 every bot had; 0.5 x 3 / 2
    assert (
        "<tr><td>sourcery</td><td>3</td><td>2</td><td>2 addressed lost (50%)</td><td>0.75</td></tr>"
    ) in dom
    assert "<td>gemini &lt;script&gt;</td><td>3</td><td>0</td>" in dom
    # the reliability calibrate gives copilot (the shipped profile's 0.294, moved by 2 of 3)
    # with its interval, thin at 3 outcomes
    reliability = stats.bots["copilot"].reliability
    assert reliability is not None
    cell = f"{reliability.estimate:.2f} [{reliability.low:.2f}-{reliability.high:.2f}] (thin)"
    assert re.search(rf"<td>copilot</td>(<td>[^<]*</td>)*<td>{re.escape(cell)}</td><td>3</td>", dom)


def test_charts_with_nothing_to_draw_say_why(tmp_path: Path) -> None:
    stats = Stats(pull_requests=2)
    stats.bots = {"sourcery": Tally(2, 2, 0, 0, 0, 2), "copilot": Tally(1, 1, 0, 0, 0, 1)}
    stats.months = {("sourcery", "2026-01"): Tally(2, 2, 0, 0, 0, 2)}
    page = tmp_path / "stats.html"
    page.write_text(render_html(stats), encoding="utf-8")
    dom, fetched = browse(page, tmp_path, "--dump-dom")
    assert fetched == []
    # nothing decided: no rate and no trend to plot, and the page says where outcomes come from
    charts = re.findall(r'<svg class="chart" data-chart="([a-z]+)"', dom)
    assert charts == ["outcomes", "duplicates"]
    empty = re.findall(
        r'<p class="empty" data-chart="([a-z]+)">No outcomes yet: outcomes come '
        r"from <code>quorum history sync</code>",
        dom,
    )
    assert empty == ["addressed", "trend"]
    nothing = render_html(Stats())
    assert nothing.count('<p class="empty"') == 4 and '<svg class="chart"' not in nothing
    assert nothing.count("No findings stored") == 2


def test_a_screenshot_of_the_page_with_its_tables(tmp_path: Path) -> None:
    stats = scene_stats()
    stats.bots["sourcery"].only_addressed = 2
    stats.bots["sourcery"].pulls = 3
    stats.costs = {"sourcery": 0.5}
    page = tmp_path / "stats.html"
    page.write_text(render_html(stats), encoding="utf-8")
    shot = Path(os.environ.get("QUORUM_STATS_SCREENSHOT") or tmp_path / "stats.png")
    _, fetched = browse(page, tmp_path, f"--screenshot={shot}", "--window-size=1100,2600")
    assert fetched == []
    header = shot.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", header[16:24]) == (1100, 2600)
