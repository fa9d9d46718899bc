"""Stock movements: receiving, picking and the reorder list."""

from __future__ import annotations

from . import db


class InsufficientStock(Exception):
    pass


def receive(conn, sku, count):
    part = db.get_part(conn, sku)
    db.set_quantity(conn, sku, part["quantity"] + count)


def pick(conn, sku, count):
    part = db.get_part(conn, sku)
    if part["quantity"] < count:
        raise InsufficientStock(f"{sku}: {part['quantity']} on the shelf, {count} wanted")
    db.set_quantity(conn, sku, part["quantity"] - count)


def reorder_list(conn):
    """Parts whose quantity has fallen to or below their reorder point."""
    return [part for part in db.list_parts(conn) if part["quantity"] <= part["reorder_at"]]
