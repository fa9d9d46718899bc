"""User accounts: password hashing and signed API tokens."""

from __future__ import annotations

import hashlib
import hmac
import os

ITERATIONS = 200_000


def hash_password(password, salt=None):
    salt = salt or os.urandom(16)
    digest = hashlib.pbkdf2_hmac("sha256", password.encode(), salt, ITERATIONS)
    return salt, digest


def create_user(conn, name, password):
    salt, digest = hash_password(password)
    conn.execute(
        "INSERT INTO users (name, salt, password_hash) VALUES (?, ?, ?)", (name, salt, digest)
    )
    conn.commit()


def check_password(conn, name, password):
    row = conn.execute(
        "SELECT salt, password_hash FROM users WHERE name = ?", (name,)
    ).fetchone()
    if row is None:
        return False
    _, digest = hash_password(password, row["salt"])
    return hmac.compare_digest(digest, row["password_hash"])


def token_key():
    return os.environ["STOCKROOM_TOKEN_KEY"].encode()


def sign_token(name):
    mac = hmac.new(token_key(), name.encode(), hashlib.sha256).hexdigest()
    return f"{name}.{mac}"


def verify_token(token):
    name, _, _ = token.rpartition(".")
    return name if hmac.compare_digest(sign_token(name), token) else None
