"""``python -m csrwh.gate RESULT_FD REQUEST``: the gate's child process (:mod:`csrwh.gate.run`).

Runs :func:`csrwh.gate.gx_run.run_suites` for the JSON ``REQUEST`` and writes one JSON object
to the inherited file descriptor ``RESULT_FD``: ``{"report": ...}`` or ``{"error": ...}`` (a
one-line error and its hint). SIGINT is ignored (the parent owns interrupts and terminates
this process); it exits when its standard input, a pipe its parent holds, closes, and skips
the interpreter's teardown.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import signal
import sys
import threading
import traceback
from pathlib import Path
from typing import Any


def _exit_when_parent_goes() -> None:
    """Exit once the parent's end of our standard input is closed (the parent died)."""
    try:
        while os.read(0, 4096):  # the raw descriptor: no buffer lock held at shutdown
            pass
    finally:
        os._exit(1)


def _answer(request: dict[str, Any]) -> dict[str, Any]:
    from csrwh.errors import CsrwhError
    from csrwh.gate.gx_run import run_suites
    from csrwh.gate.results import report_to_json

    def path(key: str) -> Path | None:
        return None if request.get(key) is None else Path(request[key])

    try:
        report = run_suites(
            Path(request["database"]),
            request["run_id"],
            dt.datetime.fromisoformat(request["validated_at"]),
            request.get("suites"),
            path("docs_dir"),
            expectations_dir=path("expectations_dir"),
            named_rows_limit=int(request["named_rows_limit"]),
        )
    except CsrwhError as exc:
        return {"error": {"message": exc.message, "hint": exc.hint, "exit_code": exc.exit_code}}
    except Exception as exc:  # noqa: BLE001 - one line for the parent, as the CLI's main() does
        if os.environ.get("CSRWH_DEBUG"):
            traceback.print_exc()
        return {"error": {"message": f"{type(exc).__name__}: {exc}", "hint": None}}
    return {"report": report_to_json(report)}


def main(argv: list[str]) -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_exit_when_parent_goes, daemon=True).start()
    result_fd, request = int(argv[0]), json.loads(argv[1])
    answer = _answer(request)
    with os.fdopen(result_fd, "w", encoding="utf-8") as out:
        json.dump(answer, out, ensure_ascii=False)
    return 0


if __name__ == "__main__":
    code = main(sys.argv[1:])
    # no interpreter teardown: there nanobind prints pages of harmless "leaked instance"
    # warnings from the DuckDB bindings GX's SQLAlchemy engine loaded
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
