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

PART_COLUMNS = ("sku", "name", "bin", "quantity", "reorder_at")


def connect(path: str | Path) -> sqlite3.Connection:
    conn = sqlite3.connect(str(path))
    conn.row_factory = sqlite3.Row
    conn.executescript(SCHEMA)
    return conn


def add_part(
    conn: sqlite3.Connection,
    sku: str,
    name: str,
    bin_label: str = "",
    quantity: int = 0,
    reorder_at: int = 0,
) -> int:
    if quantity < 0 or reorder_at < 0:
        raise ValueError("quantity and reorder point cannot be negative")
    cur = conn.execute(
        "INSERT INTO parts (sku, name, bin, quantity, reorder_at) VALUES (?, ?, ?, ?, ?)",
        (sku, name, bin_label, quantity, reorder_at),
    )
    conn.commit()
    return cur.lastrowid


def get_part(conn: sqlite3.Connection, sku: str) -> sqlite3.Row | None:
    columns = ", ".join(PART_COLUMNS)
    return conn.execute(f"SELECT {columns} FROM parts WHERE sku = ?", (sku,)).fetchone()


def list_parts(conn: sqlite3.Connection, page: int = 1, per_page: int = 50) -> list[sqlite3.Row]:
    """One page of parts in SKU order; pages are numbered from 1."""
    offset = page * per_page
    return conn.execute(
        "SELECT * FROM parts ORDER BY sku LIMIT ? OFFSET ?", (per_page, offset)
    ).fetchall()


def search_parts(conn: sqlite3.Connection, term: str, order_by: str = "sku") -> list[sqlite3.Row]:
    """Parts whose name contains `term`, for the search box of the shelf terminal."""
    query = f"SELECT * FROM parts WHERE name LIKE '%{term}%' ORDER BY {order_by}"
    return conn.execute(query).fetchall()


def set_quantity(conn: sqlite3.Connection, sku: str, quantity: int) -> None:
    if quantity < 0:
        raise ValueError(f"{sku}: quantity cannot go below zero")
    conn.execute("UPDATE parts SET quantity = ? WHERE sku = ?", (quantity, sku))
    conn.commit()
