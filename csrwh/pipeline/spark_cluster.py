"""A Spark build past one machine: the cluster, its stage and the checks made before building.

Through Spark Connect (``--spark-remote``) or a standalone master (``--spark-master``), with a
``--stage`` folder that every worker and this machine see; before building it checks, each in
one line, that the server answers, the workers write the stage and import what they need.
Details: docs/internals.md#csrwh-pipeline-spark_cluster
"""

from __future__ import annotations

import os
import shutil
import socket
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse

from csrwh.errors import CsrwhError

#: what a worker's Python imports to run the project's functions (csrwh.dbt_support.udfs)
WORKER_MODULES = ("pyarrow", "csrwh.dbt_support.udfs")
#: tasks of the import probe (spread over the executors the cluster gives the session)
PROBE_TASKS = 4
#: seconds to wait for the Connect server's port
CONNECT_TIMEOUT = 10.0

_WORKER_HINT = (
    "install csrwh (the same version, pip install 'csrwh') in the Python every worker runs "
    "(PYSPARK_PYTHON on the Spark Connect server or the workers)"
)


@dataclass(frozen=True)
class Cluster:
    """Where a cluster build runs (``remote`` or ``master``) and its stage folder."""

    stage: Path
    build_id: str
    remote: str | None = None
    master: str | None = None

    @property
    def folder(self) -> Path:
        """This build's folder on the stage, ``<stage>/<build id>``."""
        return self.stage / self.build_id

    @property
    def uri(self) -> str:
        """:attr:`folder` as the URI Spark is given (``file:///…``)."""
        return self.folder.as_uri()

    @property
    def raw_dir(self) -> Path:
        return self.folder / "raw"

    def marts_dir(self, schema: str = "main") -> Path:
        """The folder of a database the models write (its tables are ``<folder>/<table>``)."""
        return self.folder / f"{schema}.db"


def resolve(
    remote: str | None, master: str | None, stage: str | None, build_id: str
) -> Cluster | None:
    """The cluster of a Spark build, or None for a local session; one line for a bad
    combination (checked before anything is written)."""
    if remote and master:
        raise CsrwhError(
            "--spark-remote and --spark-master name two clusters; give one",
            hint="--spark-remote sc://HOST:PORT reaches a Spark Connect server",
            exit_code=2,
        )
    on_cluster = bool(remote) or bool(master and not master.startswith("local"))
    if not on_cluster:
        if stage:
            raise CsrwhError(
                "--stage applies to a cluster build (--spark-remote or --spark-master spark://…)",
                hint="a local Spark session keeps its files in the build's folder",
                exit_code=2,
            )
        return None
    if remote and not remote.startswith("sc://"):
        raise CsrwhError(
            f"--spark-remote {remote}: not a Spark Connect address",
            hint="give sc://HOST:PORT (the Connect server's port, 15002 by default)",
            exit_code=2,
        )
    where = f"--spark-remote {remote}" if remote else f"--spark-master {master}"
    if not stage:
        raise CsrwhError(
            f"{where} needs --stage, a folder every worker and this machine share",
            hint="the workers read the raw layer and write the marts there (NFS, a mounted "
            "object store); nothing on this machine's own disk is visible to them",
            exit_code=2,
        )
    parsed = urlparse(stage)
    if parsed.scheme not in ("", "file"):
        raise CsrwhError(
            f"--stage {stage}: a {parsed.scheme}: URI is not supported",
            hint="mount the store on every node and this machine (NFS, s3fs, gcsfuse) and "
            "give that folder",
            exit_code=2,
        )
    folder = Path(unquote(parsed.path) if parsed.scheme else stage).absolute()
    if not folder.is_dir():
        raise CsrwhError(
            f"--stage {stage}: no such folder on this machine",
            hint="give a folder every worker and this machine share",
            exit_code=2,
        )
    return Cluster(stage=folder, build_id=build_id, remote=remote, master=master)


def check_connect_client() -> None:
    """One line when the Spark Connect client libraries are missing."""
    import warnings

    # pyspark warns that it does not fully support pandas 3 (the build does not use it)
    warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas")
    try:
        from pyspark.sql.connect.utils import check_dependencies

        check_dependencies()
    except ImportError as exc:
        raise CsrwhError(
            f"--spark-remote needs the Spark Connect client ({str(exc).splitlines()[0]})",
            hint="pip install 'csrwh[spark]' (make setup-spark)",
        ) from exc


def check_reachable(remote: str, timeout: float = CONNECT_TIMEOUT) -> None:
    """One line when nothing answers at the Connect server's host and port."""
    parsed = urlparse(remote.split(";", 1)[0].rstrip("/"))
    host, port = parsed.hostname or "localhost", parsed.port or 15002
    try:
        with socket.create_connection((host, port), timeout=timeout):
            pass
    except OSError as exc:
        why = exc.strerror or type(exc).__name__
        raise CsrwhError(
            f"cannot reach the Spark Connect server at {host}:{port} ({why})",
            hint="start it on the cluster (sbin/start-connect-server.sh) or correct --spark-remote",
        ) from exc


