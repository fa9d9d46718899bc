"""The verifier's answers kept in the history database (`quorum review --db`).

With `--db`, the verifier's cache lives here rather than in a file beside the plan:
`verifier_answers` maps the SHA-256 request key to the answer as JSON text. Written in one
transaction; an answer for a key already kept replaces it.
"""

from __future__ import annotations

from collections.abc import Mapping

from review_quorum.history.database import Database
from review_quorum.history.schema import utc_now


class AnswerStore:
    """Answers by request key, in one open history database."""

    def __init__(self, database: Database) -> None:
        self.database = database

    def read(self, key: str) -> bytes | None:
        value = self.database.value(
            "SELECT answer FROM verifier_answers WHERE request_key = ?", (key,)
        )
        return value.encode("utf-8") if isinstance(value, str) else None

    def write(self, entries: Mapping[str, bytes]) -> None:
        now = utc_now()
        with self.database.transaction():
            self.database.execute_many(
                "INSERT INTO verifier_answers (request_key, answer, stored_at) VALUES (?, ?, ?)"
                " ON CONFLICT (request_key) DO UPDATE SET answer = excluded.answer,"
                " stored_at = excluded.stored_at",
                [(key, data.decode("utf-8"), now) for key, data in sorted(entries.items())],
            )
