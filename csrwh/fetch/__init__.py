"""Download the corpora from their public upstreams into the data folder.

``fetch(corpora, data_dir, from_zip=None, force=False, mirror=None)`` lands each corpus in
``data_dir/<corpus folder>`` in its upstream layout, with a ``.csrwh-manifest.json`` of where
every file came from and its sha256. Upstreams are data (``ingest/corpora.toml``); every download
is verified, and a corpus folder is replaced only by a complete one that passes the content check.
Details: docs/internals.md#csrwh-fetch
"""

from __future__ import annotations

import errno
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.markup import escape
from rich.progress import (
    BarColumn,
    DownloadColumn,
    Progress,
    TextColumn,
    TimeRemainingColumn,
    TransferSpeedColumn,
)

from csrwh.errors import CsrwhError
from csrwh.fetch import files
from csrwh.fetch.archive import build_github_archive
from csrwh.fetch.download import Ctx, NoNetworkError
from csrwh.fetch.files import MANIFEST_NAME, Built, console
from csrwh.fetch.hub import build_hub_files
from csrwh.fetch.manual import build_from_manual_zip, manual_zip_error
from csrwh.fetch.parts import mirror_url, remove_corpus_parts, remove_part
from csrwh.fetch.redirects import allowed_hosts
from csrwh.fetch.sources import (
    GithubArchive,
    HubFiles,
    ManualZip,
    Upstream,
    corpus_names,
    load_sources,
    parse_sources,
    resolve_corpora,
)

__all__ = [
    "MANIFEST_NAME",
    "MIRROR_ENV",
    "FetchResult",
    "corpus_names",
    "fetch",
    "load_sources",
    "mirror_url",
    "resolve_corpora",
]

MIRROR_ENV = "CSRWH_MIRROR"


@dataclass
class FetchResult:
    """What happened to one corpus."""

    corpus: str
    path: Path
    status: str  # "fetched" | "skipped" | "manual"
    files: int = 0
    bytes: int = 0
    urls: list[str] = field(default_factory=list)
    ref: str | None = None
    warnings: list[str] = field(default_factory=list)
    message: str = ""
    subsets: dict[str, int] = field(default_factory=dict)  # top-level folder -> files
    skipped: int | None = None  # archive files a ``select`` rule left out (None: no rule)


def fetch(
    corpora: list[str],
    data_dir: Path,
    from_zip: Path | None = None,
    force: bool = False,
    mirror: str | None = None,
    *,
    sources: dict[str, Any] | None = None,
    allow_suspect: bool = False,
) -> list[FetchResult]:
    """Download ``corpora`` (empty = all) into ``data_dir``; see the module docstring.

    ``sources`` replaces the registry's upstream table (the shape :func:`load_sources`
    returns). Each corpus is attempted even if an earlier one failed; failures are then
    raised as one CsrwhError naming every failed corpus. ``allow_suspect`` swaps in a folder
    the content check (:mod:`csrwh.fetch.check`) refuses.
    """
    table = sources if sources is not None else load_sources()
    typed = parse_sources(table)
    mirror = mirror if mirror else (os.environ.get(MIRROR_ENV) or None)
    explicit = bool(corpora)
    if from_zip is not None and not corpora:  # the corpus only distributed by hand
        corpora = [n for n, u in typed.upstreams.items() if isinstance(u, ManualZip)][:1]
    selected = resolve_corpora(corpora, table)
    if from_zip is not None:
        from_zip = _check_from_zip(Path(from_zip).expanduser(), selected, typed.upstreams)

    data_dir = Path(data_dir).expanduser().resolve()
    data_dir.mkdir(parents=True, exist_ok=True)

    results: list[FetchResult] = []
    failures: list[tuple[str, CsrwhError]] = []
    with _make_progress() as progress:
        ctx = Ctx(data_dir, mirror, progress, allowed_hosts(typed))
        for corpus in selected:
            src = typed.upstreams[corpus]
            try:
                result = _fetch_corpus(
                    src,
                    ctx,
                    from_zip=from_zip,
                    force=force,
                    explicit=explicit,
                    allow_suspect=allow_suspect,
                )
            except CsrwhError as exc:  # one line now, the error is raised at the end
                failures.append((corpus, exc))
            except OSError as exc:  # disk full, permissions, ...
                failures.append(
                    (corpus, CsrwhError(f"{corpus}: {exc}", hint=_os_hint(exc, data_dir)))
                )
            else:
                results.append(result)
                _report(result, src)
                continue
            if len(selected) > 1:  # one line per failed corpus
                title, message = src.title, failures[-1][1].message
                if message.startswith(f"{title}"):
                    title, message = message.split(":", 1) if ":" in message else (title, message)
                console.print(
                    f"[red]✗ {escape(title)}[/red]:{'' if message.startswith(' ') else ' '}"
                    f"{escape(message)}",
                    soft_wrap=True,
                )
    if failures:
        raise _combined(failures)
    return results


