"""dbt in a child process: ``python -m csrwh.pipeline.dbt_child --events-fd N <dbt args>``.

Runs ``dbtRunner(callbacks=...).invoke(args)`` (dbt's public Python interface) and writes to
file descriptor N one JSON line per event the build reads (:func:`event_dict`, dbt's own
``msg_to_dict`` of it), then one line ``{"csrwh_result": ...}`` with dbt's result
(:func:`result_dict`). :class:`DbtEvent` gives the parent's callbacks the attribute access of
dbt's own messages over such a line. :func:`csrwh.pipeline.dbt_runner.run_dbt` starts it.
Details: docs/internals.md#csrwh-pipeline-dbt_child
"""

from __future__ import annotations

import json
import os
import sys
import threading
from typing import Any

#: events dbt's own console filter leaves out at info level
NOT_LOGGED = frozenset({"CacheAction", "CacheDumpGraph"})
#: debug-level events the build reads too (the progress display counts finished nodes)
DEBUG_READ = frozenset({"NodeFinished"})
#: the key of the last line: dbt's result
RESULT_KEY = "csrwh_result"


class _Attrs:
    """Attribute access over a dict of dbt's JSON (nested dicts too); a missing key is None."""

    def __init__(self, values: dict[str, Any]) -> None:
        self._values = values

    def __getattr__(self, name: str) -> Any:
        value = self.__dict__["_values"].get(name)
        return _Attrs(value) if isinstance(value, dict) else value

    def __str__(self) -> str:
        return json.dumps(self._values)


class DbtEvent:
    """One of dbt's events as the parent reads it: ``.info`` (``name``, ``level``, ``msg``,
    ...) and ``.data`` as on dbt's ``EventMsg``; ``.raw`` is the JSON dict."""

    def __init__(self, raw: dict[str, Any]) -> None:
        self.raw = raw
        self.info = _Attrs(raw.get("info") or {})
        self.data = _Attrs(raw.get("data") or {})


def event_dict(msg: Any) -> dict[str, Any] | None:
    """dbt's ``msg_to_dict`` of an event the build reads -- its info, warn and error events
    but the cache's, and :data:`DEBUG_READ` -- else None (not serialised: dbt fires thousands
    of debug events, one per SQL statement and cache action)."""
    info = msg.info
    if info.name in NOT_LOGGED:
        return None
    if info.level not in ("info", "warn", "error") and info.name not in DEBUG_READ:
        return None
    from dbt_common.events.functions import msg_to_dict

    return msg_to_dict(msg)


def result_dict(result: Any) -> dict[str, Any]:
    """What the build keeps of a ``dbtRunnerResult``: success, the exception dbt could not run
    with (str or None), and per node its id, status, message, time, compiled SQL and test."""
    nodes = []
    for node_result in getattr(result.result, "results", None) or []:
        node = getattr(node_result, "node", None)
        metadata = getattr(node, "test_metadata", None)
        nodes.append(
            {
                "unique_id": getattr(node, "unique_id", "?"),
                "status": str(getattr(node_result, "status", "")),
                "message": getattr(node_result, "message", "") or "",
                "execution_time": float(getattr(node_result, "execution_time", 0.0) or 0.0),
                "compiled_code": getattr(node, "compiled_code", None),
                "test_name": getattr(metadata, "name", None),
                "test_kwargs": {
                    k: v
                    for k, v in (getattr(metadata, "kwargs", None) or {}).items()
                    if isinstance(v, str | int | float | bool)
                },
            }
        )
    could_not_run = result.exception is not None and result.result is None
    return {
        "success": bool(result.success),
        "exception": str(result.exception) if could_not_run else None,
        "results": nodes,
    }


class _Writer:
    """JSON lines into the events pipe, one at a time (dbt fires from its worker threads). If
    the reader is gone (the build died), this process ends: nobody waits for its work."""

    def __init__(self, fd: int) -> None:
        self._out = os.fdopen(fd, "w", encoding="utf-8", buffering=1)
        self._lock = threading.Lock()

    def write(self, record: dict[str, Any]) -> None:
        line = json.dumps(record, default=str) + "\n"
        with self._lock:
            try:
                self._out.write(line)
            except (BrokenPipeError, ValueError):
                os._exit(1)

    def event(self, msg: Any) -> None:
        record = event_dict(msg)
        if record is not None:
            self.write(record)


def main(argv: list[str]) -> int:
    if len(argv) < 2 or argv[0] != "--events-fd":
        print("usage: python -m csrwh.pipeline.dbt_child --events-fd N <dbt args>", file=sys.stderr)
        return 2
    writer = _Writer(int(argv[1]))
    from dbt.cli.main import dbtRunner

    result = dbtRunner(callbacks=[writer.event]).invoke(argv[2:])
    writer.write({RESULT_KEY: result_dict(result)})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
