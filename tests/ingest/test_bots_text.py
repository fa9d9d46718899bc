"""Shared bot-comment helpers: markup to plain text, titles, fences, spans, keyword categories."""

from __future__ import annotations

import html
import itertools

import pytest

from review_quorum.ingest.bots import (
    BOT_NAMES,
    BY_NAME,
    NAMED_ONLY,
    PARSERS,
    normalise_login,
    parser_for,
)
from review_quorum.ingest.bots.keywords import (
    FAIR,
    STRONG,
    WEAK,
    Guess,
    guess,
    guess_category,
    refine,
)
from review_quorum.ingest.bots.text import (
    TITLE_LIMIT,
    bare_label,
    bold_title,
    first_sentence,
    layout,
    line_span,
    lines_of,
    paragraphs,
    plain,
    short_title,
    strip_html_comments,
    suggestion,
    summary_text,
    unescape,
    unquote,
)
from review_quorum.ingest.categories import CATEGORIES


@pytest.mark.parametrize(
    ("markup", "expected"),
    [
        ("**Bold** and _italic_ and *star*", "Bold and italic and star"),
        ("keep `__init__` and snake_case_name", "keep __init__ and snake_case_name"),
        ("a [link](https://example.com/x) and ![alt](https://e.com/i.svg)", "a link and alt"),
        ("<s>struck</s> <code>code</code><br>next", "struck code next"),
        ("generic Vec<T> stays, &lt;id&gt; unescapes", "generic Vec<T> stays, <id> unescapes"),
        ("before <!-- hidden --> after", "before after"),
        ("`**not bold**` in code", "**not bold** in code"),
        ("line one\n  line two", "line one line two"),
        ("unclosed <!-- comment runs to the end", "unclosed"),
    ],
)
def test_plain(markup: str, expected: str) -> None:
    assert plain(markup) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Stability & Availability",
        "a && b, a &; b, &\tx, &\nx, &\fx, &<b>",
        "&lt;id&gt; &amp;amp; &#60; &#x3C; &#X3c &#; &#x; &lt &notit; &unknown; &",
        "&\rx &é &1 &# &#0 &#xd800; &AMP &copy2",
    ],
)
def test_unescape_is_html_unescape(text: str) -> None:
    assert unescape(text) == html.unescape(text)


def test_unescape_agrees_with_html_unescape_after_every_character() -> None:
    # an ampersand followed by each character, and by each pair of a few: the check
    # that skips loading `html` must never skip a reference it would have replaced
    after = [chr(code) for code in range(128)] + ["é", "\u00a0", "\u2028"]
    for character in after:
        text = f"x &{character}lt; &{character}"
        assert unescape(text) == html.unescape(text), repr(text)
    for first, second in itertools.product("#xX3;a <&\t", repeat=2):
        text = f"&{first}{second}3c;"
        assert unescape(text) == html.unescape(text), repr(text)


def test_strip_html_comments_keeps_text_between_comments() -> None:
    assert strip_html_comments("a<!-- x -->b<!-- y -->c") == "abc"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("First one. Second one.", "First one."),
        (
            "Use a helper (e.g. parse_amount) here. Then test.",
            "Use a helper (e.g. parse_amount) here.",
        ),
        ("Counts are now 8. Update the table.", "Counts are now 8."),
        ("Ask why? Then act.", "Ask why?"),
        ("config.go keeps working. Next.", "config.go keeps working."),
        ("文が一つ。二つ目。", "文が一つ。"),
        ("no end at all", "no end at all"),
    ],
)
def test_first_sentence(text: str, expected: str) -> None:
    assert first_sentence(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Close the cursor.", "Close the cursor"),
        ("Wait...", "Wait..."),
        ("🧹 Sort the imports", "Sort the imports"),
        ("⚠️ Check this", "Check this"),
        ("  spaced  ", "spaced"),
    ],
)
def test_short_title(text: str, expected: str) -> None:
    assert short_title(text) == expected


