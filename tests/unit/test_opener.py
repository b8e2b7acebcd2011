"""The one read-only opener (csrwh/reading/opener.py) behind csrwh.connect, `csrwh sql`/`export`
and the dashboard: every reader reads the file at the path now, across a publish (a rename over
the published file) while an older reader is still open, as the dashboard's reader always did."""

from __future__ import annotations

import os
from collections.abc import Callable
from contextlib import closing, contextmanager
from pathlib import Path

import duckdb
import pytest

import csrwh
from csrwh.errors import CsrwhError
from csrwh.reading import query
from csrwh.reading.dashboard import queries as dashboard
from csrwh.reading.opener import FALLBACK_CATALOG, catalog_name, open_read_only


@contextmanager
def _api(path: Path):
    with closing(csrwh.connect(path)) as con:
        yield con


@contextmanager
def _sql(path: Path):
    with closing(query.connect_read_only(path)) as con:
        yield con


@contextmanager
def _locked(path: Path):
    with closing(query.connect_locked(path)) as con:
        yield con


@contextmanager
def _dashboard(path: Path):
    with dashboard.Warehouse(path).open() as reader:
        yield reader._con


READERS: dict[str, Callable] = {
    "csrwh.connect": _api,
    "csrwh sql": _sql,
    "csrwh sql (locked)": _locked,
    "dashboard": _dashboard,
}


def _warehouse(path: Path, build_id: str, n_rows: int) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with duckdb.connect(str(path)) as con:
        con.execute("create table main.build_info as select ? as build_id", [build_id])
        con.execute("create table main.turns as select range as turn_index from range(?)", [n_rows])
    return path


def _seen(con) -> tuple[str, int]:
    build_id = con.execute("select build_id from build_info").fetchone()[0]
    return build_id, con.execute("select count(*) from turns").fetchone()[0]


@pytest.mark.parametrize("reader", READERS.values(), ids=READERS.keys())
def test_a_reader_opened_after_a_publish_reads_the_new_file(tmp_path: Path, reader) -> None:
    """Plain duckdb.connect(read_only=True) would hand back DuckDB's cached instance of the
    renamed-away file while an older connection to it is still open."""
    published = _warehouse(tmp_path / "wh" / "csr.duckdb", "b-1", 3)
    staged = _warehouse(tmp_path / "wh" / "csr.duckdb.building-b-2", "b-2", 5)
    with reader(published) as old:
        assert _seen(old) == ("b-1", 3)
        os.replace(staged, published)  # what csrwh build does to publish
        with reader(published) as new:
            assert _seen(new) == ("b-2", 5)
        assert _seen(old) == ("b-1", 3)  # the old reader keeps its snapshot
    with duckdb.connect(str(published)) as writer:  # readers closed: a build can write again
        writer.execute("create table main.after as select 1")


@pytest.mark.parametrize("reader", READERS.values(), ids=READERS.keys())
def test_a_reader_is_read_only_and_names_the_database_as_a_plain_connect(
    tmp_path: Path, reader
) -> None:
    path = _warehouse(tmp_path / "demo.duckdb", "b-1", 2)
    with reader(path) as con:
        assert con.execute("select current_database()").fetchone()[0] == "demo"
        assert con.execute("select count(*) from demo.main.turns").fetchone()[0] == 2
        assert con.execute("select count(*) from main.turns").fetchone()[0] == 2
        with pytest.raises(duckdb.Error):
            con.execute("create table main.x as select 1")
    assert not (tmp_path / "demo.duckdb.tmp").exists()


def test_a_stem_the_private_instance_uses_is_attached_under_another_name(tmp_path: Path) -> None:
    path = _warehouse(tmp_path / "memory.duckdb", "b-1", 1)
    assert catalog_name(path) == FALLBACK_CATALOG
    with closing(open_read_only(path)) as con:
        assert _seen(con) == ("b-1", 1)


def test_not_a_duckdb_file_is_one_line_naming_it(tmp_path: Path) -> None:
    bogus = tmp_path / "bogus.duckdb"
    bogus.write_text("not a database")
    with pytest.raises(CsrwhError, match="cannot open .*bogus.duckdb") as info:
        open_read_only(bogus)
    assert "\n" not in info.value.message and info.value.hint
