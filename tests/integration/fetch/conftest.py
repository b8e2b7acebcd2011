"""The fetch tests' fixtures (tests/fetch_fixtures.py), for the fetch tests on the real corpora."""

from fetch_fixtures import _fast, data_dir, hub, server, sources  # noqa: F401 -- pytest fixtures
