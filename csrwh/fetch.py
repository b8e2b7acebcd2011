"""Download the corpora from their public upstreams into the data folder.

``fetch(corpora, data_dir, from_zip=None, force=False, mirror=None)`` lands each corpus in
``data_dir/<corpus folder>`` in its upstream repository's own layout (see
docs/ARCHITECTURE.md) and writes ``<corpus folder>/.csrwh-manifest.json`` with the upstream
URL(s), ref/commit/version, ``fetched_at``, the sha256 + size of every file and ``subsets``:
the number of files per top-level folder (``"."`` for files at the top).

Where things come from is data, not code: ``csrwh/upstreams.json`` (URLs, pinned commits,
known sha256/size). Corpora:

* ``cosrec`` -- GitHub archive of CAMEO-22/CoSRec at a pinned commit, ``dataset/**`` kept.
  ``dataset/raw/conversations.jsonl`` is a Git LFS pointer inside archives: pointers are
  replaced by the object from media.githubusercontent.com (checked against the pointer's
  oid and size); when that fails the file is left out with a warning.
* ``crsarena-dial`` (alias ``crsarena``) -- iai-group/crsarena-dial archive, ``data/**``.
* ``recllmsim`` -- wzf2000/RecLLMSim archive, kept by content, not by folder name: every
  ``*/**/*.json`` that is a JSON object with a ``history`` list (a conversation), whatever
  its top-level folder (``LLM_agent_user``, ``real_human_user``, ``human_exp_V2``, ``V2``,
  a future release...). The rule is the ``select`` entry of upstreams.json (see _Selection);
  how many archive files it left out is printed and recorded in the manifest.
* ``recoreact`` -- nine JSONL files from the Hugging Face hub (ModelScope as fallback). The
  hub names the food files ``meals-*.jsonl``; they are saved as ``food-*.jsonl``.
* ``convsearch`` -- only distributed as a Google-Drive zip: download it by hand and run
  ``csrwh fetch convsearch --from-zip PATH``. Asked for explicitly without a zip, fetch raises
  a CsrwhError with those instructions; when fetching "all" it is reported as ``manual``.

``from_zip`` applies to one corpus (with an empty corpus list it means ConvSearch); for the
GitHub corpora it may be the archive zip downloaded by hand in a browser.

Mirror (offline tests, air-gapped installs): ``mirror`` or else ``$CSRWH_MIRROR`` replaces the
scheme and host of every URL. The upstream host becomes the first path segment::

    mirror_url("https://codeload.github.com/o/r/zip/abc", "http://127.0.0.1:8000")
    == "http://127.0.0.1:8000/codeload.github.com/o/r/zip/abc"

i.e. ``mirror.rstrip("/") + "/" + host + path [+ "?" + query]``, so a plain static file server
over a folder holding ``codeload.github.com/...``, ``media.githubusercontent.com/...`` and
``huggingface.co/...`` serves everything.

Robustness: downloads use urllib into ``data_dir/.tmp-<corpus>-dl-*.part`` files; timeouts,
dropped connections, 408/429 and 5xx are retried (``ATTEMPTS`` tries with exponential backoff;
a try that received data before failing is not counted). A host that cannot be reached at all
(DNS failure, connection refused, no route) is not retried: with no network every corpus
fails at once with one ``✗`` line each and one error with a hint. A partial ``.part`` file
left by an earlier try (or a killed run) is resumed with an HTTP ``Range`` request when the
server answers 206 (guarded by ``If-Range``), else downloaded again; when a corpus fails, its
``.part`` files are deleted. Every file is verified against what is known about it (pinned
sha256/size, the hub's announced sha256/size, the HTTP length or chunked framing; a
close-delimited body with nothing to check it against is refused) and recorded with the list
of checks (``verified`` in the manifest's ``downloads``). Each file may take at most
``MAX_FILE_BYTES`` and ``MAX_FILE_SECONDS``; a zip may extract to at most
``MAX_EXTRACT_BYTES``. Redirects are followed only to the requested host, hosts named in
upstreams.json and its ``redirect_hosts`` (default ``DEFAULT_REDIRECT_HOSTS``, the hubs'
CDNs). Files are extracted into ``data_dir/.tmp-<corpus>-build-*`` and renamed into place only
when complete and holding at least one non-empty file (a zip without usable files is an
error); an existing corpus folder is replaced only then, even with ``force``, and left
untouched on any error. Without ``force`` a corpus folder that already holds a manifest is
skipped (a folder without one, e.g. copied by hand, is also left alone).
"""

from __future__ import annotations

import copy
import errno
import functools
import hashlib
import http.client
import json
import os
import re
import shutil
import socket
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
import zipfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path, PurePosixPath
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    DownloadColumn,
    Progress,
    TextColumn,
    TimeRemainingColumn,
    TransferSpeedColumn,
)

from csrwh import __version__
from csrwh.errors import CsrwhError

MANIFEST_NAME = ".csrwh-manifest.json"
MIRROR_ENV = "CSRWH_MIRROR"
SOURCES_FILE = "upstreams.json"

ATTEMPTS = 3  # tries per URL (tries that received data are not counted)
BACKOFF_SECONDS = 1.0  # sleep BACKOFF * 2**(n-1) before the n-th retry
TIMEOUT_SECONDS = 60.0  # per socket operation
MAX_FILE_BYTES = 4 << 30  # bound on one downloaded file
MAX_FILE_SECONDS = 3600.0  # bound on the wall time of one file (all tries and URLs)
MAX_EXTRACT_BYTES = 8 << 30  # bound on what one zip may extract to
#: hosts a download may be redirected to besides those named in upstreams.json, unless it
#: has its own ``redirect_hosts`` list: the hubs' download CDNs (``*.`` = any subdomain)
DEFAULT_REDIRECT_HOSTS = (
    "*.github.com",
    "*.githubusercontent.com",
    "*.huggingface.co",
    "*.hf.co",
    "*.modelscope.cn",
)
CHUNK_BYTES = 1 << 16
USER_AGENT = f"csrwh/{__version__} (+fetch; python-urllib)"
LFS_POINTER_PREFIX = b"version https://git-lfs.github.com/spec/v1"
LFS_POINTER_MAX_BYTES = 1024

console = Console(stderr=True)


# --------------------------------------------------------------------------- results


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


