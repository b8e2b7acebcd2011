"""The building blocks of a corpus's published-figures module.

A :class:`Metric` is one way to compute a warehouse figure from the marts: SQL returning one
number (``$name`` parameters come from the figure's ``args``) or a Python function of the
connection and the args. Its ``definition`` says in words what it computes (``{name}``
placeholders are filled from the args) and is printed next to every figure that uses it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

Args = Mapping[str, str]


@dataclass(frozen=True)
class Metric:
    definition: str
    sql: str | None = None
    fn: Callable[[Any, Args], float | None] | None = None

    def __post_init__(self) -> None:
        if (self.sql is None) == (self.fn is None):
            raise ValueError("a Metric has exactly one of sql= or fn=")

    def value(self, con, args: Args) -> float | None:
        if self.fn is not None:
            value = self.fn(con, args)
            return None if value is None else float(value)
        names = set(re.findall(r"\$(\w+)", self.sql))
        # execute (a prepared statement), not sql (a relation): a quarter of the time per figure
        rows = con.execute(self.sql, {n: args.get(n) for n in names} if names else None).fetchall()
        return None if not rows or rows[0][0] is None else float(rows[0][0])

    def describe(self, args: Args) -> str:
        class _Args(dict):
            def __missing__(self, key: str) -> str:
                return "(any)"

        return self.definition.format_map(_Args(args))


def sql_metric(definition: str, sql: str) -> Metric:
    return Metric(definition=definition, sql=sql)


def fn_metric(definition: str) -> Callable[[Callable[[Any, Args], float | None]], Metric]:
    """Decorator: ``@fn_metric("...")`` turns a function ``(con, args) -> float`` into a Metric."""

    def wrap(fn: Callable[[Any, Args], float | None]) -> Metric:
        return Metric(definition=definition, fn=fn)

    return wrap


def rows(con, sql: str, params: Mapping[str, Any] | None = None) -> list[tuple]:
    return con.execute(sql, dict(params) if params else None).fetchall()