def _os_hint(exc: OSError, data_dir: Path) -> str:
    """The hint for an OS error while fetching into ``data_dir``: what its errno means."""
    if exc.errno == errno.ENOSPC:
        return f"free space on the file system of {data_dir}, then fetch again"
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return f"make {data_dir} writable (or choose another --data-dir), then fetch again"
    return "fetch again; if it persists, run with CSRWH_DEBUG=1 to see where it fails"


def _check_from_zip(from_zip: Path, selected: list[str], upstreams: dict[str, Upstream]) -> Path:
    if len(selected) != 1:
        raise CsrwhError(
            f"--from-zip applies to one corpus, got {len(selected)}: {', '.join(selected)}",
            hint=f"run e.g. `csrwh fetch {selected[0]} --from-zip PATH`",
        )
    if not from_zip.is_file():
        raise CsrwhError(
            f"--from-zip: no such file {from_zip}", hint="give the path of the downloaded zip"
        )
    if not isinstance(upstreams[selected[0]], ManualZip | GithubArchive):
        github = [n for n, u in upstreams.items() if isinstance(u, GithubArchive)]
        manual = [n for n, u in upstreams.items() if isinstance(u, ManualZip)]
        raise CsrwhError(
            f"--from-zip is not supported for {selected[0]}",
            hint=f"it applies to {', '.join(manual)} and to the GitHub corpora ({', '.join(github)})",
        )
    return from_zip


def _combined(failures: list[tuple[str, CsrwhError]]) -> CsrwhError:
    """One error for every failed corpus."""
    if len(failures) == 1:
        return failures[0][1]
    if all(isinstance(exc, NoNetworkError) for _, exc in failures):
        return CsrwhError(
            f"no network: could not reach any upstream of {', '.join(c for c, _ in failures)} "
            "(see the lines above)",
            hint="check the internet connection (DNS, proxy settings such as HTTPS_PROXY); "
            "offline, serve the files from a mirror (CSRWH_MIRROR=http://host/) or use "
            "`csrwh fetch CORPUS --from-zip FILE`",
        )
    message = f"could not fetch {len(failures)} corpora: " + "; ".join(
        f"{corpus}: {exc.message}" for corpus, exc in failures
    )
    hints = [f"{corpus}: {exc.hint}" for corpus, exc in failures if exc.hint]
    return CsrwhError(message, hint=" | ".join(hints) or None)


