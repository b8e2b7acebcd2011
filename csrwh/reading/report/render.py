"""The render check: open the report in headless Chromium, read the status its own script
sets, collect console messages and save a screenshot (tests and ``--screenshot``)."""

from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from csrwh.errors import CsrwhError

CHROMIUM_CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--hide-scrollbars",
)
_CONSOLE_LINE = re.compile(r":CONSOLE[:(]")
_STATUS_ATTR = re.compile(r'<body[^>]*\bdata-report-status="([^"]*)"')
_IMAGES_ATTR = re.compile(r'<body[^>]*\bdata-report-images="([^"]*)"')
_SCROLLING_ATTR = re.compile(r'<body[^>]*\bdata-report-scrolling="([^"]*)"')


def find_chromium() -> str | None:
    """Path of a Chromium/Chrome binary ($CSRWH_CHROMIUM first), or None."""
    explicit = os.environ.get("CSRWH_CHROMIUM")
    if explicit:
        return explicit if shutil.which(explicit) else None
    for name in CHROMIUM_CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    return None


@dataclass
class RenderCheck:
    """Outcome of rendering the report in headless Chromium."""

    status: str  # what the page's own script reported ("ok" when fine)
    images: int  # images the page holds
    console: list[str] = field(default_factory=list)  # console messages (the page logs none)
    screenshot: Path | None = None
    scrolling: int = 0  # tables wider than the page (each gets a visible scroll cue)

    @property
    def ok(self) -> bool:
        return self.status == "ok" and not self.console and self.screenshot is not None


def check_render(
    report: Path,
    screenshot: Path,
    chromium: str | None = None,
    window: tuple[int, int] = (1280, 2000),
    timeout_s: int = 120,
) -> RenderCheck:
    """Render ``report`` in headless Chromium: read the status the page's script sets
    (``--dump-dom``), collect console messages (``--enable-logging=stderr``; the page writes
    none, so any is an error) and save a PNG screenshot of the first screen."""
    binary = chromium or find_chromium()
    if not binary:
        raise CsrwhError("no chromium binary found", hint="apt-get install -y chromium")
    url = Path(report).resolve().as_uri()
    screenshot = Path(screenshot).resolve()
    screenshot.parent.mkdir(parents=True, exist_ok=True)
    console: list[str] = []
    with tempfile.TemporaryDirectory(prefix="csrwh-chromium-") as profile:
        common = [
            binary,
            *CHROMIUM_FLAGS,
            f"--user-data-dir={profile}",
            "--enable-logging=stderr",
            "--v=0",
        ]
        dom = subprocess.run(
            [*common, f"--window-size={window[0]},{window[1]}", "--dump-dom", url],
            capture_output=True,
            text=True,
            timeout=timeout_s,
            check=False,
        )
        console += [ln for ln in dom.stderr.splitlines() if _CONSOLE_LINE.search(ln)]
        if screenshot.exists():
            screenshot.unlink()
        shot = subprocess.run(
            [*common, f"--window-size={window[0]},{window[1]}", f"--screenshot={screenshot}", url],
            capture_output=True,
            text=True,
            timeout=timeout_s,
            check=False,
        )
        console += [ln for ln in shot.stderr.splitlines() if _CONSOLE_LINE.search(ln)]
    status_match = _STATUS_ATTR.search(dom.stdout)
    images_match = _IMAGES_ATTR.search(dom.stdout)
    scrolling_match = _SCROLLING_ATTR.search(dom.stdout)
    status = (
        status_match.group(1) if status_match else f"no status (chromium exit {dom.returncode})"
    )
    return RenderCheck(
        status=html.unescape(status),
        images=int(images_match.group(1)) if images_match else 0,
        scrolling=int(scrolling_match.group(1)) if scrolling_match else 0,
        console=console,
        screenshot=screenshot if screenshot.is_file() and screenshot.stat().st_size > 0 else None,
    )