def test_short_title_clamps_at_a_word_boundary() -> None:
    title = short_title("word " * 100)
    assert len(title) <= TITLE_LIMIT
    assert title.endswith("word…")


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("**Title here.** then text", "Title here"),
        ("  **Indented title**", "Indented title"),
        ("**Reachability:** External", None),
        ("**Label (CWE-78):** text", None),
        ("**Remediation**: do this", None),
        ("plain text", None),
        ("****", None),
        ("**unclosed", None),
    ],
)
def test_bold_title(line: str, expected: str | None) -> None:
    assert bold_title(line) == expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("> quoted", "quoted"),
        ("> > nested", "nested"),
        (">   indented code", "  indented code"),
        ("  not quoted", "  not quoted"),
        (">", ""),
        (" > > spaced", "spaced"),
    ],
)
def test_unquote(line: str, expected: str) -> None:
    assert unquote(line) == expected


def test_layout_separates_prose_fences_and_details() -> None:
    body = "\n".join(
        [
            "Intro line.",
            "```python",
            "code()",
            "```",
            "After the fence.",
            "<details>",
            "<summary>🐛 Proposed fix</summary>",
            "hidden prose",
            "```diff",
            "-a",
            "+b",
            "```",
            "</details>",
            "Tail.",
            "~~~",
            "unclosed tilde fence",
        ]
    )
    shape = layout(lines_of(body))
    assert list(paragraphs(shape.prose)) == ["Intro line.", "After the fence.", "Tail."]
    assert [(fence.info, fence.body, fence.context) for fence in shape.fences] == [
        ("python", "code()", "Intro line."),
        ("diff", "-a\n+b", "🐛 Proposed fix"),
        ("", "unclosed tilde fence", "Tail."),
    ]
    assert suggestion(shape.fences) == ""
    assert suggestion(shape.fences, "fix") == "-a\n+b"


def test_suggestion_fence_wins_over_fix_blocks() -> None:
    body = "<details>\n<summary>Proposed fix</summary>\n```diff\n-x\n```\n</details>\n"
    body += "```suggestion\nnew line\n```"
    assert suggestion(layout(lines_of(body)).fences, "fix") == "new line"


@pytest.mark.parametrize(
    ("start", "end", "expected"),
    [
        ("10", "14", (10, 14)),
        ("10", "10", (10, None)),
        ("14", "10", (14, None)),
        ("0", "3", (None, None)),
        ("x", None, (None, None)),
        (7, None, (7, None)),
        (True, None, (None, None)),
        ("1234567890", None, (None, None)),
    ],
)
def test_line_span(
    start: str | int | None, end: str | int | None, expected: tuple[int | None, int | None]
) -> None:
    assert line_span(start, end) == expected


@pytest.mark.parametrize(
    ("segment", "expected"),
    [
        ("_⚠️ Potential issue_", "potential issue"),
        (" _:hammer_and_wrench: Refactor suggestion_ ", "refactor suggestion"),
        ("_🟠  Major_", "major"),
        ("**plain**", "plain"),
    ],
)
def test_bare_label(segment: str, expected: str) -> None:
    assert bare_label(segment) == expected


def test_summary_text_reads_one_line_summaries_only() -> None:
    assert summary_text("<details><summary>📝 <b>Committable</b> suggestion</summary>") == (
        "📝 Committable suggestion"
    )
    assert summary_text("no summary here") is None
    assert summary_text("<summary>unclosed") is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("SQL injection in the query builder", "security"),
        ("A race condition on the counter", "concurrency"),
        ("The file handle is not closed on error", "resource_leak"),
        ("Partial writes corrupt the ledger without a transaction", "data_integrity"),
        ("The exception is swallowed", "error_handling"),
        ("Quadratic loop makes this slow", "performance"),
        ("Add a test for the empty case", "testing"),
        ("Fix the typo in the docstring", "documentation"),
        ("Returns the wrong total when null", "logic_error"),
        ("Rename this and remove unused imports", "maintainability"),
        ("Highlight the header in blue", "other"),
        ("Deadlocked workers and a vulnerability", "security"),
    ],
)
def test_guess_category(text: str, expected: str) -> None:
    assert guess_category(text) == expected


