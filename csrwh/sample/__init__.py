"""Format-faithful synthetic files for the five corpora, in their upstream layouts, and two
small corpora of your own in the generic ``custom`` format (docs/ADDING_A_CORPUS.md).

``generate(out)`` writes ``out/<corpus folder>/...`` exactly as the upstream repositories
lay their files out, so that ``csrwh ingest --data-dir out`` works on it like on real
data. Output is deterministic: the same ``seed`` and ``scale`` give byte-identical files
(every corpus draws from its own ``random.Random`` derived from the seed; nothing reads
the clock). ``scale`` multiplies every volume linearly.

Each corpus folder also gets a ``.csrwh-sample.json`` marker (ignored by ingest, like
every dot file) listing the files written, so that a later run with a smaller scale
removes the files it no longer produces. A folder holding fetched real data (a
``.csrwh-manifest.json``) is never overwritten.
"""

from __future__ import annotations

import json
from pathlib import Path

from csrwh.errors import CsrwhError
from csrwh.sample import convsearch, cosrec, crsarena, custom, recllmsim, recoreact

__all__ = ["CORPORA", "generate"]

_MODULES = {
    cosrec.FOLDER: cosrec,
    crsarena.FOLDER: crsarena,
    convsearch.FOLDER: convsearch,
    recllmsim.FOLDER: recllmsim,
    recoreact.FOLDER: recoreact,
    custom.FOLDER: custom,
}

#: corpus folder names, in the order ``generate`` writes them
CORPORA: tuple[str, ...] = tuple(_MODULES)

#: accepted alternative names (the warehouse's ``corpus`` column spells CRSArena ``crsarena``)
_ALIASES = {"crsarena": "crsarena-dial", "crs-arena-dial": "crsarena-dial"}

MARKER = ".csrwh-sample.json"
FETCH_MANIFEST = ".csrwh-manifest.json"


def _resolve(corpora: list[str] | None) -> list[str]:
    if not corpora:
        return list(CORPORA)
    chosen = []
    for name in corpora:
        folder = _ALIASES.get(name.strip().lower(), name.strip().lower())
        if folder not in _MODULES:
            raise CsrwhError(f"unknown corpus {name!r}", hint="choose from " + ", ".join(CORPORA))
        if folder not in chosen:
            chosen.append(folder)
    return [c for c in CORPORA if c in chosen]


def _remove_stale(folder: Path, old: list[str], new: list[str]) -> None:
    for rel in sorted(set(old) - set(new)):
        if not isinstance(rel, str) or rel.startswith(("/", "\\")) or ".." in Path(rel).parts:
            continue  # only ever delete inside the corpus folder
        path = folder / rel
        if path.is_file():
            path.unlink()
        parent = path.parent
        while parent != folder and parent.is_dir() and not any(parent.iterdir()):
            parent.rmdir()
            parent = parent.parent


def generate(
    out: Path, scale: int = 1, seed: int = 0, corpora: list[str] | None = None
) -> dict[str, int]:
    """Write synthetic corpora into ``out``; return ``{corpus folder: number of files written}``.

    ``corpora`` selects folders (``cosrec``, ``crsarena-dial``, ``convsearch``,
    ``recllmsim``, ``recoreact``, ``custom``; default all). ``scale`` (>= 1) multiplies volumes.
    """
    if int(scale) < 1:
        raise CsrwhError(f"scale must be >= 1, got {scale}")
    scale = int(scale)
    seed = int(seed)
    out = Path(out)
    counts: dict[str, int] = {}
    for name in _resolve(corpora):
        folder = out / name
        if (folder / FETCH_MANIFEST).exists():
            raise CsrwhError(
                f"{folder} holds fetched corpus data; refusing to overwrite it with synthetic "
                "files",
                hint="choose another --out folder",
            )
        marker = folder / MARKER
        old: list[str] = []
        if marker.is_file():
            try:
                old = list(json.loads(marker.read_text(encoding="utf-8")).get("files", []))
            except (ValueError, AttributeError):
                old = []
        folder.mkdir(parents=True, exist_ok=True)
        files = _MODULES[name].write(folder, scale, seed)
        _remove_stale(folder, old, files)
        marker.write_text(
            json.dumps(
                {"generator": "csrwh.sample", "seed": seed, "scale": scale, "files": files},
                indent=1,
            )
            + "\n",
            encoding="utf-8",
        )
        counts[name] = len(files)
    return counts
