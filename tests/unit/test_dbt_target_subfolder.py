"""dbt_target_subfolder: a build's dbt artefacts in a subfolder, the variable put back after."""

from __future__ import annotations

import os

import pytest

from csrwh.pipeline.dbt_runner import dbt_target_path, dbt_target_subfolder


def test_unset_variable_is_unset_again_after_the_block(monkeypatch, tmp_path) -> None:
    monkeypatch.delenv("CSRWH_DBT_TARGET_PATH", raising=False)
    default = dbt_target_path()
    with dbt_target_subfolder("spark") as folder:
        assert folder == default / "spark"
        assert dbt_target_path() == folder
    assert "CSRWH_DBT_TARGET_PATH" not in os.environ


def test_a_set_variable_is_restored_even_when_the_block_fails(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("CSRWH_DBT_TARGET_PATH", str(tmp_path / "t"))
    with pytest.raises(RuntimeError), dbt_target_subfolder("spark-duckdb-pass") as folder:
        assert folder == tmp_path / "t" / "spark-duckdb-pass"
        raise RuntimeError("dbt failed")
    assert os.environ["CSRWH_DBT_TARGET_PATH"] == str(tmp_path / "t")
