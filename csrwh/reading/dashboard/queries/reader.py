"""Connection lifecycle of the dashboard: the published warehouse (:class:`Warehouse`) hands out
short-lived read-only :class:`Reader` s, and every query and opening is timed for listeners.

``csrwh build`` writes ``<warehouse>.building-<build id>`` and atomically
renames it over the published file. A :class:`Reader` therefore lives for one page run only
(``with Warehouse(path).open() as db: ...``), opened by :mod:`csrwh.reading.opener`, which
always reads the file that is at the path now (not a renamed-away one) and never blocks a
writer of the new file.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from csrwh.errors import CsrwhError
from csrwh.reading.opener import catalog_name, open_read_only

CONNECT = "(open warehouse read-only)"


@dataclass(frozen=True)
class QueryTiming:
    """One query (or the warehouse opening, name :data:`CONNECT`): wall-clock and process CPU
    milliseconds (CPU time does not grow when other processes compete for the machine)."""

    name: str
    wall_ms: float
    cpu_ms: float
    rows: int


QueryListener = Callable[[QueryTiming], None]
_listeners: list[QueryListener] = []


def add_listener(listener: QueryListener) -> None:
    """Call ``listener(QueryTiming)`` after every query and after opening the warehouse."""
    _listeners.append(listener)


def remove_listener(listener: QueryListener) -> None:
    if listener in _listeners:
        _listeners.remove(listener)


@dataclass(frozen=True)
class Stamp:
    """Identity of the file at the warehouse path: changes when a build publishes."""

    mtime_ns: int
    size: int
    inode: int


class Reader:
    """One read-only view of the published warehouse (open for one page run, then closed)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        started, cpu = time.perf_counter(), time.process_time()
        self._con = open_read_only(path)
        self.catalog = catalog_name(path)
        self._con.execute("set TimeZone = 'UTC'")
        self.connect_ms = (time.perf_counter() - started) * 1000
        timing = QueryTiming(CONNECT, self.connect_ms, (time.process_time() - cpu) * 1000, 0)
        for listener in _listeners:
            listener(timing)
        self._tables: set[tuple[str, str]] | None = None

    def close(self) -> None:
        self._con.close()

    def df(self, name: str, sql: str, params: Sequence[Any] = ()) -> pd.DataFrame:
        """Run ``sql`` (named ``name`` for timings) and return a DataFrame."""
        started, cpu = time.perf_counter(), time.process_time()
        frame = self._con.execute(sql, list(params)).df()
        timing = QueryTiming(
            name,
            (time.perf_counter() - started) * 1000,
            (time.process_time() - cpu) * 1000,
            len(frame),
        )
        for listener in _listeners:
            listener(timing)
        return frame

    def tables(self) -> set[tuple[str, str]]:
        """(schema, table) of every table and view in the warehouse."""
        if self._tables is None:
            frame = self.df(
                "catalog_tables",
                "select schema_name, table_name from duckdb_tables() where database_name = ? "
                "union all select schema_name, view_name from duckdb_views() "
                "where database_name = ? and not internal",
                [self.catalog, self.catalog],
            )
            self._tables = set(zip(frame["schema_name"], frame["table_name"]))
        return self._tables

    def has_table(self, name: str, schema: str = "main") -> bool:
        return (schema, name) in self.tables()

    def columns(self, name: str, schema: str = "main") -> list[str]:
        frame = self.df(
            "catalog_columns",
            "select column_name from duckdb_columns() where database_name = ? and schema_name = ? "
            "and table_name = ? order by column_index",
            [self.catalog, schema, name],
        )
        return frame["column_name"].tolist()


class Warehouse:
    """The published warehouse file; hands out short-lived read-only :class:`Reader` s."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path).expanduser().resolve()

    def exists(self) -> bool:
        return self.path.is_file()

    def stamp(self) -> Stamp | None:
        try:
            st = self.path.stat()
        except FileNotFoundError:
            return None
        return Stamp(st.st_mtime_ns, st.st_size, st.st_ino)

    @contextmanager
    def open(self) -> Iterator[Reader]:
        if not self.exists():
            raise CsrwhError(
                f"warehouse {self.path} does not exist",
                hint="build it first: make demo (sample data) or make build (real corpora)",
            )
        reader = Reader(self.path)
        try:
            yield reader
        finally:
            reader.close()
