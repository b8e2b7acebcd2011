"""`csrwh dashboard`: a local Streamlit dashboard over the published warehouse (read-only).

    from csrwh.reading.dashboard import serve
    serve(Path("warehouse/csr.duckdb"), port=8501)      # execs streamlit; Ctrl-C stops it

The app (``app.py``) and its pages (``views/*.py``; not ``pages/``, which Streamlit would
auto-discover and run without the app) only lay out what the query layer
(``queries.py``) returns; the warehouse path reaches them through ``CSRWH_WAREHOUSE``.
Importing this package does not import Streamlit.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

from csrwh.errors import CsrwhError

PACKAGE_DIR = Path(__file__).resolve().parent
APP_PATH = PACKAGE_DIR / "app.py"
PAGES_DIR = PACKAGE_DIR / "views"
DEFAULT_ADDRESS = "127.0.0.1"
DEFAULT_PORT = 8501


@dataclass(frozen=True)
class PageSpec:
    """One dashboard page: its script, title, URL path (``/<url_path>``) and icon."""

    file: str
    title: str
    url_path: str
    icon: str

    @property
    def path(self) -> Path:
        return PAGES_DIR / self.file


PAGES: tuple[PageSpec, ...] = (
    PageSpec("overview.py", "Corpus overview", "overview", ":material/dashboard:"),
    PageSpec("conversations.py", "Conversation browser", "conversations", ":material/forum:"),
    PageSpec("arena.py", "CRS Arena", "arena", ":material/leaderboard:"),
    PageSpec("intents.py", "Intents & agreement", "intents", ":material/label:"),
    PageSpec("ratings.py", "Ratings by aspect", "ratings", ":material/star:"),
    PageSpec("search.py", "ConvSearch behaviour", "search", ":material/travel_explore:"),
    PageSpec("health.py", "Data health", "health", ":material/health_and_safety:"),
    PageSpec("leaderboard.py", "Leaderboard", "leaderboard", ":material/trophy:"),
)


def streamlit_command(
    port: int = DEFAULT_PORT, address: str = DEFAULT_ADDRESS, open_browser: bool = False
) -> list[str]:
    """The command line that runs the app: headless unless ``open_browser``, no telemetry,
    no source-file watcher."""
    return [
        sys.executable, "-m", "streamlit", "run", str(APP_PATH),
        "--server.headless", "false" if open_browser else "true",
        "--server.address", address,
        "--server.port", str(port),
        "--browser.serverAddress", address,
        "--browser.serverPort", str(port),
        "--browser.gatherUsageStats", "false",
        "--server.fileWatcherType", "none",
        "--server.runOnSave", "false",
        "--client.toolbarMode", "minimal",
        "--global.developmentMode", "false",
    ]  # fmt: skip


def streamlit_env(warehouse: Path, base: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ if base is None else base)
    env["CSRWH_WAREHOUSE"] = str(warehouse)
    env["STREAMLIT_BROWSER_GATHER_USAGE_STATS"] = "false"
    env["DO_NOT_TRACK"] = "1"
    return env


def _check(warehouse: Path) -> Path:
    warehouse = Path(warehouse).expanduser().resolve()
    if not warehouse.is_file():
        raise CsrwhError(
            f"warehouse {warehouse} does not exist",
            hint="build it first: make demo (sample data) or make build (real corpora)",
        )
    try:
        import streamlit  # noqa: F401
    except ImportError as exc:
        raise CsrwhError(
            "the dashboard needs Streamlit, which is not installed",
            hint="pip install -c requirements.lock streamlit",
        ) from exc
    return warehouse


def start(
    warehouse: Path,
    port: int = DEFAULT_PORT,
    address: str = DEFAULT_ADDRESS,
    open_browser: bool = False,
    **popen_kwargs,
) -> subprocess.Popen:
    """Start the dashboard as a child process (tests, notebooks); the caller stops it."""
    warehouse = _check(warehouse)
    return subprocess.Popen(
        streamlit_command(port, address, open_browser), env=streamlit_env(warehouse), **popen_kwargs
    )


def serve(
    warehouse: Path,
    port: int = DEFAULT_PORT,
    open_browser: bool = False,
    address: str = DEFAULT_ADDRESS,
) -> NoReturn:
    """Replace this process with the Streamlit server on ``address:port`` (``csrwh dashboard``)."""
    warehouse = _check(warehouse)
    print(f"CSR Warehouse dashboard on http://{address}:{port} (warehouse {warehouse}, read-only)",
          file=sys.stderr, flush=True)  # fmt: skip
    cmd = streamlit_command(port, address, open_browser)
    os.execve(cmd[0], cmd, streamlit_env(warehouse))


def free_port(address: str = DEFAULT_ADDRESS) -> int:
    """A TCP port that is free on ``address`` right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((address, 0))
        return sock.getsockname()[1]


__all__ = ["APP_PATH", "PAGES", "PageSpec", "free_port", "serve", "start", "streamlit_command"]