def connect(remote: str):
    """The Spark Connect session of the build (dbt-spark's ``session`` method gets the same one
    while ``SPARK_REMOTE`` is set)."""
    from pyspark.sql import SparkSession

    try:
        session = SparkSession.builder.remote(remote).getOrCreate()
        session.version  # noqa: B018 -- the first call to the server
    except Exception as exc:  # pyspark raises its own error classes per failure
        raise CsrwhError(
            f"the Spark Connect server at {remote} refused the session ({_first_line(exc)})",
            hint="check the server's log",
        ) from exc
    return session


def probe_workers(session, cluster: Cluster) -> None:
    """The workers write the stage, this machine sees their files, and their Python imports
    :data:`WORKER_MODULES`; each failure one line, naming what is missing."""
    probe = cluster.folder / "probe"
    try:
        session.range(0, PROBE_TASKS, 1, PROBE_TASKS).write.mode("overwrite").parquet(
            probe.as_uri()
        )
    except Exception as exc:
        raise CsrwhError(
            f"the Spark workers could not write the stage {cluster.stage} ({_first_line(exc)})",
            hint="--stage must be a folder every worker can write, at the same path",
        ) from exc
    if not list(probe.glob("*.parquet")):
        raise CsrwhError(
            f"the Spark workers wrote to {probe}, but this machine does not see their files",
            hint="--stage must be one folder every worker and this machine share, at the same "
            "path (NFS, a mounted object store)",
        )
    shutil.rmtree(probe, ignore_errors=True)
    _probe_imports(session)


def _probe_imports(session) -> None:
    from pyspark.sql.functions import udf

    check = udf(_import_check(WORKER_MODULES), "string")
    try:
        rows = session.range(0, PROBE_TASKS, 1, PROBE_TASKS).select(check("id")).collect()
    except Exception as exc:
        raise CsrwhError(
            f"the Spark workers could not run Python ({_python_cause(exc)})",
            hint=_WORKER_HINT,
        ) from exc
    missing = sorted({row[0] for row in rows if row[0]})
    if missing:
        raise CsrwhError(
            f"the Spark workers cannot import {'; '.join(missing)}",
            hint=_WORKER_HINT,
        )


def _import_check(modules: tuple[str, ...]):
    """A function for a worker: the modules it cannot import, with why. Built here so that
    Spark ships its code by value (a module-level function would need csrwh to unpickle)."""

    def check(_value):
        import importlib

        missing = []
        for module in modules:
            try:
                importlib.import_module(module)
            except Exception as exc:  # noqa: BLE001 -- any failure is reported by name
                missing.append(f"{module} ({type(exc).__name__}: {exc})")
        return "; ".join(missing)

    return check


def _python_cause(exc: BaseException) -> str:
    """The Python error a worker raised (the last ``…Error: …`` line of the worker's stack
    trace that pyspark passes on, e.g. ``ModuleNotFoundError: No module named 'pandas'``),
    else the first line."""
    import re

    causes = [
        line.strip()
        for line in str(exc).split("JVM stacktrace:", 1)[0].splitlines()
        if re.match(r"^\s*(\w+\.)*\w+(Error|Exception): ", line)
        and "exception was thrown from the Python worker" not in line
    ]
    return causes[-1] if causes else _first_line(exc)


def _first_line(exc: BaseException) -> str:
    """An exception's first meaningful line (pyspark's start with the error class)."""
    for line in str(exc).splitlines():
        if line.strip():
            return line.strip()
    return type(exc).__name__


def environment(cluster: Cluster | None) -> dict[str, str]:
    """The variables the profile and macros read for a cluster build (empty for local)."""
    if cluster is None:
        return {}
    out = {"CSRWH_SPARK_STAGE": cluster.uri}
    if cluster.remote:
        out["SPARK_REMOTE"] = cluster.remote
    if cluster.master:
        out["CSRWH_SPARK_MASTER"] = cluster.master
    return out


class scoped_environment:
    """Set variables while a block runs; put back what was there (also pyspark's own
    ``SPARK_CONNECT_MODE_ENABLED``, which its builder sets on a Connect session)."""

    def __init__(self, values: dict[str, str], restore: tuple[str, ...] = ()) -> None:
        self.values = values
        self.names = tuple(values) + restore
        self.saved: dict[str, str | None] = {}

    def __enter__(self):
        self.saved = {name: os.environ.get(name) for name in self.names}
        os.environ.update(self.values)
        return self

    def __exit__(self, *exc) -> None:
        for name, value in self.saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
