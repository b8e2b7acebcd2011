"""Small file helpers of ``csrwh fetch``: mirror URLs, the ``.part`` files downloads are
written to (and their ``.part.json`` resume metadata, ``.part.hub`` huggingface_hub's folder),
sha256 of a file."""

from __future__ import annotations

import hashlib
import json
import shutil
import urllib.parse
from pathlib import Path
from typing import Any


def mirror_url(url: str, mirror: str | None) -> str:
    """``url`` served from ``mirror``: mirror + "/" + host + path (+ "?" + query)."""
    if not mirror:
        return url
    parts = urllib.parse.urlsplit(url)
    out = mirror.rstrip("/") + "/" + parts.netloc + (parts.path or "/")
    if parts.query:
        out += "?" + parts.query
    return out


def part_path(data_dir: Path, corpus: str, key: str) -> Path:
    digest = hashlib.sha1(key.encode("utf-8")).hexdigest()[:12]
    return data_dir / f".tmp-{corpus}-dl-{digest}.part"


def meta_path(part: Path) -> Path:
    return part.with_name(part.name + ".json")


def remove_part(part: Path) -> None:
    part.unlink(missing_ok=True)
    meta_path(part).unlink(missing_ok=True)


def remove_corpus_parts(data_dir: Path, corpus: str) -> None:
    """Delete every partial download of ``corpus`` (after a failed fetch): ``.part`` files and
    the folders huggingface_hub downloads into."""
    for path in data_dir.glob(f".tmp-{corpus}-dl-*"):
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)


def hash_file(path: Path) -> tuple[str, int]:
    digest = hashlib.sha256()
    size = 0
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
            size += len(chunk)
    return digest.hexdigest(), size


def read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None
