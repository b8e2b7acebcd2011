"""dbt's own log (<target>/logs/dbt.log) is at info; CSRWH_DEBUG=1 has it record every SQL
statement (debug): the debug lines were 8 % of the dbt threads' time in a rebuild (issue 26)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from csrwh.building import dbt_runner


@pytest.mark.parametrize(("debug", "level"), [(None, "info"), ("1", "debug")])
def test_dbt_file_log_level(monkeypatch, tmp_path: Path, debug: str | None, level: str) -> None:
    import dbt.cli.main

    invoked: list[list[str]] = []

    class FakeRunner:
        def __init__(self, callbacks):
            pass

        def invoke(self, args):
            invoked.append(args)
            return SimpleNamespace(exception=None, success=True, result=SimpleNamespace(results=[]))

    monkeypatch.setattr(dbt.cli.main, "dbtRunner", FakeRunner)
    monkeypatch.setattr(dbt_runner, "release_database", lambda database: None)
    if debug is None:
        monkeypatch.delenv("CSRWH_DEBUG", raising=False)
    else:
        monkeypatch.setenv("CSRWH_DEBUG", debug)
    dbt_runner.run_dbt(["build"], tmp_path / "csr.duckdb", quiet=True)
    args = invoked[0]
    assert args[args.index("--log-level-file") + 1] == level
