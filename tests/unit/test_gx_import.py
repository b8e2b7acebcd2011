"""The gate imports GX with ``scipy.stats`` lazy (``csrwh.gate.gx_import``): GX's import no
longer executes it (0.7 s of every gate), and whoever uses it gets the real module."""

from __future__ import annotations

import subprocess
import sys

from csrwh.gate import gx_import

_CHECK = """
import math, sys
from csrwh.gate.gx_import import import_gx_without_pyspark
import_gx_without_pyspark()
print("executed at GX's import:", "scipy.stats._stats_py" in sys.modules)
from great_expectations.expectations.core import expect_column_kl_divergence_to_be_less_than as kl
import scipy.stats
from scipy import stats
assert kl.stats is stats is scipy.stats is sys.modules["scipy.stats"]
assert math.isclose(stats.entropy([1, 1]), math.log(2))
print("executed at first use:", "scipy.stats._stats_py" in sys.modules)
"""


def test_gx_leaves_scipy_stats_unexecuted_until_it_is_used() -> None:
    run = subprocess.run(
        [sys.executable, "-c", _CHECK], capture_output=True, text=True, timeout=300, check=False
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.splitlines()[-2:] == [
        "executed at GX's import: False",
        "executed at first use: True",
    ], run.stdout + run.stderr[-2000:]


def test_import_lazily_skips_what_it_cannot_defer() -> None:
    """A package missing, a top-level module (``import x`` would execute it anyway) and a
    module already imported are left alone."""
    before = dict(sys.modules)
    gx_import.import_lazily("csrwh_no_such_package.module")
    gx_import.import_lazily("json")
    gx_import.import_lazily("csrwh.gate.gx_import")
    assert "csrwh_no_such_package.module" not in sys.modules
    assert sys.modules["csrwh.gate.gx_import"] is before["csrwh.gate.gx_import"]
    assert sys.modules.get("json") is before.get("json")
