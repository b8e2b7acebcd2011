"""The package version (one home: ``csrwh.__version__`` re-exports it)."""

__version__ = "0.1.0"
