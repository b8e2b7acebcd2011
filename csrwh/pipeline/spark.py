"""`csrwh build --engine spark`: the same dbt models on Apache Spark.

One process, one SparkSession: the DuckDB ingest, the raw tables as Parquet, ``dbt build`` on
the ``spark`` target (models that cannot run on Spark excluded), the Python report models on
DuckDB over Spark's Parquet, then every mart published to ``<warehouse>.spark/<mart>/``. The
DuckDB warehouse itself is never written.
Details: docs/internals.md#csrwh-pipeline-spark
"""

from __future__ import annotations

import os
import shutil
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from csrwh.config import PROJECT_ROOT
from csrwh.errors import CsrwhError
from csrwh.pipeline.spark_duckdb_pass import duckdb_pass
from csrwh.pipeline.spark_publish import publish as _publish
from csrwh.pipeline.spark_raw import export_raw_parquet, marts_inputs_from_duckdb
from csrwh.pipeline.spark_session import run_dbt_spark, stop_spark

INSTALL_HINT = "install with pip install 'csrwh[spark]' (make setup-spark) and Java 17"

#: the one place that lists the models left out on Spark, each with its reason
EXCLUSIONS_FILE = PROJECT_ROOT / "spark_exclusions.yml"


_MARTS_DIR = "marts"
_MARTS_PATH = "models/marts"


def spark_dir(warehouse: Path) -> Path:
    """Where the Spark build publishes its marts: ``<warehouse>.spark/`` (one folder per mart)."""
    return warehouse.with_name(warehouse.name + ".spark")


def project_marts(root: Path = PROJECT_ROOT) -> list[str]:
    """The marts: every model file under ``models/marts`` (SQL and Python), by name."""
    files = [*root.joinpath("models", "marts").rglob("*.sql")]
    files += root.joinpath("models", "marts").rglob("*.py")
    return sorted({path.stem for path in files})


def check_spark_available(java: bool = True) -> None:
    """One line when pyspark, dbt-spark or (``java``: for a driver in this process) Java is
    missing (before anything is written)."""
    import importlib.util

    for module, what in (("pyspark", "pyspark"), ("dbt.adapters.spark", "dbt-spark")):
        try:
            found = importlib.util.find_spec(module) is not None
        except ModuleNotFoundError:
            found = False
        if not found:
            raise CsrwhError(
                f"--engine spark needs {what}, which is not installed", hint=INSTALL_HINT
            )
    if not java:
        return
    java_home = os.environ.get("JAVA_HOME")
    java = shutil.which("java") or (
        str(Path(java_home) / "bin" / "java")
        if java_home and (Path(java_home) / "bin" / "java").exists()
        else None
    )
    if java is None:
        raise CsrwhError(
            "--engine spark needs a Java runtime (java is not on PATH and JAVA_HOME is not set)",
            hint="install Java 17 (Debian: apt-get install openjdk-17-jre-headless, or make java)",
        )


def exclusions(path: Path = EXCLUSIONS_FILE) -> dict[str, str]:
    """``{dbt selector: reason}`` of what is left out on Spark (:data:`EXCLUSIONS_FILE`)."""
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    out = {}
    for entry in data.get("excluded") or []:
        out[str(entry["select"])] = " ".join(str(entry["reason"]).split())
    return out


def duckdb_pass_models(path: Path = EXCLUSIONS_FILE) -> list[str]:
    """The excluded models the Spark build computes with DuckDB over its own Parquet tables
    (entries of :data:`EXCLUSIONS_FILE` with ``duckdb_pass: true``; each names one model)."""
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    return sorted(
        str(entry["select"]) for entry in data.get("excluded") or [] if entry.get("duckdb_pass")
    )


def excluded_by(node: dict, selector: str) -> bool:
    """Whether a manifest node is what an exclusion ``selector`` names (its name or path:)."""
    if selector.startswith("path:"):
        folder = selector.removeprefix("path:").rstrip("/") + "/"
        return str(node.get("original_file_path", "")).startswith(folder)
    return node.get("name") == selector


