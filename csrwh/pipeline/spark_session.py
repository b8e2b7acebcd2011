"""The Spark build's session: dbt-spark run in this process on a Spark target, and the
session's end (:func:`stop_spark`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

_LOG4J = """rootLogger.level = error
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n
"""


def run_dbt_spark(
    args: list[str],
    work: Path,
    raw_dir: Path,
    *,
    quiet: bool = True,
    log_file: Path | None = None,
    on_event=None,
    target: str = "spark",
):
    """``dbt <args>`` on the ``target`` (``spark``: a session in this process; ``spark_connect``:
    the Connect session the build opened), Spark's files under ``work``. dbt runs in this
    process (:func:`~csrwh.pipeline.dbt_runner.run_dbt_in_process`): dbt-spark's ``session``
    method uses this process's SparkSession, on which the build registered its UDFs."""
    from csrwh.pipeline import dbt_runner

    (work / "tmp").mkdir(parents=True, exist_ok=True)
    # Spark's own log lines (warnings about deprecated settings, native libraries) go to
    # the JVM's stderr; only its errors are shown (the profile points log4j2 at this file)
    (work / "log4j2.properties").write_text(_LOG4J, encoding="utf-8")
    os.environ["CSRWH_SPARK_DIR"] = str(work)
    os.environ["CSRWH_SPARK_RAW_DIR"] = raw_dir.absolute().as_uri()
    # Spark's Python workers (the UDFs of csrwh.dbt_support.udfs) run this interpreter
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    import warnings

    _quiet_pyspark_errors()
    # pyspark warns that it does not fully support pandas 3 (it is not used here)
    warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas")
    # a Connect session takes only SQL settings (dbt-spark asks for Hive support on every
    # cursor) and warns once per statement that the parser setting is deprecated
    warnings.filterwarnings("ignore", message="Failed to set spark.sql.catalogImplementation")
    warnings.filterwarnings(
        "ignore", message="The SQL config 'spark.sql.parser.escapedStringLiterals' has been"
    )
    # dbt's own artefacts (manifest, partial parse) apart from the DuckDB builds'
    errors: list[str] = []

    def collect(msg) -> None:
        # dbt's error events: a failed run-operation's cause is only there (its result has none)
        if msg.info.level == "error" and msg.info.msg.strip():
            errors.append(msg.info.msg)
        if on_event is not None:
            on_event(msg)

    with dbt_runner.dbt_target_subfolder("spark"):
        outcome = dbt_runner.run_dbt_in_process(
            [*args, "--target", target],
            work / "unused.duckdb",
            quiet=quiet,
            log_file=log_file,
            on_event=collect,
            temp_dir=work / "tmp",
        )
    if not outcome.success and errors and all(f.startswith("?:") for f in outcome.failures):
        outcome.failures = errors[-3:]
    return outcome


def _quiet_pyspark_errors() -> None:
    """pyspark logs every failed statement as JSON with the JVM's stack trace on stderr; dbt
    reports the same failure in one line (and its log), so that logger is switched off."""
    import logging

    try:
        from pyspark.logger import PySparkLogger
    except ImportError:
        return
    logger = PySparkLogger.getLogger("SQLQueryContextLogger")
    logger.disabled = True
    logger.setLevel(logging.CRITICAL + 1)


def stop_spark() -> None:
    """Stop the SparkSession dbt-spark started, and its JVM.

    The JVM was launched with this build's folders (``-Djava.io.tmpdir``, Derby's
    ``derby.system.home``, the log4j file, the driver's memory: ``profiles/profiles.yml``), which
    the build removes when it ends. pyspark keeps the JVM for the next session of the process
    and a JVM's options cannot change, so a second build in the same process (a notebook, a
    test run) would write into a removed folder: the gateway is shut down too, and the next
    build launches a JVM of its own."""
    try:
        from pyspark import SparkContext
        from pyspark.sql import SparkSession
    except ImportError:
        return
    session = SparkSession.getActiveSession()
    if session is not None:
        session.stop()
    gateway = SparkContext._gateway
    if gateway is None:
        return
    SparkContext._gateway = None
    SparkContext._jvm = None
    gateway.shutdown()
    proc = getattr(gateway, "proc", None)  # None when pyspark attached to a JVM it did not start
    if proc is not None:
        proc.stdin.close()  # the JVM's gateway server exits when its stdin closes
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
