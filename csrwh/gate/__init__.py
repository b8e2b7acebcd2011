"""Data-quality suites and their runner; the public entry points are in :mod:`csrwh.gate.run`."""

from csrwh.gate.suites import ExpectationSpec, SuiteSpec, load_suite, load_suites

__all__ = ["ExpectationSpec", "SuiteSpec", "load_suite", "load_suites"]
