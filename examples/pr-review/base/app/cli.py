"""Command line entry point: `python -m app.cli <command>`."""

from __future__ import annotations

import argparse
import sys

from . import db, export, stock


def build_parser():
    parser = argparse.ArgumentParser(prog="stockroom")
    parser.add_argument("--db", default="stockroom.sqlite3")
    commands = parser.add_subparsers(dest="command", required=True)
    add = commands.add_parser("add")
    add.add_argument("sku")
    add.add_argument("name")
    add.add_argument("--bin", default="")
    add.add_argument("--quantity", type=int, default=0)
    add.add_argument("--reorder-at", type=int, default=0)
    commands.add_parser("list")
    commands.add_parser("reorder")
    csv_cmd = commands.add_parser("export")
    csv_cmd.add_argument("dest")
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    conn = db.connect(args.db)
    if args.command == "add":
        db.add_part(conn, args.sku, args.name, args.bin, args.quantity, args.reorder_at)
    elif args.command == "list":
        for part in db.list_parts(conn):
            print(f"{part['sku']:<12} {part['quantity']:>5}  {part['name']}")
    elif args.command == "reorder":
        for part in stock.reorder_list(conn):
            print(part["sku"])
    elif args.command == "export":
        count = export.export_csv(db.list_parts(conn), args.dest)
        print(f"exported {count} parts to {args.dest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
