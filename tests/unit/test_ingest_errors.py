"""The errors the ingest raises live in ``ingest/errors.py``, below both packages: no module of
``ingest`` imports ``csrwh`` (imports inside functions included), ``csrwh.errors`` re-exports
the same classes, and the ingest's out-of-memory line quotes the limit its own connection ran
under (issue 27 item 2)."""

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
    limit, n_threads = Ingestor._memory_settings(SimpleNamespace(con=con))
    assert (limit, n_threads) == ("64.0 MiB", 2)
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
