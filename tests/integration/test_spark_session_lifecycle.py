"""A Spark build's JVM ends with the build: the next build in the same process gets a JVM
launched with its own folders (java.io.tmpdir, Derby's home, log4j), not the removed folders
of the first (pyspark reuses a process' JVM, and a JVM's options are fixed at launch)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from spark_engine import require_spark

from csrwh.pipeline import spark


def _session(tmp: Path):
    from pyspark.sql import SparkSession

    tmp.mkdir(parents=True)
    return (
        SparkSession.builder.master("local[1]")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.extraJavaOptions", f"-Djava.io.tmpdir={tmp}")
        .getOrCreate()
    )


def test_the_next_session_gets_a_jvm_with_its_own_options(tmp_path: Path) -> None:
    require_spark()
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark.stop_spark()  # a JVM an earlier test of this worker left running
    first = _session(tmp_path / "first")
    first_pid = first._jvm.ProcessHandle.current().pid()
    spark.stop_spark()
    second = _session(tmp_path / "second")
    try:
        assert second._jvm.System.getProperty("java.io.tmpdir") == str(tmp_path / "second")
        assert second._jvm.ProcessHandle.current().pid() != first_pid
    finally:
        spark.stop_spark()
    from pyspark import SparkContext

    assert SparkContext._gateway is None
