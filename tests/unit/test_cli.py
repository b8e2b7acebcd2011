"""The `csrwh` entry point: help for every command, one-line errors with a hint."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

COMMANDS = [
    "fetch",
    "sample",
    "ingest",
    "build",
    "validate",
    "sql",
    "export",
    "report",
    "dashboard",
]


def run_cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "csrwh.cli", *args],
        check=False,
        capture_output=True,
        text=True,
        env=env,
    )


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help(command: str) -> None:
    result = run_cli(command, "--help")
    assert result.returncode == 0, result.stderr
    assert "--data-dir" in result.stdout and "--warehouse" in result.stdout


def test_error_is_one_line_with_hint_not_a_traceback(tmp_path: Path) -> None:
    result = run_cli("sql", "--warehouse", str(tmp_path / "nope.duckdb"), "select 1")
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "error:" in result.stderr and "hint:" in result.stderr


def test_ingest_strict_fails_on_a_reject_and_names_the_file(tmp_path: Path) -> None:
    data = tmp_path / "data"
    votes = data / "crsarena-dial" / "data" / "votes_open.csv"
    votes.parent.mkdir(parents=True)
    votes.write_text(
        "session_id,user_id,crs1,crs2,vote,feedback\r\n"
        "2024-09-08 23:01:08,u1,kbrd_redial,barcor_redial,tie,\r\n"
        "2024-09-08 23:02:08,u2,kbrd_redial,barcor_redial\r\n",  # a field short
        encoding="utf-8",
    )
    warehouse = tmp_path / "wh.duckdb"
    args = ["ingest", "--data-dir", str(data), "--warehouse", str(warehouse)]
    lenient = run_cli(*args)
    assert lenient.returncode == 0, lenient.stderr
    assert "votes_open.csv" in lenient.stderr
    strict = run_cli(*args, "--strict")  # the reject is still in the warehouse
    assert strict.returncode == 3
    assert "rejected" in strict.stderr and "Traceback" not in strict.stderr
    votes.write_bytes(votes.read_bytes().replace(b"barcor_redial\r\n", b"barcor_redial,tie,\r\n"))
    fixed = run_cli(*args, "--strict")  # the fixed file replaces its rows and its rejects
    assert fixed.returncode == 0, fixed.stderr


def test_help_keeps_square_brackets_the_source_wrote() -> None:
    """Typer renders help with Rich, which reads `csrwh[spark]` as a style tag and drops it: every
    `word[extra]` written in a command's or option's help must reach the rendered help."""
    import re

    import typer
    from typer.testing import CliRunner

    from csrwh.cli import app

    runner = CliRunner()
    lost = []
    for name, command in typer.main.get_command(app).commands.items():
        written = [command.help or ""] + [getattr(p, "help", None) or "" for p in command.params]
        shown = " ".join(runner.invoke(app, [name, "--help"], terminal_width=200).output.split())
        for text in written:
            for found in re.finditer(r"\w\\?\[[\w-]+\]", text):
                word = found.group(0).replace("\\[", "[")
                if word not in shown:
                    lost.append(f"{name}: {word}")
    assert not lost, lost
