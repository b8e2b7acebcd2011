"""Oracle for the recoreact analyses (see __init__)."""

from __future__ import annotations

TABLES: dict = {}
