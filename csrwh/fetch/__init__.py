"""Download the corpora from their public upstreams into the data folder.

``fetch(corpora, data_dir, from_zip=None, force=False, mirror=None)`` lands each corpus in
``data_dir/<corpus folder>`` in its upstream repository's own layout (see
docs/ARCHITECTURE.md) and writes ``<corpus folder>/.csrwh-manifest.json`` with the upstream
URL(s), ref/commit/version, ``fetched_at``, the sha256 + size of every file and ``subsets``:
the number of files per top-level folder (``"."`` for files at the top).

Where things come from is data, not code: the ``[corpus.upstream]`` tables of the corpus
registry ``ingest/corpora.toml`` (URLs, pinned commits, known sha256/size), typed by
:mod:`csrwh.fetch.sources`. Which corpus uses which kind is in the registry; the kinds:

* ``github_archive`` -- the GitHub zip archive of a pinned commit; only the paths under
  ``include`` are kept, or, with a ``select`` rule, the files matching its glob whose content
  passes its JSON-key test (so a corpus whose releases are new top-level folders is kept by
  content, not by folder name; how many archive files the rule left out is printed and
  recorded in the manifest). Git LFS pointer files inside the archive are replaced by the
  object from ``lfs_media_url`` (checked against the pointer's oid and size); when that
  fails the file is left out with a warning. Pinned ``expected_files`` are checked.
* ``hub_files`` -- files from a dataset hub (first working URL template: the hub, then a
  fallback), each saved under its ``local`` name (a hub's file names may differ from the
  warehouse layout).
* ``manual_zip`` -- only distributed by hand (e.g. a Google-Drive zip): download it and run
  ``csrwh fetch <corpus> --from-zip PATH``. Asked for explicitly without a zip, fetch raises
  a CsrwhError with those instructions; when fetching "all" it is reported as ``manual``.

Every name the registry knows for a corpus is accepted (id, folder, title or alias).
``from_zip`` applies to one corpus (with an empty corpus list it means the ``manual_zip``
corpus); for the ``github_archive`` corpora it may be the archive zip downloaded by hand.

Mirror (offline tests, air-gapped installs): ``mirror`` or else ``$CSRWH_MIRROR`` replaces the
scheme and host of every URL. The upstream host becomes the first path segment::

    mirror_url("https://codeload.github.com/o/r/zip/abc", "http://127.0.0.1:8000")
    == "http://127.0.0.1:8000/codeload.github.com/o/r/zip/abc"

i.e. ``mirror.rstrip("/") + "/" + host + path [+ "?" + query]``, so a plain static file server
over a folder holding ``codeload.github.com/...``, ``media.githubusercontent.com/...`` and
``huggingface.co/...`` serves everything.

Robustness (:mod:`csrwh.fetch.download`, the HTTP helper): downloads use requests into
``data_dir/.tmp-<corpus>-dl-*.part`` files; what is retried is one urllib3 ``Retry``
(:func:`~csrwh.fetch.download.retry_policy`: timeouts, dropped connections, 408/429 and 5xx,
``ATTEMPTS`` tries with exponential backoff of ``BACKOFF_SECONDS``; a try that received data
before failing is not counted). A host that cannot be reached at all (DNS failure, connection
refused, no route) is not retried: with no network every corpus fails at once with one ``✗``
line each and one error with a hint. A partial ``.part`` file left by an earlier try (or a
killed run) is resumed with an HTTP ``Range`` request when the server answers 206 (guarded by
``If-Range``), else downloaded again; when a corpus fails, its ``.part`` files are deleted.
Hugging Face files (:mod:`csrwh.fetch.hub`) are fetched with ``huggingface_hub`` from
``$HF_ENDPOINT`` (default https://huggingface.co) into a ``.tmp-<corpus>-dl-*.part.hub``
folder of the data folder (its cache too; nothing under ``~/.cache``), under the same retry
policy and bounds; a dropped connection is tried again in the run (huggingface_hub resumes
from its last 10 MB chunk written), a killed run starts the file over. With
``CSRWH_MIRROR`` set (a plain file server, not the Hub's API) they are plain downloads.
Every file is verified against what is known about it (:mod:`csrwh.fetch.verify`: pinned
sha256/size, the hub's announced sha256/size, the HTTP length or chunked framing; a
close-delimited body with nothing to check it against is refused; bytes that do not match are
deleted) and recorded with the list of checks (``verified`` in the manifest's
``downloads``). Each file may take at most ``MAX_FILE_BYTES`` and
``MAX_FILE_SECONDS``; a zip may extract to at most ``MAX_EXTRACT_BYTES``
(:mod:`csrwh.fetch.files`). Redirects are followed only to the requested host, hosts the
upstreams name and the registry's ``redirect_hosts`` (default ``DEFAULT_REDIRECT_HOSTS``, the
hubs' CDNs). Files are extracted into ``data_dir/.tmp-<corpus>-build-*`` and renamed into
place only when complete and holding at least one non-empty file (a zip without usable files
is an error); an existing corpus folder is replaced only then, even with ``force``, and left
untouched on any error. Before the swap the ingest reads the new folder and the one it
replaces (:mod:`csrwh.fetch.check`): a file that lands no record, or fewer than half the
files or records of a raw table of the replaced folder, refuses the swap unless
``allow_suspect``. Without ``force`` a corpus folder that already holds a manifest is
skipped (a folder without one, e.g. copied by hand, is also left alone).

Modules: ``sources`` (typed upstreams), ``download`` (HTTP, the retry policy), ``redirects``
(allowed hosts, the requests session), ``verify`` (checks of the bytes), ``parts`` (``.part``
files, mirror URLs), ``archive`` (GitHub archives, LFS), ``hub`` (hub files, huggingface_hub),
``manual`` (hand-downloaded zips), ``files`` (extraction, manifest, install), ``check`` (the
content check before the swap); this module runs them per corpus.
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
