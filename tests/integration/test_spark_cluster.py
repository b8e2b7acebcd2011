"""`csrwh build --engine spark --spark-remote sc://… --stage FOLDER` on a Spark cluster whose
workers share no disk with the build but the stage: a standalone master, two workers (1 core,
1 GB each) and a Spark Connect server started from the pyspark wheel on 127.0.0.1, the workers
and the server in a mount namespace with an empty tmpfs over the folder the warehouses are
built in (``tests/spark_cluster.py``). The generated sample builds there with every mart equal
to the DuckDB build's by value; an unreachable server, a stage the workers do not share and
workers without csrwh each stop the build in one line before anything is published.

Needs the ``spark`` extra, Java and root (``unshare -m``); skipped, saying why, where one is
missing unless CI is set, where that is a failure. Every process it starts is stopped by pid.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest
from docs_text import code_blocks, doc_section
from spark_cluster import LocalCluster, free_port, namespaces_unavailable
from spark_engine import require_spark

from csrwh.pipeline import spark, spark_parity

pytestmark = [pytest.mark.integration, pytest.mark.timeout(3600)]

#: the csrwh command of this interpreter's environment
CSRWH = [str(Path(sys.executable).parent / "csrwh")]


def _require_namespaces() -> None:
    why = namespaces_unavailable()
    if why is None:
        return
    if os.environ.get("CI"):
        pytest.fail(f"{why} (CI is set, so this is an error)")
    pytest.skip(why)


@pytest.fixture(scope="module")
def place(module_tmp_path: Path):
    """The sample, the folder the builds write (hidden from the cluster) and the stage."""
    from csrwh.sample import generate

    root = module_tmp_path
    generate(root / "data", scale=1, seed=7)
    (root / "builds").mkdir()
    (root / "stage").mkdir()
    (root / "cluster").mkdir()
    return root


@pytest.fixture(scope="module")
def cluster(place: Path):
    require_spark()
    _require_namespaces()
    started = LocalCluster(root=place / "cluster", hidden=[place / "builds"])
    try:
        started.start_master()
        started.start_worker("worker-1")
        started.start_worker("worker-2")
        yield started
    finally:
        started.stop()
        alive = [p.pid for p in started.processes if p.poll() is None]
        assert alive == [], f"processes left running: {alive}"


def readme_cluster_command() -> list[str]:
    """The documented one command for a cluster: README's "When your data outgrows one
    machine", the same as docs/spark.md's "One command on a cluster"."""
    block = code_blocks(doc_section("When your data outgrows one machine")[1], "bash")[0]
    assert block == code_blocks(doc_section("One command on a cluster")[1], "bash")[0]
    words = shlex.split(block.replace("\\\n", " "))
    assert words[:4] == [".venv/bin/csrwh", "build", "--engine", "spark"], words
    return words


def _build(
    place: Path, name: str, remote: str, stage: Path, *, master: str | None = None
) -> subprocess.CompletedProcess:
    """The documented cluster command, with this test's server, stage, data and warehouse;
    with ``master``, the same command with ``--spark-master`` in place of ``--spark-remote``."""
    values = {
        "--spark-remote": remote,
        "--stage": str(stage),
        "--data-dir": str(place / "data"),
        "--warehouse": str(place / "builds" / name / "demo.duckdb"),
    }
    words = readme_cluster_command()
    assert sorted(w for w in words if w.startswith("--") and w != "--engine") == sorted(values)
    command = [*CSRWH, *words[1:]]
    for i, word in enumerate(command[:-1]):
        if word in values:
            command[i + 1] = values[word]
    if master is not None:
        at = command.index("--spark-remote")
        command[at : at + 2] = ["--spark-master", master]
    env = dict(os.environ, CSRWH_DBT_TARGET_PATH=str(place / "target" / name), DO_NOT_TRACK="1")
    # the driver of a --spark-master build is this process: the workers reach it on 127.0.0.1,
    # and its executors fit the workers' 1 GB
    env.update(SPARK_LOCAL_IP="127.0.0.1", CSRWH_SPARK_EXECUTOR_MEMORY="768m")
    env.pop("SPARK_REMOTE", None)
    return subprocess.run(
        command, check=False, capture_output=True, text=True, env=env, timeout=3000
    )


