"""Format-faithful synthetic files for the five corpora, in their upstream layouts, and two
small corpora of your own in the generic ``custom`` format (docs/ADDING_A_CORPUS.md).

``generate(out)`` writes byte-identical files for the same ``seed`` and ``scale``, and refuses
an ``out`` holding anything an earlier sample did not write (:func:`check_out`).
Details: docs/internals.md#csrwh-sample
"""

from __future__ import annotations

import json
import os
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
    chosen = registry.resolve(corpora)
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


def _marker_files(folder: Path) -> set[str] | None:
    """The files the marker of corpus folder ``folder`` lists (None: no readable marker)."""
    try:
        data = json.loads((folder / MARKER).read_text(encoding="utf-8"))
        files = data.get("files") if data.get("generator") == "csrwh.sample" else None
    except (OSError, ValueError, AttributeError):
        return None
    if not isinstance(files, list):
        return None
    return {f for f in files if isinstance(f, str)}


def _foreign(out: Path) -> list[Path]:
    """What ``out`` holds that sample did not write (sorted; empty for a new or empty folder or
    an earlier sample's output): files no corpus marker lists, links, other folders."""
    if not out.exists() and not out.is_symlink():
        return []
    if out.is_symlink() or not out.is_dir():
        return [out]
    known = set(CORPORA)
    found: list[Path] = []
    for entry in sorted(out.iterdir()):
        if entry.name not in known or entry.is_symlink() or not entry.is_dir():
            found.append(entry)
            continue
        listed = _marker_files(entry)
        for root, dirs, files in os.walk(entry):
            here = Path(root)
            for name in sorted(dirs):
                if (here / name).is_symlink():
                    found.append(here / name)
            for name in sorted(files):
                path = here / name
                rel = path.relative_to(entry).as_posix()
                if rel == MARKER and listed is not None and not path.is_symlink():
                    continue
                if listed is None or rel not in listed or path.is_symlink():
                    found.append(path)
    return found


def check_out(out: Path) -> None:
    """Refuse (one line) an ``out`` that holds files sample did not write: sample would write
    synthetic files over them or beside them. A new or empty folder, or an earlier sample's
    output (every file listed in its corpus folder's marker), is fine."""
    for parent in Path(os.path.abspath(out)).parents:
        if parent.exists():
            if not parent.is_dir():
                raise CsrwhError(
                    f"--out {out}: {parent} is a file, not a folder",
                    hint="choose a new folder for the sample corpora",
                    exit_code=2,
                )
            break
    foreign = _foreign(Path(out))
    if not foreign:
        return
    first = foreign[0]
    if first == Path(out):
        what = "a link" if first.is_symlink() else "not a folder"
        raise CsrwhError(
            f"--out {out} is {what}; sample writes its corpora into a folder of its own",
            hint="choose a new folder for the sample corpora",
            exit_code=2,
        )
    if any((Path(out) / name / FETCH_MANIFEST).exists() for name in CORPORA):
        why = "it holds fetched corpus data"
    else:
        why = "it holds files csrwh sample did not write"
    more = f" and {len(foreign) - 1} more" if len(foreign) > 1 else ""
    raise CsrwhError(
        f"--out {out}: {why} ({first}{more}); refusing to write synthetic files there",
        hint="choose a new or empty folder (or one an earlier csrwh sample wrote)",
        exit_code=2,
    )


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
    chosen = _resolve(corpora)
    check_out(out)
    counts: dict[str, int] = {}
    for corpus in chosen:
        name = corpus.folder
        folder = out / name
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
