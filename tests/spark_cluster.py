"""A Spark standalone cluster on 127.0.0.1 for tests and benchmarks, from the pyspark wheel's
own launcher (``bin/spark-class``): a master, workers and a Spark Connect server, each a JVM
whose process id is the launched one (``spark-class`` and ``unshare`` exec, they do not fork).

The workers and the Connect server run in a mount namespace of their own (``unshare -m``, as
root) with an empty tmpfs over each folder in ``hidden``: they share this machine's disk except
those folders, as a cluster whose nodes share only the stage. :meth:`LocalCluster.stop` ends
every process it started, by process id."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

STARTUP_SECONDS = 120


def spark_home() -> Path:
    import pyspark

    return Path(pyspark.__file__).parent


def namespaces_unavailable() -> str | None:
    """Why workers cannot be given a mount namespace here, or None when they can."""
    if os.geteuid() != 0:
        return "hiding the build folder from the workers needs root (unshare -m, mount tmpfs)"
    if shutil.which("unshare") is None:
        return "unshare (util-linux) is not installed"
    probe = subprocess.run(
        ["unshare", "-m", "--propagation", "private", "mount", "-t", "tmpfs", "tmpfs", "/mnt"],
        check=False,
        capture_output=True,
        text=True,
    )
    if probe.returncode != 0:
        return f"unshare -m with a tmpfs fails here: {probe.stderr.strip()}"
    return None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_for_port(port: int, process: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(
                f"{log.name} exited ({process.returncode}): {log.read_text()[-2000:]}"
            )
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.5)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port} after {STARTUP_SECONDS} s ({log})")


@dataclass
class LocalCluster:
    """A standalone master, workers and Connect servers started under ``root``."""

    root: Path
    hidden: list[Path] = field(default_factory=list)
    processes: list[subprocess.Popen] = field(default_factory=list)
    master_url: str = ""

    def _env(self, python: str | None = None) -> dict[str, str]:
        env = dict(os.environ)
        env.update(
            SPARK_HOME=str(spark_home()),
            SPARK_LOCAL_IP="127.0.0.1",
            SPARK_NO_DAEMONIZE="1",
            PYSPARK_PYTHON=python or sys.executable,
        )
        for name in ("SPARK_REMOTE", "SPARK_CONNECT_MODE_ENABLED", "CSRWH_SPARK_MASTER"):
            env.pop(name, None)
        return env

    def _start(self, name: str, args: list[str], *, hide: bool, python: str | None = None):
        command = [str(spark_home() / "bin" / "spark-class"), *args]
        if hide and self.hidden:
            mounts = " && ".join(f'mount -t tmpfs tmpfs "{p}"' for p in self.hidden)
            command = [
                "unshare", "-m", "--propagation", "private",
                "sh", "-c", f'{mounts} && exec "$@"', "sh", *command,
            ]  # fmt: skip
        log = self.root / f"{name}.log"
        with log.open("w") as out:
            process = subprocess.Popen(
                command,
                cwd=self.root,
                env=self._env(python),
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
        self.processes.append(process)
        return process, log

    def start_master(self) -> str:
        port = free_port()
        process, log = self._start(
            "master",
            ["org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port",
             str(port), "--webui-port", str(free_port())],
            hide=False,
        )  # fmt: skip
        _wait_for_port(port, process, log)
        self.master_url = f"spark://127.0.0.1:{port}"
        return self.master_url

    def start_worker(self, name: str, cores: int = 1, memory: str = "1g") -> None:
        work = self.root / name
        work.mkdir()
        port = free_port()
        process, log = self._start(
            name,
            ["org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1", "--port",
             str(port), "--webui-port", str(free_port()), "--cores", str(cores), "--memory",
             memory, "--work-dir", str(work), self.master_url],
            hide=True,
        )  # fmt: skip
        _wait_for_port(port, process, log)

    def start_connect(
        self, name: str = "connect", *, python: str | None = None, executor_memory: str = "768m"
    ) -> tuple[str, subprocess.Popen]:
        """A Spark Connect server on the master; its executors' Python is ``python``."""
        port = free_port()
        process, log = self._start(
            name,
            [
                "org.apache.spark.deploy.SparkSubmit",
                "--class", "org.apache.spark.sql.connect.service.SparkConnectServer",
                "--name", name,
                "--master", self.master_url,
                "--conf", f"spark.connect.grpc.binding.port={port}",
                "--conf", "spark.connect.grpc.binding.address=127.0.0.1",
                "--conf", "spark.driver.host=127.0.0.1",
                "--conf", "spark.driver.bindAddress=127.0.0.1",
                "--conf", "spark.ui.enabled=false",
                "--conf", f"spark.executor.memory={executor_memory}",
                "--conf", f"spark.sql.warehouse.dir={self.root / name / 'warehouse'}",
                "--conf", f"spark.local.dir={self.root / name / 'tmp'}",
            ],
            hide=True,
            python=python,
        )  # fmt: skip
        _wait_for_port(port, process, log)
        return f"sc://127.0.0.1:{port}", process

    def stop_process(self, process: subprocess.Popen) -> None:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def stop(self) -> None:
        """End every process started, newest first (Connect servers, workers, master)."""
        for process in reversed(self.processes):
            self.stop_process(process)
