"""Oracle for the cosrec analyses (see __init__)."""

from __future__ import annotations

TABLES: dict = {}
