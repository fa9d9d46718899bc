"""The `quorum evaluate` table and its JSON form: one row per source and per policy."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from review_quorum.evaluate import Row
from review_quorum.markup.escape import one_line


def rows_data(rows: Sequence[Row]) -> list[dict[str, Any]]:
    data = []
    for row in rows:
        metrics = row.metrics
        item: dict[str, Any] = {
            "kind": row.kind,
            "name": row.name,
            "kept": metrics.kept,
            "true": metrics.true,
            "precision": round(metrics.precision, 4),
            "recall": round(metrics.recall, 4),
            "f1": round(metrics.f1, 4),
        }
        if metrics.tpr is not None and metrics.fpr is not None:
            item |= {
                "tpr": round(metrics.tpr, 4),
                "fpr": round(metrics.fpr, 4),
                "tpr_minus_fpr": round(metrics.tpr - metrics.fpr, 4),
            }
        data.append(item)
    return data


def render_table(rows: Sequence[Row], title: str) -> str:
    """A plain-text table; TPR/FPR columns appear when the labels are test cases."""
    rates = any(row.metrics.tpr is not None for row in rows)
    width = max([len(one_line(row.name)) for row in rows] + [6]) + 2
    header = f"{'':<7}{'policy':<{width}}{'kept':>6}{'true':>6}{'P':>7}{'R':>7}{'F1':>7}"
    if rates:
        header += f"{'TPR':>7}{'FPR':>7}{'TPR-FPR':>9}"
    lines = [title, header]
    for row in rows:
        m = row.metrics
        line = f"{row.kind:<7}{one_line(row.name):<{width}}{m.kept:>6}{m.true:>6}"
        line += f"{m.precision:>7.3f}{m.recall:>7.3f}{m.f1:>7.3f}"
        if rates and m.tpr is not None and m.fpr is not None:
            line += f"{m.tpr:>7.3f}{m.fpr:>7.3f}{m.tpr - m.fpr:>9.3f}"
        lines.append(line.rstrip())
    return "\n".join(lines) + "\n"