@pytest.mark.parametrize(
    ("text", "category", "certainty"),
    [
        ("SQL injection in the query builder", "security", STRONG),
        ("The hard-coded index breaks when a column is added", "maintainability", STRONG),
        ("A hard-coded password in the settings", "security", WEAK),
        ("Unused import, redundant and duplicated code", "maintainability", FAIR),
        ("The test is wrong", "logic_error", WEAK),
        ("Highlight the header", "other", 0.0),
        ("write_atomic is called twice", "other", 0.0),
    ],
)
def test_guess_carries_how_sure_it_is(text: str, category: str, certainty: float) -> None:
    assert guess(text) == Guess(category, certainty)


@pytest.mark.parametrize(
    ("stated", "text", "expected"),
    [
        ("security", "a typo", Guess("security", 1.0)),
        ("logic_error", "SQL injection through the id", Guess("security", STRONG)),
        ("logic_error", "the credentials are loaded late", Guess("logic_error", 1.0)),
        ("other", "a typo in the docstring", Guess("documentation", FAIR)),
        ("other", "nothing to go on", Guess("other", 0.0)),
    ],
)
def test_refine_keeps_a_stated_category_unless_the_words_are_sure(
    stated: str, text: str, expected: Guess
) -> None:
    assert refine(stated, text) == expected


def test_every_keyword_category_is_in_the_shared_vocabulary() -> None:
    from review_quorum.ingest.bots import keywords

    used = set(keywords._WORDS.values()) | set(keywords._PHRASES.values())
    used |= {category for _, category in keywords._STEMS}
    assert used <= set(CATEGORIES)


@pytest.mark.parametrize(
    ("login", "bot"),
    [
        ("coderabbitai[bot]", "coderabbit"),
        ("coderabbitai", "coderabbit"),
        ("Copilot", "copilot"),
        ("copilot-pull-request-reviewer[bot]", "copilot"),
        ("copilot-pull-request-reviewer", "copilot"),
        ("sourcery-ai[bot]", "sourcery"),
        ("gemini-code-assist[bot]", "gemini"),
        ("gemini-code-assist", "gemini"),
        ("qodo-code-review[bot]", "qodo"),
        ("qodo-merge-pro[bot]", "qodo"),
        ("github-advanced-security[bot]", "github-advanced-security"),
        ("github-advanced-security", "github-advanced-security"),
        ("cursor[bot]", "cursor"),
        ("greptile-apps[bot]", "greptile"),
        ("chatgpt-codex-connector[bot]", "codex"),
        ("chatgpt-codex-connector", "codex"),
        ("claude[bot]", "claude"),
        ("devin-ai-integration[bot]", "devin"),
        ("augmentcode[bot]", "augment"),
        ("cubic-dev-ai[bot]", "cubic"),
        ("codeant-ai", "codeant"),
        ("macroscopeapp[bot]", "macroscope"),
        ("codoki-pr-intelligence[bot]", "codoki"),
        ("sonarqubecloud", "sonarqube-cloud"),
        ("codemetrics-ai[bot]", "codemetrics"),
    ],
)
def test_parser_for_known_logins(login: str, bot: str) -> None:
    parser = parser_for(login)
    assert parser is not None
    assert parser.name == bot


@pytest.mark.parametrize(
    "login", ["octocat", "github-code-quality[bot]", "coderabbit", "copilot-bot", "", "dependabot"]
)
def test_parser_for_unknown_logins(login: str) -> None:
    assert parser_for(login) is None


def test_registry_keys_are_normalised_and_cover_every_bot_name() -> None:
    assert all(normalise_login(key) == key for key in PARSERS)
    by_login = {parser.name for parser in PARSERS.values()}
    assert by_login | set(NAMED_ONLY) == set(BOT_NAMES) == set(BY_NAME)
    assert not by_login & set(NAMED_ONLY)  # Kodus has no login of its own
    assert all(BY_NAME[name].name == name for name in BOT_NAMES)


def test_the_documented_bot_table_is_the_registry() -> None:
    from conftest import REPO_ROOT

    doc = (REPO_ROOT / "docs" / "bot-comments.md").read_text(encoding="utf-8")
    table = doc[doc.index("| bot name in findings |") : doc.index("Logins match exactly")]
    rows = [line.split("|") for line in table.splitlines()[2:] if line.startswith("|")]
    documented = {row[1].strip().strip("`"): row[2] for row in rows}
    assert set(documented) == set(BOT_NAMES)
    for login, parser in PARSERS.items():
        assert f"`{login}" in documented[parser.name].lower(), login
