"""Import Great Expectations without letting it import pyspark.

GX imports pyspark whenever it is installed, which costs the DuckDB gate seconds and can end a
``python -c`` process; GX is imported with pyspark hidden and with ``scipy.stats`` lazy (GX uses
it only for expectations the suites do not have).
Details: docs/internals.md#csrwh-gate-gx_import
"""

from __future__ import annotations

import importlib
import importlib.util
import sys

#: submodules GX imports with ``from <package> import <module>`` but the gate's suites never use
LAZY_MODULES = ("scipy.stats",)


def import_lazily(name: str) -> None:
    """Register submodule ``name`` (``package.module``, not yet imported) so that it is executed
    at the first access to one of its attributes: in ``sys.modules`` and as its package's
    attribute, which ``from package import module`` reads without touching the module. Nothing
    when it is imported already or not installed."""
    if name in sys.modules or "." not in name:
        return
    try:
        spec = importlib.util.find_spec(name)
    except ImportError:  # its parent package is missing
        return
    if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
        return
    loader = importlib.util.LazyLoader(spec.loader)
    spec.loader = loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    loader.exec_module(module)
    package, _, attribute = name.rpartition(".")
    setattr(sys.modules[package], attribute, module)


def import_gx_without_pyspark() -> None:
    """Import ``great_expectations`` (once per process) with ``pyspark`` hidden from it; when
    pyspark is already loaded (the Spark build's functions, a test of them in the same
    process), only ``pyspark.sql.connect``, the module that can end the process, is hidden."""
    if "great_expectations" in sys.modules:
        return
    hidden = "pyspark.sql.connect" if "pyspark" in sys.modules else "pyspark"
    if hidden in sys.modules:  # connect itself already imported: nothing left to guard
        importlib.import_module("great_expectations")
        return
    sys.modules[hidden] = None  # type: ignore[assignment] # an ImportError for GX
    try:
        for name in LAZY_MODULES:
            import_lazily(name)
        import great_expectations  # noqa: F401
    finally:
        if sys.modules.get(hidden, 0) is None:
            del sys.modules[hidden]
