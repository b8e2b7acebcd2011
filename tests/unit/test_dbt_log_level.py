"""dbt's own log (<target>/logs/dbt.log) is at info; CSRWH_DEBUG=1 has it record every SQL
statement (debug): the debug lines were 8 % of the dbt threads' time in a rebuild (issue 26)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fake_dbt import fake_dbt_child

from csrwh.pipeline import dbt_runner


@pytest.mark.parametrize("quiet", [True, False])  # csrwh build, csrwh build -v
@pytest.mark.parametrize(("debug", "level"), [(None, "info"), ("1", "debug")])
def test_dbt_file_log_level(
    monkeypatch, tmp_path: Path, debug: str | None, level: str, quiet: bool
) -> None:
    invoked: list[list[str]] = []
    fake_dbt_child(monkeypatch, args=invoked)
    if debug is None:
        monkeypatch.delenv("CSRWH_DEBUG", raising=False)
    else:
        monkeypatch.setenv("CSRWH_DEBUG", debug)
    dbt_runner.run_dbt(["build"], tmp_path / "csr.duckdb", quiet=quiet)
    args = invoked[0]
    assert args[args.index("--log-level-file") + 1] == level
