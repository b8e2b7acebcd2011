"""GitHub archives: download (or take ``--from-zip``) the zip of a pinned commit, keep the
files the corpus' selection keeps, replace Git LFS pointers by their objects, and check the
files whose sha256/size the registry pins."""

from __future__ import annotations

import os
import re
import zipfile
from pathlib import Path, PurePosixPath

from rich.markup import escape

from csrwh.errors import CsrwhError
from csrwh.fetch.download import Ctx, DownloadFailed, download, download_or_raise
from csrwh.fetch.files import Built, console, extract
from csrwh.fetch.parts import hash_file, mirror_url, part_path, remove_part
from csrwh.fetch.sources import SOURCES_FILE, GithubArchive, Pinned, Selection

LFS_POINTER_PREFIX = b"version https://git-lfs.github.com/spec/v1"
LFS_POINTER_MAX_BYTES = 1024


def build_github_archive(src: GithubArchive, ctx: Ctx, work: Path, from_zip: Path | None) -> Built:
    """Extract ``src``'s archive into ``work``; what was downloaded goes into the Built."""
    corpus, title, urls = src.corpus, src.title, src.urls
    target = ctx.data_dir / corpus
    source = {
        "kind": "github_archive",
        "homepage": src.homepage,
        "repository": f"{src.owner}/{src.repo}",
        "ref": src.ref,
        "urls": urls,
        "mirror": ctx.mirror,
    }
    built = Built(source=source)
    if from_zip is not None:
        zip_path = from_zip
        sha, size = hash_file(zip_path)
        source["from_zip"] = str(from_zip)
        built.downloads.append(
            {"url": str(from_zip), "fetched_from": str(from_zip), "sha256": sha, "size": size}
        )
    else:
        part = part_path(ctx.data_dir, corpus, urls[0])
        dl = download_or_raise(
            corpus,
            title,
            urls,
            part,
            ctx,
            src.archive,
            hint=archive_hint(src, target, ctx.mirror),
            self_check="zip structure and CRC-32 of every member (on extraction)",
        )
        built.parts.append(part)
        built.downloads.append(dl.record())
        zip_path = dl.path

    selection = src.selection
    left_out: list[str] = []

    def choose(rel: str) -> str | None:
        if selection.path_ok(rel):
            return rel
        left_out.append(rel)
        return None

    try:
        with zipfile.ZipFile(zip_path) as zf:
            commit = zf.comment.decode("ascii", "replace").strip()
            if re.fullmatch(r"[0-9a-f]{40}", commit):
                ref = src.ref.lower()
                if re.fullmatch(r"[0-9a-f]{7,40}", ref) and not commit.startswith(ref):
                    raise CsrwhError(
                        f"{title}: the archive is of commit {commit}, expected {src.ref}",
                        hint=f"download {urls[0]} (the pinned commit)",
                    )
                source["commit"] = commit
            extracted = extract(zf, work, choose, strip_top=True)
    except zipfile.BadZipFile as exc:
        raise CsrwhError(
            f"{title}: {zip_path if from_zip else urls[0]} is not a valid zip archive ({exc})",
            hint=archive_hint(src, target, None if from_zip else ctx.mirror),
        ) from None
    no_files = CsrwhError(
        f"{title}: the archive has no {selection.describe()}",
        hint=f"is it the archive of {src.owner}/{src.repo}? expected {src.layout}",
    )
    if not extracted:
        raise no_files
    source.setdefault("commit", src.ref)

    resolve_lfs_pointers(src, ctx, work, extracted, built)
    if selection.json_keys:
        present = [rel for rel in extracted if rel not in built.lfs_missing]
        rejected = _drop_by_content(work, present, selection)
        if len(rejected) == len(present):
            raise no_files
        _record_selection(src, built, len(left_out), rejected)
    check_expected_files(src, work, built)
    return built


def archive_hint(src: GithubArchive, target: Path, mirror: str | None = None) -> str:
    manual = (
        f"download {src.urls[-1]} in a browser and run "
        f"`csrwh fetch {src.corpus} --from-zip FILE`, or copy the files into {target}/ by hand "
        f"in the upstream layout ({src.layout or ', '.join(src.selection.include)})"
    )
    if mirror:  # the mirror failed, not the internet
        return (
            f"the mirror {mirror} (CSRWH_MIRROR) did not serve {src.urls[0]}: check that it holds "
            f"<mirror>/<host>/<path> and is up, or unset CSRWH_MIRROR to fetch from the upstream; "
            f"or {manual}"
        )
    return (
        f"no internet? download {src.urls[-1]} in a browser and run "
        f"`csrwh fetch {src.corpus} --from-zip FILE`, or copy the files into {target}/ by hand "
        f"in the upstream layout ({src.layout or ', '.join(src.selection.include)})"
    )


