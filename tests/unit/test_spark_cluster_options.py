"""The cluster options of `csrwh build --engine spark` that need no Spark: which combinations
start a cluster build, and the one-line refusals before anything is written."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from csrwh.errors import CsrwhError
from csrwh.pipeline import spark_cluster


def test_a_local_master_is_no_cluster() -> None:
    assert spark_cluster.resolve(None, None, None, "b") is None
    assert spark_cluster.resolve(None, "local[2]", None, "b") is None


def test_a_cluster_takes_its_stage_folder(tmp_path: Path) -> None:
    cluster = spark_cluster.resolve("sc://127.0.0.1:15002", None, tmp_path.as_uri(), "b1")
    assert cluster is not None and cluster.stage == tmp_path
    assert cluster.uri == (tmp_path / "b1").as_uri()
    assert cluster.raw_dir == tmp_path / "b1" / "raw"
    assert cluster.marts_dir() == tmp_path / "b1" / "main.db"


@pytest.mark.parametrize(
    ("remote", "master", "stage", "message"),
    [
        (
            None,
            "spark://127.0.0.1:7077",
            None,
            "--spark-master spark://127.0.0.1:7077 needs --stage",
        ),
        ("sc://127.0.0.1:15002", None, None, "--spark-remote sc://127.0.0.1:15002 needs --stage"),
        (None, None, "STAGE", "--stage applies to a cluster build"),
        ("http://127.0.0.1:15002", None, "STAGE", "not a Spark Connect address"),
        ("sc://127.0.0.1:15002", "spark://127.0.0.1:7077", "STAGE", "name two clusters"),
        ("sc://127.0.0.1:15002", None, "s3a://bucket/stage", "a s3a: URI is not supported"),
        ("sc://127.0.0.1:15002", None, "MISSING", "no such folder on this machine"),
    ],
)
def test_bad_combinations_are_one_line(
    tmp_path: Path, remote: str | None, master: str | None, stage: str | None, message: str
) -> None:
    stage = {"STAGE": str(tmp_path), "MISSING": str(tmp_path / "missing")}.get(stage, stage)
    with pytest.raises(CsrwhError) as err:
        spark_cluster.resolve(remote, master, stage, "b")
    assert message in err.value.message
    assert "\n" not in err.value.message


def test_an_unreachable_server_is_one_line() -> None:
    import socket

    with socket.socket() as sock:  # a port nothing listens on: bound, never listening
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        with pytest.raises(CsrwhError) as err:
            spark_cluster.check_reachable(f"sc://127.0.0.1:{port}", timeout=5)
    assert err.value.message.startswith(
        f"cannot reach the Spark Connect server at 127.0.0.1:{port}"
    )


def test_the_command_refuses_a_standalone_master_without_a_stage(tmp_path: Path) -> None:
    warehouse = tmp_path / "wh" / "w.duckdb"
    result = subprocess.run(
        [sys.executable, "-m", "csrwh.cli", "build", "--engine", "spark", "--spark-master",
         "spark://127.0.0.1:7077", "--data-dir", str(tmp_path), "--warehouse", str(warehouse)],
        check=False,
        capture_output=True,
        text=True,
    )  # fmt: skip
    assert result.returncode == 2, result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    expected = "error: --spark-master spark://127.0.0.1:7077 needs --stage, a folder every "
    assert errors == [expected + "worker and this machine share"], result.stderr
    assert not warehouse.parent.exists()