@dataclass
class SparkBuildResult:
    build_id: str
    out: Path
    marts: list[str] = field(default_factory=list)
    excluded: dict[str, str] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    node_summary: str = ""
    records_rejected: int = 0
    # dbt's execution time per node unique id (as DbtOutcome.timings)
    timings: dict[str, float] = field(default_factory=dict)

    def summary(self) -> str:
        timing = ", ".join(f"{k} {v:.1f} s" for k, v in self.seconds.items())
        return f"{len(self.marts)} marts, {len(self.excluded)} exclusion entries (spark_exclusions.yml); {self.node_summary}; {timing}"


def mart_names(manifest: Path, built: set[str]) -> list[str]:
    """The marts (models under ``models/marts``) among the ``built`` model unique ids."""
    import json

    nodes = json.loads(manifest.read_text(encoding="utf-8"))["nodes"]
    out = []
    for uid in sorted(built):
        node = nodes.get(uid)
        if node and node["resource_type"] == "model" and node["fqn"][1:2] == [_MARTS_DIR]:
            out.append(node["alias"] or node["name"])
    return sorted(out)


def spark_build(
    data_dir: Path,
    warehouse: Path,
    corpora: list[str] | None = None,
    *,
    strict: bool = False,
    allow_rejects: bool = False,
    wait: bool = False,
    verbose: bool = False,
    marts_from_duckdb: bool = False,
    remote: str | None = None,
    master: str | None = None,
    stage: str | None = None,
) -> SparkBuildResult:
    """`csrwh build --engine spark` (module doc).

    ``remote`` (``sc://HOST:PORT``, a Spark Connect server) or ``master`` (``spark://…``, the
    driver in this process) with ``stage``, a folder every worker and this machine share:
    the build on a cluster (:mod:`csrwh.pipeline.spark_cluster`); ``master`` defaults to
    ``$CSRWH_SPARK_MASTER`` (a local session when unset or ``local[…]``).

    ``marts_from_duckdb`` (``python -m csrwh.pipeline.spark marts-from-duckdb``, for porting
    the marts while the models below them are ported): no ingest; the raw, seed, staging and
    intermediate tables of the published DuckDB warehouse are written as Parquet and
    registered on Spark as they are, and only the marts (``models/marts``) and their tests
    run on Spark; of the exclusions only those that are marts apply."""
    from csrwh.pipeline import spark_cluster
    from csrwh.pipeline.display import _Display, console, dbt_log_path
    from csrwh.pipeline.lock import BuildLock
    from csrwh.pipeline.paths import _ensure_folder, build_dir, refuse_links

    build_id = time.strftime("%Y%m%dT%H%M%S") + "-" + uuid.uuid4().hex[:8]
    master = master or os.environ.get("CSRWH_SPARK_MASTER")
    cluster = spark_cluster.resolve(remote, master, stage, build_id)
    check_spark_available(java=remote is None)
    if remote:
        spark_cluster.check_connect_client()
        spark_cluster.check_reachable(remote)
    warehouse = Path(warehouse)
    out = spark_dir(warehouse)
    _ensure_folder(warehouse.parent)
    refuse_links(warehouse, build_id)
    for path in (out, build_dir(warehouse)):
        if path.is_symlink():
            raise CsrwhError(
                f"{path} is a symbolic link; the Spark build does not write through links",
                hint="remove the link or build elsewhere with --warehouse",
            )
    work = build_dir(warehouse) / f"spark-{build_id}"
    result = SparkBuildResult(build_id=build_id, out=out, excluded=exclusions())
    display = _Display(console, build_id, verbose)
    lock = BuildLock(warehouse, build_id)
    lock.acquire(
        wait=wait,
        on_wait=lambda holder: console.print(
            f"waiting for {holder.describe() if holder else 'another build'} of {warehouse} to finish…"
        ),
    )
    started = time.perf_counter()
    session = None
    published = False
    scope = spark_cluster.scoped_environment(
        spark_cluster.environment(cluster), restore=("SPARK_CONNECT_MODE_ENABLED",)
    )
    try:
        with display, scope:
            work.mkdir(parents=True)
            if cluster is not None:
                cluster.folder.mkdir()
            if remote:
                display.enter("cluster")
                session = spark_cluster.connect(remote)
                spark_cluster.probe_workers(session, cluster)
            if marts_from_duckdb:
                marts_inputs_from_duckdb(warehouse, work, result.seconds, display)
                raw_dir = work / "upstream" / "raw"
            else:
                raw_dir = _ingest_to_parquet(
                    data_dir,
                    work,
                    result,
                    display,
                    corpora,
                    strict,
                    allow_rejects,
                    cluster.raw_dir if cluster else work / "raw",
                )
            target = "spark_connect" if remote else "spark"
            display.enter("dbt")
            step = time.perf_counter()
            log_file = dbt_log_path(build_id)
            display.log_file = log_file
            args = ["build"]
            excluded = sorted(result.excluded)
            if marts_from_duckdb:
                args += ["--select", f"path:{_MARTS_PATH}"]
                excluded = [name for name in excluded if name in set(project_marts())]
            if excluded:
                args += ["--exclude", *(f"{name}+" for name in excluded)]
            # the raw Parquet folders as the raw tables (on a cluster, every database on the stage)
            registered = run_dbt_spark(
                ["run-operation", "spark_register_raw"],
                work,
                raw_dir,
                quiet=not verbose,
                log_file=log_file,
                target=target,
            )
            if not registered.success:
                started = _started_session() if cluster is not None and session is None else None
                if started is not None:
                    # on --spark-master the session is dbt-spark's, opened by this step: a stage
                    # the workers do not share fails here in Spark's words; the probe says which
                    display.enter("cluster")
                    spark_cluster.probe_workers(started, cluster)
                raise CsrwhError(
                    f"Spark build {build_id}: registering the raw tables failed "
                    f"({_failure_lines(registered.failures, log_file)}); {out} was left untouched",
                    hint=f"see {log_file}",
                )
            if session is None:
                from pyspark.sql import SparkSession

                session = SparkSession.builder.getOrCreate()  # the one dbt-spark started
                if cluster is not None:
                    display.enter("cluster")
                    spark_cluster.probe_workers(session, cluster)
            # the Python functions the SQL models call, on the same SparkSession
            from csrwh.dbt_support.udfs import register_spark

            register_spark(session)
            outcome = run_dbt_spark(
                args,
                work,
                raw_dir,
                quiet=not verbose,
                log_file=log_file,
                on_event=display.dbt_event,
                target=target,
            )
            result.seconds["dbt"] = time.perf_counter() - step
            result.node_summary = outcome.node_summary()
            result.timings = dict(outcome.timings)
            if not outcome.success:
                _print_failures(outcome.failures)
                raise CsrwhError(
                    f"Spark build {build_id} failed ({len(outcome.failures)} problem(s): "
                    f"{_failure_lines(outcome.failures, log_file, 1)}); {out} was left untouched",
                    hint=f"dbt's per-node lines: {log_file}",
                )

            from csrwh.pipeline.dbt_runner import dbt_target_path

            manifest = dbt_target_path() / "spark" / "manifest.json"
            built = {uid for uid in outcome.timings if uid.startswith("model.")}
            result.marts = mart_names(manifest, built)

            display.enter("duckdb")
            step = time.perf_counter()
            marts_dir = cluster.marts_dir() if cluster else work / "spark-warehouse" / "main.db"
            passed = duckdb_pass(
                work,
                manifest,
                duckdb_pass_models(),
                log_file=log_file,
                quiet=not verbose,
                session=session,
                marts_dir=marts_dir,
                scratch=cluster.folder / "duckdb-pass" if cluster else None,
            )
            result.marts = sorted({*result.marts, *passed})
            result.seconds["duckdb pass"] = time.perf_counter() - step

            display.enter("publish")
            _publish(marts_dir, work, out, result.marts, build_id, cluster)
            published = True
    finally:
        if remote and session is not None:
            session.stop()
        stop_spark()
        shutil.rmtree(work, ignore_errors=True)
        if cluster is not None and not published:
            shutil.rmtree(cluster.folder, ignore_errors=True)
        lock.release()
    result.seconds["total"] = time.perf_counter() - started
    return result


