"""dbt's runner replaced for tests of csrwh.pipeline.dbt_runner.run_dbt that need no project."""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from csrwh.pipeline import dbt_runner


def fake_dbt_runner(monkeypatch, invoke: Callable[[list[str], list], Any] | None = None) -> None:
    """``dbtRunner`` whose ``invoke(args)`` calls ``invoke(args, callbacks)`` (if given) and
    returns a successful result with no nodes; the run's database is not touched."""
    import dbt.cli.main

    class FakeRunner:
        def __init__(self, callbacks):
            self.callbacks = callbacks

        def invoke(self, args):
            if invoke is not None:
                invoke(args, self.callbacks)
            return SimpleNamespace(exception=None, success=True, result=SimpleNamespace(results=[]))

    monkeypatch.setattr(dbt.cli.main, "dbtRunner", FakeRunner)
    monkeypatch.setattr(dbt_runner, "release_database", lambda database: None)