def _fetch_corpus(
    src: Upstream,
    ctx: Ctx,
    *,
    from_zip: Path | None,
    force: bool,
    explicit: bool,
    allow_suspect: bool = False,
) -> FetchResult:
    corpus = src.corpus
    target = ctx.data_dir / corpus
    files.recover_interrupted_swap(ctx.data_dir, corpus, target)
    if target.exists() and not force:
        if (target / MANIFEST_NAME).is_file():
            return FetchResult(
                corpus, target, "skipped", message="already fetched (use --force to fetch again)"
            )
        if any(target.iterdir()):
            return FetchResult(
                corpus,
                target,
                "skipped",
                message="folder exists without a csrwh manifest (copied by hand?); use --force to replace it",
            )

    if isinstance(src, ManualZip) and from_zip is None:
        err = manual_zip_error(src, target)
        if explicit:
            raise err
        message = f"{err.message} ({err.hint})"
        return FetchResult(corpus, target, "manual", urls=[src.download_page], message=message)

    work = Path(tempfile.mkdtemp(prefix=f".tmp-{corpus}-build-", dir=ctx.data_dir))
    try:
        built = _build(src, ctx, work, from_zip)
        members = ", ".join(src.members) if isinstance(src, ManualZip) else ""
        files.require_usable_files(src, work, target, from_zip, members)
        _check_content(src, work, ctx.data_dir, target, from_zip, allow_suspect, built)
        written = files.write_manifest(src, work, built)
        files.install(work, target, ctx.data_dir, corpus)
    except Exception:
        remove_corpus_parts(ctx.data_dir, corpus)  # no partial downloads left behind
        raise
    finally:
        if work.exists():
            shutil.rmtree(work, ignore_errors=True)
    for part in built.parts:
        remove_part(part)
    refs = (built.source.get(k) for k in ("commit", "ref", "revision", "version"))
    return FetchResult(
        corpus,
        target,
        "fetched",
        files=len(written),
        bytes=sum(f["size"] for f in written),
        subsets=files.subsets(written),
        skipped=built.skipped,
        message=built.note,
        urls=[d["url"] for d in built.downloads],
        ref=next((r for r in refs if r), None),
        warnings=built.warnings,
    )


def _check_content(
    src: Upstream,
    work: Path,
    data_dir: Path,
    target: Path,
    from_zip: Path | None,
    allow_suspect: bool,
    built: Built,
) -> None:
    """Refuse a fetched folder the ingest cannot use or that lost most of the folder it
    replaces (:mod:`csrwh.fetch.check`); with ``allow_suspect`` warn and go on."""
    from csrwh.fetch.check import MIN_SHARE, check_new_folder

    found = check_new_folder(work, data_dir, src.corpus)
    if not found:
        return
    more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
    if allow_suspect:
        built.warnings.extend(f"swapped in despite: {line}" for line in found)
        return
    source = str(from_zip) if from_zip is not None else "the download"
    raise CsrwhError(
        f"{src.title}: {source} does not look like {src.title}: {found[0]}{more}; "
        f"{target} is left as it was",
        hint=f"check the {'zip' if from_zip is not None else 'mirror or upstream'} "
        f"(expected {src.layout or 'the upstream layout'}, at least {MIN_SHARE:.0%} of the "
        "files and records of the folder it replaces); `--allow-suspect` swaps it in anyway",
    )


def _build(src: Upstream, ctx: Ctx, work: Path, from_zip: Path | None) -> Built:
    if isinstance(src, GithubArchive):
        return build_github_archive(src, ctx, work, from_zip)
    if isinstance(src, HubFiles):
        return build_hub_files(src, ctx, work)
    if isinstance(src, ManualZip) and from_zip is not None:
        return build_from_manual_zip(src, work, from_zip)
    raise CsrwhError(
        f"{src.corpus}: cannot fetch a source of kind {src.kind!r}"
    )  # pragma: no cover


def _make_progress() -> Progress:
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        DownloadColumn(),
        TransferSpeedColumn(),
        TimeRemainingColumn(),
        console=console,
        disable=not console.is_terminal,
    )


def _report(result: FetchResult, src: Upstream) -> None:
    title = escape(src.title)
    if result.status == "fetched":
        subsets = ""
        if len(result.subsets) > 1 or (isinstance(src, GithubArchive) and src.select):
            subsets = " (" + ", ".join(f"{k} {n}" for k, n in result.subsets.items()) + ")"
        console.print(
            f"[green]✓ {title}[/green]: {result.files} files{escape(subsets)}, {result.bytes:,} bytes"
            f" → {escape(str(result.path))}"
            + (f" ({len(result.warnings)} warning(s))" if result.warnings else "")
        )
        if result.message:
            console.print(f"  [dim]{escape(result.message)}[/dim]")
    elif result.status == "skipped":
        console.print(f"[dim]- {title}: {escape(result.message)}[/dim]")
    else:
        console.print(f"[yellow]! {title}:[/yellow] {escape(result.message)}")
