"""tests/unit runs no dbt, no build and no browser (those tests live in tests/integration and
tests/e2e), so `make test-fast` stays quick. Two guards hold the folder to it:

- at collection, a unit test that asks for a built warehouse or the real corpora (the fixtures
  in ``unit_guard.BUILD_FIXTURES``) stops the run with one line naming it;
- while each unit test module runs, dbt's target folder (``CSRWH_DBT_TARGET_PATH``, inherited
  by child processes) is a path under a regular file, so a real dbt run -- in the test's
  process or in a ``csrwh build`` it starts -- fails, and ``PATH`` starts with a folder whose ``chromium`` (and
  its other names) exits 1 saying a unit test started a browser.

A test that replaces dbt's runner (tests/unit/fake_dbt.py) is unaffected: it writes no target.
Module scope, not session: `make test` runs integration modules, which must build, in the same
worker processes.
"""

from __future__ import annotations

import pytest
from unit_guard import no_dbt_and_no_browser, unit_items_that_build


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    building = unit_items_that_build(items)
    if building:
        raise pytest.UsageError(
            "tests/unit runs no build: move these tests to tests/integration: "
            + "; ".join(building)
        )


@pytest.fixture(scope="module", autouse=True)
def _no_dbt_and_no_browser(tmp_path_factory: pytest.TempPathFactory):
    with no_dbt_and_no_browser(tmp_path_factory.mktemp("unit_guard")):
        yield