# --------------------------------------------------------------------------- sources


def load_sources(path: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """The upstream table (csrwh/upstreams.json, or ``path``)."""
    if path is not None:
        text = Path(path).read_text(encoding="utf-8")
    else:
        text = resources.files("csrwh").joinpath(SOURCES_FILE).read_text(encoding="utf-8")
    return json.loads(text)


def corpus_names(sources: dict[str, Any] | None = None) -> list[str]:
    """Canonical corpus folder names, in fetch order."""
    sources = sources or load_sources()
    return list(sources.get("order") or sources["corpora"])


def resolve_corpora(names: Iterable[str], sources: dict[str, Any] | None = None) -> list[str]:
    """Canonical names for ``names`` (aliases accepted, duplicates dropped); empty = all."""
    sources = sources or load_sources()
    valid = corpus_names(sources)
    lookup: dict[str, str] = {}
    for name in valid:
        spec = sources["corpora"][name]
        for alias in [name, *spec.get("aliases", [])]:
            lookup[_norm(alias)] = name
    out: list[str] = []
    for raw in names:
        canonical = lookup.get(_norm(raw))
        if canonical is None:
            aliases = ", ".join(
                f"{a} → {n}" for n in valid for a in sources["corpora"][n].get("aliases", [])[:1]
            )
            raise CsrwhError(
                f"unknown corpus {raw!r}; valid names: {', '.join(valid)}",
                hint=f"aliases are accepted too ({aliases}); give no name to fetch all",
            )
        if canonical not in out:
            out.append(canonical)
    return out or valid


def _norm(name: str) -> str:
    return str(name).strip().lower().replace("_", "-").rstrip("/")


def mirror_url(url: str, mirror: str | None) -> str:
    """``url`` served from ``mirror``: mirror + "/" + host + path (+ "?" + query)."""
    if not mirror:
        return url
    parts = urllib.parse.urlsplit(url)
    out = mirror.rstrip("/") + "/" + parts.netloc + (parts.path or "/")
    if parts.query:
        out += "?" + parts.query
    return out


# --------------------------------------------------------------------------- public API


def fetch(
    corpora: list[str],
    data_dir: Path,
    from_zip: Path | None = None,
    force: bool = False,
    mirror: str | None = None,
    *,
    sources: dict[str, Any] | None = None,
) -> list[FetchResult]:
    """Download ``corpora`` (empty = all) into ``data_dir``; see the module docstring.

    Each corpus is attempted even if an earlier one failed; failures are then raised as one
    CsrwhError naming every failed corpus.
    """
    sources = copy.deepcopy(sources) if sources is not None else load_sources()
    mirror = mirror if mirror else (os.environ.get(MIRROR_ENV) or None)
    explicit = bool(corpora)
    if from_zip is not None and not corpora:
        corpora = ["convsearch"]
    selected = resolve_corpora(corpora, sources)
    if from_zip is not None:
        from_zip = Path(from_zip).expanduser()
        if len(selected) != 1:
            raise CsrwhError(
                f"--from-zip applies to one corpus, got {len(selected)}: {', '.join(selected)}",
                hint="run e.g. `csrwh fetch convsearch --from-zip PATH`",
            )
        if not from_zip.is_file():
            raise CsrwhError(
                f"--from-zip: no such file {from_zip}", hint="give the path of the downloaded zip"
            )
        if sources["corpora"][selected[0]]["kind"] not in ("manual_zip", "github_archive"):
            raise CsrwhError(
                f"--from-zip is not supported for {selected[0]}",
                hint="it applies to convsearch and to the GitHub corpora (cosrec, crsarena-dial, recllmsim)",
            )

    data_dir = Path(data_dir).expanduser().resolve()
    data_dir.mkdir(parents=True, exist_ok=True)

    results: list[FetchResult] = []
    failures: list[tuple[str, CsrwhError]] = []
    with _make_progress() as progress:
        ctx = _Ctx(
            data_dir=data_dir,
            mirror=mirror,
            progress=progress,
            allowed_hosts=_allowed_hosts(sources),
        )
        for corpus in selected:
            spec = sources["corpora"][corpus]
            try:
                result = _fetch_corpus(
                    corpus, spec, ctx, from_zip=from_zip, force=force, explicit=explicit
                )
            except CsrwhError as exc:  # one line now, the error is raised at the end
                failures.append((corpus, exc))
            except OSError as exc:  # disk full, permissions, ...
                failures.append(
                    (
                        corpus,
                        CsrwhError(
                            f"{corpus}: {exc}",
                            hint=f"check free space and write permission in {data_dir}",
                        ),
                    )
                )
            else:
                results.append(result)
                _report(result, spec)
                continue
            if len(selected) > 1:  # one line per failed corpus
                title, message = spec.get("title", corpus), failures[-1][1].message
                if message.startswith(f"{title}"):
                    title, message = message.split(":", 1) if ":" in message else (title, message)
                console.print(
                    f"[red]✗ {escape(title)}[/red]:{'' if message.startswith(' ') else ' '}"
                    f"{escape(message)}",
                    soft_wrap=True,
                )
    if failures:
        if len(failures) == 1:
            raise failures[0][1]
        if all(isinstance(exc, _NoNetworkError) for _, exc in failures):
            raise CsrwhError(
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
        raise CsrwhError(message, hint=" | ".join(hints) or None)
    return results


# --------------------------------------------------------------------------- per corpus


@dataclass
class _Ctx:
    data_dir: Path
    mirror: str | None
    progress: Progress
    allowed_hosts: tuple[str, ...] = ()  # redirect targets besides the requested host


@dataclass
class _Built:
    source: dict[str, Any]
    downloads: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    lfs_missing: list[str] = field(default_factory=list)
    parts: list[Path] = field(default_factory=list)  # temp downloads to delete after install
    skipped: int | None = None  # archive files a ``select`` rule left out
    note: str = ""  # one line for the fetch summary


def _fetch_corpus(
    corpus: str,
    spec: dict[str, Any],
    ctx: _Ctx,
    *,
    from_zip: Path | None,
    force: bool,
    explicit: bool,
) -> FetchResult:
    target = ctx.data_dir / corpus
    _recover_interrupted_swap(ctx.data_dir, corpus, target)
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

    kind = spec["kind"]
    if kind == "manual_zip" and from_zip is None:
        err = _manual_zip_error(corpus, spec, target)
        if explicit:
            raise err
        return FetchResult(
            corpus,
            target,
            "manual",
            urls=[spec["download_page"]],
            message=f"{err.message} ({err.hint})",
        )

    work = Path(tempfile.mkdtemp(prefix=f".tmp-{corpus}-build-", dir=ctx.data_dir))
    try:
        if kind == "github_archive":
            built = _build_github_archive(corpus, spec, ctx, work, from_zip)
        elif kind == "hub_files":
            built = _build_hub_files(corpus, spec, ctx, work)
        elif kind == "manual_zip":
            assert from_zip is not None
            built = _build_from_manual_zip(corpus, spec, work, from_zip)
        else:  # pragma: no cover - data error
            raise CsrwhError(f"{corpus}: unknown source kind {kind!r} in {SOURCES_FILE}")
        _require_usable_files(corpus, spec, work, target, from_zip)
        files = _write_manifest(corpus, spec, work, built)
        _install(work, target, ctx.data_dir, corpus)
    except Exception:
        _remove_corpus_parts(ctx.data_dir, corpus)  # no partial downloads left behind
        raise
    finally:
        if work.exists():
            shutil.rmtree(work, ignore_errors=True)
    for part in built.parts:
        _remove_part(part)
    return FetchResult(
        corpus,
        target,
        "fetched",
        files=len(files),
        bytes=sum(f["size"] for f in files),
        subsets=_subsets(files),
        skipped=built.skipped,
        message=built.note,
        urls=[d["url"] for d in built.downloads],
        ref=next(
            (
                built.source[k]
                for k in ("commit", "ref", "revision", "version")
                if built.source.get(k)
            ),
            None,
        ),
        warnings=built.warnings,
    )


def _require_usable_files(
    corpus: str, spec: dict[str, Any], work: Path, target: Path, from_zip: Path | None
) -> None:
    """Never install a corpus folder without a usable (non-empty) file: the existing folder
    stays as it is, even with --force."""
    if any(p.is_file() and p.stat().st_size > 0 for p in work.rglob("*")):
        return
    source = str(from_zip) if from_zip is not None else "the download"
    raise CsrwhError(
        f"{spec.get('title', corpus)}: {source} has no usable files (every selected file is empty "
        f"or was left out); {target} is left as it was",
        hint=f"expected {spec.get('layout') or ', '.join(spec.get('members', [])) or 'the upstream layout'}"
        + ("; is it the right zip?" if from_zip is not None else ""),
    )


def _manual_zip_error(corpus: str, spec: dict[str, Any], target: Path) -> CsrwhError:
    members = " and ".join(spec["members"])
    return CsrwhError(
        f"{spec.get('title', corpus)} cannot be downloaded automatically: download "
        f"{spec.get('zip_name', 'the zip')} by hand from {spec['download_page']} "
        f"then run `csrwh fetch {corpus} --from-zip PATH`",
        hint=f"or copy {members} into {target}/ by hand",
    )


# --------------------------------------------------------------------------- GitHub archives


def _build_github_archive(
    corpus: str, spec: dict[str, Any], ctx: _Ctx, work: Path, from_zip: Path | None
) -> _Built:
    fmt = {"owner": spec["owner"], "repo": spec["repo"], "ref": spec["ref"]}
    urls = [u.format(**fmt) for u in spec["urls"]]
    title = spec.get("title", corpus)
    target = ctx.data_dir / corpus
    source = {
        "kind": "github_archive",
        "homepage": spec.get("homepage"),
        "repository": f"{spec['owner']}/{spec['repo']}",
        "ref": spec["ref"],
        "urls": urls,
        "mirror": ctx.mirror,
    }
    built = _Built(source=source)
    if from_zip is not None:
        zip_path = from_zip
        sha, size = _hash_file(zip_path)
        source["from_zip"] = str(from_zip)
        built.downloads.append(
            {"url": str(from_zip), "fetched_from": str(from_zip), "sha256": sha, "size": size}
        )
    else:
        part = _part_path(ctx.data_dir, corpus, urls[0])
        dl = _download_or_raise(
            corpus,
            title,
            urls,
            part,
            ctx,
            spec.get("sha256"),
            spec.get("size"),
            hint=_archive_hint(corpus, spec, urls, target),
            self_check="zip structure and CRC-32 of every member (on extraction)",
        )
        built.parts.append(part)
        built.downloads.append(dl.record())
        zip_path = dl.path

    selection = _Selection.from_spec(spec)
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
                ref = spec["ref"].lower()
                if re.fullmatch(r"[0-9a-f]{7,40}", ref) and not commit.startswith(ref):
                    raise CsrwhError(
                        f"{title}: the archive is of commit {commit}, expected {spec['ref']}",
                        hint=f"download {urls[0]} (the pinned commit)",
                    )
                source["commit"] = commit
            extracted = _extract(zf, work, choose, strip_top=True)
    except zipfile.BadZipFile as exc:
        raise CsrwhError(
            f"{title}: {zip_path if from_zip else urls[0]} is not a valid zip archive ({exc})",
            hint=_archive_hint(corpus, spec, urls, target),
        ) from None
    no_files = CsrwhError(
        f"{title}: the archive has no {selection.describe()}",
        hint=f"is it the archive of {spec['owner']}/{spec['repo']}? expected {spec.get('layout', '')}",
    )
    if not extracted:
        raise no_files
    source.setdefault("commit", spec["ref"])

    _resolve_lfs_pointers(corpus, spec, ctx, work, extracted, built)
    if selection.json_keys:
        present = [rel for rel in extracted if rel not in built.lfs_missing]
        rejected = _drop_by_content(work, present, selection)
        if len(rejected) == len(present):
            raise no_files
        _record_selection(spec, built, selection, len(left_out), rejected)
    _check_expected_files(corpus, spec, work, built)
    return built


def _archive_hint(corpus: str, spec: dict[str, Any], urls: list[str], target: Path) -> str:
    return (
        f"no internet? download {urls[-1]} in a browser and run "
        f"`csrwh fetch {corpus} --from-zip FILE`, or copy the files into {target}/ by hand "
        f"in the upstream layout ({spec.get('layout', ', '.join(spec.get('include', [])))})"
    )


_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
    "any": (object,),
}


@dataclass
class _Selection:
    """Which files of a GitHub archive a corpus keeps (upstreams.json ``include``/``select``).

    A file (path relative to the archive's top folder) is kept when it starts with one of
    ``include`` (if any), fully matches ``select.glob`` (if any; see _glob_regex) and, if
    ``select.json_keys`` is given, parses as a JSON object holding every listed key with a
    value of the listed JSON type (object, array, string, number, boolean, null, any).
    """

    include: tuple[str, ...] = ()
    glob: str | None = None
    json_keys: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_spec(cls, spec: dict[str, Any]) -> _Selection:
        select = spec.get("select") or {}
        json_keys = dict(select.get("json_keys") or {})
        unknown = sorted(set(json_keys.values()) - set(_JSON_TYPES))
        if unknown:  # pragma: no cover - data error
            raise CsrwhError(
                f"unknown JSON type(s) {unknown} in select.json_keys of {SOURCES_FILE}"
            )
        return cls(tuple(spec.get("include") or ()), select.get("glob"), json_keys)

    def path_ok(self, rel: str) -> bool:
        if self.include and not rel.startswith(self.include):
            return False
        return self.glob is None or _glob_regex(self.glob).fullmatch(rel) is not None

    def content_ok(self, path: Path) -> bool:
        if not self.json_keys:
            return True
        try:
            data = json.loads(path.read_bytes())  # UTF-8 (with or without BOM), -16, -32
        except (OSError, ValueError, RecursionError):
            return False
        return isinstance(data, dict) and all(
            key in data and _is_json_type(data[key], kind) for key, kind in self.json_keys.items()
        )

    def describe(self) -> str:
        what = [f"files under {', '.join(self.include)}"] if self.include else []
        if self.glob:
            what.append(f"files matching {self.glob}")
        if self.json_keys:
            keys = ", ".join(f"{k!r} ({kind})" for k, kind in self.json_keys.items())
            what.append(f"that are JSON objects with {keys}")
        return " ".join(what) or "files"


def _is_json_type(value: Any, kind: str) -> bool:
    if isinstance(value, bool) and kind == "number":
        return False
    return isinstance(value, _JSON_TYPES[kind])


@functools.lru_cache(maxsize=32)
def _glob_regex(pattern: str) -> re.Pattern[str]:
    """``pattern`` over POSIX relative paths: ``*`` and ``?`` match within one path segment,
    ``**/`` any number of folders (also none), so ``*/**/*.json`` = a .json file in a folder."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        else:
            out.append({"*": "[^/]*", "?": "[^/]"}.get(pattern[i], re.escape(pattern[i])))
            i += 1
    return re.compile("".join(out), re.DOTALL)


def _drop_by_content(work: Path, extracted: list[str], selection: _Selection) -> list[str]:
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


def _record_selection(
    spec: dict[str, Any], built: _Built, selection: _Selection, left_out: int, rejected: list[str]
) -> None:
    """Manifest fields and the summary line for a corpus kept by a ``select`` rule."""
    built.skipped = left_out + len(rejected)
    built.source["select"] = spec.get("select")
    built.source["skipped_files"] = built.skipped
    built.source["skipped_json"] = rejected
    keys = " and ".join(f"a {k!r} {kind}" for k, kind in selection.json_keys.items())
    examples = ", ".join(rejected[:2]) + (", ..." if len(rejected) > 2 else "")
    built.note = (
        f"skipped {built.skipped:,} archive files that are not conversation files "
        f"({left_out:,} not matching {selection.glob or 'the paths'}, "
        f"{len(rejected):,} JSON files without {keys}{': ' + examples if examples else ''})"
    )


def _resolve_lfs_pointers(
    corpus: str, spec: dict[str, Any], ctx: _Ctx, work: Path, extracted: list[str], built: _Built
) -> None:
    title = spec.get("title", corpus)
    for rel in extracted:
        path = work / rel
        pointer = _read_lfs_pointer(path)
        if pointer is None:
            continue
        oid, size = pointer
        template = spec.get("lfs_media_url")
        media = (
            template.format(
                owner=spec["owner"],
                repo=spec["repo"],
                ref=spec["ref"],
                path=urllib.parse.quote(rel),
            )
            if template
            else None
        )
        reason = "no LFS media URL configured"
        if media:
            part = _part_path(ctx.data_dir, corpus, media)
            try:
                dl = _download(
                    corpus,
                    f"{title} {PurePosixPath(rel).name} (LFS)",
                    [media],
                    part,
                    ctx,
                    oid,
                    size,
                )
            except (_DownloadFailed, CsrwhError) as exc:
                reason = exc.message if isinstance(exc, CsrwhError) else str(exc)
                _remove_part(part)
            else:
                os.replace(dl.path, path)
                _remove_part(part)
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


def _read_lfs_pointer(path: Path) -> tuple[str, int] | None:
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


def _check_expected_files(corpus: str, spec: dict[str, Any], work: Path, built: _Built) -> None:
    title = spec.get("title", corpus)
    for rel, exp in (spec.get("expected_files") or {}).items():
        if rel in built.lfs_missing:
            continue
        path = work / rel
        if not path.is_file():
            dropped = rel in built.source.get("skipped_json", [])
            raise CsrwhError(
                f"{title}: the archive lacks {rel}"
                + (" (it is there, but the `select` rule leaves it out)" if dropped else ""),
                hint=f"expected at commit {spec['ref']}; is the archive complete?",
            )
        sha, size = _hash_file(path)
        if (exp.get("size") is not None and size != exp["size"]) or (
            exp.get("sha256") and sha != exp["sha256"]
        ):
            raise CsrwhError(
                f"{title}: {rel} does not match the pinned commit {spec['ref']} "
                f"(sha256 {sha}, {size} bytes; expected {exp.get('sha256')}, {exp.get('size')} bytes)",
                hint=f"the download was corrupted or the upstream changed; fetch again, and if it "
                f"persists update csrwh/{SOURCES_FILE}",
            )


# --------------------------------------------------------------------------- hub files


def _build_hub_files(corpus: str, spec: dict[str, Any], ctx: _Ctx, work: Path) -> _Built:
    title = spec.get("title", corpus)
    target = ctx.data_dir / corpus
    revision = spec.get("revision", "main")
    templates = spec["urls"]
    renamed = [f"{f['remote']} as {f['local']}" for f in spec["files"] if f["remote"] != f["local"]]
    hint = (
        f"no internet? download the files from {spec.get('homepage', templates[0])} and copy them into "
        f"{target}/ as {spec.get('layout', 'the upstream layout')}"
        + (f" (save {', '.join(renamed)})" if renamed else "")
    )
    source: dict[str, Any] = {
        "kind": "hub_files",
        "homepage": spec.get("homepage"),
        "revision": revision,
        "urls": [],
        "mirror": ctx.mirror,
    }
    built = _Built(source=source)
    commits: set[str] = set()
    for item in spec["files"]:
        urls = [t.format(revision=revision, remote=item["remote"]) for t in templates]
        source["urls"].append(urls[0])
        part = _part_path(ctx.data_dir, corpus, urls[0])
        dl = _download_or_raise(
            corpus,
            f"{title} {item['remote']}",
            urls,
            part,
            ctx,
            item.get("sha256"),
            item.get("size"),
            hint=hint,
        )
        if item["local"].endswith((".jsonl", ".json")) and not _looks_like_json(dl.path):
            _remove_part(part)
            raise CsrwhError(
                f"{title}: {dl.fetched_from} did not return JSON (an error or login page?)",
                hint=hint,
            )
        dest = work / item["local"]
        dest.parent.mkdir(parents=True, exist_ok=True)
        os.replace(dl.path, dest)
        _remove_part(part)
        built.downloads.append(
            {**dl.record(), "upstream_path": item["remote"], "saved_as": item["local"]}
        )
        if dl.headers.get("x-repo-commit"):
            commits.add(dl.headers["x-repo-commit"])
    if len(commits) == 1:
        source["commit"] = commits.pop()
    elif commits:
        source["commits"] = sorted(commits)
    return built


def _looks_like_json(path: Path) -> bool:
    with open(path, "rb") as fh:
        head = fh.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")
    return head == b"" or head[:1] in (b"{", b"[")


# --------------------------------------------------------------------------- manual zip


def _build_from_manual_zip(corpus: str, spec: dict[str, Any], work: Path, zip_path: Path) -> _Built:
    title = spec.get("title", corpus)
    sha, size = _hash_file(zip_path)
    source = {
        "kind": "manual_zip",
        "homepage": spec.get("homepage"),
        "version": spec.get("version"),
        "urls": [spec["download_page"]],
        "from_zip": str(zip_path),
    }
    built = _Built(source=source)
    built.downloads.append(
        {"url": spec["download_page"], "fetched_from": str(zip_path), "sha256": sha, "size": size}
    )
    wanted = {m.casefold(): m for m in spec["members"]}
    try:
        with zipfile.ZipFile(zip_path) as zf:
            chosen: dict[str, str] = {}  # wanted name -> member name (shallowest wins)
            json_seen: list[str] = []
            for info in zf.infolist():
                name = _member_name(info)
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
            missing = [m for m in spec["members"] if m not in chosen]
            if missing:
                raise CsrwhError(
                    f"{title}: {zip_path} has no {' or '.join(missing)}",
                    hint=f"use {spec.get('zip_name', 'the main-part zip')} from {spec['download_page']}"
                    + (
                        f"; JSON files in this zip: {', '.join(json_seen[:10])}"
                        if json_seen
                        else ""
                    ),
                )
            by_member = {v: k for k, v in chosen.items()}
            _extract(zf, work, lambda rel: by_member.get(rel), strip_top=False)
            empty = [m for m in spec["members"] if (work / m).stat().st_size == 0]
            if empty:
                raise CsrwhError(
                    f"{title}: {zip_path}: {' and '.join(chosen[m] for m in empty)} "
                    f"{'is' if len(empty) == 1 else 'are'} empty; nothing was changed",
                    hint=f"use {spec.get('zip_name', 'the main-part zip')} from {spec['download_page']}",
                )
    except zipfile.BadZipFile as exc:
        raise CsrwhError(
            f"{title}: {zip_path} is not a valid zip archive ({exc})",
            hint=f"download {spec.get('zip_name', 'the zip')} again from {spec['download_page']}",
        ) from None
    return built


# --------------------------------------------------------------------------- zip extraction


def _member_name(info: zipfile.ZipInfo) -> str:
    name = info.filename
    if not info.flag_bits & 0x800:  # names not flagged UTF-8 were decoded as cp437
        try:
            name = name.encode("cp437").decode("utf-8")
        except (UnicodeEncodeError, UnicodeDecodeError):
            pass
    return name.replace("\\", "/")


def _extract(
    zf: zipfile.ZipFile, dest: Path, select: Callable[[str], str | None], *, strip_top: bool
) -> list[str]:
    """Extract the regular-file members ``select`` maps to a relative path; returns those paths.

    With ``strip_top`` the single top folder shared by every member (GitHub archives:
    ``<repo>-<commit>/``) is removed first.
    """
    infos = [i for i in zf.infolist() if not i.is_dir()]
    names = [_member_name(i) for i in infos]
    top = None
    if strip_top and names:
        firsts = {n.lstrip("/").split("/", 1)[0] for n in names}
        if len(firsts) == 1 and all("/" in n.lstrip("/") for n in names):
            top = firsts.pop()
    chosen: list[tuple[zipfile.ZipInfo, tuple[str, ...]]] = []
    for info, name in zip(infos, names):
        if (info.external_attr >> 16) & 0o170000 == 0o120000:  # symlink
            continue
        rel = name.lstrip("/")
        if top is not None:
            rel = rel.split("/", 1)[1]
        target_rel = select(rel)
        if not target_rel:
            continue
        parts = PurePosixPath(target_rel).parts
        if not parts or any(p in ("", ".", "..") for p in parts) or ":" in parts[0]:
            raise CsrwhError(
                f"unsafe path in zip archive: {name!r}",
                hint="the archive is corrupt or not the upstream one",
            )
        chosen.append((info, parts))
    too_big = CsrwhError(
        f"the zip would extract to more than {MAX_EXTRACT_BYTES:,} bytes (MAX_EXTRACT_BYTES); "
        "nothing was changed",
        hint="is it the right archive? the corpora are far smaller",
    )
    if sum(info.file_size for info, _ in chosen) > MAX_EXTRACT_BYTES:
        raise too_big
    out: list[str] = []
    written = 0
    for info, parts in chosen:
        target = dest.joinpath(*parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        with zf.open(info) as src, open(target, "wb") as dst:
            while chunk := src.read(CHUNK_BYTES):
                written += len(chunk)
                if written > MAX_EXTRACT_BYTES:  # headers can lie about sizes
                    raise too_big
                dst.write(chunk)
        out.append("/".join(parts))
    return out


# --------------------------------------------------------------------------- manifest + install


def _write_manifest(
    corpus: str, spec: dict[str, Any], work: Path, built: _Built
) -> list[dict[str, Any]]:
    files = []
    for path in sorted(p for p in work.rglob("*") if p.is_file()):
        rel = path.relative_to(work).as_posix()
        if rel == MANIFEST_NAME:
            continue
        sha, size = _hash_file(path)
        files.append({"path": rel, "sha256": sha, "size": size})
    manifest = {
        "manifest_version": 1,
        "corpus": corpus,
        "title": spec.get("title", corpus),
        "fetched_at": datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        "csrwh_version": __version__,
        "source": built.source,
        "downloads": built.downloads,
        "warnings": built.warnings,
        "subsets": _subsets(files),
        "files": files,
    }
    (work / MANIFEST_NAME).write_text(
        json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    return files


def _subsets(files: list[dict[str, Any]]) -> dict[str, int]:
    """Files per top-level folder ("." for files at the top), sorted by folder name."""
    counts: dict[str, int] = {}
    for f in files:
        top = f["path"].split("/", 1)[0] if "/" in f["path"] else "."
        counts[top] = counts.get(top, 0) + 1
    return dict(sorted(counts.items()))


def _install(work: Path, target: Path, data_dir: Path, corpus: str) -> None:
    """Rename the complete build folder to ``target``; the old folder goes only after that."""
    old: Path | None = None
    if target.exists() or target.is_symlink():
        old = data_dir / f".tmp-{corpus}-old-{uuid.uuid4().hex[:8]}"
        os.replace(target, old)
    try:
        os.replace(work, target)
    except OSError as exc:
        if old is not None:
            os.replace(old, target)
        raise CsrwhError(f"{corpus}: could not move the new files into {target}: {exc}") from None
    if old is not None:
        if old.is_symlink() or old.is_file():
            old.unlink()
        else:
            shutil.rmtree(old, ignore_errors=True)


def _recover_interrupted_swap(data_dir: Path, corpus: str, target: Path) -> None:
    """Clean up after a killed run: restore a good folder caught mid-swap, drop build folders."""
    for stale in sorted(data_dir.glob(f".tmp-{corpus}-old-*")):
        if not target.exists() and (stale / MANIFEST_NAME).is_file():
            os.replace(stale, target)
        else:
            shutil.rmtree(stale, ignore_errors=True)
    for stale in data_dir.glob(f".tmp-{corpus}-build-*"):
        shutil.rmtree(stale, ignore_errors=True)


# --------------------------------------------------------------------------- downloading


class _DownloadFailed(Exception):
    """A URL did not work (not retried further)."""


class _NoNetwork(_DownloadFailed):
    """The host cannot be reached at all (DNS failure, connection refused, no route):
    retrying would only add waiting."""


class _Retryable(Exception):
    pass


class _NoNetworkError(CsrwhError):
    """A corpus failed because no upstream host could be reached."""


@dataclass
class _Downloaded:
    url: str  # upstream URL
    fetched_from: str  # URL actually used (mirror applied)
    path: Path
    sha256: str
    size: int
    headers: dict[str, str]
    verified: list[str] = field(default_factory=list)  # what the bytes were checked against

    def record(self) -> dict[str, Any]:
        rec: dict[str, Any] = {
            "url": self.url,
            "fetched_from": self.fetched_from,
            "sha256": self.sha256,
            "size": self.size,
            "verified": self.verified,
        }
        if self.headers.get("x-repo-commit"):
            rec["commit"] = self.headers["x-repo-commit"]
        return rec


def _part_path(data_dir: Path, corpus: str, key: str) -> Path:
    digest = hashlib.sha1(key.encode("utf-8")).hexdigest()[:12]
    return data_dir / f".tmp-{corpus}-dl-{digest}.part"


def _meta_path(part: Path) -> Path:
    return part.with_name(part.name + ".json")


def _remove_part(part: Path) -> None:
    part.unlink(missing_ok=True)
    _meta_path(part).unlink(missing_ok=True)


def _remove_corpus_parts(data_dir: Path, corpus: str) -> None:
    """Delete every partial download of ``corpus`` (after a failed fetch)."""
    for path in data_dir.glob(f".tmp-{corpus}-dl-*"):
        if path.is_file() or path.is_symlink():
            path.unlink(missing_ok=True)


def _download_or_raise(
    corpus: str,
    label: str,
    urls: list[str],
    part: Path,
    ctx: _Ctx,
    sha256: str | None,
    size: int | None,
    *,
    hint: str,
    self_check: str | None = None,
) -> _Downloaded:
    try:
        return _download(corpus, label, urls, part, ctx, sha256, size, self_check=self_check)
    except _NoNetwork as exc:
        raise _NoNetworkError(f"{label}: download failed: {exc}", hint=hint) from None
    except _DownloadFailed as exc:
        raise CsrwhError(f"{label}: download failed: {exc}", hint=hint) from None


def _download(
    corpus: str,
    label: str,
    urls: list[str],
    part: Path,
    ctx: _Ctx,
    sha256: str | None,
    size: int | None,
    *,
    self_check: str | None = None,
) -> _Downloaded:
    """Download the first URL of ``urls`` that works into ``part`` and verify it.

    Every download is checked against everything known about it: the pinned sha256/size
    (upstreams.json, LFS pointers), the sha256/size the server announces (hub
    ``X-Linked-Etag``/``X-Linked-Size``) and the HTTP framing (``Content-Length``,
    ``Content-Range`` or chunked encoding: a body cut short raises and is retried). A body
    that ends only when the connection closes, with no checksum or size to check it
    against, cannot be verified and is refused -- unless the content checks itself
    (``self_check``, e.g. a zip: its central directory and CRC-32s are checked on
    extraction). Each file gets ``MAX_FILE_BYTES`` and
    ``MAX_FILE_SECONDS`` (over all tries and URLs). Raises _DownloadFailed (_NoNetwork when
    no URL's host could be reached) when no URL worked, CsrwhError when the bytes do not
    verify.
    """
    errors: list[str] = []
    offline = True
    deadline = time.monotonic() + MAX_FILE_SECONDS
    for upstream in urls:
        real = mirror_url(upstream, ctx.mirror)
        try:
            headers, framing = _fetch_with_retries(
                real, part, label, ctx.progress, deadline=deadline, allowed=ctx.allowed_hosts
            )
        except _DownloadFailed as exc:
            offline = offline and isinstance(exc, _NoNetwork)
            errors.append(f"{real}: {exc}")
            continue
        got_sha, got_size = _hash_file(part)
        linked = headers.get("x-linked-etag", "").strip('"').lower().removeprefix("w/").strip('"')
        linked_size = headers.get("x-linked-size", "").strip()
        problems: list[str] = []
        verified: list[str] = []
        if size is not None:
            verified.append("pinned size")
            if got_size != size:
                problems.append(f"size {got_size}, expected {size}")
        if sha256:
            verified.append("pinned sha256")
            if got_sha != sha256.lower():
                problems.append(f"sha256 {got_sha}, expected {sha256}")
        elif re.fullmatch(r"[0-9a-f]{64}", linked):
            verified.append("announced sha256")
            if got_sha != linked:
                problems.append(f"sha256 {got_sha}, the server announced {linked}")
        if linked_size.isdigit():
            verified.append("announced size")
            if got_size != int(linked_size):
                problems.append(f"size {got_size}, the server announced {linked_size}")
        if framing:
            verified.append(framing)
        if not verified and self_check:
            verified.append(self_check)
        if not problems and not verified:
            problems.append(
                "it cannot be verified: the server sent no Content-Length (the body ends when the "
                "connection closes, so a cut-off body looks complete) and no sha256/size is pinned "
                f"for it in csrwh/{SOURCES_FILE}"
            )
        if problems:
            _remove_part(part)
            what = "failed verification" if verified else "was refused"
            raise CsrwhError(
                f"{label}: {real} {what} ({'; '.join(problems)})",
                hint=f"the download was corrupted, cut short or the upstream changed; fetch again "
                f"(or from a mirror that sends Content-Length), and if it persists check csrwh/{SOURCES_FILE}",
            )
        return _Downloaded(upstream, real, part, got_sha, got_size, headers, verified)
    message = "; ".join(errors) or "no URL to try"
    if errors and offline:
        raise _NoNetwork(message)
    raise _DownloadFailed(message)


def _allowed_hosts(sources: dict[str, Any]) -> tuple[str, ...]:
    """Hosts a download may be redirected to: every host named in the upstream list
    (URLs, LFS media, download pages) plus ``redirect_hosts`` of upstreams.json (default
    DEFAULT_REDIRECT_HOSTS: the hubs' CDNs); ``*.example.org`` = any subdomain."""
    hosts: set[str] = set()
    for spec in sources.get("corpora", {}).values():
        templates = [
            *spec.get("urls", []),
            spec.get("lfs_media_url"),
            spec.get("download_page"),
            spec.get("homepage"),
        ]
        for template in templates:
            if template:
                host = urllib.parse.urlsplit(str(template)).hostname
                if host:
                    hosts.add(host.lower())
    extra = sources.get("redirect_hosts")
    hosts.update(h.lower() for h in (DEFAULT_REDIRECT_HOSTS if extra is None else extra))
    return tuple(sorted(hosts))


def _host_allowed(host: str, allowed: Iterable[str]) -> bool:
    host = host.lower().rstrip(".")
    for pattern in allowed:
        if pattern.startswith("*."):
            if host == pattern[2:] or host.endswith(pattern[1:]):
                return True
        elif host == pattern:
            return True
    return False


class _RecordingRedirects(urllib.request.HTTPRedirectHandler):
    """Keeps hub headers (X-Repo-Commit, X-Linked-Etag) seen on redirect responses and
    refuses redirects to a host that is neither the requested one nor an allowed one."""

    KEEP = ("x-repo-commit", "x-linked-etag", "x-linked-size")

    def __init__(self, origin: str, allowed: Iterable[str]) -> None:
        super().__init__()
        self.seen: dict[str, str] = {}
        self.origin = origin
        self.allowed = tuple(allowed)

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
        newurl = urllib.parse.urljoin(req.full_url, newurl)
        host = (urllib.parse.urlsplit(newurl).hostname or "").lower()
        if host != self.origin and not _host_allowed(host, self.allowed):
            raise _DownloadFailed(
                f"refused a redirect to {newurl}: host {host} is not in the upstream list "
                f"(add it to redirect_hosts in csrwh/{SOURCES_FILE} if it is legitimate)"
            )
        for key in self.KEEP:
            value = headers.get(key)
            if value and key not in self.seen:
                self.seen[key] = value
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def _opener(
    url: str, allowed: Iterable[str] = ()
) -> tuple[urllib.request.OpenerDirector, _RecordingRedirects]:
    host = (urllib.parse.urlsplit(url).hostname or "").lower()
    redirects = _RecordingRedirects(host, allowed)
    handlers: list[Any] = [redirects]
    if host in ("127.0.0.1", "localhost", "::1"):
        handlers.append(urllib.request.ProxyHandler({}))  # never send loopback via a proxy
    return urllib.request.build_opener(*handlers), redirects


def _fetch_with_retries(
    url: str,
    part: Path,
    label: str,
    progress: Progress,
    *,
    deadline: float | None = None,
    allowed: Iterable[str] = (),
) -> tuple[dict[str, str], str | None]:
    """(kept headers, how the body's end was known) of a complete download of ``url``."""
    deadline = time.monotonic() + MAX_FILE_SECONDS if deadline is None else deadline
    meta = _read_json(_meta_path(part))
    if part.exists() and (not meta or meta.get("url") != url):
        _remove_part(part)  # partial file of another URL: start over
    task = progress.add_task(label, total=None)
    failures = 0
    while True:
        before = part.stat().st_size if part.exists() else 0
        try:
            return _attempt(url, part, progress, task, deadline=deadline, allowed=allowed)
        except _Retryable as exc:
            after = part.stat().st_size if part.exists() else 0
            if after <= before:
                failures += 1  # a try that received data does not count
            if failures >= ATTEMPTS:
                raise _DownloadFailed(f"{exc} (after {ATTEMPTS} tries)") from None
            pause = BACKOFF_SECONDS * 2 ** max(failures - 1, 0) if BACKOFF_SECONDS > 0 else 0.0
            if time.monotonic() + pause >= deadline:
                raise _DownloadFailed(f"{exc}; {_too_slow()}") from None
            if pause > 0:
                time.sleep(pause)


def _too_slow() -> str:
    return f"gave up after {MAX_FILE_SECONDS:g} s (the time allowed per file, MAX_FILE_SECONDS)"


def _too_big(n: int) -> str:
    return (
        f"the file is larger than {MAX_FILE_BYTES:,} bytes (got {n:,}), the size allowed per "
        "file (MAX_FILE_BYTES)"
    )


def _unreachable(exc: BaseException, url: str) -> str | None:
    """Why ``url``'s host cannot be reached at all, or None (a transient error)."""
    reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
    host = urllib.parse.urlsplit(url).hostname or url
    if isinstance(reason, socket.gaierror):
        return f"no network: DNS lookup of {host} failed ({reason.strerror or reason})"
    if isinstance(reason, ConnectionRefusedError):
        return f"no network: {host} refused the connection"
    if isinstance(reason, OSError) and reason.errno in (
        errno.ENETUNREACH,
        errno.EHOSTUNREACH,
        errno.ENETDOWN,
    ):
        return f"no network: {host} is unreachable ({reason.strerror})"
    return None


def _attempt(
    url: str,
    part: Path,
    progress: Progress,
    task: Any,
    *,
    deadline: float | None = None,
    allowed: Iterable[str] = (),
) -> tuple[dict[str, str], str | None]:
    deadline = time.monotonic() + MAX_FILE_SECONDS if deadline is None else deadline
    left = deadline - time.monotonic()
    if left <= 0:
        raise _DownloadFailed(_too_slow())
    offset = part.stat().st_size if part.exists() else 0
    meta = _read_json(_meta_path(part)) or {}
    headers = {"User-Agent": USER_AGENT, "Accept-Encoding": "identity"}
    if offset > 0:
        headers["Range"] = f"bytes={offset}-"
        if meta.get("validator"):
            headers["If-Range"] = meta["validator"]
    opener, redirects = _opener(url, allowed)
    try:
        resp = opener.open(
            urllib.request.Request(url, headers=headers),
            timeout=min(TIMEOUT_SECONDS, max(left, 0.05)),
        )
    except urllib.error.HTTPError as exc:
        exc.close()
        if exc.code == 416 and offset > 0:
            _remove_part(part)  # stale partial file: start over
            raise _Retryable("HTTP 416 on resume") from None
        if exc.code >= 500 or exc.code in (408, 429):
            raise _Retryable(f"HTTP {exc.code} {exc.reason}") from None
        raise _DownloadFailed(f"HTTP {exc.code} {exc.reason}") from None
    except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
        why = _unreachable(exc, url)
        if why:
            raise _NoNetwork(why) from None
        raise _Retryable(_describe(exc)) from None

    with resp:
        total: int | None = None
        framing: str | None = None
        if resp.status == 206 and offset > 0:
            match = re.match(r"bytes (\d+)-\d+/(\d+|\*)", resp.headers.get("Content-Range", ""))
            if not match or int(match.group(1)) != offset:
                _remove_part(part)
                raise _Retryable("server sent an unexpected byte range")
            total = int(match.group(2)) if match.group(2) != "*" else None
            framing = "content-range" if total is not None else None
            mode = "ab"
        else:
            offset = 0
            mode = "wb"
            length = resp.headers.get("Content-Length")
            total = int(length) if length and length.isdigit() else None
        if total is None and "chunked" in resp.headers.get("Transfer-Encoding", "").lower():
            framing = "chunked transfer encoding"  # a cut-off chunked body raises IncompleteRead
        elif total is not None:
            framing = framing or "content-length"
        if total is not None and total > MAX_FILE_BYTES:
            _remove_part(part)
            raise _DownloadFailed(_too_big(total))
        etag = resp.headers.get("ETag")
        validator = (
            etag if etag and not etag.startswith("W/") else resp.headers.get("Last-Modified")
        )
        _meta_path(part).write_text(
            json.dumps({"url": url, "validator": validator}), encoding="utf-8"
        )
        progress.update(task, total=total, completed=offset)
        received = offset
        read = getattr(resp, "read1", resp.read)  # returns as soon as data arrives
        with open(part, mode) as fh:
            while True:
                try:
                    chunk = read(CHUNK_BYTES)
                except (OSError, http.client.HTTPException) as exc:
                    if time.monotonic() >= deadline:
                        raise _DownloadFailed(_too_slow()) from None
                    raise _Retryable(
                        f"connection lost after {received} bytes ({_describe(exc)})"
                    ) from None
                if not chunk:
                    break
                fh.write(chunk)
                received += len(chunk)
                progress.update(task, completed=received)
                if received > MAX_FILE_BYTES:
                    fh.close()
                    _remove_part(part)
                    raise _DownloadFailed(_too_big(received))
                if time.monotonic() >= deadline:
                    raise _DownloadFailed(_too_slow())
        if total is not None and received < total:
            raise _Retryable(f"connection closed after {received} of {total} bytes")
        progress.update(task, total=received, completed=received)
        seen = dict(redirects.seen)
        for key in _RecordingRedirects.KEEP:
            value = resp.headers.get(key)
            if value:
                seen.setdefault(key, value)
        return seen, framing


def _describe(exc: BaseException) -> str:
    if isinstance(exc, urllib.error.URLError) and not isinstance(exc, urllib.error.HTTPError):
        return f"connection error: {exc.reason}"
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


# --------------------------------------------------------------------------- helpers


def _hash_file(path: Path) -> tuple[str, int]:
    digest = hashlib.sha256()
    size = 0
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
            size += len(chunk)
    return digest.hexdigest(), size


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


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


def _report(result: FetchResult, spec: dict[str, Any]) -> None:
    title = escape(spec.get("title", result.corpus))
    if result.status == "fetched":
        subsets = ""
        if len(result.subsets) > 1 or spec.get("select"):
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