def _started_session():
    """The SparkSession dbt-spark started in this process, or None when none was (a failure
    before it); never starts one."""
    from pyspark.sql import SparkSession

    try:
        return SparkSession.active()
    except Exception:  # noqa: BLE001 -- pyspark's NO_ACTIVE_OR_DEFAULT_SESSION
        return None


def _failure_lines(failures: list[str] | None, log_file: Path, count: int = 3) -> str:
    """The first ``count`` failures, each on one line, or where to look when dbt gave none."""
    lines = [_one_line(line) for line in (failures or [])[:count] if line.strip()]
    return "; ".join(lines) or f"no message from dbt; see {log_file}"


def _one_line(text: str, limit: int = 400) -> str:
    """A multi-line message (dbt's "Runtime Error in model …" then Spark's cause) as one line."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _print_failures(failures: list[str] | None) -> None:
    from rich.markup import escape

    from csrwh.pipeline.display import console

    for line in (failures or [])[:20]:
        console.print(f"  [red]✗[/red] {escape(line.splitlines()[0])}")


def _ingest_to_parquet(
    data_dir: Path,
    work: Path,
    result: SparkBuildResult,
    display,
    corpora: list[str] | None,
    strict: bool,
    allow_rejects: bool,
    raw_dir: Path,
) -> Path:
    """The ingest into ``work/ingest.duckdb``, its refusals, and its raw tables as Parquet
    under ``raw_dir``."""
    from csrwh.pipeline.result import EXIT_REFUSED

    display.enter("ingest")
    step = time.perf_counter()
    from ingest import run_ingest

    raw_db = work / "ingest.duckdb"
    summary = run_ingest(Path(data_dir), raw_db, corpora=corpora)
    result.records_rejected = summary.records_rejected
    result.seconds["ingest"] = time.perf_counter() - step
    if summary.rejected_outstanding and (strict or not allow_rejects):
        why = "--strict is set" if strict else "a Spark build has no published build to compare"
        raise CsrwhError(
            f"{summary.rejected_outstanding} rejected record(s) and {why}; "
            f"the Spark build {result.build_id} was not published",
            hint="csrwh ingest shows them in raw.rejected_records; --allow-rejects "
            "builds without them" + ("" if not strict else " (without --strict)"),
            exit_code=EXIT_REFUSED,
        )

    display.enter("parquet")
    step = time.perf_counter()
    export_raw_parquet(raw_db, raw_dir)
    result.seconds["parquet"] = time.perf_counter() - step
    return raw_dir


def main(argv: list[str] | None = None) -> int:
    """``python -m csrwh.pipeline.spark export-raw|exclude-args``: the pieces a real cluster
    needs (docs/spark.md)."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m csrwh.pipeline.spark")
    sub = parser.add_subparsers(dest="command", required=True)
    export = sub.add_parser(
        "export-raw", help="write the raw tables of a DuckDB warehouse as Parquet folders"
    )
    export.add_argument("--warehouse", type=Path, required=True)
    export.add_argument("--out", type=Path, required=True, help="a new or empty folder")
    sub.add_parser("exclude-args", help="print dbt's --exclude arguments of spark_exclusions.yml")
    marts = sub.add_parser(
        "marts-from-duckdb",
        help="run only the marts on Spark, on the DuckDB warehouse's upstream tables (porting aid)",
    )
    marts.add_argument("--warehouse", type=Path, required=True)
    marts.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args(argv)
    if args.command == "marts-from-duckdb":
        try:
            result = spark_build(
                Path("."), args.warehouse, marts_from_duckdb=True, verbose=args.verbose
            )
        except CsrwhError as exc:
            print(f"error: {exc.message}", file=sys.stderr)
            if exc.hint:
                print(f"hint: {exc.hint}", file=sys.stderr)
            return exc.exit_code
        print(f"{len(result.marts)} marts as Parquet in {result.out}/ ({result.summary()})")
        return 0
    if args.command == "exclude-args":
        print(" ".join(["--exclude", *(f"{name}+" for name in sorted(exclusions()))]))
        return 0
    if not args.warehouse.is_file():
        print(f"error: no DuckDB warehouse at {args.warehouse}", file=sys.stderr)
        return 2
    if args.out.exists() and any(args.out.iterdir()):
        print(f"error: {args.out} is not empty; give a new or empty folder", file=sys.stderr)
        return 2
    tables = export_raw_parquet(args.warehouse, args.out)
    print(f"{len(tables)} raw tables written as Parquet under {args.out}/<table>/")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
