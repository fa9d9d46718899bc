"""CSV export of the parts list."""

from __future__ import annotations

import csv

FIELDS = ("sku", "name", "bin", "quantity", "reorder_at")


def export_csv(rows, dest):
    count = 0
    with open(dest, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(FIELDS)
        for row in rows:
            writer.writerow([row[field] for field in FIELDS])
            count += 1
    return count