def _drop_by_content(work: Path, extracted: list[str], selection: Selection) -> list[str]:
    """Delete the extracted files ``selection`` rejects by content; returns them, sorted."""
    rejected = sorted(rel for rel in extracted if not selection.content_ok(work / rel))
    for rel in rejected:
        path = work / rel
        path.unlink()
        parent = path.parent
        while parent != work and not any(parent.iterdir()):
            parent.rmdir()
            parent = parent.parent
    return rejected


def _record_selection(src: GithubArchive, built: Built, left_out: int, rejected: list[str]) -> None:
    """Manifest fields and the summary line for a corpus kept by a ``select`` rule."""
    selection = src.selection
    built.skipped = left_out + len(rejected)
    built.source["select"] = src.select
    built.source["skipped_files"] = built.skipped
    built.source["skipped_json"] = rejected
    keys = " and ".join(f"a {k!r} {kind}" for k, kind in selection.json_keys.items())
    examples = ", ".join(rejected[:2]) + (", ..." if len(rejected) > 2 else "")
    built.note = (
        f"skipped {built.skipped:,} archive files that are not conversation files "
        f"({left_out:,} not matching {selection.glob or 'the paths'}, "
        f"{len(rejected):,} JSON files without {keys}{': ' + examples if examples else ''})"
    )


# --------------------------------------------------------------------------- Git LFS


def resolve_lfs_pointers(
    src: GithubArchive, ctx: Ctx, work: Path, extracted: list[str], built: Built
) -> None:
    """Replace each LFS pointer file by its object (checked against the pointer's oid and
    size); a pointer whose object cannot be had is left out with a warning."""
    corpus, title = src.corpus, src.title
    for rel in extracted:
        path = work / rel
        pointer = read_lfs_pointer(path)
        if pointer is None:
            continue
        oid, size = pointer
        media = src.lfs.url(src.owner, src.repo, src.ref, rel) if src.lfs else None
        reason = "no LFS media URL configured"
        if media:
            part = part_path(ctx.data_dir, corpus, media)
            label = f"{title} {PurePosixPath(rel).name} (LFS)"
            try:
                dl = download(corpus, label, [media], part, ctx, Pinned(oid, size))
            except (DownloadFailed, CsrwhError) as exc:
                reason = exc.message if isinstance(exc, CsrwhError) else str(exc)
                remove_part(part)
            else:
                os.replace(dl.path, path)
                remove_part(part)
                built.downloads.append({**dl.record(), "saved_as": rel, "lfs_oid": f"sha256:{oid}"})
                continue
        path.unlink()
        built.lfs_missing.append(rel)
        msg = (
            f"{title}: {rel} is stored with Git LFS and could not be downloaded"
            f"{' from ' + mirror_url(media, ctx.mirror) if media else ''} ({reason}); it is left out. "
            f"To add it, download it by hand"
            f"{' from ' + media if media else ''} (sha256 {oid}, {size} bytes) "
            f"to {ctx.data_dir / corpus / rel}"
        )
        built.warnings.append(msg)
        console.print(f"[yellow]warning:[/yellow] {escape(msg)}")
    built.source["lfs_missing"] = built.lfs_missing


def read_lfs_pointer(path: Path) -> tuple[str, int] | None:
    """(sha256 oid, size) when ``path`` is a Git LFS pointer file."""
    try:
        if path.stat().st_size > LFS_POINTER_MAX_BYTES:
            return None
        head = path.read_bytes()
    except OSError:
        return None
    if not head.startswith(LFS_POINTER_PREFIX):
        return None
    text = head.decode("utf-8", "replace")
    oid = re.search(r"^oid sha256:([0-9a-f]{64})\s*$", text, re.MULTILINE)
    size = re.search(r"^size (\d+)\s*$", text, re.MULTILINE)
    if not oid or not size:
        return None
    return oid.group(1), int(size.group(1))


def check_expected_files(src: GithubArchive, work: Path, built: Built) -> None:
    """Every file the registry pins must be there with its sha256 and size."""
    for rel, exp in src.expected_files.items():
        if rel in built.lfs_missing:
            continue
        path = work / rel
        if not path.is_file():
            dropped = rel in built.source.get("skipped_json", [])
            raise CsrwhError(
                f"{src.title}: the archive lacks {rel}"
                + (" (it is there, but the `select` rule leaves it out)" if dropped else ""),
                hint=f"expected at commit {src.ref}; is the archive complete?",
            )
        sha, size = hash_file(path)
        if (exp.size is not None and size != exp.size) or (exp.sha256 and sha != exp.sha256):
            raise CsrwhError(
                f"{src.title}: {rel} does not match the pinned commit {src.ref} "
                f"(sha256 {sha}, {size} bytes; expected {exp.sha256}, {exp.size} bytes)",
                hint=f"the download was corrupted or the upstream changed; fetch again, and if it "
                f"persists update {SOURCES_FILE}",
            )
