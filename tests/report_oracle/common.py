"""Helpers the report oracles share: row queries and hand-written statistics (quantiles,
ranks, Pearson and Spearman), written independently of the report's SQL, polars and scipy."""

from __future__ import annotations

import math
from typing import Any

import duckdb

Rows = list[dict[str, Any]]


def rows(con: duckdb.DuckDBPyConnection, sql: str) -> Rows:
    cur = con.execute(sql)
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]


def quantile(values: list[float], p: float) -> float | None:
    """Linear interpolation between closest ranks (numpy's default, DuckDB's quantile_cont)."""
    data = sorted(values)
    if not data:
        return None
    pos = (len(data) - 1) * p
    lo, hi = math.floor(pos), math.ceil(pos)
    return data[lo] + (data[hi] - data[lo]) * (pos - lo)


def mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def average_ranks(values: list[float]) -> list[float]:
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def pearson(x: list[float], y: list[float]) -> float:
    mx, my = mean(x), mean(y)
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    return sxy / math.sqrt(sxx * syy)


def correlation(x: list[float], y: list[float], method: str) -> float | None:
    if len(x) < 3 or len(set(x)) < 2 or len(set(y)) < 2:
        return None
    if method == "spearman":
        x, y = average_ranks(x), average_ranks(y)
    return pearson(x, y)
