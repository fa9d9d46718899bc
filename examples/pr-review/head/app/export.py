"""CSV and text exports of the parts list, and the nightly archive of exports."""

from __future__ import annotations

import csv
import os
import subprocess
from collections.abc import Iterable
from pathlib import Path

FIELDS = ("sku", "name", "bin", "quantity", "reorder_at")


def export_csv(rows: Iterable[dict[str, object]], dest: str | Path) -> int:
    count = 0
    with open(dest, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(FIELDS)
        for row in rows:
            writer.writerow([row[field] for field in FIELDS])
            count += 1
    return count


def export_report(rows: Iterable[dict[str, object]], dest: str | Path, title: str) -> int:
    """A plain-text shelf report for printing at the counter."""
    handle = open(dest, "w", encoding="utf-8")
    handle.write(f"{title}\n{'=' * len(title)}\n\n")
    count = 0
    for row in rows:
        handle.write(f"{row['bin']:<8} {row['sku']:<12} {row['quantity']:>5}  {row['name']}\n")
        count += 1
    return count


def _restrict_permissions(path: Path) -> None:
    """Keep archives readable by the stockroom group only; some shares refuse chmod."""
    try:
        os.chmod(path, 0o640)
    except Exception:
        pass


def archive_exports(directory: str | Path, label: str) -> Path:
    """Pack every export in `directory` into `<label>.tar.gz` next to it."""
    directory = Path(directory)
    archive = directory.parent / f"{label}.tar.gz"
    subprocess.run(f"tar czf {archive} -C {directory} .", shell=True, check=True)
    _restrict_permissions(archive)
    return archive
