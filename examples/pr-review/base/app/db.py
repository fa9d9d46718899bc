"""SQLite storage for parts and user accounts."""

from __future__ import annotations

import sqlite3
from pathlib import Path

SCHEMA = """
CREATE TABLE IF NOT EXISTS parts (
    id INTEGER PRIMARY KEY,
    sku TEXT UNIQUE NOT NULL,
    name TEXT NOT NULL,
    bin TEXT NOT NULL DEFAULT '',
    quantity INTEGER NOT NULL DEFAULT 0,
    reorder_at INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS users (
    name TEXT PRIMARY KEY,
    salt BLOB NOT NULL,
    password_hash BLOB NOT NULL
);
"""


def connect(path: str | Path) -> sqlite3.Connection:
    conn = sqlite3.connect(str(path))
    conn.row_factory = sqlite3.Row
    conn.executescript(SCHEMA)
    return conn


def add_part(conn, sku, name, bin_label="", quantity=0, reorder_at=0):
    cur = conn.execute(
        "INSERT INTO parts (sku, name, bin, quantity, reorder_at) VALUES (?, ?, ?, ?, ?)",
        (sku, name, bin_label, quantity, reorder_at),
    )
    conn.commit()
    return cur.lastrowid


def get_part(conn, sku):
    return conn.execute("SELECT * FROM parts WHERE sku = ?", (sku,)).fetchone()


def list_parts(conn):
    return conn.execute("SELECT * FROM parts ORDER BY sku").fetchall()


def set_quantity(conn, sku, quantity):
    conn.execute("UPDATE parts SET quantity = ? WHERE sku = ?", (quantity, sku))
    conn.commit()
