"""The errors the ingest raises live in ``ingest/errors.py``, below both packages: no module of
``ingest`` imports ``csrwh`` (imports inside functions included), ``csrwh.errors`` re-exports
the same classes, and the ingest's out-of-memory line quotes the limit its own connection ran
under; a spill that filled its disk and a write that found it full are lines about the disk."""

from __future__ import annotations

from types import SimpleNamespace

import duckdb
import grimp

import csrwh.errors
import ingest.errors
from ingest.run import Ingestor

DUCKDB_OOM = "Out of Memory Error: failed to pin block of size 256.0 KiB (63.7 MiB/64.0 MiB used)"


def test_no_module_of_ingest_imports_csrwh() -> None:
    graph = grimp.build_graph("csrwh", "ingest", include_external_packages=False, cache_dir=None)
    found = graph.find_matching_direct_imports(import_expression="ingest.** -> csrwh.**")
    found += graph.find_matching_direct_imports(import_expression="ingest -> csrwh.**")
    assert found == []
    assert not graph.chain_exists(importer="ingest", imported="csrwh", as_packages=True)


def test_csrwh_raises_and_catches_the_same_error_class() -> None:
    assert csrwh.errors.CsrwhError is ingest.errors.CsrwhError
    assert csrwh.errors.is_out_of_memory is ingest.errors.is_out_of_memory


def test_the_ingest_line_quotes_the_limit_its_connection_ran_under() -> None:
    con = duckdb.connect(config={"memory_limit": "64MiB", "threads": "2"})
    limit, n_threads, spill_dir = Ingestor._memory_settings(SimpleNamespace(con=con))
    assert (limit, n_threads) == ("64.0 MiB", 2)
    assert spill_dir == con.execute("select current_setting('temp_directory')").fetchone()[0]
    line = ingest.errors.out_of_memory_line(
        "ingest", "file a.jsonl", DUCKDB_OOM, ingest.errors.size_mib(limit), n_threads, limit
    )
    assert "\n" not in line and "SET " not in line
    assert line.startswith("out of memory in the ingest phase, file a.jsonl: DuckDB held 63.7 MiB")
    assert "(memory_limit 64.0 MiB, 2 thread(s)); raise CSRWH_MEMORY_LIMIT" in line
    assert "CSRWH_THREADS=1" in line


def test_sizes_as_duckdb_prints_them() -> None:
    assert [ingest.errors.size_mib(t) for t in ("64.0 MiB", "1.5 GiB", "512.0 KiB", "x")] == [
        64,
        1536,
        0,
        0,
    ]


#: DuckDB's error when its spill reached ``max_temp_directory_size``, which by default is the
#: room on the spill folder's disk (seen when a 40 MiB tmpfs filled:
#: tests/integration/test_disk_full.py makes it happen)
DUCKDB_SPILL_FULL = (
    "Out of Memory Error: failed to offload data block of size 256.0 KiB (35.9 MiB/36.0 MiB "
    "used).\nThis limit was set by the 'max_temp_directory_size' setting.\nBy default, this "
    "setting utilizes the available disk space on the drive where the 'temp_directory' is "
    "located.\nYou can adjust this setting, by using (for example) PRAGMA "
    "max_temp_directory_size='10GiB'\n\nPossible solutions:\n* Reducing the number of threads "
    "(SET threads=X)\n* Increasing the memory limit (SET memory_limit='...GB')"
)


def test_a_spill_that_filled_its_disk_is_a_line_about_the_disk_not_memory() -> None:
    line = ingest.errors.out_of_memory_line(
        "ingest", "file a.jsonl", DUCKDB_SPILL_FULL, 1024, 2, None, "/data/wh.duckdb.build/tmp"
    )
    assert "\n" not in line and "SET " not in line and "PRAGMA" not in line
    assert line.startswith(
        f"{ingest.errors.DISK_FULL_LINE} in the ingest phase, file a.jsonl: DuckDB's spill in "
        "/data/wh.duckdb.build/tmp reached 36.0 MiB"
    ), line
    assert "needs more than 36.0 MiB free there" in line
    assert "out of memory" not in line and "CSRWH_THREADS" not in line
    # an ordinary out-of-memory error keeps its line about memory
    assert ingest.errors.out_of_memory_line(
        "ingest", "file a.jsonl", DUCKDB_OOM, 64, 2, None, "/data/wh.duckdb.build/tmp"
    ).startswith("out of memory in the ingest phase")


def test_a_write_that_found_the_disk_full_is_one_line_naming_the_file() -> None:
    message = (
        "Runtime Error in model m (models/m.sql)\n"
        '  IO Error: Could not write file "/data/wh.duckdb.wal": No space left on device'
    )
    assert ingest.errors.is_no_space(message) and not ingest.errors.is_no_space(DUCKDB_OOM)
    assert ingest.errors.no_space_line("dbt", "model.csrwh.m", message) == (
        "out of disk space in the dbt phase, model.csrwh.m: IO Error: Could not write file "
        '"/data/wh.duckdb.wal": No space left on device'
    )
