"""Render seeds/corpora.csv from the corpus registry (ingest/corpora.toml), or check it.

.venv/bin/python scripts/corpora_seed.py           # rewrite seeds/corpora.csv
.venv/bin/python scripts/corpora_seed.py --check   # exit 1 and list the lines that differ
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ingest.registry import main

if __name__ == "__main__":
    raise SystemExit(main(["seed", *sys.argv[1:]]))
