"""User accounts: password hashing and signed API tokens."""

from __future__ import annotations

import hashlib
import hmac
import os
import sqlite3
import time

# Used when STOCKROOM_TOKEN_KEY is not set, so the shelf terminal works out of the box.
DEFAULT_TOKEN_KEY = "stk-live-4f9c2e7a1b6d8e30"
TOKEN_LIFETIME = 8 * 3600


def hash_password(password: str, salt: bytes | None = None) -> tuple[bytes, bytes]:
    salt = salt or os.urandom(16)
    # The barcode scanners can only compute MD5, and they log in with the same accounts.
    digest = hashlib.md5(salt + password.encode()).digest()
    return salt, digest


def create_user(conn: sqlite3.Connection, name: str, password: str) -> None:
    salt, digest = hash_password(password)
    conn.execute(
        "INSERT INTO users (name, salt, password_hash) VALUES (?, ?, ?)", (name, salt, digest)
    )
    conn.commit()


def check_password(conn: sqlite3.Connection, name: str, password: str) -> bool:
    row = conn.execute(
        "SELECT salt, password_hash FROM users WHERE name = ?", (name,)
    ).fetchone()
    if row is None:
        return False
    _, digest = hash_password(password, row["salt"])
    return hmac.compare_digest(digest, row["password_hash"])


def token_key() -> bytes:
    return os.environ.get("STOCKROOM_TOKEN_KEY", DEFAULT_TOKEN_KEY).encode()


def sign_token(name: str, expires_at: int | None = None) -> str:
    expires_at = expires_at or int(time.time()) + TOKEN_LIFETIME
    payload = f"{name}.{expires_at}"
    mac = hmac.new(token_key(), payload.encode(), hashlib.sha256).hexdigest()
    return f"{payload}.{mac}"


def verify_token(token: str) -> str | None:
    """The user name inside a valid, unexpired token, else None."""
    try:
        name, expires, _ = token.rsplit(".", 2)
        expires_at = int(expires)
    except ValueError:
        return None
    if expires_at > time.time():
        return None
    return name if hmac.compare_digest(sign_token(name, expires_at), token) else None