def _refused(place: Path, name: str, run: subprocess.CompletedProcess) -> str:
    """The build failed in one error line, and left nothing beside the warehouse but its empty
    build folder (none when it stopped before taking the build lock) and nothing on the stage."""
    assert run.returncode != 0, run.stdout
    errors = [line for line in run.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, run.stderr[-3000:]
    folder = place / "builds" / name
    left = sorted(
        p.relative_to(folder).as_posix()
        for p in folder.rglob("*")
        if p.name != ".lock" and "lock" not in p.name
    )
    assert left in ([], ["demo.duckdb.build"]), left
    assert not (folder / "demo.duckdb.spark").exists()
    assert list((place / "stage").iterdir()) == []
    return errors[0]


def test_an_unreachable_server_is_one_line(place: Path) -> None:
    require_spark()
    remote = f"sc://127.0.0.1:{free_port()}"
    line = _refused(place, "unreachable", _build(place, "unreachable", remote, place / "stage"))
    assert line.startswith(f"error: cannot reach the Spark Connect server at {remote[5:]}"), line


def test_workers_without_csrwh_are_one_line(place: Path, cluster: LocalCluster) -> None:
    # a Connect server whose executors run a Python without csrwh or its dependencies
    remote, server = cluster.start_connect("connect-bare", python="/usr/bin/python3")
    try:
        run = _build(place, "bare", remote, place / "stage")
    finally:
        cluster.stop_process(server)  # its executors hold the workers' cores
    line = _refused(place, "bare", run)
    # the worker's own error names the module it misses (pyspark's dependencies come first;
    # with them installed, csrwh itself)
    assert line.startswith("error: the Spark workers c"), line
    assert "No module named" in line, line
    assert "pip install 'csrwh'" in run.stderr


@pytest.mark.parametrize("route", ["remote", "master"])
def test_a_stage_the_workers_do_not_share_is_one_line(
    place: Path, cluster: LocalCluster, route: str
) -> None:
    """On either route, the one error line is the probe's, naming the stage the workers do not
    share with this machine (not Spark's own error from the step that first read it)."""
    unshared = (
        place / "builds" / f"unshared-stage-{route}"
    )  # under the folder the cluster cannot see
    unshared.mkdir(parents=True)
    name = f"unshared-{route}"
    if route == "remote":
        remote, server = cluster.start_connect("connect-stage")
        try:
            run = _build(place, name, remote, unshared)
        finally:
            cluster.stop_process(server)
    else:
        run = _build(place, name, "", unshared, master=cluster.master_url)
    assert run.returncode != 0
    errors = [line for line in run.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, run.stderr[-3000:]
    # the probe's line (the workers' files are not seen here, or their job could not commit
    # them), naming the stage; not Spark's error from the first step that read the stage
    assert errors[0].startswith("error: the Spark workers "), errors[0]
    assert str(unshared) in errors[0] and "registering" not in errors[0], errors[0]
    assert list(unshared.iterdir()) == []
    assert not (place / "builds" / name / "demo.duckdb.spark").exists()


def _duckdb_build(place: Path, name: str) -> None:
    """The sample built by DuckDB into the warehouse the cluster build then writes beside (the
    reference its marts are compared with)."""
    from csrwh.gate.run import gate
    from csrwh.pipeline import build

    warehouse = place / "builds" / name / "demo.duckdb"
    os.environ["CSRWH_DBT_TARGET_PATH"] = str(place / "target" / "duckdb")
    try:
        assert build(place / "data", warehouse, gates=[gate]).published
    finally:
        os.environ.pop("CSRWH_DBT_TARGET_PATH", None)


def _check_cluster_build(place: Path, name: str, run: subprocess.CompletedProcess) -> None:
    """The cluster build published every mart equal to DuckDB's by value, kept a local copy of
    each, named its folder on the stage in the manifest and removed its own work folder."""
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "nanobind: leaked" not in run.stderr
    warehouse = place / "builds" / name / "demo.duckdb"
    parity = spark_parity.compare(warehouse)
    assert [p.line() for p in parity if p.status != "match"] == []
    assert sorted(p.mart for p in parity) == sorted(spark.project_marts())
    manifest = json.loads((spark.spark_dir(warehouse) / ".csrwh-spark.json").read_text())
    assert sorted(manifest["marts"]) == sorted(spark.project_marts())
    (stage_folder,) = [p for p in (place / "stage").iterdir() if p.as_uri() == manifest["stage"]]
    assert (stage_folder / "main.db").is_dir()
    assert not [p for p in warehouse.with_name("demo.duckdb.build").iterdir() if "spark-" in p.name]


def test_cluster_build_equals_duckdb_by_value(place: Path, cluster: LocalCluster) -> None:
    _duckdb_build(place, "cluster")
    remote, server = cluster.start_connect()
    try:
        started = time.perf_counter()
        run = _build(place, "cluster", remote, place / "stage")
        print(f"cluster build of the sample: {time.perf_counter() - started:.0f} s")
    finally:
        cluster.stop_process(server)  # its executors hold the workers' cores
    _check_cluster_build(place, "cluster", run)


def test_standalone_master_build_with_a_stage_equals_duckdb_by_value(
    place: Path, cluster: LocalCluster
) -> None:
    """``--spark-master spark://…`` without Connect: the driver is the build's process, the
    executors run on the workers, which see the stage and not the build's folder."""
    _duckdb_build(place, "standalone")
    started = time.perf_counter()
    run = _build(place, "standalone", "", place / "stage", master=cluster.master_url)
    print(f"standalone-master build of the sample: {time.perf_counter() - started:.0f} s")
    _check_cluster_build(place, "standalone", run)
