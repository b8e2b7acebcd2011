"""dbt's child process replaced for tests of csrwh.pipeline.dbt_runner.run_dbt that need no
project: a Python process that writes the given events and result on the events pipe."""

from __future__ import annotations

import json
import sys
from typing import Any

from csrwh.pipeline import dbt_runner

_CHILD = """
import json, os, sys, time
fd, plan = int(sys.argv[1]), json.loads(sys.argv[2])
out = os.fdopen(fd, "w", buffering=1)
for event in plan["events"]:
    out.write(json.dumps(event) + "\\n")
if plan["signal"]:
    os.kill(os.getpid(), plan["signal"])
time.sleep(plan["sleep"])
if plan["result"] is not None:
    out.write(json.dumps({"csrwh_result": plan["result"]}) + "\\n")
sys.exit(plan["exit"])
"""

#: dbt's result for a run of no nodes
NO_NODES = {"success": True, "exception": None, "results": []}


def event(name: str, level: str = "info", msg: str = "", **data: Any) -> dict[str, Any]:
    """One of dbt's events as dbt's ``msg_to_dict`` gives it (the fields the build reads)."""
    return {"info": {"name": name, "level": level, "msg": msg}, "data": data}


def fake_dbt_child(
    monkeypatch,
    events: list[dict[str, Any]] = (),  # type: ignore[assignment]
    result: dict[str, Any] | None = NO_NODES,
    *,
    exit_code: int = 0,
    signal: int = 0,
    sleep: float = 0.0,
    args: list[list[str]] | None = None,
) -> None:
    """``run_dbt``'s child writes ``events``, then (unless it sends itself ``signal`` first)
    sleeps ``sleep`` s, writes ``result`` (None: none) and exits with ``exit_code``; the dbt
    arguments it was given are appended to ``args``."""
    plan = {
        "events": list(events),
        "result": result,
        "exit": exit_code,
        "signal": signal,
        "sleep": sleep,
    }

    def command(dbt_args: list[str], events_fd: int) -> list[str]:
        if args is not None:
            args.append(dbt_args)
        return [sys.executable, "-c", _CHILD, str(events_fd), json.dumps(plan)]

    monkeypatch.setattr(dbt_runner, "child_command", command)
