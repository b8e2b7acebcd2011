"""How the command line ends: known errors as one line plus a hint, and exit codes."""

from __future__ import annotations

import errno
import os
import re
import sys
import traceback

import typer
from rich.markup import escape
from rich.text import Text

from csrwh.cli.options import console
from csrwh.errors import CsrwhError


def _exit(code: int) -> None:
    """Exit with ``code`` (Great Expectations, whose bindings made teardown noisy, runs in the
    gate's child process, which ends itself without teardown)."""
    sys.exit(code)


def _click_exceptions() -> dict[str, tuple[type, ...]]:
    """click's exception classes: typer vendors its own copy (typer._click) besides click."""
    found: dict[str, list[type]] = {
        "Exit": [typer.Exit],
        "Abort": [typer.Abort],
        "ClickException": [],
    }
    for name in ("typer._click.exceptions", "click.exceptions"):
        try:
            module = __import__(name, fromlist=["ClickException"])
        except ImportError:
            continue
        for kind, classes in found.items():
            cls = getattr(module, kind, None)
            if cls is not None:
                classes.append(cls)
    return {kind: tuple(classes) for kind, classes in found.items()}


#: errno -> (what was refused, why, hint) of a path that is the wrong kind of thing for a write
_WRONG_KIND_OF_PATH = {
    errno.ENOTDIR: (
        "cannot write",
        "a part of that path is a file, not a folder",
        "choose a path whose folders are folders (--out, --warehouse, --csv, …)",
    ),
    errno.EISDIR: ("cannot write", "it is a directory, not a file", "name a file, not a folder"),
    errno.EEXIST: (
        "cannot create",
        "something is already there (a file where a folder is needed?)",
        "choose a new path (--out, --warehouse, …)",
    ),
}


def _os_error(exc: OSError) -> CsrwhError | None:
    """Known OS conditions as one line with a hint that fixes them."""
    import socket
    import urllib.error

    where = f" {exc.filename}" if getattr(exc, "filename", None) else ""
    if exc.errno == errno.ENOSPC:
        return CsrwhError(
            f"no space left on device{where}", hint="free some disk space, or write elsewhere"
        )
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return CsrwhError(
            f"cannot write{where}: {exc.strerror}",
            hint="choose a writable place (--warehouse, --out, CSRWH_DATA_DIR) or fix its permissions",
        )
    if exc.errno in _WRONG_KIND_OF_PATH:
        refused, why, hint = _WRONG_KIND_OF_PATH[exc.errno]
        return CsrwhError(f"{refused}{where}: {why}", hint=hint)
    if isinstance(exc, (urllib.error.URLError, socket.gaierror, ConnectionError, TimeoutError)):
        reason = getattr(exc, "reason", exc)
        return CsrwhError(
            f"network unreachable: {reason}",
            hint="check the connection (or proxy) and retry; CSRWH_MIRROR=http://host/ fetches from a mirror",
        )
    return None


_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def _cause_traceback(exc: CsrwhError) -> None:
    """With CSRWH_DEBUG set, the traceback of what caused ``exc`` (e.g. a report notebook's
    failing cell), on stderr; its colour codes only on a terminal."""
    cause = exc.__cause__
    if not os.environ.get("CSRWH_DEBUG") or cause is None:
        return
    text = "".join(traceback.format_exception(cause))
    if console.is_terminal:
        console.print(Text.from_ansi(text))
    else:
        console.print(_ANSI.sub("", text), markup=False, highlight=False, soft_wrap=True)


def _report(exc: CsrwhError) -> None:
    _cause_traceback(exc)

    console.print(f"[red]error:[/red] {escape(exc.message)}", soft_wrap=True)
    if exc.hint:
        console.print(f"[yellow]hint:[/yellow] {escape(exc.hint)}", soft_wrap=True)
