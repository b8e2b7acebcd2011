"""`make test` is self-sufficient (issue 13, item 12): it installs what the browser tests need
when it can (apt as root or with passwordless sudo), and `.ci/run` ends by running it."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from csrwh.config import PROJECT_ROOT

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def make(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["make", "-s", "-C", str(PROJECT_ROOT), *args],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_make_test_installs_browser_deps_before_running_pytest() -> None:
    dry = make("-n", "test").stdout
    assert "apt-get" in dry or "APT_GET" in dry
    assert "chromium" in dry and "fonts-wqy-microhei" in dry
    assert dry.index("chromium") < dry.index("pytest")


def test_browser_deps_installs_missing_chromium_with_apt(tmp_path: Path) -> None:
    log = tmp_path / "apt.log"
    fake = tmp_path / "apt-get"
    fake.write_text(f'#!/bin/sh\necho "$@" >> {log}\n')
    fake.chmod(0o755)
    result = make("browser-deps", "BROWSER_CMD=csrwh-no-such-browser", f"APT_GET={fake}")
    assert result.returncode == 0, result.stderr
    if (
        os.geteuid() != 0 and not log.exists()
    ):  # no root, no passwordless sudo: says what to install
        assert "apt-get install -y chromium" in result.stdout
        return
    calls = log.read_text().splitlines()
    assert calls[0].startswith("update") and "install" in calls[1] and "chromium" in calls[1]


def test_browser_deps_does_nothing_when_all_is_there() -> None:
    if shutil.which("chromium") is None:
        pytest.skip("chromium is not installed here")
    result = make("browser-deps", "APT_GET=/bin/false")
    assert result.returncode == 0 and "installing" not in result.stdout


def test_ci_run_ends_with_make_test() -> None:
    lines = [
        line.strip()
        for line in (PROJECT_ROOT / ".ci" / "run").read_text().splitlines()
        if line.strip()
    ]
    assert lines[-1] == "make test"
    assert any(line.startswith("export CI=") for line in lines)


def test_java_installs_the_debian_jre_only_when_java_is_missing(tmp_path: Path) -> None:
    """`make java` (part of `make setup-spark`, which `make test` -- what `.ci/run` runs -- needs)."""
    log = tmp_path / "apt.log"
    fake = tmp_path / "apt-get"
    fake.write_text(f'#!/bin/sh\necho "$@" >> {log}\n')
    fake.chmod(0o755)
    result = make("java", "JAVA_CMD=sh", f"APT_GET={fake}")  # a `java` that is there
    assert result.returncode == 0 and not log.exists()
    result = make("java", "JAVA_CMD=csrwh-no-such-java", f"APT_GET={fake}")
    assert result.returncode == 0, result.stderr
    if os.geteuid() != 0 and not log.exists():  # no root, no passwordless sudo
        assert "apt-get install -y openjdk-17-jre-headless" in result.stdout
    else:
        calls = log.read_text().splitlines()
        assert calls[0].startswith("update") and "openjdk-17-jre-headless" in calls[1]
    dry = make("-n", "test", "JAVA_CMD=sh")  # `make test` sets the Spark engine up first
    assert dry.returncode == 0, dry.stderr
    assert "openjdk-17-jre-headless" in dry.stdout and "pytest" in dry.stdout
    assert dry.stdout.index("openjdk-17-jre-headless") < dry.stdout.index("pytest")
