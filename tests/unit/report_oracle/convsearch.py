"""Oracle for the convsearch analyses (see __init__)."""

from __future__ import annotations

TABLES: dict = {}
