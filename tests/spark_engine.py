"""The Spark engine for integration tests: pyspark and Java present, or the test fails under CI
(``.ci/run`` installs both) and skips, saying why, elsewhere."""

from __future__ import annotations

import os

import pytest

from csrwh.errors import CsrwhError
from csrwh.pipeline import spark


def require_spark() -> None:
    try:
        spark.check_spark_available()
    except CsrwhError as exc:
        if os.environ.get("CI"):
            pytest.fail(f"{exc.message} (CI is set, so this is an error; run make setup-spark)")
        pytest.skip(exc.message)
