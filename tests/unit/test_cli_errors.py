"""One-line errors everywhere (issue 13, item 11): usage errors read as usage, `--version`, a
read-only warehouse folder, a busy dashboard port, network failures, Ctrl-C outside a build."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest


def run_cli(
    *args: str, module: str = "csrwh.cli", cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, DO_NOT_TRACK="1", COLUMNS="200")
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        check=False,
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=300,
    )


def assert_one_line_with_hint(result: subprocess.CompletedProcess[str]) -> tuple[str, str]:
    assert "Traceback" not in result.stderr, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("error:")]
    hints = [line for line in lines if line.startswith("hint:")]
    assert len(errors) == 1 and len(hints) == 1, result.stderr
    return errors[0], hints[0]


@pytest.mark.parametrize(
    "args, says",
    [
        (["build", "--bogus"], "No such option: --bogus"),
        (["sample"], "Missing option '--out'"),
        (["sql"], "Missing argument"),
        (["frobnicate"], "No such command 'frobnicate'"),
    ],
)
def test_usage_errors_read_as_usage(args: list[str], says: str) -> None:
    result = run_cli(*args)
    assert result.returncode == 2, result.stderr
    assert "Usage: csrwh" in result.stderr and says in result.stderr, result.stderr
    assert "--help" in result.stderr
    assert "Traceback" not in result.stderr and "error: " not in result.stderr  # not a crash line


def test_version() -> None:
    from csrwh import __version__

    result = run_cli("--version")
    assert result.returncode == 0 and result.stdout.strip() == f"csrwh {__version__}"


def _read_only_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "ro"
    folder.mkdir()
    if os.geteuid() != 0:
        folder.chmod(0o555)
        return folder
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", str(folder)],
        check=False,
        capture_output=True,
    )
    if mounted.returncode != 0:
        pytest.skip(
            f"root without permission to mount a read-only tmpfs: {mounted.stderr.decode().strip()}"
        )
    return folder


def test_read_only_warehouse_folder_is_one_line_with_a_hint(tmp_path: Path) -> None:
    from csrwh.sample import generate

    data = tmp_path / "data"
    generate(data, scale=1, seed=1, corpora=["crsarena"])
    folder = _read_only_folder(tmp_path)
    try:
        for command in ("build", "ingest"):
            result = run_cli(
                command, "--data-dir", str(data), "--warehouse", str(folder / "wh.duckdb")
            )
            assert result.returncode == 1, result.stderr
            error, hint = assert_one_line_with_hint(result)
            assert str(folder) in error and ("read-only" in error or "not writable" in error), error
            assert "--warehouse" in hint
    finally:
        if os.geteuid() == 0:
            subprocess.run(["umount", str(folder)], check=False)
        else:
            folder.chmod(0o755)


@pytest.mark.parametrize("module", ["csrwh.cli", "csrwh.reading.dashboard"])
def test_busy_dashboard_port_is_one_line_with_a_hint(tmp_path: Path, module: str) -> None:
    warehouse = tmp_path / "wh.duckdb"
    warehouse.write_bytes(b"")
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        args = ["--port", str(port), "--warehouse", str(warehouse)]
        result = run_cli(*(["dashboard", *args] if module == "csrwh.cli" else args), module=module)
    assert result.returncode == 1, result.stderr
    error, hint = assert_one_line_with_hint(result)
    assert f"port {port}" in error and "in use" in error
    assert "--port" in hint


def test_network_failures_become_one_line_with_a_hint() -> None:
    import urllib.error

    from csrwh.cli import _os_error

    known = _os_error(urllib.error.URLError(OSError(101, "Network is unreachable")))
    assert (
        known is not None
        and "network unreachable" in known.message
        and "CSRWH_MIRROR" in known.hint
    )
    assert "disk" in _os_error(OSError(28, "No space left on device")).hint


def test_ctrl_c_outside_a_build_is_one_line_exit_130(tmp_path: Path) -> None:
    code = (
        "import os, signal, sys\n"
        "from csrwh import cli\n"
        "def boom(*a, **k):\n"
        "    raise KeyboardInterrupt\n"
        "cli.app = boom\n"
        "cli.main()\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], check=False, capture_output=True, text=True
    )
    assert result.returncode == 130
    assert result.stderr.strip() == "error: interrupted"
