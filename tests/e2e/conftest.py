"""Fixtures for the dashboard's end-to-end tests: a built sample warehouse (built once per test
session, shared by pytest-xdist workers), a running `csrwh dashboard` server and headless
Chromium driven by Playwright.

Browser: Debian's ``/usr/bin/chromium`` (``apt-get install chromium``), launched by Python
Playwright's bundled driver with ``executable_path`` -- never ``playwright install``, no
download at test time. Without Chromium (or Playwright / Streamlit) the tests skip with the
reason, unless ``CI`` is set: then they fail, so CI cannot silently lose them.

Environment:
- ``CSRWH_E2E_WAREHOUSE``: use this warehouse (copied) instead of building the sample one.
- ``CSRWH_CHROMIUM``: Chromium binary (default: /usr/bin/chromium, else chromium on PATH).
- ``CSRWH_SCREENSHOTS``: screenshot folder (default: reports/screenshots).
"""

from __future__ import annotations

import fcntl
import importlib.util
import os
import shutil
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

PROJECT_ROOT = Path(__file__).resolve().parents[2]
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-dev-shm-usage",
]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "e2e: starts the dashboard and drives headless Chromium")


def require(condition: bool, reason: str) -> None:
    """Skip with ``reason`` locally; fail in CI (env CI set)."""
    if condition:
        return
    if os.environ.get("CI"):
        pytest.fail(f"{reason} -- CI is set, so the dashboard e2e test must run", pytrace=False)
    pytest.skip(reason)


def chromium_path() -> str | None:
    explicit = os.environ.get("CSRWH_CHROMIUM")
    if explicit:
        return explicit if Path(explicit).is_file() else None
    if Path("/usr/bin/chromium").is_file():
        return "/usr/bin/chromium"
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="session")
def browser_requirements() -> str:
    """Chromium's path; skips (fails under CI) when the e2e toolchain is missing."""
    path = chromium_path()
    require(path is not None, "Chromium not installed (apt-get install -y chromium)")
    require(
        importlib.util.find_spec("playwright") is not None,
        "Python playwright not installed (pip install playwright)",
    )
    require(
        importlib.util.find_spec("streamlit") is not None,
        "streamlit not installed (pip install streamlit)",
    )
    return path  # type: ignore[return-value]


@pytest.fixture(scope="session")
def sample_warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The published sample warehouse (all five corpora), built once per session; with xdist
    the first worker builds it under a file lock and the others reuse it. Read-only for tests:
    copy it before changing anything."""
    explicit = os.environ.get("CSRWH_E2E_WAREHOUSE")
    if explicit:
        path = Path(explicit).resolve()
        assert path.is_file(), f"CSRWH_E2E_WAREHOUSE={explicit} does not exist"
        return path
    shared = tmp_path_factory.getbasetemp().parent / "dashboard_e2e_sample"
    shared.mkdir(exist_ok=True)
    warehouse = shared / "demo.duckdb"
    with open(shared / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not warehouse.exists():
                from csrwh.pipeline import build
                from csrwh.sample import generate

                previous = os.environ.get("CSRWH_DBT_TARGET_PATH")
                os.environ["CSRWH_DBT_TARGET_PATH"] = str(shared / "target")
                try:
                    generate(shared / "data", scale=1, seed=0)
                    result = build(shared / "data", warehouse)
                finally:
                    if previous is None:
                        os.environ.pop("CSRWH_DBT_TARGET_PATH", None)
                    else:
                        os.environ["CSRWH_DBT_TARGET_PATH"] = previous
                assert result.published, "sample build did not publish"
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return warehouse


def wait_healthy(base_url: str, proc: subprocess.Popen, log: Path, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(
                f"dashboard exited with {proc.returncode}:\n{log.read_text(errors='replace')}"
            )
        try:
            with urllib.request.urlopen(f"{base_url}/_stcore/health", timeout=2) as response:
                if response.status == 200 and response.read().strip() == b"ok":
                    return
        except OSError:
            pass
        time.sleep(0.25)
    raise AssertionError(
        f"dashboard not healthy after {timeout:.0f}s:\n{log.read_text(errors='replace')}"
    )


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


class Dashboard:
    """A running dashboard server (started with csrwh.reading.dashboard.start, i.e. `csrwh dashboard`)."""

    def __init__(self, warehouse: Path, log: Path) -> None:
        from csrwh.reading.dashboard import free_port, start

        self.warehouse = warehouse
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.log = log
        self._log_file = open(log, "wb")  # noqa: SIM115 - closed in close()
        self.proc = start(
            warehouse, port=self.port, stdout=self._log_file, stderr=subprocess.STDOUT
        )
        try:
            wait_healthy(self.base_url, self.proc, log)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        stop(self.proc)
        self._log_file.close()


@pytest.fixture
def dashboard_factory(tmp_path: Path) -> Iterator:
    started: list[Dashboard] = []

    def make(warehouse: Path) -> Dashboard:
        dash = Dashboard(warehouse, tmp_path / f"streamlit-{len(started)}.log")
        started.append(dash)
        return dash

    yield make
    for dash in started:
        dash.close()


@pytest.fixture
def chromium_browser(browser_requirements: str) -> Iterator:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(
            executable_path=browser_requirements, args=CHROMIUM_ARGS, headless=True
        )
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture(scope="session")
def screenshot_dir() -> Path:
    path = Path(os.environ.get("CSRWH_SCREENSHOTS") or PROJECT_ROOT / "reports" / "screenshots")
    path.mkdir(parents=True, exist_ok=True)
    return path
