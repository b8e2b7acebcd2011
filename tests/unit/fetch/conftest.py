"""The fetch tests' fixtures live in tests/fetch_fixtures.py (the real-corpora fetch tests in
tests/integration use them too)."""

from fetch_fixtures import _fast, data_dir, hub, server, sources  # noqa: F401 -- pytest fixtures
