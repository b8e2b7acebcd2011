"""dbt-duckdb runs at most one Python model at a time in a build (csrwh.building.dbt_runner)."""

from __future__ import annotations

import threading
import time

from dbt.adapters.duckdb.impl import DuckDBAdapter

from csrwh.building import dbt_runner


def _most_at_once(monkeypatch, serial: bool) -> int:
    running, most, guard = [0], [0], threading.Lock()

    def fake_submit(self, parsed_model, compiled_code):  # a Python model that takes a while
        with guard:
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(0.05)
        with guard:
            running[0] -= 1
        return compiled_code

    monkeypatch.setattr(DuckDBAdapter, "submit_python_job", fake_submit)
    if serial:
        dbt_runner.python_models_one_at_a_time()
        dbt_runner.python_models_one_at_a_time()  # idempotent: wraps once
    threads = [
        threading.Thread(target=DuckDBAdapter.submit_python_job, args=(None, {}, f"model {i}"))
        for i in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return most[0]


def test_python_models_run_one_at_a_time(monkeypatch):
    assert _most_at_once(monkeypatch, serial=True) == 1
    wrapped = DuckDBAdapter.submit_python_job
    assert wrapped.csrwh_one_at_a_time and wrapped(None, {}, "code") == "code"


def test_without_the_lock_they_overlap(monkeypatch):  # the check above can fail
    assert _most_at_once(monkeypatch, serial=False) > 1
