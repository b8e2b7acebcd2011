"""The Spark build's DuckDB pass: the models ``spark_exclusions.yml`` marks
``duckdb_pass`` -- the Python report models, which need the whole data in one process -- built
with dbt-duckdb over the Spark tables' Parquet, and left as Parquet beside the Spark marts.
:func:`csrwh.pipeline.spark.spark_build` calls it after dbt has run on Spark."""

from __future__ import annotations

from pathlib import Path

from csrwh.errors import CsrwhError


def duckdb_pass(
    work: Path,
    manifest: Path,
    models: list[str],
    *,
    log_file: Path | None = None,
    quiet: bool = True,
    session=None,
    marts_dir: Path | None = None,
    scratch: Path | None = None,
) -> list[str]:
    """Build ``models`` (each a model name) with dbt-duckdb -- their own code and their tests
    -- over the tables of ``session`` (default: this process's SparkSession), and leave each
    as Parquet in ``marts_dir`` (default Spark's warehouse dir,
    ``work/spark-warehouse/main.db``), ``<marts_dir>/<model>/``, for :func:`_publish`.

    A scratch DuckDB file (``work/duckdb-pass/pass.duckdb``) gets one view per relation the
    models and their tests read (the parents in the Spark build's ``manifest``), over that
    relation's Parquet files on Spark (a table's own files; a view written out first, under
    ``scratch``, default the pass's own folder: on a cluster a folder of the stage). Returns
    the models built (their names); raises :class:`CsrwhError` when dbt fails."""
    import json

    import duckdb

    from csrwh.pipeline.dbt_runner import dbt_target_subfolder, run_dbt

    if not models:
        return []
    data = json.loads(manifest.read_text(encoding="utf-8"))
    nodes = {**data["nodes"], **data.get("sources", {})}
    chosen = {
        uid
        for uid, node in data["nodes"].items()
        if node["resource_type"] == "model" and node["name"] in models
    }
    unknown = sorted(set(models) - {nodes[uid]["name"] for uid in chosen})
    if unknown:
        raise CsrwhError(
            f"spark_exclusions.yml: duckdb_pass names no model: {', '.join(unknown)}",
            hint="duckdb_pass applies to an entry whose select is one model's name",
        )
    readers = chosen | {
        uid
        for uid, node in data["nodes"].items()
        if node["resource_type"] == "test" and chosen & set(node["depends_on"]["nodes"])
    }
    parents = sorted(
        {p for uid in readers for p in nodes[uid]["depends_on"]["nodes"]} - chosen,
    )
    folder = work / "duckdb-pass"
    folder.mkdir(parents=True, exist_ok=True)
    database = folder / "pass.duckdb"
    with duckdb.connect(str(database)) as con:
        for uid in parents:
            node = nodes[uid]
            schema = node["schema"]
            name = node.get("identifier") or node.get("alias") or node["name"]
            files = _spark_parquet_files(
                session, f"{schema}.{name}", (scratch or folder / "inputs") / schema / name
            )
            con.execute(f"create schema if not exists {_quote(schema)}")
            con.execute(
                f"create view {_quote(schema)}.{_quote(name)} as select * from read_parquet("
                f"[{', '.join(_sql_text(f) for f in files)}])"
            )
    # dbt's artefacts apart from the DuckDB builds' and the Spark target's
    with dbt_target_subfolder("spark-duckdb-pass"):
        outcome = run_dbt(
            ["build", "--select", *models],
            database,
            quiet=quiet,
            log_file=log_file,
            temp_dir=folder / "tmp",
        )
    if not outcome.success:
        raise CsrwhError(
            f"the DuckDB pass of the Spark build ({', '.join(models)}) failed: "
            + "; ".join(line.splitlines()[0] for line in (outcome.failures or [])[:3]),
            hint=f"dbt's per-node lines: {log_file}",
        )
    built = sorted(nodes[uid]["name"] for uid in chosen)
    with duckdb.connect(str(database), read_only=True) as con:
        for uid in sorted(chosen):
            node = nodes[uid]
            name = node.get("alias") or node["name"]
            target = (marts_dir or work / "spark-warehouse" / "main.db") / name
            target.mkdir(parents=True)
            con.execute(
                f"copy (select * from {_quote(node['schema'])}.{_quote(name)}) to "
                f"{_sql_text(str(target / 'part-00000-duckdb.parquet'))} (format parquet)"
            )
    return built


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _sql_text(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _spark_parquet_files(session, table: str, scratch: Path) -> list[str]:
    """The Parquet files of a Spark table (a managed or external Parquet table's own files;
    anything else -- a view -- written to ``scratch`` first)."""
    from urllib.parse import unquote, urlparse

    from pyspark.sql import SparkSession

    session = session or SparkSession.getActiveSession()
    if session is None:
        raise CsrwhError(
            f"no SparkSession to read {table} from", hint="run it inside the Spark build"
        )
    kind = session.catalog.getTable(table).tableType
    files = session.table(table).inputFiles() if kind in ("MANAGED", "EXTERNAL") else []
    paths = [unquote(urlparse(f).path) for f in files]
    if not paths or not all(p.endswith(".parquet") for p in paths):
        session.table(table).write.parquet(scratch.absolute().as_uri())
        paths = sorted(str(p) for p in scratch.glob("*.parquet"))
    return paths
