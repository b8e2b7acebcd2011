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
from ingest import registry

__all__ = ["CORPORA", "generate"]

#: corpus folder names, in the order ``generate`` writes them (the corpus registry's order;
#: each corpus' writer is the module ``csrwh.sample.<id>``)
CORPORA: tuple[str, ...] = tuple(c.folder for c in registry.declarations())

MARKER = ".csrwh-sample.json"
FETCH_MANIFEST = ".csrwh-manifest.json"


def _resolve(corpora: list[str] | None) -> list[registry.Corpus]:
    """The corpora ``corpora`` names (any registry name or alias), in registry order."""
    if not corpora:
        return list(registry.declarations())
    chosen = []
    for name in corpora:
        try:
            chosen.append(registry.lookup(name))
        except KeyError:
            raise CsrwhError(
                f"unknown corpus {name!r}", hint="choose from " + ", ".join(CORPORA)
            ) from None
    return [c for c in registry.declarations() if c in chosen]


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

    ``corpora`` selects corpora by any name the corpus registry knows (id, folder, title or
    alias; default all, see :data:`CORPORA`). ``scale`` (>= 1) multiplies volumes.
    """
    if int(scale) < 1:
        raise CsrwhError(f"scale must be >= 1, got {scale}")
    scale = int(scale)
    seed = int(seed)
    out = Path(out)
    counts: dict[str, int] = {}
    for corpus in _resolve(corpora):
        name = corpus.folder
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
        files = registry.module(corpus.id, "csrwh.sample").write(folder, scale, seed)
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
