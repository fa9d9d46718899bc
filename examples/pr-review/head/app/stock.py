"""Stock movements: receiving, picking and the reorder list."""

from __future__ import annotations

import sqlite3

from . import db


class InsufficientStock(Exception):
    pass


def _require(conn: sqlite3.Connection, sku: str) -> sqlite3.Row:
    part = db.get_part(conn, sku)
    if part is None:
        raise KeyError(f"unknown SKU {sku!r}")
    return part


def receive(conn: sqlite3.Connection, sku: str, count: int) -> None:
    if count <= 0:
        raise ValueError("count must be positive")
    part = _require(conn, sku)
    db.set_quantity(conn, sku, part["quantity"] + count)


def pick(conn: sqlite3.Connection, sku: str, count: int) -> None:
    if count <= 0:
        raise ValueError("count must be positive")
    part = _require(conn, sku)
    if part["quantity"] < count:
        raise InsufficientStock(f"{sku}: {part['quantity']} on the shelf, {count} wanted")
    db.set_quantity(conn, sku, part["quantity"] - count)


def reorder_list(conn: sqlite3.Connection) -> list[sqlite3.Row]:
    """Parts whose quantity has fallen to or below their reorder point."""
    parts = db.list_parts(conn, per_page=10_000)
    return [part for part in parts if part["quantity"] <= part["reorder_at"]]
