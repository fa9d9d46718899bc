"""Command line entry point: `python -m app.cli <command>`."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from . import auth, db, export, stock


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="stockroom")
    parser.add_argument("--db", default="stockroom.sqlite3")
    commands = parser.add_subparsers(dest="command", required=True)
    add = commands.add_parser("add")
    add.add_argument("sku")
    add.add_argument("name")
    add.add_argument("--bin", default="")
    add.add_argument("--quantity", type=int, default=0)
    add.add_argument("--reorder-at", type=int, default=0)
    listing = commands.add_parser("list")
    listing.add_argument("--page", type=int, default=1)
    search = commands.add_parser("search")
    search.add_argument("term")
    search.add_argument("--sort", default="sku")
    commands.add_parser("reorder")
    csv_cmd = commands.add_parser("export")
    csv_cmd.add_argument("dest")
    report = commands.add_parser("report")
    report.add_argument("dest")
    report.add_argument("--title", default="Shelf report")
    archive = commands.add_parser("archive")
    archive.add_argument("directory")
    archive.add_argument("--label", default="exports")
    token = commands.add_parser("token")
    token.add_argument("user")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    conn = db.connect(args.db)
    if args.command == "add":
        db.add_part(conn, args.sku, args.name, args.bin, args.quantity, args.reorder_at)
    elif args.command in ("list", "search"):
        if args.command == "list":
            parts = db.list_parts(conn, page=args.page)
        else:
            parts = db.search_parts(conn, args.term, order_by=args.sort)
        for part in parts:
            print(f"{part['sku']:<12} {part['quantity']:>5}  {part['name']}")
    elif args.command == "reorder":
        for part in stock.reorder_list(conn):
            print(part["sku"])
    elif args.command == "export":
        count = export.export_csv(db.list_parts(conn), args.dest)
        print(f"exported {count} parts to {args.dest}")
    elif args.command == "report":
        count = export.export_report(db.list_parts(conn), args.dest, args.title)
        print(f"wrote {count} parts to {args.dest}")
    elif args.command == "archive":
        print(export.archive_exports(args.directory, args.label))
    elif args.command == "token":
        print(auth.sign_token(args.user))
    return 0


if __name__ == "__main__":
    sys.exit(main())
