"""CSR Warehouse: one embedded DuckDB warehouse for conversational search and recommendation corpora."""

__version__ = "0.1.0"
