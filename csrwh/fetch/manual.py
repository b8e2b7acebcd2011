"""Corpora only distributed by hand (ConvSearch: a Google-Drive zip): the instructions when no
zip is given, and the extraction of the named members from the zip the user passes."""

from __future__ import annotations

import zipfile
from pathlib import Path, PurePosixPath

from csrwh.errors import CsrwhError
from csrwh.fetch.files import Built, extract, member_name
from csrwh.fetch.parts import hash_file
from csrwh.fetch.sources import ManualZip


def manual_zip_error(src: ManualZip, target: Path) -> CsrwhError:
    members = " and ".join(src.members)
    return CsrwhError(
        f"{src.title} cannot be downloaded automatically: download "
        f"{src.zip_name or 'the zip'} by hand from {src.download_page} "
        f"then run `csrwh fetch {src.corpus} --from-zip PATH`",
        hint=f"or copy {members} into {target}/ by hand",
    )


def _choose_members(src: ManualZip, zf: zipfile.ZipFile, zip_path: Path) -> dict[str, str]:
    """{wanted member: member name in the zip}, the shallowest match of each (case-insensitive)."""
    wanted = {m.casefold(): m for m in src.members}
    chosen: dict[str, str] = {}
    json_seen: list[str] = []
    for info in zf.infolist():
        name = member_name(info)
        pure = PurePosixPath(name)
        if info.is_dir() or "__MACOSX" in pure.parts or pure.name.startswith("._"):
            continue
        if pure.suffix.lower() == ".json":
            json_seen.append(name)
        key = pure.name.casefold()
        if key in wanted:
            current = chosen.get(wanted[key])
            if current is None or len(pure.parts) < len(PurePosixPath(current).parts):
                chosen[wanted[key]] = name
    missing = [m for m in src.members if m not in chosen]
    if missing:
        raise CsrwhError(
            f"{src.title}: {zip_path} has no {' or '.join(missing)}",
            hint=f"use {src.zip_name or 'the main-part zip'} from {src.download_page}"
            + (f"; JSON files in this zip: {', '.join(json_seen[:10])}" if json_seen else ""),
        )
    return chosen


def build_from_manual_zip(src: ManualZip, work: Path, zip_path: Path) -> Built:
    """Extract ``src.members`` of ``zip_path`` (found anywhere in it) into ``work``."""
    title = src.title
    sha, size = hash_file(zip_path)
    source = {
        "kind": "manual_zip",
        "homepage": src.homepage,
        "version": src.version,
        "urls": [src.download_page],
        "from_zip": str(zip_path),
    }
    built = Built(source=source)
    built.downloads.append(
        {"url": src.download_page, "fetched_from": str(zip_path), "sha256": sha, "size": size}
    )
    try:
        with zipfile.ZipFile(zip_path) as zf:
            chosen = _choose_members(src, zf, zip_path)
            by_member = {v: k for k, v in chosen.items()}
            extract(zf, work, lambda rel: by_member.get(rel), strip_top=False)
            empty = [m for m in src.members if (work / m).stat().st_size == 0]
            if empty:
                raise CsrwhError(
                    f"{title}: {zip_path}: {' and '.join(chosen[m] for m in empty)} "
                    f"{'is' if len(empty) == 1 else 'are'} empty; nothing was changed",
                    hint=f"use {src.zip_name or 'the main-part zip'} from {src.download_page}",
                )
    except zipfile.BadZipFile as exc:
        raise CsrwhError(
            f"{title}: {zip_path} is not a valid zip archive ({exc})",
            hint=f"download {src.zip_name or 'the zip'} again from {src.download_page}",
        ) from None
    return built
